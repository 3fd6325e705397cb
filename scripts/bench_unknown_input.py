"""Unknown bases on input, on real peak sets: how many records and bases hold N (kept now; what
``--skip-invalid`` used to drop), and the time of the steps that read them -- ``read_fasta``
(plain and ``mask_lowercase``), an order-2 Markov background (homogeneous and positional) and a
dinucleotide shuffle of every record -- with the shuffle's invariants checked on every record
(unknown bases in place, every known stretch's dinucleotide counts kept).

    python scripts/bench_unknown_input.py                       # the reference sets in /work/shared/data
    python scripts/bench_unknown_input.py peaks.fa --repeats 5
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _timing import best_of  # noqa: E402

SHARED = Path(__file__).resolve().parents[2] / "shared" / "data"
DEFAULT = [SHARED / "real_peaks" / "Klf1.fa"]


def stretches_kept(x, y) -> bool:
    """Unknown bases of ``x`` where they are in ``y``, and every maximal known stretch with its
    first letter, last letter and dinucleotide counts."""
    if not np.array_equal(x == 4, y == 4):
        return False
    holes = np.flatnonzero(x == 4)
    for a, b in zip(np.concatenate([[0], holes + 1]), np.concatenate([holes, [x.size]])):
        if b <= a:
            continue
        xs, ys = x[a:b].astype(np.int64), y[a:b].astype(np.int64)
        pairs = [np.bincount(s[:-1] * 4 + s[1:], minlength=16) for s in (xs, ys)]
        if xs[0] != ys[0] or xs[-1] != ys[-1] or not np.array_equal(*pairs):
            return False
    return True


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("fasta", nargs="*", type=Path, help="FASTA files of one length (default: Klf1 peaks)")
    parser.add_argument("--repeats", type=int, default=3, help="the fastest of this many runs each (default 3)")
    args = parser.parse_args(argv)
    from seqimp.background import MarkovBackground
    from seqimp.io import dinucleotide_shuffle, read_fasta

    files = args.fasta or [p for p in DEFAULT if p.is_file()]
    if not files:
        print("no FASTA file given and none of the reference sets is present", file=sys.stderr)
        return 1
    dinucleotide_shuffle(np.zeros((1, 8), np.uint8))               # numba compiled before the timings
    MarkovBackground(order=2).fit(np.zeros((1, 8), np.uint8))
    print("| file | records | with N | unknown bases | read_fasta | mask_lowercase | order-2 fit | positional | "
          "shuffle | shuffle checks |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for path in files:
        t_read, seqs = best_of(lambda: read_fasta(path), args.repeats)
        t_mask, _ = best_of(lambda: read_fasta(path, mask_lowercase=True), args.repeats)
        t_fit, _ = best_of(lambda: MarkovBackground(order=2).fit(seqs), args.repeats)
        t_pos, _ = best_of(lambda: MarkovBackground(order=2, positional=True).fit(seqs), args.repeats)
        t_shuf, shuffled = best_of(lambda: dinucleotide_shuffle(seqs, random_state=0), args.repeats)
        held = (seqs.codes == 4).any(axis=1)
        ok = sum(stretches_kept(x, y) for x, y in zip(seqs.codes, shuffled))
        print(f"| {path.name} | {len(seqs):,} x {seqs.length} | {int(held.sum()):,} | {int((seqs.codes == 4).sum()):,} "
              f"| {t_read:.3f} s | {t_mask:.3f} s | {t_fit:.3f} s | {t_pos:.3f} s | {t_shuf:.3f} s "
              f"| {ok:,} of {len(seqs):,} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
