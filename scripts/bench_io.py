#!/usr/bin/env python
"""Time reading and encoding a large FASTA file.

Generates a 200,000 x 250 nt random DNA FASTA file (60 nt per line, plain and
gzip) in a temporary folder, then times seqimp.read_fasta on it, against a
baseline in the same process: Biopython's SimpleFastaParser alone (parsing
only, no encoding). Target: read + encode under 10 s on 2 cores.

    python scripts/bench_io.py [--n 200000] [--length 250]
"""

import argparse
import sys
import gzip
import tempfile
from pathlib import Path

import numpy as np
from Bio.SeqIO.FastaIO import SimpleFastaParser

import seqimp

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _timing import best_of  # noqa: E402


def make_file(path, n, length, rng, opener=open):
    letters = np.frombuffer(b"ACGT", dtype=np.uint8)
    with opener(path, "wt") as fh:
        for start in range(0, n, 10000):
            block = letters[rng.integers(0, 4, size=(min(10000, n - start), length))]
            lines = []
            for r, row in enumerate(block, start=start):
                s = row.tobytes().decode()
                lines.append(f">seq{r}\n" + "\n".join(s[i:i + 60] for i in range(0, length, 60)))
            fh.write("\n".join(lines) + "\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", type=int, default=200_000)
    ap.add_argument("--length", type=int, default=250)
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()
    rng = np.random.default_rng(0)
    with tempfile.TemporaryDirectory() as tmp:
        plain, gz = Path(tmp) / "big.fa", Path(tmp) / "big.fa.gz"
        make_file(plain, args.n, args.length, rng)
        make_file(gz, args.n, args.length, np.random.default_rng(0), opener=gzip.open)
        size_mb = plain.stat().st_size / 1e6

        def parse_only():
            with open(plain) as fh:
                return sum(1 for _ in SimpleFastaParser(fh))

        t_base, count = best_of(parse_only, args.repeats)
        t_plain, s = best_of(lambda: seqimp.read_fasta(plain), args.repeats)
        t_gz, s_gz = best_of(lambda: seqimp.read_fasta(gz), args.repeats)
        assert count == len(s) == len(s_gz) == args.n and s.codes.shape == (args.n, args.length)
        assert np.array_equal(s.codes, s_gz.codes)
    print(f"FASTA: {args.n} x {args.length} nt ({size_mb:.0f} MB plain), best of {args.repeats}")
    print(f"  Biopython SimpleFastaParser, parse only (baseline): {t_base:6.2f} s")
    print(f"  seqimp.read_fasta plain (parse + encode):           {t_plain:6.2f} s"
          f"  ({t_plain / t_base:.2f}x baseline; target < 10 s: {'met' if t_plain < 10 else 'MISSED'})")
    print(f"  seqimp.read_fasta gzip  (parse + encode):           {t_gz:6.2f} s  ({t_gz / t_base:.2f}x baseline)")


if __name__ == "__main__":
    main()
