"""How much a PWM for scanning depends on the control drawn for its fit (docs/motifs.md, "Known
limits"; docs/benchmarks/motifs.md): ``seqimp motifs`` on one generated set, then its last step
(:func:`seqimp.motifs.scanning_motifs`) again on the same inputs with ``--draws`` seeds of the
drawn control, for each ``--bag``; every PWM's recall alone at 1% FPR on the set's three fresh
twins (scripts/motif_standalone.py's "PWM alone", the benchmark's figure), per draw, with the
least, mean and most over the draws.

    python scripts/scanning_fit_spread.py --kind weaklong --draws 6 --bag 1 4
    python scripts/scanning_fit_spread.py --kind anywhere --draws 4 --bag 1 4 --background order0

The inputs of the scanning step are captured from the run itself (every round's call); the run's
own answer is draw ``random_state`` = the run's seed, which is not among the draws unless it is.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from motif_scenarios import compare  # noqa: E402
from motif_standalone import STANDALONE, generate_standalone  # noqa: E402
from scenario_sets import FRESH_SEEDS, GENERATED, SHARED, generate, jaspar  # noqa: E402
from pwm_alone_paired import _hits, scoring_backgrounds  # noqa: E402


def captured_inputs(scenario, out):
    """``seqimp motifs --strand both`` on ``scenario`` into ``out``, returning the arguments of
    every call of :func:`seqimp.motifs.scanning_motifs` (sites, positive, negative, keywords)."""
    import copy

    import seqimp.motifs as motifs
    from seqimp.cli import main

    calls, real = [], motifs.scanning_motifs

    def spy(sites, positive, negative, **kw):
        calls.append((copy.deepcopy(sites), np.array(positive, copy=True), np.array(negative, copy=True), dict(kw)))
        return real(sites, positive, negative, **kw)

    motifs.scanning_motifs = spy
    try:
        rc = main(["motifs", "--positive", str(scenario.pos), "--negative", str(scenario.neg), "--out", str(out),
                   "--strand", "both", "--quiet"])
    finally:
        motifs.scanning_motifs = real
    if rc != 0:
        raise SystemExit(f"seqimp motifs failed on {scenario.pos} (exit {rc})")
    return calls


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--kind", required=True, choices=list(GENERATED) + list(STANDALONE))
    parser.add_argument("--seed", type=int, default=1, help="the set's seed (default 1, the benchmark's)")
    parser.add_argument("--draws", type=int, default=6, help="seeds of the drawn control per bag (default 6)")
    parser.add_argument("--bag", type=int, nargs="+", default=[1, 4], help="bag sizes to compare (default 1 4)")
    parser.add_argument("--background", choices=["order2", "order0", "uniform"], default="order2",
                        help="what the PWM alone is scored against (scripts/pwm_alone_paired.py)")
    args = parser.parse_args(argv)
    from seqimp.io import read_fasta
    from seqimp.motifs import scanning_motifs

    database = jaspar(SHARED)
    make = generate_standalone if args.kind in STANDALONE else generate
    with tempfile.TemporaryDirectory(prefix="scanning_fit_spread_") as tmp:
        tmp = Path(tmp)
        scenario = make(args.kind, args.seed, tmp / "sets", SHARED, database)
        fresh_sets = [make(args.kind, args.seed + extra, tmp / "fresh", SHARED, database) for extra in FRESH_SEEDS]
        codes = [(read_fasta(f.pos).codes, read_fasta(f.neg).codes) for f in fresh_sets]
        scoring = scoring_backgrounds([neg for _pos, neg in codes], args.background)
        calls = captured_inputs(scenario, tmp / "run")
        ids, truths = list(scenario.truths), list(scenario.truths.values())
        print(f"{scenario.name}: PWM alone at 1% FPR ({args.background} background) on {len(codes)} fresh sets; "
              f"scanning_motifs on the run's inputs, random_state 0..{args.draws - 1}\n")
        print("| round | motif | planted | bag | per draw (scan_pwm) | least | mean | most | s per call |")
        print("|---|---|---|---|---|---|---|---|---|")
        for r, (sites, pos, neg, kw) in enumerate(calls):
            for bag in args.bag:
                per_motif, seconds = {}, []
                for draw in range(args.draws):
                    t0 = time.perf_counter()
                    out = scanning_motifs(sites, pos, neg, **{**kw, "bag": bag, "random_state": draw})
                    seconds.append(time.perf_counter() - t0)
                    for scan, row in zip(out.scanning, out.stats.to_dict("records")):
                        if scan.direction == "enriched":
                            per_motif.setdefault(scan.name, []).append((scan, row["scan_pwm"]))
                for name, fits in per_motif.items():
                    p, _offset, _strand = compare([fits[0][0]], truths, database)
                    mid = ids[int(np.argmin(p[0]))]
                    fresh = [(f.planted[f.planted["motif"] == mid], P, N, bg)
                             for f, (P, N), bg in zip(fresh_sets, codes, scoring)]
                    got = [float(_hits(scan.pwm, fresh).mean()) for scan, _kind in fits]
                    draws = ", ".join(f"{g:.3f} ({kind})" for g, (_s, kind) in zip(got, fits))
                    print(f"| {r + 1} | {name} {fits[0][0].consensus} | {mid} | {bag} | {draws} | {min(got):.3f} "
                          f"| {np.mean(got):.3f} | {max(got):.3f} | {np.median(seconds):.2f} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
