"""The position-free gapped-k-mer (gkm) model of the runs: :func:`train_gkm`, held out on the
split of :func:`~seqimp.training._classifier.held_out_split`, then trained on all sequences from a warm start."""

from __future__ import annotations

import logging
import time

import numpy as np

from ._classifier import evaluate, held_out_split, held_out_start, recorded_seed

__all__ = ["train_gkm", "held_out_start", "GKM_TOL", "ROUND_TOL", "HELD_OUT_TOL", "HELD_OUT_LOOSE_FROM"]

logger = logging.getLogger(__name__)

#: The stopping tolerance of the runs' gkm fits (``GKMClassifier(tol=...)``): liblinear's default
#: for its dual solvers. On the ``anywhere`` set of motif_benchmark_2 the passes fell from 19
#: (``tol`` 0.01, the estimator's default) to 12 with the same best l-mers (FOXA2's, z 9.7).
GKM_TOL = 0.1
#: The stopping tolerance of the gkm fits of explaining away (rounds 2, 3, ... of a motif run,
#: :func:`seqimp.motifs.search._rounds.gkm_rounds`), which only say which l-mers still stand out once the reported
#: motifs' sites are erased: at 0.5 the held-out fits of six gkm-route benchmark sets took 4-7 passes
#: instead of 7-12 with the same 50 best l-mers (48 of 50 on two); the first round's fits, whose
#: l-mers seed the reported motifs, keep :data:`GKM_TOL` (docs/kernels.md, "Speed").
ROUND_TOL = 0.5
#: The stopping tolerance of the held-out gkm fit (on the training split), which only gives the
#: held-out auROC that chooses the route and the start of the fit on all sequences (at
#: :data:`GKM_TOL`, so the model the motifs come from is held to the same rule): on four
#: gkm-route sets (gen shuffled, repeats, gcrich, anywhere) the held-out auROC moved by at most
#: 0.002 and the fit on all took as many passes (10, 15-16, 10, 9) as from a fit at 0.1, the two
#: fits 0.4-2.2 s less (docs/kernels.md, "Speed").
HELD_OUT_TOL = 0.5
#: The held-out fit stops at :data:`HELD_OUT_TOL` from this many training sequences on; a smaller
#: one, which takes under a second either way, keeps the tolerance of the fit on all. The stopping
#: point decides which of near-equal seeds a run's motif grows from: on ``few`` (240 sequences)
#: the PWM alone recalled 0.433 of the planted sites with the held-out fit at 0.5 and 0.522 at 0.1
#: (STREME's: 0.522).
HELD_OUT_LOOSE_FROM = 1000


def train_gkm(X, y, *, model, random_state, held_out=None, full=True, alpha_init=None, tol=GKM_TOL):
    """A :class:`~seqimp.kernels.GKMClassifier` (``model.word_length``, ``model.informative``,
    ``model.C``, ``tol``: :data:`GKM_TOL` unless given) evaluated on the held-out split of :func:`~seqimp.training._classifier.held_out_split` (same stratified split,
    same seed; that fit stops at the looser of ``tol`` and :data:`HELD_OUT_TOL` from
    :data:`HELD_OUT_LOOSE_FROM` training sequences on, else at ``tol``) and then trained
    on all sequences, which the motifs come from. The fit on all
    sequences starts from the held-out fit's dual variables and the held-out rows' margins
    (:func:`held_out_start`, ``alpha_init`` of :meth:`~seqimp.kernels.GKMClassifier.fit`: the
    same optimum in fewer passes), or from
    ``alpha_init`` when given (an earlier round's model on the same sequences, masked); a fit
    with nothing to start from starts with every dual variable at ``C``, its upper bound: the
    gkm route runs where the positional model is near chance or weak, and on such data most
    sequences end inside the margin, at ``C`` (68% on the ``anywhere`` set of
    motif_benchmark_2, 39% on ``few``). The optimum is the same; the held-out fit on
    ``anywhere`` took 10 passes (14,885 coordinate visits) from there instead of 13 (20,594)
    from 0, on ``few`` 1,398 visits instead of 1,831.

    ``held_out``: that evaluation already made (a route's ``gkm_held_out``), reused, with the start
    it made for the fit on all sequences;
    ``full=False``: the evaluation only (no model, info without the timings; its ``alpha_start``, the
    start :func:`held_out_start` made, is taken out again where the info is passed as ``held_out``).

    Returns
    -------
    gkm : GKMClassifier or None
        Trained on all of ``X`` (None with ``full=False``).
    info : dict
        ``n_train, n_test, accuracy, auroc`` (held out; None without a split),
        ``held_out_tol`` (the held-out fit's tolerance; only with a split),
        ``train_seconds`` (the fit on all sequences) and ``seconds_per_1000`` (of that fit).
    """
    from ..kernels import GKMClassifier

    def fit(X, y, alpha_init=None, tol=tol):
        if alpha_init is None:  # every dual variable at C (docstring)
            alpha_init = np.full(len(y), float(model.C))
        return GKMClassifier(model.word_length, model.informative, C=model.C, tol=tol,
                             random_state=recorded_seed(random_state)).fit(X, y, alpha_init=alpha_init)

    info = {"n_train": int(len(y)), "n_test": 0, "accuracy": None, "auroc": None}
    if held_out is not None:
        info = dict(held_out)
        start = info.pop("alpha_start", None)      # the evaluation's start for the fit on all (below)
        if alpha_init is None:
            alpha_init = start
    elif model.test_fraction > 0:
        train, test = held_out_split(y, model.test_fraction, random_state)  # the WD model's rows
        held_tol = max(tol, HELD_OUT_TOL) if len(train) >= HELD_OUT_LOOSE_FROM else tol
        held = fit(X[train], y[train], tol=held_tol)
        decision = held.decision_function(X[test])
        info.update(evaluate(decision, y[test]), n_train=int(len(train)), held_out_tol=held_tol)
        if alpha_init is None:
            alpha_init = held_out_start(held, train, test, decision, y)
        logger.info(f"gkm classifier (l {model.word_length}, k {model.informative}): held-out accuracy "
                    f"{info['accuracy']:.3f}, auROC {info['auroc']:.3f} on {info['n_test']} sequences")
    if not full:
        if alpha_init is not None:      # kept for the fit on all that may follow (``held_out``), not recorded
            info["alpha_start"] = alpha_init
        return None, info
    logger.info(f"training the gkm classifier on all {len(y)} sequences (l {model.word_length}, "
                f"k {model.informative}, C {model.C:g})")
    start = time.perf_counter()
    gkm = fit(X, y, alpha_init)
    info["train_seconds"] = time.perf_counter() - start
    info["seconds_per_1000"] = info["train_seconds"] * 1000.0 / len(y)
    logger.info(f"gkm classifier trained in {info['train_seconds']:.1f} s ({gkm.n_iter_} passes"
                + (", from the dual variables of an earlier fit)" if alpha_init is not None
                   else ", from every dual variable at C)"))
    return gkm, info
