"""The WD/WDS ridge regressor of measured values (``seqimp poim --table``): trained on a random
share of the rows, scored on the rest (R^2, Spearman), unfolded."""

from __future__ import annotations

import logging
import time

import numpy as np

from ..errors import SeqimpError, check_random_state
from ..options import ModelOptions

__all__ = ["train_regressor"]

logger = logging.getLogger(__name__)


def train_regressor(X, values, *, model=ModelOptions(), random_state=None, progress=False, alphabet="dna"):
    """Train a WD/WDS ridge regressor on a random (1 - test_fraction) of the rows, score the rest, unfold it.

    Parameters
    ----------
    X : ndarray of shape (n, L), uint8
        Encoded sequences.
    values : array-like of shape (n,)
        Measured values (finite).
    model : ModelOptions
        ``degree``, ``shifts``, ``alpha`` (:class:`seqimp.WDRegressor` parameters) and
        ``test_fraction``: the held-out share for R^2 and Spearman; 0 trains on every row and
        reports none.
    random_state : int, Generator or None
        The split (``None``: the fixed default seed 0).
    progress : bool, default=False
    alphabet : str, default="dna"
        The alphabet of ``X``.

    Returns
    -------
    weights : PositionalWeights
        The model trained on the training rows, unfolded.
    info : dict
        ``n_train``, ``n_test`` and the held-out :func:`seqimp.kernels.regression_metrics`
        (``r2``, ``spearman``, ``spearman_pvalue``, ``pearson``; None without a test split),
        ``train_seconds``.
    """
    from ..kernels import WDRegressor, regression_metrics

    y = np.asarray(values, dtype=np.float64)
    degree, shifts, alpha, frac = model.degree, model.shifts, model.alpha, model.test_fraction
    n = y.size
    info = {"n_test": 0, "r2": None, "spearman": None, "spearman_pvalue": None, "pearson": None}
    if frac > 0:
        n_test = int(np.ceil(frac * n))
        if n_test < 2 or n - n_test < 2:
            raise SeqimpError(f"too few sequences ({n}) for a held-out split of {frac:g}; add data or use "
                              "test_fraction=0")
        perm = check_random_state(random_state).permutation(n)
        test, train = np.sort(perm[:n_test]), np.sort(perm[n_test:])
    else:
        train, test = np.arange(n), None
    logger.info(f"training a WD{'S' if shifts else ''} regressor (degree {degree}, shifts {shifts}, alpha {alpha:g}) "
                f"on {train.size} sequences of length {X.shape[1]}")
    start = time.perf_counter()
    regressor = WDRegressor(degree=degree, shifts=shifts, alpha=alpha, alphabet=alphabet,  # solver lines at -v
                            verbose="log" if progress else False).fit(X[train], y[train])
    info["train_seconds"] = time.perf_counter() - start
    info["n_train"] = int(train.size)
    if test is not None:
        metrics = regression_metrics(y[test], regressor.predict(X[test]))
        info.update({k: metrics[k] for k in ("r2", "spearman", "spearman_pvalue", "pearson")}, n_test=int(test.size))
        logger.info(f"held-out R^2 {info['r2']:.3f}, Spearman {info['spearman']:.3f} on {info['n_test']} sequences")
    return regressor.positional_weights(), info
