"""``seqimp train``: train a WD/WDS classifier and save its exact positional weights."""

from __future__ import annotations

import argparse
from pathlib import Path

from ..io._fasta import read_fasta
from .common import UserError, fraction, log, nonneg_int, positive_int, progress_enabled

HELP = """\
Train a weighted-degree (WD, or WDS with --shifts) classifier on positive vs
negative sequences of one common length, report held-out accuracy and auROC,
and save the model as its exact positional k-mer weights (.npz). Analyse it
later with 'seqimp poim --model MODEL.npz'.

examples:
  seqimp train --positive pos.fa --negative neg.fa --model-out model.npz
  seqimp train --positive pos.fa --negative neg.fa --degree 6 --shifts 2 --model-out m.npz
"""


def add_quiet(p) -> None:
    """``-q/--quiet`` and ``--debug`` after the subcommand too (the global options also work)."""
    p.add_argument("-q", "--quiet", action="store_true", default=argparse.SUPPRESS,
                   help="no progress or log lines on stderr")
    p.add_argument("--debug", action="store_true", default=argparse.SUPPRESS,
                   help="show full tracebacks on errors")


def add_data_options(p, *, required=True) -> None:
    p.add_argument("--positive", metavar="POS.fa", required=required, help="positive sequences (FASTA, plain or gzip)")
    p.add_argument("--negative", metavar="NEG.fa", required=required, help="negative sequences (FASTA)")
    p.add_argument("--skip-invalid", action="store_true",
                   help="drop records with symbols other than A, C, G, T (N, R, Y, ...) instead of failing")


def add_model_options(p) -> None:
    g = p.add_argument_group("model")
    g.add_argument("--degree", type=positive_int, default=8, help="largest k-mer length of the WD kernel (default 8)")
    g.add_argument("--shifts", type=nonneg_int, default=0, help="maximal shift S of the WDS kernel (default 0: WD)")
    g.add_argument("--C", type=_positive_float, default=1.0, help="regularisation constant (default 1)")
    g.add_argument("--test-fraction", type=fraction, default=0.2,
                   help="held-out share for accuracy and auROC (default 0.2; 0 trains on all sequences "
                        "and reports no held-out figures)")
    g.add_argument("--seed", type=nonneg_int, default=None, help="random seed (split, sampling)")


def _positive_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive number, got {text!r}") from None
    if not value > 0:
        raise argparse.ArgumentTypeError(f"expected a positive number, got {value}")
    return value


def read_pair(args):
    """Read --positive and --negative (either may be absent) as SequenceSets."""
    on_invalid = "skip" if getattr(args, "skip_invalid", False) else "error"
    if args.positive and args.negative and Path(args.positive).is_file() and Path(args.negative).is_file() \
            and Path(args.positive).samefile(args.negative):
        raise UserError(f"--positive and --negative are the same file ({args.negative}); "
                        "a classifier needs two different classes")
    pos = read_fasta(args.positive, on_invalid=on_invalid) if args.positive else None
    neg = read_fasta(args.negative, on_invalid=on_invalid) if args.negative else None
    if pos is not None and neg is not None and pos.length != neg.length:
        raise UserError(f"--positive {args.positive} has length {pos.length} but --negative {args.negative} "
                        f"has length {neg.length}; positional methods need one common length")
    return pos, neg


def check_degree(args, length) -> None:
    if args.degree > length:
        raise UserError(f"--degree {args.degree} exceeds the sequence length {length}")
    if args.shifts >= length:
        raise UserError(f"--shifts {args.shifts} must be smaller than the sequence length {length}")


def register(sub) -> None:
    p = sub.add_parser("train", help="train a WD model and save its positional weights", description=HELP,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    add_data_options(p)
    add_model_options(p)
    p.add_argument("--model-out", required=True, metavar="MODEL.npz", help="where to save the model (.npz)")
    add_quiet(p)
    p.set_defaults(func=run)


def run(args) -> int:
    from ..pipeline._run import save_model, train_model

    out = Path(args.model_out)
    if out.suffix != ".npz":
        raise UserError(f"--model-out {out}: the file name must end in .npz")
    if not out.resolve().parent.is_dir():
        raise UserError(f"--model-out {out}: folder {out.resolve().parent} does not exist")
    pos, neg = read_pair(args)
    check_degree(args, pos.length)
    weights, info = train_model(pos, neg, degree=args.degree, shifts=args.shifts, C=args.C,
                                test_fraction=args.test_fraction, random_state=args.seed, log=log,
                                progress=progress_enabled())
    metadata = dict(info, degree=args.degree, shifts=args.shifts, C=args.C, length=pos.length, alphabet="dna",
                    test_fraction=args.test_fraction, seed=args.seed, positive=str(args.positive),
                    negative=str(args.negative))
    save_model(out, weights, metadata)  # staged beside OUT and renamed: never half-written
    if info["n_test"]:
        print(f"accuracy {info['accuracy']:.4f}, auROC {info['auroc']:.4f} on {info['n_test']} held-out sequences")
    else:
        print("trained on all sequences (--test-fraction 0): no held-out accuracy or auROC")
    print(f"model written to {out}")
    return 0
