"""``seqimp enrich``: enrichment of known motifs in positives against negatives (as SEA/AME)."""

from __future__ import annotations

import argparse

from ._inputs import add_input_options, default_negatives, read_inputs, read_motif_source
from ._logging import UserError, terminal_text
from ._options import add_data_options, add_db_option, add_quiet, seed, share
from ._vocabulary import Choice, add_bfile_option, add_site_pvalue_option, add_strand_option, chosen_background
from ._output_folder import check_output_path, input_paths, output_dir

SUMMARY = "enrichment of known motifs in positives vs negatives (SEA/AME-like)"

HELP = """\
Test every motif of a database for enrichment in the positive sequences
against the negatives. With --method fisher (default, as SEA) a sequence has a
site when its best window on either strand has an exact p-value <= --site-pvalue
(the threshold comes from each motif's own score distribution, not from the
labels), and a one-sided Fisher exact test compares the shares of positives
and negatives with a site. With --method ranksum (as AME) the best scores of
positives and negatives are compared by a one-sided Mann-Whitney U test.
q-values are Benjamini-Hochberg across the database.

Motifs: --db a motif file (MEME, STREME/MEME output, JASPAR, TRANSFAC, HOMER),
the folder of a 'seqimp motifs' run (the test on the motifs it found), or a
JASPAR release (JASPAR2024 = CORE vertebrates; JASPAR2024:insects, :plants,
:fungi, :nematodes, :urochordates, :all). Sequences: --positive/--negative
(FASTA, any lengths; --positive alone, or --negatives shuffle, tests against
dinucleotide shuffles of the positives, as SEA does), BED regions on a genome,
or a --table with a binary label column.

Writes into DIR: enrichment.tsv (motif, target_description,
positives_with_site, negatives_with_site, p_value, q_value, then the counts,
shares, site score threshold, method and JASPAR tf_family/tf_class),
enrichment.json, enrichment.png and report.html.

examples:
  seqimp enrich --positive pos.fa --negative neg.fa --db JASPAR2024 --out enrich
  seqimp enrich --positive pos.fa --db data/known_motifs.meme --out enrich
  seqimp enrich --positive pos.fa --negative neg.fa --db motifs --out enrich --method ranksum
"""


def register(sub) -> None:
    p = sub.add_parser("enrich", help=SUMMARY, description=HELP, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_data_options(p, required=False, shuffle_default=True, any_length=True)
    add_input_options(p, table="classifier", regression=False, origin=False, alphabets=("dna", "rna"))
    add_db_option(p, "to test", required=True)
    p.add_argument("--out", required=True, metavar="DIR", help="output folder (created if needed)")
    e = p.add_argument_group("test")
    e.add_argument("--method", choices=["fisher", "ranksum"], default="fisher",
                   help="Fisher's exact test on sequences with a site (default) or Mann-Whitney U on best scores")
    add_site_pvalue_option(e, help_text="a sequence has a site when its best window has an exact p-value <= P")
    e.add_argument("--background", action=Choice, allowed=("uniform", "negative"), old_values={"sequences": "negative"},
                   default="uniform", help="null letter frequencies of the site threshold: uniform (default) or "
                                           "those of the negative sequences")
    add_bfile_option(e, scored="the site p-value")
    add_strand_option(e, default="both", what="scan")
    e.add_argument("--max-q", type=share, default=0.05, help="q-value the report calls enriched (default 0.05)")
    e.add_argument("--seed", type=seed, default=0,
                   help="seed of --negatives shuffle/genome (default 0, recorded in enrichment.json)")
    e.add_argument("--format", choices=["png", "svg", "pdf"], default="png", help="figure format (default png)")
    add_quiet(p)
    p.set_defaults(func=run)


def _sequences(args):
    default_negatives(args, "seqimp enrich")
    inputs = read_inputs(args, any_length=True)
    if inputs.table is not None and not inputs.table.binary:
        raise UserError(f"--table {args.table}: enrichment needs two classes; the value column "
                        f"{args.value_column!r} holds measured values, not a binary label")
    if inputs.positive is None or inputs.negative is None:
        raise UserError("give the positives: --positive POS.fa (with --negative NEG.fa, or alone for shuffled "
                        "controls), --positive-bed PEAKS.bed --genome G --width W, or --table with a binary label")
    return inputs


def run(args) -> int:
    import matplotlib

    matplotlib.use("Agg")
    from ..options import EnrichOptions, OutputOptions
    from ..pipeline import run_enrich

    if args.site_pvalue > 1:
        raise UserError(f"--site-pvalue is a p-value in (0, 1], got {args.site_pvalue}")
    check_output_path(args.out)
    database = read_motif_source(args.db, args.db_format, "--db")
    inputs = _sequences(args)
    background = chosen_background(args.background, args.bfile)
    options = EnrichOptions(method=args.method, site_pvalue=args.site_pvalue, background=background,
                            strand=args.strand, max_qvalue=args.max_q)
    with output_dir(args.out, "enrich", inputs=input_paths(args)) as tmp:
        found = run_enrich(tmp, database, inputs.positive, inputs.negative, options=options,
                           output=OutputOptions(fmt=args.format), random_state=args.seed)
    table = found.table
    enriched = table[table["q_value"] <= args.max_q]
    print(f"{len(enriched)} of {len(table)} motifs enriched at q <= {args.max_q:g} "
          f"({len(inputs.positive)} positives, {len(inputs.negative)} negatives; {database.label})")
    for row in enriched.head(10).to_dict("records"):
        line = (f"  {row['motif']} {row['target_description']}: {row['positives_with_site']} positives, "
                f"{row['negatives_with_site']} negatives with a site, q = {row['q_value']:.2g}")
        print(terminal_text(line))  # a motif's name from a file: escape sequences shown, not obeyed
    print(f"results: {args.out}/enrichment.tsv, report.html")
    return 0
