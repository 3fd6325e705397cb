"""The result types' shared interface (:class:`BasePOIMResult`), the result that holds every
table (:class:`POIMResult`) with its file format, and the maximal and differential POIMs.

* maximal POIM ``q_max(k, j) = max_z |Q(z, j)|`` and differential POIM
  ``Omega(1, j) = q_max(1, j)``,
  ``Omega(k, j) = q_max(k, j) - max(q_max(k-1, j), q_max(k-1, j+1))``;
* :meth:`POIMResult.top` -- the one ranking of positional oligomers (by |FIRM| or |POIM|) that
  ``top_oligomers.tsv``, the CLI and the summaries use.

:class:`POIMResult` holds the tables whatever estimated them (the in-memory exact engine in
:mod:`seqimp.importance._poim_memory`, or the sampling estimator). :class:`BasePOIMResult` is
the interface it shares with the streamed summaries
(:class:`~seqimp.importance._poim_summary.StreamedPOIM`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import partial

import numpy as np

from ..io import get_alphabet, kmer_string
from ..errors import SeqimpError, check_choice, check_int
from .._utils.npz import read_metadata_json
from .._utils.tables import check_order_tables, oligomer_table

__all__ = ["POIMResult", "BasePOIMResult", "MEASURES", "FULL_ORDERS", "measure_tables", "maximal_poim",
           "differential_poim"]

#: The importance measures a :class:`POIMResult` holds, by the name of its attribute.
MEASURES = ("poim", "firm")
#: Orders whose full tables a streamed result keeps.
FULL_ORDERS = 4


def measure_tables(result, measure) -> list:
    """``result.poim`` or ``result.firm``; ``measure`` checked against :data:`MEASURES`."""
    return getattr(result, check_choice(measure, "measure", MEASURES))


def _as_tables(tables, name, alphabet_size, length=None, allow_none=False):
    if tables is None:
        if allow_none:
            return None
        raise SeqimpError(f"POIMResult: {name} is required")
    return check_order_tables(tables, f"POIMResult: {name}", alphabet_size, length)


def maximal_poim(tables, length=None) -> np.ndarray:
    """Maximal POIM from per-order POIM tables.

    Parameters
    ----------
    tables : sequence of ndarray
        ``tables[k-1]`` of shape (L-k+1, A**k); NaN entries (impossible oligomers) are ignored.
    length : int, optional
        L; defaults to ``tables[0].shape[0]``.

    Returns
    -------
    ndarray of shape (len(tables), L), float64
        ``[k-1, j] = max_z |tables[k-1][j, z]|``; NaN where ``j > L-k`` or a row is all NaN.
    """
    from ._poim_kernels import row_abs_max

    length = tables[0].shape[0] if length is None else int(length)
    out = np.full((len(tables), length), np.nan)
    for k, t in enumerate(tables, start=1):
        t = np.ascontiguousarray(t, dtype=np.float64)
        row_abs_max(t, out[k - 1, : t.shape[0]])
    return out


def differential_poim(maximal) -> np.ndarray:
    """Differential POIM from a maximal POIM of shape (K, L).

    ``Omega(1, j) = q_max(1, j)``; ``Omega(k, j) = q_max(k, j) - max(q_max(k-1, j), q_max(k-1, j+1))``
    (NaN in the inputs is ignored by the inner max; NaN where ``j > L-k``).

    Returns
    -------
    ndarray of shape (K, L), float64
    """
    q = np.asarray(maximal, dtype=np.float64)
    out = np.full_like(q, np.nan)
    if q.shape[0] == 0:
        return out
    out[0] = q[0]
    length = q.shape[1]
    for k in range(2, q.shape[0] + 1):
        n = length - k + 1
        if n <= 0:
            continue
        prev = np.fmax(q[k - 2, :n], q[k - 2, 1 : n + 1])
        out[k - 1, :n] = q[k - 1, :n] - prev
    return out


class BasePOIMResult:
    """What every POIM result offers, whether it holds every table (:class:`POIMResult`) or
    summaries (:class:`~seqimp.importance.StreamedPOIM`).

    * ``top(n=20, measure="firm", order=None, *, per_order=True)``: the one ranking, a DataFrame with
      columns ``rank, oligomer, order, position`` (1-based), ``poim, firm``: the top ``n`` of *each*
      order merged (up to ``n * max_order`` rows, the rows of ``top_oligomers.tsv``), or with
      ``per_order=False`` the ``n`` best overall;
    * ``maximal``, ``differential``: arrays of shape (max_order, L), NaN where j > L-k;
    * ``max_order``, ``length``, ``alphabet``, ``expected_score``, ``score_std``, ``method``, ``meta``;
    * :meth:`table`: the full table of one order and measure, or a clear error where it is not kept;
    * ``standardized()``: a copy divided by ``score_std``; ``save(path)``
      (:func:`seqimp.load_poim` reads either kind back).
    """

    def _order(self, order) -> int:
        """``order`` as an int in 1..max_order, or a SeqimpError."""
        try:
            k = int(order)
        except (TypeError, ValueError):
            k = 0
        if isinstance(order, bool) or k != order or not 1 <= k <= self.max_order:
            raise SeqimpError(f"order must lie in 1..{self.max_order} (the result's max_order), got {order!r}")
        return k

    def table(self, order, measure="poim") -> np.ndarray:
        """The full table of one order: ``poim[k-1]`` or ``firm[k-1]``, shape (L-k+1, A**k).

        Raises
        ------
        SeqimpError
            For an order outside 1..max_order, or one whose table a streamed result did not
            keep (orders above :data:`FULL_ORDERS`).
        """
        tables = measure_tables(self, measure)
        k = self._order(order)
        if tables[k - 1] is None:
            raise SeqimpError(f"order {k} tables are not kept: a streamed POIM keeps full tables for k <= "
                              f"{FULL_ORDERS}; rerun with full_tables=PATH (--full-tables) to write every order to "
                              "HDF5, or with engine='memory' where it fits (a pipeline's poim.npz is such a "
                              "summary; every order keeps its maximal and differential POIM, "
                              f"plot.differential_heatmap, and its top oligomers, top(n, order={k}))")
        return tables[k - 1]

    def _repr_html_(self) -> str:
        """Jupyter's view: the figures of the result, its differential POIM and its 5 best oligomers."""
        from .._utils.repr import heatmap_png, html_card

        lines = [("method", self.method), ("orders", f"1..{self.max_order}"), ("sequence length", self.length),
                 ("alphabet", self.alphabet.name), ("E[s(X)] under the background", self.expected_score),
                 ("sd of s(X)", self.score_std)]
        top = self.top(min(5, getattr(self, "top_n", 5)), per_order=False)
        image = heatmap_png(self.differential, ylabels=range(1, self.max_order + 1))
        return html_card(type(self).__name__ + (" (standardized)" if self.standardized_ else ""), lines,
                         table=top, images=[("differential POIM: order k (rows) by start position", image)],
                         note="best 5 positional oligomers by |FIRM| over all orders; top(n) gives n per order, "
                              "table(k, 'poim') the full tables")

    @property
    def standardized_(self) -> bool:
        """Whether the values were divided by ``score_std`` (see ``standardized()``)."""
        return bool(self.meta.get("standardized", False))

    def _score_sd(self) -> float:
        """``score_std``, checked to be a usable scale for ``standardized()``."""
        sd = self.score_std
        if not np.isfinite(sd) or sd <= 0:
            raise SeqimpError(f"cannot standardize: the score's standard deviation is {sd:g} (constant score?)")
        return sd


@dataclass
class POIMResult(BasePOIMResult):
    """Positional oligomer importances for orders k = 1..max_order.

    Parameters
    ----------
    poim : sequence of ndarray
        ``poim[k-1]`` of shape (L-k+1, A**k) (A = alphabet size, 4 for DNA): the POIM
        ``Q(z, j) = E[s | X[j:j+k] = z] - E[s]``; row = 0-based start j, column = k-mer index z.
        NaN where the background gives the oligomer probability 0.
    firm : sequence of ndarray
        ``firm[k-1]`` of shape (L-k+1, A**k): the signed FIRM of the feature "z at j".
    expected_score : float
        ``E[s(X)]`` under the background.
    score_std : float
        Standard deviation of s(X) under the background (the scale used by :meth:`standardized`).
    alphabet : str or Alphabet, default="dna"
    poim_se, firm_se : sequence of ndarray, optional
        Standard errors with the shapes of ``poim`` / ``firm`` (sampling estimators).
    method : str, default="exact"
        Which estimator produced the tables.
    meta : dict, optional
        JSON-serialisable extra information (background description, sample sizes, ...).

    Attributes
    ----------
    maximal : ndarray of shape (max_order, L), float64
        ``max_z |Q(z, j)|`` ignoring NaN; NaN where ``j > L-k``.
    differential : ndarray of shape (max_order, L), float64
        Differential POIM; NaN where ``j > L-k``.
    max_order : int
    length : int
        Sequence length L.
    standardized_ : bool
        Whether the tables were divided by ``score_std`` (see :meth:`standardized`).
    """

    poim: list
    firm: list
    expected_score: float = field(kw_only=True)
    score_std: float = field(kw_only=True)
    alphabet: object = field(default="dna", kw_only=True)
    poim_se: list | None = field(default=None, kw_only=True)
    firm_se: list | None = field(default=None, kw_only=True)
    method: str = field(default="exact", kw_only=True)
    meta: dict | None = field(default=None, kw_only=True)
    maximal: np.ndarray = field(init=False, repr=False)
    differential: np.ndarray = field(init=False, repr=False)

    def __post_init__(self):
        self.alphabet = get_alphabet(self.alphabet)
        a = self.alphabet.size
        self.poim = _as_tables(self.poim, "poim", a)
        length = self.poim[0].shape[0]
        self.firm = _as_tables(self.firm, "firm", a, length)
        if len(self.firm) != len(self.poim):
            raise SeqimpError(f"POIMResult: poim has {len(self.poim)} orders but firm has {len(self.firm)}")
        for name in ("poim_se", "firm_se"):
            se = _as_tables(getattr(self, name), name, a, length, allow_none=True)
            if se is not None and len(se) != len(self.poim):
                raise SeqimpError(f"POIMResult: {name} has {len(se)} orders, poim has {len(self.poim)}")
            setattr(self, name, se)
        self.expected_score = float(self.expected_score)
        self.score_std = float(self.score_std)
        self.method = str(self.method)
        self.meta = dict(self.meta) if self.meta is not None else {}
        try:
            json.dumps(self.meta)
        except TypeError as exc:
            raise SeqimpError(f"POIMResult: meta must be JSON-serialisable ({exc})") from None
        self.maximal = maximal_poim(self.poim, length)
        self.differential = differential_poim(self.maximal)

    @property
    def max_order(self) -> int:
        return len(self.poim)

    @property
    def length(self) -> int:
        return self.poim[0].shape[0]

    def __repr__(self) -> str:
        return (f"POIMResult(method={self.method!r}, max_order={self.max_order}, length={self.length}, "
                f"expected_score={self.expected_score:.6g}, score_std={self.score_std:.6g}"
                f"{', standardized' if self.standardized_ else ''})")

    def standardized(self) -> "POIMResult":
        """A copy with POIM, FIRM (and their standard errors) divided by ``score_std``.

        This is FIRM's scale-free importance (FIRM paper §2.1, with the erratum: divide by
        sqrt(Var[s(X)])). ``expected_score`` and ``score_std`` keep describing the raw score;
        ``meta["standardized"]`` is set. Calling it on a standardized result returns a copy.
        """
        if self.standardized_:
            return POIMResult(self.poim, self.firm, expected_score=self.expected_score,
                              score_std=self.score_std, alphabet=self.alphabet, poim_se=self.poim_se,
                              firm_se=self.firm_se, method=self.method, meta=self.meta)
        sd = self._score_sd()

        def scale(tables):
            return None if tables is None else [t / sd for t in tables]

        meta = dict(self.meta, standardized=True)
        return POIMResult(scale(self.poim), scale(self.firm), expected_score=self.expected_score,
                          score_std=sd, alphabet=self.alphabet, poim_se=scale(self.poim_se),
                          firm_se=scale(self.firm_se), method=self.method, meta=meta)

    def top(self, n=20, measure="firm", order=None, *, per_order=True):
        """The positional oligomers of largest absolute importance: ``n`` per order by default.

        The one ranking of seqimp (``top_oligomers.tsv``, the CLI, the summaries): entries are
        ranked by ``|measure|`` descending, ties broken by order k, then position, then k-mer
        index (all ascending); NaN entries (impossible oligomers) are skipped. Each order's
        top ``n`` is found by partial selection (:func:`numpy.partition`), never a full sort.
        ``top(5)`` of a result with max_order 8 has up to 40 rows (5 per order);
        ``top(5, per_order=False)`` has 5.

        Parameters
        ----------
        n : int, default=20
            Rows per order (>= 0); fewer where an order has fewer non-NaN entries.
        measure : {"firm", "poim"}, default="firm"
            Rank by ``|firm|`` or ``|poim|``.
        order : int, optional
            None: the top ``n`` of every order k = 1..max_order, merged into one ranking (up
            to ``n * max_order`` rows; exactly the rows of ``top_oligomers.tsv``).
            k: the top ``n`` k-mers only.
        per_order : bool, default=True
            False: only the first ``n`` rows of that ranking, the ``n`` best over all orders.

        Returns
        -------
        pandas.DataFrame
            Columns ``rank`` (1..m), ``oligomer``, ``order``, ``position`` (1-based start),
            ``poim``, ``firm``; one row per positional oligomer, best first.
        """
        tables = measure_tables(self, measure)
        n = check_int(n, "n", minimum=0)
        columns = {"poim": self.poim, "firm": self.firm}
        if order is None:
            table = oligomer_table(tables, n, columns, partial(kmer_string, alphabet=self.alphabet), per_order=True)
            return table if per_order else table.head(n)
        k = check_int(order, "order", minimum=1, maximum=self.max_order)
        # ranking only the k-th tables: earlier orders as empty tables keep k and the columns aligned
        empty = [t[:0] for t in tables[: k - 1]]
        return oligomer_table(empty + [tables[k - 1]], n, columns, partial(kmer_string, alphabet=self.alphabet))

    def save(self, path) -> None:
        """Write to ``.npz``: all tables, optional standard errors, scalars and ``meta`` (as JSON)."""
        arrays = {}
        for name in ("poim", "firm", "poim_se", "firm_se"):
            tables = getattr(self, name)
            if tables is not None:
                arrays.update({f"{name}_{k}": t for k, t in enumerate(tables, start=1)})
        from .._utils.npz import save_npz

        save_npz(path, dict(kind="POIMResult", expected_score=self.expected_score, score_std=self.score_std,
                            alphabet=self.alphabet.name, method=self.method,
                            meta=json.dumps(self.meta, sort_keys=True), **arrays))

    @classmethod
    def load(cls, path) -> "POIMResult":
        """Read a result written by :meth:`save` (``path`` with or without ``.npz``)."""
        from ..kernels._weights import npz_path

        with np.load(npz_path(path), allow_pickle=False) as data:
            if "kind" not in data.files or str(data["kind"]) != "POIMResult":
                raise SeqimpError(f"{path}: not a POIMResult file")

            def tables(name):
                keys = [k for k in data.files if k.startswith(name + "_") and k[len(name) + 1:].isdigit()]
                keys.sort(key=lambda s: int(s[len(name) + 1:]))
                return [data[k] for k in keys] or None

            return cls(tables("poim"), tables("firm"), expected_score=float(data["expected_score"]),
                       score_std=float(data["score_std"]), alphabet=str(data["alphabet"]),
                       poim_se=tables("poim_se"), firm_se=tables("firm_se"), method=str(data["method"]),
                       meta=read_metadata_json(str(data["meta"]), name=str(path)))
