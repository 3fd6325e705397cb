"""MarkovBackground: maximum-likelihood fit, validation, sampling, probabilities, marginals."""

import itertools
import sys
from pathlib import Path

import numpy as np
import pytest

from seqimp import MarkovBackground
from seqimp.errors import SeqimpError

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))
from bench_markov_sample import letter_by_letter  # noqa: E402  (the sampler written out)

A = 4


def random_background(rng, order, length=None):
    initial = rng.dirichlet(np.ones(A ** order))
    shape = (A ** order,) if length is None else (length - order, A ** order)
    return MarkovBackground.from_arrays(initial, rng.dirichlet(np.ones(A), size=shape))


def enumerate_probabilities(bg, length):
    """P(x) for all sequences by multiplying conditionals in a plain loop."""
    seqs = np.array(list(itertools.product(range(A), repeat=length)))
    d = bg.order
    probs = np.empty(len(seqs))
    for r, x in enumerate(seqs):
        c = 0
        for t in range(d):
            c = c * A + x[t]
        p = bg.initial_[c]
        for i in range(d, length):
            table = bg.transitions_[i - d] if bg.transitions_.ndim == 3 else bg.transitions_
            p *= table[c, x[i]]
            c = (c * A + x[i]) % A ** d if d else 0
        probs[r] = p
    return seqs, probs


@pytest.mark.parametrize("order, positional", [(0, False), (0, True), (1, False), (1, True), (2, False), (2, True)])
def test_fit_without_pseudocount_gives_ml_estimates(order, positional):
    rng = np.random.default_rng(order * 2 + positional)
    X = rng.integers(0, A, size=(300, 9))
    X[:40, 3] = 2                                      # make position 3 unusual
    bg = MarkovBackground(order=order, positional=positional, pseudocount=0).fit(X)
    counts_init = np.zeros(A ** order)
    counts = np.zeros((9 - order, A ** order, A))
    for x in X:
        c = 0
        for t in range(order):
            c = c * A + x[t]
        counts_init[c] += 1
        for i in range(order, 9):
            counts[i - order, c, x[i]] += 1
            c = (c * A + x[i]) % A ** order if order else 0
    np.testing.assert_allclose(bg.initial_, counts_init / counts_init.sum())
    if not positional:
        counts = counts.sum(axis=0)
    tot = counts.sum(axis=-1, keepdims=True)
    expect = np.where(tot > 0, counts / np.maximum(tot, 1), 0.25)
    np.testing.assert_allclose(bg.transitions_, expect)
    # ML: the fitted chain has higher likelihood than perturbed ones
    base = bg.log_prob(X).sum()
    other = MarkovBackground(order=order, positional=positional, pseudocount=1.0).fit(X)
    assert base >= other.log_prob(X).sum()


def test_fit_pseudocount_smooths_and_accepts_strings():
    bg = MarkovBackground(order=1, pseudocount=1.0).fit(["AAAA", "AAAC"])
    # context A: next A seen 5 times, C once; +1 each -> (6, 2, 1, 1) / 10
    np.testing.assert_allclose(bg.transitions_[0], [0.6, 0.2, 0.1, 0.1])
    np.testing.assert_allclose(bg.transitions_[1], 0.25)
    np.testing.assert_allclose(bg.initial_, [3 / 6, 1 / 6, 1 / 6, 1 / 6])
    assert bg.length is None


def test_from_arrays_infers_order_and_validates():
    bg = MarkovBackground.from_arrays(np.full(16, 1 / 16), np.full((5, 16, 4), 0.25))
    assert bg.order == 2 and bg.length == 7
    assert MarkovBackground.from_arrays([1.0], np.full((7, 1, 4), 0.25)).length == 7
    with pytest.raises(SeqimpError, match="initial has 5 entries"):
        MarkovBackground.from_arrays(np.full(5, 0.2), np.full((4, 4), 0.25))
    with pytest.raises(SeqimpError, match=r"transitions must have shape \(4, 4\) for order 1"):
        MarkovBackground.from_arrays(np.full(4, 0.25), np.full((16, 4), 0.25))
    with pytest.raises(SeqimpError, match=r"position-specific transitions must have shape \(L-1, 4, 4\)"):
        MarkovBackground.from_arrays(np.full(4, 0.25), np.full((3, 16, 4), 0.25))
    bad = np.full((4, 4), 0.25)
    bad[2, 1] = -0.1
    with pytest.raises(SeqimpError, match=r"non-negative; entry \(2, 1\)"):
        MarkovBackground.from_arrays(np.full(4, 0.25), bad)
    bad = np.full((4, 4), 0.25)
    bad[3] = [0.5, 0.5, 0.5, 0.0]
    with pytest.raises(SeqimpError, match=r"rows must sum to 1; row \(3,\) sums to 1.5"):
        MarkovBackground.from_arrays(np.full(4, 0.25), bad)
    with pytest.raises(SeqimpError, match="initial: rows must sum to 1"):
        MarkovBackground.from_arrays(np.full(4, 0.3), np.full((4, 4), 0.25))
    with pytest.raises(SeqimpError, match=r"got \(7, 4\); a position-specific order-0 background has shape \(L, 1, 4\)"):
        MarkovBackground.from_arrays([1.0], np.full((7, 4), 0.25))
    with pytest.raises(SeqimpError, match="must be 2-D"):
        MarkovBackground.from_arrays([1.0], np.full(4, 0.25))
    with pytest.raises(SeqimpError, match="order must be an integer >= 0"):
        MarkovBackground(order=-1)
    with pytest.raises(SeqimpError, match="order must be an integer >= 0, got 'x'"):
        MarkovBackground(order="x")
    with pytest.raises(SeqimpError, match="order must be an integer >= 0, got 1.5"):
        MarkovBackground(order=1.5)
    with pytest.raises(SeqimpError, match=r"pseudocount must be a number in \[0, inf\), got -1"):
        MarkovBackground(pseudocount=-1)
    with pytest.raises(SeqimpError, match=r"pseudocount must be a number in \[0, inf\), got 'a'"):
        MarkovBackground(pseudocount="a")
    with pytest.raises(SeqimpError, match="too short for order 3"):
        MarkovBackground(order=3).fit(["ACG"])


@pytest.mark.parametrize("order, positional", [(0, True), (1, False), (2, True)])
def test_log_prob_and_marginals_match_enumeration(order, positional):
    rng = np.random.default_rng(20 + order)
    length = 6
    bg = random_background(rng, order, length if positional else None)
    seqs, probs = enumerate_probabilities(bg, length)
    assert probs.sum() == pytest.approx(1.0)
    np.testing.assert_allclose(np.exp(bg.log_prob(seqs)), probs, rtol=1e-10)
    for k in range(1, length + 1):
        every_start = bg.marginals(k, length=length)
        assert every_start.shape == (length - k + 1, A ** k)
        for j in range(length - k + 1):
            idx = seqs[:, j:j + k] @ (A ** np.arange(k - 1, -1, -1))
            expect = np.bincount(idx, weights=probs, minlength=A ** k)
            np.testing.assert_allclose(bg.marginal(k, j, length=length), expect, atol=1e-13)
            np.testing.assert_allclose(every_start[j], expect, atol=1e-13)
    with pytest.raises(SeqimpError, match="j must lie in 0..4 for k=2"):
        bg.marginal(2, 5, length=length)
    with pytest.raises(SeqimpError, match="k must lie in 1..6, got 7"):
        bg.marginals(7, length=length)


def test_log_prob_of_impossible_sequence_is_minus_inf():
    trans = np.full((4, 4), 0.25)
    trans[0] = [0.0, 1 / 3, 1 / 3, 1 / 3]
    bg = MarkovBackground.from_arrays(np.full(4, 0.25), trans)
    lp = bg.log_prob(["AAC", "ACA"])
    assert lp[0] == -np.inf and lp[1] == pytest.approx(np.log(0.25 / 3 * 0.25))


def test_sample_follows_the_chain():
    rng = np.random.default_rng(30)
    bg = random_background(rng, 1, 5)
    X = bg.sample(40000, random_state=7)
    assert X.shape == (40000, 5) and X.dtype == np.uint8
    for j in (0, 3):
        idx = X[:, j].astype(int) * 4 + X[:, j + 1]
        freq = np.bincount(idx, minlength=16) / len(X)
        expect = bg.marginal(2, j)
        assert np.abs(freq - expect).max() < 4 * np.sqrt(expect.max() / len(X))
    np.testing.assert_array_equal(bg.sample(5, random_state=1), bg.sample(5, random_state=1))
    with pytest.raises(SeqimpError, match="homogeneous background has no length"):
        MarkovBackground.uniform().sample(3)
    with pytest.raises(SeqimpError, match="n must be an integer >= 0, got -1"):
        bg.sample(-1)


@pytest.mark.parametrize("order", [0, 1, 2, 3])
def test_sample_draws_what_the_letter_by_letter_sampler_draws(order):
    """The kernel reads the same uniforms in the same order and compares them with the same sums:
    the same sequences, bit for bit, homogeneous or per position; with 100,000 sequences the
    uniforms come in blocks of 41 positions (a block boundary inside the 60)."""
    rng = np.random.default_rng(40 + order)
    for bg, length, n in ((random_background(rng, order), 37, 9), (random_background(rng, order, 23), 23, 250),
                          (random_background(rng, order), 60, 100_000)):
        got = bg.sample(n, length=length if bg.length is None else None, random_state=5)
        np.testing.assert_array_equal(got, letter_by_letter(bg, n, length, 5))


def test_uniform():
    bg = MarkovBackground.uniform(6, order=2)
    assert bg.length == 6 and bg.order == 2
    np.testing.assert_allclose(bg.marginal(3, 1), 1 / 64)
    hom = MarkovBackground.uniform()
    assert hom.length is None and hom.log_prob(["ACGT"])[0] == pytest.approx(4 * np.log(0.25))
    with pytest.raises(SeqimpError, match="length must exceed the order 2"):
        MarkovBackground.uniform(2, order=2)


@pytest.mark.parametrize("order, positional", [(0, False), (0, True), (1, False), (1, True), (2, False), (3, True)])
def test_fit_counts_only_known_contexts_and_letters(order, positional):
    """With unknown letters (code 4, N): the counts are those of a plain loop over every (D-mer, next
    letter) whose D+1 letters are all known, each at its own position; a record whose first D letters
    hold one adds no initial D-mer."""
    rng = np.random.default_rng(10 + order * 2 + positional)
    L = 11
    X = rng.integers(0, A, size=(200, L))
    X[rng.random(X.shape) < 0.12] = A                    # scattered N
    X[:15, :4] = A                                       # records starting with a gap
    X[15] = A                                            # a record of N only
    for pseudocount in (0.0, 0.5):
        bg = MarkovBackground(order=order, positional=positional, pseudocount=pseudocount).fit(X.astype(np.uint8))
        counts_init = np.zeros(A ** order)
        counts = np.zeros((L - order, A ** order, A))
        for x in X:
            if all(v < A for v in x[:order]):
                counts_init[sum(int(v) * A ** (order - 1 - t) for t, v in enumerate(x[:order]))] += 1
            for i in range(order, L):
                window = x[i - order:i + 1]
                if all(v < A for v in window):
                    c = sum(int(v) * A ** (order - 1 - t) for t, v in enumerate(window[:-1]))
                    counts[i - order, c, window[-1]] += 1
        if not positional:
            counts = counts.sum(axis=0)
        counts += pseudocount
        tot = counts.sum(axis=-1, keepdims=True)
        np.testing.assert_allclose(bg.transitions_, np.where(tot > 0, counts / np.maximum(tot, 1e-300), 0.25),
                                   rtol=1e-12)
        init = counts_init + pseudocount
        np.testing.assert_allclose(bg.initial_, init / init.sum(), rtol=1e-12)
        assert bg.length == (L if positional else None)


def test_fit_reads_n_in_strings_and_refuses_other_letters():
    bg = MarkovBackground(order=1, pseudocount=0).fit(["ACNGT", "ACGTN"])
    # pairs AC, GT (first); AC, CG, GT (second): the pairs with N are not counted
    np.testing.assert_allclose(bg.transitions_[0], [0, 1, 0, 0])
    np.testing.assert_allclose(bg.transitions_[2], [0, 0, 0, 1])
    np.testing.assert_allclose(bg.transitions_[1], [0, 0, 1, 0])
    with pytest.raises(SeqimpError, match=r"invalid symbol 'Z' at position 3"):
        MarkovBackground(order=1).fit(["ACZGT"])
