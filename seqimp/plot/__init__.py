"""Plots of importance results (matplotlib; ``ax=None`` returns the Axes).

Heatmaps of POIMs and differential POIMs, weights vs FIRM, sequence logos.
"""

from importlib import import_module

# public name -> owning submodule of seqimp.plot
_EXPORTS = {
    "poim_heatmap": "heatmaps",
    "differential_heatmap": "heatmaps",
    "weights_vs_firm": "heatmaps",
    "logo": "logos",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name):
    if name in _EXPORTS:
        value = getattr(import_module(f".{_EXPORTS[name]}", __name__), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'seqimp.plot' has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(_EXPORTS))
