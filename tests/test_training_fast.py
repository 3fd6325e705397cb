"""The fast SVM route (seqimp/kernels/_sgd.py) and its stopping rule (seqimp/kernels/_sgd_rule.py).

Tolerances: on 20,000 sequences the fast route's model matches the exact route's within the
thresholds docs/training-at-scale.md states (held-out accuracy within 0.002; per order
k = 2..K at least 90% of the exact fit's top-50 positional k-mers by |FIRM| among the fast
fit's top 50). The averaged-SGD kernel equals a dense NumPy transcription of the same
updates on the explicit features to 1e-9 relative.
"""

import warnings

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning

import seqimp
from seqimp import (
    MarkovBackground,
    PositionalWeights,
    SeqimpError,
    WDClassifier,
    wd_features,
)
from seqimp.kernels._dcd import dcd_svm
from seqimp.kernels._implicit import wd_scores
from seqimp.kernels._dcd import svm_start
from seqimp.kernels._estimators import AUTO_FAST_FROM
from seqimp.kernels._layout import to_standard
from seqimp.kernels._sgd import _asgd_steps, fast_svm
from seqimp.kernels._sgd_rule import DistanceToOptimum, PlateauRule, validation_scores, validation_split


def planted(n, length, seed, noise=0.1):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 4, (n, length)).astype(np.uint8)
    y = rng.random(n) < 0.5
    pos = rng.integers(length // 3, length // 3 + 4, n)
    for r in np.flatnonzero(y):
        X[r, pos[r]:pos[r] + 4] = [2, 0, 3, 3]            # GATT
    return X, (y ^ (rng.random(n) < noise)).astype(np.int64)


# --------------------------------------------------------------------------- the stopping rule


def test_rule_stops_on_the_first_plateau_of_patience_passes_and_not_before():
    rule = PlateauRule(validation_tol=1e-3, weight_tol=1e-2, patience=2)
    # a loss that falls and flattens, accuracy that settles, weights that settle geometrically
    losses = [0.50, 0.45, 0.43, 0.4299, 0.42985, 0.42984, 0.42984]
    accs = [0.80, 0.85, 0.86, 0.8605, 0.8605, 0.8605, 0.8605]
    changes = [1.0, 0.3, 0.05, 0.02, 0.009, 0.005, 0.002]
    stops = [rule.update(a, b, c) for a, b, c in zip(losses, accs, changes)]
    # pass 4 (0-based 3): loss and accuracy settled but weights moved 2% > 1%; pass 5 is the first
    # settled pass, pass 6 the second: stop there, never earlier
    assert [h[3] for h in rule.history] == [False, False, False, False, True, True, True]
    assert stops == [False, False, False, False, False, True, True]


def test_rule_restarts_its_count_when_the_model_moves_again():
    rule = PlateauRule(validation_tol=1e-3, weight_tol=1e-2, patience=3)
    seq = [(0.4, 0.9, 1.0), (0.4, 0.9, 0.001), (0.4, 0.9, 0.001),   # two settled passes
           (0.41, 0.9, 0.001),                                        # the held-out loss jumps 2.5%
           (0.41, 0.9, 0.001), (0.41, 0.9, 0.001), (0.41, 0.902, 0.001), (0.41, 0.902, 0.001),
           (0.41, 0.902, 0.001), (0.41, 0.902, 0.001)]
    stops = [rule.update(*s) for s in seq]
    # settled: F T T F T T F(accuracy +0.002) T T T -> three in a row first after the 10th pass
    assert stops == [False] * 9 + [True]


def test_rule_never_stops_before_min_passes_and_checks_its_thresholds():
    rule = PlateauRule(validation_tol=1.0, weight_tol=10.0, patience=1, min_passes=3)
    assert [rule.update(0.1, 0.9, 0.0) for _ in range(4)] == [False, False, True, True]
    with pytest.raises(SeqimpError, match="weight_tol"):
        PlateauRule(weight_tol=-1)
    with pytest.raises(SeqimpError, match="patience"):
        PlateauRule(patience=0)


def test_validation_split_is_seeded_disjoint_and_bounded():
    train, held = validation_split(1000, 0.05, 20, np.random.default_rng(3))
    assert held.shape == (20,) and train.shape == (980,)
    assert not np.intersect1d(train, held).size and np.all(np.diff(held) > 0)
    again = validation_split(1000, 0.05, 20, np.random.default_rng(3))[1]
    np.testing.assert_array_equal(held, again)
    with pytest.raises(SeqimpError, match="needs at least 3 sequences, got 2; use solver='dcd'"):
        validation_split(2, 0.5, 10, np.random.default_rng(0))
    with pytest.raises(SeqimpError, match="validation_fraction"):
        validation_split(100, 1.5, 10, np.random.default_rng(0))


def test_validation_scores_on_the_solver_layout_equal_wd_scores():
    X, y = planted(300, 20, 4)
    sol = dcd_svm(X, y, degree=5, C=0.1, tol=1e-2)
    sqb, base, _, _, _, layout, w, _ = svm_start(y, 0.1, None, 20, 5, seqimp.io.get_alphabet("dna"))
    # put the solution into the solver's layout through the slow address rule
    from seqimp.kernels._layout import feature_address

    offsets = layout.offsets
    for k in range(1, 6):
        for i in range(20 - k + 1):
            for yk in range(4 ** k):
                w[feature_address(layout.table, 4, k, i, yk)] = sol.coef[offsets[k - 1] + i * 4 ** k + yk]
    w[-1] = sol.intercept
    np.testing.assert_allclose(validation_scores(X, w, layout.table, sqb, 5, base),
                               wd_scores(X, sol.coef, sol.intercept, degree=5), rtol=1e-12, atol=1e-12)


# --------------------------------------------------------------------------- averaged SGD


def _dense_asgd(F, sign, weight, order_passes, lam, eta0, t0):
    """The same updates on explicit features, every vector dense (the slow reference)."""
    F = np.hstack([F.toarray(), np.ones((F.shape[0], 1))])
    w = np.zeros(F.shape[1])
    avg = np.zeros(F.shape[1])
    t = 0
    for order in order_passes:
        for i in order:
            eta = eta0 / (1.0 + lam * eta0 * t) ** 0.75
            margin = sign[i] * (F[i] @ w)
            w *= 1.0 - eta * lam
            if margin < 1.0:
                w += eta * weight[i] * sign[i] * F[i]
            if t == t0:
                avg = w.copy()
            elif t > t0:
                mu = 1.0 / (t - t0 + 1.0)
                avg = (1.0 - mu) * avg + mu * w
            t += 1
    return avg


def test_asgd_kernel_equals_dense_updates_on_explicit_features():
    X, y = planted(120, 12, 2, noise=0.2)
    degree = 3
    sqb, base, sign, upper, qd, layout, v, _ = svm_start(y, 0.5, {0: 2.0, 1: 1.0}, 12, degree,
                                                          seqimp.io.get_alphabet("dna"))
    z = np.zeros_like(v)
    weight = upper / 0.5
    lam, eta0, t0 = 1.0 / (120 * 0.5), 1.0 / qd, 120.0
    state = np.array([1.0, 1.0, 0.0, 0.0])
    rng = np.random.default_rng(0)
    orders = [rng.permutation(120).astype(np.int64) for _ in range(3)]
    for order in orders:
        _asgd_steps(X, sign, weight, order, 0, 60, v, z, layout.table, sqb, degree, base, state, lam, eta0, t0)
        _asgd_steps(X, sign, weight, order, 60, 120, v, z, layout.table, sqb, degree, base, state, lam, eta0, t0)
    D, E = state[1], state[2]
    coef, bias = to_standard(D * (z + E * v), layout)
    ref = _dense_asgd(wd_features(X, degree=degree), sign, weight, orders, lam, eta0, 120)
    np.testing.assert_allclose(np.append(coef, bias), ref, rtol=1e-9, atol=1e-12)
    assert np.abs(ref).max() > 0.01


# --------------------------------------------------------------------------- fast vs exact


def _top50_firm(coef, intercept, length, degree):
    w = PositionalWeights.from_wd_coef(coef, intercept, length=length, degree=degree)
    res = seqimp.poim(w, MarkovBackground.uniform(length), degree, engine="memory")
    return [set(np.argsort(-np.abs(res.firm[k - 1]).ravel(), kind="stable")[:50]) for k in range(2, degree + 1)]


@pytest.fixture(scope="module")
def twenty_k():
    X, y = planted(20_000, 24, 1)
    Xt, yt = planted(4000, 24, 9)
    exact = dcd_svm(X, y, degree=5, C=0.05, tol=1e-3)
    return X, y, Xt, yt, exact


def test_fast_route_gives_the_exact_model_where_it_matters(twenty_k):
    X, y, Xt, yt, exact = twenty_k
    fast = fast_svm(X, y, degree=5, C=0.05, validation_tol=1e-3, weight_tol=1e-2)
    assert fast.converged and fast.n_iter < exact.n_iter
    acc = [np.mean((wd_scores(Xt, s.coef, s.intercept, degree=5) > 0) == yt) for s in (exact, fast)]
    assert abs(acc[0] - acc[1]) <= 0.002 and acc[0] > 0.8
    tops = [_top50_firm(s.coef, s.intercept, 24, 5) for s in (exact, fast)]
    for k, (a, b) in enumerate(zip(*tops), start=2):
        assert len(a & b) >= 45, f"order {k}: {len(a & b)} of the exact top 50"
    # the record: one entry per pass; the rule's last `patience` passes settled, then passes over all
    # rows (NaN held-out figures) until the weights settled again
    held = [h for h in fast.history if not np.isnan(h[0])]
    assert len(fast.history) == fast.n_iter > len(held) and all(h[3] for h in held[-2:])
    assert fast.history[-1][3] and fast.history[-1][2] <= 1e-2
    assert fast.validation_rows.shape == (400,)
    # without refit the slice stays out: the rule's last pass is the last pass
    kept_out = fast_svm(X, y, degree=5, C=0.05, refit=False)
    assert kept_out.n_iter == len(held) and all(h[3] for h in kept_out.history[-2:])


def test_sgd_route_reaches_the_accuracy_of_the_exact_route(twenty_k):
    X, y, Xt, yt, exact = twenty_k
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        sgd = fast_svm(X, y, degree=5, C=0.05, method="sgd", max_iter=8)
    acc = [np.mean((wd_scores(Xt, s.coef, s.intercept, degree=5) > 0) == yt) for s in (exact, sgd)]
    assert acc[1] >= acc[0] - 0.01


def test_estimator_solvers_and_auto_default(capsys):
    X, y = planted(3000, 16, 5)
    exact = WDClassifier(degree=4, C=0.1).fit(X, y)         # auto below AUTO_FAST_FROM: the exact route
    assert exact.solver_ == "dcd" and AUTO_FAST_FROM == 50_000
    ref = dcd_svm(X, y, degree=4, C=0.1, tol=1e-4)
    np.testing.assert_array_equal(exact.coef_, ref.coef)
    fast = WDClassifier(degree=4, C=0.1, solver="fast", weight_tol=0.05, verbose=True).fit(X, y)
    err = capsys.readouterr().err
    assert fast.solver_ == "fast" and np.isnan(fast.dual_objective_)
    assert len(fast.stopping_history_) == fast.n_iter_ and fast.validation_rows_.shape == (60,)
    assert "DCD (fast) pass 1: held-out hinge loss" in err and "settled on the held-out rows" in err
    assert f"DCD (fast) pass {fast.n_iter_} (all rows): weight change" in err
    same = fast_svm(X, y, degree=4, C=0.1, weight_tol=0.05)
    np.testing.assert_array_equal(fast.coef_, same.coef)
    np.testing.assert_allclose(fast.decision_function(X[:50]), fast.positional_weights().score(X[:50]), rtol=1e-9,
                               atol=1e-9)
    with pytest.raises(SeqimpError, match="solver"):
        WDClassifier(degree=4, solver="newton").fit(X, y)
    with pytest.raises(SeqimpError, match="needs at least 3 sequences"):
        WDClassifier(degree=2, solver="fast").fit(["ACGT", "ACGA"], [0, 1])


def test_max_iter_without_a_plateau_warns():
    X, y = planted(500, 13, 6)
    with pytest.warns(ConvergenceWarning, match=r"still changing after max_iter=2 passes"):
        sol = fast_svm(X, y, degree=3, max_iter=2, weight_tol=0.0)
    assert not sol.converged and sol.n_iter == 2


@pytest.mark.parametrize("method, extrapolate", [("dcd", False), ("sgd", False), ("dcd", True)])
def test_memory_estimate_of_the_fast_route_matches_its_traced_peak(method, extrapolate):
    import tracemalloc

    from seqimp.kernels._memory import training_memory

    X, y = planted(800, 60, 3)
    def fit():
        return fast_svm(X, y, degree=5, method=method, max_iter=3, weight_tol=0.0, extrapolate=extrapolate)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        fit()                                   # compile outside the trace
        tracemalloc.start()
        try:
            fit()
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
    est = training_memory(800, 60, 5, 4, "implicit", solver="fast" if method == "dcd" else "sgd",
                          extrapolate=extrapolate)
    assert 0.9 * peak <= est <= 1.5 * peak, (est, peak)
    assert est > training_memory(800, 60, 5, 4, "implicit")    # more than the exact route's


def test_memory_estimate_of_the_line_search_matches_its_traced_peak_per_row():
    # many short rows at a low degree: the line search's vectors over the rows dominate what it adds
    import tracemalloc

    from seqimp.kernels._memory import training_memory

    X, y = planted(100_000, 12, 3)
    peaks = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        fast_svm(X[:2000], y[:2000], degree=2, max_iter=2, extrapolate=True)        # compile outside the trace
        for extrapolate in (False, True):
            tracemalloc.start()
            try:
                fast_svm(X, y, degree=2, max_iter=3, weight_tol=0.0, extrapolate=extrapolate)
                peaks.append(tracemalloc.get_traced_memory()[1])
            finally:
                tracemalloc.stop()
    added = (training_memory(100_000, 12, 2, 4, "implicit", solver="fast", extrapolate=True)
             - training_memory(100_000, 12, 2, 4, "implicit", solver="fast"))
    assert 0.9 * (peaks[1] - peaks[0]) <= added <= 1.5 * (peaks[1] - peaks[0]), (added, peaks)


def test_the_weight_change_does_not_depend_on_the_number_of_threads():
    import numba

    from seqimp.kernels._sgd import _materialize

    rng = np.random.default_rng(0)
    v, z = rng.normal(size=10_001), rng.normal(size=10_001)
    results = []
    for threads in (1, numba.config.NUMBA_NUM_THREADS):
        previous = numba.get_num_threads()
        numba.set_num_threads(threads)
        try:
            out = np.ones(10_001)
            results.append((_materialize(v, z, 0.5, 2.0, 3.0, True, out), out))
        finally:
            numba.set_num_threads(previous)
    assert results[0][0] == results[1][0]
    np.testing.assert_array_equal(results[0][1], results[1][1])
    np.testing.assert_allclose(results[0][1], 2.0 * (z + 3.0 * v), rtol=1e-14, atol=1e-14)
    np.testing.assert_allclose(results[0][0], (np.sum((2.0 * (z + 3.0 * v) - 1) ** 2),
                                               np.sum((2.0 * (z + 3.0 * v)) ** 2), np.sum(v ** 2)), rtol=1e-12)


# --------------------------------------------------------------------------- averaging and threads


@pytest.mark.parametrize("eta", [None, 0.0, 3.0])
def test_iterate_average_is_the_polynomial_decay_average(eta):
    from seqimp.kernels._sgd_rule import IterateAverage

    rng = np.random.default_rng(2)
    iterates = [rng.normal(size=1001) for _ in range(6)]
    avg = IterateAverage(1001, eta)
    expected = np.zeros(1001)
    for t, w in enumerate(iterates, start=1):
        old = expected.copy()
        # slow reference: eta None is the last iterate; else the weights of Shamir and Zhang's recursion
        expected = w.copy() if eta is None else (1 - (eta + 1) / (t + eta)) * expected + (eta + 1) / (t + eta) * w
        change = avg.update(w)
        np.testing.assert_allclose(avg.model, expected, rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(change, np.linalg.norm(expected - old) / np.linalg.norm(expected), rtol=1e-10)
    if eta == 0.0:                                       # eta 0: the plain mean of every iterate
        np.testing.assert_allclose(avg.model, np.mean(iterates, axis=0), rtol=1e-12, atol=1e-12)


def test_fast_route_on_two_threads_gives_the_exact_model(twenty_k):
    """Passes on two threads sharing the weights, with the options that were one-thread only before
    (margin shrinking, extrapolation): the exact fit's model by the same measures as one thread."""
    X, y, Xt, yt, exact = twenty_k
    fast = fast_svm(X, y, degree=5, C=0.05, n_jobs=2, random_state=3, shrink_margin=0.1, extrapolate=True)
    assert fast.converged
    acc = [np.mean((wd_scores(Xt, s.coef, s.intercept, degree=5) > 0) == yt) for s in (exact, fast)]
    assert abs(acc[0] - acc[1]) <= 0.002
    tops = [_top50_firm(s.coef, s.intercept, 24, 5) for s in (exact, fast)]
    for k, (a, b) in enumerate(zip(*tops), start=2):
        assert len(a & b) >= 45, f"order {k}: {len(a & b)} of the exact top 50"
    with pytest.raises(SeqimpError, match="average must be"):
        fast_svm(X[:100], y[:100], degree=2, average=-1)


# --------------------------------------------------------------------------- distance to the optimum


def test_distance_to_optimum_is_exact_on_a_geometric_dual_path():
    # D_t = D* - A r^t: the gains decay by r, the extrapolated gain to come is A r^t exactly, so the
    # estimate is the strong-concavity bound sqrt(2 (D* - D_t)) / ||w|| in units of 1/sqrt(n)
    n, d_star, a, r, norm2 = 2500, 100.0, 40.0, 0.8, 9.0
    est = DistanceToOptimum(n, window=3)
    values = []
    for t in range(12):
        values.append(est.update(d_star - a * r ** t, norm2))
    assert all(v == np.inf for v in values[:4])            # window + 1 gains needed
    for t in range(4, 12):
        expect = np.sqrt(2 * a * r ** t / norm2) * np.sqrt(n)
        assert values[t] == pytest.approx(expect, rel=1e-9)


def test_distance_to_optimum_is_infinite_while_the_gains_do_not_decay():
    est = DistanceToOptimum(100, window=2)
    assert [est.update(v, 1.0) for v in (0.0, 1.0, 2.0, 3.0, 4.0)][-1] == np.inf     # r = 1
    est = DistanceToOptimum(100, window=2)
    assert [est.update(v, 1.0) for v in (0.0, 1.0, 1.5, 2.5, 4.0)][-1] == np.inf     # growing gains


def test_the_dual_bounds_the_distance_to_the_optimum_weights():
    # the inequality DistanceToOptimum rests on: ||w_t - w*||^2 <= 2 (D* - D_t) for the weights
    # (bias included) of dual-feasible iterates of coordinate descent, checked against the exact optimum
    X, y = planted(400, 24, seed=5)
    best = dcd_svm(X, y, degree=3, tol=1e-10, max_iter=5000)
    w_star = np.append(best.coef, best.intercept)
    for passes in (1, 2, 4, 8):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            sol = dcd_svm(X, y, degree=3, max_iter=passes)
        dist2 = float(np.sum((np.append(sol.coef, sol.intercept) - w_star) ** 2))
        assert dist2 <= 2 * (best.dual_objective - sol.dual_objective) * (1 + 1e-9) + 1e-12


def test_fast_route_with_optimum_tol_stops_closer_to_the_exact_model(twenty_k):
    X, y = twenty_k[:2]
    exact = dcd_svm(X, y, degree=5, C=0.05, tol=1e-6)
    w_star = np.append(exact.coef, exact.intercept)

    def distance(sol):
        return np.linalg.norm(np.append(sol.coef, sol.intercept) - w_star) / np.linalg.norm(w_star)

    plain = fast_svm(X, y, degree=5, C=0.05, average=None, random_state=0)
    close = fast_svm(X, y, degree=5, C=0.05, average=None, optimum_tol=0.5, random_state=0)
    assert close.n_iter > plain.n_iter
    assert distance(close) < 0.5 * distance(plain)
    # the passes over all rows stopped on the estimate too: its last value is within the tolerance
    assert close.converged


def test_optimum_tol_is_refused_where_it_is_not_estimated(twenty_k):
    X, y = twenty_k[:2]
    with pytest.raises(SeqimpError, match="optimum_tol needs method='dcd'"):
        fast_svm(X[:200], y[:200], degree=3, method="sgd", optimum_tol=1.0)
    with pytest.raises(SeqimpError, match="optimum_tol must be"):
        fast_svm(X[:200], y[:200], degree=3, optimum_tol=-1.0)


def test_distance_after_a_rebase_reads_the_new_gains_with_the_carried_ratio():
    # the held-out rows join: the gains start afresh from the new dual, the scale is sqrt(new n), and
    # until window + 1 new gains are known the decay ratio of the gains before is used
    n, d_star, a, r, norm2 = 2500, 100.0, 40.0, 0.8, 9.0
    est = DistanceToOptimum(n, window=3)
    for t in range(8):
        est.update(d_star - a * r ** t, norm2)
    est.rebase(500.0, 10_000)
    gains = [3.0, 1.5, 0.75, 0.375, 0.1875]                 # the new path decays by 0.5
    dual, got = 500.0, []
    for g in gains:
        dual += g
        got.append(est.update(dual, norm2))
    for g, value in zip(gains[:3], got[:3]):
        assert value == pytest.approx(np.sqrt(2 * g * r / (1 - r) / norm2) * 100.0, rel=1e-12)
    for g, value in zip(gains[3:], got[3:]):               # window + 1 new gains: their own ratio
        assert value == pytest.approx(np.sqrt(2 * g * 0.5 / 0.5 / norm2) * 100.0, rel=1e-12)
    fresh = DistanceToOptimum(100)
    fresh.rebase(1.0, 200)                                   # nothing to carry: infinite until 4 gains
    assert fresh.update(2.0, 1.0) == np.inf
    flat = DistanceToOptimum(n, window=3)                     # new gains that do not decay: no estimate,
    for t in range(8):                                        # the ratio before the rebase is not used
        flat.update(d_star - a * r ** t, norm2)
    flat.rebase(500.0, 10_000)
    values = [flat.update(500.0 + t, norm2) for t in range(1, 6)]
    assert all(np.isfinite(values[:3])) and values[3:] == [np.inf, np.inf]


# --------------------------------------------------------------------------- shrinking by a margin


def test_margin_shrinking_skips_exactly_the_rows_a_dense_pass_finds_past_the_margin():
    from seqimp.kernels._dcd import _svm_steps, cumulative_beta
    from seqimp.kernels._implicit import implicit_layout, row_norm2
    from seqimp.kernels._layout import aligned_zeros, solver_layout

    n, length, degree, margin = 300, 12, 3, 0.1
    X, y = planted(n, length, 4)
    sign = np.where(y == 1, 1.0, -1.0)
    upper = np.full(n, 0.02)                                 # small C: rows at the bound occur too
    F = wd_features(X, degree=degree).toarray()
    qd = row_norm2(length, degree) + 1.0
    orders = [np.random.default_rng(s).permutation(n).astype(np.int64) for s in range(3)]
    # dense transcription: two plain passes, then one that skips a row at 0 whose gradient y f - 1 is
    # above the margin and a row at its bound C whose gradient is below -margin; as in liblinear, a
    # skipped row swaps places with the last active one, which is visited next
    w, b, alpha = np.zeros(F.shape[1]), 0.0, np.zeros(n)
    for p, order in enumerate(orders):
        o, s, active = order.copy(), 0, n
        while s < active:
            i = o[s]
            g = sign[i] * (F[i] @ w + b) - 1.0
            if p == 2 and (alpha[i] == 0 and g > margin or alpha[i] == upper[i] and g < -margin):
                o[s], o[active - 1] = o[active - 1], o[s]
                active -= 1
                continue
            new = min(max(alpha[i] - g / qd, 0.0), upper[i])
            w += (new - alpha[i]) * sign[i] * F[i]
            b += (new - alpha[i]) * sign[i]
            alpha[i] = new
            s += 1
    skipped = o[active:].tolist()
    assert 0 < len(skipped) < n and np.any(alpha == upper)
    # the kernel with liblinear's thresholds replaced by the margin
    _, sqb, base = implicit_layout(length, degree)
    layout = solver_layout(length, degree, base)
    v, kalpha, pg = aligned_zeros(layout.size + 1), np.zeros(n), np.empty(2)
    for p, order in enumerate(orders):
        o = order.copy()
        hi, lo = (margin, -margin) if p == 2 else (np.inf, -np.inf)
        pg[:] = -np.inf, np.inf
        s, kactive = _svm_steps(X, sign, kalpha, upper, v, layout.table, sqb, degree, base, qd, 1.0, o, 0, n, n,
                                hi, lo, pg, cumulative_beta(degree))
    assert sorted(o[kactive:].tolist()) == sorted(skipped)
    np.testing.assert_allclose(kalpha, alpha, rtol=0, atol=1e-12)
    coef, bias = to_standard(v, layout)
    np.testing.assert_allclose(coef, w, rtol=0, atol=1e-10)
    assert bias == pytest.approx(b, abs=1e-10)


@pytest.mark.parametrize("extrapolate", [False, True])
def test_fast_route_with_margin_shrinking_gives_the_exact_model_and_the_same_model_twice(twenty_k, extrapolate):
    X, y, Xt, yt, exact = twenty_k
    kw = dict(degree=5, C=0.05, shrink_margin=0.0, optimum_tol=10.0, average=10.0, validation_fraction=0.005,
              validation_tol=5e-3, weight_tol=2e-2, refit=False, random_state=0, extrapolate=extrapolate)
    fast = fast_svm(X, y, **kw)
    assert fast.converged and fast.n_iter < exact.n_iter and fast.validation_rows.shape == (100,)
    acc = [np.mean((wd_scores(Xt, s.coef, s.intercept, degree=5) > 0) == yt) for s in (exact, fast)]
    assert abs(acc[0] - acc[1]) <= 0.002
    tops = [_top50_firm(s.coef, s.intercept, 24, 5) for s in (exact, fast)]
    for k, (a, b) in enumerate(zip(*tops), start=2):
        assert len(a & b) >= 45, f"order {k}: {len(a & b)} of the exact top 50"
    again = fast_svm(X, y, **kw)
    np.testing.assert_array_equal(again.coef, fast.coef)
    assert again.intercept == fast.intercept


def test_margin_shrinking_is_refused_where_it_does_not_apply():
    X, y = planted(200, 12, 3)
    with pytest.raises(SeqimpError, match="shrink_margin needs method='dcd'"):
        fast_svm(X, y, degree=3, method="sgd", shrink_margin=0.1)
    with pytest.raises(SeqimpError, match="shrink_margin must be"):
        fast_svm(X, y, degree=3, shrink_margin=-0.5)


def test_estimator_passes_margin_shrinking_and_refit_to_the_fast_route():
    X, y = planted(3000, 16, 8)
    kw = dict(degree=3, C=0.05, solver="fast", random_state=0, validation_fraction=0.1, optimum_tol=5.0)
    model = WDClassifier(shrink_margin=0.0, refit=False, **kw).fit(X, y)
    direct = fast_svm(X, y, degree=3, C=0.05, random_state=0, validation_fraction=0.1, optimum_tol=5.0,
                      shrink_margin=0.0, refit=False)
    np.testing.assert_array_equal(model.coef_, direct.coef)
    assert model.n_iter_ == direct.n_iter
    assert not np.isnan([h[0] for h in direct.history]).any()         # every pass held out: the slice never joined
    with pytest.raises(SeqimpError, match="shrink_margin must be"):
        WDClassifier(shrink_margin=-1.0, **kw).fit(X, y)



def test_extrapolation_is_refused_where_it_does_not_apply():
    X, y = planted(200, 12, 3)
    with pytest.raises(SeqimpError, match="extrapolate needs method='dcd'"):
        fast_svm(X, y, degree=3, method="sgd", extrapolate=True)


def test_keep_best_returns_the_model_of_the_best_held_out_pass():
    X, y = planted(1500, 16, 11)
    kw = dict(degree=5, C=5.0, validation_fraction=0.2, refit=False, random_state=4, validation_tol=1e-4,
              weight_tol=1e-4, max_iter=40)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        fit = fast_svm(X, y, **kw)                                   # keep_best: on, since refit=False
        last = fast_svm(X, y, keep_best=False, **kw)
    acc = [h[1] for h in fit.history]
    assert fit.best_pass is not None and last.best_pass is None
    key = [(h[1], -h[0]) for h in fit.history]
    assert fit.best_pass == 1 + max(range(len(key)), key=key.__getitem__)
    assert acc[fit.best_pass - 1] > acc[-1]                          # this data overfits: the peak is earlier
    # the model returned is the one of that pass: the same fit stopped there
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        there = fast_svm(X, y, **dict(kw, max_iter=fit.best_pass, keep_best=False))
    np.testing.assert_array_equal(fit.coef, there.coef)
    assert fit.intercept == there.intercept
    held = fit.validation_rows
    scores = wd_scores(X[held], fit.coef, fit.intercept, degree=5)
    assert np.mean((scores > 0) == y[held]) == pytest.approx(acc[fit.best_pass - 1], abs=1e-12)
    with pytest.raises(SeqimpError, match="keep_best needs refit=False"):
        fast_svm(X, y, degree=3, keep_best=True)
