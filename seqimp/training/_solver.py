"""What a model file and the log record of how the WD SVM was solved (:func:`solver_record`,
:func:`solver_line`); the options of the solver are :class:`seqimp.options.SolverOptions`.
"""

from __future__ import annotations

import math

from ..options import STOPPING_THRESHOLDS

__all__ = ["solver_record", "solver_line"]


#: What each ``solver_`` is, for the log line at the end of a fit.
_SOLVER_NAMES = {"dcd": "the exact route (dual coordinate descent)", "fast": "the fast route (coordinate descent)",
           "sgd": "the averaged SGD route", "cocoa": "the exact route on the Dask cluster (CoCoA+)",
           "cocoa-fast": "the fast route on the Dask cluster (CoCoA+)"}


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
    from ..kernels._estimators import AUTO_FAST_FROM

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
