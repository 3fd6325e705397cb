"""Tables of ranked results (top oligomers, motifs, matches) as :class:`pandas.DataFrame`.

Stage-free helpers used by every stage that ranks entries of per-order tables or writes a
table to disk:

* :func:`check_order_tables` -- the shape check of per-order tables ``tables[k-1]`` of shape
  (L-k+1, A**k) (positional weights, POIMs, FIRMs);
* :func:`top_n` -- partial selection of the largest entries of an array;
* :func:`top_entries` / :func:`oligomer_table` -- the one ranking of positional oligomers by
  |value| (largest first; ties by order k, then position, then k-mer index);
* :func:`write_tsv` -- the one TSV writer (header line, tab-separated, no index, floats as
  ``%.6g``, NaN as ``nan``).
"""

from __future__ import annotations

import os

import numpy as np

from ..errors import SeqimpError

__all__ = ["check_order_tables", "top_n", "top_entries", "oligomer_table", "format_value", "write_tsv"]


def check_order_tables(tables, name, alphabet_size, length=None) -> list:
    """Per-order tables as C-contiguous float64 arrays, or a SeqimpError naming ``name``.

    Parameters
    ----------
    tables : sequence of array-like
        ``tables[k-1]`` must have shape (L-k+1, A**k) for k = 1..len(tables), without gaps.
    name : str
        Used in the messages, e.g. ``"tables"`` or ``"POIMResult: firm"``.
    alphabet_size : int
        A.
    length : int, optional
        L; defaults to ``tables[0].shape[0]``.

    Returns
    -------
    list of ndarray of shape (L-k+1, A**k), float64
    """
    tables = [np.ascontiguousarray(t, dtype=np.float64) for t in tables]
    a = int(alphabet_size)
    if not tables:
        raise SeqimpError(f"{name} must hold at least one table (k = 1)")
    if length is None:
        if tables[0].ndim != 2:
            raise SeqimpError(f"{name}[0] must be 2-D (L, {a}), got shape {tables[0].shape}")
        length = tables[0].shape[0]
    for k, t in enumerate(tables, start=1):
        want = (length - k + 1, a ** k)
        if t.shape != want:
            raise SeqimpError(f"{name}[{k - 1}] must have shape (L-k+1, {a}**k) = {want} for L={length}, "
                              f"got {t.shape}")
    return tables


def top_n(values, n) -> np.ndarray:
    """Indices of the ``n`` largest entries of a 1-D array, largest first, ties in index order.

    Equal to ``np.argsort(-values, kind="stable")[:n]`` (for values without NaN), but selects
    with :func:`numpy.partition` and sorts only the selected entries, so ranking the top of
    tables with millions of entries (4**8 k-mers x 1,000 positions) takes a fraction of a
    full sort.

    Returns
    -------
    ndarray of shape (min(n, values.size),), dtype int64
    """
    values = np.asarray(values).ravel()
    n = int(max(0, min(int(n), values.size)))
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    kth = values.size - n
    threshold = np.partition(values, kth)[kth]  # the n-th largest value
    above = np.flatnonzero(values > threshold)
    ties = np.flatnonzero(values == threshold)[: n - above.size]
    chosen = np.concatenate([above, ties]).astype(np.int64)
    return chosen[np.lexsort((chosen, -values[chosen]))]


def top_entries(tables, n, *, per_order=False):
    """The positional entries of largest absolute value of per-order tables, ranked.

    Every order is narrowed to its ``n`` largest |value| by :func:`top_n` (partial selection,
    never a full sort); the survivors are merged and sorted by |value| descending, ties broken
    by order k, then 0-based position, then k-mer index (all ascending). NaN entries (impossible
    oligomers) are never selected.

    Parameters
    ----------
    tables : sequence of ndarray
        ``tables[k-1]`` of shape (L-k+1, A**k).
    n : int
        Entries per order (``per_order=True``) or in all (``per_order=False``).
    per_order : bool, default=False
        True: the top ``n`` of every order, merged (up to ``n * len(tables)`` entries).
        False: the top ``n`` over all orders together.

    Returns
    -------
    ks, positions, indices : ndarray of shape (m,), int64
        Order k (1-based), 0-based start and k-mer index of each entry, best first.
    """
    n = int(n)
    if n < 0:
        raise SeqimpError(f"n must be >= 0, got {n}")
    ks, flat, mag = [], [], []
    for k, table in enumerate(tables, start=1):
        values = np.abs(np.asarray(table, dtype=np.float64)).ravel()
        finite = ~np.isnan(values)
        best = top_n(np.where(finite, values, -np.inf), min(n, int(np.count_nonzero(finite))))
        ks.append(np.full(best.size, k, dtype=np.int64))
        flat.append(best)
        mag.append(values[best])
    if not ks:
        return tuple(np.zeros(0, dtype=np.int64) for _ in range(3))
    ks, flat, mag = np.concatenate(ks), np.concatenate(flat), np.concatenate(mag)
    order = np.lexsort((flat, ks, -mag))
    if not per_order:
        order = order[:n]
    ks, flat = ks[order], flat[order]
    cols = np.array([np.shape(tables[k - 1])[1] for k in range(1, len(tables) + 1)], dtype=np.int64)
    pos, idx = np.divmod(flat, cols[ks - 1])
    return ks, pos.astype(np.int64), idx.astype(np.int64)


def oligomer_table(tables, n, columns, kmer_name, *, per_order=False):
    """A table of the positional oligomers of largest |value| in ``tables``.

    Parameters
    ----------
    tables : sequence of ndarray
        ``tables[k-1]`` of shape (L-k+1, A**k): the values ranked (see :func:`top_entries`).
    n : int
    columns : dict of str -> sequence of ndarray
        Value columns of the table, each a list of per-order tables shaped like ``tables``.
    kmer_name : callable
        ``kmer_name(index, k)`` -> the k-mer's string.
    per_order : bool, default=False
        Passed to :func:`top_entries`.

    Returns
    -------
    pandas.DataFrame
        Columns ``rank`` (1..m), ``oligomer``, ``order``, ``position`` (1-based start), then
        ``columns`` (float64), one row per entry, best first.
    """
    import pandas as pd

    ks, pos, idx = top_entries(tables, n, per_order=per_order)
    data = {"rank": np.arange(1, ks.size + 1, dtype=np.int64),
            "oligomer": [kmer_name(z, k) for z, k in zip(idx.tolist(), ks.tolist())],
            "order": ks, "position": pos + 1}
    for name, values in columns.items():
        out = np.empty(ks.size, dtype=np.float64)
        for k in np.unique(ks):
            sel = ks == k
            out[sel] = np.asarray(values[k - 1], dtype=np.float64)[pos[sel], idx[sel]]
        data[name] = out
    return pd.DataFrame(data)


def format_value(value) -> str:
    """One TSV cell: floats as ``%.6g`` (NaN as ``nan``), everything else as ``str``."""
    if isinstance(value, (float, np.floating)):
        return "nan" if np.isnan(value) else f"{value:.6g}"
    return str(value)


def write_tsv(df, path=None) -> str:
    """Write a DataFrame as seqimp's TSV: a header line, tab-separated cells, no index.

    Floats are written as ``%.6g`` (NaN as ``nan``), integers as integers, strings as they
    are; the text ends with a newline.

    Parameters
    ----------
    df : pandas.DataFrame
    path : str or path-like, optional
        File to write; without it only the text is returned.

    Returns
    -------
    str
        The text written.
    """
    lines = ["\t".join(str(c) for c in df.columns)]
    cells = [df[c].tolist() for c in df.columns]
    lines += ["\t".join(format_value(v) for v in row) for row in zip(*cells)]
    text = "\n".join(lines) + "\n"
    if path is not None:
        with open(os.fspath(path), "w") as fh:
            fh.write(text)
    return text
