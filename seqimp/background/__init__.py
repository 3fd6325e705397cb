"""The background stage: Markov chains of any order (homogeneous or positional) and the
exact conditional sampling of sequences around a fixed positional oligomer; the background
a motif site is scored against (``SiteBackground``: order 0..2 on both strands, MEME's
background files).
"""

from .._utils.lazy import lazy_exports

# public name -> the module that defines it; imported on first use (seqimp/_utils/lazy.py)
_EXPORTS = {
    "MarkovBackground": "_markov",
    "SiteBackground": "_site_background",
}

__all__ = list(_EXPORTS)

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
