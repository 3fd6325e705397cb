"""BED input (BED3, BED6, narrowPeak) and BED output of hits in genomic windows.

Coordinates follow BED: 0-based start, end exclusive. Positions inside a window that people
read (motif sites, oligomer hits) are 1-based and counted along the window's sequence, which
for a '-' strand window runs from the window's genomic end towards its start.
"""

from __future__ import annotations

import gzip
import os

import numpy as np
import pandas as pd

from ..errors import SeqimpError, check_file

__all__ = ["bed_scores", "read_bed", "write_bed", "hits_to_bed", "BED_COLUMNS"]

#: Columns of the table :func:`read_bed` returns.
BED_COLUMNS = ["chrom", "start", "end", "name", "score", "strand", "summit", "line"]
_SKIP = ("#", "track", "browser")


def _open(path):
    with open(path, "rb") as fh:
        magic = fh.read(2)
    if magic == b"\x1f\x8b":
        return gzip.open(path, "rt", encoding="utf-8", errors="replace")
    return open(path, "rt", encoding="utf-8", errors="replace")


def read_bed(path, *, name: str | None = None) -> pd.DataFrame:
    """Read regions from a BED3, BED6 or narrowPeak file (plain or gzip).

    Tab- or space-separated; blank lines and ``#``, ``track`` and ``browser`` lines are skipped.

    Parameters
    ----------
    path : str or path-like
    name : str, optional
        The option the file came from (``--positive-bed``), for messages.

    Returns
    -------
    pandas.DataFrame
        One row per region, columns ``chrom`` (str), ``start``, ``end`` (int64, 0-based,
        end exclusive), ``name`` (str; ``chrom:start-end`` when the file has none),
        ``score`` (float, NaN when absent), ``strand`` (``+``, ``-`` or ``.``; column 6),
        ``summit`` (int64: narrowPeak column 10, the summit's offset from ``start``; -1 when
        absent) and ``line`` (1-based line number in the file). ``attrs["format"]`` is
        ``"bed3"``, ``"bed6"`` or ``"narrowPeak"`` (the widest row decides).

    Raises
    ------
    SeqimpError
        One line naming the file, the 1-based line and what is wrong: fewer than 3 columns,
        a start or end that is not an integer, ``start < 0``, ``end <= start``, a strand
        other than ``+ - .``, a summit outside the region.
    """
    path = check_file(path, name)
    where = f"{name} {path}" if name else f"{path}"
    rows = {c: [] for c in BED_COLUMNS}
    widest = 0
    try:
        handle = _open(path)
        with handle:
            for lineno, raw in enumerate(handle, start=1):
                line = raw.rstrip("\r\n")
                if not line.strip() or line.lstrip().startswith(_SKIP):
                    continue
                f = line.split("\t") if "\t" in line else line.split()
                if len(f) < 3:
                    raise SeqimpError(f"{where}: line {lineno}: a BED line needs at least 3 columns "
                                      f"(chrom, start, end), got {len(f)}")
                try:
                    start, end = int(f[1]), int(f[2])
                except ValueError:
                    raise SeqimpError(f"{where}: line {lineno}: start and end must be integers, "
                                      f"got {f[1]!r} and {f[2]!r}") from None
                if start < 0 or end <= start:
                    raise SeqimpError(f"{where}: line {lineno}: need 0 <= start < end, got start {start}, end {end}")
                strand = f[5].strip() if len(f) >= 6 else "."
                if strand not in ("+", "-", "."):
                    raise SeqimpError(f"{where}: line {lineno}: strand (column 6) must be +, - or ., got {strand!r}")
                try:
                    score = float(f[4]) if len(f) >= 5 and f[4] not in ("", ".") else np.nan
                except ValueError:
                    raise SeqimpError(f"{where}: line {lineno}: score (column 5) must be a number, "
                                      f"got {f[4]!r}") from None
                summit = -1
                if len(f) >= 10:
                    try:
                        summit = int(f[9])
                    except ValueError:
                        raise SeqimpError(f"{where}: line {lineno}: narrowPeak summit (column 10) must be an "
                                          f"integer, got {f[9]!r}") from None
                    if summit >= end - start or summit < -1:
                        raise SeqimpError(f"{where}: line {lineno}: summit offset {summit} lies outside the "
                                          f"region of length {end - start}")
                widest = max(widest, len(f))
                chrom = f[0].strip()
                rows["chrom"].append(chrom)
                rows["start"].append(start)
                rows["end"].append(end)
                rows["name"].append(f[3].strip() if len(f) >= 4 and f[3].strip() not in ("", ".")
                                    else f"{chrom}:{start}-{end}")
                rows["score"].append(score)
                rows["strand"].append(strand)
                rows["summit"].append(summit)
                rows["line"].append(lineno)
    except (OSError, EOFError, UnicodeDecodeError) as exc:
        raise SeqimpError(f"{where}: cannot read ({exc})") from None
    if not rows["chrom"]:
        raise SeqimpError(f"{where}: no BED regions")
    table = pd.DataFrame({
        "chrom": pd.Series(rows["chrom"], dtype=object),
        "start": np.asarray(rows["start"], dtype=np.int64),
        "end": np.asarray(rows["end"], dtype=np.int64),
        "name": pd.Series(rows["name"], dtype=object),
        "score": np.asarray(rows["score"], dtype=np.float64),
        "strand": pd.Series(rows["strand"], dtype=object),
        "summit": np.asarray(rows["summit"], dtype=np.int64),
        "line": np.asarray(rows["line"], dtype=np.int64),
    })
    table.attrs["format"] = "narrowPeak" if widest >= 10 else "bed6" if widest >= 6 else "bed3"
    table.attrs["source"] = str(path)
    return table


def hits_to_bed(coords, window, position, length, *, strand="+", name=None, score=None) -> pd.DataFrame:
    """Genomic BED6 rows for hits given in window coordinates.

    Parameters
    ----------
    coords : pandas.DataFrame or GenomicWindows
        The windows' coordinate table (``GenomicWindows.coords``): columns ``chrom``,
        ``start`` (0-based), ``end``, ``strand``.
    window : array-like of int, shape (m,)
        0-based row of the window in ``coords`` (the sequence index).
    position : array-like of int, shape (m,)
        1-based start of the hit along the window's sequence (as read, i.e. after the
        reverse complement of a '-' strand window).
    length : int or array-like of int
        Length of each hit (motif or oligomer length).
    strand : {"+", "-"} or array-like, default="+"
        Strand of the hit relative to the window's sequence (a motif matched on the
        reverse complement of the window sequence is '-').
    name, score : str/float or array-like, optional
        BED columns 4 and 5 (default ``hit{i}`` and 0).

    Returns
    -------
    pandas.DataFrame
        Columns ``chrom, start, end, name, score, strand``: on a '+' window the hit covers
        ``[win_start + p - 1, win_start + p - 1 + len)``; on a '-' window sequence index i is
        genome base ``win_end - 1 - i``, so it covers ``[win_end - (p - 1) - len, win_end - (p - 1))``
        and its strand flips.
    """
    coords = getattr(coords, "coords", coords)
    window = np.atleast_1d(np.asarray(window, dtype=np.int64))
    m = window.size
    position = np.broadcast_to(np.asarray(position, dtype=np.int64), (m,))
    length = np.broadcast_to(np.asarray(length, dtype=np.int64), (m,))
    strand = np.broadcast_to(np.asarray(strand, dtype=object), (m,))
    if m and (window.min() < 0 or window.max() >= len(coords)):
        raise SeqimpError(f"hits_to_bed: window index out of range 0..{len(coords) - 1}")
    if m and (length.min() < 1):
        raise SeqimpError("hits_to_bed: hit lengths must be >= 1")
    ws = coords["start"].to_numpy(np.int64)[window]
    we = coords["end"].to_numpy(np.int64)[window]
    width = we - ws
    if m and ((position < 1).any() or (position - 1 + length > width).any()):
        bad = int(np.flatnonzero((position < 1) | (position - 1 + length > width))[0])
        raise SeqimpError(f"hits_to_bed: hit {bad} (position {position[bad]}, length {length[bad]}) lies outside "
                          f"its window of width {width[bad]} (positions are 1-based)")
    bad = [s for s in strand if s not in ("+", "-")]
    if bad:
        raise SeqimpError(f"hits_to_bed: strand must be '+' or '-', got {bad[0]!r}")
    minus = coords["strand"].to_numpy(object)[window] == "-"
    start = np.where(minus, we - (position - 1) - length, ws + position - 1)
    hit_minus = (strand == "-") ^ minus
    names = [f"hit{i + 1}" for i in range(m)] if name is None else list(np.broadcast_to(np.asarray(name, object), (m,)))
    scores = np.zeros(m) if score is None else np.broadcast_to(np.asarray(score, dtype=np.float64), (m,))
    return pd.DataFrame({
        "chrom": coords["chrom"].to_numpy(object)[window],
        "start": start.astype(np.int64),
        "end": (start + length).astype(np.int64),
        "name": pd.Series(names, dtype=object),
        "score": np.asarray(scores, dtype=np.float64),
        "strand": np.where(hit_minus, "-", "+").astype(object),
    })


def bed_scores(values) -> np.ndarray:
    """BED's score column: integers 0..1000 (the BED spec). Values that are already whole
    numbers in 0..1000 stay; others are scaled by their largest magnitude,
    ``round(1000 |v| / max |v|)`` (NaN -> 0), so the strongest row scores 1000. Shape (n,), int64."""
    v = np.asarray(values, dtype=np.float64)
    v = np.where(np.isfinite(v), v, 0.0)
    if v.size == 0 or (np.all(v == np.round(v)) and v.min() >= 0 and v.max() <= 1000):
        return v.astype(np.int64)
    top = np.abs(v).max()
    return np.rint(1000 * np.abs(v) / top).astype(np.int64) if top > 0 else np.zeros(v.size, np.int64)


def write_bed(table, path) -> None:
    """Write a table with BED columns (``chrom, start, end`` and optionally ``name, score, strand``) as BED.

    Columns are written in BED order; extra columns are ignored. Scores are written as BED's
    integers 0..1000 (:func:`bed_scores`). A path ending in ``.gz`` is gzipped.
    """
    table = getattr(table, "coords", table)
    missing = [c for c in ("chrom", "start", "end") if c not in table.columns]
    if missing:
        raise SeqimpError(f"write_bed: the table has no column {missing[0]!r}")
    cols = ["chrom", "start", "end"]
    for c in ("name", "score", "strand"):
        if c not in table.columns:
            break
        cols.append(c)
    out = table[cols].copy()
    if "score" in out.columns:
        out["score"] = bed_scores(out["score"].to_numpy())
    compression = "gzip" if os.fspath(path).endswith(".gz") else None
    out.to_csv(path, sep="\t", header=False, index=False, compression=compression)
