"""Feature functions for FIRM (private module; the helpers are public via seqimp.tabular).

Kept apart from ``firm.py`` so that importing them does not load the module
``seqimp.tabular.firm``, whose name is also the lazily exported function.
"""

from __future__ import annotations

import numpy as np

from ..errors import SeqimpError, check_int

__all__ = ["Feature", "feature_product", "feature_indicator"]


class Feature:
    """A named feature function ``f(X) -> (n_samples,)``; ``column`` set for coordinates."""

    def __init__(self, name, fn, column=None):
        self.name, self.fn, self.column = name, fn, column

    def __call__(self, X):
        return self.fn(X)

    def __repr__(self):
        return f"<feature {self.name}>"


def feature_product(*columns):
    """The feature ``x_j * x_k * ...`` (a conjunction for 0/1 columns); columns are 0-based indices."""
    cols = [_check_index(c) for c in columns]
    if not cols:
        raise SeqimpError("feature_product: needs at least one column")
    return Feature("*".join(f"x{c + 1}" for c in cols), lambda X: np.prod(X[:, cols], axis=1))


def feature_indicator(column, threshold):
    """The feature ``I(x_j > threshold)``; ``column`` is a 0-based index."""
    c = _check_index(column)
    thr = float(threshold)
    return Feature(f"I(x{c + 1} > {thr:g})", lambda X: (X[:, c] > thr).astype(float))


def _check_index(c):
    return check_int(c, "feature column (0-based)", minimum=0)
