"""The background stage: Markov chains of any order (homogeneous or positional) and the
exact conditional sampling of sequences around a fixed positional oligomer; the background
a motif site is scored against (``SiteBackground``: order 0..2 on both strands, MEME's
background files).
"""

from .._lazy import lazy_exports

# public name -> the module that defines it; imported on first use (seqimp/_lazy.py)
_EXPORTS = {"MarkovBackground": "_markov", "inner_index": "_markov", "ChainSampler": "_conditional",
            "SiteBackground": "_site_background", "read_bfile": "_site_background",
            "window_log2": "_site_background"}

__all__ = ["MarkovBackground", "SiteBackground", "read_bfile"]

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
