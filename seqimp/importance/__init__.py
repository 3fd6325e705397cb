"""The importance stage: exact POIM/FIRM of positional models, sampled POIM/FIRM and
in-silico mutagenesis for any scorer, and the result type. The scorer adapters (``_scorers``,
``_onnx``, ``_torch``) are public in :mod:`seqimp.scorers` only.
"""

from .._lazy import lazy_exports

# public name -> the module that defines it; imported on first use (seqimp/_lazy.py)
_EXPORTS = {
    "poim": "_poim",
    "ism": "_ism",
    "MEASURES": "_result", "measure_tables": "_result", "POIMResult": "_result", "differential_poim": "_result", "maximal_poim": "_result",
    "poim_sampled": "_sampled", "position_summary": "_sampled",
    "ENGINES": "_poim_plan", "Plan": "_poim_plan", "plan_poim": "_poim_plan",
    "StreamedPOIM": "_poim_summary", "load_poim": "_poim_summary",
    "variant_effects": "_variants", "snv_null": "_variants", "model_kind": "_variants", "alt_window": "_variants",
    "base_importance": "_variants", "single_base_change": "_variants",
    "attribution_profile": "_gkmexplain", "attribution_result": "_gkmexplain", "find_seqlets": "_gkmexplain", "gkm_attributions": "_gkmexplain",
}

__all__ = ["poim", "POIMResult", "load_poim", "maximal_poim", "differential_poim", "MEASURES", "poim_sampled", "ism",
           "position_summary", "plan_poim", "Plan", "ENGINES", "StreamedPOIM",
           "gkm_attributions", "find_seqlets", "attribution_profile", "variant_effects", "snv_null"]

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
