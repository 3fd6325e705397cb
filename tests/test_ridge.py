"""Matrix-free ridge (conjugate gradients on WD features from the codes) against sklearn's Ridge.

Tolerance: CG solved to a relative residual of 1e-12 agrees with Ridge's dense closed form
to 1e-7 relative.
"""

import numpy as np
import pytest
from sklearn.linear_model import Ridge

from seqimp import WDRegressor, wd_features
from seqimp.kernels._ridge import cg_ridge


def test_ridge_matches_sklearn():
    rng = np.random.default_rng(8)
    X = rng.integers(0, 4, (300, 12)).astype(np.uint8)
    y = (X[:, 4] == 3) * 1.5 + (X[:, 5] == 1) * 0.5 + rng.normal(scale=0.3, size=300)
    F = wd_features(X, degree=3)
    ref = Ridge(alpha=0.7).fit(F.toarray(), y)  # dense closed form (cholesky)
    coef, intercept, n_iter = cg_ridge(X, y, degree=3, alpha=0.7, tol=1e-12)
    np.testing.assert_allclose(coef, ref.coef_, rtol=1e-7, atol=1e-9)
    assert intercept == pytest.approx(ref.intercept_, abs=1e-9)
    model = WDRegressor(degree=3, alpha=0.7, tol=1e-12).fit(X, y)
    assert model.method_ == "implicit"
    test = rng.integers(0, 4, (50, 12)).astype(np.uint8)
    want = ref.predict(wd_features(test, degree=3).toarray())
    np.testing.assert_allclose(model.predict(test), want, rtol=1e-7, atol=1e-8)
    np.testing.assert_allclose(model.positional_weights().score(test), want, rtol=1e-7, atol=1e-8)
