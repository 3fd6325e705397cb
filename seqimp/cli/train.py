"""``seqimp train``: train a WD/WDS classifier and save its exact positional weights, or
(``--model gkm``) a gapped-k-mer SVM and its weights."""

from __future__ import annotations

import argparse
import errno
import os
from pathlib import Path

from ..errors import check_number
from ._inputs import add_input_options, read_inputs
from ._logging import UserError, progress_enabled
from ._options import (_arg_type, add_dask_options, add_data_options, add_gkm_options, add_model_options, add_quiet,
                       check_degree, dask_client, memory_size, positive_int)
from ._vocabulary import MAX_MEMORY_HELP

HELP = """\
Train a weighted-degree (WD, or WDS with --shifts) classifier on positive vs
negative sequences of one common length, report held-out accuracy and auROC,
and save the model as its exact positional k-mer weights (.npz). Analyse it
later with 'seqimp poim --model MODEL.npz'. With --model gkm it trains the
position-free gapped-k-mer SVM instead (--gkm-length, --gkm-informative) and
saves its gapped-k-mer weights; 'seqimp variants --model' scores variants with
either kind of file.

examples:
  seqimp train --positive pos.fa --negative neg.fa --model-out model.npz
  seqimp train --positive pos.fa --negative neg.fa --degree 6 --shifts 2 --model-out m.npz
  seqimp train --positive-bed peaks.bed --genome hg38.fa --width 100 --negatives shuffle --model-out m.npz
  seqimp train --table bound.tsv --sequence-column seq --value-column label --model-out m.npz
  seqimp train --positive pos.fa --negative neg.fa --model-out m.npz --solver fast --weight-tol 0.02
  seqimp train --positive pos.fa --negative neg.fa --model-out m.npz --solver dcd
  seqimp train --positive pos.fa --negative neg.fa --model-out m.npz --dask-workers 2
  seqimp train --positive pos.fa --negative neg.fa --model-out m.npz --dask-scheduler tcp://host:8786
  seqimp encode --fasta pos.fa.gz neg.fa.gz --labels 1 0 --out train.codes
  seqimp train --codes train.codes --test-codes test.codes --model-out m.npz
  seqimp train --positive pos.fa --negative neg.fa --model gkm --model-out gkm.npz

--codes trains on a store written by 'seqimp encode', read from disk row by row
(sequences larger than memory); held-out figures then come from --test-codes, a
second store, as a split would copy the training rows into memory. A fit whose
working memory would exceed --max-memory (default: all the RAM available now)
is refused before anything is allocated, naming the size it needs.

--dask-workers/--dask-scheduler train the WD SVM (--shifts 0) on a Dask cluster
(pip install "seqimp[dask]"; docs/training-at-scale.md).

The model file records how the SVM was solved: the solver that ran, its passes,
whether its stopping rule stopped it, the thresholds and the per-pass history.
"""

#: ``--solver``'s choices: :data:`seqimp.training.SOLVERS`, kept here so that 'seqimp train' and its
#: argument errors do not import the library (start-up); tests/test_cli_train.py checks that the two are the same.
SOLVERS = ("auto", "dcd", "fast", "sgd")

#: ``--solver``: when each is right, one line each (docs/training-at-scale.md, "Exact or fast").
SOLVER_HELP = """\
  dcd   the exact SVM optimum (liblinear's stopping rule): up to ~10^5 sequences
  fast  stops once held-out loss, accuracy and weights settle: 10^5 and more
  sgd   averaged SGD, an early-regularised model, not the exact one: a first look
  auto  (default) dcd or fast by the number of training sequences (--solver)
The thresholds below set when fast, sgd and auto's fast route stop; --average
is the fast route's (sgd averages its own steps)."""

#: The options of the fast route (its stopping rule, its average): ``--option`` -> WDClassifier parameter.
FAST_OPTIONS = {"--validation-fraction": "validation_fraction", "--validation-tol": "validation_tol",
                "--weight-tol": "weight_tol", "--patience": "patience", "--average": "average",
                "--optimum-tol": "optimum_tol", "--shrink-margin": "shrink_margin", "--no-refit": "refit",
                "--extrapolate": "extrapolate"}


class _LibraryDefault:
    """A default of :class:`~seqimp.WDClassifier`, read from its signature only when --help shows it, so
    that 'seqimp train' starts without importing the library; an option left at it is not passed on
    and the library applies its own default: the numbers live in one place."""

    def __init__(self, name):
        self.name = name

    def __str__(self):
        import inspect

        from ..kernels._estimators import AUTO_FAST_FROM, WDClassifier

        value = inspect.signature(WDClassifier).parameters[self.name].default
        if self.name == "solver":
            return f"{value}: dcd below {AUTO_FAST_FROM:,} training sequences, else fast"
        return "none" if value is None else f"{value:g}"


def _open_share(text: str) -> float:
    """A share in (0, 1)."""
    return _arg_type(text, float, check_number, low=0.0, high=1.0, low_open=True, high_open=True)


def _nonneg_float(text: str) -> float:
    """A finite number >= 0."""
    return _arg_type(text, float, check_number, low=0.0)


def _average(text: str):
    """``--average``: an eta >= 0, or 'none' (the last iterate)."""
    if text.strip().lower() == "none":
        return "none"
    try:
        return _nonneg_float(text)
    except argparse.ArgumentTypeError:
        raise argparse.ArgumentTypeError(f"expected a number >= 0 or 'none', got {text!r}") from None


def register(sub) -> None:
    p = sub.add_parser("train", help="train a WD model and save its positional weights", description=HELP,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    add_data_options(p, required=False)
    add_input_options(p, table="classifier", regression=False)
    add_model_options(p)
    k = p.add_argument_group("model kind")
    k.add_argument("--model", choices=("wd", "wds", "gkm"), default=None,
                   help="wd/wds: the positional WD kernel (wds with --shifts; default: by --shifts); gkm: the "
                        "position-free gapped-k-mer SVM (the WD options do not apply)")
    add_gkm_options(k, kind=False)
    p.set_defaults(test_fraction=None)  # 0.2, or 0 with --codes (resolved in run)
    g = p.add_argument_group("training at scale (docs/training-at-scale.md)")
    g.add_argument("--codes", metavar="STORE", help="train on a codes store written by 'seqimp encode' (0/1 labels), "
                                                   "read from disk without loading it whole")
    g.add_argument("--test-codes", metavar="STORE", help="held-out codes store for accuracy and auROC with --codes")
    g.add_argument("--max-memory", type=memory_size, default=None, metavar="SIZE",
                   help=f"refuse, before allocating, a fit whose working memory exceeds SIZE (e.g. 4G; "
                        f"{MAX_MEMORY_HELP})")
    s = p.add_argument_group("solver (WD SVM, --shifts 0; docs/training-at-scale.md, \"Exact or fast\")",
                             description=SOLVER_HELP)
    s.add_argument("--solver", choices=SOLVERS, default=_LibraryDefault("solver"),
                   help="how the SVM is solved (default %(default)s)")
    s.add_argument("--validation-fraction", type=_open_share, default=_LibraryDefault("validation_fraction"),
                   metavar="F", help="share of the sequences held out to decide when to stop (trained on "
                                     "once the rule holds; default %(default)s)")
    s.add_argument("--validation-tol", type=_nonneg_float, default=_LibraryDefault("validation_tol"), metavar="TOL",
                   help="largest change of the held-out hinge loss (relative) and accuracy (absolute) between "
                        "passes that counts as settled (default %(default)s)")
    s.add_argument("--weight-tol", type=_nonneg_float, default=_LibraryDefault("weight_tol"), metavar="TOL",
                   help="largest relative change of the weights over a pass that counts as settled "
                        "(default %(default)s)")
    s.add_argument("--patience", type=positive_int, default=_LibraryDefault("patience"), metavar="N",
                   help="settled passes in a row before the fit stops (default %(default)s)")
    s.add_argument("--optimum-tol", type=_nonneg_float, default=_LibraryDefault("optimum_tol"), metavar="TOL",
                   help="fast route: stop only once the solver is also within TOL of the SVM's optimum (estimated "
                        "from the dual objective, in units of ||w||/sqrt(n)): the exact fit's top k-mers at "
                        "10^5-10^6 sequences for more passes (docs/training-at-scale.md; default %(default)s)")
    s.add_argument("--shrink-margin", type=_nonneg_float, default=_LibraryDefault("shrink_margin"), metavar="M",
                   help="fast route, one thread: from the 3rd pass on, skip sequences whose dual variable is 0 with a "
                        "margin above 1 + M (a pass over all of them every 8th pass and before the fit stops); "
                        "fewer steps per pass (docs/training-at-scale.md; default %(default)s: liblinear's shrinking)")
    s.add_argument("--no-refit", dest="refit", action="store_const", const=False, default=_LibraryDefault("refit"),
                   help="fast route: keep the held-out slice out of training for good (no passes over all "
                        "sequences after the rule holds; pair with a small --validation-fraction)")
    s.add_argument("--extrapolate", action="store_const", const=True, default=_LibraryDefault("extrapolate"),
                   help="fast route, one thread: after every pass, search the SVM dual along the pass's move and keep "
                        "the point where it rises: fewer passes at 10^5 sequences and more, one more weight vector "
                        "(docs/training-at-scale.md)")
    s.add_argument("--average", type=_average, default=_LibraryDefault("average"), metavar="ETA",
                   help="fast route: the model is the average of its pass-end iterates, pass t weighted in by "
                        "(ETA + 1) / (t + ETA), so early passes are forgotten (0: the plain mean; none: the last "
                        "iterate; default %(default)s)")
    s.add_argument("--threads", type=positive_int, default=None, metavar="N",
                   help="WD SVM threads: the coordinate-descent passes on N threads sharing the weights (the same "
                        "model up to its last digits, docs/multicore.md). Default (and 1): one thread, the same bytes "
                        "every run")
    p.add_argument("--model-out", required=True, metavar="MODEL.npz", help="where to save the model (.npz)")
    add_dask_options(p, "train")
    add_quiet(p, solver=True)
    p.set_defaults(func=run)


def run(args) -> int:
    from ..training import ModelOptions, train_model

    out = Path(args.model_out)
    if out.is_dir():
        raise UserError(f"--model-out {out}: is a folder; give a file name such as {out / 'model.npz'}")
    if out.suffix != ".npz":
        raise UserError(f"--model-out {out}: the file name must end in .npz")
    if not out.resolve().parent.is_dir():
        raise UserError(f"--model-out {out}: folder {out.resolve().parent} does not exist")
    if not os.access(out.resolve().parent, os.W_OK | os.X_OK):
        raise UserError(f"--model-out {out}: folder {out.resolve().parent} is not writable")
    if args.model == "gkm":
        return _run_gkm(args, out)
    if args.model is not None:
        from ..training import ModelOptions

        ModelOptions(kind=args.model, shifts=args.shifts)  # wd without shifts, wds with them
    args.solver_options = _solver_options(args)
    if args.codes is not None:
        return _run_store(args, out)
    if args.test_codes is not None:
        raise UserError("--test-codes goes with --codes (a store to train on)")
    inputs, pos, neg = _labelled_inputs(args, "'seqimp train' saves a classifier (two labels): use 'seqimp poim "
                                              "--table' for the WD regressor")
    check_degree(args, pos.length)
    dask = args.dask_workers is not None or args.dask_scheduler is not None
    if dask and args.shifts:
        raise UserError("--dask-workers/--dask-scheduler train WD models with --shifts 0 only")
    with dask_client(args) as client:
        model = ModelOptions(degree=args.degree, shifts=args.shifts, C=args.C, test_fraction=args.test_fraction,
                             alphabet=inputs.alphabet)
        weights, info = train_model(pos, neg, model=model, solver=args.solver_options, random_state=args.seed,
                                    progress=progress_enabled(), client=client, max_memory=args.max_memory)
    source = {"table": str(args.table)} if inputs.table is not None else {
        "positive": str(args.positive_bed or args.positive),
        "negative": str(args.negative_bed or args.negative or f"--negatives {args.negatives}")}
    return _save(args, out, weights, info, source, pos.length, inputs.alphabet)


def _labelled_inputs(args, regression_hint):
    """The positives and negatives a classifier trains on (the held-out share defaulting to 0.2):
    ``(inputs, positive, negative)``; a table of measured values (``regression_hint`` says what to do
    instead) or a missing class is one line."""
    args.test_fraction = 0.2 if args.test_fraction is None else args.test_fraction
    inputs = read_inputs(args)
    if inputs.regression:
        raise UserError(f"--table {args.table}: column {args.value_column!r} holds measured values; {regression_hint}")
    if inputs.positive is None or inputs.negative is None:
        raise UserError("positive and negative sequences are required: --positive and --negative (or "
                        "--negatives shuffle), --positive-bed with negatives, or --table with a label column")
    return inputs, inputs.positive, inputs.negative


def _run_gkm(args, out) -> int:
    """``--model gkm``: the gapped-k-mer SVM on the same inputs and split, saved with its weights."""
    import numpy as np

    from ..kernels import save_gkm
    from ..training import ModelOptions, train_gkm

    if args.codes is not None:
        raise UserError("--model gkm trains from FASTA, BED or table input; --codes stores are for the WD model")
    if args.shifts:
        raise UserError(f"--shifts {args.shifts} is the WDS kernel's; --model gkm has no shifts")
    inputs, pos, neg = _labelled_inputs(args, "--model gkm trains a classifier (two labels)")
    if inputs.alphabet != "dna":
        raise UserError(f"--model gkm reads DNA (both strands); the sequences are {inputs.alphabet}")
    options = ModelOptions(kind="gkm", C=args.C, test_fraction=args.test_fraction, word_length=args.gkm_length,
                           informative=args.gkm_informative)
    X = np.concatenate([pos.codes, neg.codes])
    y = np.r_[np.ones(len(pos), dtype=np.int64), np.zeros(len(neg), dtype=np.int64)]
    model, info = train_gkm(X, y, model=options, random_state=args.seed)
    info = {k: v for k, v in info.items() if k not in ("train_seconds", "seconds_per_1000")}
    source = {"table": str(args.table)} if inputs.table is not None else {
        "positive": str(args.positive_bed or args.positive),
        "negative": str(args.negative_bed or args.negative or f"--negatives {args.negatives}")}
    metadata = dict(info, model="gkm", word_length=args.gkm_length, informative=args.gkm_informative, C=args.C,
                    length=int(pos.length), alphabet="dna", test_fraction=args.test_fraction, seed=args.seed, **source)
    try:
        save_gkm(out, model, metadata)
    except OSError as exc:
        reason = "no space left on device" if exc.errno == errno.ENOSPC else exc.strerror or str(exc)
        raise UserError(f"--model-out {out}: cannot write the model ({reason})") from None
    if info["n_test"]:
        print(f"accuracy {info['accuracy']:.4f}, auROC {info['auroc']:.4f} on {info['n_test']} held-out sequences")
    else:
        print("trained on all sequences (--test-fraction 0): no held-out accuracy or auROC")
    print(f"gkm model (l {args.gkm_length}, k {args.gkm_informative}) written to {out}")
    return 0


def _run_store(args, out) -> int:
    """``--codes STORE``: train on the store's memory map, evaluate on ``--test-codes``."""
    from ..io import open_codes_store
    from ..training import train_on_store

    given = [name for name, value in (("--positive", args.positive), ("--negative", args.negative),
                                       ("--positive-bed", args.positive_bed), ("--negative-bed", args.negative_bed),
                                       ("--negatives", args.negatives), ("--table", args.table)) if value]
    if given:
        raise UserError(f"--codes is the training data; it does not go with {', '.join(given)}")
    if args.test_fraction:
        raise UserError(f"--test-fraction {args.test_fraction:g} with --codes: a split would copy the store's rows "
                        "into memory; give held-out sequences as a second store (--test-codes) or use "
                        "--test-fraction 0")
    args.test_fraction = 0.0
    store = open_codes_store(args.codes)
    check_degree(args, store.length)
    with dask_client(args) as client:
        weights, info = train_on_store(store, test_store=args.test_codes, degree=args.degree, shifts=args.shifts,
                                       C=args.C, solver=args.solver_options, random_state=args.seed,
                                       progress=progress_enabled(), client=client, max_memory=args.max_memory)
    source = {"codes": str(args.codes), "test_codes": None if args.test_codes is None else str(args.test_codes)}
    return _save(args, out, weights, info, source, store.length, store.alphabet.name)


#: The fast route's options that --solver sgd has nothing for, and why (the refusal's words).
SGD_LACKS = {"--average": "averages the fast route's passes; --solver sgd averages its own steps",
             "--optimum-tol": "is estimated from the fast route's dual objective; --solver sgd has none",
             "--shrink-margin": "shrinks the fast route's dual variables; --solver sgd has none",
             "--extrapolate": "searches the fast route's dual; --solver sgd has none"}


def _refuse_with_sgd(solver, given, options):
    """UserError for the first of ``options`` given with --solver sgd (:data:`SGD_LACKS`)."""
    if solver != "sgd":
        return
    for option in options:
        if option in given:
            raise UserError(f"{option} {SGD_LACKS[option]}: use --solver fast or auto, or leave it out")


def _solver_options(args):
    """``SolverOptions`` of --solver and the stopping thresholds (those left at their default: the
    library's), or UserError for a combination where an option would be ignored."""
    from ..training import SolverOptions

    given = {option: getattr(args, name) for option, name in FAST_OPTIONS.items()
             if not isinstance(getattr(args, name), _LibraryDefault)}
    solver = "auto" if isinstance(args.solver, _LibraryDefault) else args.solver
    if solver == "dcd" and given:
        raise UserError(f"{', '.join(given)} {'sets' if len(given) == 1 else 'set'} the fast route; --solver dcd "
                        "stops by liblinear's rule: use --solver fast, sgd or auto, or leave "
                        f"{'it' if len(given) == 1 else 'them'} out")
    _refuse_with_sgd(solver, given, ("--average", "--optimum-tol"))
    local_only = [option for option in ("--optimum-tol", "--shrink-margin", "--no-refit", "--extrapolate")
                  if option in given]
    if local_only and (getattr(args, "dask_workers", None) or getattr(args, "dask_scheduler", None)):
        raise UserError(f"{', '.join(local_only)}: options of the fast route on one machine; the Dask route stops by "
                        f"--validation-tol and --weight-tol: leave {'it' if len(local_only) == 1 else 'them'} out or "
                        "train without Dask")
    _refuse_with_sgd(solver, given, ("--shrink-margin", "--extrapolate"))
    if args.shifts and (given or solver != "auto" or args.threads is not None):
        chosen = (([f"--solver {solver}"] if solver != "auto" else []) + list(given)
                  + (["--threads"] if args.threads is not None else []))
        raise UserError(f"{', '.join(chosen)}: the solver options train the WD SVM (--shifts 0); --shifts "
                        f"{args.shifts} trains the WDS kernel route (libsvm)")
    return SolverOptions(solver=solver, threads=args.threads,
                         **{FAST_OPTIONS[option]: value for option, value in given.items()})


def _save(args, out, weights, info, source, length, alphabet) -> int:
    """Write the model with its metadata (no wall-clock: the same run gives the same bytes); report."""
    from ..training import save_model

    info.pop("train_seconds", None)
    metadata = dict(info, degree=args.degree, shifts=args.shifts, C=args.C, length=length,
                    alphabet=alphabet, test_fraction=args.test_fraction, seed=args.seed, **source,
                    dask_workers=args.dask_workers, dask_scheduler=args.dask_scheduler)
    try:
        save_model(out, weights, metadata)  # staged beside OUT and renamed: never half-written
    except OSError as exc:
        reason = "no space left on device" if exc.errno == errno.ENOSPC else exc.strerror or str(exc)
        raise UserError(f"--model-out {out}: cannot write the model ({reason})") from None
    if info["n_test"]:
        print(f"accuracy {info['accuracy']:.4f}, auROC {info['auroc']:.4f} on {info['n_test']} held-out sequences")
    elif args.codes is not None:
        print("trained on every row of the store: no held-out accuracy or auROC without --test-codes")
    else:
        print("trained on all sequences (--test-fraction 0): no held-out accuracy or auROC")
    print(f"model written to {out}")
    return 0
