"""Plots (matplotlib; ``ax=None``, return the Axes; 1-based position axes).

Heatmaps of POIMs and differential POIMs, weights vs FIRM, sequence logos, and the
plots of the tabular importance methods.
"""

from ._heatmaps import differential_heatmap, maximal_heatmap, poim_heatmap, weights_vs_firm
from ._logos import importance_logo, letter_importance, logo, match_logo, site_positions
from ._tabular import plot_firm_curve, plot_importance_boxplot, plot_importance_matrix

__all__ = ["poim_heatmap", "differential_heatmap", "maximal_heatmap", "weights_vs_firm", "logo", "importance_logo",
           "letter_importance", "site_positions", "match_logo",
           "plot_importance_boxplot", "plot_firm_curve", "plot_importance_matrix"]
