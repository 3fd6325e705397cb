"""``seqimp train``'s solver options (the WD SVM, ``--shifts 0``): the argument group, its
argument types, and the :class:`~seqimp.options.SolverOptions` they make, refused in one line
where an option would be ignored. Their defaults are the library's, read only when ``--help``
shows them (:class:`_LibraryDefault`): 'seqimp train' starts without importing the library."""

from __future__ import annotations

import argparse

from ..errors import check_number
from ._logging import UserError
from ._options import _arg_type, details, positive_int

__all__ = ["SOLVERS", "add_solver_options", "solver_options"]

#: ``--solver``'s choices: :data:`seqimp.options.SOLVERS`, kept here so that 'seqimp train' and its
#: argument errors do not import the library (start-up); tests/test_cli_train.py checks that the two are the same.
SOLVERS = ("auto", "dcd", "fast", "sgd")

#: ``--solver``: when each is right (its details on the docs/cli page; docs/training-at-scale.md, "Exact or fast").
SOLVER_HELP = ("dcd: the exact SVM optimum (liblinear's stopping rule), up to ~10^5 sequences; fast: stops once "
               "held-out loss, accuracy and weights settle, for 10^5 and more; sgd: averaged SGD, an "
               "early-regularised model, not the exact one: a first look; auto (default): dcd or fast by the number "
               "of training sequences. --validation-fraction, --validation-tol, --weight-tol and --patience set when "
               "fast, sgd and auto's fast route stop; --average, --optimum-tol, --shrink-margin, --no-refit and "
               "--extrapolate are the fast route's (sgd averages its own steps).")

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

        from ..kernels._estimators import AUTO_FAST_FROM
        from ..kernels import WDClassifier

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


def add_solver_options(p) -> None:
    """The "solver" argument group of ``seqimp train``."""
    s = p.add_argument_group("solver (WD SVM, --shifts 0; docs/training-at-scale.md, \"Exact or fast\")")
    details(s.add_argument("--solver", choices=SOLVERS, default=_LibraryDefault("solver"),
                           help="how the SVM is solved: dcd (exact), fast or sgd (default %(default)s)"),
            SOLVER_HELP)
    details(s.add_argument("--validation-fraction", type=_open_share, default=_LibraryDefault("validation_fraction"),
                           metavar="F", help="share held out to decide when to stop (default %(default)s)"),
            "The share of the sequences held out to decide when to stop; they are trained on once the rule holds "
            "(unless --no-refit).")
    details(s.add_argument("--validation-tol", type=_nonneg_float, default=_LibraryDefault("validation_tol"),
                           metavar="TOL", help="largest change of held-out loss and accuracy per pass that counts "
                                               "as settled (default %(default)s)"),
            "The largest change of the held-out hinge loss (relative) and accuracy (absolute) between passes that "
            "counts as settled.")
    s.add_argument("--weight-tol", type=_nonneg_float, default=_LibraryDefault("weight_tol"), metavar="TOL",
                   help="largest relative change of the weights over a pass that counts as settled "
                        "(default %(default)s)")
    s.add_argument("--patience", type=positive_int, default=_LibraryDefault("patience"), metavar="N",
                   help="settled passes in a row before the fit stops (default %(default)s)")
    details(s.add_argument("--optimum-tol", type=_nonneg_float, default=_LibraryDefault("optimum_tol"), metavar="TOL",
                           help="fast route: stop only once also within TOL of the SVM's optimum "
                                "(default %(default)s)"),
            "The solver stops only once it is also within TOL of the SVM's optimum (estimated from the dual "
            "objective, in units of ||w||/sqrt(n)): the exact fit's top k-mers at 10^5-10^6 sequences for more "
            "passes ([docs/training-at-scale.md](../training-at-scale.md)).")
    details(s.add_argument("--shrink-margin", type=_nonneg_float, default=_LibraryDefault("shrink_margin"),
                           metavar="M", help="fast route, one thread: skip sequences with dual variable 0 and margin "
                                             "above 1 + M (default %(default)s: liblinear's shrinking)"),
            "From the 3rd pass on, sequences whose dual variable is 0 with a margin above 1 + M are skipped (a pass "
            "over all of them every 8th pass and before the fit stops): fewer steps per pass "
            "([docs/training-at-scale.md](../training-at-scale.md)).")
    details(s.add_argument("--no-refit", dest="refit", action="store_const", const=False,
                           default=_LibraryDefault("refit"),
                           help="fast route: keep the held-out slice out of training for good"),
            "No passes over all sequences after the rule holds; pair it with a small --validation-fraction.")
    details(s.add_argument("--extrapolate", action="store_const", const=True, default=_LibraryDefault("extrapolate"),
                           help="fast route, one thread: after every pass, search the SVM dual along the pass's "
                                "move"),
            "After every pass the SVM dual is searched along the pass's move and the point where it rises is "
            "kept: fewer passes at 10^5 sequences and more, at the cost of one more weight vector "
            "([docs/training-at-scale.md](../training-at-scale.md)).")
    details(s.add_argument("--average", type=_average, default=_LibraryDefault("average"), metavar="ETA",
                           help="fast route: average the pass-end iterates (0: the plain mean; none: the last "
                                "iterate; default %(default)s)"),
            "The model is the average of its pass-end iterates, pass t weighted in by (ETA + 1) / (t + ETA), so "
            "early passes are forgotten (0: the plain mean; none: the last iterate).")
    details(s.add_argument("--threads", type=positive_int, default=None, metavar="N",
                           help="WD SVM threads sharing the weights (default 1: the same bytes every run)"),
            "The coordinate-descent passes run on N threads sharing the weights: the same model up to its last "
            "digits ([docs/multicore.md](../multicore.md)). Default (and 1): one thread, the same bytes every run.")


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


def solver_options(args):
    """``SolverOptions`` of --solver and the stopping thresholds (those left at their default: the
    library's), or UserError for a combination where an option would be ignored."""
    from ..options import SolverOptions

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
