"""Implied POIM (vs brute force and the POIM engine), simplex least squares, the motif fit,
candidates and greedy assembly."""

import itertools

import numpy as np
import pytest
from scipy.optimize import minimize

from seqimp.errors import SeqimpError
from seqimp.motifs import Motif, discover_motifs, fit_motifs, implied_poim, motif_candidates
from seqimp.motifs._candidates import assemble_motif
from seqimp.motifs._fit import simplex_lstsq, trim_motif
from seqimp.motifs._implied_poim import placement_weights
from seqimp.importance import POIMResult


def _result(tables):
    return POIMResult(tables, tables, expected_score=0.0, score_std=1.0)


def _brute_poim(motifs, L, K):
    """E[s | z at j] - E[s] by enumerating all 4**L sequences."""
    X = np.array(list(itertools.product(range(4), repeat=L)))
    s = np.zeros(len(X))
    for m in motifs:
        starts, w = placement_weights(m.start - 1, m.spread, m.length, L)
        for t, wt in zip(starts, w):
            s += wt * np.prod([4 * m.pwm[l, X[:, t + l]] for l in range(m.length)], axis=0)
    out = []
    for k in range(1, K + 1):
        table = np.zeros((L - k + 1, 4 ** k))
        for j in range(L - k + 1):
            idx = np.zeros(len(X), dtype=np.int64)
            for p in range(k):
                idx = 4 * idx + X[:, j + p]
            table[j] = np.bincount(idx, weights=s, minlength=4 ** k) / np.bincount(idx, minlength=4 ** k) - s.mean()
        out.append(table)
    return out


def test_implied_poim_matches_brute_force():
    rng = np.random.default_rng(1)
    motifs = [Motif("a", rng.dirichlet(np.ones(4), 3), start=2, spread=0.8),
              Motif("b", rng.dirichlet(np.ones(4), 2), start=4, spread=0.0)]
    got = implied_poim(motifs, 6, 3)
    for g, want in zip(got, _brute_poim(motifs, 6, 3)):
        np.testing.assert_allclose(g, want, atol=1e-12)


def test_implied_poim_matches_poim_engine():
    """A fixed-start motif's scorer is one order-m table of PositionalWeights: same POIM."""
    from seqimp.background import MarkovBackground
    from seqimp.importance import poim
    from seqimp.kernels import PositionalWeights

    rng = np.random.default_rng(2)
    L, m, t = 12, 4, 5
    motif = Motif("a", rng.dirichlet(np.ones(4), m), start=t + 1)
    tables = [np.zeros((L - k + 1, 4 ** k)) for k in range(1, m + 1)]
    codes = np.array(list(itertools.product(range(4), repeat=m)))
    tables[m - 1][t, :] = np.prod(4 * motif.pwm[np.arange(m), codes], axis=1)
    exact = poim(PositionalWeights(tables), MarkovBackground.uniform(L), 5)
    for k, table in enumerate(implied_poim(motif, L, 5), start=1):
        np.testing.assert_allclose(table, exact.poim[k - 1], atol=1e-10)


def _ratio_products(pwm, starts, positions, k):
    """The NumPy formulation the kernels replaced: prod over the k-mer's letters of 4 r_l(letter)
    (1 outside the motif), shape (len(positions), len(starts), 4**k), over every start."""
    m = pwm.shape[0]
    ratio = np.vstack([4.0 * pwm, np.ones((1, 4))])
    out = None
    for p in range(k):
        col = positions[:, None] + p - starts[None, :]
        col = np.where((col >= 0) & (col < m), col, m)
        f = ratio[col]
        out = f if out is None else (out[..., :, None] * f[..., None, :]).reshape(out.shape[:2] + (-1,))
    return out


def _column_design_numpy(pwm, col, starts, weights, alpha, orders, positions_by_order):
    excl = pwm.copy()
    excl[col] = 0.25
    bases, designs = [], []
    for a, k, pos in zip(alpha, orders, positions_by_order):
        prod = _ratio_products(excl, starts, pos, k) * weights[None, :, None]
        offset = col + starts[None, :] - pos[:, None]
        inside = (offset >= 0) & (offset < k)
        bases.append(a * ((prod * ~inside[..., None]).sum(axis=1) - weights.sum()).ravel())
        z = np.arange(4 ** k)
        G = np.zeros((pos.size, 4 ** k, 4))
        for p in range(k):
            sel = offset == p
            if sel.any():
                G[:, z, (z >> (2 * (k - 1 - p))) & 3] += 4.0 * a * (prod * sel[..., None]).sum(axis=1)
        designs.append(G.reshape(-1, 4))
    return np.concatenate(bases), np.concatenate(designs, axis=0)


def test_implied_poim_kernels_against_the_numpy_formulation():
    """The kernels visit only the starts that overlap a row; the NumPy formulation used every start."""
    from seqimp.motifs._implied_poim import column_design, motif_contribution, per_start_contributions

    rng = np.random.default_rng(3)
    pwm = rng.dirichlet(np.ones(4), 5)
    L, orders, alpha = 30, [1, 2, 3], np.array([0.7, 1.3, 0.4])
    positions = [np.arange(2, L - k - 1) for k in orders]
    starts = np.arange(0, L - 5 + 1)  # every start, as a position-free motif has
    weights = rng.random(starts.size)
    weights[3] = 0.0
    weights /= weights.sum()
    slow = np.concatenate([a * np.tensordot(_ratio_products(pwm, starts, pos, k) - 1.0, weights, axes=([1], [0])).ravel()
                           for a, k, pos in zip(alpha, orders, positions)])
    assert np.allclose(motif_contribution(pwm, starts, weights, alpha, orders, positions), slow, rtol=1e-12, atol=1e-12)
    per = np.concatenate([(a * (_ratio_products(pwm, starts, pos, k) - 1.0)).transpose(0, 2, 1).reshape(-1, starts.size)
                          for a, k, pos in zip(alpha, orders, positions)])
    assert np.allclose(per_start_contributions(pwm, starts, alpha, orders, positions), per, rtol=1e-12, atol=1e-12)
    for col in range(5):
        base, G = column_design(pwm, col, starts, weights, alpha, orders, positions)
        base0, G0 = _column_design_numpy(pwm, col, starts, weights, alpha, orders, positions)
        assert np.allclose(base, base0, rtol=1e-12, atol=1e-12) and np.allclose(G, G0, rtol=1e-12, atol=1e-12)
        assert np.allclose(base + G @ pwm[col], slow, rtol=1e-12, atol=1e-12)  # affine in the column


def test_prefix_products_are_the_bits_of_the_letter_loop():
    """_products builds a k-mer's product from its prefixes' products; every k-mer's factors are
    multiplied in the order of a loop over its letters (rows outside the motif and ``skip`` left
    out), so the numbers are the same to the bit."""
    from seqimp.motifs._implied_kernels import _products

    rng = np.random.default_rng(5)
    m = 5
    ratio = np.vstack([4.0 * rng.dirichlet(np.ones(4), size=m), np.ones((1, 4))])
    for k in (1, 2, 3, 4):
        prod = np.empty(4 ** k)
        for j, t, skip in itertools.product(range(-1, 8), range(0, 6), (-1, 0, 2, 4)):
            _products(ratio, m, j, t, k, skip, prod)
            want = np.empty(4 ** k)
            for z in range(4 ** k):
                value = 1.0
                for p in range(k):
                    row = j + p - t
                    if 0 <= row < m and row != skip:
                        value *= ratio[row, (z >> (2 * (k - 1 - p))) & 3]
                want[z] = value
            assert prod.tobytes() == want.tobytes(), (k, j, t, skip)


def test_column_sweep_kernel_equals_column_design_and_simplex_lstsq_column_by_column():
    """The fused PWM step of fit_motifs (one numba call per motif and sweep) against the path it
    replaced: column_design's affine form, weighted, and simplex_lstsq, one column after another
    (each seeing the columns before it already updated); a depleted motif's sign included."""
    from seqimp.motifs._implied_kernels import column_sweep_kernel
    from seqimp.motifs._implied_poim import column_design

    rng = np.random.default_rng(5)
    L, orders, alpha = 24, [1, 2, 3], np.array([0.9, 1.4, 0.6])
    positions = [np.arange(3, L - k - 2) for k in orders]
    flat = np.concatenate(positions).astype(np.int64)
    pos_offsets = np.concatenate([[0], np.cumsum([p.size for p in positions])]).astype(np.int64)
    entry_offsets = np.concatenate([[0], np.cumsum([p.size * 4 ** k for p, k in zip(positions, orders)])]).astype(np.int64)
    for sign, starts in ((1.0, np.arange(6, 11)), (-1.0, np.arange(0, L - 6 + 1))):
        pwm = rng.dirichlet(np.ones(4), 6)
        weights = rng.random(starts.size)
        weights[1] = 0.0
        weights /= weights.sum()
        w = rng.random(entry_offsets[-1]) + 0.5
        target = rng.normal(size=entry_offsets[-1])
        slow = pwm.copy()
        for col in range(6):
            base, G = column_design(slow, col, starts, weights, alpha, orders, positions)
            slow[col] = simplex_lstsq(sign * w[:, None] * G, target - sign * w * base)
        fast = pwm.copy()
        column_sweep_kernel(fast, starts.astype(np.int64), weights, alpha, np.array(orders, dtype=np.int64), flat,
                            pos_offsets, entry_offsets, w, target, sign, 1e-10)
        assert np.allclose(fast, slow, rtol=1e-9, atol=1e-12)
        assert not np.allclose(fast, pwm)  # the sweep changed the columns


def test_simplex_lstsq_matches_slsqp():
    rng = np.random.default_rng(3)
    for _ in range(25):
        G, c = rng.normal(size=(15, 4)), 3 * rng.normal(size=15)
        x = simplex_lstsq(G, c)
        assert x.min() >= 0 and abs(x.sum() - 1) < 1e-12
        ref = minimize(lambda v: np.sum((G @ v - c) ** 2), np.full(4, 0.25), method="SLSQP",
                       bounds=[(0, 1)] * 4, constraints=[{"type": "eq", "fun": lambda v: v.sum() - 1}],
                       options={"ftol": 1e-14, "maxiter": 500})
        assert np.sum((G @ x - c) ** 2) <= ref.fun + 1e-8
    # an interior optimum is the unconstrained least-squares point
    x0 = np.array([0.1, 0.2, 0.3, 0.4])
    np.testing.assert_allclose(simplex_lstsq(G, G @ x0), x0, atol=1e-6)


def test_fit_recovers_a_known_motif():
    L = 30
    truth = Motif("t", [[.8, .1, .05, .05], [.05, .05, .1, .8], [.1, .7, .1, .1], [.05, .85, .05, .05],
                        [.6, .2, .1, .1], [.1, .1, .7, .1]], start=12)
    result = _result(implied_poim(truth, L, 3))
    rng = np.random.default_rng(5)
    start = Motif("init", 0.5 * truth.pwm + 0.5 * rng.dirichlet(np.ones(4), 6), start=11)  # start one off
    fit = fit_motifs(result, [start], max_iter=200, tol=1e-14)
    m = fit.motifs[0]
    assert m.start == 12 and m.spread < 1e-3
    np.testing.assert_allclose(m.pwm, truth.pwm, atol=2e-3)
    np.testing.assert_allclose(fit.alpha, 1.0, atol=2e-3)
    assert fit.r2 > 1 - 1e-6
    assert all(b <= a + 1e-12 for a, b in zip(fit.objective, fit.objective[1:]))  # never increases
    # with a scale of its own per order, only the shape within every order is matched
    scaled = _result(implied_poim(truth, L, 3, alpha=[[2.0, 0.7, 0.1]]))
    fit = fit_motifs(scaled, [start], per_order=True, max_iter=200, tol=1e-14)
    np.testing.assert_allclose(fit.alpha, [[2.0, 0.7, 0.1]], rtol=5e-3)
    np.testing.assert_allclose(fit.motifs[0].pwm, truth.pwm, atol=2e-3)


def test_discover_two_overlapping_motifs_with_spread():
    L = 40
    truth = [Motif.from_consensus("a", "GATTACA", purity=0.85, start=10),
             Motif.from_consensus("b", "CCGTGG", purity=0.9, start=14, spread=0.7)]
    result = _result(implied_poim(truth, L, 6, alpha=[[1] * 6, [0.5] * 6]))
    cands = motif_candidates(result, 5)
    assert list(cands.columns) == ["rank", "oligomer", "order", "position", "score", "importance", "direction"]
    assert cands["position"][0] == 10 and cands["oligomer"][0] == "GATTAC"
    assert abs(cands["position"][1] - 14) <= 1 and "CGTGG" in cands["oligomer"][1]
    found = discover_motifs(result, max_motifs=3)
    by_consensus = {m.consensus: m for m in found.motifs}
    assert set(by_consensus) == {"GATTACA", "CCGTGG"}
    assert by_consensus["GATTACA"].start == 10 and by_consensus["CCGTGG"].start == 14
    assert abs(by_consensus["CCGTGG"].spread - 0.7) < 0.1
    np.testing.assert_allclose(by_consensus["GATTACA"].pwm, truth[0].pwm, atol=0.02)
    table = found.table()
    assert list(table["name"]) == ["motif1", "motif2"] and table["score"][0] >= table["score"][1]


def test_greedy_assembly_and_trim():
    truth = Motif.from_consensus("a", "TTGACGCA", purity=0.9, start=6)
    result = _result(implied_poim(truth, 25, 4))
    m = assemble_motif(result, 4, 8)
    assert "TTGACGCA" in m.consensus and m.start <= 6
    assert m.consensus.index("TTGACGCA") + m.start == 6
    flank = Motif("f", np.vstack([np.full((2, 4), .25), truth.pwm, np.full((1, 4), .25)]), start=4)
    cut = trim_motif(flank)
    assert cut.consensus == "TTGACGCA" and cut.start == 6
    with pytest.raises(SeqimpError, match="position 30 is outside 1..22"):
        assemble_motif(result, 4, 30)


def test_motif_longer_than_the_sequences():
    long = Motif.from_consensus("long", "ACGTACGTACGT", start=1)
    result = _result(implied_poim(Motif.from_consensus("a", "ACG", start=2), 10, 2))
    with pytest.raises(SeqimpError, match=r"motif long \(length 12\) is longer than the sequences \(length 10\)"):
        fit_motifs(result, [long])
    with pytest.raises(SeqimpError, match="longer than the sequences"):
        implied_poim(long, 10, 2)
    with pytest.raises(SeqimpError, match=r"orders must lie in 1..2"):
        fit_motifs(result, [Motif.from_consensus("a", "ACG", start=2)], orders=[1, 3])


def test_shifted_copies_count_as_one_motif():
    from seqimp.motifs._copies import same_motif as _same

    a = Motif.from_consensus("a", "ATGACTCAA", start=20)
    assert _same(a, Motif.from_consensus("b", "GACTCA", start=24))  # a's GACTCA, two positions on
    assert _same(a, Motif.from_consensus("c", "TGACTCA", start=23), max_shift=3)
    assert not _same(a, Motif.from_consensus("c", "TGACTCA", start=25), max_shift=3)
    assert not _same(Motif.from_consensus("x", "CGTAATTA", start=21), Motif.from_consensus("y", "TTCACCCT", start=25))

