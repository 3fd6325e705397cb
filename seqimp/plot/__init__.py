"""Plots (matplotlib; ``ax=None``, return the Axes; 1-based position axes).

Heatmaps of POIMs and differential POIMs, weights vs FIRM, sequence logos, and the
plots of the tabular importance methods; variant effects (the delta distribution, per-base
importance of ref and alt).
"""

from .._lazy import lazy_exports

# public name -> the module that defines it; imported on first use (seqimp/_lazy.py)
_EXPORTS = {
    "differential_heatmap": "_heatmaps", "maximal_heatmap": "_heatmaps", "poim_heatmap": "_heatmaps",
    "weights_vs_firm": "_heatmaps",
    "importance_logo": "_logos", "letter_importance": "_logos", "logo": "_logos", "match_logo": "_logos",
    "site_positions": "_logos",
    "save_figure": "_save", "plot_text": "_text",
    "importance_block": "_logos", "block_logo": "_logos",
    "FigureJob": "_figure_process", "draw_figures": "_figure_process", "figure_process": "_figure_process",
    "active_process": "_figure_process",
    "delta_distribution": "_variants", "variant_importance": "_variants",
    "plot_firm_curve": "_tabular", "plot_importance_boxplot": "_tabular", "plot_importance_matrix": "_tabular",
}

__all__ = ["poim_heatmap", "differential_heatmap", "maximal_heatmap", "weights_vs_firm", "logo", "importance_logo",
           "letter_importance", "site_positions", "match_logo",
           "plot_importance_boxplot", "plot_firm_curve", "plot_importance_matrix", "delta_distribution",
           "variant_importance"]

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
