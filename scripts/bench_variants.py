"""Speed of exact variant effects (:func:`seqimp.variant_effects`) against re-scoring both windows.

For a degree-8 WD model (random positional weights, windows of ``--length`` nt) and a gkm model
(``GKMClassifier(10, 6)`` trained on a planted set, normalised, both strands), prints the
substitutions scored per second by ``variant_effects`` (no p-values) and by the baseline run in
the same process -- the model's own scorer on the reference and the alternative windows
(``PositionalWeights.score``, ``GKMClassifier.decision_function``) -- their ratio, the largest
difference between the two deltas, and the time of the p-values' null (every substitution of the
windows). Threads: numba's (``NUMBA_NUM_THREADS``); the figures of record in docs/variants.md.

    python scripts/bench_variants.py
    python scripts/bench_variants.py --snvs 200000 --gkm-snvs 20000
"""

from __future__ import annotations

import argparse
import time

import numpy as np


def _snvs(rng, codes, n):
    win = rng.integers(0, codes.shape[0], n)
    pos = rng.integers(0, codes.shape[1], n)
    ref = codes[win, pos]
    alt = (ref + 1 + rng.integers(0, 3, n)) % 4
    letters = np.array(list("ACGT"))
    import pandas as pd

    return pd.DataFrame({"window": win, "offset": pos, "ref": letters[ref], "alt": letters[alt]}), win, pos, alt


def _time(fn, repeat=3):
    best = np.inf
    for _ in range(repeat):
        start = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - start)
    return best, out


def bench(name, model, score, codes, n, rng):
    from seqimp.importance._variants import snv_null, variant_effects

    table, win, pos, alt = _snvs(rng, codes, n)
    variant_effects(model, codes, table.head(10), p_values=False)  # compile
    fast_s, got = _time(lambda: variant_effects(model, codes, table, p_values=False))

    def rescore():
        alt_rows = codes[win].copy()
        alt_rows[np.arange(n), pos] = alt
        return score(alt_rows) - score(codes[win])

    base_s, want = _time(rescore, repeat=1)
    diff = float(np.abs(got["delta"].to_numpy() - want).max())
    snv_null(model, codes[:2])
    null_s, null = _time(lambda: snv_null(model, codes), repeat=1)
    print(f"{name}: {n:,} SNVs in {codes.shape[0]:,} windows of {codes.shape[1]} nt")
    print(f"  variant_effects   {n / fast_s:12,.0f} SNVs/s  ({fast_s:.3f} s)")
    print(f"  re-scoring both   {n / base_s:12,.0f} SNVs/s  ({base_s:.3f} s)   ratio {base_s / fast_s:.1f}x")
    print(f"  largest |delta difference| {diff:.2e}")
    print(f"  null: {null.size:,} substitutions in {null_s:.2f} s ({null.size / null_s:,.0f} /s)")


def main(argv=None):
    import numba

    from seqimp.kernels import GKMClassifier, PositionalWeights

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--length", type=int, default=200)
    parser.add_argument("--windows", type=int, default=500)
    parser.add_argument("--snvs", type=int, default=100_000)
    parser.add_argument("--gkm-windows", type=int, default=100)
    parser.add_argument("--gkm-snvs", type=int, default=10_000)
    args = parser.parse_args(argv)
    print(f"numba threads: {numba.get_num_threads()}")
    rng = np.random.default_rng(0)
    L = args.length
    weights = PositionalWeights([rng.normal(size=(L - k + 1, 4 ** k)) for k in range(1, 9)])
    codes = rng.integers(0, 4, (args.windows, L)).astype(np.uint8)
    bench("WD degree 8", weights, weights.score, codes, args.snvs, rng)

    X = rng.integers(0, 4, (400, L)).astype(np.uint8)
    motif = np.array([3, 2, 0, 1, 3, 1, 0], dtype=np.uint8)  # TGACTCA
    X[:200, 90:97] = motif
    gkm = GKMClassifier(10, 6, tol=0.1).fit(X, np.r_[np.ones(200), np.zeros(200)])
    codes = rng.integers(0, 4, (args.gkm_windows, L)).astype(np.uint8)
    bench("gkm l=10 k=6 (normalised, both strands)", gkm, gkm.decision_function, codes, args.gkm_snvs, rng)


if __name__ == "__main__":
    main()
