"""The implicit WD SVM on a Dask cluster (CoCoA+), and connecting to one.

Needs the optional ``dask`` extra (``pip install "seqimp[dask]"``); dask is imported only here.

Algorithm (CoCoA+ with adding, Smith et al. 2018; Jaggi et al. 2014 for CoCoA): the rows
are split into K contiguous partitions, one per worker. Each round

1. the client sends the current weights ``w`` (with the bias) and each partition's dual
   variables ``a_[k]``;
2. worker k runs ``local_passes`` passes of dual coordinate descent over its rows on the
   local subproblem with sigma' = K: coordinate steps with curvature sigma' Q_ii on its
   local view ``u = w + sigma' A_[k] da_[k]``; it returns ``da_[k]`` and
   ``dw_k = A_[k] da_[k] = (u - w) / sigma'``;
3. the client adds all updates: ``a_[k] += da_[k]``, ``w += sum_k dw_k``.

With sigma' = K adding the updates is safe (the sum of the local subproblems bounds the
dual objective), so every round increases the dual objective and the iterates converge
to the same optimum as :func:`~seqimp.kernels._dcd.dcd_svm`, i.e. liblinear's. The
stopping rule is liblinear's, over all partitions: max - min projected gradient of a
round <= ``tol``, confirmed by a round over all rows. Shrinking as in liblinear, per
partition, with the previous round's thresholds over all partitions (the active sets
travel with the dual variables, so tasks stay stateless).

Faults: tasks are pure functions of (rows, a_[k], w, seed), so a round is retried after
a lost worker (``retries`` times, data re-sent) and gives bit-identical results; when
retries run out the fit fails with one line naming the round. A scheduler that cannot be
reached raises a SeqimpError after ``timeout`` seconds.

Rows reach the workers as follows: a memory-mapped ``.npy`` (a codes store) is opened
by each worker from its path (the path must be readable on the workers: one machine or a
shared file system); an in-memory array is scattered in K slices.
"""

from __future__ import annotations

import contextlib
import re
import time
from concurrent.futures import CancelledError

import numpy as np

from ..errors import SeqimpError, check_int, check_number, check_random_state
from ._dcd import (SVMSolution, _svm_steps, check_svm_problem, cumulative_beta, svm_dual_objective, svm_solution,
                   svm_start)
from ._implicit import lines_shown, solver_line
from ._layout import aligned_zeros
from ._sgd_rule import HeldOutStop, IterateAverage

__all__ = ["connect", "fit_distributed", "dcd_svm_distributed", "client_for"]


def _import_distributed():
    try:
        import distributed
    except ImportError:
        raise SeqimpError('training on a Dask cluster needs the dask extra: pip install "seqimp[dask]"') from None
    return distributed


def _one_line(exc) -> str:
    return re.sub(r"\s+", " ", f"{type(exc).__name__}: {exc}").strip()


def connect(scheduler=None, *, n_workers=None, threads_per_worker=1, processes=True, timeout=10.0):
    """A :class:`distributed.Client`: to a running scheduler, or to a new local cluster.

    Parameters
    ----------
    scheduler : str, optional
        Scheduler address (``"tcp://host:8786"``); what ``seqimp train --dask-scheduler`` passes.
    n_workers : int, optional
        Start a :class:`distributed.LocalCluster` with this many workers instead
        (``seqimp train --dask-workers N``). Exactly one of the two must be given.
    threads_per_worker : int, default=1
    processes : bool, default=True
        Local cluster workers as processes (True) or threads of this process.
    timeout : float, default=10
        Seconds to wait for the scheduler before giving up.

    Raises
    ------
    SeqimpError
        One line naming the address when the scheduler cannot be reached within ``timeout``.
    """
    distributed = _import_distributed()
    timeout = check_number(timeout, "timeout", low=0, low_open=True)
    if (scheduler is None) == (n_workers is None):
        raise SeqimpError("connect: give exactly one of scheduler (an address) and n_workers (a local cluster)")
    if scheduler is not None:
        if not isinstance(scheduler, str) or not scheduler.strip():
            raise SeqimpError(f"scheduler must be an address such as 'tcp://host:8786', got {scheduler!r}")
        try:
            return distributed.Client(scheduler, timeout=timeout)
        except (OSError, TimeoutError, ValueError) as exc:
            raise SeqimpError(f"dask scheduler {scheduler}: cannot connect within {timeout:g} s "
                              f"({_one_line(exc)})") from None
    n_workers = check_int(n_workers, "n_workers")
    threads_per_worker = check_int(threads_per_worker, "threads_per_worker")
    # the client owns this cluster: client.close() shuts the workers down too
    return distributed.Client(n_workers=n_workers, threads_per_worker=threads_per_worker, processes=bool(processes),
                              dashboard_address=None, timeout=timeout)


@contextlib.contextmanager
def client_for(client, timeout=10.0):
    """A Client as is, or a scheduler address connected (and closed afterwards) with :func:`connect`."""
    if isinstance(client, str):
        c = connect(client, timeout=timeout)
        try:
            yield c
        finally:
            c.close()
    else:
        if not hasattr(client, "submit") or not hasattr(client, "scatter"):
            raise SeqimpError(f"client must be a dask.distributed.Client or a scheduler address, "
                              f"got {type(client).__name__}")
        yield client


# --------------------------------------------------------------------------- worker side


def _rows(part):
    """The partition's rows: an array, or ("npy", path, offset, shape, start, stop) opened here."""
    if isinstance(part, tuple):
        _, path, offset, shape, start, stop = part
        mm = np.memmap(path, dtype=np.uint8, mode="r", offset=offset, shape=shape)
        return np.asarray(mm[start:stop])
    return part


def _local_round(part, sign, alpha, upper, w, degree, base, lay, sqb, qd, sigma, seed, passes, order, active,
                 pg_max_old, pg_min_old):
    """``passes`` passes of DCD on the CoCoA+ local subproblem over the active rows ``order[:active]``.

    Shrinking as in liblinear, with the thresholds of the previous round over all partitions.
    Returns (new a_[k], dw_k, pg max, pg min, order, active).
    """
    X = _rows(part)
    alpha = alpha.copy()
    order = order.copy()
    u = aligned_zeros(w.shape[0])   # w in the solver's layout (lay); a record per cache line again
    u[:] = w
    rng = np.random.default_rng(seed)
    pg = np.array([-np.inf, np.inf])
    for _ in range(passes):
        rng.shuffle(order[:active])
        _, active = _svm_steps(X, sign, alpha, upper, u, lay, sqb, degree, base, qd, sigma, order, 0, active,
                               active, pg_max_old, pg_min_old, pg, cumulative_beta(degree))
    u -= w
    u /= sigma
    return alpha, u, float(pg[0]), float(pg[1]), order, int(active)


# --------------------------------------------------------------------------- client side


def _workers(client):
    workers = worker_addresses(client)
    if not workers:
        raise SeqimpError("the Dask cluster has no workers")
    return workers


def worker_addresses(client) -> list:
    """The addresses of the cluster's workers, sorted, asked of the scheduler itself. Where
    ``scheduler_info`` takes ``n_workers`` (distributed 2025 and later) it returns the client's
    cached identity after fetching it, and the client's periodic update, which fetches the
    totals without the workers, can overwrite that cache between the fetch and the read: an
    empty list of workers on a loaded machine."""
    if _accepts_n_workers(client):
        info = client.sync(client.scheduler.identity, n_workers=-1)
    else:
        info = client.scheduler_info()
    return sorted(info["workers"])


def _accepts_n_workers(client):
    import inspect

    try:
        return "n_workers" in inspect.signature(client.scheduler_info).parameters
    except (TypeError, ValueError):
        return False


def _parts(client, X, bounds, workers):
    """What each task gets as its rows: a memmap descriptor, or a scattered slice."""
    if isinstance(X, np.memmap) and X.filename is not None and X.flags.c_contiguous:
        return [("npy", X.filename, X.offset, X.shape, a, b) for a, b in bounds]
    base = X.base if isinstance(X, np.ndarray) else None
    if isinstance(base, np.memmap) and base.filename is not None and X.flags.c_contiguous and base.shape == X.shape:
        return [("npy", base.filename, base.offset, base.shape, a, b) for a, b in bounds]
    return [client.scatter(np.ascontiguousarray(X[a:b]), workers=[workers[k % len(workers)]], hash=False)
            for k, (a, b) in enumerate(bounds)]


def _release(parts):
    """Release scattered rows (a no-op for memory-mapped partitions)."""
    for f in parts or ():
        if hasattr(f, "release"):
            f.release()


#: Test hook: called as ``_ROUND_HOOK(round, attempt, futures)`` once a round's tasks are
#: submitted, before waiting for them (e.g. to kill a worker at a known point of a fit).
_ROUND_HOOK = None


def dcd_svm_distributed(codes, y, *, client, degree, C=1.0, class_weight=None, tol=1e-4, max_iter=1000,
                        random_state=None, alphabet="dna", local_passes=1, n_partitions=None, retries=2,
                        round_timeout=None, shrinking=True, stopping=None, validation_fraction=0.02,
                        average=3.0, verbose=False) -> SVMSolution:
    """:func:`~seqimp.kernels._dcd.dcd_svm` on a Dask cluster (CoCoA+, see the module docstring).

    Parameters
    ----------
    codes, y, degree, C, class_weight, tol, alphabet
        As in :func:`~seqimp.kernels._dcd.dcd_svm` (y: labels 0/1).
    client : distributed.Client
    max_iter : int, default=1000
        Largest number of rounds.
    random_state : None, int or numpy Generator
        Seeds the per-round, per-partition coordinate orders; None is seed 0.
    local_passes : int, default=1
        Passes of local DCD per round.
    n_partitions : int, optional
        Number of partitions K (sigma' = K); default the number of workers.
    retries : int, default=2
        Retries of a round after a lost worker before failing.
    round_timeout : float, optional
        Seconds a round may take before it counts as failed (None: no limit).
    shrinking : bool, default=True
        liblinear's shrinking inside each partition, with thresholds from the previous round
        over all partitions; a final round over all rows confirms convergence.
    stopping : PlateauRule, optional
        The fast route on the cluster: hold out ``validation_fraction`` of the rows (at most
        20,000) and stop by this rule (:class:`~seqimp.kernels._sgd_rule.PlateauRule`, as
        ``solver="fast"`` on one machine), then rounds over all rows until the weight change
        is within ``stopping.weight_tol`` again; ``tol`` is then not used. None: liblinear's rule.
    validation_fraction : float, default=0.02
        With ``stopping``: the share of rows held out.
    average : float or None, default=3.0
        With ``stopping``: the model watched and returned is the polynomial-decay average of
        the round-end weights (:class:`~seqimp.kernels._sgd_rule.IterateAverage`), as on one
        machine; None: the last round's weights.
    verbose : bool, default=False
        One line per round on stderr: projected-gradient range, dual objective, time.
    """
    distributed = _import_distributed()
    X, yb, degree, C, tol, max_iter, alpha_ = check_svm_problem(codes, y, degree, C, tol, max_iter, alphabet)
    n, length = X.shape
    local_passes = check_int(local_passes, "local_passes")
    retries = check_int(retries, "retries", minimum=0)
    if round_timeout is not None:
        round_timeout = check_number(round_timeout, "round_timeout", low=0, low_open=True)
    rng = check_random_state(random_state)
    workers = _workers(client)
    K = len(workers) if n_partitions is None else check_int(n_partitions, "n_partitions")
    K = min(K, n)
    cuts = np.linspace(0, n, K + 1).astype(np.int64)
    bounds = [(int(cuts[k]), int(cuts[k + 1])) for k in range(K)]
    sqb, base, sign, upper, qd, layout, w, alpha = svm_start(yb, C, class_weight, length, degree, alpha_)
    sigma = float(K)
    parts = _parts(client, X, bounds, workers)
    orders = [np.arange(b - a, dtype=np.int64) for a, b in bounds]
    actives = [b - a for a, b in bounds]
    stopper = None
    if stopping is not None:
        stopper = HeldOutStop(X, yb, stopping, validation_fraction, 20_000, rng, layout, sqb, name="CoCoA+ (fast)")
        for k, (a, b) in enumerate(bounds):     # each partition steps its training rows; its held-out rows wait
            local = np.zeros(b - a, dtype=bool)
            local[stopper.held[(stopper.held >= a) & (stopper.held < b)] - a] = True
            orders[k] = np.concatenate([np.flatnonzero(~local), np.flatnonzero(local)]).astype(np.int64)
            actives[k] = int((~local).sum())
        averager = IterateAverage(w.shape[0], average)
    pg_max_old, pg_min_old = np.inf, -np.inf
    lost = (distributed.KilledWorker, CancelledError, OSError, TimeoutError)
    converged = False
    rounds = 0
    try:
        for rounds in range(1, max_iter + 1):
            start = time.perf_counter()
            seeds = rng.integers(0, 2 ** 63 - 1, size=K)
            for attempt in range(retries + 1):
                futures = []
                try:
                    if parts is None:   # after a lost worker: the rows again, to the workers there are now
                        workers = _workers(client)
                        parts = _parts(client, X, bounds, workers)
                    w_f = client.scatter(w, broadcast=True, hash=False)
                    futures = [client.submit(_local_round, parts[k], sign[a:b], alpha[a:b], upper[a:b], w_f, degree,
                                             base, layout.table, sqb, qd, sigma, int(seeds[k]), local_passes, orders[k],
                                             actives[k], pg_max_old, pg_min_old, pure=False,
                                             workers=[workers[k % len(workers)]], allow_other_workers=True)
                               for k, (a, b) in enumerate(bounds)]
                    if _ROUND_HOOK is not None:
                        _ROUND_HOOK(rounds, attempt, futures)
                    distributed.wait(futures, timeout=round_timeout)
                    results = client.gather(futures)
                    break
                except lost as exc:
                    for f in futures:
                        f.cancel()
                    if attempt == retries:
                        raise SeqimpError(f"Dask training failed in round {rounds}: a worker was lost or did not "
                                          f"answer ({_one_line(exc)}); gave up after {retries} retries, no model "
                                          "was fitted") from None
                    solver_line(verbose, f"CoCoA+ round {rounds}: {_one_line(exc)}; retrying the round "
                                         f"({attempt + 1}/{retries})")
                    _release(parts)
                    parts = None
            pg_max, pg_min = -np.inf, np.inf
            for k, ((a, b), (new_alpha, dw, hi, lo, order, active)) in enumerate(zip(bounds, results)):
                alpha[a:b] = new_alpha
                w += dw
                orders[k], actives[k] = order, active
                pg_max, pg_min = max(pg_max, hi), min(pg_min, lo)
            gap = pg_max - pg_min
            if stopper is not None:
                change = averager.update(w)
                verdict = stopper.after_pass(rounds, averager.model, change, time.perf_counter() - start, verbose)
                if verdict == "stop":
                    converged = True
                    break
                if verdict == "refit":
                    actives = [b - a for a, b in bounds]
                    pg_max_old, pg_min_old = np.inf, -np.inf
                elif shrinking:
                    pg_max_old = pg_max if pg_max > 0 else np.inf
                    pg_min_old = pg_min if pg_min < 0 else -np.inf
                continue
            if lines_shown(verbose):
                solver_line(verbose, f"CoCoA+ round {rounds}: {K} partitions, active {sum(actives):,}/{n:,}, "
                                     f"projected-gradient range {gap:.3g} (tol {tol:g}), dual objective "
                                     f"{svm_dual_objective(w, alpha):.8g}, {time.perf_counter() - start:.2f} s")
            if gap <= tol:
                if not shrinking or all(act == b - a for act, (a, b) in zip(actives, bounds)):
                    converged = True
                    break
                actives = [b - a for a, b in bounds]  # converged on the active rows: check all of them
                pg_max_old, pg_min_old = np.inf, -np.inf
                continue
            if shrinking:
                pg_max_old = pg_max if pg_max > 0 else np.inf
                pg_min_old = pg_min if pg_min < 0 else -np.inf
    finally:
        _release(parts)
    if not converged:
        import warnings

        from sklearn.exceptions import ConvergenceWarning

        goal = f"tol={tol:g}" if stopper is None else "a settled model"
        warnings.warn(f"distributed dual coordinate descent did not reach {goal} in max_iter={max_iter} "
                      "rounds; increase max_iter", ConvergenceWarning, stacklevel=2)
    sol = svm_solution(w if stopper is None else averager.model, layout, alpha, rounds, converged)
    if stopper is not None:
        sol.history, sol.validation_rows = stopper.history, stopper.held
    return sol


def fit_distributed(model, X, y, *, client):
    """Fit a :class:`~seqimp.WDClassifier` on a Dask cluster; the model keeps no reference to the client.

    Same as ``model.set_params(client=client).fit(X, y)`` followed by restoring ``client``,
    so the fitted model can be pickled and saved. Only the implicit route (shifts=0) runs
    on the cluster.

    Examples
    --------
    >>> from seqimp.kernels import connect, fit_distributed          # doctest: +SKIP
    >>> client = connect(n_workers=2)                                 # doctest: +SKIP
    >>> fit_distributed(WDClassifier(degree=8), X, y, client=client)  # doctest: +SKIP
    """
    if not hasattr(model, "client"):
        raise SeqimpError(f"fit_distributed trains a WDClassifier, got {type(model).__name__}")
    previous = model.client
    model.client = client
    try:
        return model.fit(X, y)
    finally:
        model.client = previous
