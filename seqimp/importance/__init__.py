"""The importance stage: exact POIM/FIRM of positional models, sampled POIM/FIRM and
in-silico mutagenesis for any scorer, and the result type. The scorer adapters (``_scorers``,
``_onnx``, ``_torch``) are public in :mod:`seqimp.scorers` only.
"""

from ._poim import poim
from ._ism import ism
from ._result import MEASURES, POIMResult, differential_poim, maximal_poim
from ._sampled import poim_sampled, position_summary
from ._poim_plan import ENGINES, Plan, plan_poim
from ._poim_summary import StreamedPOIM, load_poim
from ._gkmexplain import attribution_profile, find_seqlets, gkm_attributions

__all__ = ["poim", "POIMResult", "load_poim", "maximal_poim", "differential_poim", "MEASURES", "poim_sampled", "ism",
           "position_summary", "plan_poim", "Plan", "ENGINES", "StreamedPOIM",
           "gkm_attributions", "find_seqlets", "attribution_profile"]
