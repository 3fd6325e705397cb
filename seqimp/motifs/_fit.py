"""Fit motifs to an observed POIM: PWMs, start positions and spreads (motifPOIM).

The model is the implied POIM of :mod:`seqimp.motifs._implied_poim`: motif i has a PWM ``r_i``,
a placement distribution ``v_i`` over start positions and a non-negative scale
``alpha_{i,k}`` per order k, and

    R_k(z, j) = sum_i alpha_{i,k} sum_t v_i(t) (prod_{l in overlap} 4 r_{i,l}(z_l) - 1).

It is fitted to the observed POIM Q_k(z, j) by least squares over orders ``orders`` and the
positions around the motifs, every order's block scaled to unit norm so that orders count
alike. The joint problem is not convex (a product of columns), but each block of variables
enters linearly when the others are fixed, and :func:`fit_motifs` alternates exact solutions
of these convex least-squares problems:

* the scales ``alpha`` and the placement weights ``v`` (non-negative least squares,
  :func:`scipy.optimize.nnls`);
* every PWM column on the probability simplex, one at a time (:func:`simplex_lstsq`, an exact
  active-set solution of the 4-variable quadratic programme).

Every step solves its block exactly, so the objective never increases.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
from numba import njit
from scipy.linalg import LinAlgError, cholesky, solve_triangular
from scipy.optimize import nnls

from ..errors import SeqimpError, check_choice
from ..importance._result import MEASURES, measure_tables
from ._implied_kernels import column_sweep_kernel, ridged_simplex
from ._implied_poim import motif_contribution, per_start_contributions
from ._motif import Motif, information_content

__all__ = ["simplex_lstsq", "fit_motifs", "MotifFit"]


def simplex_lstsq(G, c, *, ridge=1e-10):
    """Least squares on the probability simplex: ``min ||G x - c||^2, x >= 0, sum(x) = 1``.

    Exact for small ``G.shape[1]``: the optimum of this convex quadratic programme is the
    equality-constrained optimum on one face of the simplex; faces are tried from the largest
    down and the first point that satisfies the KKT conditions is returned. A tiny ridge towards the centre of the simplex makes the
    answer unique when ``G`` does not determine it. The faces are searched by a numba kernel
    (:func:`seqimp.motifs._implied_kernels.ridged_simplex`) on the normal equations ``G'G``, ``G'c``.

    Parameters
    ----------
    G : ndarray of shape (n, d)
    c : ndarray of shape (n,)

    Returns
    -------
    x : ndarray of shape (d,)
    """
    G = np.asarray(G, dtype=np.float64)
    c = np.asarray(c, dtype=np.float64)
    H = np.ascontiguousarray(G.T @ G, dtype=np.float64)
    g = np.ascontiguousarray(G.T @ c, dtype=np.float64)
    return ridged_simplex(H, g, float(ridge))  # the ridge pulls towards the centre 1/d


def _nnls(A, b):
    """``min ||A x - b||, x >= 0`` for a tall ``A`` of shape (n, d), solved on the d x d problem
    ``min ||R x - R^-T A'b||`` with ``R'R = A'A`` (Cholesky; the same minimiser, since the two
    objectives differ by a constant): scipy's active-set NNLS then works on d rows instead of
    n (a position-free motif: d = 151 starts, n = 13,296 POIM entries, 1.4 s -> 0.1 s). A
    ridge of 1e-12 times the mean diagonal keeps ``A'A`` positive definite where columns are
    zero or collinear. A large design that is mostly zeros (a motif placed at many starts: each
    start's column is non-zero only on the rows its k-mers overlap) forms ``A'A`` from each
    row's non-zero entries (:func:`_sparse_normal`; scipy's sparse product, the same bits: a
    position-free motif's 13,296 x 151 design, 5% non-zero, in 4 ms instead of 20)."""
    if A.size > 200_000 and np.count_nonzero(A) < 0.25 * A.size:
        H, g = _sparse_normal(np.ascontiguousarray(A, dtype=np.float64), np.ascontiguousarray(b, dtype=np.float64))
    else:
        H, g = A.T @ A, A.T @ b
    d = H.shape[0]
    H[np.diag_indices(d)] += 1e-12 * np.trace(H) / d + 1e-300
    try:
        R = cholesky(H, lower=False)
    except LinAlgError:  # numerically indefinite: the problem as it is
        return nnls(A, b, maxiter=50 * d)[0]
    return nnls(R, solve_triangular(R, g, trans="T"), maxiter=50 * d)[0]


@njit(cache=True)
def _sparse_normal(A, b):
    """``(A'A, A'b)`` of a mostly-zero ``A`` (shape (n, d)) in one row-by-row scan: every row's
    products of its non-zero entries added to their entries of ``A'A`` -- each entry the sum
    over the rows, in increasing row order from 0, that scipy's sparse product ``S.T @ S`` of
    ``S = csc_matrix(A)`` takes (the same bits), without building ``S``."""
    n, d = A.shape
    H = np.zeros((d, d))
    g = np.zeros(d)
    cols = np.empty(d, dtype=np.int64)
    for r in range(n):
        m = 0
        for j in range(d):
            if A[r, j] != 0.0:
                cols[m] = j
                m += 1
        for p in range(m):
            j1 = cols[p]
            x = A[r, j1]
            g[j1] += x * b[r]
            for q in range(p, m):
                j2 = cols[q]
                H[j1, j2] += x * A[r, j2]
    for j1 in range(d):
        for j2 in range(j1 + 1, d):
            H[j2, j1] = H[j1, j2]
    return H, g


@dataclass
class MotifFit:
    """Result of :func:`fit_motifs`.

    Attributes
    ----------
    motifs : list of Motif
        Fitted motifs (start = rounded mean 1-based start, spread = standard deviation of the
        placement distribution, score = the motif's share of the observed POIM explained, in
        [0, 1]: how much the relative residual grows when the motif is left out of the fitted
        model, these gains rescaled to sum to ``r2``, so that overlapping motifs cannot each
        claim the same part).
    placements : list of (ndarray, ndarray)
        Per motif: 0-based candidate starts of shape (n_i,) and their weights (sum 1).
    alpha : ndarray of shape (n_motifs, len(orders))
        Scale of every motif at every fitted order.
    orders : list of int
    objective : list of float
        Relative residual sum of squares ``||y - R||^2 / ||y||^2`` after every sweep
        (never increases).
    r2 : float
        ``1 - objective[-1]``.
    column_scores : list of ndarray
        Per motif, shape (m,): how much the relative residual grows when that column is made
        uniform (the column's share of the explained POIM); used to trim motif ends.
    """

    motifs: list
    placements: list
    alpha: np.ndarray
    orders: list
    objective: list
    r2: float
    column_scores: list = None


class _Problem:
    """Observed entries (weighted) and the window of positions they cover."""

    def __init__(self, result, measure, orders, lo, hi, signs):
        self.signs = signs
        tables = measure_tables(result, measure)
        L = result.length
        self.orders = orders
        self.positions, blocks, masks = [], [], []
        for k in orders:
            pos = np.arange(max(lo - k + 1, 0), min(hi, L - k) + 1)
            block = np.asarray(tables[k - 1][pos], dtype=np.float64)
            mask = np.isfinite(block)
            block = np.where(mask, block, 0.0)
            norm = np.sqrt((block ** 2).sum())
            scale = 1.0 / norm if norm > 0 else 0.0
            self.positions.append(pos)
            blocks.append(block.ravel() * scale)
            masks.append(mask.ravel() * scale)
        self.y = np.concatenate(blocks)
        self.w = np.concatenate(masks)  # order weight, 0 where the observation is missing
        self.ny = float(self.y @ self.y) or 1.0

    def contrib(self, i, pwm, starts, weights, alpha):
        return self.signs[i] * self.w * motif_contribution(pwm, starts, weights, alpha, self.orders, self.positions)

    def per_start(self, i, pwm, starts, alpha):
        return self.signs[i] * self.w[:, None] * per_start_contributions(pwm, starts, alpha, self.orders,
                                                                          self.positions)

    def sweep_columns(self, i, pwm, starts, weights, alpha, target, ridge=1e-10):
        """Every column of motif ``i``'s ``pwm`` in turn (in place, each with the columns before it
        already updated) set to its least-squares optimum on the simplex against ``target`` (the
        observed entries minus the other motifs' fitted contributions): :func:`simplex_lstsq` on
        :func:`~seqimp.motifs._implied_poim.column_design`'s affine form of the column, one numba
        kernel for the whole sweep (:func:`seqimp.motifs._implied_kernels.column_sweep_kernel`)."""
        if not hasattr(self, "_flat"):
            sizes = [p.size for p in self.positions]
            self._flat = (np.ascontiguousarray(np.concatenate(self.positions), dtype=np.int64),
                          np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64),
                          np.concatenate([[0], np.cumsum([n * 4 ** k for n, k in zip(sizes, self.orders)])]
                                         ).astype(np.int64),
                          np.asarray(self.orders, dtype=np.int64))
        positions, pos_offsets, entry_offsets, orders = self._flat
        column_sweep_kernel(pwm, np.ascontiguousarray(starts, dtype=np.int64),
                            np.ascontiguousarray(weights, dtype=np.float64),
                            np.ascontiguousarray(alpha, dtype=np.float64), orders, positions, pos_offsets,
                            entry_offsets, self.w, np.ascontiguousarray(target), float(self.signs[i]), float(ridge))


def _starts_window(start0, m, L, window):
    lo, hi = max(start0 - window, 0), min(start0 + window, L - m)
    return np.arange(lo, hi + 1, dtype=np.int64)


def fit_motifs(result, motifs, *, orders=None, measure="poim", window=3, max_iter=30, tol=1e-6,
               per_order=False, windows=None):
    """Refine motifs so that their implied POIM matches an observed POIM.

    The fit's linear algebra is on small matrices (at most a few hundred columns), where a
    multi-threaded BLAS only waits for its threads: it runs on one BLAS thread
    (``threadpoolctl``; a 151 x 151 Cholesky factor took 83 ms on two threads of a busy
    2-core machine, 0.7 ms on one).

    Parameters
    ----------
    result : POIMResult
        The observed importance (``.poim`` or ``.firm`` tables).
    motifs : sequence of Motif
        Starting points (e.g. from :func:`seqimp.motifs._candidates.assemble_motif`), each with a 1-based
        ``start``; ``spread`` is ignored (placements are re-fitted). A ``depleted`` motif
        enters with a negative sign (its scale stays non-negative).
    orders : sequence of int, optional
        Orders k of the POIM to fit; default ``1..min(3, result.max_order)``.
    measure : {"poim", "firm"}, default="poim"
    window : int, default=3
        Starts within ``start ± window`` may carry placement weight.
    windows : sequence of int or None, optional
        One window per motif instead (None entries: ``window``); a position-free motif gets
        the sequence length (every start).
    max_iter : int, default=30
        Maximum number of sweeps over all blocks.
    tol : float, default=1e-6
        Stop when a sweep lowers the relative residual by less than this.
    per_order : bool, default=False
        One scale per motif and order (only the shape within every order is fitted) instead
        of one scale per motif (the implied POIM of the motif's scorer, up to its unit).

    Returns
    -------
    MotifFit
    """
    from threadpoolctl import threadpool_limits

    with threadpool_limits(limits=1, user_api="blas"):
        return _fit_motifs(result, motifs, orders=orders, measure=measure, window=window, max_iter=max_iter, tol=tol,
                           per_order=per_order, windows=windows)


def _fit_motifs(result, motifs, *, orders, measure, window, max_iter, tol, per_order, windows):
    """:func:`fit_motifs` on one BLAS thread."""
    check_choice(measure, "measure", MEASURES)
    motifs = list(motifs)
    if not motifs:
        raise SeqimpError("fit_motifs needs at least one starting motif")
    L = result.length
    orders = list(range(1, min(3, result.max_order) + 1)) if orders is None else sorted({int(k) for k in orders})
    if not orders or orders[0] < 1 or orders[-1] > result.max_order:
        raise SeqimpError(f"orders must lie in 1..{result.max_order} (the POIM's max_order), got {orders}")
    pwms, starts, weights = [], [], []
    windows = [window] * len(motifs) if windows is None else [window if w is None else w for w in windows]
    signs = [-1.0 if m.direction == "depleted" else 1.0 for m in motifs]
    for m, win in zip(motifs, windows):
        if m.start is None:
            raise SeqimpError(f"motif {m.name}: a starting motif needs a start position")
        if m.length > L:
            raise SeqimpError(f"motif {m.name} (length {m.length}) is longer than the sequences (length {L})")
        s0 = min(m.start - 1, L - m.length)
        st = _starts_window(s0, m.length, L, int(win))
        w = (st == s0).astype(np.float64)
        pwms.append(0.9 * m.pwm + 0.025)  # keep every letter possible at the start
        starts.append(st)
        weights.append(w)
    lo = min(int(st[0]) for st in starts)
    hi = max(int(st[-1]) + p.shape[0] - 1 for st, p in zip(starts, pwms))
    prob = _Problem(result, measure, orders, lo, hi, signs)
    n, K = len(motifs), len(orders)
    alpha = np.ones((n, K))

    def total():
        return sum(prob.contrib(i, p, s, w, a) for i, (p, s, w, a) in enumerate(zip(pwms, starts, weights, alpha)))

    def rss(fitted):
        r = prob.y - fitted
        return float(r @ r) / prob.ny

    history = []
    for _ in range(max_iter):
        # placements: one column per (motif, start); mass moves into alpha
        design = np.hstack([prob.per_start(i, pwms[i], starts[i], alpha[i]) for i in range(n)])
        owner = np.concatenate([np.full(len(starts[i]), i) for i in range(n)])
        coef = _nnls(design, prob.y)
        for i in range(n):
            wi = coef[owner == i]
            if wi.sum() > 0:
                alpha[i] *= wi.sum()
                weights[i] = wi / wi.sum()
            else:
                alpha[i] = 0.0
        # scales: one column per (motif, order)
        cols = []
        for i in range(n):
            for q in range(K if per_order else 1):
                a = np.zeros(K) if per_order else np.ones(K)
                a[q] = 1.0
                cols.append(prob.contrib(i, pwms[i], starts[i], weights[i], a))
        coef = _nnls(np.column_stack(cols), prob.y)
        alpha = coef.reshape(n, K) if per_order else np.repeat(coef[:, None], K, axis=1)
        # PWM columns on the simplex
        fitted = total()
        for i in range(n):
            if not alpha[i].any():
                continue
            own = prob.contrib(i, pwms[i], starts[i], weights[i], alpha[i])
            rest = fitted - own
            prob.sweep_columns(i, pwms[i], starts[i], weights[i], alpha[i], prob.y - rest)
            fitted = rest + prob.contrib(i, pwms[i], starts[i], weights[i], alpha[i])
        history.append(rss(fitted))
        if len(history) > 1 and history[-2] - history[-1] < tol:
            break

    fitted = total()
    full = rss(fitted)
    out, columns, gains = [], [], []
    for i, m in enumerate(motifs):
        own = prob.contrib(i, pwms[i], starts[i], weights[i], alpha[i])
        gains.append(max(rss(fitted - own) - full, 0.0))
        gain = np.empty(pwms[i].shape[0])
        for col in range(pwms[i].shape[0]):  # the fit lost when this column says nothing
            flat = pwms[i].copy()
            flat[col] = 0.25
            gain[col] = rss(fitted - own + prob.contrib(i, flat, starts[i], weights[i], alpha[i])) - full
        columns.append(gain)
        mean = float(weights[i] @ starts[i])
        sd = float(np.sqrt(max(weights[i] @ (starts[i] - mean) ** 2, 0.0)))
        out.append(Motif(m.name, pwms[i], start=int(round(mean)) + 1, spread=sd, direction=m.direction))
    total_gain = sum(gains)
    for m, g in zip(out, gains):  # shares of the explained POIM: in [0, 1], summing to r2
        m.score = max(1.0 - full, 0.0) * g / total_gain if total_gain > 0 else 0.0
    return MotifFit(out, list(zip(starts, weights)), alpha, orders, history, 1.0 - full, columns)


def trim_motif(motif, *, fraction=0.25, column_scores=None) -> Motif:
    """Drop end columns scoring below ``fraction`` of the motif's best column; the start moves
    with the left end.

    Column scores are ``column_scores`` (e.g. :attr:`MotifFit.column_scores`: what the fit loses
    without the column; PWMs fitted to a POIM are flat, so their information content says
    little) or, by default, the columns' information content.
    """
    ic = information_content(motif.pwm) if column_scores is None else np.asarray(column_scores, dtype=np.float64)
    keep = np.flatnonzero(ic >= fraction * ic.max())
    if keep.size == 0:
        return motif
    a, b = int(keep[0]), int(keep[-1]) + 1
    start = None if motif.start is None else motif.start + a
    return replace(motif, pwm=motif.pwm[a:b], start=start)
