#!/usr/bin/env python
"""Benchmark of seqimp.tabular.permutation_importance. Prints figures and ratios; asserts nothing.

1. ``strategy="shuffle"`` against ``sklearn.inspection.permutation_importance`` on the
   same fitted model, data, loss (MSE difference / neg MSE) and ``n_repeats``, one job
   each, for a cheap model (Ridge: overhead-bound) and a costlier one
   (HistGradientBoostingRegressor: prediction-bound). Ratio = sklearn time / ours.
2. ``strategy="all_pairs"`` (the exact n(n-1) estimator) at n = 2,000: time per
   feature, rows scored per second, and the time of the same number of rows scored
   in one plain ``predict`` call (the floor).

Times are the best of ``--repeat`` runs. OpenMP is limited to one thread
(``OMP_NUM_THREADS=1`` unless set), so that both sides run single-threaded on a
shared machine.

    python scripts/bench_tabular.py [--n 5000] [--features 10] [--n-repeats 10] [--repeat 3]
"""

from __future__ import annotations

import argparse
from pathlib import Path
import sys
import os

os.environ.setdefault("OMP_NUM_THREADS", "1")

import numpy as np
from sklearn.ensemble import HistGradientBoostingRegressor
from sklearn.inspection import permutation_importance as sk_permutation_importance
from sklearn.linear_model import Ridge

from seqimp.tabular import permutation_importance

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _timing import best_of  # noqa: E402


def make_data(n, d, seed):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    w = np.linspace(2.0, 0.0, d)
    y = X @ w + np.sin(2 * X[:, 0]) + 0.5 * rng.normal(size=n)
    return X, y


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=5000)
    ap.add_argument("--features", type=int, default=10)
    ap.add_argument("--n-repeats", type=int, default=10)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--pairs-n", type=int, default=2000)
    ap.add_argument("--pairs-features-hgb", type=int, default=2,
                    help="features scored with all_pairs for the (slow) boosting model")
    args = ap.parse_args(argv)

    X, y = make_data(args.n, args.features, 0)
    models = {
        "Ridge": Ridge(alpha=1.0).fit(X, y),
        "HistGradientBoosting": HistGradientBoostingRegressor(max_iter=100, random_state=0).fit(X, y),
    }
    print(f"1. shuffle vs scikit-learn: n = {args.n}, d = {args.features}, n_repeats = {args.n_repeats}, "
          f"n_jobs = 1, best of {args.repeat}")
    print(f"{'model':22}{'sklearn s':>11}{'seqimp s':>10}{'ratio':>8}{'max |mean diff| / se':>22}")
    for name, model in models.items():
        t_sk, sk = best_of(lambda: sk_permutation_importance(
            model, X, y, scoring="neg_mean_squared_error", n_repeats=args.n_repeats, random_state=0,
            n_jobs=1), args.repeat)
        t_us, us = best_of(lambda: permutation_importance(
            model, X, y, loss="mse", n_repeats=args.n_repeats, random_state=0), args.repeat)
        se = np.sqrt((sk.importances.var(axis=1, ddof=1) + us.importances.var(axis=1, ddof=1)) / args.n_repeats)
        dev = np.max(np.abs(sk.importances_mean - us.importances_mean) / np.maximum(se, 1e-300))
        print(f"{name:22}{t_sk:>11.3f}{t_us:>10.3f}{t_sk / t_us:>8.2f}{dev:>22.2f}")

    n = args.pairs_n
    Xp, yp = X[:n], y[:n]
    rows = n * (n - 1)
    print(f"\n2. all_pairs at n = {n}: {rows:,} scored rows per feature")
    print(f"{'model':22}{'features':>9}{'total s':>9}{'s/feature':>11}{'Mrows/s':>9}{'plain predict s':>17}"
          f"{'overhead':>10}")
    for name, model in models.items():
        d = args.features if name == "Ridge" else min(args.features, args.pairs_features_hgb)
        t_ap, _ = best_of(lambda: permutation_importance(
            model, Xp, yp, strategy="all_pairs", n_repeats=1, groups=[[j] for j in range(d)]), 1)
        big = np.repeat(Xp[: max(1, (1 << 17) // n)], n, axis=0)[: 1 << 17]
        t_pred, _ = best_of(lambda: model.predict(big), args.repeat)
        floor = t_pred * rows * d / len(big)
        print(f"{name:22}{d:>9}{t_ap:>9.2f}{t_ap / d:>11.3f}{rows * d / t_ap / 1e6:>9.2f}"
              f"{floor:>17.2f}{t_ap / floor:>10.2f}")


if __name__ == "__main__":
    main()
