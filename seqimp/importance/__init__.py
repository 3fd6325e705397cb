"""The importance stage: exact POIM/FIRM of positional models, sampled POIM/FIRM and
in-silico mutagenesis for any scorer, scorer adapters, and the result type.
"""

from ._exact import poim
from ._ism import ism
from ._onnx import OnnxScorer
from ._result import MEASURES, POIMResult, differential_poim, maximal_poim
from ._sampled import poim_sampled, position_summary
from ._scorers import ModelScorer, load_scorer, load_sklearn_model, onehot, sklearn_scorer
from ._plan import Plan, plan_poim
from ._streamed import StreamedPOIM
from ._streamed import load_poim_file as load_poim
from ._streaming import poim_streamed
from ._torch import TorchScorer

__all__ = ["poim", "POIMResult", "load_poim", "maximal_poim", "differential_poim", "MEASURES", "poim_sampled", "ism",
           "position_summary", "onehot", "load_scorer", "load_sklearn_model", "sklearn_scorer", "ModelScorer",
           "OnnxScorer", "TorchScorer", "poim_streamed", "plan_poim", "Plan", "StreamedPOIM"]
