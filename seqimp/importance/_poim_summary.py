"""The summary result of the streaming exact POIM, its file format, and the loader of both kinds.

:class:`StreamedPOIM` keeps what reports and plots read, never the 4**k x (L-k+1) tables of
high orders: per order k and start j the maximal POIM and its arg-max oligomer, the
differential POIM, the top-N positional oligomers per order by |POIM| and by |FIRM| (each
with both values), and the full POIM/FIRM tables of orders k <= 4.
"""

from __future__ import annotations

import json
import os
import zipfile

import numpy as np

from .._utils.tables import top_n
from .._utils.npz import read_metadata_json
from ..errors import SeqimpError, check_choice
from ..io import get_alphabet, kmer_string
from ._result import FULL_ORDERS, MEASURES, BasePOIMResult, POIMResult, differential_poim

__all__ = ["StreamedPOIM", "TopLists", "row_argmax", "load_poim"]

_FIELDS = ("position", "index", "poim", "firm")


def row_argmax(table) -> np.ndarray:
    """The first k-mer of largest |value| of each row of a (rows, A**k) table, ignoring NaN;
    -1 where a row is all NaN. Shape (rows,), int64."""
    absq = np.where(np.isnan(table), -np.inf, np.abs(table))
    am = np.argmax(absq, axis=1)
    return np.where(np.isfinite(absq.max(axis=1)), am, -1)


class TopLists:
    """The top N positional oligomers per (order, measure), ranked by |measure| (ties: smaller
    position, then smaller k-mer index), merged from tables or row heaps as they come."""

    def __init__(self, max_order, n):
        self.n = n
        empty = {"position": np.zeros(0, np.int64), "index": np.zeros(0, np.int64), "poim": np.zeros(0),
                 "firm": np.zeros(0)}
        self.lists = {s: [dict(empty) for _ in range(max_order)] for s in MEASURES}
        self.thresholds = np.zeros((max_order, 2))

    def merge(self, li, s, pos, idx, q, f):
        """Merge entries (0-based positions, k-mer indices, POIM, FIRM) into the list of order
        li+1 and measure ``MEASURES[s]``; ``thresholds[li, s]`` becomes the N-th key."""
        cur = self.lists[MEASURES[s]][li]
        pos = np.concatenate([cur["position"], np.asarray(pos, np.int64)])
        idx = np.concatenate([cur["index"], np.asarray(idx, np.int64)])
        q = np.concatenate([cur["poim"], q])
        f = np.concatenate([cur["firm"], f])
        key = np.abs(q if s == 0 else f)
        sel = np.lexsort((idx, pos, -key))[: self.n]
        self.lists[MEASURES[s]][li] = {"position": pos[sel], "index": idx[sel], "poim": q[sel], "firm": f[sel]}
        if sel.size == self.n and self.n > 0:
            self.thresholds[li, s] = key[sel[-1]]

    def merge_table(self, li, q, f):
        """Merge a full table (rows = starts) of order li+1."""
        ncol = q.shape[1]
        for s, table in enumerate((q, f)):
            flat = np.abs(table).ravel()
            ok = np.isfinite(flat)
            flat = np.where(ok, flat, -np.inf)
            best = top_n(flat, min(self.n, int(np.count_nonzero(ok))))
            pos, idx = np.divmod(best, ncol)
            self.merge(li, s, pos, idx, q.ravel()[best], f.ravel()[best])

    def merge_heaps(self, li, j0, n_rows, hkey, hz, hq, hf, hcnt):
        """Merge the row heaps of the streaming kernels (rows j0 .. j0+n_rows-1) of order li+1."""
        cap = hkey.shape[-1]
        for s in range(2):
            cnt = hcnt[li, s, :n_rows]
            mask = np.arange(cap)[None, :] < cnt[:, None]
            rows = np.nonzero(mask)[0]
            self.merge(li, s, j0 + rows, hz[li, s, :n_rows][mask], hq[li, s, :n_rows][mask],
                       hf[li, s, :n_rows][mask])


class StreamedPOIM(BasePOIMResult):
    """Summaries of exact POIM/FIRM for orders k = 1..max_order (``seqimp.poim(..., engine="stream")``).

    The interface of :class:`~seqimp.importance._result.BasePOIMResult` (``top``, ``maximal``,
    ``differential``, ``table``), with tables of orders k <= 4 only.

    Attributes
    ----------
    max_order, length : int
    alphabet : Alphabet
    expected_score, score_std : float
        E[s(X)] and sd(s(X)) under the background.
    maximal : list of ndarray
        ``maximal[k-1]`` of shape (L-k+1,): ``max_z |Q(z, j)|`` (NaN where every k-mer is impossible);
        kept as ``maximal_rows``, while the attribute ``maximal`` is the (max_order, L) array of
        :attr:`POIMResult.maximal`.
    maximal_argmax : list of ndarray
        ``maximal_argmax[k-1]`` (L-k+1,), int64: the k-mer index attaining it (first in index
        order; -1 where undefined). :meth:`maximal_oligomers` gives the strings.
    differential : ndarray of shape (max_order, L)
        As :attr:`POIMResult.differential`: ``Omega(1, j) = q_max(1, j)``,
        ``Omega(k, j) = q_max(k, j) - max(q_max(k-1, j), q_max(k-1, j+1))``; NaN where j > L-k.
    poim, firm : list
        ``poim[k-1]``, ``firm[k-1]``: full tables (L-k+1, A**k) for k <= 4, None above
        (:meth:`table` says so in one line).
    top_n : int
        Positional oligomers kept per order and measure.
    tops : dict
        ``tops[measure][k-1]``: dict of arrays ``position`` (0-based), ``index``, ``poim``,
        ``firm``, ranked by ``|measure|`` (ties: smaller position, then smaller index, first).
    method : str
        ``"exact-streamed"``.
    meta : dict
    """

    kind = "StreamedPOIM"

    def __init__(self, *, maximal, maximal_argmax, tops, poim, firm, expected_score, score_std, top_n,
                 alphabet="dna", meta=None, method="exact-streamed"):
        self.alphabet = get_alphabet(alphabet)
        self.maximal_rows = [np.ascontiguousarray(m, dtype=np.float64) for m in maximal]
        self.maximal_argmax = [np.ascontiguousarray(m, dtype=np.int64) for m in maximal_argmax]
        if not self.maximal_rows:
            raise SeqimpError("StreamedPOIM: maximal must hold at least one order")
        self.length = int(self.maximal_rows[0].shape[0])
        self.max_order = len(self.maximal_rows)
        for k, (m, am) in enumerate(zip(self.maximal_rows, self.maximal_argmax), start=1):
            if m.shape != (self.length - k + 1,) or am.shape != m.shape:
                raise SeqimpError(f"StreamedPOIM: maximal[{k - 1}] must have shape ({self.length - k + 1},), "
                                  f"got {m.shape} and {am.shape}")
        self.tops = {s: [{f: np.asarray(t[f]) for f in _FIELDS} for t in tops[s]] for s in MEASURES}
        for s in MEASURES:
            if len(self.tops[s]) != self.max_order:
                raise SeqimpError(f"StreamedPOIM: tops[{s!r}] must hold {self.max_order} orders")
        self.poim = [None if t is None else np.asarray(t, dtype=np.float64) for t in poim]
        self.firm = [None if t is None else np.asarray(t, dtype=np.float64) for t in firm]
        self.expected_score = float(expected_score)
        self.score_std = float(score_std)
        self.top_n = int(top_n)
        self.method = str(method)
        self.meta = dict(meta or {})
        self.differential = differential_poim(self.maximal)

    @classmethod
    def from_result(cls, result, top_n=1000) -> "StreamedPOIM":
        """The summaries of an in-memory :class:`POIMResult` (what a pipeline writes instead of
        every table): equal to ``seqimp.poim(..., engine="stream")`` of the same job, up to rounding."""
        top_n = int(top_n)
        if top_n < 0:
            raise SeqimpError(f"top_n must be >= 0, got {top_n}")
        K, L = result.max_order, result.length
        lists = TopLists(K, top_n)
        for k in range(1, K + 1):
            lists.merge_table(k - 1, result.poim[k - 1], result.firm[k - 1])
        tops = {s: lists.lists[s] for s in MEASURES}
        maximal = [result.maximal[k - 1, : L - k + 1] for k in range(1, K + 1)]
        argmax = [row_argmax(q) for q in result.poim]
        keep = [k <= FULL_ORDERS for k in range(1, K + 1)]
        meta = dict(result.meta, top_n=top_n, summarized_from=result.method)
        return cls(maximal=maximal, maximal_argmax=argmax, tops=tops,
                   poim=[t if c else None for t, c in zip(result.poim, keep)],
                   firm=[t if c else None for t, c in zip(result.firm, keep)],
                   expected_score=result.expected_score, score_std=result.score_std, top_n=top_n,
                   alphabet=result.alphabet, meta=meta, method=f"{result.method}-summary")

    @property
    def maximal(self) -> np.ndarray:
        """The maximal POIM, shape (max_order, L), NaN where j > L-k (as :attr:`POIMResult.maximal`);
        ``maximal_rows[k-1]`` holds order k's defined part, shape (L-k+1,)."""
        full = np.full((self.max_order, self.length), np.nan)
        for k, m in enumerate(self.maximal_rows, start=1):
            full[k - 1, : m.shape[0]] = m
        return full

    def maximal_oligomers(self, order) -> list:
        """The arg-max k-mer of every start of one order, as strings ('' where undefined)."""
        k = self._order(order)
        return [kmer_string(int(z), k, self.alphabet) if z >= 0 else "" for z in self.maximal_argmax[k - 1]]

    def __repr__(self) -> str:
        return (f"StreamedPOIM(max_order={self.max_order}, length={self.length}, top_n={self.top_n}, "
                f"expected_score={self.expected_score:.6g}, score_std={self.score_std:.6g})")

    def top(self, n=20, measure="firm", order=None, *, per_order=True):
        """The positional oligomers of largest ``|measure|``, as ``POIMResult.top`` ranks them: ``n`` per
        order by default (``top(5)`` of max_order 8: up to 40 rows), ``n`` overall with ``per_order=False``.

        Parameters
        ----------
        n : int, default=20
            Rows per order, at most ``top_n`` (the number kept per order and measure).
        measure : {"firm", "poim"}, default="firm"
        order : int, optional
            None: the top ``n`` of every order k = 1..max_order merged into one ranking (the
            rows of ``top_oligomers.tsv``); k: that order's top ``n`` only.
        per_order : bool, default=True
            False: only the first ``n`` rows of that ranking, the ``n`` best over all orders.

        Ranked by ``|measure|`` descending, ties by order, position, k-mer index (ascending).

        Returns
        -------
        pandas.DataFrame
            Columns ``rank, oligomer, order, position`` (1-based start), ``poim, firm``.
        """
        import pandas as pd

        check_choice(measure, "measure", MEASURES)
        if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 0:
            raise SeqimpError(f"n must be an integer >= 0, got {n!r}")
        if n > self.top_n:
            raise SeqimpError(f"only the top {self.top_n} positional oligomers per order were kept; ask for "
                              f"n <= {self.top_n} or recompute with a larger top_n")
        orders = range(1, self.max_order + 1) if order is None else [self._order(order)]
        parts = [(k, {f: np.asarray(self.tops[measure][k - 1][f])[:n] for f in _FIELDS}) for k in orders]
        ks = np.concatenate([np.full(len(t["index"]), k, dtype=np.int64) for k, t in parts])
        cols = {f: np.concatenate([t[f] for _, t in parts]) for f in _FIELDS}
        sel = np.lexsort((cols["index"], cols["position"], ks, -np.abs(cols[measure])))
        if not per_order:
            sel = sel[:n]
        return pd.DataFrame({
            "rank": np.arange(1, sel.size + 1, dtype=np.int64),
            "oligomer": [kmer_string(int(z), int(k), self.alphabet) for z, k in zip(cols["index"][sel], ks[sel])],
            "order": ks[sel],
            "position": cols["position"][sel].astype(np.int64) + 1,
            "poim": cols["poim"][sel].astype(np.float64),
            "firm": cols["firm"][sel].astype(np.float64),
        })

    def kmer_rows(self, order, n=20, measure="poim"):
        """Heatmap rows for an order without full tables: the ``n`` k-mers of largest
        ``max_j |measure|`` and their values at the starts where the kept top-N lists (by ``|POIM|``
        and by ``|FIRM|``) hold them; NaN elsewhere.

        The choice of k-mers is exact (as ``poim_heatmap(top=n)`` on the full table) whenever
        the order's top list holds ``n`` distinct k-mers; the rows are the kept entries only.

        Returns
        -------
        kmers : ndarray of int64, shape (m,), m <= n
            k-mer indices, ascending (as ``poim_heatmap`` orders its rows).
        values : ndarray of shape (m, L-k+1)
        """
        k = self._order(order)
        check_choice(measure, "measure", MEASURES)
        ranked = self.tops[measure][k - 1]["index"]
        _, first = np.unique(ranked, return_index=True)
        kmers = np.sort(ranked[np.sort(first)][: int(n)])
        values = np.full((kmers.size, self.length - k + 1), np.nan)
        row_of = {int(z): i for i, z in enumerate(kmers)}
        for s in MEASURES:
            t = self.tops[s][k - 1]
            for pos, z, v in zip(t["position"], t["index"], t[measure]):
                i = row_of.get(int(z))
                if i is not None:
                    values[i, pos] = v
        return kmers, values

    def standardized(self) -> "StreamedPOIM":
        """A copy with every POIM and FIRM value (maximal POIM, top lists, kept tables) divided
        by ``score_std``, as :meth:`POIMResult.standardized`; ``meta["standardized"]`` is set."""
        sd = 1.0 if self.standardized_ else self._score_sd()

        def scale(tables):
            return [None if t is None else t / sd for t in tables]

        tops = {s: [dict(t, poim=t["poim"] / sd, firm=t["firm"] / sd) for t in self.tops[s]] for s in MEASURES}
        return StreamedPOIM(maximal=[m / sd for m in self.maximal_rows], maximal_argmax=self.maximal_argmax,
                            tops=tops, poim=scale(self.poim), firm=scale(self.firm),
                            expected_score=self.expected_score, score_std=self.score_std, top_n=self.top_n,
                            alphabet=self.alphabet, meta=dict(self.meta, standardized=True), method=self.method)

    # ------------------------------------------------------------------ files
    def save(self, path) -> None:
        """Write every summary to one ``.npz`` (``kind = "StreamedPOIM"``)."""
        arrays = {}
        for k in range(1, self.max_order + 1):
            arrays[f"maximal_{k}"] = self.maximal_rows[k - 1]
            arrays[f"argmax_{k}"] = self.maximal_argmax[k - 1]
            for s in MEASURES:
                for f in _FIELDS:
                    arrays[f"top_{s}_{k}_{f}"] = self.tops[s][k - 1][f]
            if self.poim[k - 1] is not None:
                arrays[f"poim_{k}"] = self.poim[k - 1]
                arrays[f"firm_{k}"] = self.firm[k - 1]
        from .._utils.npz import save_npz

        save_npz(path, dict(kind=self.kind, expected_score=self.expected_score, score_std=self.score_std,
                            top_n=self.top_n, max_order=self.max_order, alphabet=self.alphabet.name,
                            method=self.method, meta=json.dumps(self.meta, sort_keys=True), **arrays))

    @classmethod
    def load(cls, path) -> "StreamedPOIM":
        """Read a file written by :meth:`save` (``path`` with or without ``.npz``)."""
        from ..kernels._weights import npz_path

        path = npz_path(path)
        with np.load(path, allow_pickle=False) as data:
            if "kind" not in data.files or str(data["kind"]) != cls.kind:
                raise SeqimpError(f"{path}: not a StreamedPOIM file")
            K = int(data["max_order"])
            tops = {s: [{f: data[f"top_{s}_{k}_{f}"] for f in _FIELDS} for k in range(1, K + 1)] for s in MEASURES}
            full = [(data[f"poim_{k}"], data[f"firm_{k}"]) if f"poim_{k}" in data.files else (None, None)
                    for k in range(1, K + 1)]
            return cls(maximal=[data[f"maximal_{k}"] for k in range(1, K + 1)],
                       maximal_argmax=[data[f"argmax_{k}"] for k in range(1, K + 1)], tops=tops,
                       poim=[p for p, _ in full], firm=[f for _, f in full],
                       expected_score=float(data["expected_score"]), score_std=float(data["score_std"]),
                       top_n=int(data["top_n"]), alphabet=str(data["alphabet"]), method=str(data["method"]),
                       meta=read_metadata_json(str(data["meta"]), name=str(path)))


def load_poim(path, *, name=None):
    """Load a POIM result of either kind: a :class:`POIMResult` (full tables) or a
    :class:`StreamedPOIM` (summaries), by the ``kind`` entry of the ``.npz``.

    Parameters
    ----------
    path : path-like
        A file written by ``save`` of either kind (``poim.npz`` of ``seqimp poim``); the
        ``.npz`` suffix may be left out.
    name : str, optional
        How messages name the file (default: the path), e.g. ``"--poim results/poim.npz"``.

    Raises
    ------
    SeqimpError
        One line naming the file: no such file, a directory, or not a POIM result file.
    """
    from .._utils.npz import check_npz_memory, npz_headers
    from ..kernels._weights import npz_path

    where = os.fspath(path) if name is None else name
    if os.path.isdir(path):
        raise SeqimpError(f"{where}: is a directory, expected a POIM result file (.npz)")
    try:
        path = npz_path(path)
    except SeqimpError:
        raise SeqimpError(f"{where}: no such file") from None
    try:
        with np.load(path, allow_pickle=False) as data:
            kind = str(data["kind"]) if "kind" in data.files else None
        check_npz_memory(npz_headers(path, name=where), name=where)  # headers only: no bomb is inflated
        if kind == StreamedPOIM.kind:
            return StreamedPOIM.load(path)
        if kind == "POIMResult":
            return POIMResult.load(path)
    except SeqimpError:
        raise
    except (OSError, EOFError, KeyError, ValueError, zipfile.BadZipFile):
        pass
    raise SeqimpError(f"{where}: not a POIM result file (poim.npz of 'seqimp poim', or a saved POIMResult)")
