"""``seqimp demo``: the whole ``seqimp poim`` pipeline on the embedded planted-motif data."""

from __future__ import annotations

import argparse

from ..datasets import demo_paths
from ..io._fasta import read_fasta
from .common import add_quiet, check_output_path, log, output_dir, print_outcome, progress_enabled

HELP = """\
Run the complete POIM/FIRM pipeline on the embedded demo data
(data/demo_positive.fa vs data/demo_negative.fa: the AP-1 site TGACTCA planted
at 1-based positions 21-23 of 60 nt random DNA, one base mutated in 20% of the
records) and write the results into OUT -- the same files as 'seqimp poim':
top_oligomers.tsv, heatmaps, poim.npz, model.npz, summary.json, report.html --
then find the motif ('seqimp motifs' on the same POIM and sequences): motifs.tsv,
motifs.meme, motif_sites.tsv/.bed, logos/, and a motif section in the report.

seqimp ships no motif database (JASPAR's files are not redistributed here). To
name the motif, give one you have, e.g. JASPAR CORE in MEME format, with --db:
the demo then ends with the motif's best match (TOMTOM p and q, decoy-calibrated
q) or "no significant match", and writes matches.tsv.

The demo uses a WD kernel of degree 6 and analyses oligomers up to length 8,
longer than the kernel's k-mers, which is how FIRM recovers a whole 7-mer.

examples:
  seqimp demo --out demo-results
  seqimp demo --out demo-results --db JASPAR2024_CORE_vertebrates_non-redundant.meme
"""

#: Settings of the demo run (fast enough for < 1 minute on two cores).
DEMO_SETTINGS = dict(degree=6, shifts=0, max_order=8, C=1.0, background="negative", test_fraction=0.2,
                     random_state=0, top=20)


def register(sub) -> None:
    p = sub.add_parser("demo", help="run the pipeline on the embedded demo data", description=HELP,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out", required=True, metavar="DIR", help="output folder (created if needed)")
    p.add_argument("--db", metavar="MOTIFS", help="known motifs (MEME, JASPAR or TRANSFAC) to name the motif with")
    add_quiet(p)
    p.set_defaults(func=run)


def run(args) -> int:
    import matplotlib

    matplotlib.use("Agg")
    from ..motifs import best_matches, match_line, read_motifs
    from ..pipeline import add_motifs, run_poim

    check_output_path(args.out)
    database = read_motifs(args.db) if args.db else None
    pos_path, neg_path = demo_paths()
    pos, neg = read_fasta(pos_path), read_fasta(neg_path)
    log(f"demo: {len(pos)} positive and {len(neg)} negative sequences of length {pos.length}")
    with output_dir(args.out, "poim") as tmp:  # the files of 'seqimp poim', its motifs included
        result = run_poim(pos, neg, tmp, title="seqimp demo: AP-1 site TGACTCA planted at positions 21-23",
                          progress=progress_enabled(), **DEMO_SETTINGS)
        motifs = add_motifs(tmp, result.result, pos, neg, database=database,
                            random_state=DEMO_SETTINGS["random_state"])
    print_outcome(result, args.out, note=" -- planted: TGACTCA at 21-23")
    if motifs is None:
        print("motifs: none (the differential POIM has no positive peak)")
        return 0
    print("motifs (strongest first):")
    for line in motifs.lines():
        print(f"  {line}")
    if motifs.matches is not None:
        for name, row in best_matches(motifs.matches).items():
            print(f"{name}: {match_line(row)}")
        return 0
    print(f"to name it, match it against a motif database you have (none is shipped), e.g. JASPAR in MEME format:\n"
          f"  seqimp demo --out {args.out} --db JASPAR.meme")
    return 0
