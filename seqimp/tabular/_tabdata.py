"""Input handling shared by the tabular importance methods (private).

Conversion of ``X`` (array or DataFrame) to a float matrix plus feature names,
and of a fitted model or callable to a real-valued score function. Integer,
choice and random-state checks are :mod:`seqimp.errors`' (independent streams per
feature: ``check_random_state(random_state).spawn(k)``).
"""

from __future__ import annotations

import numbers

import numpy as np

from ..errors import SeqimpError

__all__ = [
    "as_matrix",
    "column_index",
    "framed",
    "as_vector",
    "score_function",
    "t_interval",
]


def as_matrix(X, name="X"):
    """Return ``(array of shape (n_samples, n_features), feature_names)``.

    DataFrame columns give the names; otherwise ``x1, x2, ...`` (1-based, for people).
    """
    names = None
    if hasattr(X, "columns") and hasattr(X, "to_numpy"):
        names = np.array([str(c) for c in X.columns], dtype=object)
        try:
            X = X.to_numpy(dtype=float)
        except (TypeError, ValueError) as exc:
            raise SeqimpError(f"{name}: every column must be numeric ({exc})") from None
    try:
        X = np.asarray(X, dtype=float)
    except (TypeError, ValueError) as exc:
        raise SeqimpError(f"{name}: cannot convert to a float matrix ({exc})") from None
    if X.size == 0:
        raise SeqimpError(f"{name}: no samples (empty, shape {X.shape}); expected (n_samples, n_features)")
    if X.ndim != 2:
        raise SeqimpError(f"{name}: expected a 2-D array (n_samples, n_features), got shape {X.shape}")
    if X.shape[0] < 2 or X.shape[1] < 1:
        raise SeqimpError(f"{name}: need at least 2 samples and 1 feature, got shape {X.shape}")
    if not np.all(np.isfinite(X)):
        bad = np.argwhere(~np.isfinite(X))[0]
        raise SeqimpError(f"{name}: non-finite value at row {bad[0] + 1}, column {bad[1] + 1}")
    if names is None:
        names = np.array([f"x{j + 1}" for j in range(X.shape[1])], dtype=object)
    return X, names


def as_vector(y, n_samples, name="y", *, numeric=True):
    """Return ``y`` as a 1-D array of length ``n_samples``."""
    y = np.asarray(y.to_numpy() if hasattr(y, "to_numpy") else y)
    if y.ndim == 2 and y.shape[1] == 1:
        y = y[:, 0]
    if y.ndim != 1 or y.shape[0] != n_samples:
        raise SeqimpError(f"{name}: expected shape ({n_samples},) matching X, got {y.shape}")
    if numeric:
        try:
            y = y.astype(float)
        except (TypeError, ValueError):
            raise SeqimpError(f"{name}: must be numeric") from None
        if not np.all(np.isfinite(y)):
            raise SeqimpError(f"{name}: non-finite value at position {int(np.argmax(~np.isfinite(y))) + 1}")
    return y


def framed(method, model, X):
    """Wrap ``method`` so that it receives a DataFrame with ``X``'s columns.

    Used when ``X`` is a DataFrame and ``model`` was fitted on one (it has
    ``feature_names_in_``), so scikit-learn sees the names it was fitted with.
    """
    if not (hasattr(X, "columns") and hasattr(model, "feature_names_in_")):
        return method
    import pandas as pd

    columns = X.columns

    def call(A):
        return method(pd.DataFrame(A, columns=columns))

    return call


def _is_regressor(model):
    return getattr(model, "_estimator_type", None) == "regressor" or (
        hasattr(model, "__sklearn_tags__") and getattr(model.__sklearn_tags__(), "estimator_type", None) == "regressor"
    )


def score_function(model_or_fn, name="model_or_fn", frame=None):
    """Real-valued score ``s(X) -> (n_samples,)`` of a fitted model or callable.

    Regressors use ``predict``; classifiers ``decision_function`` (binary only),
    else the probability of ``classes_[1]``; a plain callable is used as is.
    ``frame``: the user's DataFrame, if any (see :func:`framed`).
    """
    model = model_or_fn
    if hasattr(model, "predict") or hasattr(model, "decision_function"):
        if _is_regressor(model) or not (hasattr(model, "decision_function") or hasattr(model, "predict_proba")):
            method = model.predict
        elif hasattr(model, "decision_function"):
            method = model.decision_function
        else:
            classes = getattr(model, "classes_", None)
            if classes is not None and len(classes) != 2:
                raise SeqimpError(f"{name}: a score needs a regressor or a binary classifier, got {len(classes)} classes")
            proba = framed(model.predict_proba, model, frame)
            return lambda X: np.asarray(proba(X), dtype=float)[:, 1]
    elif callable(model):
        method = model
    else:
        raise SeqimpError(f"{name}: expected a fitted estimator or a callable, got {type(model).__name__}")
    method = framed(method, model, frame)

    def score(X):
        s = np.asarray(method(X), dtype=float)
        if s.ndim == 2 and s.shape[1] == 1:
            s = s[:, 0]
        if s.ndim != 1 or s.shape[0] != X.shape[0]:
            raise SeqimpError(f"{name}: the score must be one real number per sample, got shape {s.shape}")
        return s

    return score


def column_index(ref, names, d, where):
    """0-based index of a column given by index or by name; ``where`` names the argument in errors."""
    if isinstance(ref, (numbers.Integral, np.integer)) and not isinstance(ref, (bool, np.bool_)):
        if not 0 <= ref < d:
            raise SeqimpError(f"{where}: column index {ref} out of range for {d} features")
        return int(ref)
    hits = np.flatnonzero(names == str(ref))
    if len(hits) != 1:
        raise SeqimpError(f"{where}: unknown column {str(ref)!r}")
    return int(hits[0])


def t_interval(samples, confidence):
    """Student-t confidence interval of the mean over the last axis.

    Returns ``(low, high)``; NaN where there is only one sample.
    """
    from scipy import stats

    samples = np.asarray(samples, dtype=float)
    r = samples.shape[-1]
    mean = samples.mean(axis=-1)
    if r < 2:
        nan = np.full(mean.shape, np.nan)
        return nan, nan.copy()
    half = stats.t.ppf(0.5 + confidence / 2, r - 1) * samples.std(axis=-1, ddof=1) / np.sqrt(r)
    return mean - half, mean + half
