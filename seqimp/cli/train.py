"""``seqimp train``: train a WD/WDS classifier and save its exact positional weights, or
(``--model gkm``) a gapped-k-mer SVM and its weights."""

from __future__ import annotations

import argparse
import errno
import os
from pathlib import Path

from ._inputs import add_input_options, read_inputs
from ._logging import UserError, log, progress_enabled
from ._options import (_arg_type, add_dask_options, add_data_options, add_gkm_options, add_model_options, add_quiet,
                       check_degree, dask_client, details, memory_size)
from ._train_solver import add_solver_options, solver_options
from ._vocabulary import MAX_MEMORY_HELP

HELP = """\
Train a weighted-degree classifier (WD, or WDS with --shifts) on positive vs
negative sequences of one length, report held-out accuracy and auROC, and save
its exact positional k-mer weights (MODEL.npz) for 'seqimp poim --model-file'
and 'seqimp variants'; --model gkm trains the gapped-k-mer SVM instead.
Full reference: docs/cli/train.md; at scale: docs/training-at-scale.md.

examples:
  seqimp train --positive pos.fa --negative neg.fa --model-out model.npz
  seqimp train --positive pos.fa --negative neg.fa --degree 6 --shifts 2 --model-out m.npz
  seqimp train --positive-bed peaks.bed --genome hg38.fa --width 100 --negatives shuffle --model-out m.npz
  seqimp train --table bound.tsv --sequence-column seq --value-column label --model-out m.npz
  seqimp train --positive pos.fa --negative neg.fa --model-out m.npz --solver fast --weight-tol 0.02
  seqimp train --codes train.codes --test-codes test.codes --model-out m.npz
  seqimp train --positive pos.fa --negative neg.fa --model gkm --model-out gkm.npz
"""

#: The details of 'seqimp train' (its docs/cli page; ``--help`` shows :data:`HELP`).
DETAILS = """\
`seqimp train` trains a weighted-degree (WD, or WDS with `--shifts`) classifier on positive vs negative
sequences of one common length, reports held-out accuracy and auROC, and saves the model as its exact
positional k-mer weights (.npz). Analyse it later with `seqimp poim --model-file MODEL.npz`. With `--model gkm`
it trains the position-free gapped-k-mer SVM instead (`--gkm-length`, `--gkm-informative`) and saves its
gapped-k-mer weights; `seqimp variants --model-file` scores variants with either kind of file. The gkm model is
position-free: it also trains on FASTA records of different lengths, as LS-GKM's gkmtrain does, and with
`--model-out NAME.model.txt` (or `--model-format lsgkm`) it is written as an LS-GKM model file that gkmpredict
reads ([docs/lsgkm.md](../lsgkm.md)).

`--codes` trains on a store written by `seqimp encode`, read from disk row by row (sequences larger than
memory); held-out figures then come from `--test-codes`, a second store, as a split would copy the training
rows into memory. A fit whose working memory would exceed `--max-memory` (default: all the RAM available now)
is refused before anything is allocated, naming the size it needs.

`--dask-workers`/`--dask-scheduler` train the WD SVM (`--shifts 0`) on a Dask cluster
(`pip install "seqimp[dask]"`; [docs/training-at-scale.md](../training-at-scale.md)).

The model file records how the SVM was solved: the solver that ran, its passes, whether its stopping rule
stopped it, the thresholds and the per-pass history.

More examples:

```text
seqimp train --positive pos.fa --negative neg.fa --model-out m.npz --solver dcd
seqimp train --positive pos.fa --negative neg.fa --model-out m.npz --dask-workers 2
seqimp train --positive pos.fa --negative neg.fa --model-out m.npz --dask-scheduler tcp://host:8786
seqimp encode --fasta pos.fa.gz neg.fa.gz --labels 1 0 --out train.codes
```
"""

#: The endings of an LS-GKM model file's name (gkmtrain writes PREFIX.model.txt; -z adds .gz).
LSGKM_SUFFIXES = (".model.txt", ".model.txt.gz")


def _is_lsgkm_name(out) -> bool:
    return str(out).endswith(LSGKM_SUFFIXES)


def _model_format(args, out) -> str:
    """``--model-format``, or by --model-out's name: "lsgkm" or "npz"; one line for a combination that
    cannot be written (checked before anything is read or fitted)."""
    fmt = args.model_format or ("lsgkm" if _is_lsgkm_name(out) and args.model == "gkm" else "npz")
    if fmt == "lsgkm":
        if args.model != "gkm":
            raise UserError(f"--model-format lsgkm writes a gapped-k-mer model: it needs --model gkm (the "
                            f"{args.model or 'wd'} model has no LS-GKM form)")
        if out.suffix == ".npz":
            raise UserError(f"--model-out {out}: an LS-GKM model file; name it NAME.model.txt (or .model.txt.gz)")
    elif args.model_format == "npz" and _is_lsgkm_name(out):
        raise UserError(f"--model-out {out}: --model-format npz writes a .npz file; name it NAME.npz")
    return fmt


def _stem(out) -> str:
    """The name the --cv files take beside the model: NAME of NAME.npz or NAME.model.txt[.gz]."""
    name = out.name
    for suffix in LSGKM_SUFFIXES[::-1] + (".npz",):
        if name.endswith(suffix) and len(name) > len(suffix):
            return name[:-len(suffix)]
    return out.stem


def _folds(text: str) -> int:
    """``--cv K``: an integer >= 2."""
    from ..errors import check_int

    return _arg_type(text, int, check_int, minimum=2)


def register(sub) -> None:
    p = details(sub.add_parser("train", help="train a WD model and save its positional weights", description=HELP,
                               formatter_class=argparse.RawDescriptionHelpFormatter), DETAILS)
    add_data_options(p, required=False)
    add_input_options(p, table="classifier", regression=False)
    k = add_model_options(p)
    details(k.add_argument("--model", choices=("wd", "wds", "gkm"), default=None,
                           help="wd/wds: the positional WD kernel (default: by --shifts); gkm: the position-free "
                                "gapped-k-mer SVM"),
            "wd/wds: the positional WD kernel (wds with --shifts; default: wd or wds by --shifts); gkm: the "
            "position-free gapped-k-mer SVM (--gkm-length, --gkm-informative; the WD options do not apply).")
    add_gkm_options(k, kind=False)
    p.set_defaults(test_fraction=None)  # 0.2, or 0 with --codes (resolved in run)
    g = p.add_argument_group("training at scale (docs/training-at-scale.md)")
    g.add_argument("--codes", metavar="STORE", help="train on a codes store written by 'seqimp encode' (0/1 labels), "
                                                   "read from disk")
    g.add_argument("--test-codes", metavar="STORE", help="held-out codes store for accuracy and auROC with --codes")
    details(g.add_argument("--max-memory", type=memory_size, default=None, metavar="SIZE",
                           help="refuse a fit whose working memory exceeds SIZE (e.g. 4G; default: all the RAM "
                                "available now)"),
            "The fit is refused before anything is allocated, naming the size it needs. Default (as in every "
            f"command): {MAX_MEMORY_HELP.split(': ', 1)[1]}.")
    add_solver_options(p)
    details(p.add_argument("--model-out", required=True, metavar="MODEL.npz",
                           help="where to save the model (.npz; with --model gkm also NAME.model.txt[.gz])"),
            "A .npz file, or with --model gkm an LS-GKM model file when the name ends in .model.txt or "
            ".model.txt.gz (gzip-compressed) or with --model-format lsgkm.")
    details(p.add_argument("--model-format", choices=("npz", "lsgkm"), default=None,
                           help="npz (seqimp's) or lsgkm (gkmpredict's model file; --model gkm); default: by "
                                "--model-out's name"),
            "lsgkm writes the gkm model as an LS-GKM model file (kernel gkm_cnt with d = l - k, the training "
            "sequences with a non-zero dual coefficient as its support vectors) that LS-GKM's gkmpredict, "
            "'seqimp predict' and 'seqimp variants' read and score as seqimp does "
            "([docs/lsgkm.md](../lsgkm.md)). Default: lsgkm for a --model-out ending in .model.txt or "
            ".model.txt.gz, else npz.")
    details(p.add_argument("--cv", type=_folds, default=None, metavar="K",
                           help="also stratified K-fold cross-validation: MODEL.cvpred.tsv, MODEL.cv.json, "
                                "MODEL.cv.png beside the model"),
            "Every sequence is scored once by a model trained on the other folds (scikit-learn's StratifiedKFold, "
            "shuffled with --seed): per-fold and mean auROC and auPRC go to the log and MODEL.cv.json, each "
            "sequence's fold and score to MODEL.cvpred.tsv (id, fold, label, score, as gkmtrain -x writes its "
            "cvpred file) and the folds' ROC and precision-recall curves to MODEL.cv.png. The model saved is the "
            "one a run without --cv saves, byte for byte. K runs from 2 to the size of the smaller class; not "
            "with --codes or Dask ([docs/predict.md](../predict.md)).")
    add_dask_options(p, "train")
    add_quiet(p, solver=True)
    p.set_defaults(func=run)


def run(args) -> int:
    from ..options import ModelOptions
    from ..training import train_model

    out = Path(args.model_out)
    if out.is_dir():
        raise UserError(f"--model-out {out}: is a folder; give a file name such as {out / 'model.npz'}")
    args.model_format = _model_format(args, out)
    if args.model_format == "npz" and out.suffix != ".npz":
        raise UserError(f"--model-out {out}: the file name must end in .npz"
                        + (" (an LS-GKM .model.txt file needs --model gkm)" if _is_lsgkm_name(out) else ""))
    if not out.resolve().parent.is_dir():
        raise UserError(f"--model-out {out}: folder {out.resolve().parent} does not exist")
    if not os.access(out.resolve().parent, os.W_OK | os.X_OK):
        raise UserError(f"--model-out {out}: folder {out.resolve().parent} is not writable")
    if args.cv is not None and (args.codes is not None or args.dask_workers is not None
                                or args.dask_scheduler is not None):
        raise UserError(f"--cv {args.cv} fits its folds in memory on this machine; it does not go with --codes or "
                        "--dask-workers/--dask-scheduler")
    if args.model == "gkm":
        return _run_gkm(args, out)
    if args.model is not None:
        from ..options import ModelOptions

        ModelOptions(kind=args.model, shifts=args.shifts)  # wd without shifts, wds with them
    args.solver_options = solver_options(args)
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
    cv = _cross_validation(args, pos, neg, model, inputs.alphabet)
    source = {"table": str(args.table)} if inputs.table is not None else {
        "positive": str(args.positive_bed or args.positive),
        "negative": str(args.negative_bed or args.negative or f"--negatives {args.negatives}")}
    return _save(args, out, weights, info, source, pos.length, inputs.alphabet, cv=cv)


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
    if args.cv is not None:  # checked before any fit: a --cv the classes cannot take writes nothing
        from ..training._cross_validation import check_folds

        check_folds(args.cv, [1] * len(inputs.positive) + [0] * len(inputs.negative), name="--cv")
    return inputs, inputs.positive, inputs.negative


def _ragged_records(args):
    """``--model gkm`` on FASTA records of different lengths (``--positive`` with ``--negative`` or
    ``--negatives shuffle``), as gkmtrain takes them: ``(inputs, positive, negative)`` as Records; None
    where the records have one length or the input is not FASTA (the positional reading applies)."""
    if args.positive is None or args.table is not None or args.positive_bed is not None:
        return None
    from ..errors import check_file
    from ..io._fasta import iter_fasta
    from ._inputs import read_inputs

    import numpy as np

    from ..io import DNA
    from ..io._alphabet import INVALID, describe_char, symbol_bytes

    lengths, first_bad = set(), None
    for option, path in (("--positive", args.positive), ("--negative", args.negative)):
        if path is None:
            continue
        for rid, seq in iter_fasta(check_file(path, option, expected="a FASTA file")):
            lengths.add(len(seq))
            bad = np.flatnonzero(DNA.lut[np.frombuffer(symbol_bytes(seq), np.uint8)] == INVALID)
            if bad.size and first_bad is None:  # N and the IUPAC codes are unknown bases, read; other letters not
                first_bad = (f"{option} {path}: record {rid!r} has {describe_char(seq[bad[0]])} at position "
                             f"{bad[0] + 1}, which is neither a base nor an IUPAC code (remove or fix the record)")
    if len(lengths) <= 1:  # one length: the positional reading applies (and its --skip-invalid)
        return None
    if first_bad is not None:
        raise UserError(first_bad)
    args.test_fraction = 0.2 if args.test_fraction is None else args.test_fraction
    inputs = read_inputs(args, any_length=True)
    if inputs.positive is None or inputs.negative is None:
        raise UserError("positive and negative sequences are required: --positive and --negative (or "
                        "--negatives shuffle)")
    if args.cv is not None:
        from ..training._cross_validation import check_folds

        check_folds(args.cv, [1] * len(inputs.positive) + [0] * len(inputs.negative), name="--cv")
    log(f"records of {min(lengths)} to {max(lengths)} nt: the position-free gkm model reads them as they are")
    return inputs, inputs.positive, inputs.negative


def _cross_validation(args, pos, neg, model, alphabet, labelled=None):
    """``--cv K``: the model's stratified K-fold cross-validation on all the sequences (None without);
    ``labelled``: the sequences and labels as the model was fitted on them (records of any lengths)."""
    if args.cv is None:
        return None
    from ..io._labelled import encode_labelled
    from ..options import SolverOptions
    from ..training import cross_validate

    X, y = labelled if labelled is not None else encode_labelled(pos, neg, alphabet, unknown=True).labelled()
    solver = getattr(args, "solver_options", None) if model.kind != "gkm" else None
    return cross_validate(X, y, folds=args.cv, model=model, solver=solver or SolverOptions(), random_state=args.seed,
                          ids=list(pos.ids) + list(neg.ids), progress=progress_enabled(), max_memory=args.max_memory)


def _with_cv(out, cv, save) -> None:
    """``save()`` the model and, with a cross-validation ``cv``, write its files beside it: staged in a
    folder beside the model and moved in once the model is saved, so a failure leaves neither."""
    if cv is None:
        save()
        return
    import shutil
    import tempfile

    from ..pipeline._predict_run import write_cross_validation

    staging = Path(tempfile.mkdtemp(prefix=f".{out.name}.cv-", dir=out.resolve().parent))
    try:
        files = write_cross_validation(cv, staging / _stem(out))
        save()
        for path in files:
            os.replace(path, out.with_name(path.name))
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    folds = cv.folds
    print(f"{len(folds)}-fold cross-validation on {len(cv.predictions)} sequences: mean auROC {cv.mean_auroc:.4f} "
          f"({folds['auroc'].min():.4f}-{folds['auroc'].max():.4f}), mean auPRC {cv.mean_auprc:.4f} "
          f"({folds['auprc'].min():.4f}-{folds['auprc'].max():.4f}); folds in {_stem(out)}.cv.json, scores in "
          f"{_stem(out)}.cvpred.tsv, curves in {_stem(out)}.cv.png")


def _run_gkm(args, out) -> int:
    """``--model gkm``: the gapped-k-mer SVM on the same inputs and split, saved with its weights."""
    import numpy as np

    from ..kernels.gkm._file import save_gkm
    from ..options import ModelOptions
    from ..training import train_gkm

    if args.codes is not None:
        raise UserError("--model gkm trains from FASTA, BED or table input; --codes stores are for the WD model")
    if args.shifts:
        raise UserError(f"--shifts {args.shifts} is the WDS kernel's; --model gkm has no shifts")
    ragged = _ragged_records(args)
    inputs, pos, neg = ragged or _labelled_inputs(args, "--model gkm trains a classifier (two labels)")
    if inputs.alphabet != "dna":
        raise UserError(f"--model gkm reads DNA (both strands); the sequences are {inputs.alphabet}")
    options = ModelOptions(kind="gkm", C=args.C, test_fraction=args.test_fraction, word_length=args.gkm_length,
                           informative=args.gkm_informative)
    y = np.r_[np.ones(len(pos), dtype=np.int64), np.zeros(len(neg), dtype=np.int64)]
    if ragged:
        from ..training._ragged import RaggedSequences

        X = RaggedSequences(list(pos.sequences) + list(neg.sequences))
    else:
        X = np.concatenate([pos.codes, neg.codes])
    model, info = train_gkm(X, y, model=options, random_state=args.seed)
    cv = _cross_validation(args, pos, neg, options, "dna", labelled=(X, y) if ragged else None)
    info = {k: v for k, v in info.items() if k not in ("train_seconds", "seconds_per_1000")}
    source = {"table": str(args.table)} if inputs.table is not None else {
        "positive": str(args.positive_bed or args.positive),
        "negative": str(args.negative_bed or args.negative or f"--negatives {args.negatives}")}
    metadata = dict(info, model="gkm", word_length=args.gkm_length, informative=args.gkm_informative, C=args.C,
                    length=None if ragged else int(pos.length), alphabet="dna", test_fraction=args.test_fraction,
                    seed=args.seed, **source)
    if args.model_format == "lsgkm":
        from ..kernels import write_lsgkm_model

        def save():  # written beside OUT and renamed: a failed check or write leaves no file
            part = out.with_name(f".{out.name}.part" + (".gz" if out.name.endswith(".gz") else ""))
            try:
                write_lsgkm_model(part, model, X)
                os.replace(part, out)
            finally:
                part.unlink(missing_ok=True)
    else:
        def save():
            save_gkm(out, model, metadata)
    try:
        _with_cv(out, cv, save)
    except OSError as exc:
        reason = "no space left on device" if exc.errno == errno.ENOSPC else exc.strerror or str(exc)
        raise UserError(f"--model-out {out}: cannot write the model ({reason})") from None
    if info["n_test"]:
        print(f"accuracy {info['accuracy']:.4f}, auROC {info['auroc']:.4f} on {info['n_test']} held-out sequences")
    else:
        print("trained on all sequences (--test-fraction 0): no held-out accuracy or auROC")
    print(f"gkm model (l {args.gkm_length}, k {args.gkm_informative}) written to {out}"
          + (" as an LS-GKM model file (gkm_cnt kernel, d = l - k)" if args.model_format == "lsgkm" else ""))
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


def _save(args, out, weights, info, source, length, alphabet, cv=None) -> int:
    """Write the model with its metadata (no wall-clock: the same run gives the same bytes), and the files of
    a cross-validation ``cv``; report."""
    from ..training import save_model

    info.pop("train_seconds", None)
    metadata = dict(info, degree=args.degree, shifts=args.shifts, C=args.C, length=length,
                    alphabet=alphabet, test_fraction=args.test_fraction, seed=args.seed, **source,
                    dask_workers=args.dask_workers, dask_scheduler=args.dask_scheduler)
    try:
        _with_cv(out, cv, lambda: save_model(out, weights, metadata))  # staged beside OUT and renamed
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
