"""The command line under a memory limit (``ulimit -v``, a batch system's address-space cap).

Imported by :mod:`seqimp.cli` before NumPy: under a limit, :func:`prepare` gives OpenBLAS (and
the other thread pools) one thread unless the user chose, because each BLAS thread reserves its
own buffers at import -- under a few hundred MB that import hangs or aborts. :func:`limit_error`
is the one line a command gives instead of starting when the limit is below what seqimp's
libraries map to run at all (:data:`FLOOR`), so nothing is half-done and no lock or staging
folder is left behind. Uses only the standard library.

:func:`keep_freed_memory` (also on import; :mod:`seqimp._utils.heap`, where the positional motif
rounds' moments that hand memory back are too): with glibc, freed blocks up to
:data:`MMAP_THRESHOLD` stay in the process's heap for the next allocation instead of going back
to the system and being faulted in again. Where the user set ``MALLOC_MMAP_THRESHOLD_`` or
``MALLOC_TRIM_THRESHOLD_`` their choice stands.

:func:`sleeping_openmp_threads` (called by ``seqimp motifs`` before its first parallel kernel):
numba's parallel kernels run on OpenMP threads (its ``omp`` threading layer, GNU libgomp), which
by default spin for a while after every parallel region, waiting for the next. A motif run
calls thousands of short regions (the gkm route's PWM tuning alone a few hundred per motif and
fit), so the waiting thread keeps a core busy that the main thread -- or, on a shared machine,
another process -- needs. With ``OMP_WAIT_POLICY=PASSIVE`` it waits asleep; the numbers are the
same (the threads' work is not changed). ``motif_benchmark_2/few`` on the shared 2-core machine
(load 3.6-4.0), three runs each, alternating: 8.7 -> 6.4 CPU s, wall 20.9 -> 12.9 s; ``composite``
15.2 -> 7.4 CPU s, 38 -> 18 s; motif files byte for byte the same. Asleep at once, though, a
thread is woken for every region, and the gkm model's coordinate descent runs one short region per
sequence and pass (tens of thousands in a fit): GNU OpenMP (libgomp, which reads ``GOMP_SPINCOUNT``
before the wait policy) first spins :data:`SPIN_COUNT` times, a few microseconds, which catches
the next region of the same loop without keeping a core busy between kernels (other runtimes
take the passive policy). The gkm fit of ``gen repeats`` seed 2 (2,000 sequences, 21 passes),
six rounds alternating in fresh processes on the idle 2-core machine: median 1.02 s against 1.27 s
asleep at once; whole ``seqimp motifs`` runs beside a CPU-bound process on the other core (three
each, alternating): ``gen repeats`` 9.5-11.0 s against 8.9-11.9 s, ``composite`` 6.5-8.1 against
6.7-8.8, ``few`` 4.2-6.4 against 3.9-5.3; beside two: ``gen repeats`` 12.7 and 15.4 against 13.7
and 16.1, ``few`` 5.9 and 6.8 against 7.9 and 7.0 (docs/benchmarks/motifs.md, "Process settings").
Where the user set ``OMP_WAIT_POLICY`` or ``GOMP_SPINCOUNT`` their choice stands.
"""

from __future__ import annotations

import os
import sys

from .._utils.heap import MMAP_THRESHOLD, TRIM_THRESHOLD, keep_freed_memory

__all__ = ["address_space_limit", "prepare", "limit_error", "keep_freed_memory", "sleeping_openmp_threads", "FLOOR",
           "MMAP_THRESHOLD", "TRIM_THRESHOLD", "SPIN_COUNT", "agg_backend"]

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


#: Spins of a GNU OpenMP thread before it sleeps (``GOMP_SPINCOUNT``; libgomp counts about 100,000
#: per millisecond): a few microseconds (module docstring).
SPIN_COUNT = 300


def sleeping_openmp_threads() -> bool:
    """``OMP_WAIT_POLICY=PASSIVE`` and ``GOMP_SPINCOUNT`` = :data:`SPIN_COUNT` (module docstring)
    for the OpenMP runtime loaded after this call (numba loads it at its first parallel kernel);
    True when set, False where the user set ``OMP_WAIT_POLICY`` or ``GOMP_SPINCOUNT``."""
    if "OMP_WAIT_POLICY" in os.environ or "GOMP_SPINCOUNT" in os.environ:
        return False
    os.environ["OMP_WAIT_POLICY"] = "PASSIVE"
    os.environ["GOMP_SPINCOUNT"] = str(SPIN_COUNT)
    return True


def agg_backend() -> None:
    """Figures of a command line run without a display: matplotlib's Agg backend, set through
    ``MPLBACKEND`` while matplotlib is not imported (a run whose figures a figure process draws,
    :func:`seqimp.plot._figure_process.figure_process`, never imports it), else by ``matplotlib.use``."""
    if "matplotlib" in sys.modules:
        import matplotlib

        matplotlib.use("Agg")
    else:
        os.environ["MPLBACKEND"] = "Agg"


prepare()  # on import, which seqimp.cli does before NumPy
keep_freed_memory()
