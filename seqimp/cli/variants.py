"""``seqimp variants``: the exact effect of every variant of a VCF on a trained model's score."""

from __future__ import annotations

import argparse

from ._logging import UserError
from ._options import add_mask_option, add_other_model_options, add_quiet, details, load_other_model, nonneg_int, positive_int, seed
from ._output_folder import check_output_path, input_paths, output_dir

SUMMARY = "variant effects: exact score changes (deltaSVM-style) for the variants of a VCF"

HELP = """\
Score the variants of a VCF with a trained model: for each variant, the model's
score of the window with the reference allele (score_ref), with the
alternative (score_alt), and delta = score_alt - score_ref. For a WD/WDS model
(seqimp train) and a gapped-k-mer model (seqimp train --model gkm) a
substitution's delta comes exactly from the weights of the k-mers it changes
(deltaSVM's rule for gkm, with the exact normalisation); other models
(--onnx-model, --scorer, --sklearn-model) score both windows. Indels of up to
50 nt: the window is re-cut to the model's width around the same centre.

Windows: with --regions, those a positional model scores (--width nt around
each region's summit or centre, as 'seqimp poim --positive-bed' cuts them; '-'
strand regions read as their reverse complement), each variant in every window
that holds it; without, one window centred on each variant (its first REF base
at index width // 2). The width is the model's (--width for a score function or
a gkm model that does not record it).

Writes into DIR: variants.tsv (chrom, pos 1-based, id, ref, alt, window,
score_ref, score_alt, delta, p_value: the share of every possible substitution
of the same windows with |delta| at least as large, oligomer,
oligomer_position (1-based in the window), oligomer_change: the positional
oligomer whose weight changes most, minus its weight when lost, its weight when
gained; a gapped k-mer shows its gaps as '.'), variants.bed (BED6, score =
|delta| scaled to 0..1000), variants.json (options, counts, versions),
variants_delta.png, top_variants.png (per-base importance with ref and alt)
and report.html.

Inputs are checked before anything is written: a REF that differs from the
genome (--skip-mismatch leaves such records out), a malformed line, a
chromosome the genome lacks, a variant in no window (--skip-outside), several
ALTs on a line (--split-multiallelic), symbolic alleles (<DEL>), indels over
50 nt, a bgzip VCF without its index where --skip-outside reads the regions
through it.

examples:
  seqimp variants --model-file model.npz --vcf calls.vcf.gz --genome hg38.fa --regions peaks.bed --out var
  seqimp variants --model-file gkm.npz --vcf calls.vcf --genome hg38.fa --out var
  seqimp variants --onnx-model cnn.onnx --vcf calls.vcf --genome hg38.fa --out var
  seqimp variants --scorer my_model.py:score --width 200 --vcf calls.vcf --genome hg38.fa --out var
  seqimp variants --model-file model.npz --vcf all.vcf.gz --genome hg38.fa --regions peaks.bed --skip-outside --out var
"""


def register(sub) -> None:
    p = sub.add_parser("variants", help=SUMMARY, description=HELP, formatter_class=argparse.RawDescriptionHelpFormatter)
    m = p.add_argument_group("model (one of)").add_mutually_exclusive_group(required=True)
    details(m.add_argument("--model-file", "--model", dest="model_file", metavar="MODEL.npz",
                           help="a model saved by 'seqimp train' (WD/WDS, or gkm: 'seqimp train --model gkm')"),
            "--model is the same option (variants trains no model, so it names a file here).")
    add_other_model_options(p, m)
    p.add_argument("--vcf", required=True, metavar="V.vcf[.gz]", help="the variants (plain, gzip or bgzip VCF)")
    p.add_argument("--genome", required=True, metavar="G.fa", help="genome FASTA (plain or bgzip; indexed if needed)")
    p.add_argument("--out", required=True, metavar="DIR", help="output folder (created if needed)")
    w = p.add_argument_group("windows")
    w.add_argument("--regions", metavar="R.bed", help="BED/narrowPeak regions: the windows a positional model scores")
    w.add_argument("--width", type=positive_int, default=None,
                   help="window width (default: the model's; needed for --scorer/--sklearn-model and dynamic ONNX)")
    c = p.add_argument_group("checks")
    c.add_argument("--skip-mismatch", action="store_true", help="leave out records whose REF differs from the genome")
    details(c.add_argument("--skip-outside", action="store_true",
                           help="with --regions: score the variants in the windows and leave the others out"),
            "A bgzip VCF is then read through its .tbi/.csi index, with pysam when installed.")
    c.add_argument("--split-multiallelic", action="store_true",
                   help="score each ALT of a multi-allelic record as a variant of its own")
    add_mask_option(c)
    o = p.add_argument_group("output")
    o.add_argument("--top", type=nonneg_int, default=8, help="variants shown in the plots and report (default 8)")
    o.add_argument("--null-windows", type=positive_int, default=None, metavar="N",
                   help="p-values against the substitutions of a random sample of N windows (default: all windows)")
    o.add_argument("--seed", type=seed, default=0, help="seed of that sample (default 0, in variants.json)")
    o.add_argument("--format", choices=["png", "svg", "pdf"], default="png", help="figure format (default png)")
    add_quiet(p)
    p.set_defaults(func=run)


def _model(args):
    """The model (loaded now: a bad file fails before the output folder), its kind's name and metadata."""
    if args.model_file:
        from ..training._model_file import load_model_file

        model, _kind, metadata = load_model_file(args.model_file)
        return model, args.model_file, metadata
    return load_other_model(args)


def run(args) -> int:
    import matplotlib

    matplotlib.use("Agg")
    from ..errors import check_file
    from ..options import OutputOptions, VariantOptions
    from ..pipeline import run_variants

    if args.output_index is not None and not args.onnx_model:
        raise UserError("--output-index selects an output column of --onnx-model; give the model")
    if args.skip_outside and not args.regions:
        raise UserError("--skip-outside leaves out variants outside --regions; give the regions")
    check_output_path(args.out)
    for option, path in (("--vcf", args.vcf), ("--genome", args.genome), ("--regions", args.regions)):
        if path is not None:
            check_file(path, option)
    model, source, metadata = _model(args)
    options = VariantOptions(width=args.width, skip_mismatch=args.skip_mismatch, skip_outside=args.skip_outside,
                             split_multiallelic=args.split_multiallelic, top=args.top, null_windows=args.null_windows,
                             mask_lowercase=args.mask_lowercase)
    with output_dir(args.out, "variants", inputs=input_paths(args)) as tmp:
        found = run_variants(tmp, model, args.vcf, args.genome, regions=args.regions, options=options,
                             output=OutputOptions(fmt=args.format), random_state=args.seed, metadata=metadata,
                             model_source=source)
    table = found.table
    print(f"{found.parameters['variants']:,} variants scored in {found.parameters['windows']:,} windows "
          f"({len(table):,} rows); {int((table['p_value'] <= 0.01).sum())} at p <= 0.01")
    order = (-table["delta"].abs().to_numpy()).argsort(kind="stable")[:5]
    for row in table.iloc[order].to_dict("records"):
        print(f"  {row['chrom']}:{row['pos']} {row['ref']}>{row['alt']} ({row['id']})  delta {row['delta']:.4g}  "
              f"p {row['p_value']:.3g}  {row['oligomer']}")
    print(f"results: {args.out}/variants.tsv, variants.bed, report.html")
    return 0
