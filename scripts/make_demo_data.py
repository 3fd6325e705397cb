#!/usr/bin/env python
"""Make the embedded demo data: a planted-motif FASTA pair in data/.

Deterministic (fixed seed): running it again rewrites identical files.

Positives: uniform random DNA of length 60 with the AP-1 site TGACTCA planted
at 1-based start 21, 22 or 23 (uniformly); in 20% of positives one motif
position is replaced by a random different base. Negatives: uniform random DNA.

    python scripts/make_demo_data.py            # writes data/demo_{positive,negative}.fa
"""

import argparse
from pathlib import Path

import numpy as np

from seqimp.io import encode
from seqimp.io import write_fasta

MOTIF = "TGACTCA"
LENGTH = 60
STARTS_1BASED = (21, 22, 23)
N_PER_CLASS = 500
MUTATION_RATE = 0.2
SEED = 20261121


def make(n, length, motif, starts, mutation_rate, rng):
    seqs = rng.integers(0, 4, size=(n, length))
    motif_codes = encode(motif)[0].astype(np.int64)
    for r in range(n):
        start = rng.choice(starts) - 1
        site = motif_codes.copy()
        if rng.random() < mutation_rate:
            p = rng.integers(len(site))
            site[p] = (site[p] + rng.integers(1, 4)) % 4
        seqs[r, start:start + len(site)] = site
    return seqs


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default=Path(__file__).resolve().parent.parent / "data", type=Path)
    args = ap.parse_args()
    rng = np.random.default_rng(SEED)
    pos = make(N_PER_CLASS, LENGTH, MOTIF, STARTS_1BASED, MUTATION_RATE, rng)
    neg = rng.integers(0, 4, size=(N_PER_CLASS, LENGTH))
    args.out.mkdir(parents=True, exist_ok=True)
    write_fasta(args.out / "demo_positive.fa", pos.astype(np.uint8), ids=[f"pos{r}" for r in range(1, len(pos) + 1)])
    write_fasta(args.out / "demo_negative.fa", neg.astype(np.uint8), ids=[f"neg{r}" for r in range(1, len(neg) + 1)])
    print(f"wrote {args.out / 'demo_positive.fa'} and {args.out / 'demo_negative.fa'}")


if __name__ == "__main__":
    main()
