"""The model stage: weighted-degree (WD/WDS) kernels, their feature map, scikit-learn
estimators, and the exact unfolding of a trained model into positional k-mer weights; the
position-free gapped-k-mer (gkm) model (``seqimp/kernels/gkm/``) and LS-GKM's model files
(:func:`read_lsgkm_model`, :func:`write_lsgkm_model`).
"""

from .._utils.lazy import lazy_exports

# public name -> the module that defines it; imported on first use (seqimp/_utils/lazy.py)
_EXPORTS = {
    "wd_kernel": "_wd", "wd_features": "_wd",
    "WDClassifier": "_estimators", "WDRegressor": "_wd_regressor",
    "PositionalWeights": "_weights",
    "GKMClassifier": "gkm._estimator",
    "gkm_kernel": "gkm._kernel", "spectrum_kernel": "gkm._kernel",
    "read_lsgkm_model": "gkm._lsgkm", "write_lsgkm_model": "gkm._lsgkm",
    "regression_metrics": "_metrics", "holdout_regression_metrics": "_metrics",
    "connect": "_distributed", "fit_distributed": "_distributed",
}

__all__ = list(_EXPORTS)

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
