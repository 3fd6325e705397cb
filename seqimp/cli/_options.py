"""Argument types (argparse ``type=`` functions built on :mod:`seqimp.errors`' checks), the
options several subcommands share (``add_*``) and the readers of those options
(``read_pair``, ``check_degree``, ``dask_client``)."""

from __future__ import annotations

import argparse
import contextlib
from pathlib import Path

from .._utils.sizes import SIZE_HINT, parse_size
from ..errors import SeqimpError, check_int, check_number
from ._logging import UserError

__all__ = ["add_other_model_options", "load_other_model",
           "BACKGROUNDS", "BACKGROUND_HELP", "positive_int", "nonneg_int", "seed", "share", "fraction",
           "positive_float",
           "memory_size",
           "add_db_option", "add_quiet", "add_dask_options", "dask_client", "add_data_options", "add_model_options",
           "read_pair", "check_degree", "MODEL_KINDS", "MODEL_KIND_HELP", "MODEL_KIND_DETAILS",
           "BACKGROUND_DETAILS", "add_gkm_options",
           "position_origin", "details", "MASK_HELP", "MASK_DETAILS", "add_mask_option", "mask_option"]


def details(target, text: str):
    """``target`` -- an option's action, or a command's parser -- with ``text`` as its ``details``: the long
    explanation that the command's reference page docs/cli/<command>.md shows (scripts/make_cli_reference.py)
    and ``--help`` leaves out, so that ``--help`` keeps one or two lines per option (issue 59). An option's
    details are one paragraph (spaces and line breaks collapse); a command's are Markdown, kept as written.
    Returns ``target``; parsing is unchanged (argparse never reads the attribute)."""
    target.details = text.strip()
    return target


#: The kinds of ``--background``: :data:`seqimp.options.BACKGROUNDS`, kept here so that
#: ``seqimp poim --help`` and its argument errors do not import the pipeline (start-up);
#: tests/test_cli_logging_levels.py checks that the two are the same.
BACKGROUNDS = ("uniform", "negative", "all")

#: ``--background`` of the POIM ('seqimp poim', 'seqimp motifs'); scan and enrich take the same words for their
#: null letter frequencies, each the ones it has (scan: uniform, all; enrich: uniform, negative).
BACKGROUND_HELP = "POIM background: uniform or fitted on negatives/all (default negative)"

#: ``--background``'s details (docs/cli pages).
BACKGROUND_DETAILS = ("The background of the POIM: uniform letters, or a Markov chain fitted on the negative or on "
                      "all sequences.")


def _arg_type(text: str, convert, check, **limits):
    """``check(convert(text))`` for argparse: a SeqimpError becomes ArgumentTypeError.

    argparse puts ``argument --option:`` in front, so the check's message is used
    without the argument name ("must be a positive integer, got 0").
    """
    try:
        value = convert(text)
    except ValueError:
        value = text  # the checks refuse strings and quote them
    try:
        return check(value, "", **limits)
    except SeqimpError as exc:
        raise argparse.ArgumentTypeError(str(exc).strip()) from None


#: Largest |--position-origin|: its labels (index + 2 - N) stay exact integers (int64 and float64).
MAX_ORIGIN = 10**15


def position_origin(text: str) -> int:
    """A 1-based origin position: an integer in [-10**15, 10**15] (any sign: a TSS may lie outside the sequences)."""
    return _arg_type(text, int, check_int, minimum=-MAX_ORIGIN, maximum=MAX_ORIGIN)


def positive_int(text: str) -> int:
    """An integer >= 1 (``seqimp.errors.check_int``)."""
    return _arg_type(text, int, check_int)


def nonneg_int(text: str) -> int:
    """An integer >= 0 (``seqimp.errors.check_int``)."""
    return _arg_type(text, int, check_int, minimum=0)


def seed(text: str) -> int:
    """A random seed: an integer in [0, 2**63 - 1] (``seqimp.errors.check_random_state``)."""
    return _arg_type(text, int, check_int, minimum=0, maximum=2**63 - 1)


def share(text: str) -> float:
    """A share in [0, 1] (NaN and infinities refused)."""
    return _arg_type(text, float, check_number, low=0.0, high=1.0)


def fraction(text: str) -> float:
    """A share in [0, 1) (0 means: none) (``seqimp.errors.check_number``)."""
    return _arg_type(text, float, check_number, low=0.0, high=1.0, high_open=True)


def positive_float(text: str) -> float:
    """A finite number > 0 (``seqimp.errors.check_number``)."""
    return _arg_type(text, float, check_number, low=0.0, low_open=True)


def memory_size(text: str) -> int:
    """Bytes from '2G', '500MB', '1.5GiB' or a plain number of bytes (binary units, :mod:`seqimp._utils.sizes`)."""
    try:
        return parse_size(text, "size")
    except SeqimpError:
        raise argparse.ArgumentTypeError(f"expected {SIZE_HINT}, got {text!r}") from None


def add_db_option(group, what="to match with TOMTOM (matches.tsv)", *, required=False, format_group=None):
    """``--db MOTIFS`` and ``--db-format`` (in ``format_group``, default ``group``): known motifs -- a motif file,
    a run folder or a JASPAR release name (:func:`seqimp.motifs.load_database`). Returns the ``--db`` action."""
    action = details(group.add_argument(
        "--db", metavar="MOTIFS", required=required,
        help=f"known motifs {what}: a motif file, a 'seqimp motifs' folder or a JASPAR release (JASPAR2024)"),
        "A MEME (also STREME/MEME output), JASPAR, TRANSFAC or HOMER file, the folder of a 'seqimp motifs' run "
        "(its motifs.meme), or a JASPAR release read through pyjaspar (JASPAR2024 = CORE vertebrates; "
        "JASPAR2024:insects; RELEASE:COLLECTION:TAX_GROUP, e.g. JASPAR2022:CORE:plants; pip install "
        "'seqimp[jaspar]'); an existing file of that name wins.")
    (format_group or group).add_argument("--db-format", choices=["meme", "jaspar", "transfac", "homer"], default=None,
                                         help="format of --db (default: recognised from the file)")
    return action


def add_other_model_options(p, models) -> None:
    """The models besides a saved one that ``predict`` and ``variants`` score with: ``--onnx-model``,
    ``--scorer``, ``--sklearn-model`` in the mutually exclusive group ``models`` (which holds
    ``--model-file``), and the ONNX model's ``--onnx-layout`` and ``--output-index`` on ``p``."""
    models.add_argument("--onnx-model", metavar="MODEL.onnx",
                        help="a deep-learning model exported to ONNX (onnxruntime)")
    models.add_argument("--scorer", metavar="MODULE:FUNCTION",
                        help="a function (module or file.py) scoring an encoded (n, L) uint8 array")
    models.add_argument("--sklearn-model", metavar="MODEL.joblib",
                        help="a joblib-saved scikit-learn model trained on seqimp.scorers.onehot (trusted files only)")
    p.add_argument("--onnx-layout", choices=["NCL", "NLC"], default="NCL",
                   help="ONNX input: one-hot (n, 4, L) (NCL, default) or (n, L, 4) (NLC)")
    p.add_argument("--output-index", type=nonneg_int, default=None, metavar="I",
                   help="column of the ONNX model's (n, m) output used as the score (default 0)")


def load_other_model(args):
    """``(score function, its source, {})`` of ``--scorer``, ``--sklearn-model`` or ``--onnx-model``
    (:func:`add_other_model_options`)."""
    from ..scorers import OnnxScorer, load_scorer, load_sklearn_model

    if args.scorer:
        return load_scorer(args.scorer), args.scorer, {}
    if args.sklearn_model:
        return load_sklearn_model(args.sklearn_model), args.sklearn_model, {}
    return OnnxScorer(args.onnx_model, layout=args.onnx_layout, output_index=args.output_index or 0), \
        args.onnx_model, {}


def add_quiet(p, *, solver=False) -> None:
    """``-q/--quiet``, ``-v/--verbose`` and ``--debug`` after the subcommand too (the global options also work);
    ``solver``: the command trains a model, and ``-v`` adds its solver's line per pass."""
    p.add_argument("-q", "--quiet", action="store_true", default=argparse.SUPPRESS,
                   help="no progress or log lines on stderr")
    detail = "the solver's line per pass" if solver else "the steps' details"
    p.add_argument("-v", "--verbose", action="count", default=argparse.SUPPRESS,
                   help=f"more on stderr: -v adds {detail}, -vv times and modules")
    p.add_argument("--debug", action="store_true", default=argparse.SUPPRESS,
                   help="show full tracebacks on errors")


def add_dask_options(p, what, group=None) -> None:
    """``--dask-workers N`` / ``--dask-scheduler ADDRESS`` (one of them), in ``group`` (default: a group of
    their own); ``what`` runs on the cluster."""
    d = (group or p.add_argument_group("Dask (optional extra 'dask')")).add_mutually_exclusive_group()
    details(d.add_argument("--dask-workers", type=positive_int, metavar="N",
                           help=f"{what} on a local Dask cluster of N worker processes"),
            "Dask is the optional extra 'dask' (pip install \"seqimp[dask]\").")
    d.add_argument("--dask-scheduler", metavar="ADDRESS", help=f"{what} on the Dask cluster at ADDRESS "
                                                               "(tcp://host:8786)")


@contextlib.contextmanager
def dask_client(args):
    """The Client of ``--dask-workers``/``--dask-scheduler`` (closed, with its local cluster, at the end), or None."""
    if args.dask_workers is None and args.dask_scheduler is None:
        yield None
        return
    from ..kernels import connect

    client = connect(args.dask_scheduler, n_workers=args.dask_workers)
    try:
        yield client
    finally:
        client.close()


def add_data_options(p, *, required=True, shuffle_default=False, any_length=False) -> None:
    """``--positive``, ``--negative``, ``--negatives`` and ``--skip-invalid``; ``shuffle_default``: positives
    alone get dinucleotide-shuffled negatives (the motif commands, as STREME and SEA);
    ``any_length``: the command reads FASTA records of any lengths."""
    lengths = "any lengths" if any_length else "one length"
    p.add_argument("--positive", metavar="POS.fa", required=required,
                   help=f"positive sequences (FASTA, plain or gzip; {lengths})")
    p.add_argument("--negative", metavar="NEG.fa", required=required, help=f"negative sequences (FASTA; {lengths})")
    details(p.add_argument("--negatives", choices=["shuffle", "genome"],
                           help="generate the negatives: shuffled positives or GC-matched genome windows" + (
                               " (default shuffle without negatives)" if shuffle_default else "")),
            "shuffle: a dinucleotide-preserving shuffle of every positive (FASTA or BED input); genome: GC-matched "
            "windows of --genome on the positives' chromosomes, away from the regions (--positive-bed input)" + (
                "; shuffle is the default when no negatives are given (as STREME and SEA)." if shuffle_default
                else "."))
    details(p.add_argument("--skip-invalid", action="store_true",
                           help="drop records holding symbols that are neither bases nor IUPAC codes"),
            "Records holding a symbol that is neither a base nor an IUPAC code (a digit, a letter beyond ASCII) "
            "are dropped instead of failing (the log counts them). N and the IUPAC codes are read as unknown bases, "
            "never dropped.")


#: ``--mask-lowercase``'s help (one --help line) and details (docs/cli pages).
MASK_HELP = "read soft-masked (lower-case) bases as unknown (N)"
MASK_DETAILS = ("As HOMER's -mask: repeats soft-masked in lower case are read as unknown bases, which no k-mer, "
                "word, seed or site covers; by default lower-case bases are bases. N and the other IUPAC codes "
                "are always read as unknown (the log counts the records and bases).")


def mask_option(args) -> bool:
    """``--mask-lowercase`` (False for a command without it)."""
    return bool(getattr(args, "mask_lowercase", False))


def add_mask_option(group) -> None:
    """``--mask-lowercase`` in ``group`` (:data:`MASK_HELP`); the readers take ``args.mask_lowercase``."""
    details(group.add_argument("--mask-lowercase", action="store_true", help=MASK_HELP), MASK_DETAILS)


def add_model_options(p, title="model"):
    """The ``model`` group (``title``): ``--degree``, ``--shifts``, ``--C``, ``--test-fraction``, ``--seed``;
    returns the group (the commands add the kind of model to it)."""
    g = p.add_argument_group(title)
    g.add_argument("--degree", type=positive_int, default=8, help="largest k-mer length of the WD kernel (default 8)")
    g.add_argument("--shifts", type=nonneg_int, default=0, help="maximal shift S of the WDS kernel (default 0: WD)")
    g.add_argument("--C", type=positive_float, default=1.0, help="regularisation constant (default 1)")
    details(g.add_argument("--test-fraction", type=fraction, default=0.2, metavar="F",
                           help="held-out share for accuracy and auROC (default 0.2; 0: none held out)"),
            "With 0 the model trains on all sequences and reports no held-out figures.")
    details(g.add_argument("--seed", type=seed, default=0,
                           help="random seed of the held-out split, solver order and sampling (default 0)"),
            "The seed of every random choice (held-out split, solver order, sampling), recorded with the run.")
    return g


#: ``--model`` kinds: the model whose motifs a run finds (seqimp/training/_model_choice.py).
MODEL_KINDS = ("auto", "wd", "wds", "gkm")

MODEL_KIND_HELP = "model to train: wd, wds, gkm or auto (default: by held-out auROC)"

#: ``--model``'s details (docs/cli pages): how auto chooses.
MODEL_KIND_DETAILS = ("The model whose motifs are found. wd/wds: the positional WD/WDS kernel; gkm: the "
                      "position-free gapped-k-mer SVM; auto (default): the WD/WDS model unless its held-out auROC "
                      "is below 0.6, or below 0.8 with the gkm model better by 0.05 on the same split, then gkm. "
                      "summary.json/motifs.json record the route and why as model_route.")


def add_gkm_options(g, *, kind=True) -> None:
    """``--model auto|wd|wds|gkm`` (``kind``; 'seqimp poim' declares its own ``--model``, which also takes
    the old spelling of ``--model-file``), ``--gkm-length`` and ``--gkm-informative``."""
    if kind:
        details(g.add_argument("--model", choices=MODEL_KINDS, default="auto", help=MODEL_KIND_HELP),
                MODEL_KIND_DETAILS)
    g.add_argument("--gkm-length", type=positive_int, default=10, metavar="L",
                   help="word length l of the gapped-k-mer model (default 10)")
    details(g.add_argument("--gkm-informative", type=positive_int, default=6, metavar="K",
                           help="informative columns k of its gapped k-mers, k <= l (default 6)"),
            "k = l gives the k-mer spectrum.")


def read_pair(args):
    """Read --positive and --negative (either may be absent) as SequenceSets."""
    from ..io import read_fasta

    on_invalid = "skip" if getattr(args, "skip_invalid", False) else "error"
    if args.positive and args.negative and Path(args.positive).is_file() and Path(args.negative).is_file() \
            and Path(args.positive).samefile(args.negative):
        raise UserError(f"--positive and --negative are the same file ({args.negative}); "
                        "a classifier needs two different classes")
    alphabet = getattr(args, "alphabet", "dna")
    mask = mask_option(args)
    pos = read_fasta(args.positive, alphabet, on_invalid=on_invalid, mask_lowercase=mask) if args.positive else None
    neg = read_fasta(args.negative, alphabet, on_invalid=on_invalid, mask_lowercase=mask) if args.negative else None
    if pos is not None and neg is not None and pos.length != neg.length:
        from ..io._fasta import LENGTH_HINTS

        raise UserError(f"--positive {args.positive} has length {pos.length} but --negative {args.negative} "
                        f"has length {neg.length}; positional methods need one common length{LENGTH_HINTS[1]}")
    return pos, neg


def check_degree(args, length) -> None:
    """UserError when ``--degree`` or ``--shifts`` does not fit sequences of ``length``."""
    if args.degree > length:
        raise UserError(f"--degree {args.degree} exceeds the sequence length {length}")
    if args.shifts >= length:
        raise UserError(f"--shifts {args.shifts} must be smaller than the sequence length {length}")
