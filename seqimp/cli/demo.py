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
name the motif, match it against one you download, e.g. JASPAR CORE in MEME
format:
  seqimp motifs --poim OUT/poim.npz --positive data/demo_positive.fa \
                --negative data/demo_negative.fa --out OUT --db JASPAR.meme

The demo uses a WD kernel of degree 6 and analyses oligomers up to length 8,
longer than the kernel's k-mers, which is how FIRM recovers a whole 7-mer.

examples:
  seqimp demo --out demo-results
"""

#: Settings of the demo run (fast enough for < 1 minute on two cores).
DEMO_SETTINGS = dict(degree=6, shifts=0, max_order=8, C=1.0, background="negative", test_fraction=0.2,
                     random_state=0, top=20)


def register(sub) -> None:
    p = sub.add_parser("demo", help="run the pipeline on the embedded demo data", description=HELP,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out", required=True, metavar="DIR", help="output folder (created if needed)")
    add_quiet(p)
    p.set_defaults(func=run)


def run(args) -> int:
    import matplotlib

    matplotlib.use("Agg")
    from ..pipeline import run_motifs, run_poim, update_report

    check_output_path(args.out)
    pos_path, neg_path = demo_paths()
    pos, neg = read_fasta(pos_path), read_fasta(neg_path)
    log(f"demo: {len(pos)} positive and {len(neg)} negative sequences of length {pos.length}")
    with output_dir(args.out, "poim", finish=lambda: update_report(args.out)) as tmp:  # the report gains the motif
        result = run_poim(pos, neg, tmp, title="seqimp demo: AP-1 site TGACTCA planted at positions 21-23",
                          progress=progress_enabled(), **DEMO_SETTINGS)
        motifs = run_motifs(tmp, poim=result.result, positive=pos, negative=neg, report=False,
                            random_state=DEMO_SETTINGS["random_state"])
    print_outcome(result, args.out, note=" -- planted: TGACTCA at 21-23")
    print("motifs (strongest first):")
    for line in motifs.lines():
        print(f"  {line}")
    print(f"to name it, match it against a motif database (none is shipped), e.g. JASPAR in MEME format:\n"
          f"  seqimp motifs --poim {args.out}/poim.npz --positive {pos_path} --negative {neg_path} "
          f"--out {args.out} --db JASPAR.meme")
    return 0
