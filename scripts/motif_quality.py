"""Motif quality on ../shared/data/motif_benchmark: planted CTCF (both strands) + position-free
GATA1, UCI splice donors and acceptors, over several seeds.

    python scripts/motif_quality.py [--seeds 0 1 2 3 4] [--out /tmp/motif_quality] [--data DIR]

Prints, per set and seed, the motifs of ``seqimp.pipeline.run_motifs`` (``--strand both``) and:
planted -- CTCF found (the motif most similar to STREME's CTCF), its informative columns
(information content >= 0.5 bit), the fraction of positives with a CTCF site, its TOMTOM-free
PWM similarity to STREME's motif (:func:`seqimp.motifs._copies.pwm_similarity`, 1 = identical), and
whether a position-free motif similar to STREME's GATA motif was found; splice -- whether the
rank-1 motif carries GT at 31-32 (donors) or AG at 29-30 (acceptors); and whether the motifs
are identical across seeds.
"""

from __future__ import annotations

import argparse
import logging
import time
from pathlib import Path

import numpy as np

from seqimp.io._fasta import read_fasta
from seqimp.motifs import read_motifs
from seqimp.motifs._copies import pwm_similarity
from seqimp.options import MotifOptions
from seqimp.pipeline import run_motifs

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "motif_benchmark"


def letter_at(motif, position):
    """The written PWM's most probable letter at 1-based sequence ``position`` (None outside)."""
    col = position - motif.start
    return motif.consensus[col] if 0 <= col < motif.length else None


def run(name, pos, neg, seed, out):
    start = time.perf_counter()
    r = run_motifs(out / f"{name}_{seed}", positive=pos, negative=neg, random_state=seed,
                   motifs=MotifOptions(strand="both"))
    return r, time.perf_counter() - start


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2, 3, 4])
    ap.add_argument("--out", default="/tmp/motif_quality")
    ap.add_argument("--sets", nargs="+", default=["planted", "donor", "acceptor"])
    ap.add_argument("--data", type=Path, default=DATA, help=f"the motif_benchmark folder (default {DATA})")
    args = ap.parse_args()
    logging.getLogger("seqimp").setLevel(logging.WARNING)
    data = args.data
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    streme = {m.name.split("-")[0]: m for m in read_motifs(data / "streme_planted.txt", "meme")}
    ctcf, gata = streme["1"], streme["2"]
    sets = {"planted": (data / "planted_pos.fa", data / "planted_neg.fa"),
            "donor": (data / "splice_EI.fa", data / "splice_N.fa"),
            "acceptor": (data / "splice_IE.fa", data / "splice_N.fa")}
    for name, (p, n) in ((k, v) for k, v in sets.items() if k in args.sets):
        pos, neg = read_fasta(p), read_fasta(n)
        tables = []
        for seed in args.seeds:
            r, secs = run(name, pos, neg, seed, out)
            table = r.table()
            tables.append(table[["consensus", "start", "length", "sites"]].to_csv(index=False))
            top = r.motifs[0]
            line = f"{name} seed {seed}: {len(r.motifs)} motifs, top {top.consensus} at {top.start}, {secs:.0f} s"
            if name == "planted":
                sims = [pwm_similarity(m.pwm, ctcf.pwm)[0] for m in r.motifs]
                best = r.motifs[int(np.argmax(sims))]
                informative = int((best.information_content() >= 0.5).sum())
                frac = best.sites / len(pos)
                free = [m for m in r.motifs if m.position_free and pwm_similarity(m.pwm, gata.pwm)[0] >= 0.5]
                line += (f"; CTCF {best.consensus} rank {r.motifs.index(best) + 1}: {best.length} columns, "
                         f"{informative} with IC >= 0.5 bit, sites in {100 * frac:.1f}% of positives, similarity "
                         f"to STREME's {max(sims):.2f}; position-free GATA: "
                         + (f"{free[0].consensus} ({free[0].sites} sites)" if free else "not found"))
            elif name == "donor":
                line += f"; rank 1 has GT at 31-32: {letter_at(top, 31) == 'G' and letter_at(top, 32) == 'T'}"
            else:
                line += f"; rank 1 has AG at 29-30: {letter_at(top, 29) == 'A' and letter_at(top, 30) == 'G'}"
            print(line, flush=True)
        print(f"{name}: motifs identical across seeds {args.seeds}: {len(set(tables)) == 1}", flush=True)


if __name__ == "__main__":
    main()
