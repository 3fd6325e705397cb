"""Benchmark of Relative Feature Importance (Holz & Loew) with exhaustive search.

10 features (the paper's Table 1 problem: 3 signal features + 7 N(0,1) noise
features), 2,400 samples, all 1,023 subsets on 10 resampled data sets.
Target: under 2 minutes on 2 cores. Prints the wall time, CPU time, the load
average (the machine may be shared) and, as a same-process baseline, the time
of one subset evaluation, so the whole run can be compared with
1,023 x that figure.

    python scripts/bench_rfi.py [--n-per-cluster 600] [--noise 7] [--n-jobs 2]
"""

from __future__ import annotations

import argparse
import os
import time

import joblib
import numpy as np

from seqimp.tabular._rfi import _SubsetEvaluator, _subsample, relative_feature_importance, table1_problem


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n-per-cluster", type=int, default=600)
    ap.add_argument("--noise", type=int, default=7)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--n-jobs", type=int, default=2, help="joblib workers over subsets (default 2)")
    args = ap.parse_args()
    X, y = table1_problem(args.n_per_cluster, n_noise=args.noise, random_state=args.seed)
    print(f"data: {X.shape[0]} samples x {X.shape[1]} features, exhaustive search over {2 ** X.shape[1] - 1} subsets")
    print(f"load average before: {' '.join(f'{v:.2f}' for v in os.getloadavg())} on {os.cpu_count()} cores")

    # baseline in the same process: evaluate the full feature set once (10 data sets)
    rng = np.random.default_rng(args.seed)
    opts = {"within": "nonparametric", "between": "nonparametric", "distance": "euclidean"}
    samples = [_subsample(y, 2, rng) for _ in range(10)]
    ev = _SubsetEvaluator(X, y, 2, samples, 5, opts)
    t0 = time.perf_counter()
    ev.block_errors(tuple(range(X.shape[1])))
    one = time.perf_counter() - t0
    print(f"one subset ({X.shape[1]} features, 10 data sets): {one:.3f} s")

    w0, c0 = time.perf_counter(), time.process_time()
    with joblib.parallel_config(n_jobs=args.n_jobs):
        res = relative_feature_importance(X, y, random_state=args.seed)
    wall, cpu = time.perf_counter() - w0, time.process_time() - c0
    # with workers the parent's CPU time misses theirs, so only report it when sequential
    cpu_note = f", CPU {cpu:.1f} s (ideal wall on 2 idle cores ~{cpu / 2:.0f} s)" if args.n_jobs == 1 else ""
    print(f"relative_feature_importance with n_jobs={args.n_jobs}: wall {wall:.1f} s{cpu_note} "
          f"({wall / (one * (2 ** X.shape[1] - 1)):.2f} x 1,023 times the full-set evaluation)")
    print(f"load average after: {' '.join(f'{v:.2f}' for v in os.getloadavg())}")
    print(f"target < 120 s wall: {'met' if wall < 120 else 'NOT met'}")
    print(f"optimal subset (1-based): {[int(f) + 1 for f in res.optimal_subset]}, ranks: {res.ranks.tolist()}")


if __name__ == "__main__":
    main()
