"""Feature importance for real-valued and categorical (tabular) inputs.

FIRM for continuous features, permutation importance (model reliance),
Huh & Lee's sensitivity importance and Holz & Loew's Relative Feature
Importance. Depends only on the seqimp foundation, not on the sequence stages.
"""

from importlib import import_module

# public name -> owning submodule of seqimp.tabular
_EXPORTS = {
    "firm": "firm",
    "permutation_importance": "permutation",
    "sensitivity_importance": "sensitivity",
    "relative_feature_importance": "rfi",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name):
    if name in _EXPORTS:
        value = getattr(import_module(f".{_EXPORTS[name]}", __name__), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'seqimp.tabular' has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(_EXPORTS))
