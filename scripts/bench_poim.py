"""Benchmark of the exact POIM engine. Prints figures and ratios; asserts nothing.

Setting: random degree-8 positional weights, L = 200, max_order 8, order-0 position-specific
background. Reported:

1. time and peak memory (tracemalloc, numpy allocations) of the in-memory engine
   (``seqimp.poim(..., engine="memory")``, :mod:`seqimp.importance._poim_memory`);
2. ratio to the memory-bound floor: allocating and writing the same output arrays
   (POIM and FIRM, orders 1..8) once;
3. ratio of a naive overlap-sum reference to the engine at max_order 6 (the naive one is
   timed on a few start positions and scaled by the number of (order, start) pairs);
4. Markov order 2 (position-specific) vs order 0, same weights and max_order.

Run: ``python scripts/bench_poim.py`` (about a minute on 2 cores; under 1 GB RAM). Times are the best of
``--repeat`` runs.
"""

from __future__ import annotations

import argparse
import time
import tracemalloc

import numpy as np

from seqimp import MarkovBackground, PositionalWeights, poim
from oracle_poim import naive_poim_order0

A = 4
VERBOSE = False


def best_time(fn, repeat):
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
        if VERBOSE:
            print(f"  run {times[-1]:.3f} s")
        del out
    return min(times)


def floor_time(length, max_order, repeat):
    def write_outputs():
        arrays = []
        for _ in range(2):
            for k in range(1, max_order + 1):
                a = np.empty((length - k + 1, A ** k))
                a.fill(1.0)
                arrays.append(a)
        return arrays
    return best_time(write_outputs, repeat)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--length", type=int, default=200)
    parser.add_argument("--degree", type=int, default=8)
    parser.add_argument("--max-order", type=int, default=8)
    parser.add_argument("--naive-order", type=int, default=6)
    parser.add_argument("--naive-positions", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--verbose", action="store_true", help="print every timed run")
    args = parser.parse_args(argv)
    global VERBOSE
    VERBOSE = args.verbose
    length, degree, K = args.length, args.degree, args.max_order
    rng = np.random.default_rng(0)
    weights = PositionalWeights([rng.normal(size=(length - k + 1, A ** k)) for k in range(1, degree + 1)],
                                bias=0.5)
    probs = rng.dirichlet(np.full(A, 3.0), size=length)
    bg0 = MarkovBackground.from_arrays([1.0], probs[:, None, :])
    d2 = 2
    bg2 = MarkovBackground.from_arrays(rng.dirichlet(np.ones(A ** d2)),
                                       rng.dirichlet(np.full(A, 3.0), size=(length - d2, A ** d2)))
    small = PositionalWeights([w[:12 - k + 1] for k, w in enumerate(weights.tables[:3], start=1)])
    for bg in (MarkovBackground.uniform(12), MarkovBackground.uniform(12, order=2)):
        poim(small, bg, 4, engine="memory")                         # compile / load the numba cache
    naive_poim_order0(small, np.full((12, A), 0.25), 2, [3])

    print(f"# exact POIM engine: degree {degree} weights, L = {length}, max_order {K}")
    t0 = best_time(lambda: poim(weights, bg0, K, engine="memory"), args.repeat)
    tracemalloc.start()
    res = poim(weights, bg0, K, engine="memory")
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    out_bytes = sum(p.nbytes + f.nbytes for p, f in zip(res.poim, res.firm))
    del res
    tf = floor_time(length, K, args.repeat)
    print(f"order-0 positional background: {t0:.3f} s, peak traced memory {peak / 1e9:.3f} GB "
          f"(outputs {out_bytes / 1e9:.3f} GB, weights {sum(t.nbytes for t in weights.tables) / 1e9:.3f} GB)")
    print(f"memory-bound floor (allocate + write the outputs once): {tf:.3f} s; "
          f"ratio engine/floor = {t0 / tf:.2f}  (target <= 10)")

    t2 = best_time(lambda: poim(weights, bg2, K, engine="memory"), args.repeat)
    print(f"Markov order 2 positional background: {t2:.3f} s; ratio order2/order0 = {t2 / t0:.2f}  (target <= 3)")

    kn = args.naive_order
    te = best_time(lambda: poim(weights, bg0, kn, engine="memory"), args.repeat)
    positions = np.linspace(length // 4, 3 * length // 4, args.naive_positions).astype(np.int64)
    t_start = time.perf_counter()
    naive = naive_poim_order0(weights, probs, kn, positions)
    tn_subset = time.perf_counter() - t_start
    pairs_all = sum(length - m + 1 for m in range(1, kn + 1))
    pairs_done = sum(int((positions <= length - m).sum()) for m in range(1, kn + 1))
    tn = tn_subset * pairs_all / pairs_done
    check = poim(weights, bg0, kn, engine="memory")
    err = max(np.abs(check.poim[m - 1][positions] - naive[m - 1]).max() for m in range(1, kn + 1))
    print(f"naive overlap-sum reference at max_order {kn}: {tn_subset:.2f} s on {len(positions)} interior starts "
          f"({pairs_done} of {pairs_all} (order, start) pairs), scaled to all: {tn:.1f} s (estimate)")
    print(f"engine at max_order {kn}: {te:.3f} s; ratio naive/engine = {tn / te:.0f}  (target >= 50); "
          f"max |difference| on the subset = {err:.2e}")


if __name__ == "__main__":
    main()
