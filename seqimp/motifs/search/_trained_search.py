"""The motif search of a run that trains its model: the model chosen (:func:`choose_route`: the
positional WD/WDS model or the position-free gapped-k-mer model, :func:`seqimp.training.choose_model`),
trained, the motifs of its first round found (:mod:`._poim_route`, :mod:`._gkm_route`) and
explained away round after round (:mod:`._rounds`). :func:`trained_motifs` is the whole search."""

from __future__ import annotations

import logging

from ...importance._poim_job import check_job
from ...training import choose_model, train_classifier, train_gkm
from ...training._gkm import ROUND_TOL
from ...training._model_choice import check_kind, gkm_parameters
from ._gkm_route import gkm_motifs
from ._poim_route import poim_motifs, trained_poim
from ._rounds import gkm_rounds, poim_rounds
from ._run import motif_matches

__all__ = ["choose_route", "trained_motifs"]

logger = logging.getLogger(__name__)


def choose_route(data, *, model, background, importance, random_state, progress=None):
    """The model a run that trains explains (:func:`seqimp.training.choose_model`): the positional
    model's held-out fit first (the POIM job checked before it) unless the gkm model is asked for;
    the gkm model's held-out fit only where the choice compares the two.

    Parameters
    ----------
    data : LabelledSequences
        Positives and negatives, codes of shape (n, L) each.
    model : ModelOptions
        ``kind``, ``shifts``, ``test_fraction`` and the options of both models.
    background, importance : BackgroundOptions, ImportanceOptions
        Those of the POIM the positional route computes (its job check).
    random_state : int or None
        The held-out split and the solvers.
    progress : bool or None
        Progress bars of the positional model's training.

    Returns
    -------
    ModelChoice
        The route, why, and the held-out fits made for the choice (reused by the route; the
        positional fit's info with its ``alpha_start``, the start of the fit on all sequences).
    """
    kind = check_kind(model.kind, model.shifts)
    X, y = data.labelled()
    held = None
    if kind != "gkm":
        check_job(data.length, degree=model.degree, max_order=importance.order(model.degree),
                  background_order=background.order, max_memory=importance.max_memory)
        if model.test_fraction > 0:
            _w, held = train_classifier(X, y, model=model, random_state=random_state, progress=progress,
                                        max_memory=importance.max_memory, weights=False, keep_start=True)
    return choose_model(kind, shifts=model.shifts, held_out=held,
                        gkm_held_out=lambda: train_gkm(X, y, model=model, random_state=random_state, full=False)[1])


def trained_motifs(data, *, model, background, importance, motifs, random_state, progress=None,
                   on_first_round=None, park=None):
    """The motifs of a model trained on ``data``: the route chosen (:func:`choose_route`), the
    model trained on all sequences, its motifs found, explained away round after round (up to
    ``motifs.rounds``) and matched to ``motifs.database``.

    On the positional route the motifs come from the POIM of the WD/WDS model
    (:func:`~._poim_route.trained_poim`, :func:`~._poim_route.poim_motifs`, :func:`~._rounds.poim_rounds`),
    on the gkm route from the l-mers and seqlets of a :class:`~seqimp.kernels.GKMClassifier`
    (:func:`~._gkm_route.gkm_motifs`, :func:`~._rounds.gkm_rounds`).

    Parameters
    ----------
    data : LabelledSequences
        Positives and negatives, codes of shape (n, L) each (records of any lengths padded to
        one: the gkm route only).
    model, background, importance, motifs : ModelOptions, BackgroundOptions, ImportanceOptions, MotifOptions
        ``motifs.database`` loaded (:func:`~._run.with_database_loaded`).
    random_state : int
        Every random choice.
    progress : bool or None
        Progress bars of the training and the POIM levels.
    on_first_round : callable, optional
        ``on_first_round(run)``, called with the first round's :class:`~._run.MotifRun` before
        the later rounds search (a command line run sends its figures ahead to the figure
        process).
    park : path-like, optional
        Where the positional route keeps the first round's POIM while the later rounds run
        (:func:`~._rounds.poim_rounds`): the file is left there as ``run.result_file``, for the
        caller to move into place or remove.

    Returns
    -------
    MotifRun
        Without ``files``; ``parameters`` record the model and its route (``model_route``).
    """
    choice = choose_route(data, model=model, background=background, importance=importance,
                          random_state=random_state, progress=progress)
    logger.info(f"model route: {choice.route} ({choice.reason})")
    if choice.route == "gkm":
        X, y = data.labelled()
        gkm, info = train_gkm(X, y, model=model, random_state=random_state, held_out=choice.gkm_held_out)
        run = gkm_motifs(gkm, data, options=motifs, match=False, random_state=random_state)
        if on_first_round is not None:
            on_first_round(run)
        run = gkm_rounds(run, data, model=model, options=motifs, random_state=random_state, fitted=gkm)
        run.parameters.update(gkm_parameters(model, info, choice, random_state), round_tol=ROUND_TOL)
        return run
    duals = {}  # the dual variables of each fit start the next round's (_rounds.poim_rounds)
    result = trained_poim(data, model=model, background=background, importance=importance, random_state=random_state,
                          progress=progress, held_out=choice.held_out, duals=duals)
    run = poim_motifs(result, data, options=motifs, match=False, random_state=random_state)
    if on_first_round is not None:
        on_first_round(run)
    result = None  # run.result holds the POIM; poim_rounds parks it meanwhile
    run = poim_rounds(run, data, model=model, background=background, importance=importance, motifs=motifs,
                      random_state=random_state, progress=progress, park=park, duals=duals)
    run.matches = motif_matches(run, motifs)
    if not run.motifs and not model.shifts:
        logger.info("hint: a motif whose place varies along the sequences needs a model with shifts "
                    "(--shifts) or shows as position-free")
    run.parameters.update(degree=model.degree, shifts=model.shifts, C=model.C, test_fraction=model.test_fraction,
                          metrics=run.result.meta.get("metrics"), model_route=choice.record())
    return run
