"""``seqimp motifs`` as a library function: POIM -> motifs -> sites -> matches -> files.

>>> from seqimp.pipeline import run_motifs                                # doctest: +SKIP
>>> run = run_motifs("motifs", positive=pos, negative=neg, degree=6)    # doctest: +SKIP
>>> run.table()                                                          # doctest: +SKIP
"""

from __future__ import annotations

import logging
import os
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import SeqimpError
from ._motif_files import update_report, write_motif_run
from ._run import check_job, compute_importance, make_background
from ._train import _encode, _labels, _train

__all__ = ["MotifRun", "run_motifs", "find_motifs", "add_motifs", "load_poim", "no_motifs_reason"]

logger = logging.getLogger(__name__)


@dataclass
class MotifRun:
    """What :func:`run_motifs` produced.

    Attributes
    ----------
    motifs : list of Motif
        Strongest first; PWMs from the sites in the positives when sequences were given.
    matches : Table or None
        TOMTOM matches (``matches.tsv``); None without a database.
    candidates : Table
        Differential-POIM peaks (``motif_candidates.tsv``).
    files : list of Path
        Files written.
    result : POIMResult
        The POIM the motifs were found in (given, loaded or computed).
    stats : DataFrame or None
        Per motif site statistics (:class:`seqimp.motifs.MotifSites`); None without sequences.
    sites : DataFrame or None
        The site table (``motif_sites.tsv``); None without sequences.
    parameters : dict
        Seed and options (``motifs.json``).
    coords : DataFrame or None
        The genome coordinates of the positives when they are genomic windows
        (:class:`seqimp.io.GenomicWindows`): ``motif_sites.bed`` is then in genome coordinates.
    """

    motifs: list
    matches: object
    candidates: object
    files: list = field(default_factory=list)
    result: object = None
    stats: object = None
    sites: object = None
    parameters: dict = field(default_factory=dict)
    coords: object = None

    def table(self):
        """``motifs.tsv``: one row per motif, strongest (largest ``score``) first: ``name,
        consensus`` (the written PWM's most probable letters), ``start`` (1-based, where the
        written PWM aligns on the given strand; for sites on the other strand its reverse
        complement aligns there), ``length, direction, position_free, spread, score`` (share
        of the POIM explained, 0..1), ``sites`` (positives with a site) and, with sequences,
        ``fraction_positive, fraction_negative, p_value, plus_strand, held_out_p_value``."""
        from ..motifs import motif_table

        table = motif_table(self.motifs)
        if self.stats is not None and len(table):
            cols = ["fraction_positive", "fraction_negative", "p_value", "plus_strand", "held_out_p_value"]
            table = table.merge(self.stats[["name"] + cols], on="name", how="left")
        return table

    def lines(self) -> list:
        """One line per motif for the terminal, strongest first: consensus, place, direction,
        score and, with sequences, sites."""
        lines = []
        for row in self.table().to_dict("records"):
            where = (f"position-free (sites around {row['start']}, sd {row['spread']:.1f})" if row["position_free"]
                     else f"start {row['start']}")
            text = (f"{row['name']}\t{row['consensus']}\t{where}\tlength {row['length']}\t{row['direction']}\t"
                    f"score {row['score']:.3f}")
            if "fraction_positive" in row:
                text += (f"\tsites {row['sites']} ({100 * row['fraction_positive']:.1f}% of positives, "
                         f"{100 * row['fraction_negative']:.1f}% of negatives, p = {row['p_value']:.2g}, "
                         f"held out p = {row['held_out_p_value']:.2g})")
            lines.append(text)
        return lines


def load_poim(path, *, name=None):
    """Read a ``poim.npz`` written by ``seqimp poim``, with one-line errors.

    Parameters
    ----------
    path : path-like
    name : str, optional
        How messages name the file (default: the path), e.g. ``"--poim results/poim.npz"``.

    Returns
    -------
    POIMResult or StreamedPOIM
        Whichever the file holds (:func:`seqimp.load_poim`).
    """
    from ..importance import load_poim as load_any

    path = Path(os.fspath(path))
    name = str(path) if name is None else name
    if not path.is_file():
        raise SeqimpError(f"{name}: " + ("is a directory, expected poim.npz" if path.is_dir() else "no such file"))
    try:
        return load_any(path)
    except (OSError, EOFError, ValueError, KeyError, zipfile.BadZipFile):  # SeqimpError is a ValueError
        raise SeqimpError(f"{name}: not a poim.npz written by 'seqimp poim'") from None


def run_motifs(out, *, poim=None, positive=None, negative=None, database=None, db_format=None, max_motifs=None,
               measure="poim", fit_order=3, min_score=0.0, top_matches=5, fmt="png", degree=8, shifts=0, C=1.0,
               test_fraction=0.2, random_state=None, max_order=None, background="negative", max_memory=None,
               progress=False, report=True, strand="given", fpr=0.01, max_pvalue=1e-3, max_held_out_pvalue=0.05,
               ids=None) -> MotifRun:
    """Find the motifs a model relies on and write them into the folder ``out``.

    Starts from a POIM (``poim``) or trains a WD classifier on ``positive`` vs ``negative``
    and computes its POIM. The importance comes from a model trained on *all* sequences;
    with ``test_fraction > 0`` a second model, trained on the rest of a stratified split,
    only reports held-out accuracy and auROC, so the motifs do not depend on the split.
    Every random choice uses ``random_state`` (default 0, recorded in ``motifs.json``).
    Then :func:`seqimp.motifs.discover_motifs`, refinement and sites on the sequences
    (:func:`seqimp.motifs.refine_motifs`; motifs whose sites are not enriched -- Fisher
    p-value above ``max_pvalue``, held-out p-value above ``max_held_out_pvalue`` or fewer
    than 5 sites -- are dropped; where none is enriched, the one best enriched held out is
    reported; a refined motif that copies a stronger one, :func:`seqimp.motifs.same_motif`,
    is merged into it) and TOMTOM matches against ``database``.

    Parameters
    ----------
    out : path-like
        Folder to write into (created if missing; its parent must exist): ``motifs.meme``,
        ``motifs.jaspar``, ``motifs.transfac``, ``motifs.tsv``, ``motif_candidates.tsv``,
        ``logos/`` (one logo per motif and ``importance_logo``), ``matches.tsv`` (with a
        database) and ``motifs_poim.npz`` (the POIM, when trained here; never ``poim.npz``, which is
        ``seqimp poim``'s).
    poim : POIMResult or path-like, optional
        A POIM instead of training.
    positive, negative : list of str, SequenceSet or ndarray of shape (n, L), optional
        Both or neither. Without ``poim`` they train the model; with it they only
        calibrate the PWMs by counting sites.
    database : sequence of Motif, path-like or str, optional
        Known motifs: a MEME, JASPAR or TRANSFAC file (format ``db_format`` or recognised), or
        a JASPAR release name such as ``"JASPAR2024"`` (through pyjaspar;
        :func:`seqimp.motifs.load_database`). Recorded in ``motifs.json`` (``database``).
        With JASPAR's class annotations, ``matches.tsv`` gets a ``target_class`` column.
    max_motifs, measure, fit_order, min_score :
        Of :func:`seqimp.motifs.discover_motifs`; POIM orders ``1..min(fit_order, max_order)``
        are fitted. ``max_motifs`` None: every peak above the noise.
    strand : {"given", "both"}, default="given"
        Sites on the given strand only, or on both (reverse complements are one motif).
    fpr : float, default=0.01
        Share of the negatives allowed a site (the site threshold).
    max_pvalue : float, default=1e-3
        Largest Fisher p-value of a motif's sites (positives against negatives).
    max_held_out_pvalue : float, default=0.05
        Largest Fisher p-value of its sites held out: each half of the sequences scored
        with the PWM and threshold fitted on the other half (``held_out_*`` columns of
        :func:`seqimp.motifs.refine_motifs`). The EM fits a motif to the positives it is
        given, so its sites there are enriched even for a composition or a chance pattern
        of a few dozen sequences; held out, they are not.
    ids : sequence of str, optional
        Positive sequence ids for ``motif_sites.tsv``/``.bed`` (default: the FASTA ids of a
        SequenceSet, else ``pos1, pos2, ...``).
    top_matches : int, default=5
        Best matches kept per motif.
    fmt : {"png", "svg", "pdf"}, default="png"
        Logo format.
    degree, shifts, C, test_fraction, random_state, max_order, background, max_memory :
        Training and POIM options (see :func:`run_poim`); used only without ``poim``.
    progress : bool, default=False
    report : bool, default=True
        When ``out`` holds a ``seqimp poim`` result (``summary.json``), rewrite its
        ``report.html`` with a motif section.

    Returns
    -------
    MotifRun

    Notes
    -----
    Progress lines go to the ``seqimp`` logger (:mod:`logging`, level INFO).
    """
    from ..errors import check_choice
    from ..motifs import load_database

    check_choice(strand, "strand", ("given", "both"))
    random_state = 0 if random_state is None else random_state
    if ids is None and positive is not None and hasattr(positive, "ids"):
        ids = list(positive.ids)
    if database is not None:
        database = load_database(database, db_format)
    pos, neg = _encode(positive, negative)
    if (pos is None) != (neg is None):
        raise SeqimpError("give both positive and negative sequences (or neither, with a POIM)")
    trained = poim is None
    if not trained:
        result = load_poim(poim) if isinstance(poim, (str, os.PathLike)) else poim
    elif pos is None:
        raise SeqimpError("positive and negative sequences are required (or start from a POIM)")
    else:
        result = _train_and_explain(pos, neg, degree=degree, shifts=shifts, C=C, test_fraction=test_fraction,
                                    random_state=random_state, max_order=max_order, background=background,
                                    max_memory=max_memory, progress=progress)
    run = find_motifs(result, pos, neg, database=database, max_motifs=max_motifs, measure=measure,
                      fit_order=fit_order, min_score=min_score, top_matches=top_matches, strand=strand, fpr=fpr,
                      max_pvalue=max_pvalue, max_held_out_pvalue=max_held_out_pvalue, ids=ids,
                      coords=getattr(positive, "coords", None))
    run.parameters.update(seed=random_state, trained=trained)
    if trained:
        run.parameters.update(degree=degree, shifts=shifts, C=C, test_fraction=test_fraction,
                              metrics=result.meta.get("metrics"))
    run.files = write_motif_run(out, run, database=database, measure=measure, fmt=fmt, with_poim=trained)
    if report:
        update_report(out)
    return run


def find_motifs(result, positive=None, negative=None, *, database=None, max_motifs=None, measure="poim",
                fit_order=3, min_score=0.0, top_matches=5, strand="given", fpr=0.01, max_pvalue=1e-3,
                max_held_out_pvalue=0.05, ids=None, coords=None) -> MotifRun:
    """The motif step shared by :func:`run_motifs` and ``seqimp poim``, on a POIM already
    computed: no training, nothing written.

    :func:`seqimp.motifs.discover_motifs` on ``result``; with sequences, refinement and sites
    on them (:func:`seqimp.motifs.refine_motifs`) and the motifs reported
    (:func:`seqimp.motifs.select_motifs`: motifs whose sites are not enriched are dropped, as in
    :func:`run_motifs`, and a refined motif that copies a stronger one is merged into it);
    TOMTOM matches against ``database`` (:func:`seqimp.motifs.database_matches`). The
    parameters are those of :func:`run_motifs` (``positive``/``negative`` both or neither, of
    the POIM's length); ``coords`` (default: ``positive.coords`` where the positives are
    genomic windows) places the sites in genome coordinates in ``motif_sites.bed``.

    Returns
    -------
    MotifRun
        Without ``files``; ``parameters`` hold the motif options (the caller adds the seed).
    """
    from ..errors import check_choice
    from ..motifs import database_info, database_matches, discover_motifs, load_database, refine_motifs, select_motifs

    check_choice(strand, "strand", ("given", "both"))
    if ids is None and positive is not None and hasattr(positive, "ids"):
        ids = list(positive.ids)
    if coords is None:
        coords = getattr(positive, "coords", None)
    if database is not None:
        database = load_database(database)
    pos, neg = _encode(positive, negative)
    if (pos is None) != (neg is None):
        raise SeqimpError("give both positive and negative sequences (or neither, with a POIM)")
    if pos is not None and pos.shape[1] != result.length:
        raise SeqimpError(f"positive sequences have length {pos.shape[1]}, but the POIM describes sequences "
                          f"of length {result.length}")
    result = _with_full_tables(result)
    fit_order = min(fit_order, result.max_order)
    logger.info(f"finding motifs in a POIM of length {result.length}, orders 1..{result.max_order}")
    found = discover_motifs(result, max_motifs=max_motifs, measure=measure, orders=range(1, fit_order + 1),
                            min_score=min_score, strands="both" if strand == "both" else "given")
    motifs, stats, sites = found.motifs, None, None
    if pos is not None:
        logger.info(f"refining {len(motifs)} motif(s) on the sequences (EM, strand {strand}) and finding sites")
        refined = refine_motifs(motifs, pos, neg, strand=strand, fpr=fpr, ids=ids)
        selected = select_motifs(refined, max_pvalue=max_pvalue, max_held_out_pvalue=max_held_out_pvalue,
                                 strands=strand)
        motifs, stats, sites = selected.motifs, selected.stats, selected.sites
    matches = None
    if database is not None:
        matches = database_matches(motifs, database, top=top_matches)
    parameters = {"strand": strand, "fpr": fpr, "max_pvalue": max_pvalue,
                  "max_held_out_pvalue": max_held_out_pvalue, "measure": measure,
                  "fit_order": fit_order, "max_motifs": max_motifs, "min_score": min_score,
                  "noise_level": found.noise, "database": database_info(database)}
    return MotifRun(motifs, matches, found.candidates, result=result, stats=stats, sites=sites,
                    coords=coords if sites is not None else None,
                    parameters=parameters)


def _with_full_tables(result, *, announce=True):
    """``result`` restricted to the orders whose full tables it holds: a streamed POIM (and the
    summaries in ``poim.npz``) keeps them for k <= 4 only, and motif candidates read whole rows.
    One log line (``announce``) says when orders are left out."""
    from ..importance import POIMResult

    full = 0
    while full < result.max_order and result.poim[full] is not None and result.firm[full] is not None:
        full += 1
    if full == result.max_order:
        return result
    if full == 0:
        raise SeqimpError("the POIM holds no full tables (only summaries): motifs need the tables of order 1 at least")
    if announce:
        logger.info(f"motifs from POIM orders 1..{full}: the higher orders are kept as summaries only "
                    "(streaming engine or poim.npz)")
    return POIMResult(list(result.poim[:full]), list(result.firm[:full]), expected_score=result.expected_score,
                      score_std=result.score_std, alphabet=result.alphabet, method=result.method, meta=result.meta)


def add_motifs(out, result, positive, negative, *, database=None, strand="given", top_matches=5, fmt="png",
               random_state=None) -> MotifRun:
    """``seqimp poim``'s motifs: :func:`find_motifs` on the POIM it computed (any route: a model
    trained there, a saved ``--model``, a sampled POIM of an external scorer) and the DNA
    sequences of the run (no retraining), the files of :func:`run_motifs` (no
    ``motifs_poim.npz``: the folder's ``poim.npz`` is the POIM) written into ``out``, a
    ``seqimp poim`` folder, whose ``report.html`` gets the motif section and ``summary.json``
    the best motif.

    ``random_state`` is the run's seed (recorded in ``motifs.json``); the motif step itself
    draws nothing at random.

    Returns None, writing nothing, when the POIM holds no motif (e.g. a model of random
    sequences: no peak of the differential POIM; a POIM of order 1 only): one log line gives
    the reason (:func:`no_motifs_reason`). The POIM's own outputs stand either way.
    """
    result = _with_full_tables(result)
    reason = no_motifs_reason(result)
    if reason is not None:
        logger.warning(f"no motifs: {reason}")
        return None
    run = find_motifs(result, positive, negative, database=database, strand=strand, top_matches=top_matches)
    run.parameters.update(seed=0 if random_state is None else random_state, trained=False,
                          poim="poim.npz of seqimp poim")
    run.files = write_motif_run(out, run, database=database, fmt=fmt)
    update_report(out, announce=False)
    return run


def no_motifs_reason(result):
    """Why ``result`` holds no motif candidates (peaks of the differential POIM at orders 2 and
    up), as a phrase for the terminal, or None when it holds some."""
    from ..motifs import motif_candidates

    result = _with_full_tables(result, announce=False)
    if result.max_order < 2:
        return "a POIM of order 1 only; motif candidates are peaks at orders 2 and up (--max-order 2 or more)"
    if len(motif_candidates(result, 1)) == 0:
        return "the differential POIM has no positive peak"
    return None


def _train_and_explain(pos, neg, *, degree, shifts, C, test_fraction, random_state, max_order, background,
                       max_memory, progress):
    """The POIM of a WD model trained on encoded positives vs negatives (job checked first)."""
    length = pos.shape[1]
    max_order = degree if max_order is None else int(max_order)
    check_job(length, degree=degree, max_order=max_order, max_memory=max_memory)
    X, y = _labels(pos, neg)
    info = None
    if test_fraction > 0:  # held-out accuracy only; the importance comes from all sequences
        _w, info = _train(X, y, degree=degree, shifts=shifts, C=C, test_fraction=test_fraction,
                          random_state=random_state, progress=progress, max_memory=max_memory)
    weights, _all = _train(X, y, degree=degree, shifts=shifts, C=C, test_fraction=0.0, random_state=random_state,
                           progress=progress, max_memory=max_memory)
    bg, text = make_background(background, positive=pos, negative=neg, length=length)
    logger.info(f"computing POIM and FIRM up to order {max_order} ({text})")
    result = compute_importance(weights, bg, max_order=max_order, max_memory=max_memory, progress=progress)
    if info is not None:
        result.meta = dict(result.meta or {}, metrics={k: info[k] for k in ("n_test", "accuracy", "auroc")})
    return result

