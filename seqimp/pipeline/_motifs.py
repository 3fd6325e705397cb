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

from .._tables import write_tsv
from ..errors import SeqimpError
from ._run import _encode, _labels, _train, check_job, compute_importance, make_background

__all__ = ["MotifRun", "run_motifs", "load_poim"]

logger = logging.getLogger(__name__)

#: Logged before the first TOMTOM comparison on an empty numba cache.
COMPILE_NOTICE = "compiling motif comparison (TOMTOM), once, ~2 min"


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
    """

    motifs: list
    matches: object
    candidates: object
    files: list = field(default_factory=list)
    result: object = None

    def table(self):
        """``motifs.tsv``: ``name, consensus, start`` (1-based), ``length, spread, score, sites``."""
        from ..motifs import motif_table

        return motif_table(self.motifs)


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


def run_motifs(out, *, poim=None, positive=None, negative=None, database=None, db_format=None, max_motifs=3,
               measure="poim", fit_order=3, min_score=0.02, top_matches=5, fmt="png", degree=8, shifts=0, C=1.0,
               test_fraction=0.2, random_state=None, max_order=None, background="negative", max_memory=None,
               progress=False, report=True) -> MotifRun:
    """Find the motifs a model relies on and write them into the folder ``out``.

    Starts from a POIM (``poim``) or trains a WD classifier on ``positive`` vs ``negative``
    and computes its POIM (:func:`train_model`, :func:`make_background`,
    :func:`compute_importance`). Then :func:`seqimp.motifs.discover_motifs`, site counts in
    the positives (:func:`seqimp.motifs.count_sites`; motifs without enriched sites are
    dropped unless none has any) and TOMTOM matches against ``database``.

    Parameters
    ----------
    out : path-like
        Folder to write into (created if missing; its parent must exist): ``motifs.meme``,
        ``motifs.jaspar``, ``motifs.transfac``, ``motifs.tsv``, ``motif_candidates.tsv``,
        ``logos/`` (one logo per motif and ``importance_logo``), ``matches.tsv`` (with a
        database) and ``poim.npz`` (when trained here).
    poim : POIMResult or path-like, optional
        A POIM instead of training.
    positive, negative : list of str, SequenceSet or ndarray of shape (n, L), optional
        Both or neither. Without ``poim`` they train the model; with it they only
        calibrate the PWMs by counting sites.
    database : sequence of Motif or path-like, optional
        Known motifs (a MEME, JASPAR or TRANSFAC file, format ``db_format`` or recognised).
    max_motifs, measure, fit_order, min_score :
        Of :func:`seqimp.motifs.discover_motifs`; POIM orders ``1..min(fit_order, max_order)``
        are fitted.
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
    from ..motifs import count_sites, discover_motifs, read_motifs
    from ._matches import write_match_logos

    if database is not None and isinstance(database, (str, os.PathLike)):
        database = read_motifs(database, db_format)
    pos, neg = _encode(positive, negative)
    if (pos is None) != (neg is None):
        raise SeqimpError("give both positive and negative sequences (or neither, with a POIM)")
    trained = poim is None
    if not trained:
        result = load_poim(poim) if isinstance(poim, (str, os.PathLike)) else poim
        if pos is not None and pos.shape[1] != result.length:
            raise SeqimpError(f"positive sequences have length {pos.shape[1]}, but the POIM describes sequences "
                              f"of length {result.length}")
    elif pos is None:
        raise SeqimpError("positive and negative sequences are required (or start from a POIM)")
    else:
        result = _train_and_explain(pos, neg, degree=degree, shifts=shifts, C=C, test_fraction=test_fraction,
                                    random_state=random_state, max_order=max_order, background=background,
                                    max_memory=max_memory, progress=progress)
    fit_order = min(fit_order, result.max_order)
    logger.info(f"finding motifs in a POIM of length {result.length}, orders 1..{result.max_order}")
    found = discover_motifs(result, max_motifs=max_motifs, measure=measure, orders=range(1, fit_order + 1),
                            min_score=min_score)
    motifs = found.motifs
    if pos is not None:
        logger.info("counting motif sites in the positive sequences")
        counted = [count_sites(m, pos, neg) for m in motifs]
        enriched = [m for m in counted if m.sites > 0]
        for m in counted:
            if m.sites == 0:
                logger.info(f"{m.name} ({m.consensus} at {m.start}) has no sites enriched in the positives"
                            + ("; dropped" if enriched else ""))
        motifs = found.motifs = enriched or counted
    matches = None
    if database is not None:
        matches = _compare(motifs, list(database), top_matches)
    run = MotifRun(motifs, matches, found.candidates, result=result)
    run.files = _write_motif_files(Path(out), run, measure=measure, fmt=fmt, with_poim=trained)
    run.files += write_match_logos(matches, motifs, database or [], Path(out) / "logos", fmt)
    if report:
        update_report(out)
    return run


def _train_and_explain(pos, neg, *, degree, shifts, C, test_fraction, random_state, max_order, background,
                       max_memory, progress):
    """The POIM of a WD model trained on encoded positives vs negatives (job checked first)."""
    length = pos.shape[1]
    max_order = degree if max_order is None else int(max_order)
    check_job(length, degree=degree, max_order=max_order, max_memory=max_memory)
    weights, _info = _train(*_labels(pos, neg), degree=degree, shifts=shifts, C=C, test_fraction=test_fraction,
                            random_state=random_state, progress=progress)
    bg, text = make_background(background, positive=pos, negative=neg, length=length)
    logger.info(f"computing POIM and FIRM up to order {max_order} ({text})")
    return compute_importance(weights, bg, max_order=max_order, max_memory=max_memory, progress=progress)


def _compare(motifs, database, top):
    """TOMTOM matches, announcing the one-off compilation of its kernels on an empty cache."""
    from ..motifs import compare_motifs
    from ..motifs._compare import tomtom_compiled

    logger.info(f"comparing {len(motifs)} motif(s) with {len(database)} known motifs (TOMTOM)")
    if database and motifs and not tomtom_compiled():
        logger.info(COMPILE_NOTICE)
    return compare_motifs(motifs, database, top=top)


def _write_motif_files(out: Path, run: MotifRun, *, measure, fmt, with_poim) -> list:
    """Motif files, tables, ``poim.npz`` (``with_poim``) and logos into ``out``; the paths written."""
    import matplotlib.pyplot as plt

    from ..motifs import write_jaspar, write_meme, write_transfac
    from ..plot._logos import importance_logo, logo

    motifs, result = run.motifs, run.result
    out.mkdir(exist_ok=True)
    files = [out / "motifs.meme", out / "motifs.jaspar", out / "motifs.transfac", out / "motifs.tsv",
             out / "motif_candidates.tsv"]
    write_meme(motifs, files[0])
    write_jaspar(motifs, files[1])
    write_transfac(motifs, files[2])
    write_tsv(run.table(), files[3])
    write_tsv(run.candidates, files[4])
    if run.matches is not None:
        write_tsv(run.matches, out / "matches.tsv")
        files.append(out / "matches.tsv")
    if with_poim:
        result.save(out / "poim.npz")
        files.append(out / "poim.npz")
    (out / "logos").mkdir(exist_ok=True)
    figures = [(logo(m), f"{m.name}_logo") for m in motifs]
    lo = max(min(m.start for m in motifs) - 5, 1)
    hi = min(max(m.start + m.length - 1 for m in motifs) + 5, result.length)
    if hi - lo + 1 > 120:  # motifs far apart: show the strongest one's neighbourhood only
        centre = motifs[0].start + motifs[0].length // 2
        lo, hi = max(centre - 60, 1), min(centre + 59, result.length)
    figures.append((importance_logo(result, measure=measure, positions=(lo, hi)), "importance_logo"))
    for ax, name in figures:
        files.append(out / "logos" / f"{name}.{fmt}")
        ax.figure.savefig(files[-1], dpi=130)
        plt.close(ax.figure)
    return files


def update_report(folder):
    """Rewrite ``report.html`` of a ``seqimp poim`` folder (one with ``summary.json``) with its
    motif section; return its path, or None for other folders."""
    from ._report import write_report

    folder = Path(folder)
    if not (folder / "summary.json").exists():
        return None
    path = write_report(folder, motifs_dir=folder)
    logger.info(f"report updated: {folder}/report.html")
    return path
