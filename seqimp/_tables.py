"""A small column table for ranked results (top oligomers, motifs, matches).

seqimp does not depend on pandas; :class:`Table` holds named, equal-length
columns, prints readably, writes TSV and converts to a DataFrame when pandas
is installed.
"""

from __future__ import annotations

import os

import numpy as np

from .errors import SeqimpError

__all__ = ["Table", "top_n"]


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


class Table:
    """Named columns of equal length.

    Parameters
    ----------
    columns : dict of str -> array-like
        Column name to values; all of the same length.

    Examples
    --------
    >>> t = Table({"oligomer": ["GT", "AG"], "position": [31, 29]})
    >>> t["position"]
    array([31, 29])
    """

    def __init__(self, columns: dict):
        self._cols = {str(k): np.asarray(v) for k, v in columns.items()}
        lengths = {len(v) for v in self._cols.values()}
        if len(lengths) > 1:
            raise SeqimpError(f"table columns differ in length: {sorted(lengths)}")

    @property
    def columns(self) -> list[str]:
        return list(self._cols)

    def __len__(self) -> int:
        return len(next(iter(self._cols.values()))) if self._cols else 0

    def __getitem__(self, key):
        if isinstance(key, str):
            return self._cols[key]
        return Table({k: v[key] for k, v in self._cols.items()})

    def __contains__(self, key) -> bool:
        return key in self._cols

    def rows(self):
        """Iterate over rows as dicts of Python scalars."""
        for r in range(len(self)):
            yield {k: v[r].item() if hasattr(v[r], "item") else v[r] for k, v in self._cols.items()}

    def to_pandas(self):
        """Return a :class:`pandas.DataFrame` (requires pandas)."""
        import pandas as pd

        return pd.DataFrame(self._cols)

    @staticmethod
    def _fmt(value) -> str:
        if isinstance(value, (float, np.floating)):
            return "nan" if np.isnan(value) else f"{value:.6g}"
        return str(value)

    def to_tsv(self, path=None) -> str:
        """Tab-separated text with a header line; also written to ``path`` if given."""
        lines = ["\t".join(self.columns)]
        for row in self.rows():
            lines.append("\t".join(self._fmt(v) for v in row.values()))
        text = "\n".join(lines) + "\n"
        if path is not None:
            with open(os.fspath(path), "w") as fh:
                fh.write(text)
        return text

    def __repr__(self) -> str:
        shown = list(self.rows())[:20]
        cells = [self.columns] + [[self._fmt(v) for v in r.values()] for r in shown]
        widths = [max(len(c[i]) for c in cells) for i in range(len(self.columns))]
        out = ["  ".join(c.rjust(w) for c, w in zip(row, widths)) for row in cells]
        if len(self) > len(shown):
            out.append(f"... ({len(self)} rows)")
        return "\n".join(out)
