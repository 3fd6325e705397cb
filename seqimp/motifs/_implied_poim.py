"""The POIM implied by motifs (the motifPOIM idea of Vidovic et al., in an exact form).

A motif (PWM ``r`` of length m) placed at 0-based start t with probability ``v(t)`` defines
the likelihood-ratio scorer

    s(x) = sum_t v(t) * prod_{l=0}^{m-1} r_l(x[t+l]) / b(x[t+l])

with b the uniform background (b = 1/4). Under that background every window's
likelihood ratio has expectation 1, and conditioning on the k-mer z at j only changes the
factors of the columns that z overlaps, so the POIM of s is, exactly,

    R_k(z, j) = sum_t v(t) * (prod_{l in overlap(t, j, k)} 4 r_l(z[t+l-j]) - 1).

Several motifs add (a POIM is linear in the score). ``R_k`` is multilinear in the PWM
columns: with all but one column fixed it is affine in that column, which is what makes each
block of :func:`seqimp.motifs.fit_motifs` a convex problem. The fit gives every order k its
own non-negative scale ``alpha_k``, so only the shape of the implied POIM within an order has
to match the observed one.
"""

from __future__ import annotations

import numpy as np

from ..errors import SeqimpError

__all__ = ["implied_poim", "placement_weights"]


def placement_weights(start0, spread, m, length):
    """Discretised normal placement distribution of a motif.

    Parameters
    ----------
    start0 : float
        Mean 0-based start position.
    spread : float
        Standard deviation (0 = a single start).
    m, length : int
        Motif and sequence length; starts run over 0..length-m.

    Returns
    -------
    starts : ndarray of shape (n,), int64
    weights : ndarray of shape (n,), float64, summing to 1
    """
    last = length - m
    if last < 0:
        raise SeqimpError(f"motif of length {m} is longer than the sequences (length {length})")
    if spread <= 0:
        t = int(min(max(round(start0), 0), last))
        return np.array([t], dtype=np.int64), np.ones(1)
    lo = int(max(np.floor(start0 - 4 * spread), 0))
    hi = int(min(np.ceil(start0 + 4 * spread), last))
    if hi < lo:
        lo = hi = int(min(max(round(start0), 0), last))
    starts = np.arange(lo, hi + 1, dtype=np.int64)
    w = np.exp(-0.5 * ((starts - start0) / spread) ** 2)
    if w.sum() <= 0:
        w = np.ones_like(w, dtype=np.float64)
    return starts, w / w.sum()


def _ratio(pwm):
    """``4 * pwm`` with a last row of ones (a letter outside the motif), contiguous: (m + 1, 4)."""
    return np.ascontiguousarray(np.vstack([4.0 * np.asarray(pwm, dtype=np.float64), np.ones((1, 4))]))


def _ints(a):
    return np.ascontiguousarray(a, dtype=np.int64)


def motif_contribution(pwm, starts, weights, alpha, orders, positions_by_order):
    """Flattened implied POIM of one motif over the fitted entries.

    ``alpha[i]`` scales order ``orders[i]``; ``positions_by_order[i]`` are the rows used.
    Returns one 1-D array: the blocks of all orders concatenated, each (n_j, 4**k) row-major.
    """
    from ._implied_kernels import contribution_kernel

    ratio, starts = _ratio(pwm), _ints(starts)
    weights = np.ascontiguousarray(weights, dtype=np.float64)
    parts = []
    for a, k, pos in zip(alpha, orders, positions_by_order):
        out = np.zeros((pos.size, 4 ** k))
        if a != 0 and pos.size:
            contribution_kernel(ratio, starts, weights, float(a), int(k), _ints(pos), out)
        parts.append(out.ravel())
    return np.concatenate(parts) if parts else np.zeros(0)


def per_start_contributions(pwm, starts, alpha, orders, positions_by_order):
    """Flattened implied POIM of one motif placed at each start alone (weight 1).

    Returns ndarray of shape (n_entries, len(starts)).
    """
    from ._implied_kernels import per_start_kernel

    ratio, starts = _ratio(pwm), _ints(starts)
    parts = []
    for a, k, pos in zip(alpha, orders, positions_by_order):
        out = np.zeros((pos.size, 4 ** k, starts.size))
        if pos.size:
            per_start_kernel(ratio, starts, float(a), int(k), _ints(pos), out)
        parts.append(out.reshape(-1, starts.size))
    return np.concatenate(parts, axis=0)


def column_design(pwm, col, starts, weights, alpha, orders, positions_by_order):
    """The implied POIM of one motif as an affine function of PWM column ``col``.

    Returns ``(base, G)``: the flattened implied POIM is ``base + G @ pwm[col]``;
    ``base`` of shape (n_entries,), ``G`` of shape (n_entries, 4).
    """
    from ._implied_kernels import column_kernel

    ratio, starts = _ratio(pwm), _ints(starts)
    weights = np.ascontiguousarray(weights, dtype=np.float64)
    bases, designs = [], []
    for a, k, pos in zip(alpha, orders, positions_by_order):
        base, G = np.zeros((pos.size, 4 ** k)), np.zeros((pos.size, 4 ** k, 4))
        if pos.size:
            column_kernel(ratio, int(col), starts, weights, float(a), int(k), _ints(pos), base, G)
        bases.append(base.ravel())
        designs.append(G.reshape(-1, 4))
    return np.concatenate(bases), np.concatenate(designs, axis=0)


def implied_poim(motifs, length, max_order, *, alpha=None):
    """Exact POIM of the likelihood-ratio scorer of one or several motifs.

    Parameters
    ----------
    motifs : Motif or sequence of Motif
        Each needs ``start`` (1-based mean start) and ``spread`` (standard deviation of the start,
        0 for a fixed start); placements are a discretised normal over valid starts.
    length : int
        Sequence length L.
    max_order : int
    alpha : array-like of shape (n_motifs, max_order), optional
        Scale of every motif's contribution at every order (default 1: the exact POIM of the
        scorer ``sum_i s_i``).

    Returns
    -------
    list of ndarray
        ``[k-1]`` of shape (L-k+1, 4**k): row = 0-based start j, column = k-mer index.
    """
    from ._motif import Motif

    if isinstance(motifs, Motif):
        motifs = [motifs]
    length, max_order = int(length), int(max_order)
    if not 1 <= max_order <= length:
        raise SeqimpError(f"max_order must lie in 1..{length}, got {max_order}")
    alpha = np.ones((len(motifs), max_order)) if alpha is None else np.asarray(alpha, dtype=np.float64)
    tables = [np.zeros((length - k + 1, 4 ** k)) for k in range(1, max_order + 1)]
    orders = list(range(1, max_order + 1))
    positions = [np.arange(length - k + 1) for k in orders]
    for i, m in enumerate(motifs):
        if m.start is None:
            raise SeqimpError(f"motif {m.name}: needs a start position to imply a POIM")
        if m.length > length:
            raise SeqimpError(f"motif {m.name} (length {m.length}) is longer than the sequences (length {length})")
        starts, w = placement_weights(m.start - 1, m.spread, m.length, length)
        flat = motif_contribution(m.pwm, starts, w, alpha[i], orders, positions)
        offset = 0
        for t in tables:
            t += flat[offset:offset + t.size].reshape(t.shape)
            offset += t.size
    return tables
