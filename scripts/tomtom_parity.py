#!/usr/bin/env python
"""How closely seqimp's TOMTOM p-values agree with MEME tomtom 5.5.8.

Reads ../shared/data/tomtom_reference (README there: 73 queries, JASPAR 2024 CORE vertebrates
non-redundant, MEME's 20 best targets per query) and prints, for compare_motifs as it runs by
default (trimmed ends, decoys) and for TOMTOM alone on the same matrices MEME compared (no
trimming), the share of reference p-values whose log10 lies within 0.3 of MEME's, by p range,
and how many queries get MEME's best target. MEME writes p as a C float, so ours is rounded the
same way before comparing (a p below 1.4e-45 is 0 in both).

    python scripts/tomtom_parity.py [--data ../shared/data/tomtom_reference]
"""

import argparse
import os
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

from seqimp.motifs import compare_motifs, read_motifs

DEFAULT = Path(os.path.abspath(__file__)).parents[1].parent / "shared" / "data" / "tomtom_reference"
INFORMATIVE = ("exact_", "sampled40_", "fragment6_")
RANGES = ((0.0, 1e-10), (1e-10, 1e-5), (1e-5, 0.01), (0.0, 0.01))


def full_id(m):  # TOMTOM's Target_ID: the MEME file's id and name joined by "_"
    return f"{m.name}_{m.description}" if m.description else m.name


def differences(table, ref, ids):
    """Reference rows found in ``table``: query, MEME's p and |log10 ours - log10 MEME's|."""
    ours = {(r.query, ids[r.target]): r.p_value for r in table.itertuples() if r.target}
    rows = []
    for r in ref.itertuples():
        key = (r.Query_ID, r.Target_ID)
        if key in ours:
            mine, theirs = float(np.float32(ours[key])), float(getattr(r, "_4"))
            d = 0.0 if mine == 0 == theirs else abs(np.log10(max(mine, 1e-300)) - np.log10(max(theirs, 1e-300)))
            rows.append((r.Query_ID, theirs, d))
    return pd.DataFrame(rows, columns=["query", "meme_p", "diff"])


def report(label, table, ref, ids, seconds):
    d = differences(table, ref, ids)
    print(f"== {label} ({seconds:.1f} s): {len(d)} of {len(ref)} reference rows among our 20 best")
    for name, sel in (("all queries", np.ones(len(d), bool)), ("informative", d["query"].str.startswith(INFORMATIVE))):
        for lo, hi in RANGES:
            m = sel & (d["meme_p"] >= lo) & (d["meme_p"] < hi)
            if m.any():
                x = d.loc[m, "diff"]
                print(f"  {name:12s} {lo:7.0e} <= p < {hi:5.0e}: n = {m.sum():4d}  within 0.3: "
                      f"{100 * np.mean(x <= 0.3):5.1f} %  median {np.median(x):.1e}  max {x.max():.2g}")
    best = ref.sort_values("p-value", kind="stable").groupby("Query_ID").head(1).set_index("Query_ID")["Target_ID"]
    hits = table[table["target"] != ""]
    ours = hits.sort_values("p_value", kind="stable").groupby("query").head(1).set_index("query")["target"].map(ids)
    same = [q for q in best.index if q in ours.index and ours[q] == best[q]]
    n_inf = sum(q.startswith(INFORMATIVE) for q in best.index)
    print(f"  same best target: {len(same)}/{len(best)} queries "
          f"(informative {sum(q.startswith(INFORMATIVE) for q in same)}/{n_inf})")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=DEFAULT, help="the tomtom_reference folder")
    args = parser.parse_args()
    queries = read_motifs(args.data / "queries.meme")
    db = read_motifs(args.data / "JASPAR2024_CORE_vertebrates_non-redundant.meme")
    ref = pd.read_csv(args.data / "tomtom_top20.tsv", sep="\t", comment="#").dropna(subset=["Target_ID"])
    ids = {m.name: full_id(m) for m in db}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        for label, options in (("compare_motifs, defaults (trimmed ends, decoys)", {}),
                               ("TOMTOM alone on MEME's matrices (no trimming, no decoys)",
                                dict(trim_ic=0.0, min_ic=0.0, n_decoys=0))):
            start = time.perf_counter()
            table = compare_motifs(queries, db, top=20, **options)
            report(label, table, ref, ids, time.perf_counter() - start)


if __name__ == "__main__":
    main()
