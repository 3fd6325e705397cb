"""Stratified K-fold cross-validation of the models ``seqimp train`` fits (WD/WDS, gkm): every
sequence scored once by the model of the folds it was held out of, as ``gkmtrain -x`` does
(``seqimp train --cv K``)."""

from __future__ import annotations

import logging
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from .._utils.progress import progress_bar
from ..errors import SeqimpError
from ..io._check import check_sequences
from ..options import ModelOptions, SolverOptions
from ._classifier import recorded_seed, split_seed
from ._gkm import GKM_TOL
from ._predict import classification_metrics
from ._ragged import RaggedSequences

__all__ = ["CrossValidation", "cross_validate", "check_folds", "CV_COLUMNS"]

logger = logging.getLogger(__name__)

#: The columns of ``cvpred.tsv``: one row per sequence in input order (gkmtrain -x's cvpred file).
CV_COLUMNS = ["id", "fold", "label", "score"]


@dataclass
class CrossValidation:
    """What :func:`cross_validate` found.

    Attributes
    ----------
    predictions : pandas.DataFrame
        One row per sequence, in input order: ``id``, ``fold`` (1-based: the fold it was held
        out in), ``label`` (1 positive, 0 negative), ``score`` (the decision value of the
        model trained on the other folds).
    folds : pandas.DataFrame
        One row per fold: ``fold``, ``n_train``, ``n_test``, ``n_positive``, ``n_negative``
        (of the held-out sequences), ``auroc``, ``auprc``.
    parameters : dict
        ``folds``, ``shuffle``, ``seed`` (recorded), ``kind`` and the model's options.
    """

    predictions: pd.DataFrame
    folds: pd.DataFrame
    parameters: dict = field(default_factory=dict)

    @property
    def mean_auroc(self) -> float:
        """Mean of the folds' auROC."""
        return float(self.folds["auroc"].mean())

    @property
    def mean_auprc(self) -> float:
        """Mean of the folds' auPRC (average precision)."""
        return float(self.folds["auprc"].mean())

    def summary(self) -> dict:
        """What the JSON beside the model records: the parameters, per-fold and mean figures."""
        return {**self.parameters, "per_fold": self.folds.to_dict("records"),
                "mean_auroc": self.mean_auroc, "sd_auroc": float(self.folds["auroc"].std(ddof=0)),
                "mean_auprc": self.mean_auprc, "sd_auprc": float(self.folds["auprc"].std(ddof=0))}

    def __repr__(self) -> str:
        return (f"CrossValidation(folds={len(self.folds)}, sequences={len(self.predictions)}, "
                f"mean_auroc={self.mean_auroc:.4f}, mean_auprc={self.mean_auprc:.4f})")


def check_folds(folds, y, name="folds") -> int:
    """``folds`` as an int, or a SeqimpError (one line naming ``name``): fewer than 2, or more
    than the sequences of the smaller class (each fold holds out sequences of both classes)."""
    if isinstance(folds, bool) or not isinstance(folds, (int, np.integer)) or folds < 2:
        raise SeqimpError(f"{name} {folds}: cross-validation needs at least 2 folds")
    y = np.asarray(y)
    smaller = int(min((y == 1).sum(), (y == 0).sum()))
    if folds > smaller:
        which = "positive" if (y == 1).sum() <= (y == 0).sum() else "negative"
        raise SeqimpError(f"{name} {folds}: more folds than the {smaller} {which} sequences; every fold needs "
                          f"sequences of both classes (at most {name} {smaller})")
    return int(folds)


def cross_validate(X, y, *, folds=5, model=ModelOptions(), solver=SolverOptions(), random_state=None, ids=None,
                   progress=None, max_memory=None) -> CrossValidation:
    """Stratified K-fold cross-validation of a WD/WDS or gkm classifier.

    The sequences are split by :class:`sklearn.model_selection.StratifiedKFold` (``shuffle=True``,
    seeded by ``random_state``): each fold's class balance is within one sequence of the whole's.
    For each fold a model with the options of ``seqimp train`` is fitted on the other folds and
    scores the held-out ones.

    Parameters
    ----------
    X : list of str, SequenceSet or ndarray of shape (n, L)
        The sequences (DNA for the gkm model).
    y : array-like of shape (n,)
        0/1 labels, 1 the positive class.
    folds : int, default=5
        K, from 2 to the size of the smaller class.
    model : ModelOptions
        ``kind`` ``"gkm"`` (``word_length``, ``informative``, ``C``) or the WD/WDS model
        (``degree``, ``shifts``, ``C``; ``kind`` ``"wd"``, ``"wds"`` or ``"auto"``);
        ``test_fraction`` does not apply (every sequence is held out once).
    solver : SolverOptions
        The WD SVM's solver (shifts 0), as for :func:`~seqimp.training.train_model`.
    random_state : int or None
        The folds and the solver (None: the fixed seed 0); recorded.
    ids : list of str, optional
        One per sequence (default: the set's ids, else ``seq1, ...``).
    progress : bool or None
        A bar counting the folds.
    max_memory : int or str, optional
        Each WD fit's memory budget (``WDClassifier(memory_budget=...)``).

    Returns
    -------
    CrossValidation
        ``predictions`` (n rows: id, fold, label, score, in input order), ``folds`` (K rows),
        ``parameters``.
    """
    from sklearn.model_selection import StratifiedKFold

    alphabet = "dna" if model.kind == "gkm" else (model.alphabet or getattr(getattr(X, "alphabet", None), "name",
                                                                            "dna"))
    if ids is None:
        ids = getattr(X, "ids", None)
    # the gkm model is position-free: sequences of different lengths stay as they are
    codes = X if model.kind == "gkm" and isinstance(X, RaggedSequences) else check_sequences(X, "X", alphabet, unknown=True)
    y = np.asarray(y)
    if y.shape != (len(codes),) or not np.isin(y, (0, 1)).all():
        raise SeqimpError(f"y: {len(codes)} labels of 0 and 1 expected, got shape {y.shape}")
    y = y.astype(np.int64)
    folds = check_folds(folds, y)
    ids = [f"seq{i + 1}" for i in range(len(y))] if ids is None else list(ids)
    seed = split_seed(random_state)
    fold_of = np.zeros(len(y), dtype=np.int64)
    scores = np.zeros(len(y))
    rows = []
    kind = "gkm" if model.kind == "gkm" else ("wds" if model.shifts else "wd")
    splitter = StratifiedKFold(n_splits=folds, shuffle=True, random_state=seed)
    with progress_bar(folds, f"{folds}-fold cross-validation", enabled=progress) as bar:
        for i, (train, test) in enumerate(splitter.split(codes, y), start=1):
            fitted = _fit(codes[train], y[train], kind, model, solver, random_state, alphabet, max_memory)
            scores[test] = fitted.decision_function(codes[test])
            fold_of[test] = i
            figures = classification_metrics(scores[test], y[test])
            rows.append({"fold": i, "n_train": int(len(train)), "n_test": int(len(test)),
                         "n_positive": figures["n_positive"], "n_negative": figures["n_negative"],
                         "auroc": figures["auroc"], "auprc": figures["auprc"]})
            logger.info(f"cross-validation fold {i}/{folds}: auROC {figures['auroc']:.4f}, auPRC "
                        f"{figures['auprc']:.4f} on {len(test)} held-out sequences")
            bar.update()
    options = ({"word_length": model.word_length, "informative": model.informative, "C": model.C} if kind == "gkm"
               else {"degree": model.degree, "shifts": model.shifts, "C": model.C, **solver.params()})
    parameters = {"folds": folds, "shuffle": True, "seed": recorded_seed(random_state), "kind": kind,
                  "options": options, "n": int(len(y)), "n_positive": int(y.sum()),
                  "n_negative": int(len(y) - y.sum())}
    result = CrossValidation(pd.DataFrame({"id": ids, "fold": fold_of, "label": y, "score": scores}),
                             pd.DataFrame(rows), parameters)
    logger.info(f"{folds}-fold cross-validation: mean auROC {result.mean_auroc:.4f}, mean auPRC "
                f"{result.mean_auprc:.4f}")
    return result


def _fit(X, y, kind, model, solver, random_state, alphabet, max_memory):
    """The classifier ``seqimp train`` fits, on one fold's training sequences."""
    if kind == "gkm":
        from ..kernels import GKMClassifier

        return GKMClassifier(model.word_length, model.informative, C=model.C, tol=GKM_TOL,
                             random_state=recorded_seed(random_state)).fit(X, y, alpha_init=np.full(len(y), model.C))
    from ..kernels import WDClassifier

    if model.shifts and solver != SolverOptions():
        raise SeqimpError(f"solver options ({', '.join(f'{k}={v!r}' for k, v in solver.params().items())}) are the "
                          f"WD SVM's (shifts 0); shifts {model.shifts} trains the WDS kernel route (libsvm)")
    return WDClassifier(degree=model.degree, shifts=model.shifts, C=model.C, random_state=random_state,
                        alphabet=alphabet, verbose=False, memory_budget=max_memory, **solver.params()).fit(X, y)
