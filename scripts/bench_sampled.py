"""Benchmark of the sampled POIM/FIRM estimator (seqimp.importance._sampled).

Prints, in one run:

1. planting cost: seconds per 10^6 scored sequences of ``poim_sampled`` with a scorer that
   costs almost nothing (it reads one column), against the floor of merely writing the
   same 10^6 sequences into memory once and calling the scorer on them; for order-0 and
   order-2 Markov backgrounds, and with a realistic cheap scorer (degree-3 PositionalWeights);
2. the estimator's error against the exact engine (``seqimp.poim``) as ``n_samples`` grows:
   RMS error, mean reported standard error, and the share of entries within 2 and 4 SE;
3. with ``--parallel N``: wall seconds of the same ``poim_sampled`` run with one job, with
   ``n_jobs=N`` loky processes and on a ``LocalCluster`` of N worker processes
   (``joblib.parallel_config(backend="dask")``, if dask is installed), their ratios to the
   one-job run, and whether the results are bit-identical.

Usage: ``python scripts/bench_sampled.py [--quick] [--parallel N]``
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from seqimp.background import MarkovBackground
from seqimp.importance import poim
from seqimp.importance import poim_sampled
from seqimp.kernels import PositionalWeights


def cheap(X):
    """A scorer that costs almost nothing: the first symbol."""
    return X[:, 0].astype(np.float64)


def random_weights(rng, length, degree, scale=1.0):
    return PositionalWeights([scale * rng.normal(size=(length - k + 1, 4 ** k)) for k in range(1, degree + 1)])


def timed(fn, repeat=3):
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t0)
    return best, out


class Timed:
    """A scorer wrapper that adds up the seconds spent inside the scorer."""

    def __init__(self, fn):
        self.fn, self.seconds = fn, 0.0

    def __call__(self, X):
        t0 = time.perf_counter()
        out = self.fn(X)
        self.seconds += time.perf_counter() - t0
        return out


def planting(length, max_order, target_rows, batch_size, repeat):
    per_sample = 1 + sum((length - k + 1) * 4 ** k for k in range(1, max_order + 1))
    n = max(2, round(target_rows / per_sample))
    rows = n * per_sample
    scale = 1e6 / rows
    rng = np.random.default_rng(0)
    print(f"\n== planting cost: L={length}, max_order={max_order}, n_samples={n}, "
          f"{rows:,} scored sequences, batch_size={batch_size}; seconds per 10^6 scored sequences ==")
    X = rng.integers(0, 4, size=(batch_size, length)).astype(np.uint8)
    calls = -(-rows // batch_size)

    def floor():
        # write every scored sequence once (batch-sized buffers) and call the scorer on it
        for _ in range(calls):
            Y = np.empty_like(X)
            Y[:] = X
            cheap(Y)

    t_floor, _ = timed(floor, repeat)
    print(f"floor: write the {rows:,} sequences once and call the cheap scorer: {t_floor * scale:7.3f}")
    weights = random_weights(rng, length, 3)
    cases = [("cheap scorer, order 0 positional", cheap, MarkovBackground.uniform(length)),
             ("cheap scorer, order 2 homogeneous", cheap,
              MarkovBackground.from_arrays(rng.dirichlet(np.ones(16)), rng.dirichlet(np.ones(4), size=16))),
             ("degree-3 PositionalWeights, order 0", weights.score, MarkovBackground.uniform(length))]
    for name, fn, bg in cases:
        best = None
        for _ in range(repeat):
            scorer = Timed(fn)
            t0 = time.perf_counter()
            poim_sampled(scorer, bg, max_order, length=length, n_samples=n, batch_size=batch_size,
                         random_state=0)
            total = time.perf_counter() - t0
            if best is None or total < best[0]:
                best = (total, scorer.seconds)
        total, inside = best
        print(f"poim_sampled, {name:36s}: total {total * scale:7.3f}, inside the scorer {inside * scale:7.3f}, "
              f"planting and statistics {(total - inside) * scale:6.3f} ({(total - inside) / t_floor:5.1f}x the floor)")


def error_curve(length, max_order, sizes, repeat):
    rng = np.random.default_rng(1)
    weights = random_weights(rng, length, 3)
    cases = [("order 0, positional",
              MarkovBackground.from_arrays([1.0], rng.dirichlet(np.full(4, 4.0), size=(length, 1)))),
             ("order 1, homogeneous",
              MarkovBackground.from_arrays(rng.dirichlet(np.full(4, 4.0)), rng.dirichlet(np.full(4, 4.0), size=4)))]
    print(f"\n== error vs n_samples: degree-3 random weights, L={length}, max_order={max_order}; "
          f"errors over all {sum((length - k + 1) * 4 ** k for k in range(1, max_order + 1)):,} POIM entries, "
          f"{repeat} seeds each ==")
    print(f"{'background':21s} {'n_samples':>9s} {'RMS error':>10s} {'mean SE':>9s} {'RMS/SE':>7s} "
          f"{'<=2SE':>6s} {'<=4SE':>6s} {'max |z|':>8s} {'seconds':>8s}")
    for name, bg in cases:
        exact = poim(weights, bg, max_order)
        for n in sizes:
            err, se, secs = [], [], 0.0
            for seed in range(repeat):
                t0 = time.perf_counter()
                est = poim_sampled(weights.score, bg, max_order, length=length, n_samples=n, random_state=seed)
                secs += time.perf_counter() - t0
                err.append(np.concatenate([(e - t).ravel() for e, t in zip(est.poim, exact.poim)]))
                se.append(np.concatenate([s.ravel() for s in est.poim_se]))
            err, se = np.concatenate(err), np.concatenate(se)
            z = np.abs(err) / np.where(se > 0, se, np.inf)
            rms = np.sqrt(np.mean(err ** 2))
            print(f"{name:21s} {n:9d} {rms:10.4f} {se.mean():9.4f} {rms / np.sqrt(np.mean(se ** 2)):7.3f} "
                  f"{np.mean(z <= 2):6.3f} {np.mean(z <= 4):6.4f} {z.max():8.2f} {secs / repeat:8.2f}")


def parallel(n_jobs, length, max_order, n_samples, degree):
    """Section 3: one job against n_jobs loky processes and a Dask LocalCluster of n_jobs workers."""
    import joblib

    rng = np.random.default_rng(3)
    score = random_weights(rng, length, degree).score
    bg = MarkovBackground.uniform(order=1)
    rows = n_samples * (1 + sum((length - k + 1) * 4 ** k for k in range(1, max_order + 1)))
    print(f"\n== parallel batches: degree-{degree} PositionalWeights scorer, L={length}, max_order={max_order}, "
          f"n_samples={n_samples} ({rows:,} scored rows), batch_size 8192; wall seconds, one run each")

    def run(**kw):
        t0 = time.perf_counter()
        res = poim_sampled(score, bg, max_order, length=length, n_samples=n_samples, random_state=0, **kw)
        return time.perf_counter() - t0, res

    base, ref = run()
    print(f"{'one job':30s} {base:8.2f} s  ratio 1.00")

    def report(name, secs, res):
        same = all(np.array_equal(a, b, equal_nan=True) for a, b in zip(ref.poim + ref.firm, res.poim + res.firm))
        print(f"{name:30s} {secs:8.2f} s  ratio {secs / base:.2f}  bit-identical: {same}")

    report(f"n_jobs={n_jobs} (loky processes)", *run(n_jobs=n_jobs))
    try:
        import distributed
    except ImportError:
        print("dask: not installed (pip install 'seqimp[dask]')")
        return
    with distributed.LocalCluster(n_workers=n_jobs, threads_per_worker=1, processes=True,
                                  dashboard_address=":0") as cluster, distributed.Client(cluster):
        with joblib.parallel_config(backend="dask"):
            report(f"Dask LocalCluster, {n_jobs} workers", *run())


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller sizes (a smoke run)")
    parser.add_argument("--parallel", type=int, metavar="N", default=None,
                        help="only section 3: one job against N loky processes and N Dask workers")
    args = parser.parse_args(argv)
    # warm up numba and the background code so compilation is not timed
    poim_sampled(cheap, MarkovBackground.uniform(order=2), 2, length=8, n_samples=4, random_state=0)
    if args.parallel:
        if args.quick:
            parallel(args.parallel, 30, 3, 100, 3)
        else:
            parallel(args.parallel, 100, 4, 200, 6)
    elif args.quick:
        planting(50, 3, 2e5, 8192, 1)
        error_curve(12, 3, [50, 200], 2)
    else:
        planting(100, 3, 1e6, 8192, 3)
        error_curve(30, 3, [25, 100, 400, 1600], 3)


if __name__ == "__main__":
    main()
