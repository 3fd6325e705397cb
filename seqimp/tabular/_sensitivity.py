"""Sensitivity importance of input variables (Huh & Lee).

``pairs`` (the paper's §2): for every row ``i`` the model is evaluated twice
with ``x_j`` replaced by two values drawn at random from the column,
``d_i = f(x_i; x_j*) - f(x_i; x_j**)``; ``D_j = mean |d_i|``, and the importance is
``Imp(X_j) = D_j / D_y`` where ``D_y`` is the mean absolute difference of
``N = 10 n`` random pairs of outputs. For a linear model with Gaussian inputs
and output this is the standardized coefficient ``|w_j| sd(x_j) / sd(y)``.

``range`` (SPSS Clementine, the paper's §5): ``x_j`` is set to five equally
spaced values over its range (every level, for a categorical input); ``d_i`` is
the largest minus the smallest output of row ``i``, ``D_j = mean d_i``, and the
importance is ``D_j / (max y - min y)``.
"""

from __future__ import annotations

import numpy as np
from ._result import SensitivityResult

from ..errors import SeqimpError
from ..errors import check_choice, check_int, check_random_state
from ._tabdata import as_matrix, as_vector, column_index, score_function

__all__ = ["sensitivity_importance"]


def sensitivity_importance(
    model_or_fn,
    X,
    y=None,
    *,
    variant="pairs",
    n_repeats=10,
    random_state=None,
    categorical_features=None,
    n_levels=5,
    n_pairs_y=None,
):
    """Huh & Lee's sensitivity importance ``Imp(X_j) = D_j / D_y``.

    Parameters
    ----------
    model_or_fn : fitted estimator or callable
        A regressor's ``predict``, a binary classifier's decision function (else
        probability of ``classes_[1]``), or a callable ``f(X) -> (n_samples,)``.
    X : array-like or DataFrame of shape (n_samples, n_features)
    y : array-like of shape (n_samples,), optional
        Observed outputs for ``D_y``; without it the model's outputs on ``X`` are used.
    variant : {"pairs", "range"}
        Random pairs of substituted values (Huh & Lee), or the deterministic
        Clementine max-difference over levels divided by the range of ``y``.
    n_repeats : int
        Repeats of the random substitution; ``range`` is computed once and repeated.
    random_state : None, int or numpy Generator
        Each feature draws from its own spawned stream; ``D_y`` from another
        (default None = fixed seed 0).
    categorical_features : None, sequence of column indices/names, or bool mask
        Columns whose levels are all their distinct values (``range`` only).
    n_levels : int
        Equally spaced values of a continuous input in ``range`` (5 in Clementine).
    n_pairs_y : int, optional
        Number ``N`` of random output pairs for ``D_y`` (default ``10 n``).

    Returns
    -------
    result : SensitivityResult (a sklearn.utils.Bunch)
        importances : ndarray of shape (n_features, n_repeats)
            ``Imp(X_j) = D_j / D_y`` of every repeat (``range``: one value, repeated).
        importances_mean, importances_std : ndarray of shape (n_features,)
            Mean and standard deviation over repeats (``ddof=0``, as scikit-learn; 0 for
            ``range``). The keys ``importances*`` are those of
            :func:`sklearn.inspection.permutation_importance`.
        d_y : float
            ``D_y`` (pairs) or ``max y - min y`` (range).
        d_features : ndarray of shape (n_features, n_repeats)
            ``D_j`` of every repeat.
        feature_names : ndarray of shape (n_features,)
            Column names (DataFrame) or ``x1..xd``.
        variant : str
            The variant the importances were computed with.
    """
    frame = X
    X, names = as_matrix(X)
    n, d = X.shape
    variant = check_choice(variant, "variant", ("pairs", "range"))
    n_repeats = check_int(n_repeats, "n_repeats")
    n_levels = check_int(n_levels, "n_levels")
    n_pairs_y = 10 * n if n_pairs_y is None else check_int(n_pairs_y, "n_pairs_y")
    if n_levels < 2:
        raise SeqimpError(f"n_levels: need at least 2 levels, got {n_levels}")
    score = score_function(model_or_fn, frame=frame)
    outputs = score(X) if y is None else as_vector(y, n)
    categorical = _categorical_mask(categorical_features, names, d)
    streams = check_random_state(random_state).spawn(d + 1)

    if variant == "pairs":
        rng_y = streams[-1]
        a, b = rng_y.integers(n, size=(2, n_pairs_y))
        d_y = float(np.mean(np.abs(outputs[a] - outputs[b])))
        dj = np.array([_pair_differences(score, X, j, streams[j], n_repeats) for j in range(d)])
    else:
        d_y = float(outputs.max() - outputs.min())
        dj = np.array([[_max_difference(score, X, j, categorical[j], n_levels)] * n_repeats for j in range(d)])
    if d_y == 0:
        raise SeqimpError("y: all outputs are equal, so D_y is zero and importances are undefined")
    imp = dj / d_y
    return SensitivityResult(
        importances=imp,
        importances_mean=imp.mean(axis=1),
        importances_std=imp.std(axis=1),
        d_y=d_y,
        d_features=dj,
        feature_names=names,
        variant=variant,
    )


def _categorical_mask(categorical, names, d):
    mask = np.zeros(d, dtype=bool)
    if categorical is None:
        return mask
    cat = np.asarray(categorical)
    if cat.dtype == bool:
        if cat.shape != (d,):
            raise SeqimpError(f"categorical_features: a boolean mask needs {d} entries, got {cat.shape}")
        return cat.copy()
    for ref in cat.ravel():
        mask[column_index(ref.item() if hasattr(ref, "item") else ref, names, d, "categorical_features")] = True
    return mask


def _pair_differences(score, X, j, rng, n_repeats):
    """``D_j`` for each repeat: mean |f(x_i; x_aj) - f(x_i; x_bj)| with a, b random rows."""
    n = len(X)
    out = np.empty(n_repeats)
    for r in range(n_repeats):
        a, b = rng.integers(n, size=(2, n))
        Xp = np.concatenate([X, X])
        Xp[:n, j] = X[a, j]
        Xp[n:, j] = X[b, j]
        s = score(Xp)
        out[r] = np.mean(np.abs(s[:n] - s[n:]))
    return out


def _max_difference(score, X, j, categorical, n_levels):
    """``D_j^max``: mean over rows of the spread of outputs over the levels of x_j."""
    levels = np.unique(X[:, j]) if categorical else np.linspace(X[:, j].min(), X[:, j].max(), n_levels)
    n = len(X)
    Xp = np.tile(X, (len(levels), 1))
    Xp[:, j] = np.repeat(levels, n)
    s = score(Xp).reshape(len(levels), n)
    return float(np.mean(s.max(axis=0) - s.min(axis=0)))
