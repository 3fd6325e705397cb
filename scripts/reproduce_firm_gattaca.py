"""Reproduce FIRM paper §3.3 / Figure 3 (Zien et al. 2009): GATTACA planted in random DNA.

Data as in the paper: 2,500 positive and 2,500 negative uniform random DNA sequences of
length L (default 100; the paper does not state it); in every positive, GATTACA is planted
at the 1-based start round(N(35, 7)), and one random motif position is replaced by a
uniformly random letter (so ~25% keep the consensus). An SVM with the WDS kernel
(default degree 8, shifts 2) is trained on all 5,000 sequences, unfolded exactly into
positional weights w, and FIRM of every 7-mer at every position is computed under the
uniform order-0 background.

Figure (docs/figures/firm_gattaca.png), both panels over positions 1..L-6:
left the weight w of each positional 7-mer, right its FIRM; red GATTACA, magenta / blue
the mean over 7-mers at edit (Levenshtein) distance 1 / 2 from GATTACA, grey the mean
+- 1 SD of the 7-mers that differ from GATTACA at every position.

Prints the checks of the reproduction: FIRM ranks GATTACA first among all 7-mers at its peak
position; the peak lies in 35 +- 7; GATTACA > edit-distance-1 mean > random band.

    python scripts/reproduce_firm_gattaca.py [--length 100] [--seed 0] [--out docs/figures/firm_gattaca.png]

Takes about a minute on two cores (Gram matrix, SVM, unfolding, POIM up to order 7).
"""

from __future__ import annotations

import argparse
import itertools
import time
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from seqimp import MarkovBackground, WDClassifier, kmer_index, poim  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
MOTIF = "GATTACA"


def make_data(n_per_class, length, rng):
    """Random DNA; positives carry a mutated GATTACA at 1-based start round(N(35, 7))."""
    X = rng.integers(0, 4, size=(2 * n_per_class, length), dtype=np.uint8)
    motif = np.array(["ACGT".index(c) for c in MOTIF], dtype=np.uint8)
    starts = np.clip(np.rint(rng.normal(35, 7, n_per_class)).astype(int), 1, length - len(MOTIF) + 1) - 1
    for r, j in enumerate(starts):
        m = motif.copy()
        m[rng.integers(len(MOTIF))] = rng.integers(4)  # may redraw the same letter (~25%)
        X[r, j:j + len(MOTIF)] = m
    y = np.r_[np.ones(n_per_class, dtype=int), np.zeros(n_per_class, dtype=int)]
    return X, y, starts


def levenshtein(a, b):
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, start=1):
        cur = [i]
        for j, cb in enumerate(b, start=1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca != cb)))
        prev = cur
    return prev[-1]


def kmer_groups(k=7):
    """Column indices of GATTACA, of 7-mers at edit distance 1 and 2, and of those differing everywhere."""
    kmers = ["".join(p) for p in itertools.product("ACGT", repeat=k)]  # index order: first symbol most significant
    dist = np.array([levenshtein(z, MOTIF) for z in kmers])
    differs = np.array([all(a != b for a, b in zip(z, MOTIF)) for z in kmers])
    return {"exact": np.array([kmer_index(MOTIF)]), "ed1": np.flatnonzero(dist == 1),
            "ed2": np.flatnonzero(dist == 2), "random": np.flatnonzero(differs)}


def curves(table, groups):
    """Per-position curves of a (L-6, 4**7) table: exact, mean ED1, mean ED2, random mean and SD."""
    return {"exact": table[:, groups["exact"][0]], "ed1": table[:, groups["ed1"]].mean(axis=1),
            "ed2": table[:, groups["ed2"]].mean(axis=1), "random_mean": table[:, groups["random"]].mean(axis=1),
            "random_sd": table[:, groups["random"]].std(axis=1)}


def panel(ax, c, title, ylabel):
    pos = np.arange(1, len(c["exact"]) + 1)
    lo, hi = c["random_mean"] - c["random_sd"], c["random_mean"] + c["random_sd"]
    ax.fill_between(pos, lo, hi, color="0.75", label="differs at every position (mean ± 1 SD)", lw=0)
    ax.plot(pos, c["ed2"], color="tab:blue", lw=1.2, label="edit distance 2 (mean)")
    ax.plot(pos, c["ed1"], color="magenta", lw=1.2, label="edit distance 1 (mean)")
    ax.plot(pos, c["exact"], color="red", lw=1.6, label=MOTIF)
    ax.axvspan(28, 42, color="gold", alpha=0.12, lw=0)
    ax.axhline(0, color="0.4", lw=0.5)
    ax.set_xlim(1, len(pos))
    ax.set_xlabel("position (1-based start of the 7-mer)")
    ax.set_ylabel(ylabel)
    ax.set_title(title)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--n", type=int, default=2500, help="sequences per class (default 2500)")
    parser.add_argument("--length", type=int, default=100, help="sequence length (default 100)")
    parser.add_argument("--degree", type=int, default=8)
    parser.add_argument("--shifts", type=int, default=2)
    parser.add_argument("--C", type=float, default=1.0)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "figures" / "firm_gattaca.png")
    args = parser.parse_args()

    rng = np.random.default_rng(args.seed)
    X, y, starts = make_data(args.n, args.length, rng)
    n_exact = int(sum((X[r, j:j + 7] == np.array([2, 0, 3, 3, 0, 1, 0])).all() for r, j in enumerate(starts)))
    print(f"data: {args.n} + {args.n} sequences of length {args.length}; planted 1-based starts "
          f"mean {starts.mean() + 1:.1f}, sd {starts.std():.1f}; exact GATTACA kept in {n_exact / args.n:.0%}")

    t = time.perf_counter()
    model = WDClassifier(degree=args.degree, shifts=args.shifts, C=args.C).fit(X, y)
    print(f"WDS SVM (degree {args.degree}, shifts {args.shifts}, C {args.C:g}): "
          f"{len(model.support_)} support vectors, training accuracy {model.score(X, y):.3f} "
          f"({time.perf_counter() - t:.1f} s)")
    X_test, y_test, _ = make_data(1000, args.length, np.random.default_rng(args.seed + 1))
    print(f"accuracy on 1000 + 1000 fresh sequences: {model.score(X_test, y_test):.3f}")

    t = time.perf_counter()
    weights = model.positional_weights()
    result = poim(weights, MarkovBackground.uniform(), 7)
    print(f"unfolding + POIM/FIRM up to order 7: {time.perf_counter() - t:.1f} s")

    groups = kmer_groups()
    print(f"7-mers: {len(groups['ed1'])} at edit distance 1, {len(groups['ed2'])} at distance 2, "
          f"{len(groups['random'])} differ at every position")
    cw = curves(weights.tables[6], groups)
    cf = curves(result.firm[6], groups)

    firm7 = result.firm[6]
    peak = int(np.argmax(cf["exact"]))
    rank = int(np.sum(firm7[peak] > firm7[peak, groups["exact"][0]])) + 1
    window = np.arange(27, 42)  # 0-based starts of 1-based 28..42 = 35 +- 7
    above_ed1 = cf["exact"][window] > cf["ed1"][window]
    above_band = cf["ed1"][window] > (cf["random_mean"] + cf["random_sd"])[window]
    w_peak = int(np.argmax(cw["exact"]))
    w_rank = int(np.sum(weights.tables[6][w_peak] > weights.tables[6][w_peak, groups["exact"][0]])) + 1
    print("\nchecks (FIRM, right panel):")
    print(f"  peak of GATTACA's FIRM at 1-based position {peak + 1} (must lie in 28..42): "
          f"{'OK' if 28 <= peak + 1 <= 42 else 'FAILED'}")
    print(f"  rank of GATTACA among all 16384 7-mers at that position: {rank} "
          f"{'OK' if rank == 1 else 'FAILED'}")
    print(f"  GATTACA > edit-distance-1 mean at {above_ed1.sum()}/15 positions of 28..42; at the peak: "
          f"{'OK' if cf['exact'][peak] > cf['ed1'][peak] else 'FAILED'}")
    print(f"  edit-distance-1 mean > random mean + 1 SD at {above_band.sum()}/15 positions of 28..42; at the peak: "
          f"{'OK' if cf['ed1'][peak] > cf['random_mean'][peak] + cf['random_sd'][peak] else 'FAILED'}")
    print(f"  edit-distance-2 mean at the peak: {cf['ed2'][peak]:.4g} (edit-distance-1 {cf['ed1'][peak]:.4g}, "
          f"random band {cf['random_mean'][peak]:.2g} +- {cf['random_sd'][peak]:.2g})")
    print("weights w (left panel):")
    print(f"  GATTACA's largest weight at position {w_peak + 1}, rank {w_rank} among all 7-mers there; "
          f"GATTACA weight > edit-distance-1 mean at {(cw['exact'][window] > cw['ed1'][window]).sum()}/15 "
          "positions of 28..42")

    fig, axes = plt.subplots(1, 2, figsize=(12, 4.4), layout="constrained")
    panel(axes[0], cw, "SVM feature weights w", "weight w(z, j)")
    panel(axes[1], cf, "FIRM", "FIRM(z, j)")
    handles, labels = axes[1].get_legend_handles_labels()
    fig.legend(handles[::-1], labels[::-1], loc="outside lower center", ncol=4, fontsize=9, frameon=False)
    fig.suptitle(f"GATTACA planted at N(35, 7) in {args.n}+{args.n} random sequences of length {args.length}; "
                 f"WDS SVM (degree {args.degree}, shifts {args.shifts}); shaded: 35 ± 7", fontsize=10)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(args.out, dpi=130)
    print(f"\nwrote {args.out}")


if __name__ == "__main__":
    main()
