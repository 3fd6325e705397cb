"""Score-function adapters: wrap a trained model as ``score_fn(codes) -> scores``.

Every adapter takes an encoded ``(n, L)`` uint8 array (codes in alphabet order; A=0, C=1,
G=2, T=3 for DNA) and returns ``(n,)`` float64 scores, so it can be passed to
:func:`seqimp.importance.poim_sampled` and :func:`seqimp.importance.ism`.

* :class:`OnnxScorer` - an ONNX model (PyTorch, Keras/TensorFlow, JAX exports) run by ONNX
  Runtime (``pip install 'seqimp[onnx]'``);
* :class:`TorchScorer` - a live ``torch.nn.Module`` (torch is imported only when used);
* :class:`ModelScorer` / :func:`sklearn_scorer` / :func:`load_sklearn_model` - scikit-learn;
* :func:`load_scorer` - any Python function given as ``module:function``;
* :func:`onehot` / :func:`onehot_layout` - the one-hot features those models take
  (``(n, 4L)`` flattened, or ``(n, 4, L)`` / ``(n, L, 4)`` in one of :data:`LAYOUTS`).

This module is the one public home of the adapters (neither ``seqimp`` nor
``seqimp.importance`` re-exports them); their code lives in the importance stage
(``seqimp/importance/_scorers.py``, ``_onnx.py``, ``_torch.py``).
"""

from .importance._onnx import OnnxScorer, onehot_layout
from .importance._scorers import ModelScorer, load_scorer, load_sklearn_model, onehot, sklearn_scorer
from .importance._torch import TorchScorer

__all__ = ["OnnxScorer", "TorchScorer", "ModelScorer", "sklearn_scorer", "load_sklearn_model", "load_scorer",
           "onehot", "onehot_layout"]
