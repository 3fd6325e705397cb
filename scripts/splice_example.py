"""POIM/FIRM on real data: UCI splice junctions (EI, IE vs N) and UCI E. coli promoters.

Reads the UCI files from ../shared/data (or --data DIR), trains WD classifiers, computes
exact POIMs under the negatives' order-0 background, prints what they show and writes
the figures of docs/examples/splice.md into --figures (default docs/examples).

    python scripts/splice_example.py [--data ../shared/data] [--figures docs/examples]

Runs in well under a minute on two cores.
"""

from __future__ import annotations

import argparse
import time
import warnings
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from seqimp.io import kmer_string  # noqa: E402
from seqimp.datasets import load_uci_promoters, load_uci_splice, promoter_position  # noqa: E402
from seqimp.options import ModelOptions  # noqa: E402

from seqimp.background._poim_background import make_background  # noqa: E402
from seqimp.importance._poim_job import compute_importance  # noqa: E402

from seqimp.training import train_model  # noqa: E402

from seqimp.plot import differential_heatmap, poim_heatmap  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


def analyse(pos, neg, *, degree, max_order, seed=0):
    start = time.perf_counter()
    weights, info = train_model(pos, neg, model=ModelOptions(degree=degree), random_state=seed)
    background, _ = make_background("negative", negative=neg)
    result = compute_importance(weights, background, max_order=max_order)
    info["seconds"] = time.perf_counter() - start
    return result, info


def best(table, k, positions=None):
    """(k-mer, 0-based start, value) of the largest |value| in a (L-k+1, 4**k) table (optionally within starts)."""
    t = np.abs(table)
    if positions is not None:
        mask = np.full(t.shape[0], False)
        mask[positions] = True
        t = np.where(mask[:, None], t, -np.inf)
    j, z = np.unravel_index(np.nanargmax(t), t.shape)
    return kmer_string(z, k), int(j), float(table[j, z])


def save(ax, path):
    ax.figure.savefig(path, dpi=120)
    plt.close(ax.figure)
    print(f"  wrote {path.relative_to(ROOT) if path.is_relative_to(ROOT) else path}")


def splice(data_dir: Path, figures: Path):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        data = load_uci_splice(data_dir / "uci_splice" / "splice.data")
    for w in caught:
        print(f"note: {w.message}")
    neg = data.sequences.subset(data.target == "N")
    for cls, site, expect in (("EI", "donor (exon->intron)", "GT at 31-32"), ("IE", "acceptor (intron->exon)",
                                                                                "AG at 29-30")):
        pos = data.sequences.subset(data.target == cls)
        result, info = analyse(pos, neg, degree=6, max_order=6)
        print(f"\nsplice {cls} vs N ({site}): {len(pos)} vs {len(neg)} sequences of 60 nt, WD degree 6, "
              f"held-out accuracy {info['accuracy']:.3f}, auROC {info['auroc']:.4f} ({info['seconds']:.1f} s)")
        z, j, v = best(result.poim[1], 2)
        print(f"  top 2-mer by |POIM|: {z} at {j + 1}-{j + 2} (POIM {v:+.3f}); expected {expect}")
        for k in range(3, 7):
            z, j, v = best(result.poim[k - 1], k)
            print(f"  top {k}-mer by |POIM|: {z} at {j + 1}-{j + k} (POIM {v:+.3f})")
        top = result.top(5, measure="firm")
        print("  top 5 by |FIRM| over all orders: " + ", ".join(
            f"{o}@{p}" for o, p in zip(top["oligomer"], top["position"])))
        save(poim_heatmap(result, 2, title=f"Splice {cls} vs N: POIM of 2-mers"), figures / f"splice_{cls}_poim2.png")
        save(differential_heatmap(result, title=f"Splice {cls} vs N: differential POIM"),
             figures / f"splice_{cls}_differential.png")


def promoters(data_dir: Path, figures: Path):
    data = load_uci_promoters(data_dir / "uci_promoters" / "promoters.data")
    pos = data.sequences.subset(data.target == "+")
    neg = data.sequences.subset(data.target == "-")
    result, info = analyse(pos, neg, degree=4, max_order=6)
    print(f"\npromoters + vs -: {len(pos)} vs {len(neg)} sequences of 57 nt (-50..+7), WD degree 4, "
          f"held-out accuracy {info['accuracy']:.3f}, auROC {info['auroc']:.4f} on {info['n_test']} sequences")
    cols = np.arange(57)
    for name, lo, hi in (("-35 box", -41, -29), ("-10 box", -17, -5)):
        rel = promoter_position(cols + 1)
        for k in (1, 3, 6):
            starts = np.flatnonzero((rel >= lo) & (rel <= hi - k + 1) & (cols <= 57 - k))
            z, j, v = best(result.poim[k - 1], k, starts)
            print(f"  {name}: top {k}-mer by |POIM| starting in {lo}..{hi - k + 1}: {z} at "
                  f"{promoter_position(j + 1)} (column {j + 1}, POIM {v:+.3f})")
    q = result.maximal
    for k in (1, 3):
        order = np.argsort(-np.nan_to_num(q[k - 1], nan=-1))[:6]
        print(f"  largest maximal POIM, k={k}: positions " + ", ".join(str(promoter_position(j + 1)) for j in order))
    labels = data.positions
    save(poim_heatmap(result, 1, position_labels=labels, title="E. coli promoters: POIM of single nucleotides"),
         figures / "promoters_poim1.png")
    save(poim_heatmap(result, 3, position_labels=labels, top=24,
                      title="E. coli promoters: POIM of 3-mers (top 24)"), figures / "promoters_poim3.png")
    save(differential_heatmap(result, position_labels=labels, title="E. coli promoters: differential POIM"),
         figures / "promoters_differential.png")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data")
    parser.add_argument("--figures", type=Path, default=ROOT / "docs" / "examples")
    args = parser.parse_args()
    if not (args.data / "uci_splice" / "splice.data").exists():
        raise SystemExit(f"UCI data not found under {args.data} (use --data)")
    args.figures.mkdir(parents=True, exist_ok=True)
    splice(args.data, args.figures)
    promoters(args.data, args.figures)


if __name__ == "__main__":
    main()
