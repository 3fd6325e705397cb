"""How the WD SVM is solved: :class:`SolverOptions` (the solver and its stopping thresholds, the
:class:`~seqimp.WDClassifier` parameters of the same names) and what a model file and the log
record of a fit (:func:`solver_record`, :func:`solver_line`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ..errors import SeqimpError, check_choice, check_int, check_number

__all__ = ["SolverOptions", "SOLVERS", "STOPPING_THRESHOLDS", "solver_record", "solver_line"]


#: The solvers of the WD SVM's implicit route (:class:`~seqimp.WDClassifier`'s ``solver``).
SOLVERS = ("auto", "dcd", "fast", "sgd")

#: The thresholds of the fast route's stopping rule: :class:`~seqimp.WDClassifier` parameters.
STOPPING_THRESHOLDS = ("validation_fraction", "validation_tol", "weight_tol", "patience", "optimum_tol")

#: The fast route's options besides its stopping thresholds (refused with solver 'dcd').
_FAST_ONLY = ("average", "shrink_margin", "refit", "extrapolate")

#: The fast route's options that solver 'sgd' has nothing for, and why (the refusal's words).
_SGD_LACKS = {"optimum_tol": "the fast route's estimate from the dual objective; solver 'sgd' has no dual",
              "shrink_margin": "the fast route's active set of dual variables; solver 'sgd' has none",
              "extrapolate": "a line search of the fast route's dual; solver 'sgd' has no dual",
              "average": "the fast route's average of its passes; solver 'sgd' averages its own steps"}

#: What each ``solver_`` is, for the log line at the end of a fit.
_SOLVER_NAMES = {"dcd": "the exact route (dual coordinate descent)", "fast": "the fast route (coordinate descent)",
           "sgd": "the averaged SGD route", "cocoa": "the exact route on the Dask cluster (CoCoA+)",
           "cocoa-fast": "the fast route on the Dask cluster (CoCoA+)"}


@dataclass(frozen=True, kw_only=True)
class SolverOptions:
    """How the WD SVM is solved (implicit route, shifts 0): the solver and when the fast route stops.

    The fields are the :class:`~seqimp.WDClassifier` parameters of the same names, checked when
    the options are made; None leaves the classifier's default, so the defaults live in one
    place (docs/training-at-scale.md, "Exact or fast: the solver and when it stops").

    Attributes
    ----------
    solver : {"auto", "dcd", "fast", "sgd"}, default="auto"
        "dcd": the exact fit; "fast": coordinate descent until the model stops changing;
        "sgd": averaged SGD, an early regularised model; "auto": "dcd" below
        ``seqimp.kernels._estimators.AUTO_FAST_FROM`` training sequences, else "fast".
    validation_fraction : float in (0, 1), optional
        Share of the sequences held out for the stopping rule.
    validation_tol, weight_tol : float >= 0, optional
        The stopping rule's thresholds on the held-out loss and accuracy and on the weights.
    patience : int >= 1, optional
        Settled passes in a row before the fit stops.
    optimum_tol : float >= 0, optional
        "fast" on one machine: also wait until the iterate is within this estimated distance
        of the SVM's optimum, in units of ``||w|| / sqrt(n)`` (``WDClassifier(optimum_tol=)``).
    average : float >= 0 or "none", optional
        "fast": eta of the polynomial-decay average of the pass-end iterates that is the model;
        "none": the last iterate (``WDClassifier(average=None)``).
    shrink_margin : float >= 0, optional
        "fast" on one machine, one thread: rows whose dual variable sits at a bound with a
        margin beyond ``1 +- shrink_margin`` leave the passes, with a pass over all rows every
        few passes and before a stop (``WDClassifier(shrink_margin=)``).
    refit : bool, optional
        "fast" on one machine: False keeps the validation slice out of training for good
        (``WDClassifier(refit=False)``; with a small ``validation_fraction``, the model of
        nearly all sequences, without the passes after the slice joins).
    extrapolate : bool, optional
        "fast" on one machine, one thread: True searches the dual along every pass's move and
        keeps the point where it rises (``WDClassifier(extrapolate=True)``; fewer passes at
        10^5 sequences and more).
    threads : int >= 1, optional
        ``WDClassifier(n_jobs=...)``: the coordinate-descent passes on that many threads sharing
        the weights (the same model up to the last digits); 1: one thread, bit for bit
        reproducible. None: one thread (the same bits on every run, docs/multicore.md).
    """

    solver: str = "auto"
    validation_fraction: float | None = None
    validation_tol: float | None = None
    weight_tol: float | None = None
    patience: int | None = None
    optimum_tol: float | None = None
    average: float | str | None = None
    shrink_margin: float | None = None
    refit: bool | None = None
    extrapolate: bool | None = None
    threads: int | None = None

    def __post_init__(self):
        check_choice(self.solver, "solver", SOLVERS)
        if self.validation_fraction is not None:
            check_number(self.validation_fraction, "validation_fraction", low=0, high=1, low_open=True,
                         high_open=True)
        for name in ("validation_tol", "weight_tol", "optimum_tol", "shrink_margin"):
            if getattr(self, name) is not None:
                check_number(getattr(self, name), name, low=0)
        if self.patience is not None:
            check_int(self.patience, "patience")
        if self.threads is not None:
            check_int(self.threads, "threads")
        if isinstance(self.average, str) and self.average != "none":
            raise SeqimpError(f"average must be a number >= 0 or 'none' (the last iterate), got {self.average!r}")
        if self.average is not None and self.average != "none":
            check_number(self.average, "average", low=0)
        for name in ("refit", "extrapolate"):
            if getattr(self, name) is not None and not isinstance(getattr(self, name), bool):
                raise SeqimpError(f"{name} must be True or False, got {getattr(self, name)!r}")
        given = [name for name in STOPPING_THRESHOLDS + _FAST_ONLY if getattr(self, name) is not None]
        if self.solver == "dcd" and given:
            raise SeqimpError(f"{', '.join(given)}: options of the fast route; solver 'dcd' stops by liblinear's "
                              "rule (tol); use solver 'fast', 'sgd' or 'auto'")
        self._refuse_with_sgd(("optimum_tol", "shrink_margin"))
        self._refuse_with_sgd(("extrapolate", "average"))

    def _set(self, name) -> bool:
        """Whether option ``name`` is set: neither None (the classifier's default) nor False."""
        value = getattr(self, name)
        return value is not None and value is not False

    def _refuse_with_sgd(self, names):
        """SeqimpError for the first of ``names`` set with solver 'sgd' (:data:`_SGD_LACKS`)."""
        for name in names:
            if self.solver == "sgd" and self._set(name):
                raise SeqimpError(f"{name}: {_SGD_LACKS[name]}; use solver 'fast' or 'auto'")

    def params(self) -> dict:
        """The :class:`~seqimp.WDClassifier` keyword arguments these options set."""
        params = {name: value for name in ("solver",) + STOPPING_THRESHOLDS
                  if (value := getattr(self, name)) is not None}
        if self.average is not None:
            params["average"] = None if self.average == "none" else self.average
        for name in ("shrink_margin", "refit", "extrapolate"):
            if getattr(self, name) is not None:
                params[name] = getattr(self, name)
        if self.threads is not None:
            params["n_jobs"] = self.threads
        return params


def solver_record(clf, n_train) -> dict:
    """How a fitted :class:`~seqimp.WDClassifier` was solved, as the model file records it (JSON-ready).

    Parameters
    ----------
    clf : WDClassifier
        Fitted.
    n_train : int
        The sequences it was fitted on (what ``solver="auto"`` decided on).

    Returns
    -------
    dict
        ``solver`` (``clf.solver_``; "libsvm" on the kernel route), ``solver_requested`` (``clf.solver``),
        ``solver_reason`` (why it ran), ``passes`` (rounds on a Dask cluster; the kernel route
        records libsvm's ``iterations`` instead), ``converged`` (the stopping rule stopped it,
        not ``max_iter``), ``max_iter``; ``tol`` for the exact route; for the fast route the
        thresholds (:data:`STOPPING_THRESHOLDS`), ``average`` ("fast" and "cocoa-fast": the
        eta of the average of the passes, None: the last iterate), ``shrink_margin``, ``refit`` and
        ``extrapolate`` (one machine: "fast" and "sgd"), ``validation_rows`` (how many were held out)
        and ``stopping_history``: per pass, lists ``held_out_hinge_loss``, ``held_out_accuracy``
        (None in the final passes over all rows), ``weight_change`` and ``settled``.
    """
    from ..kernels import AUTO_FAST_FROM

    n, requested = int(n_train), clf.get_params()["solver"]
    if clf.method_ != "implicit":  # the solver options are the implicit route's
        kernel = clf.method_ == "kernel"
        return {"solver": "libsvm" if kernel else "liblinear", "solver_requested": requested,
                "iterations": int(clf.n_iter_),
                "solver_reason": f"shifts {clf.shifts_}: the WDS kernel route (precomputed Gram matrix)" if kernel
                else "method 'linear': the explicit WD features"}
    if requested == "auto":
        reason = (f"auto: {n:,} training sequences, {AUTO_FAST_FROM:,} or more" if n >= AUTO_FAST_FROM
                  else f"auto: {n:,} training sequences, fewer than {AUTO_FAST_FROM:,}")
    elif requested == "sgd" and clf.solver_ == "cocoa-fast":
        reason = "solver sgd asked for: averaged SGD does not run on a cluster, its stopping rule does"
    else:
        reason = "as chosen"
    record = {"solver": clf.solver_, "solver_requested": requested, "solver_reason": reason,
              "passes": int(clf.n_iter_), "converged": bool(clf.converged_), "max_iter": int(clf.max_iter)}
    if clf.solver_ in ("dcd", "fast"):
        record["threads"] = int(clf.n_threads_)
    if not hasattr(clf, "stopping_history_"):
        return dict(record, tol=float(clf.tol))
    record.update({name: clf.get_params()[name] for name in STOPPING_THRESHOLDS})
    if clf.solver_ != "sgd":  # averaged SGD averages its own steps
        record["average"] = clf.get_params()["average"]
    if clf.solver_ in ("fast", "sgd"):  # the single-machine route's active set and slice
        record["shrink_margin"] = clf.get_params()["shrink_margin"]
        record["refit"] = bool(clf.get_params()["refit"])
        record["extrapolate"] = bool(clf.get_params()["extrapolate"])
    record["validation_rows"] = int(len(clf.validation_rows_))
    if getattr(clf, "best_pass_", None) is not None:   # the model of the best held-out pass, not the last
        record["best_pass"] = int(clf.best_pass_)
        record["held_out_accuracy_returned"] = float(clf.stopping_history_[clf.best_pass_ - 1][1])
    columns = list(zip(*clf.stopping_history_)) or [(), (), (), ()]
    record["stopping_history"] = {
        name: [None if math.isnan(x) else float(x) for x in values]
        for name, values in zip(("held_out_hinge_loss", "held_out_accuracy", "weight_change"), columns)}
    record["stopping_history"]["settled"] = [bool(x) for x in columns[3]]
    return record


def solver_line(record) -> str:
    """The log line of :func:`solver_record`: the route, why, the passes and how the fit stopped."""
    if "iterations" in record:
        return f"solver: {record['solver']}, {record['solver_reason']}; {record['iterations']} iterations"
    steps = "rounds" if record["solver"].startswith("cocoa") else "passes"
    if not record["converged"]:
        how = f"stopped at max_iter {record['max_iter']} before its stopping rule held"
    elif "tol" in record:
        how = f"converged to liblinear's rule (tol {record['tol']:g})"
    else:
        how = (f"the model stopped changing (validation_tol {record['validation_tol']:g}, weight_tol "
               f"{record['weight_tol']:g}, patience {record['patience']}"
               + ("" if record.get("optimum_tol") is None else f", optimum_tol {record['optimum_tol']:g}")
               + f"; {record['validation_rows']:,} rows held out"
               + ("" if record.get("refit", True) else ", not trained on") + ")")
        if "average" in record:
            how += ("; the last iterate" if record["average"] is None else
                    f"; the average of the passes, eta {record['average']:g}")
        if record.get("extrapolate"):
            how += "; extrapolated along every pass"
        if "best_pass" in record:
            how += (f"; the model of pass {record['best_pass']}, the best held out (accuracy "
                    f"{record['held_out_accuracy_returned']:.4f})")
    if record.get("threads", 1) > 1:
        how += f"; {record['threads']} threads sharing the weights"
    return f"solver: {_SOLVER_NAMES[record['solver']]}, {record['solver_reason']}; {record['passes']} {steps}, {how}"
