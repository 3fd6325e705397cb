"""Training and held-out evaluation: a WD/WDS classifier trained on a
stratified split of sequences encoded once, unfolded into positional weights.

:func:`train_model` is the step ``seqimp train`` and :func:`~seqimp.pipeline.run_poim`
start with; :func:`evaluate` scores any classifier's held-out predictions.
"""

from __future__ import annotations

import logging
import numbers
import time
import warnings
import numpy as np

from .._utils.progress import progress_default
from ..errors import DEFAULT_SEED, SeqimpError, check_random_state
from ..io._labelled import encode_labelled
from ..options import ModelOptions, SolverOptions
from ._solver import solver_line, solver_record

__all__ = ["train_model", "train_on_store", "train_classifier", "evaluate", "flag_chance", "recorded_seed",
           "held_out_start",
           "CHANCE_AUROC", "metrics_line", "HELD_OUT_HINT", "held_out_split", "split_seed"]

logger = logging.getLogger(__name__)

#: Held-out auROC below which :func:`train_model` warns that the model is close to chance.
CHANCE_AUROC = 0.6


#: How to get held-out figures for a model scored on sequences it may have been trained on.
HELD_OUT_HINT = ("for held-out figures, score sequences the model never saw, or use the held-out accuracy "
                  "'seqimp train' measured on its --test-fraction split, printed when it saved the model and "
                  "kept in the model file")


def metrics_line(metrics) -> str | None:
    """What a run's classifier metrics say, with what they were measured on: ``accuracy 0.9500, auROC
    0.9800 on 200 held-out sequences``, or ``... on the given sequences, NOT held out (...)`` naming
    :data:`HELD_OUT_HINT`; None without an auROC."""
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
               f"trained on them ({HELD_OUT_HINT})"
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
    data = encode_labelled(positive, negative, model.alphabet, unknown=True)   # N: k-mers covering it are no features
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
    from ..io import open_codes_store
    from ..io._store import CodesStore

    store = store if isinstance(store, CodesStore) else open_codes_store(store)
    if store.labels is None:
        raise SeqimpError(f"{name} {store.path}: the store has no labels (seqimp encode --labels 1 0)")
    values = np.unique(np.asarray(store.labels))
    if not np.isin(values, (0, 1)).all() or values.size < 2:
        raise SeqimpError(f"{name} {store.path}: labels must be 0 and 1 (both present) to train a classifier, "
                          f"found {', '.join(f'{v:g}' for v in values[:5])}")
    return store


def train_classifier(X, y, *, model, random_state, solver=SolverOptions(), progress=False, client=None, alphabet="dna",
                     max_memory=None, test=(None, None), check_identical=True, weights=True, alpha_init=None,
                     keep_start=False):
    """:func:`train_model` on sequences encoded once (``X`` of shape (n, L), 0/1 labels ``y``);
    ``model``: :class:`ModelOptions` (its ``alphabet`` is ignored: ``alphabet`` is that of ``X``);
    ``solver``: :class:`SolverOptions` (shifts 0);
    ``test``: a held-out ``(X_test, y_test)`` given instead of a split (``model.test_fraction`` 0);
    ``weights=False``: the info alone, None for the weights (a fit made for its held-out figures:
    the positional weights are not unfolded);
    ``alpha_init``: dual variables of shape (len(y),) that start the fit where it runs the exact
    dual coordinate descent (:meth:`~seqimp.kernels.WDClassifier.starts_from_duals`; ignored
    elsewhere); ``keep_start=True``: ``info["alpha_start"]``, shape (len(y),), the start of a later
    fit on these sequences or on nearly the same ones: after a split the held-out start
    (:func:`held_out_start`), else the fit's own dual variables (None where the fit has none);
    not a figure to record, the caller takes it out of the info."""
    from ..kernels import WDClassifier

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
        train, test = held_out_split(y, test_fraction, random_state)
        X_train, X_test, y_train, y_test = X[train], X[test], y[train], y[test]
    else:
        X_train, y_train, (X_test, y_test) = X, y, test
    logger.info(f"training a WD{'S' if shifts else ''} classifier (degree {degree}, shifts {shifts}, C {C:g}) "
                f"on {len(y_train)} sequences of length {X.shape[1]}")
    start = time.perf_counter()
    # the solver's per-pass lines are details: on the seqimp log at DEBUG (the CLI's -v); its bars stay
    verbose = "log" if progress or (progress is None and progress_default()) else False
    model = WDClassifier(degree=degree, shifts=shifts, C=C, random_state=random_state, alphabet=alphabet,
                         verbose=verbose, memory_budget=max_memory, **solver.params(),
                         **({"client": client} if client is not None else {}))
    duals = model.starts_from_duals(len(y_train))
    if alpha_init is not None and duals:
        alpha_init = np.asarray(alpha_init, dtype=np.float64)
        alpha_init = alpha_init[train] if test_fraction > 0 else alpha_init
    model.fit(X_train, y_train, alpha_init=alpha_init if duals else None)
    info["train_seconds"] = time.perf_counter() - start
    info["n_train"] = int(len(y_train))
    info.update(solver_record(model, len(y_train)))
    logger.info(solver_line(info))
    if X_test is not None:
        decision = model.decision_function(X_test)
        info.update(evaluate(decision, y_test))
        auroc = "n/a (one class held out)" if info["auroc"] is None else f"{info['auroc']:.3f}"
        logger.info(f"held-out accuracy {info['accuracy']:.3f}, auROC {auroc} on {info['n_test']} sequences")
        if info["auroc"] is not None and info["auroc"] < CHANCE_AUROC and not identical:
            info["warning"] = (f"the model is close to chance (held-out auROC {info['auroc']:.3f} < "
                               f"{CHANCE_AUROC}); its POIM, top oligomers and motifs are likely noise")
            warnings.warn(info["warning"], stacklevel=3)
    info["chance_level"] = "warning" in info
    if keep_start:  # after a split the held-out start, else the fit's own dual variables
        info["alpha_start"] = None
        if duals:
            info["alpha_start"] = (held_out_start(model, train, test, decision, y) if test_fraction > 0
                                   else np.abs(model.dual_coef_))
    return (model.positional_weights() if weights else None), info


def held_out_split(y, test_fraction, random_state):
    """The one held-out split of the training functions: stratified, ``test_fraction`` of the
    rows, seeded by :func:`split_seed`. The rows depend on the labels ``y`` and the seed only,
    so a WD and a gkm model trained on the same sequences are held out on the same rows.

    Returns
    -------
    train, test : ndarray of int
        Row indices.
    """
    from sklearn.model_selection import train_test_split

    y = np.asarray(y)
    n_pos = int((y == 1).sum())
    n_neg = int(len(y) - n_pos)
    n_test = int(np.ceil(test_fraction * len(y)))
    if min(n_pos, n_neg) < 2 or n_test < 2 or len(y) - n_test < 2:
        from ..io._fasta import with_fix

        raise with_fix(f"too few sequences ({n_pos} positive, {n_neg} negative) for a held-out split of "
                       f"{test_fraction:g}; add data or ", ("use test_fraction=0", "use --test-fraction 0"))
    train, test = train_test_split(np.arange(len(y)), test_size=test_fraction, stratify=y,
                                   random_state=split_seed(random_state))
    return train, test


def held_out_start(held, train, test, decision, y) -> np.ndarray:
    """Dual variables to start the fit on all sequences from (``alpha_init``), shape (n,): the
    held-out fit's on its training rows; on the held-out rows the bound their margin under the
    held-out model points to -- ``C`` where ``y f(x) < 1`` (the hinge is active: a dual variable
    at the optimum is ``C`` for a point inside the margin), else 0. Only the start: the optimum
    is the same (a gkm or a WD model fitted by dual coordinate descent: ``held.dual_coef_`` of
    shape (n_train,)). On the ``anywhere`` set of motif_benchmark_2 (held-out auROC 0.51) the fit on
    all sequences took 9 passes (17,977 coordinate visits) from it instead of 11 (21,525) with
    the held-out rows at 0."""
    sign = np.where(y[test] == held.classes_[1], 1.0, -1.0)
    alpha = np.zeros(len(y))
    alpha[train] = np.abs(held.dual_coef_)
    alpha[test] = np.where(sign * decision < 1.0, float(held.C), 0.0)
    return alpha


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


def split_seed(random_state) -> int:
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
