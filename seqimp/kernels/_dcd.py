"""The hinge-loss SVM on WD features by dual coordinate descent, without a feature matrix.

:func:`dcd_svm` solves the hinge-loss (L1-loss) linear SVM in its dual by dual
coordinate descent with shrinking (Hsieh et al., ICML 2008) -- the algorithm and
stopping rule of liblinear's ``solve_l2r_l1l2_svc``, which :class:`sklearn.svm.LinearSVC`
(``loss="hinge"``, ``dual=True``) runs. As there, the bias is an extra constant feature
of value 1 (``intercept_scaling=1``), so it is regularised like the weights, and the
problem, its optimum and the meaning of ``C``, ``tol`` and ``max_iter`` are liblinear's::

    min_a  1/2 a^T Q a - sum_i a_i,   0 <= a_i <= C_i,   Q_ij = y_i y_j (phi_i.phi_j + 1)

``w = sum_i y_i a_i (phi_i, 1)``. One pass visits the active coordinates in a random
order (a fresh permutation per pass from ``random_state``). A coordinate step computes
the row's feature addresses from its codes (:mod:`._implicit`, :mod:`._layout`). Inside
the solver the weights live in the layout of :mod:`._layout` (orders k and k+1 of a
position in one cache line for DNA/RNA); the solution is returned in the standard
layout. Training memory: the codes, the solver's weight vector
(``solver_layout(...).size + 1`` floats, about 1.6 times the ``feature_offsets[-1]``
columns at degree 8), the returned coefficients and a few arrays of length n. The
distributed solver (:mod:`._distributed`) runs the same step kernel.
"""

from __future__ import annotations

import sys
import time
import warnings
from dataclasses import dataclass

import numba
import numpy as np
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.class_weight import compute_class_weight

from .._utils.cores import available_cores
from ..errors import SeqimpError, check_int, check_number, check_random_state
from ..io import get_alphabet
from ._async_dcd import AsyncPasses, rebuild_weights
from ._dual_step import projected_gradient, widen
from ._implicit import check_codes, implicit_layout, lines_shown, row_norm2, solver_line, wd_scores
from ._layout import (_add_buf, _dot_buf, aligned_zeros, row_addresses, row_buffers, row_norm2_buf, solver_layout,
                      to_standard)
from ._params import check_degree_shifts, wd_beta

__all__ = ["dcd_svm", "SVMSolution", "svm_dual_objective", "svm_primal_objective", "check_svm_problem",
           "check_threads", "cumulative_beta", "svm_start", "svm_solution"]


# --------------------------------------------------------------------------- numba kernels


@numba.njit(cache=True, nogil=True)
def _svm_steps(codes, sign, alpha, upper, w, lay, sqb, degree, base, qd, sigma, order, s, stop, active,
               pg_max_old, pg_min_old, pg, cumbeta):
    """Coordinate steps of liblinear's L1-loss SVM dual on ``order[s:min(stop, active)]``, one row at a time.

    ``w`` holds the weights at the addresses of the layout table ``lay`` (:mod:`._layout`),
    then the bias (constant feature 1) as its last entry. ``sigma`` scales
    the curvature and the update of w (1: plain DCD; K: CoCoA+ local subproblem, where w is
    the local view). ``pg`` holds the running (max, min) projected gradient of this pass.
    Shrinking as in liblinear: a coordinate at a bound whose gradient points out of the box
    by more than last pass's extreme projected gradient leaves the active set (swapped with
    the last active row). ``cumbeta`` is not used (kept for the callers' signature). Returns
    the next position and the active size.

    Per row: gather w.phi, step, scatter the update (:mod:`._async_dcd` runs the same steps on
    several threads sharing ``w``).
    """
    p = w.shape[0] - 1
    length = codes.shape[1]
    buf, kmer = row_buffers(length, degree)
    while s < stop and s < active:
        i = order[s]
        full = row_addresses(codes[i], lay, degree, base, buf, kmer)
        yi = sign[i]
        g = yi * (_dot_buf(buf, w, sqb, degree, length) + w[p]) - 1.0
        c = upper[i]
        a = alpha[i]
        shrink, proj = projected_gradient(g, a, c, pg_max_old, pg_min_old)
        if shrink:
            active -= 1
            order[s] = order[active]
            order[active] = i
            continue
        s += 1
        widen(pg, proj)
        if abs(proj) > 1.0e-12:
            q = qd if full else row_norm2_buf(buf, sqb, degree) + 1.0     # a row with unknown symbols: its own
            new = min(max(a - g / (sigma * q), 0.0), c)
            alpha[i] = new
            d = sigma * (new - a) * yi
            if d != 0.0:
                _add_buf(buf, w, d, sqb, degree, length)
            w[p] += d
    return s, active


# --------------------------------------------------------------------------- helpers


@dataclass
class SVMSolution:
    """Result of :func:`dcd_svm` (and of the distributed solver).

    Attributes
    ----------
    coef : ndarray of shape (p,)
        Weights in the :func:`~seqimp.wd_features` column layout.
    intercept : float
        The bias (weight of the constant feature 1).
    dual_coef : ndarray of shape (n,)
        The dual variables a_i in [0, C_i].
    n_iter : int
        Passes over the data (rounds for the distributed solver).
    dual_objective : float
        ``sum(a) - ||(w, b)||^2 / 2`` (maximised; equals the primal optimum at convergence).
    converged : bool
    """

    coef: np.ndarray
    intercept: float
    dual_coef: np.ndarray
    n_iter: int
    dual_objective: float
    converged: bool


def check_threads(n_jobs) -> int:
    """Threads for ``n_jobs``: None is 1, -1 every core the process may use
    (:func:`seqimp._utils.cores.available_cores`), a positive number itself."""
    if n_jobs is None:
        return 1
    n_jobs = check_int(n_jobs, "n_jobs", minimum=-1)
    if n_jobs == 0:
        raise SeqimpError("n_jobs must be a positive number of threads, -1 (all) or None (1), got 0")
    return available_cores() if n_jobs == -1 else n_jobs


def _steps(X, sign, alpha, upper, w, lay, sqb, degree, base, qd, order, s, stop, active, pg_max_old, pg_min_old,
           pg, cumbeta):
    """One chunk of DCD steps (sigma = 1), one row after the other."""
    return _svm_steps(X, sign, alpha, upper, w, lay, sqb, degree, base, qd, 1.0, order, s, stop, active,
                      pg_max_old, pg_min_old, pg, cumbeta)


def cumulative_beta(degree) -> np.ndarray:
    """``c[m] = beta_1 + ... + beta_m`` (c[0] = 0), shape (degree + 1,): the WD kernel of a run of m matches."""
    return np.concatenate([[0.0], np.cumsum(wd_beta(degree))])


def svm_dual_objective(w_full, alpha, norm2=None) -> float:
    """Dual objective ``sum(a) - ||w_full||^2 / 2`` (w_full includes the bias); ``norm2``:
    ``||w_full||^2`` where the caller has it already (no second sweep over the weights)."""
    if norm2 is None:
        norm2 = np.dot(w_full, w_full)
    return float(np.sum(alpha) - 0.5 * norm2)


def svm_primal_objective(codes, yb, coef, intercept, *, degree, C=1.0, class_weight=None, alphabet="dna"):
    """liblinear's primal ``||(w, b)||^2 / 2 + sum_i C_i max(0, 1 - y_i (w.phi_i + b))``.

    ``yb`` are 0/1 labels (1 is the positive class); used to compare solvers.
    """
    scores = wd_scores(codes, coef, intercept, degree=degree, alphabet=alphabet)
    sign = np.where(np.asarray(yb) == 1, 1.0, -1.0)
    upper = _upper_bounds(np.asarray(yb), C, class_weight)
    hinge = np.maximum(0.0, 1.0 - sign * scores)
    return float(0.5 * (np.dot(coef, coef) + intercept ** 2) + np.dot(upper, hinge))


def _upper_bounds(yb, C, class_weight):
    """C_i = C * class_weight[y_i], as LinearSVC computes them for labels 0/1."""
    cw = compute_class_weight(class_weight, classes=np.array([0, 1]), y=yb)
    return (C * cw[yb.astype(np.intp)]).astype(np.float64)


def check_svm_problem(codes, y, degree, C, tol, max_iter, alphabet):
    """The checked ``(X, y as int64 0/1, degree, C, tol, max_iter, Alphabet)`` of an SVM fit on the codes."""
    alpha_ = get_alphabet(alphabet)
    X = check_codes(codes, "X", alpha_)
    n, length = X.shape
    degree, _ = check_degree_shifts(degree, 0, length, what="training sequences")
    yb = np.asarray(y).ravel()
    if yb.shape[0] != n:
        raise SeqimpError(f"X has {n} sequences but y has {yb.shape[0]} labels")
    if not np.all((yb == 0) | (yb == 1)):
        raise SeqimpError("y must hold labels 0 and 1 for the SVM solver")
    C = check_number(C, "C", low=0, low_open=True)
    tol = check_number(tol, "tol", low=0, low_open=True)
    max_iter = check_int(max_iter, "max_iter")
    return X, yb.astype(np.int64), degree, C, tol, max_iter, alpha_


def svm_start(yb, C, class_weight, length, degree, alphabet):
    """The constants and the zero start of an SVM fit (single machine or Dask).

    Returns ``(sqb, base, sign, upper, qd, layout, w, alpha)``: sqrt(beta_k), the alphabet
    size, the labels as +-1, the bounds C_i, the diagonal ||phi_i||^2 + 1 (the same for every
    row without unknown symbols; a row with some has its own, from its addresses' counts), the solver's :class:`._layout.SolverLayout`, its zero weight vector (64-byte
    aligned, the bias last) and the zero dual variables.
    """
    _, sqb, base = implicit_layout(length, degree, alphabet)
    layout = solver_layout(length, degree, base)
    return (sqb, base, np.where(yb == 1, 1.0, -1.0), _upper_bounds(yb, C, class_weight),
            row_norm2(length, degree) + 1.0, layout, aligned_zeros(layout.size + 1), np.zeros(yb.shape[0]))


def svm_solution(w, layout, alpha, n_iter, converged) -> SVMSolution:
    """The :class:`SVMSolution` of the solver's weights ``w`` (layout ``layout``, bias last) and
    dual variables ``alpha``: the weights mapped back to the standard layout, the dual objective.
    The caller's last use of ``w``: its memory is handed back as it is mapped (``to_standard(release=True)``)."""
    objective = svm_dual_objective(w, alpha)
    coef, bias = to_standard(w, layout, release=True)
    return SVMSolution(coef=coef, intercept=bias, dual_coef=alpha, n_iter=n_iter, dual_objective=objective,
                       converged=converged)


def _pass_bar(verbose, total, desc):
    """A tqdm bar on stderr for one pass (shown only when the pass takes over a second), or a no-op."""
    from tqdm import tqdm

    return tqdm(total=total, desc=desc, unit="seq", file=sys.stderr, leave=False, delay=1.0,
                mininterval=1.0, disable=not verbose)


# --------------------------------------------------------------------------- the solver


def dcd_svm(codes, y, *, degree, C=1.0, class_weight=None, tol=1e-4, max_iter=1000, random_state=None,
            alphabet="dna", shrinking=True, n_jobs=None, deterministic=False, verbose=False,
            on_pass=None, alpha_init=None) -> SVMSolution:
    """Hinge-loss linear SVM on WD features by dual coordinate descent, without a feature matrix.

    Solves liblinear's L1-loss SVM dual with the bias as a constant feature (the problem of
    ``LinearSVC(loss="hinge", dual=True, intercept_scaling=1)`` on
    ``wd_features(codes, degree=degree)``), with liblinear's shrinking and stopping rule.

    Parameters
    ----------
    codes : ndarray of shape (n, L), uint8 (or a read-only memory map), or sequences
        The training sequences; a memory map is read row by row and never copied.
    y : array-like of shape (n,)
        Labels 0/1 (1: positive class, ``decision > 0``).
    degree : int
    C : float, default=1.0
    class_weight : dict {0: w0, 1: w1}, "balanced" or None
        As in LinearSVC on labels 0/1: C_i = C * class_weight[y_i].
    tol : float, default=1e-4
        Stop when max - min of the projected gradient over a pass is <= tol (liblinear's eps).
    max_iter : int, default=1000
        Largest number of passes; a ConvergenceWarning is raised when it is reached.
    random_state : None, int or numpy Generator
        Seeds the coordinate order (a permutation of the active set per pass); None is seed 0.
    alphabet : str or Alphabet, default="dna"
    shrinking : bool, default=True
        liblinear's shrinking of the active set.
    n_jobs : int or None, default=None
        Threads; None is 1, -1 every core the process may use (:func:`seqimp._utils.cores.available_cores`). One thread
        steps one row at a time. More run each pass on that many threads sharing the weights
        (:class:`~seqimp.kernels._async_dcd.AsyncPasses`); once liblinear's rule holds there,
        the weights are recomputed from the dual variables and one-thread passes go on until
        it holds again, so the solution meets the same rule on exact weights. Its last digits
        depend on the threads' scheduling.
    deterministic : bool, default=False
        True: one thread steps every row whatever ``n_jobs`` (the solution bit for bit the same
        on every machine and thread count).
    verbose : bool, default=False
        Per pass on stderr: active set, projected-gradient range, dual objective, time;
        progress with ETA inside a pass when it takes more than a second.
    on_pass : callable or None, default=None
        Called after every pass as ``on_pass(passes, w, alpha, layout)`` with the solver's
        weights (its layout, bias last; read only) and dual variables: a window on the path
        to the optimum (``scripts/bench_training_path.py``).
    alpha_init : ndarray of shape (n,) or None, default=None
        Dual variables to start from (clipped to ``[0, C_i]``; the weights are computed from
        them), e.g. an earlier fit's on nearly the same sequences; None: all zero. Only the
        start: the problem and its optimum are the same, fewer passes reach it.

    Returns
    -------
    SVMSolution
    """
    X, yb, degree, C, tol, max_iter, alpha_ = check_svm_problem(codes, y, degree, C, tol, max_iter, alphabet)
    n, length = X.shape
    rng = check_random_state(random_state)
    nthreads = check_threads(n_jobs)  # checked whether or not deterministic
    if deterministic:
        nthreads = 1
    sqb, base, sign, upper, qd, layout, w, alpha = svm_start(yb, C, class_weight, length, degree, alpha_)
    cumbeta = cumulative_beta(degree)
    if alpha_init is not None:
        alpha_init = np.asarray(alpha_init, dtype=np.float64)
        if alpha_init.shape != alpha.shape or not np.isfinite(alpha_init).all():
            raise SeqimpError(f"alpha_init must hold {n} finite values, got shape {alpha_init.shape}")
        alpha[:] = np.clip(alpha_init, 0.0, upper)
        rebuild_weights(X, sign, alpha, w, layout, sqb, degree, base, nthreads)
    shared = None
    if nthreads > 1:
        shared = AsyncPasses(X, sign, alpha, upper, layout, sqb, degree, base, qd, nthreads)
    order = np.arange(n, dtype=np.int64)
    pg = np.empty(2)
    active = n
    pg_max_old, pg_min_old = np.inf, -np.inf
    chunk = max(4096, n // 50)
    converged = False
    it = 0
    while it < max_iter:
        start = time.perf_counter()
        rng.shuffle(order[:active])
        pg[0], pg[1] = -np.inf, np.inf
        s = 0
        with _pass_bar(verbose, active, f"DCD pass {it + 1}") as bar:
            if shared is not None:
                active, pg[0], pg[1] = shared.run(w, order, active, pg_max_old, pg_min_old, bar)
            while shared is None and s < active:
                s_new, active = _steps(X, sign, alpha, upper, w, layout.table, sqb, degree, base, qd, order, s,
                                       s + chunk, active, pg_max_old, pg_min_old, pg, cumbeta)
                bar.update(s_new - s)
                s = s_new
        it += 1
        gap = pg[0] - pg[1]
        if on_pass is not None:
            on_pass(it, w, alpha, layout)
        if lines_shown(verbose):
            solver_line(verbose, f"DCD pass {it}: active {active:,}/{n:,}, projected-gradient range {gap:.3g} "
                       f"(tol {tol:g}), dual objective {svm_dual_objective(w, alpha):.8g}, "
                       f"{time.perf_counter() - start:.2f} s")
        if gap <= tol and shared is not None:
            rebuild_weights(X, sign, alpha, w, layout, sqb, degree, base, nthreads)
            shared = None
            active = n
            pg_max_old, pg_min_old = np.inf, -np.inf
            solver_line(verbose, f"DCD: converged on {nthreads} threads; the weights recomputed from the dual "
                                 "variables, one-thread passes until the rule holds on them")
            continue
        if gap <= tol:
            if active == n or not shrinking:
                converged = True
                break
            active = n
            pg_max_old, pg_min_old = np.inf, -np.inf
            solver_line(verbose, "DCD: converged on the active set; one more pass over all sequences")
            continue
        if shrinking:
            pg_max_old = pg[0] if pg[0] > 0 else np.inf
            pg_min_old = pg[1] if pg[1] < 0 else -np.inf
    if not converged:
        warnings.warn(f"dual coordinate descent did not reach tol={tol:g} in max_iter={max_iter} passes; "
                      "increase max_iter", ConvergenceWarning, stacklevel=2)
    return svm_solution(w, layout, alpha, it, converged)
