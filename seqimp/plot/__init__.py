"""Plots of importance results (matplotlib; ``ax=None`` returns the Axes).

Heatmaps of POIMs and differential POIMs, weights vs FIRM, sequence logos.
"""

from .._lazy import lazy_exports

# public name -> owning submodule of seqimp.plot
_EXPORTS = {
    "poim_heatmap": "heatmaps",
    "differential_heatmap": "heatmaps",
    "weights_vs_firm": "heatmaps",
    "logo": "logos",
    "importance_logo": "logos",
    "letter_importance": "logos",
}

__all__ = sorted(_EXPORTS)


__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
