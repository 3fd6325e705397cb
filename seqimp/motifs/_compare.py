"""Matches of motifs to a database of known motifs: TOMTOM (memelite) with p- and q-values."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..errors import SeqimpError

__all__ = ["compare_motifs", "bh_qvalues"]


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


def compare_motifs(motifs, database, *, top=5, max_q=1.0, reverse_complement=True) -> pd.DataFrame:
    """Compare motifs with a database using TOMTOM (``memelite.tomtom``).

    memelite gives, for every query and target, the p-value of the best alignment (both
    strands when ``reverse_complement``). q-values are Benjamini-Hochberg over the database
    for each query; E-values are p times the number of targets.

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
        Keep only matches with q-value at most this.
    reverse_complement : bool, default=True

    Returns
    -------
    pandas.DataFrame
        Columns ``query, target, target_description, p_value, q_value, e_value, offset,
        overlap, strand`` (``+`` or ``-``), sorted by query then p-value.
    """
    from memelite import tomtom

    motifs, database = list(motifs), list(database)
    if not database:
        raise SeqimpError("the motif database is empty: nothing to compare with")
    if not motifs:
        raise SeqimpError("no motifs to compare")
    # (4, m) float64, C order: one layout, so memelite compiles its kernel once
    queries = [np.ascontiguousarray(m.pwm.T, dtype=np.float64) for m in motifs]
    targets = [np.ascontiguousarray(m.pwm.T, dtype=np.float64) for m in database]
    p, _score, offset, overlap, strand = tomtom(queries, targets, reverse_complement=reverse_complement,
                                                n_jobs=1)
    q = bh_qvalues(p)
    cols = {k: [] for k in ("query", "target", "target_description", "p_value", "q_value", "e_value",
                            "offset", "overlap", "strand")}
    for i, m in enumerate(motifs):
        best = np.argsort(p[i], kind="stable")[: int(top)]
        for t in best:
            if q[i, t] > max_q:
                continue
            cols["query"].append(m.name)
            cols["target"].append(database[t].name)
            cols["target_description"].append(database[t].description)
            cols["p_value"].append(p[i, t])
            cols["q_value"].append(q[i, t])
            cols["e_value"].append(p[i, t] * len(database))
            cols["offset"].append(int(offset[i, t]))
            cols["overlap"].append(int(overlap[i, t]))
            cols["strand"].append("-" if strand[i, t] else "+")
    return pd.DataFrame({k: (np.asarray(v, dtype=np.float64) if k in ("p_value", "q_value", "e_value")
                      else np.asarray(v, dtype=np.int64) if k in ("offset", "overlap")
                      else np.asarray(v, dtype=object)) for k, v in cols.items()})


def tomtom_compiled() -> bool:
    """Whether memelite's TOMTOM kernels are in numba's on-disk cache (False: the first
    :func:`compare_motifs` compiles them, about 2 minutes).

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
