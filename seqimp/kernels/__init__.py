"""The model stage: weighted-degree (WD/WDS) kernels, their feature map, scikit-learn
estimators, and the exact unfolding of a trained model into positional k-mer weights.
"""

from .._lazy import lazy_exports

# public name -> the module that defines it; imported on first use (seqimp/_lazy.py)
_EXPORTS = {
    "WDClassifier": "_estimators", "WDRegressor": "_estimators", "AUTO_FAST_FROM": "_estimators",
    "connect": "_distributed", "dcd_svm_distributed": "_distributed", "fit_distributed": "_distributed",
    "dcd_svm": "_dcd", "check_threads": "_dcd",
    "fast_svm": "_sgd",
    "wd_scores": "_implicit",
    "cg_ridge": "_ridge",
    "training_memory": "_memory",
    "holdout_regression_metrics": "_metrics", "regression_metrics": "_metrics",
    "PositionalWeights": "_weights", "npz_path": "_weights",
    "feature_offsets": "_params", "shift_weights": "_params", "wd_beta": "_params",
    "wd_features": "_wd", "wd_kernel": "_wd",
    "gkm_kernel": "_gkm", "spectrum_kernel": "_gkm", "check_gkm_params": "_gkm",
    "GKMClassifier": "_gkm_estimator",
    "save_gkm": "_gkm_file", "load_gkm": "_gkm_file", "model_file_kind": "_gkm_file",
}

__all__ = ["wd_kernel", "wd_features", "wd_beta", "shift_weights", "feature_offsets", "WDClassifier", "WDRegressor",
           "PositionalWeights", "regression_metrics", "holdout_regression_metrics", "dcd_svm", "cg_ridge", "wd_scores",
           "fast_svm", "training_memory", "connect", "fit_distributed", "dcd_svm_distributed", "gkm_kernel",
           "spectrum_kernel", "GKMClassifier"]

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
