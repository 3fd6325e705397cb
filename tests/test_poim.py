"""Exact POIM/FIRM engine against brute force over all 4**L sequences and Monte Carlo."""

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
    initial, trans = random_chain(rng, order, length if kind == "positional" else None,
                                  zero_frac=0.25 if kind == "sparse" else 0.0)
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
