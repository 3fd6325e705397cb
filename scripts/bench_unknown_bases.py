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
import time
import warnings

import numpy as np


CLOCK = time.perf_counter


def best(fn, repeats):
    times = []
    for _ in range(repeats):
        start = CLOCK()
        fn()
        times.append(CLOCK() - start)
    return min(times)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--with-n", type=float, default=0.0, help="share of positions that are N (code 4)")
    p.add_argument("--cpu", action="store_true", help="CPU seconds of the process instead of wall-clock seconds")
    args = p.parse_args()
    global CLOCK
    if args.cpu:
        CLOCK = time.process_time
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

    X = unknown(rng.integers(0, 4, (1000, 100), dtype=np.uint8))
    wd_kernel(X[:5], degree=8)
    wd_kernel(X[:5], degree=8, shifts=4)
    print(f"WD Gram 1,000 x 1,000, L 100, degree 8, shifts 0: {best(lambda: wd_kernel(X, degree=8), args.repeats):.3f} s")
    print(f"WD Gram 1,000 x 1,000, L 100, degree 8, shifts 4: "
          f"{best(lambda: wd_kernel(X, degree=8, shifts=4), args.repeats):.3f} s")
    Xt = rng.integers(0, 4, (20000, 141), dtype=np.uint8)
    Xt[:10000, 60:67] = [2, 0, 3, 3, 0, 1, 0]
    Xt = unknown(Xt)
    y = np.r_[np.ones(10000), np.zeros(10000)].astype(int)
    dcd_svm(Xt[:50], y[:50], degree=8, max_iter=2)
    print(f"dcd_svm, 5 passes, 20,000 x 141 nt, degree 8: "
          f"{best(lambda: dcd_svm(Xt, y, degree=8, max_iter=5), args.repeats):.3f} s")
    sol = dcd_svm(Xt, y, degree=8, max_iter=5)
    print(f"wd_scores, 20,000 x 141 nt, degree 8: "
          f"{best(lambda: wd_scores(Xt, sol.coef, degree=8), args.repeats):.3f} s")
    G = rng.integers(0, 4, (1000, 200), dtype=np.uint8)
    G[:500, 90:97] = [2, 0, 3, 3, 0, 1, 0]
    G = unknown(G)
    yg = np.r_[np.ones(500), np.zeros(500)].astype(int)
    GKMClassifier().fit(G[490:510], yg[490:510])
    print(f"GKMClassifier(10, 6), 5 passes, 1,000 x 200 nt: "
          f"{best(lambda: GKMClassifier(max_iter=5).fit(G, yg), args.repeats):.3f} s")


if __name__ == "__main__":
    main()
