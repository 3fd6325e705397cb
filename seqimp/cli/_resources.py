"""The command line under a memory limit (``ulimit -v``, a batch system's address-space cap).

Imported by :mod:`seqimp.cli` before NumPy: under a limit, :func:`prepare` gives OpenBLAS (and
the other thread pools) one thread unless the user chose, because each BLAS thread reserves its
own buffers at import -- under a few hundred MB that import hangs or aborts. :func:`limit_error`
is the one line a command gives instead of starting when the limit is below what seqimp's
libraries map to run at all (:data:`FLOOR`), so nothing is half-done and no lock or staging
folder is left behind. Uses only the standard library.
"""

from __future__ import annotations

import os

__all__ = ["address_space_limit", "prepare", "limit_error", "FLOOR"]

#: Address space a small run needs (NumPy, SciPy, numba's compiler, matplotlib mapped; the
#: peak of ``seqimp poim`` on the test data is about 0.8 GiB with one BLAS thread).
FLOOR = 1 << 30

_THREAD_VARIABLES = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")


def address_space_limit() -> int | None:
    """The soft ``RLIMIT_AS`` in bytes, or None when there is none (or no ``resource`` module)."""
    try:
        import resource
    except ImportError:  # pragma: no cover - not POSIX
        return None
    soft, _hard = resource.getrlimit(resource.RLIMIT_AS)
    return None if soft == resource.RLIM_INFINITY else int(soft)


def prepare() -> None:
    """Under an address-space limit, one BLAS/OpenMP thread unless the user set the variables.
    Must run before NumPy is imported to take effect; harmless after."""
    if address_space_limit() is None:
        return
    for name in _THREAD_VARIABLES:
        os.environ.setdefault(name, "1")


def limit_error() -> str | None:
    """The message for a limit below :data:`FLOOR`, else None."""
    limit = address_space_limit()
    if limit is None or limit >= FLOOR:
        return None
    return (f"the memory limit (ulimit -v) is {limit / 2**20:.0f} MiB; seqimp needs at least "
            f"{FLOOR / 2**30:.0f} GiB of address space to load its numerical libraries; raise the limit "
            "(ulimit -v) and run again; nothing was written")


prepare()  # on import, which seqimp.cli does before NumPy
