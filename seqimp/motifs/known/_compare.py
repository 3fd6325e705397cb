"""Matches of motifs to a database of known motifs: TOMTOM (memelite) p- and q-values, trimming of
uninformative columns, an information floor and a decoy-calibrated verdict; :func:`database_matches`,
the matches a motif run reports (with the database's classes)."""

from __future__ import annotations

import logging
import zlib

import numpy as np
import pandas as pd

from ...errors import SeqimpError, check_int, check_number, check_random_state
from .._motif import information_content

__all__ = ["compare_motifs", "database_matches", "bh_qvalues", "best_matches", "match_line", "trim_uninformative",
           "make_decoys", "NO_MATCH", "UNINFORMATIVE", "meme_pseudocount", "tomtom_compiled", "COMPILE_NOTICE",
           "tomtom_warmup"]

logger = logging.getLogger(__name__)

#: Logged before the first TOMTOM comparison on an empty numba cache.
COMPILE_NOTICE = "compiling motif comparison (TOMTOM), once, ~1 min of CPU"
#: Logged when a run waits for the background compilation of :func:`tomtom_warmup`.
WAIT_NOTICE = "waiting for the motif comparison (TOMTOM) to finish compiling in the background (once)"


def bh_qvalues(p) -> np.ndarray:
    """Benjamini-Hochberg q-values of p-values along the last axis (monotone, capped at 1)."""
    p = np.asarray(p, dtype=np.float64)
    n = p.shape[-1]
    order = np.argsort(p, axis=-1, kind="stable")
    ranked = np.take_along_axis(p, order, axis=-1) * n / np.arange(1, n + 1)
    ranked = np.minimum.accumulate(ranked[..., ::-1], axis=-1)[..., ::-1]
    q = np.empty_like(ranked)
    np.put_along_axis(q, order, np.minimum(ranked, 1.0), axis=-1)
    return q


# Defaults (documented in docs/motifs.md, "Matches to known motifs")
TRIM_IC = 0.2        # bits: end columns below this are trimmed before comparing
MIN_IC = 4.0         # bits: trimmed motifs with less information in total are not compared
N_DECOYS = 100       # decoys per query for the calibrated significance
NO_MATCH = "no significant match"
UNINFORMATIVE = "not compared: uninformative"
TOMTOM_PSEUDOCOUNT = 0.1  # MEME tomtom's default -motif-pseudo
MEME_DEFAULT_SITES = 20   # sites MEME assumes for a motif file without nsites
MEDIAN_BINS = 100_000     # memelite n_median_bins: medians resolved to 1e-5 of the score range
_EULER = 0.5772156649015329


def trim_uninformative(pwm, min_ic=TRIM_IC):
    """The 0-based column range ``(lo, hi)`` left after trimming end columns with less than
    ``min_ic`` bits of information (uniform background); ``(0, 0)`` when none is left."""
    ic = information_content(pwm)
    keep = np.flatnonzero(ic >= min_ic)
    return (0, 0) if keep.size == 0 else (int(keep[0]), int(keep[-1]) + 1)


def make_decoys(pwm, n, rng) -> list:
    """``n`` decoys of a PWM (m, 4): the first half permute its columns, the second half also
    permute the letters within every column (random PWMs with the query's per-column
    information content). Arrays of shape (m, 4)."""
    pwm = np.asarray(pwm, dtype=np.float64)
    m = len(pwm)
    out = []
    for d in range(n):
        decoy = pwm[rng.permutation(m)]
        if d >= n // 2:
            decoy = np.take_along_axis(decoy, np.argsort(rng.random((m, 4)), axis=1), axis=1)
        out.append(decoy)
    return out


def gumbel_sf(x, sample) -> np.ndarray:
    """Upper tail of a Gumbel (maximum) distribution fitted to ``sample`` by its moments
    (scale = sd * sqrt(6) / pi, location = mean - Euler's constant * scale)."""
    sample = np.asarray(sample, dtype=np.float64)
    scale = max(float(np.std(sample)) * np.sqrt(6.0) / np.pi, 1e-6)
    loc = float(np.mean(sample)) - _EULER * scale
    return -np.expm1(-np.exp(-(np.asarray(x, dtype=np.float64) - loc) / scale))


def meme_pseudocount(pwm, sites=0, pseudocount=TOMTOM_PSEUDOCOUNT) -> np.ndarray:
    """MEME's motif pseudocount (tomtom ``-motif-pseudo``, default 0.1): every column becomes
    ``(p * n + pseudocount / 4) / (n + pseudocount)`` with ``n`` = ``sites`` (whole sites), or
    MEME's default of 20 sites when ``sites`` is 0 (unknown). Shape (m, 4) in and out."""
    n = int(sites) if sites and sites > 0 else MEME_DEFAULT_SITES
    pwm = np.asarray(pwm, dtype=np.float64)
    return (pwm * n + pseudocount / pwm.shape[1]) / (n + pseudocount)


def _tomtom(queries, targets, reverse_complement, *, query_sites=None, target_sites=None,
            pseudocount=TOMTOM_PSEUDOCOUNT):
    """TOMTOM as MEME's tomtom computes it, on PWMs of shape (m, 4): p, offset, overlap, strand
    (n_q, n_t).

    memelite's kernel with MEME's inputs and resolution: MEME's pseudocount on queries and
    targets (``*_sites``: sites per motif, default unknown = 20), every target column kept
    (``n_target_bins=None``: no merging of similar columns) and each query column's median over
    the target columns resolved to 1e-5 of its range (``n_median_bins``): memelite's defaults
    (columns merged on a 1/99 grid, medians on 1000 bins) move single score bins, which is
    invisible near p = 0.01 but changes p by orders of magnitude below 1e-10, where a p-value is
    a product of a few top-bin probabilities (docs/motifs.md, "Matches to known motifs").
    """
    from memelite import tomtom

    def prepared(pwms, sites):
        sites = [0] * len(pwms) if sites is None else list(sites)
        # (4, m) float64, C order: one layout, so memelite compiles its kernel once
        return [np.ascontiguousarray(meme_pseudocount(x, n, pseudocount).T) if pseudocount
                else np.ascontiguousarray(np.asarray(x, dtype=np.float64).T) for x, n in zip(pwms, sites)]

    p, _score, offset, overlap, strand = tomtom(
        prepared(queries, query_sites), prepared(targets, target_sites), reverse_complement=reverse_complement,
        n_target_bins=None, n_median_bins=MEDIAN_BINS, n_jobs=1)
    return p, offset, overlap, strand


def compare_motifs(motifs, database, *, top=5, max_q=1.0, reverse_complement=True, threshold=0.05,
                   trim_ic=TRIM_IC, min_ic=MIN_IC, n_decoys=N_DECOYS, pseudocount=TOMTOM_PSEUDOCOUNT,
                   random_state=None) -> pd.DataFrame:
    """Compare motifs with a database: TOMTOM p- and q-values plus a decoy-calibrated verdict.

    1. **Trimming**: end columns of a query with less than ``trim_ic`` bits are cut off; the
       columns compared are ``query_from..query_to`` (1-based).
    2. **Information floor**: a trimmed query with less than ``min_ic`` bits in total is not
       compared (one row, ``target_description`` = ``"not compared: uninformative"``).
    3. **TOMTOM** as MEME's tomtom 5.5.8 computes it by default (Euclidean column distance,
       complete scores, both strands, MEME's pseudocount ``pseudocount`` on queries and
       targets; memelite's kernel with every target column and exact-resolution medians): the
       p-value of every target's best alignment; ``q_value`` is Benjamini-Hochberg over the
       database for each query, ``e_value`` = p x number of targets.
    4. **Decoys**: ``n_decoys`` decoys per query (half column-shuffled, half also with the
       letters of every column permuted: random PWMs with the query's column information) are
       compared with the same database. Their best-match scores ``-log10 p`` form the
       query's own null: ``calibrated_p`` of a match is the upper tail of a Gumbel
       distribution fitted to them (the chance that a motif as informative as the query, but
       not it, matches some target this well); ``calibrated_q`` is Benjamini-Hochberg of the
       best matches' ``calibrated_p`` over the queries compared.
    5. **Verdict**: a match is ``significant`` when ``q_value <= threshold`` and
       ``calibrated_q <= threshold``. A compared query without one gets a first row with
       ``target_description`` = ``"no significant match"`` (numbers NaN) before its best
       candidates.

    Parameters
    ----------
    motifs : sequence of Motif
        Queries.
    database : sequence of Motif
        Targets (e.g. from :func:`seqimp.motifs.read_motifs`). memelite warns when there are
        fewer than 25: its p-values use the targets' columns as the background.
    top : int, default=5
        Best matches kept per query (by p-value).
    max_q : float, default=1.0
        Keep only matches with TOMTOM q-value at most this.
    reverse_complement : bool, default=True
    threshold : float, default=0.05
        Significance level for ``q_value`` and ``calibrated_q``.
    trim_ic : float, default=0.2
        Bits; end columns below it are trimmed.
    min_ic : float, default=4.0
        Bits; queries with less information after trimming are not compared (4 bits: two
        fully conserved letters, or about a 6-mer of 2/3-pure columns).
    n_decoys : int, default=100
        Decoys per query (0: no calibration; ``calibrated_p``/``calibrated_q`` are NaN and the
        verdict uses ``q_value`` alone).
    pseudocount : float, default=0.1
        MEME's motif pseudocount (tomtom ``-motif-pseudo``), added to every query, decoy and
        target as ``pseudocount`` sites spread evenly over the letters (a motif's ``sites``, or
        20 when unknown, are its real sites; :func:`meme_pseudocount`). 0: the PWMs as given.
    random_state : int, Generator or None, default=None (seed 0)
        For the decoys.

    Returns
    -------
    pandas.DataFrame
        Columns ``query, target, target_description, p_value, q_value, e_value, calibrated_p,
        calibrated_q, significant, offset, overlap, strand, query_from, query_to``, by query
        (input order) then p-value. ``offset``: the target column (0-based, on ``strand``)
        aligned with the first compared query column (``query_from``); negative when the
        query overhangs the target on the left. ``strand``: ``+`` or ``-`` (the target's
        reverse complement was aligned).
    """
    motifs, database = list(motifs), list(database)
    if not database:
        raise SeqimpError("the motif database is empty: nothing to compare with")
    if not motifs:
        raise SeqimpError("no motifs to compare")
    top = check_int(top, "top", minimum=1)
    n_decoys = check_int(n_decoys, "n_decoys", minimum=0)
    threshold = check_number(threshold, "threshold", low=0.0, high=1.0)
    pseudocount = check_number(pseudocount, "pseudocount", low=0.0)
    rng = check_random_state(random_state)
    spans = [trim_uninformative(m.pwm, trim_ic) for m in motifs]
    compared = [i for i, (m, (lo, hi)) in enumerate(zip(motifs, spans))
                if hi > lo and information_content(m.pwm[lo:hi]).sum() >= min_ic]
    queries = [motifs[i].pwm[spans[i][0]:spans[i][1]] for i in compared]
    # each query's decoys come from its own stream (the seed and the matrix): the same motif gets
    # the same decoys whatever else is compared with it
    base = int(rng.integers(2**32))
    decoys = [d for q in queries for d in make_decoys(q, n_decoys, np.random.default_rng(
        [base, zlib.crc32(np.ascontiguousarray(q).tobytes())]))]
    targets = [m.pwm for m in database]
    if queries:
        sites = [motifs[i].sites for i in compared]
        p, offset, overlap, strand = _tomtom(
            queries + decoys, targets, reverse_complement, query_sites=sites + [n for n in sites for _ in range(n_decoys)],
            target_sites=[m.sites for m in database], pseudocount=pseudocount)
        p, decoy_best = p[:len(queries)], p[len(queries):].min(axis=1).reshape(len(queries), n_decoys)
        offset, overlap, strand = offset[:len(queries)], overlap[:len(queries)], strand[:len(queries)]
        q = bh_qvalues(p)
    rows = []
    position = {i: k for k, i in enumerate(compared)}
    best_cal = np.full(len(compared), np.nan)
    for k in range(len(compared)):
        if n_decoys:
            null = -np.log10(np.maximum(decoy_best[k], 1e-300))
            best_cal[k] = gumbel_sf(-np.log10(max(p[k].min(), 1e-300)), null)
    for i, m in enumerate(motifs):
        lo, hi = spans[i]
        if i not in position:
            rows.append(_row(m.name, "", UNINFORMATIVE, lo, hi))
            continue
        k = position[i]
        kept = []
        for t in np.argsort(p[k], kind="stable")[:top]:
            if q[k, t] > max_q:
                continue
            cal_p = cal_q = np.nan
            if n_decoys:
                null = -np.log10(np.maximum(decoy_best[k], 1e-300))
                cal_p = float(gumbel_sf(-np.log10(max(p[k, t], 1e-300)), null))
                family = best_cal.copy()
                family[k] = cal_p
                cal_q = float(bh_qvalues(family)[k])
            significant = bool(q[k, t] <= threshold and (not n_decoys or cal_q <= threshold))
            kept.append(_row(m.name, database[t].name, database[t].description, lo, hi, p=p[k, t], q=q[k, t],
                             e=p[k, t] * len(database), cal_p=cal_p, cal_q=cal_q, significant=significant,
                             offset=offset[k, t], overlap=overlap[k, t], strand="-" if strand[k, t] else "+"))
        if not any(r["significant"] for r in kept):
            rows.append(_row(m.name, "", NO_MATCH, lo, hi))
        rows += kept
    return _match_frame(rows)


_COLUMNS = ("query", "target", "target_description", "p_value", "q_value", "e_value", "calibrated_p",
            "calibrated_q", "significant", "offset", "overlap", "strand", "query_from", "query_to")


def _row(query, target, description, lo, hi, *, p=np.nan, q=np.nan, e=np.nan, cal_p=np.nan, cal_q=np.nan,
         significant=False, offset=0, overlap=0, strand=""):
    return dict(zip(_COLUMNS, (query, target, description, float(p), float(q), float(e), float(cal_p),
                               float(cal_q), bool(significant), int(offset), int(overlap), strand,
                               int(lo) + 1, int(hi))))


def _match_frame(rows) -> pd.DataFrame:
    frame = pd.DataFrame(rows, columns=list(_COLUMNS))
    for c in ("p_value", "q_value", "e_value", "calibrated_p", "calibrated_q"):
        frame[c] = frame[c].astype(np.float64)
    for c in ("offset", "overlap", "query_from", "query_to"):
        frame[c] = frame[c].astype(np.int64)
    frame["significant"] = frame["significant"].astype(bool)
    return frame


def best_matches(matches) -> dict:
    """Per query (in table order), its verdict row: the best significant match, or the
    "no significant match" / "not compared: uninformative" row."""
    out = {}
    for row in matches.to_dict("records"):
        if row["query"] not in out or (row["significant"] and not out[row["query"]]["significant"]):
            out[row["query"]] = row
    return out


def match_line(row) -> str:
    """One line for a person: ``best match TARGET DESCRIPTION (p = .., q = .., calibrated q = ..)``
    or ``no significant match`` / ``not compared: uninformative``."""
    if not row["significant"]:
        return row["target_description"]
    cal = "" if np.isnan(row["calibrated_q"]) else f", calibrated q = {row['calibrated_q']:.2g}"
    return (f"best match {row['target']} {row['target_description']} (p = {row['p_value']:.2g}, "
            f"q = {row['q_value']:.2g}{cal})").replace("  ", " ")


def database_matches(motifs, database, *, top=5) -> pd.DataFrame:
    """The matches a motif run reports: :func:`compare_motifs` of ``motifs`` against
    ``database`` (``top`` best per motif), with a ``target_class`` column after
    ``target_description`` and a last column ``target_family`` (the target's JASPAR ``tf_class``
    and ``tf_family``, empty for verdict rows) when the database annotates classes.

    Logs the comparison, and :data:`COMPILE_NOTICE` first when memelite's TOMTOM kernels are not
    compiled yet (:func:`tomtom_compiled`).

    Parameters
    ----------
    motifs : list of Motif
    database : MotifDatabase
        Known motifs (:func:`seqimp.motifs.load_database`).
    top : int, default=5

    Returns
    -------
    pandas.DataFrame
        The columns of :func:`compare_motifs`, plus ``target_class`` and ``target_family`` with
        class annotations.
    """
    logger.info(f"comparing {len(motifs)} motif(s) with {len(database)} known motifs (TOMTOM)")
    if _WARMUPS:
        _WARMUPS[-1].wait()
    if database and motifs and not tomtom_compiled():
        logger.info(COMPILE_NOTICE)
    if not motifs:  # "no motif" is an answer: an empty table, not an error
        matches = pd.DataFrame(columns=list(_COLUMNS))
    else:
        matches = compare_motifs(motifs, list(database), top=top)
    classes = {name: fields.get("tf_class", "") for name, fields in database.annotations.items()}
    if not any(classes.values()):
        return matches
    families = {name: fields.get("tf_family", "") for name, fields in database.annotations.items()}
    matches = matches.copy()
    at = list(matches.columns).index("target_description") + 1
    matches.insert(at, "target_class", [classes.get(t, "") for t in matches["target"]])
    matches["target_family"] = [families.get(t, "") for t in matches["target"]]  # last: earlier columns stay
    return matches


def tomtom_compiled() -> bool:
    """Whether memelite's TOMTOM kernels are in numba's on-disk cache (False: the first
    :func:`compare_motifs` compiles them, about 1 minute of CPU).

    memelite declares its kernels ``@njit(cache=True)``; numba keeps one ``*.nbi`` index per
    kernel in the cache folder (the module's ``__pycache__`` or ``NUMBA_CACHE_DIR``).
    True when that cannot be told.
    """
    folder = _tomtom_cache_dir()
    return folder is None or any(folder.glob("tomtom.*.nbi"))


def _tomtom_cache_dir():
    """The numba cache folder of ``memelite.tomtom`` (a Path), or None."""
    import sys
    from pathlib import Path

    try:
        import memelite  # noqa: F401 (imports memelite.tomtom)

        return Path(sys.modules["memelite.tomtom"]._tomtom._cache._cache_path)
    except (ImportError, KeyError, AttributeError):
        return None


_WARMUPS: list = []  # the active TomtomWarmup (innermost last), awaited by database_matches


def _warmup_command() -> list:
    """The command of the background compilation: a tiny :func:`_tomtom` call."""
    import sys

    return [sys.executable, "-c", "from seqimp.motifs.known._compare import _warm_up; _warm_up()"]


def _warm_up() -> None:
    """Compile memelite's TOMTOM kernels into numba's cache by one tiny :func:`_tomtom` call with
    the argument types every seqimp call has (float64 (4, m) C-order PWMs, MEME's pseudocount,
    both strands): run in the process :func:`tomtom_warmup` starts."""
    import warnings

    rng = np.random.default_rng(0)
    pwms = [rng.dirichlet(np.ones(4), size=m) for m in (5, 6, 7)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # memelite: fewer than 25 targets
        _tomtom(pwms[:1], pwms, True, query_sites=[0], target_sites=[0, 10, 20])


class TomtomWarmup:
    """TOMTOM's compilation in a background process (a context manager; see :func:`tomtom_warmup`).

    ``process`` is the :class:`subprocess.Popen` of the compilation, None when none was started.
    """

    def __init__(self, start: bool):
        import subprocess

        self.process, self._ok, self._errors = None, None, None
        if start:  # its messages go to a file: a pipe nobody reads could fill and stall it
            import tempfile

            self._errors = tempfile.TemporaryFile()
            self.process = subprocess.Popen(_warmup_command(), stdin=subprocess.DEVNULL,
                                            stdout=subprocess.DEVNULL, stderr=self._errors)

    def wait(self) -> bool:
        """Wait for the compilation (logging that it waits); True when it finished and the
        kernels are cached, False when none was started or it failed (logged: the comparison
        then compiles in this process)."""
        if self.process is None:
            return False
        if self._ok is not None:
            return self._ok
        if self.process.poll() is None:
            logger.info(WAIT_NOTICE)
        self.process.wait()
        self._ok = self.process.returncode == 0
        if not self._ok:
            self._errors.seek(0)
            last = self._errors.read().decode(errors="replace").strip().splitlines()[-1:] or [""]
            logger.warning(f"the background compilation of TOMTOM failed (exit {self.process.returncode}"
                           f"{': ' + last[0] if last[0] else ''}); compiling it in this process")
            return False
        return True

    def close(self) -> None:
        """Stop the compilation if it still runs and reap the process."""
        from ..._utils.processes import reap

        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            reap(self.process)
        if self._errors is not None:
            self._errors.close()

    def __enter__(self):
        _WARMUPS.append(self)
        return self

    def __exit__(self, *exc):
        _WARMUPS.remove(self)
        self.close()
        return False


def tomtom_warmup(needed) -> TomtomWarmup:
    """Compile TOMTOM in the background while a run does its own work.

    When ``needed`` (the run will compare motifs with a database) and memelite's TOMTOM kernels are not in
    numba's cache (:func:`tomtom_compiled`), starts a process that compiles them (about 1 minute
    of CPU, one core) by a tiny comparison, so the cache files are written while this process
    trains and computes POIMs on the other core. Use as a context manager around the run:
    inside it, :func:`database_matches` first waits for that process (logging
    :data:`WAIT_NOTICE`) and then reads the kernels from the cache; if the process failed, it
    compiles them itself. Leaving the block (also by an error or Ctrl-C) ends the process.

    Returns
    -------
    TomtomWarmup
        Its ``process`` is None when nothing was started.
    """
    return TomtomWarmup(bool(needed) and not tomtom_compiled())
