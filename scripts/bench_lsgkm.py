"""Scoring with an LS-GKM model: seqimp's reader (:mod:`seqimp.kernels.gkm._lsgkm`) beside LS-GKM's
``gkmpredict`` on the same model and sequences.

Prints, for each side, the time to load the model and the scoring throughput (sequences a
second, the model already loaded), fastest of ``--repeat`` runs, the runs of the two sides
alternating in this process; and their ratios. seqimp runs on one thread (numba's) and, with
``--threads N``, also on N; gkmpredict runs with ``-T 1``. gkmpredict's load time is its run on
one sequence; its scoring time is its run on all of them less that. The largest difference of
the scores (gkmpredict prints 6 significant digits) is printed too.

The default model and sequences are LS-GKM's NFE2 example (``../shared/data/lsgkm_nfe2``,
not in the repository: ``nfe2.model.txt``, gkm_esttrunc l = 10, k = 6, d = 3, 958 support
vectors; ``nfe2.test.fa`` and ``nfe2.neg.test.fa``, 138 sequences of 235 nt), the sequences
repeated ``--copies`` times. gkmpredict is skipped, with a note, unless ``--gkmpredict PATH``
names it (github:Dongwon-Lee/lsgkm, ``cd src && make``).

    python scripts/bench_lsgkm.py --gkmpredict /tmp/lsgkm/src/gkmpredict
    python scripts/bench_lsgkm.py --gkmpredict /tmp/lsgkm/src/gkmpredict --model M.model.txt --fasta X.fa --threads 2
"""

from __future__ import annotations

import argparse
import os
import subprocess
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np

NFE2 = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "lsgkm_nfe2"


def _fasta(paths):
    from seqimp.io._fasta import iter_fasta

    return [s for p in paths for _, s in iter_fasta(Path(p))]


def _gkmpredict(binary, fasta, model, out):
    start = time.perf_counter()
    subprocess.run([binary, "-T", "1", "-v", "0", fasta, model, out], check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - start


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--gkmpredict", default=None, help="path of LS-GKM's gkmpredict")
    parser.add_argument("--model", default=str(NFE2 / "nfe2.model.txt"))
    parser.add_argument("--fasta", nargs="+", default=[str(NFE2 / "nfe2.test.fa"), str(NFE2 / "nfe2.neg.test.fa")])
    parser.add_argument("--copies", type=int, default=5, help="repeat the sequences this many times (default 5)")
    parser.add_argument("--repeat", type=int, default=3, help="runs of each side; the fastest counts (default 3)")
    parser.add_argument("--threads", type=int, default=None, help="also time seqimp on this many threads")
    args = parser.parse_args(argv)

    import numba

    from seqimp.kernels.gkm._lsgkm import read_lsgkm_model

    warnings.simplefilter("ignore")  # letters other than ACGT, read as A by both sides
    seqs = _fasta(args.fasta) * args.copies
    n = len(seqs)
    read_lsgkm_model(args.model).decision_function(seqs[:2])  # numba's compilation, outside the timings
    with tempfile.TemporaryDirectory() as tmp:
        fasta, one = os.path.join(tmp, "x.fa"), os.path.join(tmp, "one.fa")
        with open(fasta, "w") as fh:
            fh.write("".join(f">s{i}\n{s}\n" for i, s in enumerate(seqs)))
        with open(one, "w") as fh:
            fh.write(f">s0\n{seqs[0]}\n")
        times = {"seqimp load": [], "seqimp score": [], "gkmpredict load": [], "gkmpredict all": []}
        if args.threads:
            times[f"seqimp score ({args.threads} threads)"] = []
        scores = None
        for _ in range(args.repeat):
            numba.set_num_threads(1)
            start = time.perf_counter()
            model = read_lsgkm_model(args.model)
            times["seqimp load"].append(time.perf_counter() - start)
            start = time.perf_counter()
            scores = model.decision_function(seqs)
            times["seqimp score"].append(time.perf_counter() - start)
            if args.threads:
                numba.set_num_threads(min(args.threads, numba.config.NUMBA_NUM_THREADS))
                model = read_lsgkm_model(args.model)
                start = time.perf_counter()
                model.decision_function(seqs)
                times[f"seqimp score ({args.threads} threads)"].append(time.perf_counter() - start)
            if args.gkmpredict:
                times["gkmpredict load"].append(_gkmpredict(args.gkmpredict, one, args.model, os.path.join(tmp, "o")))
                times["gkmpredict all"].append(_gkmpredict(args.gkmpredict, fasta, args.model, os.path.join(tmp, "p")))
        best = {k: min(v) for k, v in times.items() if v}
        print(f"model {args.model}: {model!r}")
        names = ", ".join(Path(f).name for f in args.fasta)
        print(f"{n} sequences ({names} x {args.copies}); fastest of {args.repeat}")
        print(f"seqimp      load {best['seqimp load']:.3f} s   score {best['seqimp score']:.3f} s   "
              f"{n / best['seqimp score']:,.0f} sequences/s (1 thread)")
        for key in best:
            if key.startswith("seqimp score ("):
                print(f"seqimp      score {best[key]:.3f} s   {n / best[key]:,.0f} sequences/s {key[13:]}")
        if args.gkmpredict:
            score = max(best["gkmpredict all"] - best["gkmpredict load"], 1e-9)
            print(f"gkmpredict  load {best['gkmpredict load']:.3f} s   score {score:.3f} s   "
                  f"{n / score:,.0f} sequences/s (-T 1; all {best['gkmpredict all']:.3f} s)")
            print(f"ratio (seqimp / gkmpredict): throughput {score / best['seqimp score']:.1f}x, load "
                  f"{best['seqimp load'] / best['gkmpredict load']:.2f}x, end to end "
                  f"{best['gkmpredict all'] / (best['seqimp load'] + best['seqimp score']):.1f}x faster")
            theirs = np.array([float(line.split("\t")[1]) for line in open(os.path.join(tmp, "p"))])
            print(f"largest |seqimp - gkmpredict| {np.abs(scores - theirs).max():.2e} (gkmpredict prints %g)")
        else:
            print("gkmpredict: not run (give --gkmpredict PATH)")


if __name__ == "__main__":
    main()
