"""``seqimp scan``: sites of known motifs in sequences, with exact p-values and q-values (as FIMO)."""

from __future__ import annotations

import argparse

from ._inputs import add_input_options, read_inputs, read_motif_source
from ._logging import UserError, terminal_text
from ._options import add_db_option, add_quiet, details
from ._vocabulary import Choice, add_bfile_option, add_site_pvalue_option, add_strand_option, chosen_background
from ._output_folder import check_output_path, input_paths, output_dir

SUMMARY = "sites of known motifs in sequences: exact p-values, q-values (FIMO-like)"

HELP = """\
Scan sequences with position weight matrices: every window on both strands is
scored with the motif's integer-scaled log2-odds matrix, and its p-value is
the exact probability of that score or more under the background (a dynamic
programme over the columns, as FIMO computes it). q-values are per motif over
every window scored (Benjamini-Hochberg, or Storey's with --q-method storey).

Motifs: --db, a MEME (also MEME's or STREME's text output), JASPAR, TRANSFAC
or HOMER file, the folder of a 'seqimp motifs' run (its motifs.meme), or a
JASPAR release (JASPAR2024, JASPAR2024:insects, JASPAR2024:all; through
pyjaspar). Sequences: --fasta (records of any length), or windows cut from a
genome (--positive-bed PEAKS --genome G --width W), or --table. A site is a
window whose p-value is at most --site-pvalue (default 1e-4), on both strands
unless --strand given.

Writes into DIR: scan.tsv (motif, id, position: 1-based leftmost base on the
+ strand, strand, score in bits, p_value, q_value, matched site; with an
origin also position_label), scan.bed (BED6: genome coordinates for genome
input, else the sequence id as chrom; score = min(1000, round(-100 log10 p))),
scan.json (options, background, windows scored per motif), scan_positions.png
and report.html.

examples:
  seqimp scan --db data/known_motifs.meme --fasta seqs.fa --out scan
  seqimp scan --db JASPAR2024 --fasta promoters.fa --out scan --site-pvalue 1e-5
  seqimp scan --db motifs --positive-bed peaks.narrowPeak --genome hg38.fa --width 200 --out scan
"""


def register(sub) -> None:
    p = sub.add_parser("scan", help=SUMMARY, description=HELP, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_db_option(p, "to scan for", required=True)
    p.add_argument("--fasta", metavar="SEQS.fa", help="sequences to scan (FASTA, plain or gzip; any lengths)")
    add_input_options(p, table="sequences", regression=False, negatives=False, alphabets=("dna", "rna"))
    p.add_argument("--out", required=True, metavar="DIR", help="output folder (created if needed)")
    s = p.add_argument_group("scan")
    add_site_pvalue_option(s, help_text="report the windows with an exact p-value <= P")
    s.add_argument("--q-method", choices=["bh", "storey"], default="bh",
                   help="q-values: Benjamini-Hochberg (default) or Storey's (as FIMO)")
    add_strand_option(s, default="both", what="scan")
    s.add_argument("--background", action=Choice, allowed=("uniform", "all"), old_values={"sequences": "all"},
                   default="uniform", help="null letter frequencies of the p-values: uniform (default) or those of "
                                           "all the scanned sequences")
    add_bfile_option(s, scored="p-values")
    details(s.add_argument("--motif-thresholds", action="store_true",
                           help="--db is a 'seqimp motifs' folder: report the windows scoring at least each "
                                "motif's scan_threshold"),
            "Each motif's windows scoring at least its scan_threshold (motifs.tsv; the score that at most 1% of "
            "that run's negatives reach) are reported, against its background.txt (unless --bfile) and with "
            "pseudocount 0 (unless given), instead of --site-pvalue.")
    s.add_argument("--pseudocount", type=float, default=None,
                   help="added to every motif column, spread by the background (default 0.1, as FIMO; 0 with "
                        "--motif-thresholds)")
    s.add_argument("--format", choices=["png", "svg", "pdf"], default="png", help="figure format (default png)")
    add_quiet(p)
    p.set_defaults(func=run)


def _sequences(args):
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

    folder = Path(args.db)
    table = folder / "motifs.tsv"
    if not folder.is_dir() or not table.is_file():
        raise UserError(f"--motif-thresholds: --db {args.db} is not a 'seqimp motifs' folder (no motifs.tsv)")
    rows = pd.read_csv(table, sep="\t")
    if "scan_threshold" not in rows:
        raise UserError(f"--motif-thresholds: {table} has no scan_threshold column (a run with --no-scan-pwm, or "
                        "of an earlier seqimp)")
    bfile = args.bfile if args.bfile is not None else folder / "background.txt"
    return dict(zip(rows["name"].astype(str), rows["scan_threshold"].astype(float))), bfile


def run(args) -> int:
    import matplotlib

    matplotlib.use("Agg")
    from ..options import OutputOptions, ScanOptions
    from ..pipeline import run_scan

    if args.pseudocount is None:
        args.pseudocount = 0.0 if args.motif_thresholds else 0.1
    if args.pseudocount < 0:
        raise UserError(f"--pseudocount must be >= 0, got {args.pseudocount}")
    if args.site_pvalue > 1:
        raise UserError(f"--site-pvalue is a p-value in (0, 1], got {args.site_pvalue}")
    check_output_path(args.out)
    min_scores, bfile = _motif_thresholds(args) if args.motif_thresholds else (None, args.bfile)
    background = chosen_background(args.background, bfile)
    database = read_motif_source(args.db, args.db_format, "--db")
    sequences, inputs = _sequences(args)
    options = ScanOptions(site_pvalue=args.site_pvalue, strand=args.strand, q_method=args.q_method,
                          background=background, pseudocount=args.pseudocount, min_scores=min_scores)
    with output_dir(args.out, "scan", inputs=input_paths(args)) as tmp:
        found = run_scan(tmp, database, sequences, windows=inputs.windows, origin=inputs.origin, options=options,
                         database=database.info, output=OutputOptions(fmt=args.format))
    hits = found.hits
    at = "at their scan_threshold" if min_scores is not None else f"at p <= {args.site_pvalue:g}"
    print(f"{len(hits)} sites of {len(database)} motifs {at} "
          f"({int((hits['q_value'] <= 0.05).sum())} at q <= 0.05) in {len(sequences)} sequences")
    for row in hits.head(5).to_dict("records"):
        line = (f"  {row['motif']}  {row['id']}:{row['position']}({row['strand']})  {row['matched']}  "
                f"p = {row['p_value']:.2g}  q = {row['q_value']:.2g}")
        print(terminal_text(line))  # a motif's name from a file: escape sequences shown, not obeyed
    print(f"results: {args.out}/scan.tsv, scan.bed, report.html")
    return 0
