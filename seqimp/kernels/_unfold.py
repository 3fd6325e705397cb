"""Exact unfolding of WD / WDS kernel expansions into positional k-mer weights.

A kernel machine scores s(x) = b + sum_j a_j k(x_j, x). Every term of the WD and
WDS kernels is an indicator that a k-mer of x at one position equals a fixed
k-mer of the support sequence x_j:

* shift 0:   I(x[i:i+k] == x_j[i:i+k])            -> weight a_j beta_k on (k, i, x_j[i:i+k])
* shift s:   I(x[i:i+k] == x_j[i+s:i+s+k])          -> a_j beta_k delta_s on (k, i, x_j[i+s:i+s+k])
             I(x[i+s:i+s+k] == x_j[i:i+k])          -> a_j beta_k delta_s on (k, i+s, x_j[i:i+k])

for 0 <= i <= L-k-s. A k-mer of x_j that covers an unknown symbol (N) matches nothing and
gives no weight. The score is therefore linear in the positional k-mers of x,
and scattering these weights into tables gives a :class:`PositionalWeights` whose
score equals the kernel machine's decision function exactly.
"""

from __future__ import annotations

import numba
import numpy as np

from ..errors import SeqimpError
from ..io import get_alphabet
from ..io._check import check_sequences
from ._params import check_degree_shifts, feature_offsets, shift_weights, wd_beta
from ._unknown import known_symbol

__all__ = ["unfold_kernel_expansion", "unfold_wd_coef", "split_tables", "check_table_size",
           "MAX_TABLE_ENTRIES"]

#: Largest number of table entries (all orders together) we agree to allocate (16 GiB).
MAX_TABLE_ENTRIES = 2 ** 31


@numba.njit(cache=True, parallel=True)
def _unfold(S, coef, degree, shifts, base, offsets, beta, delta, out):
    n, length = S.shape
    for kk in numba.prange(degree):
        k = kk + 1
        width = base ** k
        off = offsets[kk]
        nwin = length - k + 1
        win = np.empty(nwin, dtype=np.int64)
        for j in range(n):
            x = S[j]
            v = 0
            last = -1                      # the last unknown symbol read: its windows are no features (-1)
            for t in range(k - 1):
                if x[t] >= base:
                    last = t
                v = v * base + known_symbol(x[t], base)
            for i in range(nwin):
                if x[i + k - 1] >= base:
                    last = i + k - 1
                v = (v * base + known_symbol(x[i + k - 1], base)) % width
                win[i] = v if last < i else -1
            w = coef[j] * beta[kk]
            for i in range(nwin):
                if win[i] >= 0:
                    out[off + i * width + win[i]] += w
            for s in range(1, shifts + 1):
                ws = w * delta[s]
                for i in range(nwin - s):
                    if win[i + s] >= 0:
                        out[off + i * width + win[i + s]] += ws
                    if win[i] >= 0:
                        out[off + (i + s) * width + win[i]] += ws


def check_table_size(length, degree, base):
    """Raise when the positional tables would exceed :data:`MAX_TABLE_ENTRIES`; return the offsets."""
    offsets = feature_offsets(length, degree, base)
    if offsets[-1] > MAX_TABLE_ENTRIES:
        raise SeqimpError(
            f"degree {degree} with {base} symbols and length {length} needs {int(offsets[-1]):,} "
            f"positional weights (more than {MAX_TABLE_ENTRIES:,}); use a smaller degree"
        )
    return offsets


def split_tables(flat, length, degree, base=4):
    """Views of a flat (k, position, k-mer) vector as tables of shape (L-k+1, base**k)."""
    offsets = feature_offsets(length, degree, base)
    return [flat[offsets[k - 1]:offsets[k]].reshape(length - k + 1, base ** k)
            for k in range(1, degree + 1)]


def unfold_kernel_expansion(X_support, dual_coef, *, degree, shifts=0, alphabet="dna"):
    """Positional weight tables of w = sum_j dual_coef[j] phi(X_support[j]).

    Returns
    -------
    tables : list of ndarray, ``tables[k-1]`` of shape (L-k+1, A**k), float64
    """
    alpha = get_alphabet(alphabet)
    S = check_sequences(X_support, "X_support", alpha, unknown=True)
    n, length = S.shape
    degree, shifts = check_degree_shifts(degree, shifts, length, what="support sequences")
    coef = np.asarray(dual_coef, dtype=np.float64)
    if coef.ndim == 2 and 1 in coef.shape:
        coef = coef.ravel()
    if coef.ndim != 1 or coef.shape[0] != n:
        raise SeqimpError(f"dual_coef must have one value per support sequence ({n}), "
                          f"got shape {np.shape(dual_coef)}")
    if not np.all(np.isfinite(coef)):
        raise SeqimpError("dual_coef contains NaN or infinite values")
    offsets = check_table_size(length, degree, alpha.size)
    flat = np.zeros(int(offsets[-1]))
    _unfold(S, np.ascontiguousarray(coef), degree, shifts, alpha.size, offsets,
            wd_beta(degree), shift_weights(shifts), flat)
    return split_tables(flat, length, degree, alpha.size)


def unfold_wd_coef(coef, *, length, degree, alphabet="dna"):
    """Positional weight tables of a linear model on :func:`~seqimp.wd_features`.

    ``coef`` has one entry per feature column; the weight of (k, i, y) is
    ``sqrt(beta_k) * coef[column]`` because the feature value is sqrt(beta_k).
    """
    alpha = get_alphabet(alphabet)
    offsets = check_table_size(length, degree, alpha.size)
    coef = np.asarray(coef, dtype=np.float64).ravel()
    if coef.shape[0] != offsets[-1]:
        raise SeqimpError(f"coef has {coef.shape[0]} entries, the WD features of degree {degree} "
                          f"and length {length} have {int(offsets[-1])}")
    scale = np.sqrt(wd_beta(degree))
    return [t * scale[k - 1] for k, t in enumerate(split_tables(coef, length, degree, alpha.size), 1)]
