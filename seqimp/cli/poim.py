"""``seqimp poim``: train (or load) a model, compute POIM/FIRM, write tables, figures and a report."""

from __future__ import annotations

import argparse

from ..pipeline import BACKGROUNDS
from .common import (UserError, add_data_options, add_model_options, add_quiet, check_degree, check_output_path,
                     memory_size, nonneg_int, output_dir, positive_int, print_outcome, progress_enabled, read_pair)

HELP = """\
Find the positional oligomers a sequence classifier relies on.

Default route: train a WD/WDS classifier on --positive vs --negative, report
held-out accuracy and auROC, compute the exact POIM and FIRM of every k-mer at
every position (k = 1..--max-order) under a Markov background, and write into
OUT: top_oligomers.tsv, differential_poim.FMT, maximal_poim.FMT,
poim_order<k>.FMT (k <= 4), weights_vs_firm.FMT, poim.npz (summaries: maximal
and differential POIM, the top 1000 oligomers per order, full tables for k <= 4),
model.npz, summary.json and report.html; with --full-tables also poim_tables.h5.
Long sequences and high orders that do not fit --max-memory in memory are
computed exactly by the streaming engine. Nothing is written to OUT when a step
fails. Positions in all outputs are 1-based.

Other routes:
  --model MODEL.npz         analyse a model saved by 'seqimp train'
  --scorer module:function  sampled POIM/FIRM of any score function taking an
  --sklearn-model M.joblib  encoded (n, L) array / a scikit-learn model trained on
                            seqimp.importance.onehot(X) (no weights_vs_firm, no model.npz)

examples:
  seqimp poim --positive pos.fa --negative neg.fa --out results
  seqimp poim --positive pos.fa --negative neg.fa --out results --degree 6 --max-order 10
  seqimp poim --positive pos.fa --negative neg.fa --out results --max-order 12 --max-memory 4G
  seqimp train --positive pos.fa --negative neg.fa --model-out model.npz
  seqimp poim --model model.npz --background-fasta neg.fa --out results
  seqimp poim --sklearn-model gb.joblib --background-fasta neg.fa --max-order 3 --out results
"""

def register(sub) -> None:
    p = sub.add_parser("poim", help="POIM/FIRM analysis: tables, heatmaps, report", description=HELP,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    add_data_options(p, required=False)
    p.add_argument("--out", required=True, metavar="DIR", help="output folder (created if needed)")
    add_model_options(p)
    g = p.add_argument_group("importance")
    g.add_argument("--max-order", type=positive_int, default=None,
                   help="longest oligomer analysed (default: the degree; 3 for --scorer/--sklearn-model); "
                        "may exceed the degree")
    g.add_argument("--background", choices=BACKGROUNDS, default="negative",
                   help="background distribution: uniform letters or a Markov chain fitted on the negative "
                        "or on all sequences (default negative)")
    g.add_argument("--background-order", type=nonneg_int, default=0, help="Markov order of the background (default 0)")
    g.add_argument("--positional-background", action="store_true", help="position-specific background tables")
    g.add_argument("--background-fasta", metavar="FA", help="fit the background on these sequences instead")
    g.add_argument("--max-memory", type=memory_size, default=None, metavar="SIZE",
                   help="memory budget (e.g. 4G; default: half the available RAM): POIM jobs whose full "
                        "tables need more are computed by the streaming engine (one log line says so); "
                        "jobs that do not fit even streaming are refused before training")
    g.add_argument("--full-tables", action="store_true",
                   help="also write every order's full POIM/FIRM tables to OUT/poim_tables.h5 (HDF5, "
                        "float32; large: 4**k x L per order); poim.npz always holds the summaries")
    o = p.add_argument_group("output")
    o.add_argument("--format", choices=["png", "svg", "pdf"], default="png", help="figure format (default png)")
    o.add_argument("--top", type=positive_int, default=50, help="rows per order in top_oligomers.tsv (default 50)")
    other = p.add_argument_group("other models")
    r = other.add_mutually_exclusive_group()
    r.add_argument("--model", metavar="MODEL.npz", help="analyse a model saved by 'seqimp train'")
    r.add_argument("--scorer", metavar="MODULE:FUNCTION",
                   help="sampled route: a function (module or file.py) scoring an encoded (n, L) uint8 array")
    r.add_argument("--sklearn-model", metavar="MODEL.joblib",
                   help="sampled route: a joblib-saved scikit-learn model (trusted files only)")
    other.add_argument("--sklearn-features", choices=["onehot", "codes", "strings"], default="onehot",
                   help="what the scikit-learn model was trained on (default onehot)")
    other.add_argument("--n-samples", type=positive_int, default=1000,
                   help="background samples of the sampled route (default 1000)")
    add_quiet(p)
    p.set_defaults(func=run)


def _common(args):
    return dict(background=args.background, background_order=args.background_order,
                positional_background=args.positional_background, fmt=args.format, top=args.top,
                progress=progress_enabled())


def run(args) -> int:
    from ..io._fasta import read_fasta
    from ..pipeline import load_model, run_model, run_poim, run_sampled

    check_output_path(args.out)
    pos, neg = read_pair(args)
    background_fasta = None
    if args.background_fasta:
        background_fasta = read_fasta(args.background_fasta, on_invalid="skip" if args.skip_invalid else "error")
    external = args.scorer or args.sklearn_model
    if not (args.model or external):
        if pos is None or neg is None:
            raise UserError("--positive and --negative are required (or analyse a saved model with --model, "
                            "--scorer or --sklearn-model)")
        if args.background_fasta:
            raise UserError("--background-fasta is for --model/--scorer/--sklearn-model runs; "
                            "use --background when training")
        check_degree(args, pos.length)
    elif background_fasta is None and (args.background == "negative" and neg is None
                                       or args.background == "all" and pos is None and neg is None):
        raise UserError(f"--background {args.background} needs --negative (or --positive) sequences; "
                        "give them, --background-fasta FA or --background uniform")
    with output_dir(args.out) as tmp:
        if args.model:
            weights, metadata = load_model(args.model)
            run = run_model(weights, tmp, metadata=metadata, background_fasta=background_fasta,
                            max_order=args.max_order, max_memory=args.max_memory, motifs_dir=args.out,
                            positive=pos, negative=neg, full_tables=args.full_tables, **_common(args))
        elif external:
            from ..importance._scorers import load_scorer, load_sklearn_model

            if args.scorer:
                score_fn, source = load_scorer(args.scorer), args.scorer
            else:
                score_fn = load_sklearn_model(args.sklearn_model, features=args.sklearn_features)
                source = args.sklearn_model
            run = run_sampled(score_fn, tmp, source=source, background_fasta=background_fasta,
                              max_order=args.max_order or 3, n_samples=args.n_samples, random_state=args.seed,
                              motifs_dir=args.out, positive=pos, negative=neg, **_common(args))
        else:
            run = run_poim(pos, neg, tmp, degree=args.degree, shifts=args.shifts, max_order=args.max_order,
                           C=args.C, test_fraction=args.test_fraction, random_state=args.seed,
                           max_memory=args.max_memory, motifs_dir=args.out, full_tables=args.full_tables,
                           **_common(args))
    print_outcome(run, args.out)
    return 0
