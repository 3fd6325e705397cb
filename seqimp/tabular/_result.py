"""The result type of the tabular methods: an :class:`sklearn.utils.Bunch` (keys as attributes,
sklearn.inspection's ``importances_mean`` and ``importances_std`` of shape (n_features,)) with a
short ``repr`` and Jupyter's HTML view, a table of the features ranked by mean importance.
One subclass per method names it; the keys are each method's (documented in its function)."""

from __future__ import annotations

import numpy as np
from sklearn.utils import Bunch

from .._utils.repr import html_card, short_repr

__all__ = ["ImportanceResult", "FIRMResult", "PermutationResult", "SensitivityResult", "RFIResult"]

#: Features listed in the HTML view.
SHOWN_FEATURES = 10


class ImportanceResult(Bunch):
    """A Bunch of importances per feature; ``method`` names the method that made it."""

    method = "feature importance"

    def _names(self) -> list:
        names = self.get("feature_names")
        n = len(self["importances_mean"])
        return [str(x) for x in names] if names is not None else [f"x{j + 1}" for j in range(n)]

    def ranking(self):
        """A DataFrame of the features, most important first: ``feature``, ``importance``
        (``importances_mean``), ``sd`` (``importances_std``), and ``rank`` where the method ranks."""
        import pandas as pd

        mean = np.asarray(self["importances_mean"], dtype=np.float64)
        data = {"feature": self._names(), "importance": mean,
                "sd": np.asarray(self["importances_std"], dtype=np.float64)}
        if "ranks" in self:
            data["rank"] = np.asarray(self["ranks"])
        order = np.argsort(-np.nan_to_num(mean, nan=-np.inf), kind="stable")
        return pd.DataFrame(data).iloc[order].reset_index(drop=True)

    def __repr__(self) -> str:
        table = self.ranking()
        best = table.iloc[0] if len(table) else None
        return short_repr(type(self).__name__, method=self.method, n_features=len(table),
                          best=None if best is None else f"{best['feature']} ({best['importance']:.4g})",
                          keys=len(self))

    def _repr_html_(self) -> str:
        table = self.ranking()
        lines = [("method", self.method), ("features", len(table)),
                 ("keys", ", ".join(sorted(self.keys())))]
        return html_card(type(self).__name__, lines, table=table.head(SHOWN_FEATURES),
                         note=f"features by mean importance (first {SHOWN_FEATURES}); result.ranking() gives all")


class FIRMResult(ImportanceResult):
    method = "FIRM (feature importance ranking measure)"


class PermutationResult(ImportanceResult):
    method = "permutation importance (model reliance)"


class SensitivityResult(ImportanceResult):
    method = "sensitivity importance (Huh & Lee)"


class RFIResult(ImportanceResult):
    method = "relative feature importance (Holz & Loew)"
