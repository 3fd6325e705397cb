"""Size of what a long, high-order ``seqimp poim`` run writes by default (target: <= 60 MB).

Makes a planted-motif FASTA pair of --n sequences per class of --length nt (TGACTCA near the
middle of 80% of the positives, uniform DNA elsewhere), runs the default ``seqimp poim``
(degree-8 WD, streaming POIM up to --max-order) into a scratch folder and prints every file
with its size, the total against the target, and, in the same process, the model file
re-saved the way earlier versions wrote it (uncompressed) as the baseline.

    python scripts/bench_outputs.py                 # n = 1800 per class, L = 1000, max order 10

At n = 1800 the earlier versions wrote 109 MB (107 MB measured before the change); the model file
grows with the number of training sequences times L times the degree (its non-zero weights).
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import numpy as np

TARGET = 60e6


def _write_pair(folder: Path, n: int, length: int, seed: int) -> tuple[Path, Path]:
    rng = np.random.default_rng(seed)
    letters = np.array(list("ACGT"))
    pos = rng.integers(0, 4, size=(n, length))
    neg = rng.integers(0, 4, size=(n, length))
    motif = np.array(["ACGT".index(c) for c in "TGACTCA"])
    for i in np.flatnonzero(rng.random(n) < 0.8):
        j = length // 2 + int(rng.integers(-5, 6))
        pos[i, j:j + 7] = motif
    paths = []
    for name, codes in (("pos.fa", pos), ("neg.fa", neg)):
        path = folder / name
        path.write_text("".join(f">s{i}\n{''.join(letters[row])}\n" for i, row in enumerate(codes)))
        paths.append(path)
    return paths[0], paths[1]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--n", type=int, default=1800, help="sequences per class (default 1800)")
    parser.add_argument("--length", type=int, default=1000, help="sequence length (default 1000)")
    parser.add_argument("--max-order", type=int, default=10, help="largest oligomer length (default 10)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)

    from seqimp.cli import main as seqimp_main
    from seqimp.kernels import PositionalWeights

    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        pos, neg = _write_pair(folder, args.n, args.length, args.seed)
        out = folder / "res"
        start = time.perf_counter()
        rc = seqimp_main(["--quiet", "poim", "--positive", str(pos), "--negative", str(neg), "--out", str(out),
                          "--max-order", str(args.max_order)])
        seconds = time.perf_counter() - start
        if rc != 0:
            return rc
        files = sorted((p for p in out.rglob("*") if p.is_file()), key=lambda p: -p.stat().st_size)
        total = sum(p.stat().st_size for p in files)
        print(f"seqimp poim, {args.n} + {args.n} sequences of {args.length} nt, max order {args.max_order}: "
              f"{seconds:.0f} s")
        for p in files[:12]:
            print(f"  {p.stat().st_size / 1e6:9.2f} MB  {p.relative_to(out)}")
        print(f"  {'':9}     ({len(files)} files in all)")
        model = out / "model.npz"
        t0 = time.perf_counter()
        weights = PositionalWeights.load(model)
        load_s = time.perf_counter() - t0
        weights.save(folder / "stored.npz", compress=False)
        stored = (folder / "stored.npz").stat().st_size
        baseline = total - model.stat().st_size + stored
        print(f"total {total / 1e6:.1f} MB (target <= {TARGET / 1e6:.0f} MB: {'met' if total <= TARGET else 'MISSED'}); "
              f"model.npz {model.stat().st_size / 1e6:.1f} MB, read back in {load_s:.1f} s")
        print(f"baseline (model stored uncompressed, as before): {baseline / 1e6:.1f} MB; "
              f"ratio {total / baseline:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
