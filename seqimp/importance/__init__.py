"""The importance stage: exact POIM/FIRM of positional models, sampled POIM/FIRM and
in-silico mutagenesis for any scorer, and the result type. The scorer adapters (``_scorers``,
``_onnx``, ``_torch``) are public in :mod:`seqimp.scorers` only.
"""

from ._exact import poim
from ._ism import ism
from ._result import MEASURES, POIMResult, differential_poim, maximal_poim
from ._sampled import poim_sampled, position_summary
from ._plan import Plan, plan_poim
from ._streamed import StreamedPOIM
from ._streamed import load_poim_file as load_poim
from ._streaming import poim_streamed

__all__ = ["poim", "POIMResult", "load_poim", "maximal_poim", "differential_poim", "MEASURES", "poim_sampled", "ism",
           "position_summary", "poim_streamed", "plan_poim", "Plan", "StreamedPOIM"]
