"""``seqimp predict``: score new sequences with a saved model; with labels, auROC and auPRC."""

from __future__ import annotations

import argparse

from ._inputs import add_input_options, read_inputs
from ._logging import UserError, progress_enabled
from ._options import add_other_model_options, add_quiet, details, load_other_model, positive_int
from ._output_folder import check_output_path, input_paths, output_dir

SUMMARY = "score sequences with a saved model; auROC and auPRC given labels"

HELP = """\
Score sequences with a saved model (seqimp train: WD, WDS, gkm; LS-GKM; an
ONNX, scikit-learn or Python score function) and write one score per record, in
input order. Given labels (--positive/--negative, or --table with a label
column), also auROC and auPRC. Full reference: docs/cli/predict.md.

Writes into DIR: predictions.tsv (id, score; with labels also label),
predictions.json (model, counts, auROC, auPRC), roc_pr.png (with labels) and
report.html.

examples:
  seqimp predict --model-file model.npz --fasta seqs.fa --out scores
  seqimp predict --model-file gkm.npz --positive test_pos.fa --negative test_neg.fa --out test
  seqimp predict --model-file model.npz --positive-bed peaks.bed --genome hg38.fa --out scores
  seqimp predict --onnx-model cnn.onnx --fasta seqs.fa --out scores
"""

#: The details of 'seqimp predict' (its docs/cli page; ``--help`` shows :data:`HELP`).
DETAILS = """\
`seqimp predict` scores sequences with a saved model through the model's own batch scoring (the WD/WDS
model's positional weights, the gkm model's decision function, or the score function), `--batch-size`
sequences at a time with a progress bar, and writes `predictions.tsv`: the columns `id` and `score`, one row
per record in input order (with labels a `label` column follows). A WD/WDS model scores sequences of its own
length (BED windows default to it); a gkm model scores records of any length.

Labels come from `--positive POS.fa --negative NEG.fa` (1 and 0; the positives first), from `--positive-bed`
with `--negative-bed`, or from `--table` with a label column of two values. auROC
(`sklearn.metrics.roc_auc_score`) and auPRC (the area under the precision-recall curve as average precision,
`sklearn.metrics.average_precision_score`) go to the log, `predictions.json` and `report.html` with the ROC and
precision-recall curves. Scores of sequences the model was trained on are not held out: for held-out figures
score sequences it never saw, or cross-validate with `seqimp train --cv K`.

`--model-file` takes the model files of `seqimp train` (WD, WDS, `--model gkm`) and LS-GKM model files
(`gkmtrain`'s text, plain or gzip, recognised by their content: every kernel type, scored as `gkmpredict`
scores). A bad input -- a missing or damaged model file, a record the model cannot score (another length, a
letter outside its alphabet, N included, which `gkmpredict` would read as A) -- is one line naming it, and
nothing is written.
"""


def register(sub) -> None:
    p = details(sub.add_parser("predict", help=SUMMARY, description=HELP,
                               formatter_class=argparse.RawDescriptionHelpFormatter), DETAILS)
    m = p.add_argument_group("model (one of)").add_mutually_exclusive_group(required=True)
    m.add_argument("--model-file", metavar="MODEL", help="a model file of 'seqimp train' (WD, WDS, gkm) or LS-GKM's "
                                                         "gkmtrain")
    add_other_model_options(p, m)
    s = p.add_argument_group("sequences")
    s.add_argument("--fasta", metavar="SEQS.fa", help="sequences to score (FASTA, plain or gzip)")
    s.add_argument("--positive", metavar="POS.fa", help="labelled sequences: the positives (label 1)")
    s.add_argument("--negative", metavar="NEG.fa", help="labelled sequences: the negatives (label 0)")
    add_input_options(p, table="classifier", regression=False, alphabet=False, origin=False)
    p.add_argument("--out", required=True, metavar="DIR", help="output folder (created if needed)")
    o = p.add_argument_group("output")
    o.add_argument("--batch-size", type=positive_int, default=4096, metavar="N",
                   help="sequences per call of the model's scoring (default 4096)")
    o.add_argument("--format", choices=["png", "svg", "pdf"], default="png", help="figure format (default png)")
    add_quiet(p)
    p.set_defaults(func=run)


def _model(args):
    """The model (loaded now: a bad file fails before the output folder), where it came from, and
    its metadata."""
    from ..errors import SeqimpError

    if args.model_file:
        from ..training._predict import load_predictor

        try:
            model, _kind, metadata = load_predictor(args.model_file)
        except SeqimpError as exc:
            raise UserError(f"--model-file {exc}") from None
        return model, args.model_file, metadata
    return load_other_model(args)


def _sequences(args):
    """``(sequences, ids, labels, what)``: the records to score in input order, their 0/1 labels
    (None without), and what they are for messages."""
    import numpy as np

    inputs = read_inputs(args, any_length=True)
    if inputs.table is not None:
        table = inputs.table
        return table, list(table.ids), (table.values.astype(np.int64) if table.binary else None), \
            f"--table {args.table}"
    pos, neg = inputs.positive, inputs.negative
    if pos is None:
        raise UserError("give the sequences to score: --fasta SEQS.fa, --positive POS.fa --negative NEG.fa, "
                        "--positive-bed PEAKS.bed --genome G, or --table")
    what = (f"--fasta {args.fasta}" if args.fasta else f"--positive-bed {args.positive_bed}" if args.positive_bed
            else f"--positive {args.positive}")
    if neg is None:
        if args.positive:
            raise UserError("--positive gives labelled sequences: add --negative NEG.fa (or score unlabelled "
                            "sequences with --fasta)")
        return pos, list(pos.ids), None, what
    labels = np.r_[np.ones(len(pos), dtype=np.int64), np.zeros(len(neg), dtype=np.int64)]
    if hasattr(pos, "codes"):  # windows of a genome: one length
        return np.concatenate([pos.codes, neg.codes]), list(pos.ids) + list(neg.ids), labels, f"{what} and negatives"
    return list(pos.sequences) + list(neg.sequences), list(pos.ids) + list(neg.ids), labels, \
        f"{what} and --negative {args.negative}"


def run(args) -> int:
    import matplotlib

    matplotlib.use("Agg")
    from ..options import OutputOptions

    if (args.output_index is not None or args.onnx_layout != "NCL") and not args.onnx_model:
        raise UserError("--output-index and --onnx-layout are options of --onnx-model; give the model")
    if args.negative and not args.positive:
        raise UserError("--negative goes with --positive (labelled sequences); unlabelled sequences: --fasta")
    check_output_path(args.out)
    model, source, metadata = _model(args)
    length = (model.length if hasattr(model, "tables") else None) or metadata.get("length")
    if args.positive_bed and args.width is None and length:
        args.width = int(length)  # the windows the model scores
    alphabet = getattr(getattr(model, "alphabet", None), "name", None)
    args.alphabet = alphabet if alphabet in ("dna", "rna", "protein") else "dna"
    sequences, ids, labels, what = _sequences(args)
    output = OutputOptions(fmt=args.format, progress=progress_enabled())
    from ..pipeline import run_predict

    with output_dir(args.out, "predict", inputs=input_paths(args)) as tmp:
        found = run_predict(tmp, model, sequences, ids=ids, labels=labels, output=output, batch_size=args.batch_size,
                            model_source=source, name=what)
    print(f"{len(found.table):,} sequences scored ({found.parameters['model']['kind']} model {source})")
    if found.metrics:
        m = found.metrics
        print(f"auROC {m['auroc']:.4f}, auPRC {m['auprc']:.4f} on {m['n']:,} labelled sequences "
              f"({m['n_positive']:,} positive, {m['n_negative']:,} negative)")
    print(f"results: {args.out}/predictions.tsv, predictions.json, report.html")
    return 0
