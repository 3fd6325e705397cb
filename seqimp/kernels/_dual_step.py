"""One coordinate of liblinear's L1-loss SVM dual, shared by the one-thread passes (:mod:`._dcd`),
the passes on threads (:mod:`._async_dcd`) and the gkm SVM's pass (:mod:`._gkm_dcd`): whether the
coordinate leaves the active set (shrinking), its projected gradient, and the pass's range of them."""

from __future__ import annotations

import numba

__all__ = ["projected_gradient", "widen"]


@numba.njit(cache=True, nogil=True, inline="always")
def projected_gradient(g, a, c, pg_max_old, pg_min_old):
    """``(shrink, proj)`` of a coordinate with gradient ``g`` and value ``a`` in ``[0, c]``: a
    coordinate at a bound whose gradient points out of the box by more than last pass's extreme
    projected gradient (``pg_max_old``, ``pg_min_old``) is shrunk; ``proj`` is the projected
    gradient (0 at a bound it points out of)."""
    proj = 0.0
    if a == 0.0:
        if g > pg_max_old:
            return True, proj
        if g < 0.0:
            proj = g
    elif a == c:
        if g < pg_min_old:
            return True, proj
        if g > 0.0:
            proj = g
    else:
        proj = g
    return False, proj


@numba.njit(cache=True, nogil=True, inline="always")
def widen(pg, proj):
    """``pg`` = (largest, smallest) projected gradient of a pass so far, widened by ``proj``."""
    if proj > pg[0]:
        pg[0] = proj
    if proj < pg[1]:
        pg[1] = proj
