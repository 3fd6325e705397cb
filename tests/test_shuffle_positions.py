"""Dinucleotide-preserving shuffles and position labels."""

from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from seqimp import SeqimpError
from seqimp.io import SequenceSet, decode, dinucleotide_shuffle, encode, position_labels
from seqimp.io._positions import format_position
from seqimp.io._shuffle import shuffle_negatives


def pair_counts(codes, size):
    codes = np.asarray(codes, dtype=np.int64)
    return np.stack([np.bincount(r[:-1] * size + r[1:], minlength=size * size) for r in codes])


def few_letters(rng, n, length, size):
    """Codes (n, length) of a few letters used often, so that repeats and absent letters both occur."""
    used = rng.choice(size, size=min(size, rng.integers(1, 5)), replace=False)
    return used[rng.integers(0, used.size, size=(n, length))].astype(np.uint8)


SHUFFLE_CASES = given(st.integers(1, 4), st.integers(1, 60), st.integers(0, 2 ** 31), st.sampled_from([4, 20]))


@settings(max_examples=60, deadline=None)
@SHUFFLE_CASES
def test_shuffle_keeps_every_dinucleotide_count(n, length, seed, size):
    X = few_letters(np.random.default_rng(seed), n, length, size)
    Y = dinucleotide_shuffle(X, alphabet="dna" if size == 4 else "protein", random_state=seed)
    assert Y.shape == X.shape and Y.dtype == np.uint8
    assert np.array_equal(pair_counts(X, size), pair_counts(Y, size))
    assert np.array_equal(X[:, 0], Y[:, 0]) and np.array_equal(X[:, -1], Y[:, -1])


def test_shuffle_is_uniform_over_eulerian_sequences_and_seeded():
    x = encode(["AACACCA"])
    draws = Counter(decode(dinucleotide_shuffle(np.repeat(x, 6000, axis=0), random_state=0)))
    # the six sequences with these dinucleotide counts, start A and end A
    assert set(draws) == {"AACCACA", "ACCAACA", "AACACCA", "ACCACAA", "ACAACCA", "ACACCAA"}
    assert min(draws.values()) > 850 and max(draws.values()) < 1150       # 1000 each expected (sd ~29)
    a = dinucleotide_shuffle(["ACGTTGCAAGT" * 3], random_state=5)
    assert np.array_equal(a, dinucleotide_shuffle(["ACGTTGCAAGT" * 3], random_state=5))
    assert not np.array_equal(a, dinucleotide_shuffle(["ACGTTGCAAGT" * 3], random_state=6))


def known_stretches(row, size):
    """(start, end) of every maximal run of known letters (codes below ``size``) of a row."""
    out, start = [], None
    for i, x in enumerate(list(row) + [size]):
        if x < size and start is None:
            start = i
        elif x >= size and start is not None:
            out.append((start, i))
            start = None
    return out


@settings(max_examples=60, deadline=None)
@SHUFFLE_CASES
def test_shuffle_keeps_unknown_letters_in_place_and_every_stretch_s_pairs(n, length, seed, size):
    rng = np.random.default_rng(seed)
    X = few_letters(rng, n, length, size)
    X[rng.random(X.shape) < rng.uniform(0, 0.4)] = size      # unknown (N; X for protein), anywhere
    alphabet = "dna" if size == 4 else "protein"
    Y = dinucleotide_shuffle(X, alphabet=alphabet, random_state=seed)
    assert Y.shape == X.shape and Y.dtype == np.uint8
    np.testing.assert_array_equal(Y == size, X == size)      # unknown positions unchanged
    for x, y in zip(X, Y):
        for a, b in known_stretches(x, size):                 # each stretch: its own pairs, ends kept
            assert np.array_equal(pair_counts(x[None, a:b], size), pair_counts(y[None, a:b], size))
            assert x[a] == y[a] and x[b - 1] == y[b - 1]
    np.testing.assert_array_equal(Y, dinucleotide_shuffle(X, alphabet=alphabet, random_state=seed))


def test_a_stretch_between_unknown_letters_is_a_uniform_shuffle():
    x = encode(["NAACACCANGTN"])
    draws = Counter(decode(dinucleotide_shuffle(np.repeat(x, 6000, axis=0), random_state=0)))
    assert {d[:1] + d[8:] for d in draws} == {"NNGTN"}
    assert {d[1:8] for d in draws} == {"AACCACA", "ACCAACA", "AACACCA", "ACCACAA", "ACAACCA", "ACACCAA"}
    assert min(draws.values()) > 850 and max(draws.values()) < 1150       # 1000 each expected (sd ~29)
    # rows without unknown letters: one stretch each, the draws of the kernel before N was read (pinned)
    plain = encode(["ACGTTGCAAGT" * 3, "GGATCCATTACGAT" * 2 + "ACGTG"])
    assert decode(dinucleotide_shuffle(plain, random_state=5)) == ["ACAAAGTACAGCAACGCGTGTGCGTTAGTGTTT",
                                                                   "GACACGGGATACGTCATGATATATTTGATCCCG"]


def test_shuffle_negatives():
    pos = SequenceSet(encode(["ACGTACGGTA", "TTGACCGTAA"]), ["a", "b"])
    neg = shuffle_negatives(pos, n_shuffles=2, random_state=1)
    assert neg.ids == ["a_shuffle1", "b_shuffle1", "a_shuffle2", "b_shuffle2"]
    assert np.array_equal(pair_counts(neg.codes, 4), pair_counts(np.tile(pos.codes, (2, 1)), 4))
    with pytest.raises(SeqimpError, match="n_shuffles must be a positive integer, got 0"):
        shuffle_negatives(pos, n_shuffles=0)


def test_position_labels():
    assert position_labels(4).tolist() == [1, 2, 3, 4]
    assert position_labels(6, origin=3).tolist() == [-2, -1, 1, 2, 3, 4]
    labels = position_labels(100, origin=51)
    assert 0 not in labels and labels[50] == 1 and labels[49] == -1 and labels[0] == -50
    assert position_labels(3, origin=10).tolist() == [-9, -8, -7]
    assert format_position(3) == "+3" and format_position(-2) == "-2"
    with pytest.raises(SeqimpError, match="length must be a positive integer"):
        position_labels(0)
    with pytest.raises(SeqimpError, match="position 0 does not exist"):
        format_position(0)


def test_heatmap_ticks_read_signed_labels():
    import matplotlib.pyplot as plt

    from seqimp import MarkovBackground, PositionalWeights, poim
    from seqimp.plot import poim_heatmap

    rng = np.random.default_rng(0)
    w = PositionalWeights([rng.normal(size=(60, 4))])
    res = poim(w, MarkovBackground.uniform(), 1)
    ax = poim_heatmap(res, 1, position_labels=position_labels(60, origin=31))
    ax.figure.canvas.draw()
    ticks = [t.get_text() for t in ax.get_xticklabels() if t.get_text()]
    assert "+10" in ticks and "-10" in ticks and "0" not in ticks and "+0" not in ticks
    plt.close("all")
