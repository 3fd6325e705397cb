"""``WDRegressor``: ridge regression on the weighted-degree string kernels (the routes: the module
docstring of :mod:`seqimp.kernels._estimators`)."""

from __future__ import annotations

import numpy as np
import scipy.linalg
from sklearn.base import RegressorMixin
from sklearn.utils.validation import column_or_1d

from ..io import get_alphabet
from ..errors import SeqimpError, check_number
from ._ridge import cg_ridge
from ._wd import wd_features, wd_kernel
from ._unfold import check_table_size
from ._wd_base import _PARAMS_DOC, _WDModel

__all__ = ["WDRegressor"]

class WDRegressor(RegressorMixin, _WDModel):
    __doc__ = f"""Ridge regression on the weighted-degree (with shifts) string kernel.

    Minimises ``sum_i (y_i - w.phi(x_i) - b)^2 + alpha ||w||^2`` with an
    unpenalised intercept ``b``: by matrix-free conjugate gradients on the dual
    (implicit route), in the primal on explicit features (linear route) or in the
    dual on the centred Gram matrix (kernel route); for ``shifts=0`` all routes fit
    the same model.

    Parameters
    ----------{_PARAMS_DOC}
    alpha : float, default=1.0
        Ridge penalty, > 0.

    Attributes
    ----------
    method_ : {{"implicit", "linear", "kernel"}}
    length_, n_features_in_ : int
    coef_ : ndarray of shape (n_wd_features,)
        Implicit and linear routes.
    support_codes_ : ndarray of shape (n_train, L), uint8
        Kernel route: all training sequences.
    dual_coef_ : ndarray of shape (n_train,)
        Kernel route: ``s(x) = intercept_ + sum_j dual_coef_[j] k(x_j, x)``.
    intercept_ : float
    """

    def __init__(self, degree=8, shifts=0, alpha=1.0, *, method="auto", alphabet="dna", tol=1e-4, verbose=False,
                 memory_budget=None):
        self.degree = degree
        self.shifts = shifts
        self.alpha = alpha
        self.method = method
        self.alphabet = alphabet
        self.tol = tol
        self.verbose = verbose
        self.memory_budget = memory_budget

    def fit(self, X, y):
        """Train on sequences ``X`` and real targets ``y`` (shape (n,))."""
        y = column_or_1d(np.asarray(y), warn=True)
        try:
            y = y.astype(np.float64)
        except (TypeError, ValueError):
            raise SeqimpError("y must be numbers for a regressor") from None
        if y.shape[0] == 0:
            raise SeqimpError("y is empty (0 samples)")
        if not np.all(np.isfinite(y)):
            raise SeqimpError("y contains NaN or infinite values")
        check_number(self.alpha, "alpha", low=0, low_open=True)
        method = self._method()
        codes = self._fit_codes(X, y.shape[0])
        self._check_memory(codes, method)
        if method == "implicit":
            with self._step(f"ridge (matrix-free CG) on {codes.shape[0]} sequences"):
                self.coef_, self.intercept_, self.n_iter_ = cg_ridge(
                    codes, y, degree=self.degree_, alpha=self.alpha, tol=self.tol, alphabet=self.alphabet_,
                    verbose=self.verbose)
        elif method == "linear":
            check_table_size(self.length_, self.degree_, get_alphabet(self.alphabet).size)
            with self._step(f"WD features of {codes.shape[0]} sequences"):
                F = wd_features(codes, degree=self.degree_, alphabet=self.alphabet_)
            with self._step(f"ridge (sparse CG) on {F.shape[1]} features"):
                from sklearn.linear_model import Ridge

                ridge = Ridge(alpha=self.alpha, tol=self.tol, solver="sparse_cg").fit(F, y)
            self.coef_ = ridge.coef_.ravel().copy()
            self.intercept_ = float(ridge.intercept_)
        else:
            with self._step(f"Gram matrix {codes.shape[0]} x {codes.shape[0]}"):
                gram = wd_kernel(codes, degree=self.degree_, shifts=self.shifts_, alphabet=self.alphabet_)
            row_mean = gram.mean(axis=1)
            centred = gram - row_mean[:, None] - row_mean[None, :] + row_mean.mean()
            centred[np.diag_indices_from(centred)] += self.alpha
            y_mean = y.mean()
            with self._step(f"dual ridge solve ({codes.shape[0]} x {codes.shape[0]})"):
                a = scipy.linalg.solve(centred, y - y_mean, assume_a="pos")
            self.support_codes_ = codes.copy()
            self.dual_coef_ = a
            self.intercept_ = float(y_mean - a @ row_mean)
        self.method_ = method
        return self

    def predict(self, X) -> np.ndarray:
        """Predicted values, shape (n,)."""
        return self._raw_scores(X)

    decision_function = predict
