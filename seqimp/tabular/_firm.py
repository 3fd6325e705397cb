"""FIRM, the Feature Importance Ranking Measure, for real-valued and binary features.

Zien, Krämer, Sonnenburg & Rätsch (ECML 2009). For a score ``s`` and a feature
``f``, the conditional expected score is ``q_f(t) = E[s(X) | f(X) = t]`` and
FIRM is its standard deviation ``Q_f = sd(q_f(f(X)))`` (Definitions 1 and 2).

Estimators (``method``):

``gaussian``
    linear score ``s(x) = w.x + b`` and Gaussian inputs: ``q_j(t)`` is linear
    with slope ``(Sigma w)_j / Sigma_jj`` and ``Q = D^-1 Sigma w`` (eq. 12),
    with ``D = diag(Sigma)^(1/2)`` and a shrinkage or empirical covariance.
``taylor``
    any differentiable score, Gaussian inputs, first-order expansion at the
    mean (eq. 9): ``Q_j = Sigma_j. grad s(mu) / sqrt(Sigma_jj)``. The gradient is
    analytic for linear models and kernel SVMs, numerical otherwise.
``slope``
    any feature function: the least-squares slope of ``s(X)`` on ``f(X)`` times
    ``sd(f(X))`` (the paper's "more reliably estimated slope").
``binned``
    any feature function: ``q_f`` as mean scores in quantile bins of ``f`` (or
    in its distinct values when there are at most ``n_bins``); ``Q_f`` is their
    weighted standard deviation, the direct estimate of Definition 2.
``binary``
    two-valued features ``a < b``: ``Q_f = (q_b - q_a) sqrt(p_a p_b)`` (eq. 10),
    exact for the empirical distribution.

The signed methods (gaussian, taylor, slope, binary) keep the direction of the
effect, as eq. 10 and eq. 12 do; eq. 9 and Definition 2 are their absolute values.
Expectations and probabilities are over the rows of ``X`` (the empirical
distribution), ``ddof=0`` throughout.
"""

from __future__ import annotations

import warnings

import numpy as np
from sklearn.utils import Bunch
from ._result import FIRMResult

from ..errors import SeqimpError
from ._features import Feature as _Feature
from ._features import feature_indicator, feature_product
from ._gradients import analytic_gradient, linear_weights, numerical_gradient
from ..errors import check_choice, check_int
from ._tabdata import as_matrix, column_index, score_function

__all__ = ["firm", "feature_product", "feature_indicator"]

_METHODS = ("auto", "gaussian", "taylor", "slope", "binned", "binary")

#: Warned when ``taylor`` is used for a score that is not linear in the features; the figures are
#: printed by ``python scripts/reproduce_firm_tabular.py`` (docs/tabular.md, "Which estimator").
TAYLOR_WARNING = ("firm: method='taylor' expands the score to first order at the mean of X, exact only for "
                  "models linear in the features; {model} is not a linear model with coef_, and for non-linear "
                  "models it can be far off (RBF SVM on the paper's Gaussian example: 126-187% off the exact "
                  "FIRM, method='binned' 0-5%); "
                  "prefer method='binned' (the default for such models)")
_COORD_ONLY = ("gaussian", "taylor")


def firm(
    model_or_fn,
    X,
    *,
    features=None,
    method="auto",
    covariance="shrinkage",
    standardize=False,
    n_bins=10,
    n_points=50,
    gradient="auto",
):
    """Feature Importance Ranking Measure of a fitted model for features of ``X``.

    Parameters
    ----------
    model_or_fn : fitted estimator, callable, or array of shape (n_samples,)
        The score ``s``: a regressor's ``predict``, a binary classifier's
        ``decision_function`` (else probability of ``classes_[1]``), a callable
        ``s(X)``, or the scores themselves (e.g. the labels; then only the
        data-based methods slope, binned and binary apply).
    X : array-like or DataFrame of shape (n_samples, n_features)
        Samples representing the input distribution.
    features : None, list or dict
        ``None``: every column. Items: a column index or DataFrame name
        (coordinate), a tuple of columns (their product), a callable
        ``f(X) -> (n_samples,)`` on the float matrix, or
        :func:`feature_product` / :func:`feature_indicator`. A dict maps names
        to items.
    method : {"auto", "gaussian", "taylor", "slope", "binned", "binary"}
        See the module docstring. ``auto`` picks, per feature: ``binary`` for a
        two-valued feature, ``gaussian`` for a coordinate of a linear model,
        ``binned`` for a coordinate of any other model or callable (``taylor`` is
        exact only for linear scores and warns otherwise), else ``slope``.
    covariance : {"shrinkage", "empirical"} or array of shape (n_features, n_features)
        ``Sigma`` for gaussian/taylor: Ledoit-Wolf shrinkage
        (:class:`sklearn.covariance.LedoitWolf`) of the correlations, applied
        to standardised columns so that variances are kept and the result does
        not depend on feature units; the sample covariance (``ddof=0``); or a
        known matrix.
    standardize : bool
        Divide importances by ``sqrt(Var[s(X)])`` (``w' Sigma w`` for gaussian,
        the variance of the scores otherwise) so that models compare.
    n_bins : int
        Bins of the binned estimator.
    n_points : int
        Grid points of the q_f(t) curves of gaussian, taylor and slope.
    gradient : {"auto", "analytic", "numerical"}
        Gradient for taylor; ``analytic`` fails for models without one.

    Returns
    -------
    result : FIRMResult (a sklearn.utils.Bunch)
        importances : ndarray of shape (n_selected,)
            FIRM ``Q_f`` of each requested feature (standardized if asked).
        importances_mean : ndarray of shape (n_selected,)
            The same vector, under the name every tabular method uses for its 1-D importances
            (permutation and sensitivity importance and RFI have repeats: their ``importances``
            is (n_features, n_repeats)).
        importances_std : ndarray of shape (n_selected,)
            Zeros: FIRM is computed once from all rows of ``X``, with no random repeats to
            vary over. The key is kept so that every tabular result has the
            ``importances_mean`` / ``importances_std`` of
            :func:`sklearn.inspection.permutation_importance`.
        feature_names : ndarray of shape (n_selected,)
            The name of each requested feature.
        methods : ndarray of shape (n_selected,)
            The estimator used for each feature.
        curves : list of n_selected Bunch(t, q, weight)
            ``q_f(t)`` at points ``t`` (each of shape (n_points_f,)); ``weight``
            is the fraction of samples per point for binned/binary, else NaN.
            In score units (never standardized).
        feature_values : ndarray of shape (n_samples, n_selected)
            The values of each requested feature on the rows of ``X``.
        scores : ndarray of shape (n_samples,)
            The score ``s(x)`` of each row of ``X``.
        score_std : float
            ``sqrt(Var[s(X)])`` used by ``standardize``.
        covariance : ndarray of shape (n_features, n_features) or None
            The covariance the gaussian and taylor methods used; None when no feature uses them.
        gradient : ndarray of shape (n_features,) or None
            ``grad s`` at the mean of X (taylor) or ``w`` (gaussian).
    """
    frame = X
    X, names = as_matrix(X)
    n, d = X.shape
    method = check_choice(method, "method", _METHODS)
    gradient = check_choice(gradient, "gradient", ("auto", "analytic", "numerical"))
    n_bins = check_int(n_bins, "n_bins")
    n_points = check_int(n_points, "n_points")
    feats = _resolve_features(features, names, d)
    values = np.column_stack([_feature_values(f, X) for f in feats])

    score, scores = _scores(model_or_fn, X, frame)
    weights = None if score is None else linear_weights(model_or_fn, d)
    nonlinear = score is not None and weights is None
    methods = [_pick(method, f, values[:, i], weights, nonlinear) for i, f in enumerate(feats)]
    if nonlinear and "taylor" in methods:
        warnings.warn(TAYLOR_WARNING.format(model=type(model_or_fn).__name__), UserWarning, stacklevel=2)

    for f, m in zip(feats, methods):
        if m in _COORD_ONLY and f.column is None:
            raise SeqimpError(f"method={m!r}: feature {f.name} is not a coordinate; use 'slope' or 'binned'")
        if m in _COORD_ONLY and score is None:
            raise SeqimpError(f"method={m!r}: needs a model or callable, not precomputed scores")
        if m == "gaussian" and weights is None:
            raise SeqimpError(
                f"method='gaussian': {type(model_or_fn).__name__} is not a linear model with coef_; use 'taylor'"
            )

    cov = grad = None
    mu = X.mean(axis=0)
    if any(m in _COORD_ONLY for m in methods):
        cov = _covariance(covariance, X)
        if any(m == "taylor" for m in methods):
            grad = _gradient(model_or_fn, score, gradient, mu, X)
        else:
            grad = weights
    score_var = float(np.var(scores))
    if methods and all(m == "gaussian" for m in methods):
        score_var = float(weights @ cov @ weights)
    score_std = float(np.sqrt(score_var))

    importances = np.empty(len(feats))
    curves = []
    for i, (f, m) in enumerate(zip(feats, methods)):
        t_values = values[:, i]
        if m in _COORD_ONLY:
            q_val, curve = _gaussian_line(score, cov, grad, mu, f.column, t_values, m == "taylor", n_points)
        else:
            q_val, curve = _DATA_METHODS[m](t_values, scores, n_bins, n_points, f.name)
        importances[i] = q_val
        curves.append(curve)
    if standardize:
        if score_std == 0:
            raise SeqimpError("standardize: the score is constant on X, so its variance is zero")
        importances = importances / score_std
    return FIRMResult(
        importances=importances,
        importances_mean=importances,  # the 1-D vector every tabular method returns under this name
        importances_std=np.zeros(len(feats)),  # no repeats (the docstring says why)
        feature_names=np.array([f.name for f in feats], dtype=object),
        methods=np.array(methods, dtype=object),
        curves=curves,
        feature_values=values,
        scores=scores,
        score_std=score_std,
        covariance=cov,
        gradient=grad,
    )


def _resolve_features(features, names, d):
    if features is None:
        return [_Feature(names[j], None, j) for j in range(d)]
    items = list(features.items()) if isinstance(features, dict) else [(None, f) for f in features]
    if not items:
        raise SeqimpError("features: must name at least one feature")
    out = []
    for k, (label, item) in enumerate(items):
        where = f"features[{label if label is not None else k}]"
        if isinstance(item, _Feature):
            f = _Feature(item.name, item.fn, item.column)
        elif isinstance(item, tuple):
            cols = [column_index(c, names, d, where) for c in item]
            f = _Feature("*".join(names[cols]), lambda X, c=cols: np.prod(X[:, c], axis=1))
        elif callable(item):
            f = _Feature(getattr(item, "__name__", f"f{k + 1}"), item)
        else:
            j = column_index(item, names, d, where)
            f = _Feature(names[j], None, j)
        if label is not None:
            f.name = str(label)
        out.append(f)
    return out


def _feature_values(f, X):
    if f.column is not None and f.fn is None:
        return X[:, f.column]
    v = np.asarray(f(X), dtype=float)
    if v.shape != (X.shape[0],) or not np.all(np.isfinite(v)):
        raise SeqimpError(f"feature {f.name}: must return {X.shape[0]} finite values, got shape {v.shape}")
    return v


def _scores(model_or_fn, X, frame):
    """``(score function or None, scores on X)``."""
    if isinstance(model_or_fn, (np.ndarray, list)) or hasattr(model_or_fn, "to_numpy") and not callable(model_or_fn):
        s = np.asarray(model_or_fn.to_numpy() if hasattr(model_or_fn, "to_numpy") else model_or_fn, dtype=float)
        if s.shape != (X.shape[0],) or not np.all(np.isfinite(s)):
            raise SeqimpError(f"model_or_fn: precomputed scores must be {X.shape[0]} finite numbers, got shape {s.shape}")
        return None, s
    score = score_function(model_or_fn, frame=frame)
    return score, score(X)


def _pick(method, f, v, weights, nonlinear):
    if method != "auto":
        return method
    if len(np.unique(v)) == 2:
        return "binary"
    if f.column is not None and weights is not None:
        return "gaussian"
    if f.column is not None and nonlinear:
        return "binned"
    return "slope"


def _covariance(covariance, X):
    d = X.shape[1]
    if isinstance(covariance, str):
        check_choice(covariance, "covariance", ("shrinkage", "empirical"))
        if covariance == "empirical":
            return np.atleast_2d(np.cov(X, rowvar=False, bias=True))
        from sklearn.covariance import LedoitWolf

        # Ledoit-Wolf on standardised columns shrinks the correlations towards 0 and keeps the
        # variances (the diagonal target of Schaefer & Strimmer), so FIRM stays unit-free;
        # on raw columns the target mu*I would pull every variance towards their mean.
        sd = X.std(axis=0)
        if np.any(sd == 0):
            raise SeqimpError(f"X: feature {int(np.argmin(sd)) + 1} is constant, so its covariance cannot be estimated")
        return LedoitWolf().fit(X / sd).covariance_ * np.outer(sd, sd)
    cov = np.asarray(covariance, dtype=float)
    if cov.shape != (d, d) or not np.allclose(cov, cov.T) or np.any(np.diag(cov) <= 0):
        raise SeqimpError(f"covariance: expected a symmetric ({d}, {d}) matrix with positive diagonal")
    return cov


def _gradient(model, score, how, mu, X):
    d = X.shape[1]
    if how != "numerical":
        g = analytic_gradient(model, mu, d)
        if g is not None:
            return np.asarray(g, dtype=float)
        if how == "analytic":
            raise SeqimpError(f"gradient='analytic': no analytic gradient for {type(model).__name__}")
    return numerical_gradient(score, mu, 1e-4 * X.std(axis=0))


def _grid(v, n_points):
    lo, hi = np.quantile(v, [0.01, 0.99])
    if lo == hi:
        lo, hi = v.min(), v.max()
    return np.linspace(lo, hi, n_points)


def _gaussian_line(score, cov, grad, mu, j, v, evaluate, n_points):
    """FIRM of coordinate j under N(mu, cov); curve by s(E[X | x_j = t]) (taylor) or linearly."""
    direction = cov[:, j] / cov[j, j]
    q = float(cov[:, j] @ grad / np.sqrt(cov[j, j]))
    t = _grid(v, n_points)
    if evaluate:
        qt = score(mu[None, :] + (t - mu[j])[:, None] * direction[None, :])
    else:
        qt = score(mu[None, :]) + (t - mu[j]) * float(direction @ grad)
    return q, Bunch(t=t, q=np.asarray(qt, float), weight=np.full(len(t), np.nan))


def _slope(v, s, n_bins, n_points, name):
    sd = v.std()
    if sd == 0:
        raise SeqimpError(f"feature {name}: constant on X, so its importance is undefined")
    beta = float(np.mean((v - v.mean()) * (s - s.mean())) / sd**2)
    t = _grid(v, n_points)
    return beta * sd, Bunch(t=t, q=s.mean() + beta * (t - v.mean()), weight=np.full(len(t), np.nan))


def _binned(v, s, n_bins, n_points, name):
    uniq = np.unique(v)
    if len(uniq) <= n_bins:
        codes = np.searchsorted(uniq, v)
    else:
        edges = np.unique(np.quantile(v, np.linspace(0, 1, n_bins + 1)[1:-1]))
        codes = np.searchsorted(edges, v, side="right")
    k = codes.max() + 1
    counts = np.bincount(codes, minlength=k).astype(float)
    used = counts > 0
    t = (np.bincount(codes, v, k)[used]) / counts[used]
    q = (np.bincount(codes, s, k)[used]) / counts[used]
    p = counts[used] / len(v)
    return float(np.sqrt(np.sum(p * (q - p @ q) ** 2))), Bunch(t=t, q=q, weight=p)


def _binary(v, s, n_bins, n_points, name):
    uniq = np.unique(v)
    if len(uniq) != 2:
        raise SeqimpError(f"method='binary': feature {name} takes {len(uniq)} distinct values, not 2")
    hi = v == uniq[1]
    p_b = hi.mean()
    q_a, q_b = s[~hi].mean(), s[hi].mean()
    curve = Bunch(t=uniq.astype(float), q=np.array([q_a, q_b]), weight=np.array([1 - p_b, p_b]))
    return float((q_b - q_a) * np.sqrt(p_b * (1 - p_b))), curve


_DATA_METHODS = {"slope": _slope, "binned": _binned, "binary": _binary}
