"""The background stage: Markov chains of any order (homogeneous or positional) and the
exact conditional sampling of sequences around a fixed positional oligomer.
"""

from .._lazy import lazy_exports

# public name -> the module that defines it; imported on first use (seqimp/_lazy.py)
_EXPORTS = {"MarkovBackground": "_markov", "inner_index": "_markov", "ChainSampler": "_conditional"}

__all__ = ["MarkovBackground"]

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
