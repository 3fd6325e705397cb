"""Independent batches run in order, or spread over joblib workers (processes, threads, Dask).

The importance loops (sampled POIM/FIRM, ISM, permutation importance) hand their batches to
:func:`run_batches`. With ``n_jobs=None`` the active joblib configuration decides: one job
(a plain loop) unless the call runs inside ``joblib.parallel_config(n_jobs=...)`` or a Dask
backend (``with joblib.parallel_config(backend="dask"):`` with a ``distributed.Client``
open), which spreads the batches over the cluster. Results come back in batch order
whatever the number of workers, so a caller that merges them in that order gets the numbers
of the sequential loop; the progress bar advances as each batch comes back.
"""

from __future__ import annotations

import re

from .errors import SeqimpError

__all__ = ["check_n_jobs", "run_batches", "check_sendable"]


def check_n_jobs(n_jobs) -> int:
    """The number of parallel jobs ``n_jobs`` means here (None: the active joblib configuration, else 1)."""
    from joblib import effective_n_jobs

    if n_jobs is not None and (isinstance(n_jobs, bool) or not isinstance(n_jobs, int) or n_jobs == 0):
        raise SeqimpError(f"n_jobs must be None or a non-zero integer (-1: all cores), got {n_jobs!r}")
    return int(effective_n_jobs(n_jobs))


def _uses_threads() -> bool:
    """Whether joblib's active backend runs batches in threads of this process (nothing is pickled)."""
    from joblib.parallel import get_active_backend

    return bool(getattr(get_active_backend()[0], "uses_threads", False))


def check_sendable(obj, name):
    """Raise one SeqimpError line when ``obj`` cannot be pickled for worker processes."""
    try:  # what loky and dask pickle with (plain pickle where cloudpickle is absent)
        import cloudpickle as pickler
    except ImportError:
        try:
            from joblib.externals import cloudpickle as pickler
        except ImportError:
            import pickle as pickler
    try:
        pickler.dumps(obj)
    except Exception as exc:  # noqa: BLE001 - any pickling failure is the same problem for the user
        text = re.sub(r"\s+", " ", str(exc)).strip()
        raise SeqimpError(
            f"{name} ({type(obj).__name__}) cannot be sent to parallel workers ({type(exc).__name__}: {text}); "
            "use n_jobs=1, joblib's threading backend, or a picklable scorer (a module-level function, a fitted "
            "model's decision_function, seqimp.scorers.ModelScorer)") from None


def run_batches(fn, batches, *, n_jobs=None, bar=None, send=None):
    """Yield ``fn(*args)`` for each ``(args, size)`` in ``batches``, in order.

    Parameters
    ----------
    fn : callable
        A module-level function (sent to the workers by reference).
    batches : iterable of (tuple, int)
        The arguments of each call and the number of steps it adds to ``bar``; consumed
        lazily (joblib dispatches a few batches ahead of the results).
    n_jobs : int or None, default=None
        Passed to :class:`joblib.Parallel`; None uses the active joblib configuration
        (1 outside ``parallel_config``/``parallel_backend``). One job runs a plain loop.
    bar : tqdm, optional
        Advanced by each batch's size as its result arrives.
    send : dict of name -> object, optional
        Objects every batch carries (the scorer): checked once to pickle when the batches
        go to worker processes, so an unpicklable one fails in one line, not in a worker.
    """
    jobs = check_n_jobs(n_jobs)
    if jobs == 1:
        for args, size in batches:
            out = fn(*args)
            if bar is not None:
                bar.update(size)
            yield out
        return
    from joblib import Parallel, delayed

    if not _uses_threads():
        for name, obj in (send or {}).items():
            check_sendable(obj, name)
    sizes = []

    def calls():
        for args, size in batches:
            sizes.append(size)
            yield delayed(fn)(*args)

    for i, out in enumerate(Parallel(n_jobs=n_jobs, return_as="generator")(calls())):
        if bar is not None:
            bar.update(sizes[i])
        yield out
