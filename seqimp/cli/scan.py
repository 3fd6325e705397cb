"""``seqimp scan``: sites of known motifs in sequences, with exact p-values and q-values (as FIMO)."""

from __future__ import annotations

import argparse

from ._inputs import add_input_options, read_inputs, read_motif_source, refuse_protein
from ._logging import UserError, terminal_text
from ._options import add_quiet, positive_float
from ._output_folder import check_output_path, input_paths, output_dir

SUMMARY = "sites of known motifs in sequences: exact p-values, q-values (FIMO-like)"

HELP = """\
Scan sequences with position weight matrices: every window on both strands is
scored with the motif's integer-scaled log2-odds matrix, and its p-value is
the exact probability of that score or more under the background (a dynamic
programme over the columns, as FIMO computes it). q-values are per motif over
every window scored (Benjamini-Hochberg, or Storey's with --q-method storey).

Motifs: a MEME (also MEME's or STREME's text output), JASPAR, TRANSFAC or HOMER
file, the folder of a 'seqimp motifs' run (its motifs.meme), or a JASPAR
release (JASPAR2024, JASPAR2024:insects, JASPAR2024:all; through pyjaspar).
Sequences: --fasta (records of any length), or windows cut from a genome
(--positive-bed PEAKS --genome G --width W), or --table.

Writes into DIR: scan.tsv (motif, id, position: 1-based leftmost base on the
+ strand, strand, score in bits, p_value, q_value, matched site; with an
origin also position_label), scan.bed (BED6: genome coordinates for genome
input, else the sequence id as chrom; score = min(1000, round(-100 log10 p))),
scan.json (options, background, windows scored per motif), scan_positions.png
and report.html.

examples:
  seqimp scan --motifs motifs.meme --fasta seqs.fa --out scan
  seqimp scan --motifs JASPAR2024 --fasta promoters.fa --out scan --thresh 1e-5
  seqimp scan --motifs results --positive-bed peaks.narrowPeak --genome hg38.fa --width 200 --out scan
"""


def register(sub) -> None:
    p = sub.add_parser("scan", help=SUMMARY, description=HELP, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--motifs", required=True, metavar="MOTIFS",
                   help="motif file (MEME, STREME/MEME output, JASPAR, TRANSFAC, HOMER), a 'seqimp motifs' folder, "
                        "or a JASPAR release (JASPAR2024[:TAXGROUP])")
    p.add_argument("--db-format", choices=["meme", "jaspar", "transfac", "homer"], default=None,
                   help="format of --motifs (default: recognised from the file)")
    p.add_argument("--fasta", metavar="SEQS.fa", help="sequences to scan (FASTA, plain or gzip; any lengths)")
    add_input_options(p, regression=False)
    p.add_argument("--out", required=True, metavar="DIR", help="output folder (created if needed)")
    s = p.add_argument_group("scan")
    s.add_argument("--thresh", type=positive_float, default=1e-4,
                   help="report sites with p-value <= THRESH (default 1e-4)")
    s.add_argument("--q-method", choices=["bh", "storey"], default="bh",
                   help="q-values: Benjamini-Hochberg (default) or Storey's (as FIMO)")
    s.add_argument("--strand", choices=["both", "given"], default="both", help="strands scanned (default both)")
    s.add_argument("--background", choices=["uniform", "sequences"], default="uniform",
                   help="null letter frequencies: uniform (default) or those of the scanned sequences")
    s.add_argument("--bfile", metavar="FILE", default=None,
                   help="a Markov background of order 0..5 in MEME's background format (fasta-get-markov; "
                        "a 'seqimp motifs' folder's background.txt): scores are log-likelihood ratios against "
                        "it, p-values exact under it (replaces --background)")
    s.add_argument("--motif-thresholds", action="store_true",
                   help="--motifs is a 'seqimp motifs' folder: report each motif's windows scoring at least its "
                        "scan_threshold (motifs.tsv; the score that at most 1%% of that run's negatives reach), "
                        "against its background.txt (unless --bfile) and with pseudocount 0 (unless given), "
                        "instead of --thresh")
    s.add_argument("--pseudocount", type=float, default=None,
                   help="added to every motif column, spread by the background (default 0.1, as FIMO; 0 with "
                        "--motif-thresholds)")
    s.add_argument("--format", choices=["png", "svg", "pdf"], default="png", help="figure format (default png)")
    add_quiet(p)
    p.set_defaults(func=run)


def _sequences(args):
    refuse_protein(args, "motifs are DNA (A, C, G, T); protein sequences cannot be scanned")
    if args.negative_bed is not None or args.negatives is not None:
        raise UserError("seqimp scan takes one set of sequences; negatives (--negative-bed, --negatives) are "
                        "for seqimp enrich")
    inputs = read_inputs(args, any_length=True)
    sequences = inputs.table if inputs.table is not None else inputs.positive  # a table: all its sequences
    if sequences is None:
        raise UserError("give the sequences to scan: --fasta SEQS.fa, --positive-bed PEAKS.bed --genome G "
                        "--width W, or --table")
    return sequences, inputs


def _motif_thresholds(args):
    """``(name -> scan_threshold, background file)`` of the 'seqimp motifs' folder ``--motifs``."""
    from pathlib import Path

    import pandas as pd

    folder = Path(args.motifs)
    table = folder / "motifs.tsv"
    if not folder.is_dir() or not table.is_file():
        raise UserError(f"--motif-thresholds: --motifs {args.motifs} is not a 'seqimp motifs' folder (no motifs.tsv)")
    rows = pd.read_csv(table, sep="\t")
    if "scan_threshold" not in rows:
        raise UserError(f"--motif-thresholds: {table} has no scan_threshold column (a run with --no-scan-pwm, or "
                        "of an earlier seqimp)")
    bfile = args.bfile if args.bfile is not None else folder / "background.txt"
    return dict(zip(rows["name"].astype(str), rows["scan_threshold"].astype(float))), bfile


def run(args) -> int:
    import matplotlib

    matplotlib.use("Agg")
    from ..pipeline import ScanOptions, run_scan

    if args.pseudocount is None:
        args.pseudocount = 0.0 if args.motif_thresholds else 0.1
    if args.pseudocount < 0:
        raise UserError(f"--pseudocount must be >= 0, got {args.pseudocount}")
    if args.thresh > 1:
        raise UserError(f"--thresh is a p-value in (0, 1], got {args.thresh}")
    check_output_path(args.out)
    min_scores, bfile = _motif_thresholds(args) if args.motif_thresholds else (None, args.bfile)
    background = args.background
    if bfile is not None:
        from ..background import read_bfile

        background = read_bfile(bfile)
    database = read_motif_source(args.motifs, args.db_format, "--motifs")
    sequences, inputs = _sequences(args)
    options = ScanOptions(threshold=args.thresh, strand=args.strand, q_method=args.q_method,
                          background=background, pseudocount=args.pseudocount, min_scores=min_scores)
    with output_dir(args.out, "scan", inputs=input_paths(args)) as tmp:
        found = run_scan(tmp, database, sequences, windows=inputs.windows, origin=inputs.origin, options=options,
                         database=database.info, fmt=args.format)
    hits = found.hits
    at = "at their scan_threshold" if min_scores is not None else f"at p <= {args.thresh:g}"
    print(f"{len(hits)} sites of {len(database)} motifs {at} "
          f"({int((hits['q_value'] <= 0.05).sum())} at q <= 0.05) in {len(sequences)} sequences")
    for row in hits.head(5).to_dict("records"):
        line = (f"  {row['motif']}  {row['id']}:{row['position']}({row['strand']})  {row['matched']}  "
                f"p = {row['p_value']:.2g}  q = {row['q_value']:.2g}")
        print(terminal_text(line))  # a motif's name from a file: escape sequences shown, not obeyed
    print(f"results: {args.out}/scan.tsv, scan.bed, report.html")
    return 0
