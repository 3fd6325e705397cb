"""The l-mer weights of an LS-GKM model, as the motif seeds of the gkm route read a
GKMClassifier's (:func:`seqimp.motifs._gkm_seeds.lmer_seeds`).

An LS-GKM model keeps support vectors, not per-base attributions; its l-mer weights are its scores
of every l-mer on its own (``gkmpredict`` on all l-mers, the table deltaSVM reads;
:func:`lmer_weights`), plus ``rho`` so that the weights carry no
intercept. :class:`LSGKMLmers` offers them under the names ``lmer_seeds`` reads
(``word_length``, ``reverse_complement``, ``lmer_scores()``). About a second for the 4**10
l-mers of a linear kernel (``-t 0..2``, ``4``); the RBF kernels score each against every support
vector.
"""

from __future__ import annotations

import numpy as np

from ...errors import SeqimpError

#: l-mers scored at a time.
BATCH = 65536


def lmer_model(model):
    """``(word length, score function on codes (n, l))`` of a gkm or LS-GKM model, or None for another model."""
    from ._estimator import GKMClassifier
    from ._lsgkm_model import LSGKMModel

    if isinstance(model, LSGKMModel):
        return model.l, model.decision_function
    if isinstance(model, GKMClassifier) and hasattr(model, "tables_"):
        return int(model.tables_.word_length), model.decision_function
    return None


def lmer_weights(model, index, l):
    """The model's score of each l-mer ``index`` (shape (n,), int64), in batches of :data:`BATCH`."""
    _, score = lmer_model(model)
    digits = ((index[:, None] >> (2 * np.arange(l - 1, -1, -1))[None, :]) & 3).astype(np.uint8)
    out = np.empty(index.size)
    for s in range(0, index.size, BATCH):
        out[s:s + BATCH] = score(np.ascontiguousarray(digits[s:s + BATCH]))
    return out



class LSGKMLmers:
    """An :class:`~seqimp.kernels.gkm._lsgkm_model.LSGKMModel` seen as its l-mer weights.

    Parameters
    ----------
    model : LSGKMModel
    """

    def __init__(self, model):
        from ._lsgkm_model import LSGKMModel

        if not isinstance(model, LSGKMModel):
            raise SeqimpError(f"LSGKMLmers: an LSGKMModel is needed, got {type(model).__name__}")
        self.model = model
        self.word_length = model.l
        self.reverse_complement = model.reverse_complement
        self._scores = None

    def lmer_scores(self):
        """The model's score of every l-mer plus ``rho``, shape (4**l,), by l-mer index (first letter most
        significant), computed once."""
        if self._scores is None:
            l = self.word_length
            self._scores = lmer_weights(self.model, np.arange(4 ** l, dtype=np.int64), l) + self.model.rho
        return self._scores
