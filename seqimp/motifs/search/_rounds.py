"""Explaining away: rounds 2, 3, ... of a motif run (up to ``MotifOptions.rounds``). The sites of
the motifs the last round reported are erased in the positives and the negatives
(:func:`seqimp.motifs._sites.mask_sites`: random letters of the negatives' frequencies), the model is
trained again on what is left, and motifs are looked for in it, copies of motifs already reported
merged into them; the rounds stop at the first that reports no new motif, or only composition
(then the deeper search of :mod:`._depth` goes on, one candidate at a time). A second motif that
the first one's importance hid comes out beside it. :func:`explain_away` is the loop;
:func:`poim_rounds` and :func:`gkm_rounds` give it the search of each model."""

from __future__ import annotations

import contextlib
import logging
from dataclasses import replace

import numpy as np

from ...training import train_gkm
from ...training._gkm import ROUND_TOL
from ._depth import erase_sites, search_deeper
from ._gkm_route import gkm_motifs
from ._poim_route import poim_motifs, trained_poim
from ._run import joined_tests, motif_matches
from ._word_route import word_motifs

__all__ = ["explain_away", "composition_only", "poim_rounds", "gkm_rounds", "PARKED_POIM"]

#: The file of the first round's POIM while later rounds run (:func:`poim_rounds`)
PARKED_POIM = ".motifs_poim.parked.npz"

logger = logging.getLogger(__name__)


def explain_away(run, data, *, options, search, random_state):
    """The rounds after ``run``, up to ``options.rounds``: the sites of the motifs the last round
    reported erased in copies of the sequences, then ``search`` on what is left, until a round
    reports no new motif, or only motifs that are the positives' composition (reported, flagged;
    :func:`composition_only`): the model's strongest signal left is then the letters and letter
    pairs of the positives, and a further round finds more of it (UCI splice donors: a second
    G/C-rich composition motif, then none). The deeper search goes on from there.

    Parameters
    ----------
    run : MotifRun
        The first round's (with ``stats`` and ``sites``).
    data : LabelledSequences
        Positives and negatives, codes of shape (n, L) each; not changed (the rounds mask copies).
    options : MotifOptions
        ``rounds`` and ``strand``.
    search : callable
        ``search(masked, round, accepted) -> MotifRun``: retrains on the masked sequences and
        finds the round's motifs, numbered on from ``accepted``.
    random_state : int or None
        The seed of the letters that erase the sites.

    Returns
    -------
    MotifRun
        ``run`` with the motifs, statistics, sites and candidates of all rounds joined
        (``parameters["rounds_run"]``), or as it was after a single round.
    """
    import pandas as pd

    from ...errors import check_random_state

    accepted, new, steps = list(run.motifs), list(run.motifs), [run]
    pos, neg = data.positive.copy(), data.negative.copy()
    rng = check_random_state(random_state)
    strands = ("+", "-") if options.strand == "both" else ("+",)
    for number in range(2, options.rounds + 1):
        if not new:
            break
        erase_sites(new, steps[-1].stats, steps[-1].sites, pos, neg, strands, rng)
        step = search(replace(data, positive=pos, negative=neg), number, accepted)
        step.result = None  # only the first round's importance is kept
        new = list(step.motifs)
        accepted += new
        steps.append(step)
        if new and composition_only(step):
            logger.info(f"round {number}: {len(new)} new motif(s), all the positives' composition (as frequent in "
                        "their dinucleotide shuffles); the model holds no further motif, done")
            break
        logger.info(f"round {number}: {len(new)} new motif(s)" + ("" if new else "; nothing more is enriched, done"))
    if len(steps) == 1:
        return run
    run.motifs = accepted
    run.scanning = [m for s in steps for m in s.scanning]
    run.stats = pd.concat([s.stats for s in steps if len(s.stats)] or [run.stats], ignore_index=True)
    run.sites = pd.concat([s.sites for s in steps if len(s.sites)] or [run.sites], ignore_index=True)
    run.candidates = pd.concat([s.candidates for s in steps], ignore_index=True)
    run.candidate_tests = joined_tests(steps)
    run.parameters["rounds_run"] = len(steps)
    run.tested = sum(s.tested for s in steps)
    return run


def composition_only(step) -> bool:
    """Whether every motif a round reported is flagged as the positives' composition
    (``stats["composition"]``, :func:`seqimp.motifs.select_motifs`)."""
    stats = step.stats
    if not len(stats) or "composition" not in stats:
        return False
    return bool(stats["composition"].astype(bool).all())


def poim_rounds(run, data, *, model, background, importance, motifs, random_state, progress, park=None, duals=None):
    """The rounds of a positional (WD/WDS) motif run: each retrains the model on the masked
    sequences (no held-out split; from the last fit's dual variables), computes its POIM and searches it
    (:func:`~._poim_route.poim_motifs`); where that finds no new motif, the words most enriched
    in the masked positives seed the round instead (:func:`~._word_route.word_motifs`), so
    that the rounds stop only when neither the model nor the counts hold a further motif. The
    deeper search follows, position-free (:func:`~._depth.search_deeper`: word candidates one at
    a time until three fail in a row): a motif anywhere in the sequences leaves a positional
    model's POIM flat, and in promoters the model's rounds end on the G/C-rich motifs before
    NFY's CCAAT box or CREB's TGACGTCA.
    The POIM kept is the first round's: it waits in a file while the later rounds compute theirs
    (one POIM in memory), and is read back.

    Parameters
    ----------
    run : MotifRun
        The first round's; ``run.result`` its POIM.
    data : LabelledSequences
        Positives and negatives, codes of shape (n, L) each.
    model, background, importance, motifs : ModelOptions, BackgroundOptions, ImportanceOptions, MotifOptions
        As the first round's (:func:`~._poim_route.trained_poim`, :func:`~._poim_route.poim_motifs`).
    random_state : int or None
    progress : bool or None
        Progress bars of the training and the POIM levels.
    park : path-like, optional
        The folder of the parked POIM (:data:`PARKED_POIM`): the file is left there as
        ``run.result_file``, for the caller to move into place or remove, and removed on an error
        in the rounds; None: a temporary folder.
    duals : dict, optional
        The dual variables of the last fit (``duals["alpha"]``, :func:`~._poim_route.trained_poim`):
        each round's fit starts from the last one's (the sequences are the same but for the
        erased sites) and leaves its own there.

    Returns
    -------
    MotifRun
        All rounds joined (:func:`explain_away`), ``result`` the first round's POIM.
    """
    import tempfile
    from pathlib import Path

    import pandas as pd

    from ...importance import POIMResult

    if motifs.rounds < 2:
        return run
    duals = {} if duals is None else duals

    def rounds_and_deeper(run):
        if run.motifs:
            run = explain_away(run, data, options=motifs, search=search, random_state=random_state)
        return search_deeper(run, data, options=motifs, random_state=random_state,
                             first_round=run.parameters.get("rounds_run", 1) + 1)

    def search(masked, number, accepted):
        result = trained_poim(masked, model=replace(model, test_fraction=0.0), background=background,
                              importance=importance, random_state=random_state, progress=progress,
                              duals=duals)
        step = poim_motifs(result, masked, options=motifs, round=number, accepted=accepted, match=False,
                           random_state=random_state)
        if step.motifs:
            return step
        # nothing new in the retrained model: the words the sequences still hold, before the rounds stop
        words = word_motifs(masked, options=motifs, round=number, accepted=accepted, random_state=random_state)
        step.candidates = pd.concat([step.candidates, words.candidates], ignore_index=True)
        step.tested = words.tested = step.tested + words.tested
        step.candidate_tests = words.candidate_tests = joined_tests([step, words])
        if words.motifs:
            words.candidates, words.parameters = step.candidates, dict(step.parameters, word_seeds=True)
            return words
        return step

    if not isinstance(run.result, POIMResult):  # nothing to park
        return rounds_and_deeper(run)
    with contextlib.ExitStack() as stack:
        if park is None:
            folder = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="seqimp-rounds-")))
        else:
            folder = Path(park)
            folder.mkdir(exist_ok=True)
        parked = folder / PARKED_POIM
        run.result.save(parked)
        run.result = None
        try:
            run = rounds_and_deeper(run)
        except BaseException:
            parked.unlink(missing_ok=True)
            raise
        run.result = POIMResult.load(parked)
        if park is not None:
            run.result_file = parked
        return run


def gkm_rounds(run, data, *, model, options, random_state=None, fitted=None):
    """The rounds of a gkm motif run: each trains a gkm model again on the masked sequences
    (:func:`seqimp.training.train_gkm`, ``model``'s l, k and C, no held-out split, tol
    :data:`seqimp.training._gkm.ROUND_TOL`), starting from the previous round's dual variables
    (the sequences are the same but for the erased sites), and finds its motifs
    (:func:`~._gkm_route.gkm_motifs`, seeds from its l-mer weights); then the deeper search
    (:func:`~._depth.search_deeper`: word candidates one at a time until three fail in a row).

    Parameters
    ----------
    run : MotifRun
        The first round's.
    data : LabelledSequences
        Positives and negatives (codes, a row per sequence).
    model : ModelOptions
        ``word_length``, ``informative``, ``C``.
    options : MotifOptions
    random_state : int or None
    fitted : GKMClassifier, optional
        The first round's model, whose dual variables start round 2.

    Returns
    -------
    MotifRun
        All rounds joined and matched to ``options.database``.
    """
    previous = [fitted]

    def search(masked, number, accepted):
        X, y = masked.labelled()
        start = None if previous[0] is None else np.abs(previous[0].dual_coef_)
        gkm, _info = train_gkm(X, y, model=replace(model, test_fraction=0.0), random_state=random_state,
                               alpha_init=start, tol=ROUND_TOL)
        previous[0] = gkm
        return gkm_motifs(gkm, masked, options=options, round=number, accepted=accepted, match=False,
                          random_state=random_state, seqlets=False)

    if run.motifs and options.rounds >= 2:
        run = explain_away(run, data, options=options, search=search, random_state=random_state)
    run = search_deeper(run, data, options=options, random_state=random_state,
                        first_round=run.parameters.get("rounds_run", 1) + 1)
    run.matches = motif_matches(run, options)
    return run
