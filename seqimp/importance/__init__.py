"""The importance stage: exact POIM/FIRM of positional models, sampled POIM/FIRM and
in-silico mutagenesis for any scorer, scorer adapters, and the result type.
"""

from ._exact import POIMResult, differential_poim, maximal_poim, poim
from ._sampled import ModelScorer, ism, load_scorer, load_sklearn_model, onehot, poim_sampled, position_summary, \
    sklearn_scorer

from ._plan import Plan, plan_poim
from ._streamed import StreamedPOIM, load_poim_file
from ._streaming import poim_streamed

load_poim = POIMResult.load

__all__ = ["poim", "POIMResult", "load_poim", "maximal_poim", "differential_poim", "poim_sampled", "ism",
           "position_summary", "onehot", "load_scorer", "load_sklearn_model", "sklearn_scorer", "ModelScorer",
           "poim_streamed", "plan_poim", "Plan", "StreamedPOIM", "load_poim_file"]
