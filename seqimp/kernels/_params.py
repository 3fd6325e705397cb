"""The WD kernel's parameters: degree and shift weights, the feature layout, and the
degree/shift check. Shared by the kernel (:mod:`._wd`) and its unfolding (:mod:`._unfold`),
which otherwise do not import each other.
"""

from __future__ import annotations

import numpy as np

from ..errors import SeqimpError, check_int

__all__ = ["wd_beta", "shift_weights", "feature_offsets", "check_degree_shifts"]


def wd_beta(degree: int) -> np.ndarray:
    """Degree weights beta_k = 2(K-k+1)/(K(K+1)), k = 1..K; shape (K,)."""
    k = np.arange(1, degree + 1, dtype=np.float64)
    return 2.0 * (degree - k + 1) / (degree * (degree + 1))


def shift_weights(shifts: int) -> np.ndarray:
    """Shift weights delta_s = 1/(2(s+1)) for s = 0..S, shape (S+1,); entry 0 is unused (1.0)."""
    d = 1.0 / (2.0 * (np.arange(shifts + 1, dtype=np.float64) + 1.0))
    d[0] = 1.0
    return d


def feature_offsets(length: int, degree: int, base: int = 4) -> np.ndarray:
    """Start of the block of each order k in the flat (k, position, k-mer) layout.

    Column ``offsets[k-1] + i * base**k + y`` holds k-mer index ``y`` at 0-based
    position ``i``; ``offsets[degree]`` is the total number of columns.

    Returns
    -------
    offsets : ndarray of shape (degree + 1,), int64
    """
    sizes = [(length - k + 1) * base ** k for k in range(1, degree + 1)]
    return np.concatenate([[0], np.cumsum(sizes, dtype=np.int64)]).astype(np.int64)


def check_degree_shifts(degree, shifts, length, *, what="sequences") -> tuple[int, int]:
    """``(degree, shifts)`` as ints valid for sequences of length ``length``, or a SeqimpError."""
    degree = check_int(degree, "degree")
    shifts = check_int(shifts, "shifts", minimum=0)
    if degree > length:
        raise SeqimpError(f"degree {degree} exceeds the length {length} of the {what}")
    if shifts >= length:
        raise SeqimpError(f"shifts must be < the length {length} of the {what}, got {shifts}")
    return degree, shifts
