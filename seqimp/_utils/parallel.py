"""Independent batches run in order, or spread over threads, joblib workers (processes) or Dask.

The importance loops (sampled POIM/FIRM, ISM, permutation importance) hand their batches to
:func:`run_batches`. With ``n_jobs=None`` an active joblib configuration decides
(``joblib.parallel_config(n_jobs=...)``, or a Dask backend -- ``with
joblib.parallel_config(backend="dask"):`` with a ``distributed.Client`` open -- which spreads
the batches over the cluster); where none is active, the caller's ``threads`` do (sampled POIM
and ISM: every available core, :func:`seqimp.importance._scorers.batch_threads`; permutation
importance: one, a plain loop). Results come back in batch order whatever the number of
workers, so a caller that merges them in that order gets the numbers of the sequential loop;
the progress bar advances as each batch comes back.

Batches on threads of this process (those ``threads``, or joblib's threading backend) run
numba's parallel kernels and the BLAS libraries on one thread each inside them (numba's count is
per thread; BLAS through threadpoolctl), so that the threads do not oversubscribe the cores;
with numba's ``workqueue`` threading layer, which two threads must not enter at once, the
batches run one at a time instead.
"""

from __future__ import annotations

import contextlib
import re

from ..errors import SeqimpError

__all__ = ["check_n_jobs", "run_batches", "check_sendable", "on_client", "threads_allowed"]


def check_n_jobs(n_jobs) -> int:
    """The number of parallel jobs ``n_jobs`` means here (None: the active joblib configuration, else 1)."""
    from joblib import effective_n_jobs

    if n_jobs is not None and (isinstance(n_jobs, bool) or not isinstance(n_jobs, int) or n_jobs == 0):
        raise SeqimpError(f"n_jobs must be None or a non-zero integer (-1: all cores), got {n_jobs!r}")
    return int(effective_n_jobs(n_jobs))


def _unconfigured() -> bool:
    """Whether no joblib configuration asks for a number of jobs or for a backend of its own (Dask):
    joblib's default backend, no ``n_jobs`` set by ``parallel_config`` / ``parallel_backend``."""
    from joblib.parallel import LokyBackend, ThreadingBackend, get_active_backend

    backend, configured = get_active_backend()
    return configured is None and isinstance(backend, (LokyBackend, ThreadingBackend))


def _uses_threads() -> bool:
    """Whether joblib's active backend runs batches in threads of this process (nothing is pickled)."""
    from joblib.parallel import get_active_backend

    return bool(getattr(get_active_backend()[0], "uses_threads", False))


def check_sendable(obj, name) -> int:
    """The pickled size of ``obj`` in bytes, or one SeqimpError line when it cannot be pickled for workers."""
    try:  # what loky and dask pickle with (plain pickle where cloudpickle is absent)
        import cloudpickle as pickler
    except ImportError:
        try:
            from joblib.externals import cloudpickle as pickler
        except ImportError:
            import pickle as pickler
    try:
        return len(pickler.dumps(obj))
    except Exception as exc:  # noqa: BLE001 - any pickling failure is the same problem for the user
        text = re.sub(r"\s+", " ", str(exc)).strip()
        raise SeqimpError(
            f"{name} ({type(obj).__name__}) cannot be sent to parallel workers ({type(exc).__name__}: {text}); "
            "use n_jobs=1, joblib's threading backend, or a picklable scorer (a module-level function, a fitted "
            "model's decision_function, seqimp.scorers.ModelScorer)") from None


class _Shared:
    """An argument every batch uses (the scorer, the data), as it travels to worker processes.

    Its ``__sizeof__`` is its pickled size: joblib's Dask backend scatters an argument larger
    than 1 kB to the cluster once per call and hands the workers a reference, instead of
    sending it with every batch.
    """

    def __init__(self, obj, nbytes):
        self.obj, self.nbytes = obj, int(nbytes)

    def __sizeof__(self) -> int:
        return self.nbytes


def _call(fn, names, args, *shared):
    """Run one batch on a worker: ``fn(*args, **dict(zip(names, shared)))``, the shared arguments unwrapped.

    The shared arguments come last and one by one: joblib's Dask backend scatters only
    top-level arguments (ones it can hold a weak reference to: not tuples or dicts).
    """
    return fn(*args, **{name: value.obj for name, value in zip(names, shared)})


def _one_core(fn, *args, **kwargs):
    """``fn(*args, **kwargs)`` with numba's parallel kernels on one thread (numba's count is per
    thread: the caller's is restored after)."""
    import numba

    before = numba.get_num_threads()
    numba.set_num_threads(1)
    try:
        return fn(*args, **kwargs)
    finally:
        numba.set_num_threads(before)


def threads_allowed() -> bool:
    """Whether numba's threading layer lets several threads of this process run its parallel kernels at
    once (``omp``, ``tbb``: yes; ``workqueue``: no, the process would stop)."""
    import numba

    numba.get_num_threads()                  # starts numba's threading layer, so that it can be named
    try:
        return numba.threading_layer() != "workqueue"
    except ValueError:  # pragma: no cover - no layer could be started
        return False


@contextlib.contextmanager
def on_client(client):
    """Inside: :func:`run_batches` with ``n_jobs=None`` spreads its batches over ``client``'s Dask cluster
    (joblib's Dask backend with this client, every worker thread); ``client=None`` changes nothing.

    Raises one SeqimpError line when ``client`` is not a :class:`distributed.Client`.
    """
    if client is None:
        yield
        return
    if not (hasattr(client, "submit") and hasattr(client, "scheduler_info")):
        raise SeqimpError(f"client must be a dask.distributed.Client, got {type(client).__name__}")
    from joblib import parallel_config

    with parallel_config(backend="dask", client=client):
        yield


def run_batches(fn, batches, *, shared=None, n_jobs=None, bar=None, labels=None, threads=1):
    """Yield ``fn(*args, **shared)`` for each ``(args, size)`` in ``batches``, in order.

    Parameters
    ----------
    fn : callable
        A module-level function (sent to the workers by reference).
    batches : iterable of (tuple, int)
        The arguments of each call and the number of steps it adds to ``bar``; consumed
        lazily (joblib dispatches a few batches ahead of the results).
    shared : dict of name -> object, optional
        Keyword arguments of every call (the scorer, the data). For worker processes each is
        checked once to pickle (an unpicklable one fails in one line naming it, not in a
        worker) and is sent as one object per call of this function, which joblib's Dask
        backend scatters to the cluster once rather than with every batch.
    n_jobs : int or None, default=None
        Passed to :class:`joblib.Parallel`; None uses the active joblib configuration, and
        ``threads`` where there is none. One job runs a plain loop.
    bar : tqdm, optional
        Advanced by each batch's size as its result arrives.
    labels : dict of name -> str, optional
        What to call a shared argument in the error line (default: its name).
    threads : int, default=1
        Where ``n_jobs`` is None and no joblib configuration is active (:func:`_unconfigured`):
        run the batches on this many threads of this process (1: a plain loop). Batches that
        run on threads -- these, or joblib's threading backend -- have numba and BLAS on one
        thread inside each (see the module docstring); each batch is the same call as in the
        plain loop, and the results come in the same order.
    """
    shared = dict(shared or {})
    labels = dict(labels or {})
    jobs = check_n_jobs(n_jobs)
    if n_jobs is None and jobs == 1 and _unconfigured():
        jobs = max(1, int(threads))
        in_threads = jobs > 1
    else:
        in_threads = jobs > 1 and _uses_threads()
    if in_threads and threads_allowed():
        yield from _in_threads(fn, batches, shared, jobs, bar)
        return
    if jobs == 1 or in_threads:
        for args, size in batches:
            out = fn(*args, **shared)
            if bar is not None:
                bar.update(size)
            yield out
        return
    from joblib import Parallel, delayed

    threads = _uses_threads()
    names = tuple(shared)
    sent = [_Shared(obj, 0 if threads else check_sendable(obj, labels.get(name, name))) for name, obj in shared.items()]
    sizes = []

    def calls():
        for args, size in batches:
            sizes.append(size)
            yield delayed(_call)(fn, names, args, *sent)

    for i, out in enumerate(Parallel(n_jobs=n_jobs, return_as="generator")(calls())):
        if bar is not None:
            bar.update(sizes[i])
        yield out


def _in_threads(fn, batches, shared, threads, bar):
    """:func:`run_batches` on ``threads`` threads of this process, results in batch order."""
    from joblib import Parallel, delayed
    from threadpoolctl import threadpool_limits

    sizes = []

    def calls():
        for args, size in batches:
            sizes.append(size)
            yield delayed(_one_core)(fn, *args, **shared)

    with threadpool_limits(limits=1, user_api="blas"):
        for i, out in enumerate(Parallel(n_jobs=threads, backend="threading", return_as="generator")(calls())):
            if bar is not None:
                bar.update(sizes[i])
            yield out
