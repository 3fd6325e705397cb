"""Training and held-out evaluation of the pipeline: a WD/WDS classifier trained on a
stratified split of sequences encoded once, unfolded into positional weights.

:func:`train_model` is the step ``seqimp train`` and :func:`~seqimp.pipeline.run_poim`
start with; :func:`evaluate` scores any classifier's held-out predictions.
"""

from __future__ import annotations

import logging
import math
import numbers
import time
import warnings
from dataclasses import dataclass

import numpy as np

from .._progress import progress_default
from ..errors import DEFAULT_SEED, SeqimpError, check_choice, check_int, check_number, check_random_state
from ._options import ModelOptions
from ._sequences import encode_sequences

__all__ = ["train_model", "train_on_store", "train_classifier", "evaluate", "flag_chance", "recorded_seed",
           "CHANCE_AUROC", "metrics_line", "HELD_OUT_ROUTE", "SolverOptions", "SOLVERS", "STOPPING_THRESHOLDS",
           "solver_record", "solver_line"]

logger = logging.getLogger(__name__)

#: Held-out auROC below which :func:`train_model` warns that the model is close to chance.
CHANCE_AUROC = 0.6


#: How to get held-out figures for a model scored on sequences it may have been trained on.
HELD_OUT_ROUTE = ("for held-out figures, score sequences the model never saw, or use the held-out accuracy "
                  "'seqimp train' measured on its --test-fraction split, printed when it saved the model and "
                  "kept in the model file")


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
_ROUTES = {"dcd": "the exact route (dual coordinate descent)", "fast": "the fast route (coordinate descent)",
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
        reproducible. None: every core the process may use from 50,000 sequences on.
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
    return f"solver: {_ROUTES[record['solver']]}, {record['solver_reason']}; {record['passes']} {steps}, {how}"


def metrics_line(metrics) -> str | None:
    """What a run's classifier metrics say, with what they were measured on: ``accuracy 0.9500, auROC
    0.9800 on 200 held-out sequences``, or ``... on the given sequences, NOT held out (...)`` naming
    :data:`HELD_OUT_ROUTE`; None without an auROC."""
    if metrics.get("auroc") is None:
        return None
    acc = metrics.get("accuracy")
    figures = ("" if acc is None else f"accuracy {acc:.4f}, ") + f"auROC {metrics['auroc']:.4f}"
    where = metrics.get("evaluated_on")
    if where is None or where.startswith("held-out"):
        n = metrics.get("n_test")
        return f"{figures} on {f'{n} ' if n else 'the '}held-out sequences"
    if "not held out" in where:
        return f"{figures} on {where.replace(' (not held out)', '')}, NOT held out: the model may have been " \
               f"trained on them ({HELD_OUT_ROUTE})"
    return f"{figures} on {where}"


def evaluate(scores, y) -> dict:
    """Accuracy (threshold 0) and auROC of scores against 0/1 labels."""
    from sklearn.metrics import roc_auc_score

    scores, y = np.asarray(scores, dtype=np.float64), np.asarray(y)
    out = {"n_test": int(len(y)), "accuracy": float(np.mean((scores > 0) == (y == 1)))}
    out["auroc"] = float(roc_auc_score(y, scores)) if len(np.unique(y)) == 2 else None
    return out


def train_model(positive, negative, *, model=ModelOptions(), solver=SolverOptions(), random_state=None, progress=None,
                client=None, max_memory=None):
    """Train a WD/WDS classifier (positive = 1), evaluate it on a held-out split, unfold it.

    Parameters
    ----------
    positive, negative : list of str, SequenceSet or ndarray of shape (n, L)
    model : ModelOptions
        ``degree``, ``shifts``, ``C``, ``alphabet`` and ``test_fraction``: the stratified
        held-out share for accuracy/auROC; 0 trains on everything and reports no metrics.
        The returned model is the one trained on the rest.
    solver : SolverOptions
        The WD SVM's solver and its stopping thresholds (shifts 0; with shifts only the default).
    random_state : int or None
        The split and the solver (None: the fixed seed 0).
    progress : bool or None, default=None
        Report each training step (feature map or Gram matrix, solver) with its time on stderr,
        a bar for each solver pass that lasts over a second, and each pass's line at DEBUG level on
        the ``seqimp`` log (``seqimp -v``; ``WDClassifier(verbose="log")``); None: unless the
        ``seqimp`` logger's level is above INFO.
    client : distributed.Client or str, optional
        Train on a Dask cluster (``WDClassifier(client=...)``, shifts 0 only; docs/training-at-scale.md).
    max_memory : int or str, optional
        Refuse, before allocating, a fit whose working memory exceeds this many bytes
        (``WDClassifier(memory_budget=...)``; None: the memory available now).

    Returns
    -------
    weights : PositionalWeights
        Tables of shape (L-k+1, 4**k), k = 1..degree; scores exactly like the model.
    info : dict
        ``n_train``, ``n_test``, ``accuracy``, ``auroc`` (None without a test split),
        ``train_seconds``, and how the model was solved (:func:`solver_record`'s keys:
        ``solver``, ``passes``, ``converged``, the thresholds, ``stopping_history``, ...).

    Notes
    -----
    Progress lines go to the ``seqimp`` logger (:mod:`logging`, level INFO).
    """
    data = encode_sequences(positive, negative, model.alphabet)
    return train_classifier(*data.labelled(), model=model, solver=solver, random_state=random_state,
                            progress=progress, client=client, alphabet=data.alphabet, max_memory=max_memory)


def train_on_store(store, *, test_store=None, degree=8, shifts=0, C=1.0, solver=SolverOptions(), random_state=None,
                   progress=False, client=None, max_memory=None):
    """Train a WD/WDS classifier on the rows of a codes store, read from disk, never loaded whole.

    The sequences-larger-than-memory route (docs/training-at-scale.md): the store's codes
    are a read-only memory map that the solver reads row by row, so there is no held-out
    split here (a split would copy the training rows into memory); held-out figures come
    from a second store.

    Parameters
    ----------
    store : CodesStore or path
        From :func:`seqimp.io.encode_fasta_to_store` (``seqimp encode``), with 0/1 labels
        (1: positive).
    test_store : CodesStore or path, optional
        Held-out sequences of the same length and alphabet, with 0/1 labels: accuracy and
        auROC of the model trained on ``store``.
    degree, shifts, C
        As in :class:`ModelOptions` (there is no split: every row of ``store`` trains).
    solver, random_state, progress, client, max_memory
        As in :func:`train_model`.

    Returns
    -------
    weights : PositionalWeights
    info : dict
        As :func:`train_model`'s.
    """
    train = _labelled_store(store, "store")
    X_test = y_test = None
    if test_store is not None:
        test = _labelled_store(test_store, "test_store")
        if test.length != train.length or test.alphabet.name != train.alphabet.name:
            raise SeqimpError(f"test_store {test.path}: sequences of length {test.length} ({test.alphabet.name}), "
                              f"the training store {train.path} holds length {train.length} ({train.alphabet.name})")
        X_test, y_test = test.codes, np.asarray(test.labels, dtype=np.int64)
    return train_classifier(train.codes, np.asarray(train.labels, dtype=np.int64),
                            model=ModelOptions(degree=degree, shifts=shifts, C=C, test_fraction=0.0),
                            solver=solver, random_state=random_state, progress=progress, client=client,
                            alphabet=train.alphabet.name, max_memory=max_memory, test=(X_test, y_test),
                            check_identical=False)


def _labelled_store(store, name):
    """An opened store whose labels are 0/1 with both classes present."""
    from ..io import CodesStore, open_codes_store

    store = store if isinstance(store, CodesStore) else open_codes_store(store)
    if store.labels is None:
        raise SeqimpError(f"{name} {store.path}: the store has no labels (seqimp encode --labels 1 0)")
    values = np.unique(np.asarray(store.labels))
    if not np.isin(values, (0, 1)).all() or values.size < 2:
        raise SeqimpError(f"{name} {store.path}: labels must be 0 and 1 (both present) to train a classifier, "
                          f"found {', '.join(f'{v:g}' for v in values[:5])}")
    return store


def train_classifier(X, y, *, model, random_state, solver=SolverOptions(), progress=False, client=None, alphabet="dna",
                     max_memory=None, test=(None, None), check_identical=True):
    """:func:`train_model` on sequences encoded once (``X`` of shape (n, L), 0/1 labels ``y``);
    ``model``: :class:`ModelOptions` (its ``alphabet`` is ignored: ``alphabet`` is that of ``X``);
    ``solver``: :class:`SolverOptions` (shifts 0);
    ``test``: a held-out ``(X_test, y_test)`` given instead of a split (``model.test_fraction`` 0)."""
    from sklearn.model_selection import train_test_split

    from ..kernels._estimators import WDClassifier

    degree, shifts, C, test_fraction = model.degree, model.shifts, model.C, model.test_fraction
    if shifts and solver != SolverOptions():
        raise SeqimpError(f"solver options ({', '.join(f'{k}={v!r}' for k, v in solver.params().items())}) are the "
                          f"WD SVM's (shifts 0); shifts {shifts} trains the WDS kernel route (libsvm)")
    n_pos, n_neg = int(y.sum()), int(len(y) - y.sum())
    info = {"n_positive": n_pos, "n_negative": n_neg, "n_test": 0, "accuracy": None, "auroc": None}
    identical = check_identical and _same_sequences(X[y == 1], X[y == 0])
    if identical:
        info["warning"] = (f"the two classes are identical (the same {n_pos} sequences); no model can tell them "
                           "apart, so its POIM, top oligomers and motifs are noise")
        warnings.warn(info["warning"], stacklevel=3)
    if test_fraction > 0:
        n_test = int(np.ceil(test_fraction * len(y)))
        if min(n_pos, n_neg) < 2 or n_test < 2 or len(y) - n_test < 2:
            from ..io._fasta import with_fix

            raise with_fix(f"too few sequences ({n_pos} positive, {n_neg} negative) for a held-out split of "
                           f"{test_fraction:g}; add data or ", ("use test_fraction=0", "use --test-fraction 0"))
        X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=test_fraction, stratify=y,
                                                            random_state=_split_seed(random_state))
    else:
        X_train, y_train, (X_test, y_test) = X, y, test
    logger.info(f"training a WD{'S' if shifts else ''} classifier (degree {degree}, shifts {shifts}, C {C:g}) "
                f"on {len(y_train)} sequences of length {X.shape[1]}")
    start = time.perf_counter()
    # the solver's per-pass lines are details: on the seqimp log at DEBUG (the CLI's -v); its bars stay
    verbose = "log" if progress or (progress is None and progress_default()) else False
    model = WDClassifier(degree=degree, shifts=shifts, C=C, random_state=random_state, alphabet=alphabet,
                         verbose=verbose, memory_budget=max_memory, **solver.params(),
                         **({"client": client} if client is not None else {})).fit(X_train, y_train)
    info["train_seconds"] = time.perf_counter() - start
    info["n_train"] = int(len(y_train))
    info.update(solver_record(model, len(y_train)))
    logger.info(solver_line(info))
    if X_test is not None:
        info.update(evaluate(model.decision_function(X_test), y_test))
        logger.info(f"held-out accuracy {info['accuracy']:.3f}, auROC {info['auroc']:.3f} "
                    f"on {info['n_test']} sequences")
        if info["auroc"] is not None and info["auroc"] < CHANCE_AUROC and not identical:
            info["warning"] = (f"the model is close to chance (held-out auROC {info['auroc']:.3f} < "
                               f"{CHANCE_AUROC}); its POIM, top oligomers and motifs are likely noise")
            warnings.warn(info["warning"], stacklevel=3)
    info["chance_level"] = "warning" in info
    return model.positional_weights(), info


def flag_chance(metrics) -> None:
    """``chance_level`` and a warning in ``metrics`` when its auROC is below :data:`CHANCE_AUROC`."""
    auroc = metrics.get("auroc")
    metrics["chance_level"] = auroc is not None and auroc < CHANCE_AUROC
    if metrics["chance_level"]:
        metrics["warning"] = (f"the model is close to chance (auROC {auroc:.3f} < {CHANCE_AUROC}, "
                              f"{metrics.get('evaluated_on', 'held-out')}); its POIM and top oligomers are likely noise")
        warnings.warn(metrics["warning"], stacklevel=3)


def _same_sequences(a, b) -> bool:
    """Whether two code arrays hold the same rows, as multisets."""
    if a.shape != b.shape:
        return False
    (rows_a, counts_a), (rows_b, counts_b) = (np.unique(x, axis=0, return_counts=True) for x in (a, b))
    return rows_a.shape == rows_b.shape and bool(np.array_equal(rows_a, rows_b) and np.array_equal(counts_a, counts_b))


def _split_seed(random_state) -> int:
    """The seed of the held-out split (scikit-learn takes ints below 2**32): the seed itself
    (None: :data:`~seqimp.errors.DEFAULT_SEED`), or one drawn from larger seeds and Generators."""
    if random_state is None:
        return DEFAULT_SEED
    if isinstance(random_state, numbers.Integral) and not isinstance(random_state, bool) \
            and 0 <= int(random_state) < 2**32:
        return int(random_state)
    return int(check_random_state(random_state).integers(2**32))


def recorded_seed(random_state):
    """What summaries record as the seed: the int (None is the default seed 0), or a description."""
    if random_state is None:
        return DEFAULT_SEED
    if isinstance(random_state, numbers.Integral) and not isinstance(random_state, bool):
        return int(random_state)
    return f"a {type(random_state).__name__} object"
