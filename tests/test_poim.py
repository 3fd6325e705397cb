"""Exact POIM/FIRM (``seqimp.poim``, both engines) against brute force over all 4**L sequences and Monte Carlo."""

import itertools
import zlib

import numpy as np
import pytest

from seqimp import MarkovBackground, PositionalWeights, POIMResult, poim
from seqimp.errors import SeqimpError

A = 4


# ---------------------------------------------------------------- independent references
def all_sequences(length):
    return np.array(list(itertools.product(range(A), repeat=length)), dtype=np.int64)


def sequence_probabilities(initial, transitions, seqs):
    """P(x) straight from the chain's arrays (not via MarkovBackground)."""
    length = seqs.shape[1]
    order = int(round(np.log(initial.size) / np.log(A)))
    prob = np.ones(len(seqs))
    ctx = np.zeros(len(seqs), dtype=np.int64)
    for t in range(order):
        ctx = ctx * A + seqs[:, t]
    prob *= initial[ctx]
    for i in range(order, length):
        table = transitions[i - order] if transitions.ndim == 3 else transitions
        prob *= table[ctx, seqs[:, i]]
        ctx = (ctx * A + seqs[:, i]) % A ** order if order else ctx
    return prob


def direct_scores(tables, bias, seqs):
    out = np.full(len(seqs), float(bias))
    length = seqs.shape[1]
    for k, table in enumerate(tables, start=1):
        for i in range(length - k + 1):
            idx = np.zeros(len(seqs), dtype=np.int64)
            for t in range(k):
                idx = idx * A + seqs[:, i + t]
            out += table[i, idx]
    return out


def brute_force(tables, bias, initial, transitions, length, max_order):
    """POIM, FIRM, maximal, differential, E[s], sd[s] by enumerating every sequence."""
    seqs = all_sequences(length)
    prob = sequence_probabilities(initial, transitions, seqs)
    s = direct_scores(tables, bias, seqs)
    es = prob @ s
    sd = np.sqrt(prob @ (s - es) ** 2)
    poims, firms = [], []
    for k in range(1, max_order + 1):
        q = np.empty((length - k + 1, A ** k))
        f = np.empty_like(q)
        for j in range(length - k + 1):
            idx = np.zeros(len(seqs), dtype=np.int64)
            for t in range(k):
                idx = idx * A + seqs[:, j + t]
            pi = np.bincount(idx, weights=prob, minlength=A ** k)
            ps = np.bincount(idx, weights=prob * s, minlength=A ** k)
            with np.errstate(invalid="ignore", divide="ignore"):
                cond = ps / pi
                cond_not = (es - ps) / (1 - pi)
            q[j] = np.where(pi > 0, cond - es, np.nan)
            f[j] = np.where((pi > 0) & (pi < 1 - 1e-12), (cond - cond_not) * np.sqrt(pi * (1 - pi)), 0.0)
        poims.append(q)
        firms.append(f)
    maximal = np.full((max_order, length), np.nan)
    differential = np.full((max_order, length), np.nan)
    for k in range(1, max_order + 1):
        for j in range(length - k + 1):
            maximal[k - 1, j] = np.nanmax(np.abs(poims[k - 1][j]))
            if k == 1:
                differential[0, j] = maximal[0, j]
            else:
                differential[k - 1, j] = maximal[k - 1, j] - max(maximal[k - 2, j], maximal[k - 2, j + 1])
    return poims, firms, maximal, differential, es, sd


# ---------------------------------------------------------------- random inputs
def random_weights(rng, length, degree, sparse=False):
    tables = []
    for k in range(1, degree + 1):
        t = rng.normal(size=(length - k + 1, A ** k))
        if sparse:
            t *= rng.random(t.shape) < 0.08
        tables.append(t)
    return PositionalWeights(tables, bias=rng.normal())


def random_chain(rng, order, length=None, zero_frac=0.0):
    initial = rng.dirichlet(np.ones(A ** order))
    shape = (A ** order, A) if length is None else (length - order, A ** order, A)
    trans = rng.dirichlet(np.ones(A), size=shape[:-1])
    if zero_frac:
        trans = trans * (rng.random(shape) >= zero_frac)
        trans[..., 0] += trans.sum(axis=-1) == 0
        trans /= trans.sum(axis=-1, keepdims=True)
    return initial, trans


def background_case(rng, kind, order, length):
    if kind == "uniform":
        bg = MarkovBackground.uniform(order=order)
        return bg, bg.initial_, bg.transitions_
    initial, trans = random_chain(rng, order, length if kind in ("positional", "degenerate") else None,
                                  zero_frac=0.25 if kind == "sparse" else 0.0)
    if kind == "degenerate":                 # some positions certain: pi = 1, FIRM 0
        trans[1::2] = np.eye(A)[rng.integers(0, A, size=trans[1::2].shape[:-1])]
    return MarkovBackground.from_arrays(initial, trans), initial, trans


CASES = [
    # kind, order, degree, max_order, length, sparse weights
    ("uniform", 0, 2, 3, 7, False),
    ("positional", 0, 3, 4, 7, False),
    ("positional", 0, 4, 2, 6, True),
    ("homogeneous", 0, 1, 3, 6, False),
    ("homogeneous", 1, 2, 4, 7, False),
    ("positional", 1, 3, 3, 7, True),
    ("positional", 1, 1, 3, 6, False),
    ("homogeneous", 2, 3, 3, 7, False),
    ("positional", 2, 2, 4, 7, False),
    ("positional", 2, 1, 3, 6, True),
    ("positional", 2, 4, 3, 7, False),
    ("uniform", 2, 2, 3, 6, False),
    ("homogeneous", 3, 2, 2, 6, False),
    ("sparse", 1, 2, 3, 6, False),
    ("positional", 3, 3, 4, 6, False),
    ("positional", 2, 4, 4, 8, False),
    ("homogeneous", 1, 3, 5, 8, True),
    ("positional", 4, 2, 3, 7, False),
    ("degenerate", 0, 3, 3, 7, False),
    ("degenerate", 1, 2, 4, 7, False),
]


@pytest.mark.parametrize("kind, order, degree, max_order, length, sparse", CASES)
def test_exact_matches_brute_force(kind, order, degree, max_order, length, sparse):
    rng = np.random.default_rng(zlib.crc32(repr((kind, order, degree, max_order, length, sparse)).encode()))
    weights = random_weights(rng, length, degree, sparse)
    bg, initial, trans = background_case(rng, kind, order, length)
    res = poim(weights, bg, max_order)
    bq, bf, bmax, bdiff, es, sd = brute_force(weights.tables, weights.bias, initial, trans, length, max_order)
    assert res.expected_score == pytest.approx(es, abs=1e-9)
    assert res.score_std == pytest.approx(sd, abs=1e-9)
    for k in range(max_order):
        assert res.poim[k].shape == (length - k, A ** (k + 1))
        np.testing.assert_allclose(res.poim[k], bq[k], atol=1e-9, rtol=0, err_msg=f"poim k={k + 1}")
        np.testing.assert_allclose(res.firm[k], bf[k], atol=1e-9, rtol=0, err_msg=f"firm k={k + 1}")
    np.testing.assert_allclose(res.maximal, bmax, atol=1e-9, rtol=0)
    np.testing.assert_allclose(res.differential, bdiff, atol=1e-9, rtol=0)


def test_sparse_background_gives_nan_poim_and_zero_firm():
    rng = np.random.default_rng(5)
    length = 6
    initial, trans = random_chain(rng, 1, length, zero_frac=0.4)
    weights = random_weights(rng, length, 2)
    res = poim(weights, MarkovBackground.from_arrays(initial, trans), 3)
    bg = MarkovBackground.from_arrays(initial, trans)
    for k in range(1, 4):
        for j in (0, length - k):
            impossible = bg.marginal(k, j) == 0
            assert np.isnan(res.poim[k - 1][j, impossible]).all()
            assert (res.firm[k - 1][j, impossible] == 0).all()
            assert not np.isnan(res.poim[k - 1][j, ~impossible]).any()
    assert np.isnan(res.poim[2]).any()
    assert np.isfinite(res.maximal[:, :length - 2]).all()


def test_naive_overlap_sum_agrees_at_larger_length():
    from oracle_poim import naive_poim_order0

    rng = np.random.default_rng(11)
    length, degree, max_order = 16, 3, 4
    weights = random_weights(rng, length, degree)
    probs = rng.dirichlet(np.ones(A), size=length)
    bg = MarkovBackground.from_arrays([1.0], probs[:, None, :])
    res = poim(weights, bg, max_order)
    positions = np.array([0, 1, 7, 12, 15])
    naive = naive_poim_order0(weights, probs, max_order, positions)
    for m in range(1, max_order + 1):
        pos = positions[positions <= length - m]
        np.testing.assert_allclose(res.poim[m - 1][pos], naive[m - 1], atol=1e-9, rtol=0)


def scores_of(weights, codes):
    return weights.score(codes)


def test_monte_carlo_order0_planted_at_length_60():
    rng = np.random.default_rng(3)
    length, degree = 60, 3
    weights = random_weights(rng, length, degree)
    probs = rng.dirichlet(np.full(A, 2.0), size=length)
    bg = MarkovBackground.from_arrays([1.0], probs[:, None, :])
    res = poim(weights, bg, 4)
    n = 40000
    X = bg.sample(n, random_state=1)
    s = scores_of(weights, X)
    assert res.expected_score == pytest.approx(s.mean(), abs=4 * s.std() / np.sqrt(n))
    assert res.score_std == pytest.approx(s.std(), rel=0.03)
    for z, j in [((2, 0, 3), 20), ((1, 1, 0, 3), 0), ((3,), 59), ((0, 2, 2, 1), 56)]:
        planted = X.copy()
        planted[:, j:j + len(z)] = z
        sp = scores_of(weights, planted)
        zi = int(np.dot(z, A ** np.arange(len(z) - 1, -1, -1)))
        assert res.poim[len(z) - 1][j, zi] + res.expected_score == pytest.approx(
            sp.mean(), abs=4 * sp.std() / np.sqrt(n))


def test_monte_carlo_markov_order1_by_rejection_at_length_60():
    rng = np.random.default_rng(4)
    length, degree = 60, 2
    weights = random_weights(rng, length, degree)
    initial, trans = random_chain(rng, 1)
    bg = MarkovBackground.from_arrays(initial, trans)
    res = poim(weights, bg, 3)
    n = 60000
    X = bg.sample(n, length=length, random_state=2)
    s = scores_of(weights, X)
    for z, j in [((2, 1), 30), ((0,), 0), ((3, 3), 58), ((1, 0, 2), 10)]:
        hit = np.all(X[:, j:j + len(z)] == z, axis=1)
        zi = int(np.dot(z, A ** np.arange(len(z) - 1, -1, -1)))
        assert hit.mean() == pytest.approx(bg.marginal(len(z), j, length=length)[zi], abs=4 * np.sqrt(hit.mean() / n))
        cond = s[hit]
        q = cond.mean() - s.mean()
        se = np.sqrt(cond.var() / cond.size + s.var() / n)
        assert res.poim[len(z) - 1][j, zi] == pytest.approx(q, abs=4.5 * se)


class _Model:
    def __init__(self, weights):
        self.weights = weights

    def positional_weights(self):
        return self.weights


def test_model_with_positional_weights_and_defaults():
    rng = np.random.default_rng(8)
    weights = random_weights(rng, 8, 2)
    a = poim(_Model(weights), None)
    b = poim(weights, MarkovBackground.uniform(8), 2)
    assert a.max_order == 2 and a.length == 8
    for k in range(2):
        np.testing.assert_allclose(a.poim[k], b.poim[k], atol=1e-12)
    import seqimp
    from seqimp.importance import poim as poim_function

    assert seqimp.poim(weights, None, 1).max_order == 1
    assert poim_function(weights, None, 1).max_order == 1


@pytest.mark.parametrize("first", ["import seqimp.importance._poim", "import seqimp.importance", "from seqimp import poim"])
def test_seqimp_poim_is_the_function_whatever_the_import_order(first):
    import subprocess
    import sys

    code = (
        f"{first}\n"
        "import inspect, seqimp, numpy as np\n"
        "w = seqimp.PositionalWeights([np.eye(4)[[0, 1, 2, 3, 0]]])\n"
        "print(seqimp.poim(w, None, 1).poim[0][0, 0], list(inspect.signature(seqimp.poim).parameters)[:3])\n"
        "print(inspect.isfunction(seqimp.poim), seqimp.importance.POIMResult is seqimp.POIMResult)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    # weight 1 on A at position 1: Q(A, 0) = 1 - 1/4 under the uniform background
    assert out.stdout.splitlines() == ["0.75 ['model_or_weights', 'background', 'max_order']", "True True"]


def test_uniform_firm_is_poim_times_constant():
    rng = np.random.default_rng(9)
    weights = random_weights(rng, 7, 3)
    res = poim(weights, MarkovBackground.uniform(), 3)
    for k in range(1, 4):
        pi = 0.25 ** k
        np.testing.assert_allclose(res.firm[k - 1], res.poim[k - 1] * np.sqrt(pi / (1 - pi)), atol=1e-12)


def test_standardize_divides_by_score_sd():
    rng = np.random.default_rng(10)
    weights = random_weights(rng, 7, 2)
    bg = MarkovBackground.uniform(order=1)
    raw = poim(weights, bg, 2)
    std = poim(weights, bg, 2, standardize=True)
    assert std.standardized_ and not raw.standardized_
    np.testing.assert_allclose(std.firm[1], raw.firm[1] / raw.score_std)
    np.testing.assert_allclose(std.maximal, raw.maximal / raw.score_std)
    const = PositionalWeights([np.zeros((5, 4))], bias=2.0)
    with pytest.raises(SeqimpError, match="standard deviation is 0"):
        poim(const, None, 1, standardize=True)


def test_errors_are_clear():
    rng = np.random.default_rng(12)
    weights = random_weights(rng, 8, 2)
    with pytest.raises(SeqimpError, match="background has length 9, but the weights have length 8"):
        poim(weights, MarkovBackground.uniform(9), 2)
    with pytest.raises(SeqimpError, match=r"max_order must lie in 1\.\.8"):
        poim(weights, None, 9)
    with pytest.raises(SeqimpError, match="max_order must be a positive integer"):
        poim(weights, None, 2.5)
    with pytest.raises(SeqimpError, match="max_order must be a positive integer, got 'x'"):
        poim(weights, None, "x")
    with pytest.raises(SeqimpError, match="max_memory must be a size such as 4G, 500M, 1.5GiB or a number of bytes"):
        poim(weights, None, 2, max_memory="8 lots")
    with pytest.raises(SeqimpError, match="max_memory must be a positive size of at least 1 byte, got -5"):
        poim(weights, None, 2, max_memory=-5)
    with pytest.raises(SeqimpError, match="must be a PositionalWeights or have"):
        poim(object(), None, 1)
    with pytest.raises(SeqimpError, match="not fitted"):
        poim(weights, MarkovBackground(order=1), 1)
    with pytest.raises(SeqimpError, match="order 8 needs sequences longer than 8"):
        poim(weights, MarkovBackground.uniform(order=8), 1)


def test_memory_refusal_names_estimate_and_largest_fitting_order():
    from seqimp.importance._poim_plan import in_memory_bytes

    rng = np.random.default_rng(13)
    weights = random_weights(rng, 12, 2)
    limit = in_memory_bytes(4, 12, 2, 0, 4) + 1
    assert in_memory_bytes(4, 12, 2, 0, 5) > limit
    with pytest.raises(SeqimpError, match=r"needs about [\d.]+ (?:B|[KMGT]iB).*largest max_order that fits is 4"):
        poim(weights, None, 6, max_memory=limit, engine="memory")
    assert poim(weights, None, 4, max_memory=limit, engine="memory").max_order == 4


def test_auto_engine_streams_where_the_tables_exceed_max_memory():
    """engine="auto" plans once: in memory where the tables fit, else streamed (same numbers)."""
    from seqimp.importance import StreamedPOIM, plan_poim
    from seqimp.importance._poim_plan import in_memory_bytes

    rng = np.random.default_rng(16)
    weights = random_weights(rng, 12, 2)
    bg = MarkovBackground.uniform(order=1)
    fits = poim(weights, bg, 3, max_memory=10 << 20)
    assert isinstance(fits, POIMResult)
    small = in_memory_bytes(4, 12, 2, 1, 6) - 1                  # just under the in-memory tables of order 6
    assert plan_poim(12, 6, 1, small, degree=2, top_n=20).engine == "stream"
    streamed = poim(weights, bg, 6, max_memory=small, top_n=20)
    assert isinstance(streamed, StreamedPOIM)
    assert streamed.meta["max_memory"] == small and streamed.meta["block"] >= 1   # what was given is recorded
    ref = poim(weights, bg, 6, engine="memory")
    np.testing.assert_allclose(streamed.maximal, ref.maximal, rtol=0, atol=1e-10)
    np.testing.assert_allclose(streamed.table(4, "firm"), ref.firm[3], rtol=0, atol=1e-10)


ENGINE_CASES = [
    # kind, background order, degree, max_order, length
    ("uniform", 0, 2, 5, 9),
    ("positional", 1, 3, 4, 10),
    ("homogeneous", 2, 2, 6, 11),
    ("sparse", 1, 2, 3, 8),
    ("positional", 3, 2, 5, 10),
]


@pytest.mark.parametrize("kind, order, degree, max_order, length", ENGINE_CASES)
def test_the_three_engine_choices_give_the_same_numbers(kind, order, degree, max_order, length):
    """engine="memory", "stream" and "auto" (here in memory): maximal, differential, E[s], sd(s),
    the kept tables and the top lists agree to 1e-10 absolute (the same recursions summed in
    another order; the in-memory and "auto" results are identical)."""
    rng = np.random.default_rng(zlib.crc32(repr((kind, order, degree, max_order, length)).encode()))
    weights = random_weights(rng, length, degree)
    bg = background_case(rng, kind, order, length)[0]
    memory = poim(weights, bg, max_order, engine="memory")
    auto = poim(weights, bg, max_order)
    stream = poim(weights, bg, max_order, engine="stream", top_n=30)
    assert type(auto) is POIMResult
    for k in range(max_order):
        np.testing.assert_array_equal(auto.poim[k], memory.poim[k])
    for res in (memory, stream):
        assert res.expected_score == pytest.approx(auto.expected_score, abs=1e-10)
        assert res.score_std == pytest.approx(auto.score_std, abs=1e-10)
        np.testing.assert_allclose(res.maximal, auto.maximal, rtol=0, atol=1e-10)
        np.testing.assert_allclose(res.differential, auto.differential, rtol=0, atol=1e-10)
        for k in range(1, min(4, max_order) + 1):
            for measure in ("poim", "firm"):
                np.testing.assert_allclose(res.table(k, measure), auto.table(k, measure), rtol=0, atol=1e-10)
        top, want = res.top(10, "poim"), auto.top(10, "poim")
        np.testing.assert_allclose(np.abs(top["poim"]), np.abs(want["poim"]), rtol=0, atol=1e-10)


@pytest.mark.parametrize("kind, order", [("positional", 0), ("homogeneous", 2)])
def test_in_memory_poim_is_the_same_on_one_and_two_threads(kind, order):
    """The in-memory engine's kernels run rows in parallel; every entry, E[s], sd(s) and the
    maximal POIM are the same bits on 1 and 2 threads, and sd(s) is the streaming engine's bits
    (both sum the rows' shares of Var[s] per row, then all rows at once)."""
    import numba

    rng = np.random.default_rng(31 + order)
    weights = random_weights(rng, 40, 4)
    bg = background_case(rng, kind, order, 40)[0]
    before = numba.get_num_threads()
    results = {}
    try:
        for threads in (1, min(2, numba.config.NUMBA_NUM_THREADS)):
            numba.set_num_threads(threads)
            results[threads] = poim(weights, bg, 6, engine="memory")
    finally:
        numba.set_num_threads(before)
    one, two = results.values()
    for k in range(6):
        np.testing.assert_array_equal(two.poim[k], one.poim[k])
        np.testing.assert_array_equal(two.firm[k], one.firm[k])
    np.testing.assert_array_equal(two.maximal, one.maximal)
    assert (two.expected_score, two.score_std) == (one.expected_score, one.score_std)
    assert poim(weights, bg, 6, engine="stream", top_n=5).score_std == one.score_std


def test_engine_choice_errors_are_clear():
    rng = np.random.default_rng(17)
    weights = random_weights(rng, 8, 2)
    with pytest.raises(SeqimpError, match=r"^engine must be one of 'auto', 'memory', 'stream', got 'gpu'$"):
        poim(weights, None, 2, engine="gpu")
    with pytest.raises(SeqimpError, match=r"^poim: full_tables needs the streaming engine \(engine='stream' or 'auto'\)"):
        poim(weights, None, 2, engine="memory", full_tables="x.h5")
    with pytest.raises(SeqimpError, match=r"^poim: block needs the streaming engine"):
        poim(weights, None, 2, engine="memory", block=2)
    with pytest.raises(SeqimpError, match=r"^top_n must be an integer >= 0, got -1$"):
        poim(weights, None, 2, top_n=-1)


def test_table_gives_every_order_of_an_in_memory_result():
    rng = np.random.default_rng(18)
    res = poim(random_weights(rng, 9, 2), None, 6)
    assert res.table(6, "firm") is res.firm[5] and res.table(2) is res.poim[1]
    with pytest.raises(SeqimpError, match=r"^order must lie in 1\.\.6 \(the result's max_order\), got 7$"):
        res.table(7)
    with pytest.raises(SeqimpError, match=r"^measure must be one of 'poim', 'firm', got 'w'$"):
        res.table(1, "w")


def test_result_top_save_load_roundtrip(tmp_path):
    rng = np.random.default_rng(14)
    weights = random_weights(rng, 7, 2)
    initial, trans = random_chain(rng, 1, 7, zero_frac=0.3)
    res = poim(weights, MarkovBackground.from_arrays(initial, trans), 3)
    top = res.top(5, measure="firm", order=3)
    assert list(top.columns) == ["rank", "oligomer", "order", "position", "poim", "firm"]
    np.testing.assert_allclose(np.abs(top["firm"]), np.sort(np.abs(res.firm[2].ravel()))[::-1][:5])
    first = top.to_dict("records")[0]
    from seqimp.io import kmer_index

    assert first["order"] == 3
    assert res.firm[2][first["position"] - 1, kmer_index(first["oligomer"])] == first["firm"]
    assert res.top(10 ** 6)["poim"].notna().sum() == sum(np.count_nonzero(~np.isnan(p)) for p in res.poim)
    assert not res.top(10 ** 6, measure="poim")["poim"].isna().any()   # NaN entries are never ranked
    with pytest.raises(SeqimpError, match="measure must be one of 'poim', 'firm', got 'weights'"):
        res.top(3, measure="weights")
    with pytest.raises(SeqimpError, match=r"order must be an integer in \[1, 3\], got 4"):
        res.top(3, order=4)
    with pytest.raises(SeqimpError, match="n must be an integer >= 0, got -1"):
        res.top(-1)
    res.poim_se = [np.abs(p) for p in res.poim]
    res.save(tmp_path / "r.npz")
    back = POIMResult.load(tmp_path / "r.npz")
    assert back.meta == res.meta and back.expected_score == res.expected_score and back.firm_se is None
    for k in range(3):
        np.testing.assert_array_equal(back.poim[k], res.poim[k])
        np.testing.assert_array_equal(back.poim_se[k], res.poim_se[k])
    np.testing.assert_array_equal(back.differential, res.differential)
    res.save(tmp_path / "plain")                     # numpy appends .npz; load takes either name
    np.testing.assert_array_equal(POIMResult.load(tmp_path / "plain").firm[2], res.firm[2])
    with pytest.raises(SeqimpError, match="missing.npz: no such file"):
        POIMResult.load(tmp_path / "missing.npz")
    np.savez(tmp_path / "other.npz", a=np.zeros(2))
    with pytest.raises(SeqimpError, match="not a POIMResult file"):
        POIMResult.load(tmp_path / "other.npz")


def test_result_validates_shapes():
    with pytest.raises(SeqimpError, match=r"firm\[1\] must have shape"):
        POIMResult([np.zeros((5, 4)), np.zeros((4, 16))], [np.zeros((5, 4)), np.zeros((5, 16))],
                   expected_score=0.0, score_std=1.0)


def test_other_alphabet_order1_against_enumeration():
    size, length = 20, 3
    rng = np.random.default_rng(15)
    weights = PositionalWeights([rng.normal(size=(length - k + 1, size ** k)) for k in (1, 2)],
                                alphabet="protein")
    init, trans = rng.dirichlet(np.ones(size)), rng.dirichlet(np.ones(size), size=size)
    res = poim(weights, MarkovBackground.from_arrays(init, trans, alphabet="protein"), 2)
    seqs = np.array(list(itertools.product(range(size), repeat=length)))
    prob = init[seqs[:, 0]] * trans[seqs[:, 0], seqs[:, 1]] * trans[seqs[:, 1], seqs[:, 2]]
    s = weights.score(seqs.astype(np.uint8))
    es = prob @ s
    for k, j in [(1, 0), (1, 2), (2, 0), (2, 1)]:
        idx = seqs[:, j] if k == 1 else seqs[:, j] * size + seqs[:, j + 1]
        pi = np.bincount(idx, weights=prob, minlength=size ** k)
        q = np.bincount(idx, weights=prob * s, minlength=size ** k) / pi - es
        np.testing.assert_allclose(res.poim[k - 1][j], q, atol=1e-9, rtol=0)
    with pytest.raises(SeqimpError, match="background alphabet dna differs"):
        poim(weights, MarkovBackground.uniform(), 1)


def _ranked_by_definition(res, n, measure, orders):
    """(rank key, row) of the top n of each order in ``orders``, sorted: a full sort of every entry."""
    rows = []
    for k in orders:
        values = getattr(res, measure)[k - 1]
        entries = sorted((-abs(values[j, z]), k, j, z) for j in range(values.shape[0])
                         for z in range(values.shape[1]) if not np.isnan(values[j, z]))
        rows += entries[:n]
    return [(k, j + 1, z) for _, k, j, z in sorted(rows)]


@pytest.mark.parametrize("measure", ["firm", "poim"])
def test_top_is_the_one_ranking(measure):
    """top(n) = the top n of every order merged by |measure| (ties by order, position, k-mer), the
    rows of top_oligomers.tsv; top(n, order=k) = the k-mers alone; default measure FIRM."""
    from seqimp.io import kmer_index
    from seqimp.pipeline._outputs import top_oligomers

    rng = np.random.default_rng(21)
    poims = [rng.integers(-4, 5, size=(6 - k + 1, 4 ** k)).astype(float) for k in (1, 2, 3)]  # many ties
    firms = [rng.integers(-4, 5, size=p.shape).astype(float) for p in poims]
    poims[1][0, :5] = np.nan
    res = POIMResult(poims, firms, expected_score=0.0, score_std=1.0)
    for n in (0, 1, 4, 30):
        table = res.top(n, measure=measure)
        got = [(r["order"], r["position"], kmer_index(r["oligomer"])) for r in table.to_dict("records")]
        assert got == _ranked_by_definition(res, n, measure, (1, 2, 3))
        assert table["rank"].tolist() == list(range(1, len(table) + 1))
        for k in (1, 3):
            only = res.top(n, measure=measure, order=k)
            got = [(r["order"], r["position"], kmer_index(r["oligomer"])) for r in only.to_dict("records")]
            assert got == _ranked_by_definition(res, n, measure, (k,))
    default = res.top(4)
    assert default.equals(res.top(4, measure="firm")) and default.equals(top_oligomers(res, 4))


@pytest.mark.parametrize("call", ["top", "heatmap", "logo", "candidates", "fit", "position_summary"])
def test_every_measure_check_says_the_same(call):
    from seqimp.importance import position_summary
    from seqimp.motifs import Motif, fit_motifs, motif_candidates
    from seqimp.plot import letter_importance, poim_heatmap

    res = POIMResult([np.zeros((5, 4)), np.zeros((4, 16))], [np.zeros((5, 4)), np.zeros((4, 16))],
                     expected_score=0.0, score_std=1.0)
    calls = {"top": lambda: res.top(3, measure="w"), "heatmap": lambda: poim_heatmap(res, 1, measure="w"),
             "logo": lambda: letter_importance(res, measure="w"),
             "candidates": lambda: motif_candidates(res, measure="w"),
             "fit": lambda: fit_motifs(res, [Motif.from_consensus("m", "AC")], measure="w"),
             "position_summary": lambda: position_summary(res, measure="w")}
    with pytest.raises(SeqimpError, match=r"^measure must be one of 'poim', 'firm', got 'w'$"):
        calls[call]()
