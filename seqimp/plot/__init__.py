"""Plots (matplotlib; ``ax=None``, return the Axes; 1-based position axes).

Heatmaps of POIMs and differential POIMs, weights vs FIRM, sequence logos, and the
plots of the tabular importance methods; variant effects (the delta distribution, per-base
importance of ref and alt).
"""

from .._utils.lazy import lazy_exports

# public name -> the module that defines it; imported on first use (seqimp/_utils/lazy.py)
_EXPORTS = {
    "poim_heatmap": "_heatmaps", "differential_heatmap": "_heatmaps", "maximal_heatmap": "_heatmaps",
    "weights_vs_firm": "_heatmaps",
    "logo": "_logos", "importance_logo": "_logos", "letter_importance": "_logos", "site_positions": "_logos",
    "plot_importance_boxplot": "_tabular", "plot_firm_curve": "_tabular", "plot_importance_matrix": "_tabular",
    "delta_distribution": "_variants", "variant_importance": "_variants",
}

__all__ = list(_EXPORTS)

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
