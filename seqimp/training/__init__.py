"""Training: the models a run explains, on sequences encoded once -- a WD/WDS classifier on a
stratified held-out split (:func:`train_model`, :func:`train_classifier`), on a codes store read
from disk (:func:`train_on_store`), a WD/WDS ridge regressor (:func:`train_regressor`), a
position-free gapped-k-mer classifier (:func:`train_gkm`); which of the positional and the gkm
model a motif run explains (:func:`choose_model`); held-out metrics; model files
(:func:`save_model`, :func:`load_model`). Options: :class:`ModelOptions`, :class:`SolverOptions`.
"""

from .._lazy import lazy_exports

# public name -> the module that defines it; imported on first use (seqimp/_lazy.py)
_EXPORTS = {
    "ModelOptions": "_options", "MODEL_KINDS": "_options",
    "SolverOptions": "_solver", "SOLVERS": "_solver", "STOPPING_THRESHOLDS": "_solver", "solver_record": "_solver",
    "solver_line": "_solver",
    "train_model": "_classifier", "train_on_store": "_classifier", "train_classifier": "_classifier",
    "evaluate": "_classifier", "flag_chance": "_classifier", "recorded_seed": "_classifier",
    "CHANCE_AUROC": "_classifier", "metrics_line": "_classifier", "HELD_OUT_HINT": "_classifier",
    "held_out_split": "_classifier", "split_seed": "_classifier",
    "train_gkm": "_gkm", "held_out_start": "_gkm", "GKM_TOL": "_gkm", "ROUND_TOL": "_gkm", "HELD_OUT_TOL": "_gkm", "HELD_OUT_LOOSE_FROM": "_gkm",
    "train_regressor": "_regressor",
    "ModelChoice": "_model_choice", "choose_model": "_model_choice", "check_kind": "_model_choice",
    "gkm_parameters": "_model_choice", "COMPARE_AUROC": "_model_choice", "MARGIN": "_model_choice",
    "save_model": "_model_file", "load_model": "_model_file", "check_model_layout": "_model_file",
    "load_model_file": "_model_file",
}

__all__ = ["ModelOptions", "SolverOptions", "train_model", "train_on_store", "train_classifier", "train_regressor",
           "train_gkm", "choose_model", "ModelChoice", "evaluate", "held_out_split", "save_model", "load_model",
           "MODEL_KINDS", "SOLVERS"]

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
