"""Dual coordinate descent on threads sharing the weights: the exact optimum, exact weights, thread counts."""

import numpy as np
import pytest

import seqimp
from seqimp.kernels import WDClassifier, wd_features
from seqimp.kernels._dcd import dcd_svm
from seqimp.kernels._sgd import fast_svm
from seqimp.kernels import _estimators
from seqimp.kernels._async_dcd import AsyncPasses, low_orders, rebuild_weights
from seqimp.kernels._dcd import svm_start
from seqimp.kernels._layout import solver_layout, to_standard


def planted(n, length, seed, noise=0.15):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 4, (n, length)).astype(np.uint8)
    y = ((X[:, length // 2] == 2) & (X[:, length // 2 + 1] == 0)) | (X[:, 3] == 3)
    return X, (y ^ (rng.random(n) < noise)).astype(np.int64)


def _kkt_violation(X, y, sol, degree, C):
    """Largest violation of the SVM's optimality conditions, from explicit features (the slow way):
    g_i = y_i (w.phi_i + b) - 1 must be >= 0 at a_i = 0, <= 0 at a_i = C, 0 between."""
    sign = np.where(y == 1, 1.0, -1.0)
    g = sign * (wd_features(X, degree=degree) @ sol.coef + sol.intercept) - 1.0
    a = sol.dual_coef
    lower, upper = a <= 0.0, a >= C
    free = ~lower & ~upper
    return max(np.max(-g[lower], initial=0.0), np.max(g[upper], initial=0.0), np.max(np.abs(g[free]), initial=0.0))


@pytest.mark.parametrize("threads", [2, 3])
def test_shared_weight_passes_reach_the_exact_optimum(threads):
    X, y = planted(2500, 20, 1)
    C, degree, tol = 0.5, 4, 1e-5
    one = dcd_svm(X, y, degree=degree, C=C, tol=tol)
    many = dcd_svm(X, y, degree=degree, C=C, tol=tol, n_jobs=threads)
    assert one.converged and many.converged
    # liblinear's rule holds on the returned weights, which are exactly those of the dual variables
    assert _kkt_violation(X, y, many, degree, C) <= tol
    sign = np.where(y == 1, 1.0, -1.0)
    np.testing.assert_allclose(many.coef, wd_features(X, degree=degree).T @ (sign * many.dual_coef), rtol=0,
                               atol=1e-10)
    assert many.dual_objective == pytest.approx(one.dual_objective, rel=1e-7)
    np.testing.assert_allclose(many.coef, one.coef, rtol=0, atol=1e-4 * np.abs(one.coef).max())


def test_a_pass_keeps_the_low_orders_exact_and_raises_the_dual():
    """After a pass on two threads the weights the threads' additions collide on (orders 1..k0, the bias)
    are exactly those of the dual variables; the higher orders at most lose a rare addition."""
    X, y = planted(3000, 30, 2)
    degree = 6
    sqb, base, sign, upper, qd, layout, w, alpha = svm_start(y, 1.0, None, 30, degree, seqimp.get_alphabet("dna"))
    passes = AsyncPasses(X, sign, alpha, upper, layout, sqb, degree, base, qd, 2, refresh_rows=256)
    assert passes.k0 == 4
    order = np.random.default_rng(0).permutation(3000).astype(np.int64)
    duals = []
    for _ in range(3):
        active, pg_max, pg_min = passes.run(w, order, 3000, np.inf, -np.inf)
        assert active == 3000 and pg_max >= pg_min
        np.testing.assert_array_equal(np.sort(order), np.arange(3000))
        exact = np.zeros_like(w)
        rebuild_weights(X, sign, alpha, exact, layout, sqb, degree, base)
        np.testing.assert_allclose(w[:passes.end], exact[:passes.end], rtol=0, atol=1e-12)
        assert w[-1] == pytest.approx(exact[-1], abs=1e-12)
        assert np.linalg.norm(w - exact) <= 0.05 * np.linalg.norm(exact)     # a rare lost addition (0.2-2%)
        assert np.all((alpha >= 0) & (alpha <= upper))
        duals.append(alpha.sum() - 0.5 * exact @ exact)
    assert duals[0] < duals[1] < duals[2]


def test_rebuilt_weights_are_the_dual_expansion_for_every_thread_count():
    X, y = planted(700, 15, 3)
    degree = 5
    sqb, base, sign, upper, qd, layout, w, alpha = svm_start(y, 1.0, None, 15, degree, seqimp.get_alphabet("dna"))
    alpha[:] = np.random.default_rng(4).uniform(0, 1, 700) * (np.arange(700) % 3 > 0)
    runs = []
    for threads in (1, 2, 3):
        rebuild_weights(X, sign, alpha, w, layout, sqb, degree, base, threads)
        runs.append(w.copy())
    coef, bias = to_standard(runs[0], layout)
    np.testing.assert_allclose(coef, wd_features(X, degree=degree).T @ (sign * alpha), rtol=1e-12, atol=1e-12)
    assert bias == pytest.approx(np.dot(sign, alpha), rel=1e-12)
    for other in runs[1:]:
        np.testing.assert_array_equal(other, runs[0])


def test_low_orders_fit_the_cache_and_end_on_a_record():
    dna8 = solver_layout(141, 8, 4)
    k0, end = low_orders(dna8)
    assert k0 == 4 and end == dna8.table[0, 4]               # orders 1-4: records of pairs (1, 2), (3, 4)
    assert low_orders(solver_layout(12, 3, 4)) == (3, solver_layout(12, 3, 4).size)   # small: every order
    protein = solver_layout(100, 4, 20)                       # standard layout: any order ends a block
    assert low_orders(protein) == (2, int(protein.offsets[2]))
    assert low_orders(solver_layout(100, 3, 20), max_weights=10) == (0, 0)


def test_deterministic_is_bit_identical_across_thread_counts():
    X, y = planted(1500, 16, 5)
    kw = dict(degree=4, C=0.3, random_state=2)
    for fit in (lambda n: dcd_svm(X, y, tol=1e-3, n_jobs=n, deterministic=True, **kw),
                lambda n: fast_svm(X, y, n_jobs=n, deterministic=True, extrapolate=True, **kw)):
        runs = [fit(n) for n in (None, 1, 2, 3)]
        for other in runs[1:]:
            np.testing.assert_array_equal(other.coef, runs[0].coef)
            assert other.intercept == runs[0].intercept and other.n_iter == runs[0].n_iter
    models = [WDClassifier(degree=4, C=0.3, n_jobs=n, deterministic=True).fit(X, y) for n in (1, 2)]
    np.testing.assert_array_equal(models[0].coef_, models[1].coef_)
    assert models[1].n_threads_ == 1


def test_default_threads_are_one_and_minus_one_is_every_available_core(monkeypatch):
    from seqimp.kernels import _dcd

    X, y = planted(400, 12, 6)
    assert WDClassifier(degree=3).fit(X, y).n_threads_ == 1            # one thread, reproducible
    monkeypatch.setattr(_estimators, "AUTO_FAST_FROM", 300)
    monkeypatch.setattr(_dcd, "available_cores", lambda: 2)
    assert WDClassifier(degree=3, validation_fraction=0.1).fit(X, y).n_threads_ == 1
    big = WDClassifier(degree=3, validation_fraction=0.1, n_jobs=-1).fit(X, y)
    assert big.solver_ == "fast" and big.n_threads_ == 2
    assert WDClassifier(degree=3, n_jobs=1).fit(X, y).n_threads_ == 1
    assert WDClassifier(degree=3, deterministic=True).fit(X, y).n_threads_ == 1
    with pytest.raises(seqimp.SeqimpError, match="deterministic must be True or False"):
        WDClassifier(degree=3, deterministic="yes").fit(X, y)
