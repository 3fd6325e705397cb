"""The motif step's dominant costs, each against the formulation it replaced, in one process.

A profile of ``seqimp motifs`` on ``motif_benchmark_2/masked`` (``python -m cProfile``) put the
time in three places: the EM of the refinement (letter counts of every window), the NNLS of the
POIM fit (a position-free motif's design of 13,296 POIM entries x 151 starts) and the design of
a PWM column in that fit (arrays over every start). A second profile put it
in the EM iteration again (position-free candidates run 100 of them over every start), in the
exact simplex solve of every PWM column and in the Python loop around the columns. Each is
timed here beside its earlier formulation on the same inputs, in the same process (best of
``--repeat`` runs; the machine may be shared, so read the ratios, not the seconds). The last
rows: the deeper search's word counts (word indices, sequences holding each word, gapped words),
numpy array operations and a sort per row before, numba kernels now:

    python scripts/bench_motifs.py [--repeat 3]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
from numba import njit

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _timing import seconds as best_of  # noqa: E402


def counts_numpy(post, codes, starts, m):
    """The EM's letter counts as they were: window letters gathered, one bincount per column."""
    from seqimp.motifs._sites import window_letters

    counts = np.zeros((m, 4))
    for s, strand in enumerate(("+", "-")[:post.shape[2]]):
        letters = window_letters(codes, starts, m, strand)
        w = post[:, :, s].ravel()
        for col in range(m):
            counts[col] += np.bincount(letters[:, :, col].ravel(), weights=w, minlength=4)[:4]
    return counts


@njit(cache=True)
def em_kernel_before(logp, lognull, codes, starts, n_strands, gamma, counts):
    """The EM iteration as it was before the per-strand log-odds tables: log2 PWM and null read
    per window letter and strand, intp codes (the counts of :func:`seqimp.motifs._sites.em_step`)."""
    m = logp.shape[0]
    S = starts.shape[0]
    ln2 = np.log(2.0)
    prior = gamma / (S * n_strands)
    llr = np.empty((S, n_strands))
    loglik = 0.0
    mass = 0.0
    for i in range(codes.shape[0]):
        top = -np.inf
        for j in range(S):
            s = starts[j]
            null = 0.0
            plus = 0.0
            minus = 0.0
            for c in range(m):
                x = codes[i, s + c]
                null += lognull[x]
                plus += logp[c, x]
                minus += logp[c, 3 - codes[i, s + m - 1 - c]]
            llr[j, 0] = (plus - null) * ln2
            if n_strands == 2:
                llr[j, 1] = (minus - null) * ln2
            for k in range(n_strands):
                if llr[j, k] > top:
                    top = llr[j, k]
        total = 0.0
        for j in range(S):
            for k in range(n_strands):
                llr[j, k] = np.exp(llr[j, k] - top) * prior
                total += llr[j, k]
        den = (1.0 - gamma) * np.exp(-top) + total
        loglik += np.log(den) + top
        mass += total / den
        for j in range(S):
            s = starts[j]
            w = llr[j, 0] / den
            for c in range(m):
                counts[c, codes[i, s + c]] += w
            if n_strands == 2:
                w = llr[j, 1] / den
                for c in range(m):
                    counts[c, 3 - codes[i, s + m - 1 - c]] += w
    return loglik, mass


def simplex_before(G, c, ridge=1e-10):
    """The simplex least squares as it was: faces enumerated in Python, one np.linalg.solve each."""
    from itertools import combinations

    d = G.shape[1]
    H = G.T @ G
    lam = max(ridge * np.trace(H) / d, 1e-300)
    H = H + lam * np.eye(d)
    g = G.T @ c + lam / d
    best, best_val = np.full(d, 1.0 / d), np.inf
    scale = np.abs(H).max() + np.abs(g).max()
    for size in range(d, 0, -1):
        for S in combinations(range(d), size):
            S = list(S)
            u, v = np.linalg.solve(H[np.ix_(S, S)], np.column_stack([g[S], np.ones(size)])).T
            sol = u + (1.0 - u.sum()) / v.sum() * v
            if (sol < -1e-12).any():
                continue
            x = np.zeros(d)
            x[S] = np.clip(sol, 0.0, None)
            x /= x.sum()
            grad = H @ x - g
            if size == d or grad[[i for i in range(d) if i not in S]].min() >= grad[S].mean() - 1e-9 * scale:
                return x
            val = x @ H @ x - 2 * g @ x
            if val < best_val:
                best, best_val = x, val
    return best


def sweep_before(pwm, starts, weights, alpha, orders, positions, w, target, sign):
    """The PWM step as it was: per column, its affine design and simplex_lstsq (today's), in Python."""
    from seqimp.motifs._fit import simplex_lstsq
    from seqimp.motifs._implied_poim import column_design

    for col in range(pwm.shape[0]):
        base, G = column_design(pwm, col, starts, weights, alpha, orders, positions)
        pwm[col] = simplex_lstsq(sign * w[:, None] * G, target - sign * w * base)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
    from scipy.optimize import nnls
    from test_motifs_fit import _column_design_numpy

    from seqimp.motifs._fit import _nnls
    from seqimp.motifs._implied_poim import column_design
    from seqimp.motifs._sites import weighted_counts

    rng = np.random.default_rng(0)
    rows = []
    # EM counts: 1,000 positives of 160 nt, a 14-column PWM over a window of 30 starts, both strands
    codes = rng.integers(0, 4, (1000, 160)).astype(np.intp)
    starts = np.arange(30, 60)
    post = rng.random((1000, starts.size, 2))
    weighted_counts(post, codes, starts, 14)  # compiled (or loaded from the cache) before timing
    assert np.allclose(weighted_counts(post, codes, starts, 14), counts_numpy(post, codes, starts, 14))
    rows.append(("EM letter counts (1,000 x 160 nt, 30 starts, 2 strands)",
                 best_of(lambda: counts_numpy(post, codes, starts, 14), args.repeat),
                 best_of(lambda: weighted_counts(post, codes, starts, 14), args.repeat)))
    # NNLS of a position-free placement: 13,296 entries x 151 starts, each column non-zero on 1,200 rows
    n, d = 13296, 151
    A = np.zeros((n, d))
    for j in range(d):
        lo = j * 84
        A[lo:lo + 1200, j] = rng.random(len(A[lo:lo + 1200, j]))
    b = A @ np.maximum(rng.normal(size=d), 0) + 0.1 * rng.random(n)
    assert np.allclose(_nnls(A, b), nnls(A, b, maxiter=50 * d)[0], atol=1e-8)
    rows.append(("NNLS, 13,296 x 151 (sparse placement design)",
                 best_of(lambda: nnls(A, b, maxiter=50 * d)[0], args.repeat), best_of(lambda: _nnls(A, b), args.repeat)))
    # one PWM column's design for a position-free 10-column motif over 151 starts, orders 1-3
    pwm = rng.dirichlet(np.ones(4), 10)
    L, orders, alpha = 160, [1, 2, 3], np.ones(3)
    positions = [np.arange(L - k + 1) for k in orders]
    st = np.arange(L - 10 + 1)
    w = np.full(st.size, 1.0 / st.size)
    column_design(pwm, 4, st, w, alpha, orders, positions)
    rows.append(("PWM column design, position-free motif (151 starts, orders 1-3)",
                 best_of(lambda: _column_design_numpy(pwm, 4, st, w, alpha, orders, positions), args.repeat),
                 best_of(lambda: column_design(pwm, 4, st, w, alpha, orders, positions), args.repeat)))
    rows += _second_profile(rng, args.repeat)
    rows += _word_counting(rng, args.repeat)
    print("| step | before (s) | now (s) | ratio |")
    print("|---|---|---|---|")
    for name, before, now in rows:
        print(f"| {name} | {before:.4f} | {now:.4f} | {before / now:.1f}x |")
    return 0


def _second_profile(rng, repeat):
    """The rows of the second profile: EM iteration, simplex solve, PWM column sweep."""
    from seqimp.motifs._fit import simplex_lstsq
    from seqimp.motifs._implied_kernels import column_sweep_kernel
    from seqimp.motifs._sites import em_step

    rows = []
    # one EM iteration of a position-free 16-column candidate: 1,000 x 160 nt, 145 starts, 2 strands
    codes = rng.integers(0, 4, (1000, 160)).astype(np.uint8)
    wide = codes.astype(np.intp)
    pwm, bg, starts = rng.dirichlet(np.ones(4), 16), np.array([0.3, 0.2, 0.2, 0.3]), np.arange(145)

    def before():
        counts = np.zeros((16, 4))
        em_kernel_before(np.log2(pwm), np.log2(bg), wide, starts, 2, 0.4, counts)
        return counts

    now = em_step(pwm, codes, starts, ("+", "-"), bg, 0.4)[0]
    assert np.allclose(before(), now, rtol=1e-10, atol=1e-9)
    rows.append(("10 EM iterations, position-free 16 columns (1,000 x 160 nt, 145 starts, 2 strands)",
                 best_of(lambda: [before() for _ in range(10)], repeat),
                 best_of(lambda: [em_step(pwm, codes, starts, ("+", "-"), bg, 0.4) for _ in range(10)], repeat)))
    # 200 simplex solves of a PWM column's least squares (3,000 POIM entries x 4 letters)
    problems = [(rng.normal(size=(3000, 4)), rng.normal(size=3000)) for _ in range(200)]
    assert all(np.allclose(simplex_before(G, c), simplex_lstsq(G, c)) for G, c in problems[:20])
    rows.append(("200 simplex column solves (3,000 x 4)", best_of(lambda: [simplex_before(G, c) for G, c in problems],
                                                                  repeat),
                 best_of(lambda: [simplex_lstsq(G, c) for G, c in problems], repeat)))
    # one sweep over the 12 columns of a motif placed at 5 starts, orders 1-3 over 40 rows
    orders, alpha = [1, 2, 3], np.array([1.0, 0.8, 0.5])
    positions = [np.arange(20, 60 - k + 1) for k in orders]
    st, weights = np.arange(28, 33), np.full(5, 0.2)
    entries = sum(p.size * 4 ** k for p, k in zip(positions, orders))
    w, target, seed = rng.random(entries) + 0.5, rng.normal(size=entries), rng.dirichlet(np.ones(4), 12)
    flat = (np.concatenate(positions).astype(np.int64),
            np.concatenate([[0], np.cumsum([p.size for p in positions])]).astype(np.int64),
            np.concatenate([[0], np.cumsum([p.size * 4 ** k for p, k in zip(positions, orders)])]).astype(np.int64))

    def now():
        pwm = seed.copy()
        column_sweep_kernel(pwm, st, weights, alpha, np.array(orders), flat[0], flat[1], flat[2], w, target, 1.0,
                            1e-10)
        return pwm

    def slow():
        pwm = seed.copy()
        sweep_before(pwm, st, weights, alpha, orders, positions, w, target, 1.0)
        return pwm

    assert np.allclose(slow(), now(), rtol=1e-9, atol=1e-12)
    rows.append(("20 PWM column sweeps, 12 columns at 5 starts (orders 1-3, 3,360 entries)",
                 best_of(lambda: [slow() for _ in range(20)], repeat), best_of(lambda: [now() for _ in range(20)], repeat)))
    return rows


def word_codes_numpy(codes, m):
    """The m-mer indices of every window and of its reverse complement as they were: one array
    operation per letter of the word (``seqimp.motifs._gkm_seeds._word_codes``' earlier form)."""
    n, L = codes.shape
    fwd = np.zeros((n, L - m + 1), dtype=np.int64)
    rev = np.zeros_like(fwd)
    unknown = np.zeros(fwd.shape, dtype=bool)
    for j in range(m):
        letters = codes[:, j:L - m + 1 + j].astype(np.int64)
        unknown |= letters > 3
        fwd = fwd * 4 + letters
        rev = rev + (3 - letters) * 4 ** j
    fwd[unknown] = rev[unknown] = 4 ** m
    return fwd, rev


def rows_holding_sort(words, size):
    """The sequences holding each word as it was counted: a sort of every row, its first copies."""
    ordered = np.sort(words, axis=1)
    first = np.ones(ordered.shape, dtype=bool)
    first[:, 1:] = ordered[:, 1:] != ordered[:, :-1]
    return np.bincount(ordered[first], minlength=size + 1)[:size]


def gapped_words_numpy(codes, h, g):
    """Gapped-word indices (canonical) as they were: the halves' indices combined by array operations."""
    fwd_h, rev_h = word_codes_numpy(codes, h)
    span, width = h + g, codes.shape[1] - 2 * h - g + 1
    left, right = fwd_h[:, :width], fwd_h[:, span:span + width]
    fwd = left * 4 ** h + right
    rev = rev_h[:, span:span + width] * 4 ** h + rev_h[:, :width]
    unknown = (left == 4 ** h) | (right == 4 ** h)
    fwd[unknown] = rev[unknown] = 4 ** (2 * h)
    return np.minimum(fwd, rev)


def _word_counting(rng, repeat):
    """The deeper search's word counts (a Klf1-sized set, 904 x 500 nt with N): the word indices of
    one length, the sequences holding each canonical word, one gapped pattern's indices."""
    from seqimp.motifs._gkm_seeds import _word_codes, rows_holding
    from seqimp.motifs.search._gapped_words import gapped_words

    codes = rng.integers(0, 4, (904, 500)).astype(np.uint8)
    codes[rng.random(codes.shape) < 0.01] = 4
    fwd, rev = _word_codes(codes, 8)
    assert all(np.array_equal(a, b) for a, b in zip((fwd, rev), word_codes_numpy(codes, 8)))
    canon = np.minimum(fwd, rev)
    assert np.array_equal(rows_holding(canon, 4 ** 8), rows_holding_sort(canon, 4 ** 8))
    assert np.array_equal(gapped_words(codes, 4, 2)[0], gapped_words_numpy(codes, 4, 2))
    return [("8-mer indices, both strands (904 x 500 nt)",
             best_of(lambda: word_codes_numpy(codes, 8), repeat), best_of(lambda: _word_codes(codes, 8), repeat)),
            ("sequences holding each canonical 8-mer (904 x 493 windows)",
             best_of(lambda: rows_holding_sort(canon, 4 ** 8), repeat), best_of(lambda: rows_holding(canon, 4 ** 8),
                                                                               repeat)),
            ("gapped words 4 + 2 + 4, canonical (904 x 500 nt)",
             best_of(lambda: gapped_words_numpy(codes, 4, 2), repeat), best_of(lambda: gapped_words(codes, 4, 2)[0],
                                                                               repeat))]


if __name__ == "__main__":
    sys.exit(main())
