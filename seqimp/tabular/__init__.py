"""Feature importance for real-valued and categorical (tabular) inputs.

FIRM for continuous features, permutation importance (model reliance),
Huh & Lee's sensitivity importance and Holz & Loew's Relative Feature
Importance. Depends only on the seqimp foundation, not on the sequence stages.
"""

from .._lazy import lazy_exports

# public name -> owning submodule of seqimp.tabular
_EXPORTS = {
    "firm": "firm",
    "feature_product": "_features",
    "feature_indicator": "_features",
    "plot_importance_boxplot": "plot",
    "plot_firm_curve": "plot",
    "plot_importance_matrix": "plot",
    "permutation_importance": "permutation",
    "sensitivity_importance": "sensitivity",
    "relative_feature_importance": "rfi",
}

__all__ = sorted(_EXPORTS)


__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
