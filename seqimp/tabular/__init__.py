"""Feature importance for real-valued and categorical (tabular) inputs.

FIRM for continuous features, permutation importance (model reliance),
Huh & Lee's sensitivity importance and Holz & Loew's Relative Feature
Importance. Depends only on the seqimp foundation, not on the sequence stages;
its plots are in :mod:`seqimp.plot`.
"""

from ._features import feature_indicator, feature_product
from ._firm import firm
from ._permutation import permutation_importance
from ._rfi import relative_feature_importance
from ._sensitivity import sensitivity_importance

__all__ = ["firm", "feature_product", "feature_indicator", "permutation_importance", "sensitivity_importance",
           "relative_feature_importance"]
