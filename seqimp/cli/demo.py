"""``seqimp demo``: the whole pipeline on the embedded planted-motif data."""

from __future__ import annotations

import argparse
import json

import numpy as np

from ..datasets import demo_paths
from ..fasta import read_fasta
from .common import log, output_dir

HELP = """\
Run seqimp on the embedded demo data (data/demo_positive.fa vs
data/demo_negative.fa: the AP-1 site TGACTCA planted at positions 21-23 of
60 nt random DNA) and write the results into OUT.

examples:
  seqimp demo --out demo-results
"""


def register(sub) -> None:
    p = sub.add_parser("demo", help="run the pipeline on the embedded demo data", description=HELP,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out", required=True, metavar="DIR", help="output folder (created if needed)")
    p.set_defaults(func=run)


def run(args) -> int:
    pos_path, neg_path = demo_paths()
    pos, neg = read_fasta(pos_path), read_fasta(neg_path)
    log(f"demo: {len(pos)} positive and {len(neg)} negative sequences of length {pos.length}")
    with output_dir(args.out) as tmp:
        freq_pos = np.stack([(pos.codes == a).mean(axis=0) for a in range(4)], axis=1)
        freq_neg = np.stack([(neg.codes == a).mean(axis=0) for a in range(4)], axis=1)
        with open(tmp / "composition_difference.tsv", "w") as fh:
            fh.write("position\tA\tC\tG\tT\n")
            for i, row in enumerate(freq_pos - freq_neg, start=1):
                fh.write(f"{i}\t" + "\t".join(f"{v:+.4f}" for v in row) + "\n")
        summary = {"positive": str(pos_path), "negative": str(neg_path),
                   "n_positive": len(pos), "n_negative": len(neg), "length": pos.length}
        (tmp / "summary.json").write_text(json.dumps(summary, indent=2) + "\n")
    print(f"results written to {args.out}")
    return 0
