"""The importance stage: exact POIM/FIRM of positional models, sampled POIM/FIRM and
in-silico mutagenesis for any scorer, and the result type. The scorer adapters (``_scorers``,
``_onnx``, ``_torch``) are public in :mod:`seqimp.scorers` only.
"""

from .._utils.lazy import lazy_exports

# public name -> the module that defines it; imported on first use (seqimp/_utils/lazy.py)
_EXPORTS = {
    "poim": "_poim",
    "POIMResult": "_result", "maximal_poim": "_result", "differential_poim": "_result",
    "load_poim": "_poim_summary", "StreamedPOIM": "_poim_summary",
    "poim_sampled": "_sampled", "position_summary": "_sampled",
    "ism": "_ism",
    "plan_poim": "_poim_plan",
    "gkm_attributions": "_gkmexplain", "find_seqlets": "_gkmexplain",
    "variant_effects": "_variants",
}

__all__ = list(_EXPORTS)

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
