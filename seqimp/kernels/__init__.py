"""The model stage: weighted-degree (WD/WDS) kernels, their feature map, scikit-learn
estimators, and the exact unfolding of a trained model into positional k-mer weights.
"""

from ._estimators import WDClassifier, WDRegressor
from ._distributed import connect, dcd_svm_distributed, fit_distributed  # imports dask only when called
from ._dcd import dcd_svm
from ._sgd import fast_svm
from ._implicit import wd_scores
from ._ridge import cg_ridge
from ._memory import training_memory
from ._metrics import holdout_regression_metrics, regression_metrics
from ._weights import PositionalWeights
from ._params import feature_offsets, shift_weights, wd_beta
from ._wd import wd_features, wd_kernel
from ._gkm import gkm_kernel, spectrum_kernel
from ._gkm_estimator import GKMClassifier

__all__ = ["wd_kernel", "wd_features", "wd_beta", "shift_weights", "feature_offsets", "WDClassifier", "WDRegressor",
           "PositionalWeights", "regression_metrics", "holdout_regression_metrics", "dcd_svm", "cg_ridge", "wd_scores",
           "fast_svm", "training_memory", "connect", "fit_distributed", "dcd_svm_distributed", "gkm_kernel",
           "spectrum_kernel", "GKMClassifier"]
