"""The implicit SVM on a Dask cluster (CoCoA+) against the single-machine solver, and its faults.

Tolerance: both stop at liblinear's criterion with tol=1e-2; objectives agree to 1e-3
relative and decision values correlate > 0.999 (20,000 sequences, L=30, degree 4).
"""

import functools
import os
import signal
from types import SimpleNamespace

import joblib
import numpy as np
import pytest

import seqimp

distributed = pytest.importorskip("distributed", reason="needs distributed: pip install '.[dask]'")

from distributed.comm.core import CommClosedError  # noqa: E402

from seqimp import SeqimpError, WDClassifier  # noqa: E402
from seqimp.io._store import write_codes_store  # noqa: E402
from seqimp.kernels import _distributed, connect, fit_distributed
from seqimp.kernels._dcd import dcd_svm
from seqimp.kernels._distributed import dcd_svm_distributed
from seqimp.kernels._implicit import wd_scores  # noqa: E402
from seqimp.kernels._dcd import svm_primal_objective  # noqa: E402
from seqimp.background import MarkovBackground  # noqa: E402
from seqimp.importance import ism, poim_sampled  # noqa: E402
from seqimp.tabular import permutation_importance  # noqa: E402


@pytest.fixture(scope="module")
def client():
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None)
    with distributed.Client(cluster) as c:
        yield c
    cluster.close()


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(1)
    X = rng.integers(0, 4, (20_000, 30)).astype(np.uint8)
    y = (((X[:, 10] == 2) & (X[:, 11] == 0)) ^ (rng.random(20_000) < 0.1)).astype(np.int64)
    return X, y


def test_two_workers_match_the_single_machine_solution(client, data):
    X, y = data
    single = dcd_svm(X, y, degree=4, C=0.01, tol=1e-2)
    dist = dcd_svm_distributed(X, y, client=client, degree=4, C=0.01, tol=1e-2)
    assert dist.converged
    p_single = svm_primal_objective(X, y, single.coef, single.intercept, degree=4, C=0.01)
    p_dist = svm_primal_objective(X, y, dist.coef, dist.intercept, degree=4, C=0.01)
    assert abs(dist.dual_objective - single.dual_objective) / single.dual_objective < 1e-3
    assert abs(p_dist - p_single) / p_single < 1e-3
    assert dist.dual_objective <= p_single  # weak duality: a lower bound of the common optimum
    d1 = wd_scores(X, single.coef, single.intercept, degree=4)
    d2 = wd_scores(X, dist.coef, dist.intercept, degree=4)
    assert np.corrcoef(d1, d2)[0, 1] > 0.999


def test_workers_step_in_the_paired_layout_with_the_numbers_of_the_standard_one(client, data, monkeypatch):
    """The workers get w in the solver's paired layout and the client converts at the end: the same
    model, bit for bit, as CoCoA+ on the standard layout."""
    from seqimp.kernels import _layout

    X, y = data[0][:3000], data[1][:3000]
    paired = dcd_svm_distributed(X, y, client=client, degree=5, C=0.1, tol=1e-1)
    monkeypatch.setattr(_layout, "PAIRING", False)
    standard = dcd_svm_distributed(X, y, client=client, degree=5, C=0.1, tol=1e-1)
    assert paired.n_iter == standard.n_iter >= 3
    np.testing.assert_array_equal(paired.coef, standard.coef)
    np.testing.assert_array_equal(paired.dual_coef, standard.dual_coef)
    assert paired.intercept == standard.intercept


def test_estimator_route_memmap_partitions_and_fit_distributed(client, data, tmp_path):
    X, y = data[0][:3000], data[1][:3000]
    model = WDClassifier(degree=4, C=0.01, tol=1e-2, client=client).fit(X, y)
    assert model.method_ == "implicit"
    np.testing.assert_allclose(model.positional_weights().score(X[:200]), model.decision_function(X[:200]),
                               rtol=1e-9, atol=1e-9)
    # a codes store is opened by the workers from its path: the same rows, the same model
    store = write_codes_store(tmp_path / "s", X, y)
    parts = _distributed._parts(client, store.codes, [(0, 1500), (1500, 3000)], ["w0", "w1"])
    assert parts[0][0] == "npy" and parts[1][4:] == (1500, 3000)
    again = WDClassifier(degree=4, C=0.01, tol=1e-2, client=client).fit(store.codes, store.labels)
    np.testing.assert_array_equal(again.coef_, model.coef_)
    plain = WDClassifier(degree=4, C=0.01, tol=1e-2)
    fitted = fit_distributed(plain, X, y, client=client)
    assert fitted is plain and plain.client is None
    np.testing.assert_array_equal(plain.coef_, model.coef_)


# Tasks are pickled even on an in-process cluster: module-level functions go by reference,
# so this counter is shared with the "workers".
_REAL_ROUND = _distributed._local_round
_FAULT = {"calls": 0, "fail_at": 0}


def _flaky_round(*args):
    _FAULT["calls"] += 1
    if _FAULT["calls"] == _FAULT["fail_at"]:
        raise CommClosedError("in <TCP (closed)>: Stream is closed")  # the worker went away mid-task
    return _REAL_ROUND(*args)


def _dead_round(*args):
    raise distributed.KilledWorker("round-task", SimpleNamespace(address="tcp://10.0.0.9:4000"), 3)


def test_a_lost_worker_retries_the_round_and_gives_the_same_model(client, data, monkeypatch):
    X, y = data[0][:2000], data[1][:2000]
    clean = dcd_svm_distributed(X, y, client=client, degree=3, C=0.1, tol=1e-1)
    _FAULT.update(calls=0, fail_at=5)  # the first task of round 3
    monkeypatch.setattr(_distributed, "_local_round", _flaky_round)
    retried = dcd_svm_distributed(X, y, client=client, degree=3, C=0.1, tol=1e-1)
    assert _FAULT["calls"] == 2 * clean.n_iter + 2 and clean.n_iter >= 3  # round 3 ran twice (2 tasks)
    np.testing.assert_array_equal(retried.coef, clean.coef)
    np.testing.assert_array_equal(retried.dual_coef, clean.dual_coef)

    monkeypatch.setattr(_distributed, "_local_round", _dead_round)
    with pytest.raises(SeqimpError, match=r"Dask training failed in round 1: a worker was lost or did not answer "
                                          r"\(KilledWorker: .*tcp://10.0.0.9:4000.*\); gave up after 2 retries, "
                                          r"no model was fitted"):
        dcd_svm_distributed(X, y, client=client, degree=3, C=0.1, tol=1e-2)
    model = WDClassifier(degree=3, client=client)
    with pytest.raises(SeqimpError, match="Dask training failed in round 1"):
        model.fit(X, y)
    assert not hasattr(model, "coef_")  # never a silently different model


def _kill_a_worker_in_round_2(c, monkeypatch):
    """SIGKILL the first worker (by address) once round 2 of a fit is submitted; returns the victims."""
    killed = []

    def hook(rounds, attempt, futures):
        if rounds == 2 and attempt == 0:
            pids = c.run(os.getpid)
            victim = sorted(pids)[0]
            os.kill(pids[victim], signal.SIGKILL)
            killed.append(victim)

    monkeypatch.setattr(_distributed, "_ROUND_HOOK", hook)
    return killed


def test_a_killed_worker_process_is_survived_exactly_or_fails_in_one_line(data, monkeypatch):
    """A real lost worker: SIGKILL to a worker process once round 2 is submitted (a hook, no sleeps).

    Its scattered rows die with it, so round 2 fails; the round is retried with the rows sent
    again and the model is bit-identical to the undisturbed fit, or with no retries left the
    fit fails in one line.
    """
    X, y = data[0][:2000], data[1][:2000]
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0")
    with cluster, distributed.Client(cluster) as c:
        clean = dcd_svm_distributed(X, y, client=c, degree=3, C=0.1, tol=1e-1)
        killed = _kill_a_worker_in_round_2(c, monkeypatch)  # the worker holding partition 0's scattered rows
        survived = dcd_svm_distributed(X, y, client=c, degree=3, C=0.1, tol=1e-1)
        assert len(killed) == 1 and killed[0] not in _distributed.worker_addresses(c)
        assert survived.n_iter == clean.n_iter >= 3
        np.testing.assert_array_equal(survived.coef, clean.coef)   # bit-identical, as the design promises
        np.testing.assert_array_equal(survived.dual_coef, clean.dual_coef)

        # no retries left: one line naming the round, never a model
        c.wait_for_workers(2, timeout=60)
        # the victim dies once round 2 is submitted: round 2 fails, or, when its tasks were already
        # done by then (a loaded machine), round 3, the first to need the victim's rows
        with pytest.raises(SeqimpError, match=r"^Dask training failed in round [23]: a worker was lost or did not "
                                              r"answer \(.*\); gave up after 0 retries, no model was fitted$") as err:
            dcd_svm_distributed(X, y, client=c, degree=3, C=0.1, tol=1e-1, retries=0)
        assert len(killed) == 2 and "\n" not in str(err.value)


def test_a_killed_worker_is_survived_exactly_when_the_rows_come_from_a_codes_store(data, tmp_path, monkeypatch):
    """The codes-store route: every worker opens its partition's rows from the store's path, so
    a worker killed once round 2 is submitted loses no data. Dask runs the lost task again on
    the other worker (or the round is retried) and the model is bit-identical to the undisturbed fit."""
    X, y = data[0][:2000], data[1][:2000]
    codes = write_codes_store(tmp_path / "train", X, y).codes
    assert isinstance(codes, np.memmap)
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0")
    with cluster, distributed.Client(cluster) as c:
        clean = dcd_svm_distributed(codes, y, client=c, degree=3, C=0.1, tol=1e-1)
        assert all(isinstance(part, tuple) for part in _distributed._parts(c, codes, [(0, 1000), (1000, 2000)],
                                                                            ["a", "b"]))  # paths, not scattered rows
        killed = _kill_a_worker_in_round_2(c, monkeypatch)
        survived = dcd_svm_distributed(codes, y, client=c, degree=3, C=0.1, tol=1e-1)
        assert len(killed) == 1 and killed[0] not in _distributed.worker_addresses(c)
        assert survived.n_iter == clean.n_iter >= 3
        np.testing.assert_array_equal(survived.coef, clean.coef)
        np.testing.assert_array_equal(survived.dual_coef, clean.dual_coef)


def test_a_killed_worker_process_leaves_the_fast_route_bit_identical(data, monkeypatch):
    """The fast route's rounds (held-out slice, stopping rule, final rounds over all rows) are the
    same pure tasks: a worker process killed with SIGKILL once round 2 is submitted costs a retry,
    not a different model."""
    from seqimp.kernels._sgd_rule import PlateauRule

    X, y = data[0][:2000], data[1][:2000]
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0")
    with cluster, distributed.Client(cluster) as c:
        rule = dict(validation_tol=1e-2, weight_tol=5e-2)
        clean = dcd_svm_distributed(X, y, client=c, degree=3, C=0.1, stopping=PlateauRule(**rule))
        killed = _kill_a_worker_in_round_2(c, monkeypatch)
        survived = dcd_svm_distributed(X, y, client=c, degree=3, C=0.1, stopping=PlateauRule(**rule))
        assert len(killed) == 1 and clean.converged and survived.n_iter == clean.n_iter >= 3
        np.testing.assert_array_equal(survived.coef, clean.coef)
        np.testing.assert_array_equal(survived.dual_coef, clean.dual_coef)
        assert survived.history == clean.history


def test_scheduler_address_as_client_param(client, data):
    X, y = data[0][:2000], data[1][:2000]
    model = WDClassifier(degree=3, C=0.1, tol=1e-1, client=client.scheduler.address).fit(X, y)
    ref = WDClassifier(degree=3, C=0.1, tol=1e-1, client=client).fit(X, y)
    np.testing.assert_array_equal(model.coef_, ref.coef_)
    with pytest.raises(SeqimpError, match="client must be a dask.distributed.Client or a scheduler address"):
        WDClassifier(degree=3, client=42).fit(X, y)


def test_unreachable_scheduler_is_one_clear_line():
    with pytest.raises(SeqimpError, match=r"^dask scheduler tcp://127\.0\.0\.1:9: cannot connect within 1 s \(") as err:
        connect("tcp://127.0.0.1:9", timeout=1)
    assert "\n" not in str(err.value)
    local = connect(n_workers=1, processes=False)
    cluster = local.cluster
    assert len(_distributed.worker_addresses(local)) == 1
    local.close()
    assert cluster.status.name == "closed"  # the client owns its local cluster
    with pytest.raises(SeqimpError, match="give exactly one of scheduler"):
        connect()
    with pytest.raises(SeqimpError, match="n_workers must be a positive integer"):
        connect(n_workers=0)


# --------------------------------------------------------------------------- importance on the cluster

_WHERE = []   # an in-process cluster shares this module with its workers


_PICKLED = []


class _WhereScorer:
    """A fitted model's decision function that notes where each batch ran, and counts its picklings."""

    def __init__(self, model):
        self.model = model

    def __reduce__(self):
        _PICKLED.append(1)
        return _WhereScorer, (self.model,)

    def __call__(self, X):
        try:
            _WHERE.append(distributed.get_worker().address)
        except ValueError:   # not inside a Dask task
            _WHERE.append("client")
        return self.model.decision_function(X)


def _wd_on_columns(model, F):
    """Permutation importance hands the model float columns; the WD model wants codes."""
    return model.decision_function(F.astype(np.uint8))


def test_importance_batches_on_the_cluster_equal_the_sequential_run(client, data):
    X, y = data[0][:1500, :12], data[1][:1500]
    model = WDClassifier(degree=3, C=0.1).fit(X, y)
    scorer = _WhereScorer(model)
    bg = MarkovBackground.from_arrays(np.full(4, 0.25), np.random.default_rng(2).dirichlet(np.ones(4), size=4))
    seq = poim_sampled(scorer, bg, 2, length=12, n_samples=20, batch_size=200, random_state=4)
    seq_ism = ism(model.decision_function, X[:9], batch_size=50)
    on_columns = functools.partial(_wd_on_columns, model)
    seq_perm = permutation_importance(on_columns, X[:300], y[:300], loss="1-auc", n_repeats=3, random_state=2)
    _WHERE.clear()
    with joblib.parallel_config(backend="dask"):   # n_jobs=None: the cluster's threads
        _PICKLED.clear()
        par = poim_sampled(scorer, bg, 2, length=12, n_samples=20, batch_size=200, random_state=4)
        pickled = len(_PICKLED)
        par_ism = ism(model.decision_function, X[:9], batch_size=50)
        par_perm = permutation_importance(on_columns, X[:300], y[:300], loss="1-auc", n_repeats=3,
                                          random_state=2)
    assert set(_WHERE) & set(_distributed.worker_addresses(client))   # the batches ran on the workers
    # the scorer was pickled a few times per order (the check, the scatter), not once per batch
    # (22 times for 29 batches when it travels with the batches)
    assert len(_WHERE) >= 20 and pickled <= 4
    for name in ("poim", "firm", "poim_se", "firm_se"):   # bit-identical: same draws, merged in batch order
        for a, b in zip(getattr(seq, name), getattr(par, name)):
            np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(par_ism, seq_ism)
    np.testing.assert_array_equal(par_perm.importances, seq_perm.importances)
    assert np.abs(seq_perm.importances_mean).max() > 0   # the comparison is not between empty results

    class Unsendable:
        def __reduce__(self):
            raise TypeError("holds a live session")

        def __call__(self, X):
            return model.decision_function(X)

    with joblib.parallel_config(backend="dask"), \
            pytest.raises(SeqimpError, match=r"^score_fn \(Unsendable\) cannot be sent to parallel workers "
                                             r"\(TypeError: holds a live session\)"):
        ism(Unsendable(), X[:2])


def test_importance_client_argument_runs_on_the_cluster_with_the_local_numbers(client, data):
    """poim_sampled / ism / permutation_importance(client=...) send their batches to that cluster
    (no joblib configuration needed) and give the numbers of the local run for the same seed."""
    X, y = data[0][:1000, :10], data[1][:1000]
    model = WDClassifier(degree=3, C=0.1).fit(X, y)
    scorer = _WhereScorer(model)
    bg = MarkovBackground.uniform(10)
    local = poim_sampled(scorer, bg, 2, n_samples=16, batch_size=100, random_state=7)
    local_ism = ism(model.decision_function, X[:5], batch_size=40)
    on_columns = functools.partial(_wd_on_columns, model)
    local_perm = permutation_importance(on_columns, X[:200], y[:200], loss="1-auc", n_repeats=2, random_state=3)
    _WHERE.clear()
    remote = poim_sampled(scorer, bg, 2, n_samples=16, batch_size=100, random_state=7, client=client)
    assert set(_WHERE) & set(_distributed.worker_addresses(client))
    for name in ("poim", "firm", "poim_se", "firm_se"):
        for a, b in zip(getattr(local, name), getattr(remote, name)):
            np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(ism(model.decision_function, X[:5], batch_size=40, client=client), local_ism)
    remote_perm = permutation_importance(on_columns, X[:200], y[:200], loss="1-auc", n_repeats=2, random_state=3,
                                         client=client)
    np.testing.assert_array_equal(remote_perm.importances, local_perm.importances)
    with pytest.raises(SeqimpError, match="^client must be a dask.distributed.Client, got str$"):
        ism(model.decision_function, X[:2], client="tcp://nowhere:1")


def test_fast_route_on_the_cluster_stops_by_the_same_rule_in_about_the_same_passes(client, data):
    """CoCoA+ with the fast route's stopping rule: within 1.3x the single machine's passes and the
    same model where it matters (accuracy within 0.002, at least 45 of the top 50 positional k-mers by
    |FIRM| in common per order; decision values correlated > 0.998)."""
    from seqimp.kernels._sgd import fast_svm
    from seqimp.kernels._sgd_rule import PlateauRule

    X, y = data
    one = fast_svm(X, y, degree=4, C=0.1)
    two = dcd_svm_distributed(X, y, client=client, degree=4, C=0.1, stopping=PlateauRule())
    assert one.converged and two.converged and two.n_iter <= 1.3 * one.n_iter
    np.testing.assert_array_equal(two.validation_rows, one.validation_rows)   # the same slice, the same seed
    assert np.isnan(two.history[-1][0]) and two.history[-1][2] <= 1e-2        # ended on passes over all rows
    d1, d2 = (wd_scores(X, s.coef, s.intercept, degree=4) for s in (one, two))
    assert np.corrcoef(d1, d2)[0, 1] > 0.998
    assert abs(np.mean((d1 > 0) == y) - np.mean((d2 > 0) == y)) <= 0.002
    tops = []
    for s in (one, two):
        w = seqimp.PositionalWeights.from_wd_coef(s.coef, s.intercept, length=30, degree=4)
        firm = seqimp.poim(w, seqimp.MarkovBackground.uniform(30), 4, engine="memory").firm
        tops.append([set(np.argsort(-np.abs(firm[k - 1]).ravel(), kind="stable")[:50]) for k in range(2, 5)])
    for k, (a, b) in enumerate(zip(*tops), start=2):
        assert len(a & b) >= 45, f"order {k}: {len(a & b)} of the single machine's top 50"
    model = WDClassifier(degree=4, C=0.1, solver="fast", client=client).fit(X, y)
    assert model.solver_ == "cocoa-fast" and model.n_iter_ == two.n_iter
    np.testing.assert_array_equal(model.coef_, two.coef)


def test_single_machine_fast_options_are_refused_on_the_cluster(client, data):
    X, y = data
    for options in ({"optimum_tol": 10.0}, {"shrink_margin": 0.1}, {"refit": False}, {"extrapolate": True}):
        model = WDClassifier(degree=3, solver="fast", client=client, **options)
        with pytest.raises(SeqimpError, match="single-machine fast route"):
            model.fit(X[:2000], y[:2000])


def test_worker_addresses_ask_the_scheduler_not_the_clients_cache():
    """``scheduler_info(n_workers=-1)`` returns the client's cache, which the client's periodic
    update (totals only, no workers) can overwrite right after the fetch: the addresses come from
    the scheduler's answer itself. A client whose ``scheduler_info`` takes no ``n_workers``
    (older distributed, always every worker) is read as before."""
    import asyncio

    class Scheduler:
        async def identity(self, n_workers=0):
            return {"workers": {"tcp://b:2": {}, "tcp://a:1": {}} if n_workers == -1 else {}}

    class Raced:
        scheduler = Scheduler()

        def scheduler_info(self, n_workers=-1):
            return {"workers": {}}  # the cache as the periodic update left it

        def sync(self, func, *args, **kwargs):
            return asyncio.run(func(*args, **kwargs))

    class Older:
        def scheduler_info(self):
            return {"workers": {"tcp://c:3": {}}}

    assert _distributed.worker_addresses(Raced()) == ["tcp://a:1", "tcp://b:2"]
    assert _distributed.worker_addresses(Older()) == ["tcp://c:3"]

    class NoWorkers(Raced):
        class scheduler:
            @staticmethod
            async def identity(n_workers=0):
                return {"workers": {}}

    with pytest.raises(SeqimpError, match="^the Dask cluster has no workers$"):
        _distributed._workers(NoWorkers())
