"""Training: the models a run explains, on sequences encoded once -- a WD/WDS classifier on a
stratified held-out split (:func:`train_model`, :func:`train_classifier`), on a codes store read
from disk (:func:`train_on_store`), a WD/WDS ridge regressor (:func:`train_regressor`), a
position-free gapped-k-mer classifier (:func:`train_gkm`); which of the positional and the gkm
model a motif run explains (:func:`choose_model`); held-out metrics; stratified K-fold
cross-validation (:func:`cross_validate`, ``seqimp train --cv``); model files
(:func:`save_model`, :func:`load_model`). Their options are :class:`seqimp.options.ModelOptions`
and :class:`seqimp.options.SolverOptions`.
"""

from .._utils.lazy import lazy_exports

# public name -> the module that defines it; imported on first use (seqimp/_utils/lazy.py)
_EXPORTS = {
    "train_model": "_classifier", "train_on_store": "_classifier", "train_classifier": "_classifier",
    "train_regressor": "_regressor",
    "train_gkm": "_gkm",
    "cross_validate": "_cross_validation",
    "choose_model": "_model_choice",
    "save_model": "_model_file", "load_model": "_model_file",
}

__all__ = list(_EXPORTS)

#: names whose one home is now seqimp.options: still found here, with a FutureWarning
_MOVED = {"ModelOptions": "seqimp.options", "SolverOptions": "seqimp.options"}

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, moved=_MOVED)
