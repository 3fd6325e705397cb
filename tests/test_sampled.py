"""Sampled POIM/FIRM, in-silico mutagenesis and scorer loading (seqimp.importance._sampled, _ism, _scorers)."""

import itertools
import sys

import joblib
import numpy as np
import pytest
from sklearn.ensemble import GradientBoostingClassifier
from sklearn.linear_model import LogisticRegression

from seqimp import SeqimpError
from seqimp.io import decode, encode, kmer_index, window_indices
from seqimp.background import MarkovBackground
from seqimp.importance import POIMResult
from seqimp.importance import ism
from seqimp.importance import poim_sampled, position_summary
from seqimp.scorers import load_scorer, load_sklearn_model, onehot, sklearn_scorer
from seqimp.kernels import PositionalWeights


def random_weights(rng, length, degree, bias=0.0):
    return PositionalWeights([rng.normal(size=(length - k + 1, 4 ** k)) for k in range(1, degree + 1)], bias)


def random_background(rng, order, length=None, concentration=4.0):
    """Order-D chain; position-specific when ``length`` is given."""
    initial = rng.dirichlet(np.full(4 ** order, concentration)) if order else np.array([1.0])
    shape = (length - order, 4 ** order) if length else (4 ** order,)
    return MarkovBackground.from_arrays(initial, rng.dirichlet(np.full(4, concentration), size=shape))


def assert_within_se(est, se, truth, n_se=4.0, atol=1e-9):
    """|est - truth| <= n_se * se (+ atol for entries the estimator gets exactly) everywhere."""
    for k, (e, s, t) in enumerate(zip(est, se, truth), start=1):
        gap = np.abs(e - t) - n_se * s
        worst = np.unravel_index(np.argmax(gap), gap.shape)
        assert gap[worst] <= atol * max(1.0, np.abs(t).max()), (
            f"k={k} start={worst[0]} z={worst[1]}: estimate {e[worst]:.6g} vs {t[worst]:.6g}, se {s[worst]:.3g}")


def brute_force_poim(score_fn, background, length, max_order):
    """POIM and FIRM by enumerating all 4**L sequences with the chain's probabilities."""
    seqs = np.array(list(itertools.product(range(4), repeat=length)), dtype=np.uint8)
    p = np.exp(background.log_prob(seqs))
    s = score_fn(seqs)
    mu = p @ s
    poim, firm = [], []
    for k in range(1, max_order + 1):
        idx = window_indices(seqs, k)
        pi = np.array([np.bincount(idx[:, j], weights=p, minlength=4 ** k) for j in range(length - k + 1)])
        cond = np.array([np.bincount(idx[:, j], weights=p * s, minlength=4 ** k)
                         for j in range(length - k + 1)]) / pi
        rest = (mu - pi * cond) / (1 - pi)            # E[s | z not at j]
        poim.append(cond - mu)
        firm.append((cond - rest) * np.sqrt(pi * (1 - pi)))
    return poim, firm, mu


# ------------------------------------------------------------------ agreement with exact answers

@pytest.mark.parametrize("order, positional", [(0, True), (1, False), (2, True)])
def test_linear_scorer_agrees_with_exact_engine(order, positional):
    from seqimp.importance import poim

    rng = np.random.default_rng(order)
    length, max_order = 10, 4                      # max_order above the degree
    weights = random_weights(rng, length, 3, bias=0.5)
    bg = random_background(rng, order, length if positional else None)
    exact = poim(weights, bg, max_order)
    est = poim_sampled(weights.score, bg, max_order, length=length, n_samples=300, random_state=11)
    assert est.method == "sampled" and est.max_order == max_order
    for k in range(1, max_order + 1):
        assert est.poim[k - 1].shape == (length - k + 1, 4 ** k)
    assert_within_se(est.poim, est.poim_se, exact.poim)
    assert_within_se(est.firm, est.firm_se, exact.firm)
    assert abs(est.expected_score - exact.expected_score) <= 4 * est.meta["expected_score_se"]


def test_wd_model_agrees_with_exact_engine():
    from seqimp.kernels import WDClassifier
    from seqimp.importance import poim

    rng = np.random.default_rng(5)
    length = 12
    X = rng.integers(0, 4, size=(200, length)).astype(np.uint8)
    y = (window_indices(X, 2)[:, 5] == kmer_index("GA")).astype(int)
    X[y == 0, 5] = rng.integers(0, 4, size=(y == 0).sum())
    model = WDClassifier(degree=3).fit(X, y)
    bg = MarkovBackground(order=1).fit(X)
    exact = poim(model, bg, 3)
    est = poim_sampled(model.decision_function, bg, 3, length=length, n_samples=200, random_state=3)
    assert_within_se(est.poim, est.poim_se, exact.poim)
    assert_within_se(est.firm, est.firm_se, exact.firm)


@pytest.mark.parametrize("order, positional", [(1, False), (2, True)])
def test_nonlinear_scorer_agrees_with_brute_force_under_markov(order, positional):
    # a non-linear score: no exact engine applies; conditional expectations by enumeration
    rng = np.random.default_rng(10 + order)
    length, max_order = 5, 3
    w = random_weights(rng, length, 2)

    def score(X):
        s = w.score(X)
        return np.sin(s) + s ** 2 / 4

    bg = random_background(rng, order, length if positional else None)
    poim_bf, firm_bf, mu = brute_force_poim(score, bg, length, max_order)
    est = poim_sampled(score, bg, max_order, length=length, n_samples=400, random_state=1)
    assert_within_se(est.poim, est.poim_se, poim_bf)
    assert_within_se(est.firm, est.firm_se, firm_bf)


def test_order0_single_position_scorer_is_exact():
    # s = sum_p w[p, x_p] under an order-0 background: Q(a, j) = w[j, a] - sum_b pi_j(b) w[j, b]
    # for every sample, so the estimate is exact and its standard error 0.
    rng = np.random.default_rng(2)
    length = 7
    w = random_weights(rng, length, 1, bias=3.0)
    bg = random_background(rng, 0, length)
    est = poim_sampled(w.score, bg, 1, n_samples=5, random_state=0)
    pi = np.array([bg.marginal(1, j) for j in range(length)])
    q = w.tables[0] - (pi * w.tables[0]).sum(axis=1, keepdims=True)
    np.testing.assert_allclose(est.poim[0], q, atol=1e-12)
    np.testing.assert_allclose(est.firm[0], q * np.sqrt(pi / (1 - pi)), atol=1e-12)
    np.testing.assert_allclose(est.poim_se[0], 0, atol=1e-12)


def test_nonlinear_model_recovers_planted_motif():
    rng = np.random.default_rng(0)
    length, n = 20, 600
    X = rng.integers(0, 4, size=(n, length)).astype(np.uint8)
    y = np.arange(n) % 2
    X[y == 1, 8:12] = encode("GATA")[0]
    model = GradientBoostingClassifier(n_estimators=40, max_depth=3, random_state=0).fit(onehot(X), y)
    bg = MarkovBackground.uniform()
    res = poim_sampled(sklearn_scorer(model), bg, 4, length=length, n_samples=40, random_state=0)
    top = res.top(1, measure="firm")
    assert (top["oligomer"][0], top["order"][0], top["position"][0]) == ("GATA", 4, 9)
    assert np.unravel_index(np.nanargmax(res.poim[3]), res.poim[3].shape) == (8, kmer_index("GATA"))
    profile = np.nansum(position_summary(res), axis=0)
    assert set(np.argsort(profile)[-4:]) <= set(range(8, 13))


# ------------------------------------------------------------------ estimator mechanics

class CountingScorer:
    batches_in_threads = False    # it records the calls in their order: one batch at a time

    def __init__(self, fn):
        self.fn, self.calls, self.rows = fn, [], []

    def __call__(self, X):
        self.calls.append(X.shape[0])
        self.rows.append(X.copy())
        return self.fn(X)


def test_batches_seed_positions_and_call_count():
    rng = np.random.default_rng(4)
    length = 9
    w = random_weights(rng, length, 2)
    bg = random_background(rng, 1)
    counter = CountingScorer(w.score)
    a = poim_sampled(counter, bg, 2, length=length, n_samples=20, batch_size=30, random_state=7)
    assert sum(counter.calls) == a.meta["score_calls"] == 20 * (1 + 9 * 4 + 8 * 16)
    assert max(counter.calls[1:]) <= 30
    b = poim_sampled(w.score, bg, 2, length=length, n_samples=20, random_state=7)   # other batching
    c = poim_sampled(w.score, bg, 2, length=length, n_samples=20, random_state=7)
    d = poim_sampled(w.score, bg, 2, length=length, n_samples=20, random_state=8)
    for k in range(2):
        np.testing.assert_allclose(a.poim[k], b.poim[k], rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(a.poim_se[k], b.poim_se[k], rtol=1e-8, atol=1e-12)
        np.testing.assert_array_equal(b.poim[k], c.poim[k])
        assert not np.allclose(b.poim[k], d.poim[k])
    e = poim_sampled(w.score, bg, 2, length=length, n_samples=20, random_state=7, positions=[0, 8])
    assert e.meta["positions"] == [0, 8]
    np.testing.assert_allclose(e.poim[0][[0, 8]], b.poim[0][[0, 8]], rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(e.poim[1][0], b.poim[1][0], rtol=1e-10, atol=1e-12)
    assert np.isnan(e.poim[0][1:8]).all() and np.isnan(e.poim[1][1:]).all()
    assert np.isnan(position_summary(e)[1, 2:8]).all()


def test_impossible_kmers_are_nan_and_progress(capsys):
    # position 2 can never be "A": POIM of k-mers with A there is undefined (NaN), FIRM is 0
    # (pi = 0), as in the exact engine
    trans = np.full((6, 1, 4), 0.25)
    trans[2, 0] = [0.0, 1 / 3, 1 / 3, 1 / 3]
    bg = MarkovBackground.from_arrays([1.0], trans)
    res = poim_sampled(lambda X: X.sum(axis=1).astype(float), bg, 2, n_samples=10, random_state=0,
                       progress=True)
    assert np.isnan(res.poim[0][2, 0]) and res.firm[0][2, 0] == 0 and res.firm_se[0][2, 0] == 0
    assert np.isfinite(res.poim[0][2, 1:]).all()
    assert np.isnan(res.poim[1][1, [0, 4, 8, 12]]).all() and np.isnan(res.poim[1][2, :4]).all()
    assert "sampled POIM" in capsys.readouterr().err


def test_near_certain_kmer_has_zero_firm_as_in_the_exact_engine():
    # P(T at 3) = 1 - 1e-14: the feature is constant up to rounding, FIRM 0 in both routes
    from seqimp.importance import poim

    trans = np.full((6, 1, 4), 0.25)
    trans[3, 0] = [1e-14 / 3] * 3 + [1 - 1e-14]
    bg = MarkovBackground.from_arrays([1.0], trans)
    weights = PositionalWeights([np.random.default_rng(0).normal(size=(6, 4))])
    res = poim_sampled(weights.score, bg, 1, n_samples=20, random_state=0)
    assert res.firm[0][3, 3] == 0.0 == poim(weights, bg, 1).firm[0][3, 3]


def test_position_summary_by_loops():
    rng = np.random.default_rng(9)
    length = 6
    tables = [rng.normal(size=(length - k + 1, 4 ** k)) for k in (1, 2, 3)]
    res = POIMResult(tables, [2 * t for t in tables], expected_score=0.0, score_std=1.0)
    got = position_summary(res)
    for k, t in enumerate(tables, start=1):
        for p in range(length):
            want = sum(2 * np.abs(t[j]).sum() for j in range(max(0, p - k + 1), min(p, length - k) + 1))
            assert got[k - 1, p] == pytest.approx(want)
    np.testing.assert_allclose(position_summary(res, measure="poim"), got / 2)


def test_bad_arguments():
    bg = MarkovBackground.uniform()
    score = lambda X: X.sum(axis=1).astype(float)  # noqa: E731
    with pytest.raises(SeqimpError, match="homogeneous background has no length"):
        poim_sampled(score, bg, 2)
    with pytest.raises(SeqimpError, match="max_order=7 exceeds the sequence length 6"):
        poim_sampled(score, bg, 7, length=6)
    with pytest.raises(SeqimpError, match="n_samples must be at least 2"):
        poim_sampled(score, bg, 1, length=6, n_samples=1)
    with pytest.raises(SeqimpError, match=r"positions: start 6 is outside 0\.\.5"):
        poim_sampled(score, bg, 1, length=6, positions=[0, 6])
    with pytest.raises(SeqimpError, match=r"score_fn returned shape \(3,\) for \d+ sequences"):
        poim_sampled(lambda X: np.zeros(3), bg, 1, length=6, n_samples=4)
    with pytest.raises(SeqimpError, match="non-finite scores"):
        poim_sampled(lambda X: np.full(len(X), np.nan), bg, 1, length=6, n_samples=4)
    with pytest.raises(SeqimpError, match="batch_size must be a positive integer, got 'many'"):
        poim_sampled(score, bg, 1, length=6, batch_size="many")
    with pytest.raises(SeqimpError, match="max_order must be a positive integer, got 0"):
        poim_sampled(score, bg, 0, length=6)
    with pytest.raises(SeqimpError, match="background must be a seqimp.MarkovBackground"):
        poim_sampled(score, "uniform", 1, length=6)


# ------------------------------------------------------------------ in-silico mutagenesis

def test_ism_of_linear_positional_model_is_weight_difference():
    rng = np.random.default_rng(1)
    length = 11
    w = random_weights(rng, length, 1, bias=-2.0)
    X = rng.integers(0, 4, size=(6, length)).astype(np.uint8)
    delta = ism(w.score, X)
    want = w.tables[0][None, :, :] - w.tables[0][np.arange(length), X][:, :, None]
    np.testing.assert_allclose(delta, want, atol=1e-12)
    assert (delta[np.arange(6)[:, None], np.arange(length), X] == 0).all()


@pytest.mark.parametrize("batch_size", [1, 7, 34, 10_000])
def test_ism_calls_each_variant_once(batch_size):
    rng = np.random.default_rng(3)
    length, n = 8, 5
    w = random_weights(rng, length, 2)
    X = rng.integers(0, 4, size=(n, length)).astype(np.uint8)
    counter = CountingScorer(w.score)
    delta = ism(counter, X, batch_size=batch_size)
    assert sum(counter.calls) == n * (3 * length + 1) and max(counter.calls) <= batch_size
    rows = np.concatenate(counter.rows).reshape(n, 3 * length + 1, length)
    for i in range(n):   # the reference and each single substitution exactly once
        np.testing.assert_array_equal(rows[i, 0], X[i])
        changed = rows[i, 1:] != X[i]
        assert (changed.sum(axis=1) == 1).all()
        assert len({r.tobytes() for r in rows[i]}) == 3 * length + 1
    # brute force: every variant scored on its own
    for i in range(n):
        for p in range(length):
            for a in range(4):
                v = X[i].copy()
                v[p] = a
                assert delta[i, p, a] == pytest.approx(w.score(v[None])[0] - w.score(X[i:i + 1])[0], abs=1e-12)


def test_ism_strings_and_protein():
    score = lambda X: (X == 0).sum(axis=1).astype(float)  # noqa: E731  count of the first symbol
    d = ism(score, ["ACGT"])
    assert d.shape == (1, 4, 4)
    np.testing.assert_array_equal(d[0, 0], [0, -1, -1, -1])
    np.testing.assert_array_equal(d[0, 1], [1, 0, 0, 0])
    p = ism(score, ["MKV"], alphabet="protein")
    assert p.shape == (1, 3, 20) and p[0, 0, 0] == 1


# ------------------------------------------------------------------ scorers

def test_onehot_layout():
    X = np.array([[0, 3], [2, 1]], dtype=np.uint8)
    np.testing.assert_array_equal(onehot(X), [[1, 0, 0, 0, 0, 0, 0, 1], [0, 0, 1, 0, 0, 1, 0, 0]])


def test_sklearn_model_file(tmp_path):
    rng = np.random.default_rng(0)
    X = rng.integers(0, 4, size=(80, 6)).astype(np.uint8)
    y = (X[:, 2] == 1).astype(int)
    model = LogisticRegression().fit(onehot(X), y)
    path = tmp_path / "model.joblib"
    joblib.dump(model, path)
    scorer = load_sklearn_model(path)
    assert scorer.method == "decision_function"
    np.testing.assert_allclose(scorer(X), model.decision_function(onehot(X)))
    proba = load_sklearn_model(path, method="predict_proba")
    np.testing.assert_allclose(proba(X), model.predict_proba(onehot(X))[:, 1])
    with pytest.raises(SeqimpError, match=r"expects 24 features, but onehot features of length-7 sequences have 28"):
        scorer(np.zeros((2, 7), dtype=np.uint8))
    with pytest.raises(SeqimpError, match="no such file"):
        load_sklearn_model(tmp_path / "missing.joblib")
    (tmp_path / "junk.joblib").write_bytes(b"not a pickle")
    with pytest.raises(SeqimpError, match="cannot load a joblib model"):
        load_sklearn_model(tmp_path / "junk.joblib")
    with pytest.raises(SeqimpError, match="features must be one of 'onehot', 'codes', 'strings', got 'kmers'"):
        load_sklearn_model(path, features="kmers")


def test_load_scorer(tmp_path, monkeypatch):
    (tmp_path / "my_scorers.py").write_text(
        "import numpy as np\n"
        "def gc(X):\n    return np.isin(X, (1, 2)).sum(axis=1).astype(float)\n"
        "class Box:\n    @staticmethod\n    def first(X):\n        return X[:, 0].astype(float)\n"
        "NOT_CALLABLE = 3\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    X = encode(["ACGT", "GGCC"])
    np.testing.assert_array_equal(load_scorer("my_scorers:gc")(X), [2, 4])
    np.testing.assert_array_equal(load_scorer(f"{tmp_path / 'my_scorers.py'}:Box.first")(X), [0, 2])
    with pytest.raises(SeqimpError, match="expected 'module:function'"):
        load_scorer("my_scorers.gc")
    with pytest.raises(SeqimpError, match="has no attribute 'nope'"):
        load_scorer("my_scorers:nope")
    with pytest.raises(SeqimpError, match="is not callable"):
        load_scorer("my_scorers:NOT_CALLABLE")
    with pytest.raises(SeqimpError, match="cannot import no_such_module_xyz"):
        load_scorer("no_such_module_xyz:f")
    sys.modules.pop("my_scorers", None)


@pytest.mark.parametrize("order, positional", [(0, False), (1, True), (3, False)])
def test_all_start_marginals_match_background(order, positional):
    from seqimp.background._conditional import ChainSampler

    rng = np.random.default_rng(order)
    length = 7
    bg = random_background(rng, order, length if positional else None)
    chain = ChainSampler(bg, length)
    for k in range(1, 6):
        got = chain.marginals(k)
        for j in range(length - k + 1):
            np.testing.assert_allclose(got[j], bg.marginal(k, j, length=length), rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("order, positional", [(1, False), (2, True), (3, False)])
def test_conditional_rows_have_the_conditional_distribution(order, positional):
    # rows for "z at j" against P(x | z at j) by enumeration of all 4**5 sequences (chi-square)
    from scipy.stats import chisquare

    from seqimp.background._conditional import ChainSampler
    from seqimp.importance._sampled import _kmer_codes

    rng = np.random.default_rng(20 + order)
    length, n = 5, 20_000
    bg = random_background(rng, order, length if positional else None, concentration=1.0)
    seqs = np.array(list(itertools.product(range(4), repeat=length)), dtype=np.uint8)
    p = np.exp(bg.log_prob(seqs))
    sampler = ChainSampler(bg, length)
    U, W = sampler.uniforms(n, 0)
    forward, backward = sampler.base(U, W)

    def check(rows, probs):
        counts = np.bincount(window_indices(rows, length)[:, 0], minlength=4 ** length)
        assert counts[probs == 0].sum() == 0
        big = probs * n >= 5
        obs = np.append(counts[big], counts[~big].sum())
        exp = np.append(probs[big], probs[~big].sum()) * n
        assert chisquare(obs[exp > 0], exp[exp > 0]).pvalue > 1e-4

    check(forward, p)
    check(backward, p)
    for k in (1, 2, 3):                     # k < D, k = D and k > D among these
        kmers = _kmer_codes(k)
        idx = window_indices(seqs, k)
        for j in (0, 1, length - k):
            pi = bg.marginal(k, j, length=length)
            z = [int(np.argmax(pi)), int(np.argmin(pi))]
            rows = sampler.conditional_rows(U, W, forward, backward, [j], k, kmers[z])[0]
            for zi, zz in enumerate(z):
                assert (window_indices(rows[zi], k)[:, j] == zz).all()
                check(rows[zi], np.where(idx[:, j] == zz, p, 0) / p[idx[:, j] == zz].sum())


def test_order0_rows_are_the_planted_samples():
    from seqimp.background._conditional import ChainSampler
    from seqimp.importance._sampled import _kmer_codes

    bg = random_background(np.random.default_rng(0), 0, 9)
    sampler = ChainSampler(bg)
    U, W = sampler.uniforms(6, 1)
    forward, backward = sampler.base(U, W)
    np.testing.assert_array_equal(forward, backward)
    rows = sampler.conditional_rows(U, W, forward, backward, [2, 6], 2, _kmer_codes(2))
    want = np.broadcast_to(forward, (2, 16, 6, 9)).copy()
    want[0, :, :, 2:4] = _kmer_codes(2)[:, None, :]
    want[1, :, :, 6:8] = _kmer_codes(2)[:, None, :]
    np.testing.assert_array_equal(rows, want)


def test_sklearn_scorer_strings_and_codes():
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import FunctionTransformer

    rng = np.random.default_rng(1)
    X = rng.integers(0, 4, size=(60, 5)).astype(np.uint8)
    y = (X[:, 1] == 3).astype(int)
    pipe = make_pipeline(FunctionTransformer(lambda seqs: onehot(encode(seqs))), LogisticRegression())
    pipe.fit(decode(X), y)
    scorer = sklearn_scorer(pipe, features="strings")
    np.testing.assert_allclose(scorer(X), pipe.decision_function(decode(X)))
    codes_model = LogisticRegression().fit(X, y)
    np.testing.assert_allclose(sklearn_scorer(codes_model, features="codes", method="predict")(X),
                               codes_model.predict(X))
    with pytest.raises(SeqimpError, match="the model has no method 'decision_function'"):
        sklearn_scorer(object(), method="decision_function")


# ------------------------------------------------------------------ batches on parallel workers

def _gc_score(X):
    """A module-level scorer: sent to worker processes by reference."""
    return np.isin(X, (1, 2)).sum(axis=1) + 0.5 * (X[:, 0] == 3)


def assert_same_result(a, b):
    for name in ("poim", "firm", "poim_se", "firm_se"):
        for ta, tb in zip(getattr(a, name), getattr(b, name)):
            np.testing.assert_array_equal(ta, tb)   # bit-identical: the same numbers, merged in the same order
    assert a.expected_score == b.expected_score and a.meta == b.meta


@pytest.mark.parametrize("backend", ["loky", "threading"])
def test_parallel_batches_give_the_sequential_numbers(backend):
    rng = np.random.default_rng(8)
    length = 9
    w = random_weights(rng, length, 2)
    bg = random_background(rng, 1, length=length)
    X = rng.integers(0, 4, size=(7, length)).astype(np.uint8)
    seq = poim_sampled(w.score, bg, 3, n_samples=40, batch_size=64, random_state=5, n_jobs=1)
    seq_ism = ism(_gc_score, X, batch_size=10, n_jobs=1)
    with joblib.parallel_config(backend=backend):
        par = poim_sampled(w.score, bg, 3, n_samples=40, batch_size=64, random_state=5, n_jobs=2)
        par_ism = ism(_gc_score, X, batch_size=10, n_jobs=2)
    assert_same_result(seq, par)
    np.testing.assert_array_equal(par_ism, seq_ism)
    # n_jobs=None follows the joblib configuration
    with joblib.parallel_config(backend=backend, n_jobs=2):
        np.testing.assert_array_equal(ism(_gc_score, X, batch_size=10), seq_ism)


def test_unpicklable_scorer_is_refused_in_one_line_for_processes_only():
    import threading

    lock = threading.Lock()

    def score(X):   # a closure over a lock: cannot be pickled
        with lock:
            return _gc_score(X)

    X = encode(["ACGTAC", "GGCCTA"])
    with pytest.raises(SeqimpError, match=r"^score_fn \(function\) cannot be sent to parallel workers \(TypeError: "
                                          r".*lock.*\); use n_jobs=1, joblib's threading backend"):
        ism(score, X, batch_size=5, n_jobs=2)
    with joblib.parallel_config(backend="threading"):   # threads share the scorer: nothing is pickled
        np.testing.assert_array_equal(ism(score, X, batch_size=5, n_jobs=2), ism(_gc_score, X))
    with pytest.raises(SeqimpError, match="n_jobs must be None or a non-zero integer"):
        ism(_gc_score, X, n_jobs=0)
    with pytest.raises(SeqimpError, match="n_jobs must be None or a non-zero integer"):
        poim_sampled(_gc_score, MarkovBackground.uniform(), 1, length=6, n_jobs=1.5)


def test_loaded_scorer_travels_as_its_spec(tmp_path):
    import pickle

    (tmp_path / "far_scorers.py").write_text("import numpy as np\n"
                                              "def gc(X):\n    return np.isin(X, (1, 2)).sum(axis=1).astype(float)\n")
    scorer = load_scorer(f"{tmp_path / 'far_scorers.py'}:gc")
    clone = pickle.loads(pickle.dumps(scorer))
    assert clone.spec == scorer.spec == f"{tmp_path.resolve() / 'far_scorers.py'}:gc"
    X = encode(["ACGTAC", "GGCCTA", "TTTTAA"])
    np.testing.assert_array_equal(clone(X), [3, 4, 0])
    # worker processes import the file themselves (it is not importable by module name)
    np.testing.assert_array_equal(ism(scorer, X, batch_size=8, n_jobs=2), ism(scorer, X))


def test_default_spreads_batches_over_threads_with_the_one_thread_numbers(monkeypatch):
    """n_jobs=None outside any joblib configuration: the batches run on threads of this process
    (as many as batch_threads says), the numbers bit-identical to n_jobs=1, for ISM and for the
    sampled POIM under an order-1 background (its conditional rows drawn inside the batches)."""
    import threading

    from seqimp.importance import _scorers

    monkeypatch.setattr(_scorers, "available_cores", lambda: 3)
    seen = set()

    def score(X):
        seen.add(threading.get_ident())
        return _gc_score(X) + 0.25 * (X[:, 0] == 3)

    rng = np.random.default_rng(12)
    X = rng.integers(0, 4, size=(9, 11)).astype(np.uint8)
    one = ism(score, X, batch_size=7, n_jobs=1)
    assert seen == {threading.get_ident()}
    seen.clear()
    np.testing.assert_array_equal(ism(score, X, batch_size=7), one)
    assert seen and threading.get_ident() not in seen       # the pool's threads scored the batches
    bg = random_background(rng, 1, length=11)
    assert_same_result(poim_sampled(score, bg, 2, n_samples=30, batch_size=40, random_state=3),
                       poim_sampled(score, bg, 2, n_samples=30, batch_size=40, random_state=3, n_jobs=1))


def test_batch_threads_follow_the_scorer():
    from seqimp._utils.cores import available_cores
    from seqimp.importance._scorers import batch_threads

    def fn(X):
        return _gc_score(X)

    assert batch_threads(fn) == available_cores()
    fn.batches_in_threads = False
    assert batch_threads(fn) == 1
    assert batch_threads(CountingScorer(_gc_score)) == 1


def test_run_batches_on_threads_in_order_numba_on_one_thread(monkeypatch):
    """Two batches meet at a barrier (they run at once), the results come in batch order, and
    numba's kernels inside a batch run on one thread; where numba's threading layer forbids two
    threads (workqueue) the batches run one at a time in the caller's thread."""
    import threading

    import numba

    from seqimp._utils import parallel as _parallel

    barrier = threading.Barrier(2, timeout=20)

    def batch(i, *, offset):
        if i < 2:
            barrier.wait()
        return i + offset, numba.get_num_threads(), threading.get_ident()

    out = list(_parallel.run_batches(batch, (((i,), 1) for i in range(6)), shared={"offset": 10}, threads=2))
    assert [o[0] for o in out] == list(range(10, 16))
    assert {o[1] for o in out} == {1}
    monkeypatch.setattr(_parallel, "threads_allowed", lambda: False)
    out = list(_parallel.run_batches(lambda i: threading.get_ident(), (((i,), 1) for i in range(3)), threads=2))
    assert out == [threading.get_ident()] * 3
