"""Timings of the WD/WDS and gkm kernels on sequences without and with unknown bases (N).

Prints, for one code tree (run it once per tree to compare two versions on the same machine):

1. WD Gram matrix 1,000 x 1,000, L = 100, degree 8, shifts 0 and 4;
2. ``dcd_svm``: 5 passes over 20,000 sequences of 141 nt, degree 8 (a planted GATTACA);
3. ``wd_scores`` of those 20,000 sequences;
4. ``GKMClassifier(l=10, k=6)``: 5 passes over 1,000 sequences of 200 nt;

each the best of ``--repeats`` runs on warm numba caches. ``--with-n SHARE`` puts unknown bases at
that share of the positions (seeded) in every set (a tree that refuses N cannot run it). ``--cpu``
times the process's CPU seconds instead of wall-clock seconds: on a shared machine, with
``NUMBA_NUM_THREADS=1``, the figure that other processes disturb least.

Usage: ``python scripts/bench_unknown_bases.py [--repeats 3] [--with-n 0.01] [--cpu]``.
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _timing import seconds  # noqa: E402


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--with-n", type=float, default=0.0, help="share of positions that are N (code 4)")
    p.add_argument("--cpu", action="store_true", help="CPU seconds of the process instead of wall-clock seconds")
    args = p.parse_args()
    clock = time.process_time if args.cpu else time.perf_counter
    warnings.simplefilter("ignore")
    from seqimp import wd_kernel
    from seqimp.kernels import GKMClassifier
    from seqimp.kernels._dcd import dcd_svm
    from seqimp.kernels._implicit import wd_scores

    rng = np.random.default_rng(0)

    def unknown(X):
        if args.with_n > 0:
            X[rng.random(X.shape) < args.with_n] = 4
        return X

    def planted(n, length, at):
        """n sequences, GATTACA at ``at`` in the first half (label 1), N at the rate asked."""
        X = rng.integers(0, 4, (n, length), dtype=np.uint8)
        X[:n // 2, at:at + 7] = [2, 0, 3, 3, 0, 1, 0]
        return unknown(X), np.r_[np.ones(n // 2), np.zeros(n - n // 2)].astype(int)

    X = unknown(rng.integers(0, 4, (1000, 100), dtype=np.uint8))
    wd_kernel(X[:5], degree=8)
    wd_kernel(X[:5], degree=8, shifts=4)
    print(f"WD Gram 1,000 x 1,000, L 100, degree 8, shifts 0: {seconds(lambda: wd_kernel(X, degree=8), args.repeats, clock):.3f} s")
    print(f"WD Gram 1,000 x 1,000, L 100, degree 8, shifts 4: "
          f"{seconds(lambda: wd_kernel(X, degree=8, shifts=4), args.repeats, clock):.3f} s")
    Xt, y = planted(20000, 141, 60)
    dcd_svm(Xt[:50], y[:50], degree=8, max_iter=2)
    print(f"dcd_svm, 5 passes, 20,000 x 141 nt, degree 8: "
          f"{seconds(lambda: dcd_svm(Xt, y, degree=8, max_iter=5), args.repeats, clock):.3f} s")
    sol = dcd_svm(Xt, y, degree=8, max_iter=5)
    print(f"wd_scores, 20,000 x 141 nt, degree 8: "
          f"{seconds(lambda: wd_scores(Xt, sol.coef, degree=8), args.repeats, clock):.3f} s")
    G, yg = planted(1000, 200, 90)
    GKMClassifier().fit(G[490:510], yg[490:510])
    print(f"GKMClassifier(10, 6), 5 passes, 1,000 x 200 nt: "
          f"{seconds(lambda: GKMClassifier(max_iter=5).fit(G, yg), args.repeats, clock):.3f} s")


if __name__ == "__main__":
    main()
