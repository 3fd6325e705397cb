"""The implicit SVM route (features computed from the codes) against liblinear; memory estimates.

Tolerances: on 20,000 sequences (L=30, degree 4) both solvers stop at the same liblinear
criterion (tol=1e-2), so their objectives agree to 1e-3 relative and their decision values
correlate > 0.999; on tiny problems solved to tol=1e-10 the weights agree to 1e-6.
"""

import warnings

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning
from sklearn.svm import LinearSVC

from seqimp import SeqimpError, WDClassifier, WDRegressor, wd_features
from seqimp.kernels._dcd import dcd_svm
from seqimp.kernels._implicit import wd_scores
from seqimp.kernels._memory import training_memory
from seqimp.kernels._ridge import cg_ridge
from seqimp.kernels._dcd import svm_primal_objective
from seqimp._utils.sizes import parse_size


def noisy_data(n, length, seed=1, noise=0.1):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 4, (n, length)).astype(np.uint8)
    mid = length // 3
    signal = (X[:, mid] == 2) & (X[:, mid + 1] == 0)
    return X, (signal ^ (rng.random(n) < noise)).astype(np.int64)


@pytest.fixture(scope="module")
def big():
    X, y = noisy_data(20_000, 30)
    F = wd_features(X, degree=4)
    svm = LinearSVC(C=0.01, loss="hinge", dual=True, tol=1e-2, max_iter=1000, random_state=0).fit(F, y)
    return X, y, F, svm


def test_matches_liblinear_on_20k_sequences(big):
    X, y, F, svm = big
    sol = dcd_svm(X, y, degree=4, C=0.01, tol=1e-2)
    assert sol.converged
    ref = svm_primal_objective(X, y, svm.coef_.ravel(), svm.intercept_[0], degree=4, C=0.01)
    ours = svm_primal_objective(X, y, sol.coef, sol.intercept, degree=4, C=0.01)
    # the dual objective bounds the optimum from below, liblinear's primal from above
    assert sol.dual_objective <= ref * (1 + 1e-12)
    assert abs(sol.dual_objective - ref) / ref < 1e-3
    assert abs(ours - ref) / ref < 1e-3
    d_ours = wd_scores(X, sol.coef, sol.intercept, degree=4)
    assert np.corrcoef(d_ours, svm.decision_function(F))[0, 1] > 0.999
    # scoring without the matrix equals scoring with it
    np.testing.assert_allclose(d_ours[:500], F[:500] @ sol.coef + sol.intercept, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("noise", [0.0, 0.2], ids=["separable", "non-separable"])
@pytest.mark.parametrize("class_weight", [None, "balanced", {0: 2.0, 1: 0.5}])
def test_tiny_problem_equals_liblinear_at_tight_tol(noise, class_weight):
    rng = np.random.default_rng(5)
    X = rng.integers(0, 4, (80, 8)).astype(np.uint8)
    y = ((X[:, 2] == 1) ^ (rng.random(80) < noise)).astype(np.int64)
    y[:3] = [1, 1, 1]  # uneven classes, so that "balanced" matters
    F = wd_features(X, degree=3)
    ref = LinearSVC(C=0.5, loss="hinge", tol=1e-10, max_iter=200_000, class_weight=class_weight).fit(F, y)
    sol = dcd_svm(X, y, degree=3, C=0.5, tol=1e-10, max_iter=200_000, class_weight=class_weight)
    assert sol.converged
    np.testing.assert_allclose(sol.coef, ref.coef_.ravel(), atol=1e-6)
    assert sol.intercept == pytest.approx(ref.intercept_[0], abs=1e-6)
    primal = svm_primal_objective(X, y, sol.coef, sol.intercept, degree=3, C=0.5, class_weight=class_weight)
    assert sol.dual_objective == pytest.approx(primal, rel=1e-6)  # zero duality gap at the optimum


def test_estimator_default_route_is_implicit_and_unfolds(big):
    X, y, _, svm = big
    Xs, ys = X[:3000], y[:3000]
    model = WDClassifier(degree=4, C=0.01, tol=1e-3).fit(Xs, ys)
    assert model.method_ == "implicit"
    test = X[-500:]
    np.testing.assert_allclose(model.positional_weights().score(test), model.decision_function(test),
                               rtol=1e-9, atol=1e-9)
    old = WDClassifier(degree=4, C=0.01, tol=1e-3, method="linear").fit(Xs, ys)
    assert np.corrcoef(model.decision_function(test), old.decision_function(test))[0, 1] > 0.999
    assert np.mean(model.predict(test) == old.predict(test)) > 0.99
    # string labels and classes_ as for the other routes
    labels = np.where(ys == 1, "pos", "neg")
    named = WDClassifier(degree=4, C=0.01, tol=1e-3).fit(Xs, labels)
    np.testing.assert_array_equal(named.decision_function(test), model.decision_function(test))
    assert set(named.predict(test)) <= {"pos", "neg"}


def test_random_state_fixes_the_order_and_memmap_input_gives_the_same_model(tmp_path):
    X, y = noisy_data(2000, 20, seed=3)
    a = dcd_svm(X, y, degree=3, C=0.1, random_state=7)
    b = dcd_svm(X, y, degree=3, C=0.1, random_state=7)
    np.testing.assert_array_equal(a.coef, b.coef)
    c = dcd_svm(X, y, degree=3, C=0.1, random_state=None)
    d = dcd_svm(X, y, degree=3, C=0.1, random_state=0)  # None is seed 0
    np.testing.assert_array_equal(c.coef, d.coef)
    np.save(tmp_path / "codes.npy", X)
    mm = np.load(tmp_path / "codes.npy", mmap_mode="r")
    e = dcd_svm(mm, y, degree=3, C=0.1, random_state=7)
    np.testing.assert_array_equal(a.coef, e.coef)
    model = WDClassifier(degree=3, C=0.1, random_state=7).fit(mm, y)
    np.testing.assert_array_equal(model.coef_, a.coef)
    np.testing.assert_array_equal(model.decision_function(mm), model.decision_function(np.array(X)))


def test_max_iter_warns_and_verbose_reports_passes(capsys):
    X, y = noisy_data(500, 12, seed=4, noise=0.3)
    with pytest.warns(ConvergenceWarning, match="did not reach tol=1e-08 in max_iter=2 passes"):
        sol = dcd_svm(X, y, degree=3, tol=1e-8, max_iter=2, verbose=True)
    assert sol.n_iter == 2 and not sol.converged
    err = capsys.readouterr().err.splitlines()
    assert err[0].startswith("DCD pass 1: active 500/500, projected-gradient range ")
    assert "dual objective" in err[1]


def test_log_verbosity_computes_pass_lines_only_when_debug_is_on(monkeypatch, caplog):
    """verbose="log" (the pipeline): a pass line, and the dual objective in it, only while the
    seqimp.kernels log takes DEBUG lines (the objective is a sweep over all weights)."""
    import logging

    import seqimp.kernels._dcd as dcd

    calls = []
    real = dcd.svm_dual_objective
    monkeypatch.setattr(dcd, "svm_dual_objective", lambda *a, **k: calls.append(1) or real(*a, **k))
    X, y = noisy_data(200, 10, seed=5, noise=0.3)
    with caplog.at_level(logging.INFO, logger="seqimp.kernels"):
        quiet = dcd_svm(X, y, degree=3, verbose="log")
    assert len(calls) == 1 and not caplog.records  # the solution's objective only
    with caplog.at_level(logging.DEBUG, logger="seqimp.kernels"):
        loud = dcd_svm(X, y, degree=3, verbose="log")
    assert len(calls) == 2 + loud.n_iter
    assert sum(r.getMessage().startswith("DCD pass") for r in caplog.records) == loud.n_iter
    np.testing.assert_array_equal(quiet.coef, loud.coef)


@pytest.mark.parametrize("problem", ["svm", "ridge"])
def test_memory_estimate_matches_the_traced_peak_of_each_solver(problem):
    # tracemalloc sees every numpy allocation of a fit; the estimate must be that peak within
    # [0.9, 1.5]. Degree 5 leaves order 5 unpaired, so the SVM's paired-layout formula
    # under-estimates ridge's three standard-layout vectors by a quarter (and fails here).
    import tracemalloc

    rng = np.random.default_rng(0)
    n, length, degree = 800, 60, 5
    X = rng.integers(0, 4, (n, length)).astype(np.uint8)
    y = rng.normal(size=n)
    fit = ((lambda: cg_ridge(X, y, degree=degree, max_iter=5)) if problem == "ridge" else
           (lambda: dcd_svm(X, (y > 0).astype(int), degree=degree, max_iter=3)))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        fit()                                   # compile outside the trace
        tracemalloc.start()
        try:
            fit()
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
    est = training_memory(n, length, degree, 4, "implicit", problem=problem)
    assert 0.9 * peak <= est <= 1.5 * peak, (est, peak)


def test_ridge_memory_estimate_and_problem_check():
    p = 30 * 4 + 29 * 4 ** 2 + 28 * 4 ** 3
    assert training_memory(1000, 30, 3, 4, "implicit", problem="ridge") == 24 * p + 80 * 1000
    with pytest.raises(SeqimpError, match="problem must be 'svm' or 'ridge', got 'lasso'"):
        training_memory(1000, 30, 3, 4, "implicit", problem="lasso")


def test_memory_budget_refuses_before_allocating():
    X, y = noisy_data(1000, 30)
    need = training_memory(1000, 30, 4, 4, "linear")
    assert need == 30 * 1000 * (30 + 29 + 28 + 27)
    # implicit: the solver's vector (records of 8 slots per position and 1-mer / 3-mer, bias) + coef + 40 n
    p = 30 * 4 + 29 * 4 ** 2 + 28 * 4 ** 3 + 27 * 4 ** 4
    assert training_memory(1000, 30, 4, 4, "implicit") == 8 * (8 * (30 * 4 + 28 * 4 ** 3) + 1) + 8 * p + 40 * 1000
    assert training_memory(1000, 30, 3, 4, "implicit") == (8 * (8 * 30 * 4 + 28 * 4 ** 3 + 1)
                                                            + 8 * (30 * 4 + 29 * 4 ** 2 + 28 * 4 ** 3) + 40 * 1000)
    with pytest.raises(SeqimpError, match=r"method='linear' on 1,000 sequences of length 30 at degree 4 needs "
                                          r"about 3\.26 MiB .* more than memory_budget \(1 MiB\); use "
                                          r"method='implicit' .*encode_fasta_to_store"):
        WDClassifier(degree=4, method="linear", memory_budget="1MB").fit(X, y)
    with pytest.raises(SeqimpError, match=r"the implicit route on 1,000 sequences .* needs about .* more than "
                                          r"memory_budget \(9\.77 KiB\); use a smaller degree"):
        WDRegressor(degree=4, memory_budget=10_000).fit(X, y.astype(float))
    with pytest.raises(SeqimpError, match="memory_budget must be a size such as 4G, 500M, 1.5GiB or a number of bytes, got 'lots'"):
        WDClassifier(degree=4, memory_budget="lots").fit(X, y)
    assert parse_size("1.5 GiB") == parse_size("1.5G") == parse_size("1.5gb") == int(1.5 * 2 ** 30)
    assert parse_size("1000") == parse_size(1000.0) == 1000
    WDClassifier(degree=4, C=0.01, tol=1e-2, memory_budget="10MB").fit(X, y)  # fits in the budget


def test_bad_arguments():
    X, y = noisy_data(50, 10)
    with pytest.raises(SeqimpError, match="y must hold labels 0 and 1"):
        dcd_svm(X, y + 1, degree=2)
    with pytest.raises(SeqimpError, match="X has 50 sequences but y has 49 labels"):
        dcd_svm(X, y[:49], degree=2)
    with pytest.raises(SeqimpError, match=r"C must be a number in \(0, inf\)"):
        dcd_svm(X, y, degree=2, C=0)
    with pytest.raises(SeqimpError, match="max_iter must be a positive integer"):
        dcd_svm(X, y, degree=2, max_iter=0)
    with pytest.raises(SeqimpError, match=r"X: sequence 0: code [5-8] at position 1 is outside 0..4 \(alphabet dna; "
                                          r"4 is unknown\)"):
        dcd_svm(X + 5, y, degree=2)
    with pytest.raises(SeqimpError, match="coef has 3 entries"):
        wd_scores(X, np.zeros(3), degree=2)
    with pytest.raises(SeqimpError, match="method='implicit' needs shifts=0"):
        WDClassifier(degree=2, shifts=1, method="implicit").fit(X, y)
    with pytest.raises(SeqimpError, match="client= trains the implicit route only"):
        WDClassifier(degree=2, shifts=1, client=object()).fit(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        dcd_svm(X, y, degree=2)  # converges: no warning


def _one_at_a_time(F, sign, upper, order, passes):
    """Plain dual coordinate descent on the explicit features, no shrinking: the slow reference."""
    F = F.tocsr()
    qd = np.asarray(F.multiply(F).sum(axis=1)).ravel() + 1.0
    w = np.zeros(F.shape[1])
    b = 0.0
    alpha = np.zeros(F.shape[0])
    for _ in range(passes):
        for i in order:
            row = F.getrow(i)
            g = sign[i] * (row.dot(w)[0] + b) - 1.0
            new = min(max(alpha[i] - g / qd[i], 0.0), upper[i])
            d = (new - alpha[i]) * sign[i]
            alpha[i] = new
            w[row.indices] += d * row.data
            b += d
    return alpha, w, b


def _kernel_passes(X, sign, upper, order, degree, passes=3, paired=True):
    """``passes`` passes of the solver's kernel without shrinking, in chunks of 40 rows.

    Returns the dual variables, the weights in the standard layout, the bias and the solver's own vector."""
    from seqimp.kernels._dcd import _svm_steps, cumulative_beta
    from seqimp.kernels._implicit import implicit_layout, row_norm2
    from seqimp.kernels._layout import aligned_zeros, solver_layout, to_standard

    n, length = X.shape
    _, sqb, base = implicit_layout(length, degree)
    layout = solver_layout(length, degree, base, paired=paired)
    w = aligned_zeros(layout.size + 1)
    alpha = np.zeros(n)
    pg = np.array([-np.inf, np.inf])
    qd = row_norm2(length, degree) + 1.0
    for _ in range(passes):
        o = order.copy()
        for s in range(0, n, 40):
            args = (X, sign, alpha, upper, w, layout.table, sqb, degree, base, qd, 1.0, o, s, s + 40, n, np.inf,
                    -np.inf, pg, cumulative_beta(degree))
            s_new, active = _svm_steps(*args)
            assert (s_new, active) == (min(s + 40, n), n)
        np.testing.assert_array_equal(o, order)   # without shrinking the order is untouched
    coef, bias = to_standard(w, layout)
    return alpha, coef, bias, w


def test_kernel_steps_equal_dcd_on_explicit_features():
    """The kernel (row addresses, gather, step, scatter) gives the iterates of plain DCD on wd_features."""
    rng = np.random.default_rng(3)
    n, length, degree = 157, 12, 5            # 157: blocks end inside a chunk and at its end
    X = rng.integers(0, 2, (n, length)).astype(np.uint8)   # two letters: long shared runs, big corrections
    y = (X[:, 4] == 1) ^ (rng.random(n) < 0.2)
    sign = np.where(y, 1.0, -1.0)
    upper = np.full(n, 0.5)
    order = rng.permutation(n)
    ref_alpha, ref_w, ref_b = _one_at_a_time(wd_features(X, degree=degree), sign, upper, order, passes=3)
    alpha, w, b, _ = _kernel_passes(X, sign, upper, order, degree)
    np.testing.assert_allclose(alpha, ref_alpha, rtol=0, atol=1e-12)
    np.testing.assert_allclose(w, ref_w, rtol=0, atol=1e-12)
    assert b == pytest.approx(ref_b, abs=1e-12)
    assert 0 < np.count_nonzero(ref_alpha) and np.any(ref_alpha == 0.5)   # free and bounded coordinates both occur


@pytest.mark.parametrize("degree", [4, 5], ids=["even degree", "odd degree"])
def test_paired_layout_takes_the_same_steps_as_the_standard_layout(degree):
    """Same additions in the same order at other addresses: bit for bit the iterates of the standard layout,
    the padding slots are never touched (||w|| is the standard one)."""
    from seqimp.kernels._dcd import svm_dual_objective

    rng = np.random.default_rng(6)
    n, length = 203, 11
    X = rng.integers(0, 4, (n, length)).astype(np.uint8)
    y = (X[:, 3] == 2) ^ (rng.random(n) < 0.2)
    sign = np.where(y, 1.0, -1.0)
    upper = np.full(n, 0.3)
    order = rng.permutation(n)
    a1, w1, b1, full1 = _kernel_passes(X, sign, upper, order, degree, paired=False)
    a2, w2, b2, full2 = _kernel_passes(X, sign, upper, order, degree, paired=True)
    assert full2.size > full1.size and np.count_nonzero(w1) > 0
    np.testing.assert_array_equal(a1, a2)
    np.testing.assert_array_equal(w1, w2)
    assert b1 == b2
    # every non-zero of the paired vector is a weight of the standard one: padding stays 0
    assert np.count_nonzero(full2) == np.count_nonzero(full1)
    assert svm_dual_objective(full2, a2) == pytest.approx(svm_dual_objective(full1, a1), rel=1e-14)


def test_dcd_svm_is_bit_identical_on_both_layouts(monkeypatch):
    from seqimp.kernels import _layout

    X, y = noisy_data(1500, 15, seed=9, noise=0.15)
    for n_jobs in (None, 2):      # two threads, deterministic: one thread steps every row
        paired = dcd_svm(X, y, degree=5, C=0.2, tol=1e-3, n_jobs=n_jobs, deterministic=True)
        monkeypatch.setattr(_layout, "PAIRING", False)
        standard = dcd_svm(X, y, degree=5, C=0.2, tol=1e-3, n_jobs=n_jobs, deterministic=True)
        monkeypatch.setattr(_layout, "PAIRING", True)
        assert paired.n_iter == standard.n_iter > 2
        np.testing.assert_array_equal(paired.coef, standard.coef)
        np.testing.assert_array_equal(paired.dual_coef, standard.dual_coef)
        assert paired.intercept == standard.intercept
        assert paired.dual_objective == pytest.approx(standard.dual_objective, rel=1e-13)


def test_threads_and_shrinking_keep_the_model():
    X, y = noisy_data(3_000, 20, seed=4, noise=0.15)
    one = dcd_svm(X, y, degree=4, C=0.5, tol=1e-3)
    two = dcd_svm(X, y, degree=4, C=0.5, tol=1e-3, n_jobs=2)
    assert one.converged and two.converged
    # one thread and two sharing the weights: the same optimum (liblinear's rule on exact weights)
    assert two.dual_objective == pytest.approx(one.dual_objective, rel=1e-6)
    assert np.corrcoef(one.coef, two.coef)[0, 1] > 0.99999
    # the kept model is the one of its dual variables: w = sum_i y_i a_i phi_i (nothing lost in shrinking)
    sign = np.where(y == 1, 1.0, -1.0)
    F = wd_features(X, degree=4)
    for sol in (one, two):
        np.testing.assert_allclose(sol.coef, F.T @ (sign * sol.dual_coef), rtol=0, atol=1e-9)
        assert sol.intercept == pytest.approx(np.dot(sign, sol.dual_coef), abs=1e-9)


def test_n_jobs_is_checked():
    X, y = noisy_data(50, 10)
    with pytest.raises(SeqimpError, match="n_jobs must be a positive number of threads"):
        dcd_svm(X, y, degree=3, n_jobs=0)
    with pytest.raises(SeqimpError, match="n_jobs"):
        WDClassifier(degree=3, n_jobs=-2).fit(X, y)




def test_a_warm_start_reaches_the_same_optimum_in_fewer_passes():
    """alpha_init is only the start: from a fit on the same rows with 40 of them changed (sites
    erased, as the motif rounds do), the dual objective equals the cold fit's at tol 1e-8 (both
    at liblinear's rule; 1e-9 relative) and the weights agree to 1e-5; N rows included, so the
    weights rebuilt from the start cover unknown bases."""
    X, y = noisy_data(600, 16, seed=9, noise=0.2)
    X[::50, 3] = 4  # N
    first = dcd_svm(X, y, degree=4, tol=1e-8, random_state=1)
    changed = X.copy()
    changed[:40, 5:9] = np.random.default_rng(2).integers(0, 4, (40, 4))
    cold = dcd_svm(changed, y, degree=4, tol=1e-8, random_state=1)
    warm = dcd_svm(changed, y, degree=4, tol=1e-8, random_state=1, alpha_init=first.dual_coef)
    assert warm.converged and warm.n_iter < cold.n_iter
    assert warm.dual_objective == pytest.approx(cold.dual_objective, rel=1e-9)
    np.testing.assert_allclose(warm.coef, cold.coef, atol=1e-5)
    assert warm.intercept == pytest.approx(cold.intercept, abs=1e-5)
    # the start is clipped to the box [0, C]; a wrong shape is refused
    wild = dcd_svm(changed, y, degree=4, tol=1e-8, random_state=1, alpha_init=first.dual_coef * 50 - 3)
    assert wild.dual_objective == pytest.approx(cold.dual_objective, rel=1e-9)
    with pytest.raises(SeqimpError, match="alpha_init must hold 600 finite values"):
        dcd_svm(changed, y, degree=4, alpha_init=np.zeros(5))


def test_estimator_warm_start_and_its_route():
    X, y = noisy_data(300, 12, seed=3, noise=0.2)
    first = WDClassifier(degree=3, tol=1e-8, random_state=0).fit(X, y)
    assert first.dual_coef_.shape == (300,)
    np.testing.assert_array_equal(np.sign(first.dual_coef_[first.dual_coef_ != 0]),
                                  np.where(y[first.dual_coef_ != 0] == 1, 1.0, -1.0))
    warm = WDClassifier(degree=3, tol=1e-8, random_state=0).fit(X, y, alpha_init=np.abs(first.dual_coef_))
    assert warm.n_iter_ <= 2 and warm.dual_objective_ == pytest.approx(first.dual_objective_, rel=1e-12)
    assert WDClassifier(degree=3).starts_from_duals(300)
    refit = WDClassifier(degree=3, tol=1e-8, random_state=0).fit(X, y)
    refit.set_params(solver="sgd").fit(X, y)
    assert not hasattr(refit, "dual_coef_")  # none from the earlier route's fit
    for other in (WDClassifier(degree=3, shifts=1), WDClassifier(degree=3, solver="sgd"),
                  WDClassifier(degree=3, method="linear")):
        assert not other.starts_from_duals(300)
        with pytest.raises(SeqimpError, match="alpha_init starts the exact dual coordinate descent only"):
            other.fit(X, y, alpha_init=np.zeros(300))
