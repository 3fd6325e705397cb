"""The motif step's dominant costs, each against the formulation it replaced, in one process.

A profile of ``seqimp motifs`` on ``motif_benchmark_2/masked`` (``python -m cProfile``) put the
time in three places: the EM of the refinement (letter counts of every window), the NNLS of the
POIM fit (a position-free motif's design of 13,296 POIM entries x 151 starts) and the design of
a PWM column in that fit (arrays over every start). Each is timed here beside its earlier
NumPy/SciPy formulation on the same inputs, in the same process (best of ``--repeat`` runs;
the machine may be shared, so read the ratios, not the seconds):

    python scripts/bench_motifs.py [--repeat 3]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np


def best_of(fn, repeat):
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


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
    print("| step | before (s) | now (s) | ratio |")
    print("|---|---|---|---|")
    for name, before, now in rows:
        print(f"| {name} | {before:.4f} | {now:.4f} | {before / now:.1f}x |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
