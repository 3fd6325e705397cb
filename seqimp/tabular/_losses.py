"""Loss functions of permutation importance (private).

Each loss knows which prediction it needs (``predict``, ``predict_proba`` or a
real-valued score) and, when it is a mean over samples, its per-sample terms,
so that exact ``all_pairs`` sums can be accumulated batch by batch.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Optional

import numpy as np

from ..errors import SeqimpError
from ._tabdata import framed, score_function

__all__ = ["Loss", "make_loss", "LOSS_NAMES"]

LOSS_NAMES = ("mse", "mae", "log_loss", "zero_one", "1-auc")
_EPS = 1e-15


@dataclass
class Loss:
    """A loss ``L(y, prediction)``: ``per_sample`` (or ``None``) and ``total``."""

    name: str
    predict: Callable  # X -> predictions
    per_sample: Optional[Callable]  # (y, pred) -> (n,) terms whose mean is the loss
    total: Callable  # (y, pred) -> float

    def __call__(self, y, pred):
        return float(self.total(y, pred))


def _mean_of(terms):
    return lambda y, pred: float(np.mean(terms(y, pred)))


def make_loss(loss, estimator, y, frame=None):
    """Build the :class:`Loss` for ``loss`` applied to ``estimator``.

    ``estimator`` may be a fitted scikit-learn estimator or a callable
    ``f(X)`` returning the predictions that the loss expects; ``frame`` is the
    user's DataFrame, if any, whose columns a DataFrame-fitted model receives.
    """
    plain = callable(estimator) and not hasattr(estimator, "predict")
    if not plain and not hasattr(estimator, "predict"):
        raise SeqimpError(f"estimator: expected a fitted estimator with predict or a callable, got {type(estimator).__name__}")

    def method(name):
        if plain:
            return lambda X: np.asarray(estimator(X))
        if not hasattr(estimator, name):
            raise SeqimpError(f"loss={loss!r}: estimator {type(estimator).__name__} has no {name}()")
        return framed(getattr(estimator, name), estimator, frame)

    if callable(loss):
        predict = method("predict")
        return Loss(getattr(loss, "__name__", "loss"), predict, None, lambda yy, p: float(loss(yy, p)))
    if loss == "mse":
        terms = lambda yy, p: (np.asarray(yy, float) - np.ravel(p)) ** 2  # noqa: E731
        return Loss(loss, method("predict"), terms, _mean_of(terms))
    if loss == "mae":
        terms = lambda yy, p: np.abs(np.asarray(yy, float) - np.ravel(p))  # noqa: E731
        return Loss(loss, method("predict"), terms, _mean_of(terms))
    if loss == "zero_one":
        terms = lambda yy, p: (np.asarray(yy) != np.ravel(p)).astype(float)  # noqa: E731
        return Loss(loss, method("predict"), terms, _mean_of(terms))
    if loss == "log_loss":
        classes = getattr(estimator, "classes_", None)
        classes = np.unique(y) if classes is None else np.asarray(classes)
        codes = np.searchsorted(classes, y)
        if np.any(codes >= len(classes)) or np.any(classes[np.minimum(codes, len(classes) - 1)] != y):
            raise SeqimpError("y: contains labels that are not among the estimator's classes_")

        def terms(yy, p):
            p = np.asarray(p, float)
            if p.ndim == 1:  # probability of classes[1]
                p = np.column_stack([1 - p, p])
            idx = np.searchsorted(classes, yy)
            return -np.log(np.clip(p[np.arange(len(idx)), idx], _EPS, 1.0))

        return Loss(loss, method("predict_proba"), terms, _mean_of(terms))
    if loss == "1-auc":
        from sklearn.metrics import roc_auc_score

        if len(np.unique(y)) != 2:
            raise SeqimpError("loss='1-auc': y must have exactly two classes")
        predict = (lambda X: np.asarray(estimator(X), float)) if plain else score_function(estimator, "estimator", frame)
        return Loss(loss, predict, None, lambda yy, p: 1.0 - roc_auc_score(yy, np.ravel(p)))
    raise SeqimpError(f"loss: must be one of {', '.join(map(repr, LOSS_NAMES))} or a callable, got {loss!r}")
