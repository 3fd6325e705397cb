"""ROC and precision-recall curves of classifier scores against labels (``seqimp predict`` with
labels, ``seqimp train --cv``)."""

from __future__ import annotations

import numpy as np

from ._text import plot_text

__all__ = ["roc_pr_figure"]


def roc_pr_figure(curves, *, title=None):
    """A figure of two panels: the ROC curve and the precision-recall curve of each of ``curves``.

    Parameters
    ----------
    curves : sequence of (label, y, scores)
        ``label`` names the curve in the legend (its auROC and auPRC are added); ``y``: 0/1
        labels of shape (n,), 1 the positive class; ``scores``: shape (n,), larger = more positive.
    title : str, optional

    Returns
    -------
    matplotlib.figure.Figure
        Its two Axes: ROC (false against true positive rate, the diagonal of chance) and
        precision against recall (the positives' share as the line of chance).
    """
    import matplotlib.pyplot as plt
    from sklearn.metrics import average_precision_score, precision_recall_curve, roc_auc_score, roc_curve

    fig, (roc, pr) = plt.subplots(1, 2, figsize=(9, 4))
    share = None
    for label, y, scores in curves:
        y, scores = np.asarray(y), np.asarray(scores, dtype=np.float64)
        fpr, tpr, _ = roc_curve(y, scores)
        precision, recall, _ = precision_recall_curve(y, scores)
        roc.plot(fpr, tpr, lw=1.2, label=plot_text(f"{label} (auROC {roc_auc_score(y, scores):.3f})"))
        pr.step(recall, precision, where="post", lw=1.2,
                label=plot_text(f"{label} (auPRC {average_precision_score(y, scores):.3f})"))
        share = float(np.mean(y == 1)) if share is None else share
    roc.plot([0, 1], [0, 1], ls=":", color="grey", lw=1)
    if share is not None:
        pr.axhline(share, ls=":", color="grey", lw=1)
    roc.set(xlabel="false positive rate", ylabel="true positive rate", xlim=(0, 1), ylim=(0, 1.01), title="ROC")
    pr.set(xlabel="recall", ylabel="precision", xlim=(0, 1), ylim=(0, 1.01), title="precision-recall")
    for ax in (roc, pr):
        ax.legend(fontsize=7, frameon=False, loc="lower right" if ax is roc else "lower left")
    if title:
        fig.suptitle(plot_text(title), fontsize=10)
    fig.tight_layout()
    return fig
