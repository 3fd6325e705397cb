"""Regression metrics for models of measured values: held-out R^2 and Spearman correlation."""

from __future__ import annotations

import numpy as np

from ..errors import SeqimpError, check_number, check_random_state

__all__ = ["regression_metrics", "holdout_regression_metrics"]


def regression_metrics(y_true, y_pred) -> dict:
    """R^2 and Spearman's rank correlation of predictions against measured values.

    Returns
    -------
    dict
        ``n`` (int), ``r2`` (1 - SS_res / SS_tot; NaN when the values are constant),
        ``spearman`` and ``spearman_pvalue`` (:func:`scipy.stats.spearmanr`; NaN when either
        side is constant), ``pearson``.
    """
    from scipy.stats import spearmanr

    y = np.asarray(y_true, dtype=np.float64).ravel()
    p = np.asarray(y_pred, dtype=np.float64).ravel()
    if y.shape != p.shape:
        raise SeqimpError(f"regression_metrics: {y.size} values but {p.size} predictions")
    if y.size < 2:
        raise SeqimpError("regression_metrics: need at least 2 values")
    if not (np.isfinite(y).all() and np.isfinite(p).all()):
        raise SeqimpError("regression_metrics: values and predictions must be finite")
    ss_tot = float(((y - y.mean()) ** 2).sum())
    r2 = 1.0 - float(((y - p) ** 2).sum()) / ss_tot if ss_tot > 0 else float("nan")
    constant = np.ptp(y) == 0 or np.ptp(p) == 0
    if constant:
        rho = pval = pearson = float("nan")
    else:
        res = spearmanr(y, p)
        rho, pval = float(res.statistic), float(res.pvalue)
        pearson = float(np.corrcoef(y, p)[0, 1])
    return {"n": int(y.size), "r2": r2, "spearman": rho, "spearman_pvalue": pval, "pearson": pearson}


def holdout_regression_metrics(estimator, X, y, *, test_fraction=0.2, random_state=None) -> dict:
    """Fit a clone of ``estimator`` on a random (1 - test_fraction) of the rows; score the rest.

    Parameters
    ----------
    estimator : scikit-learn style regressor (e.g. :class:`seqimp.WDRegressor`)
    X : sequences the estimator accepts (list of str, SequenceSet, codes)
    y : array-like of shape (n,)
    test_fraction : float in (0, 1), default=0.2
    random_state : int, Generator or None (fixed default seed 0)

    Returns
    -------
    dict
        :func:`regression_metrics` of the held-out rows, plus ``n_train`` and ``n_test``.
    """
    from sklearn.base import clone

    frac = check_number(test_fraction, "test_fraction", low=0, high=1, low_open=True, high_open=True)
    y = np.asarray(y, dtype=np.float64)
    n = y.size
    n_test = int(round(frac * n))
    if n_test < 2 or n - n_test < 2:
        raise SeqimpError(f"holdout: {n} rows are too few for a test fraction of {frac:g}")
    perm = check_random_state(random_state).permutation(n)
    test, train = np.sort(perm[:n_test]), np.sort(perm[n_test:])
    codes = getattr(X, "codes", X)
    if isinstance(codes, np.ndarray):
        Xtr, Xte = codes[train], codes[test]
    else:
        Xtr, Xte = [X[i] for i in train], [X[i] for i in test]
    model = clone(estimator).fit(Xtr, y[train])
    out = regression_metrics(y[test], model.predict(Xte))
    out.update(n_train=int(train.size), n_test=int(test.size))
    return out
