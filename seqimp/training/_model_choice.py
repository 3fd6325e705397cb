"""Which model a motif run explains: the positional WD/WDS model, or the position-free
gapped-k-mer (gkm) model -- chosen by the user (``--model wd|wds|gkm``) or by the run
(``--model auto``, the default).

Auto rule: the positional model is trained first, as always; when its held-out auROC is below
:data:`~seqimp.training._classifier.CHANCE_AUROC` (0.6, the level at which the pipeline already warns
that a model is close to chance) the signal, if any, is not at fixed positions, and the motifs
come from a :class:`~seqimp.kernels.GKMClassifier` instead (its attributions, seqlets and the
common refinement: :func:`seqimp.motifs.gkm_seed_motifs`). Without a held-out split
(``test_fraction`` 0) there is no held-out auROC and the positional model is kept. Between
0.6 and :data:`COMPARE_AUROC` (0.8) the positional model has learnt something, but a motif whose
place varies (importance spread over the positions) is learnt better without positions: the gkm
model is then trained on the same split, and it runs when its held-out auROC exceeds the
positional model's by :data:`MARGIN` (0.05) or more (its held-out fit is reused). From 0.8 the
positional model is kept without the comparison. The choice and
its reason are recorded (:meth:`ModelChoice.record`): ``summary.json``'s ``model_route`` of
``seqimp poim``, and ``motifs.json``'s parameters of ``seqimp motifs``.

On the gkm route ``seqimp poim`` still writes the positional model's POIM (the command's
tables), and its motifs are the gkm model's; ``seqimp motifs`` computes no POIM at all.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field

from ._classifier import CHANCE_AUROC, recorded_seed
from ._gkm import GKM_TOL
from ..options import ModelOptions

__all__ = ["COMPARE_AUROC", "MARGIN", "ModelChoice", "choose_model", "check_kind", "gkm_parameters"]

logger = logging.getLogger(__name__)

#: Held-out auROC of the positional model below which auto compares it with the gkm model.
COMPARE_AUROC = 0.8

#: How much better (held-out auROC) the gkm model must predict for auto to choose it over an
#: informative positional model.
MARGIN = 0.05

@dataclass
class ModelChoice:
    """The model a run explains and why.

    Attributes
    ----------
    route : {"wd", "wds", "gkm"}
        The model the motifs come from.
    requested : {"auto", "wd", "wds", "gkm"}
    reason : str
        One sentence.
    held_out : dict or None
        The positional model's held-out metrics (``train_classifier``'s info) when it was
        trained for the choice; the run reuses them instead of training it again.
    gkm_held_out : dict or None
        The gkm model's held-out metrics (:func:`train_gkm`'s info) when the choice compared
        the two; the gkm route reuses them.
    """

    route: str
    requested: str
    reason: str
    held_out: dict | None = field(default=None, repr=False)
    gkm_held_out: dict | None = field(default=None, repr=False)

    def record(self) -> dict:
        """``model_route`` as JSON: ``route, requested, reason, threshold`` and the held-out
        ``positional_auroc`` and ``gkm_auroc`` of the choice (None where not measured)."""
        auroc = None if self.held_out is None else self.held_out.get("auroc")
        gkm = None if self.gkm_held_out is None else self.gkm_held_out.get("auroc")
        return {"route": self.route, "requested": self.requested, "reason": self.reason,
                "positional_auroc": auroc, "gkm_auroc": gkm, "threshold": CHANCE_AUROC}


def check_kind(kind, shifts) -> str:
    """``kind`` checked against ``shifts`` (:class:`ModelOptions`' rule: ``wd`` has none, ``wds`` needs some)."""
    return ModelOptions(kind=kind, shifts=shifts).kind


def choose_model(requested, *, shifts=0, held_out=None, gkm_held_out=None) -> ModelChoice:
    """The route of a run (module docstring): ``held_out`` is the positional model's held-out
    info (``auroc`` None or absent without a split); not needed for an explicit kind.
    ``gkm_held_out``: a callable returning the gkm model's held-out info (:func:`train_gkm` with
    ``full=False``), called only when the positional auROC lies in [0.6, 0.8); without it there
    is no comparison."""
    requested = check_kind(requested, shifts)
    positional = "wds" if shifts else "wd"
    if requested == "gkm":
        return ModelChoice("gkm", requested, "requested (--model gkm)", held_out)
    if requested != "auto":
        return ModelChoice(requested, requested, f"requested (--model {requested})", held_out)
    auroc = None if held_out is None else held_out.get("auroc")
    name = positional.upper()
    if auroc is None:
        return ModelChoice(positional, requested, f"no held-out split (test fraction 0): the positional {name} "
                                                 "model is kept", held_out)
    if auroc < CHANCE_AUROC:
        return ModelChoice("gkm", requested, f"the positional {name} model is near chance held out (auROC "
                                            f"{auroc:.3f} < {CHANCE_AUROC}); the position-free gapped-k-mer "
                                            "model finds the motifs", held_out)
    if auroc < COMPARE_AUROC and gkm_held_out is not None:
        gkm = gkm_held_out()
        if gkm.get("auroc") is not None and gkm["auroc"] >= auroc + MARGIN:
            return ModelChoice("gkm", requested, f"the position-free gapped-k-mer model predicts better held out "
                                                f"(auROC {gkm['auroc']:.3f} against {auroc:.3f} of the positional "
                                                f"{name} model, margin {MARGIN})", held_out, gkm)
        return ModelChoice(positional, requested, f"the positional {name} model is informative held out (auROC "
                                                 f"{auroc:.3f}) and the gapped-k-mer model is not better by "
                                                 f"{MARGIN} (auROC {gkm['auroc']:.3f})", held_out, gkm)
    return ModelChoice(positional, requested, f"the positional {name} model is informative held out (auROC "
                                             f"{auroc:.3f} >= {CHANCE_AUROC})", held_out)


def gkm_parameters(model, info, route, random_state) -> dict:
    return {"model": "gkm", "word_length": model.word_length, "informative": model.informative, "C": model.C,
            "test_fraction": model.test_fraction, "seed": recorded_seed(random_state), "tol": GKM_TOL,
            "held_out_tol": info.get("held_out_tol"),
            # no wall-clock (in the log): the same run writes the same bytes
            "gkm_metrics": {k: info[k] for k in ("n_train", "n_test", "accuracy", "auroc")},
            "model_route": route.record()}


