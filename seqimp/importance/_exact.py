"""Positional oligomer importance: POIM, FIRM, maximal and differential POIMs.

For a linear positional scoring system s (a :class:`~seqimp.kernels.PositionalWeights`)
and a background distribution of sequences X (a :class:`~seqimp.background.MarkovBackground`),
the importance of the positional oligomer (z, j) -- "k-mer z occurs at 0-based start j" -- is

* POIM (Sonnenburg et al. 2008; FIRM paper eq. 5):
  ``Q(z, j) = E[s(X) | X[j:j+k] = z] - E[s(X)]``;
* FIRM of the binary feature (FIRM paper eq. 10, with the erratum in
  ``shared/papers/README.md``): ``(E[s | z at j] - E[s | z not at j]) * sqrt(pi (1 - pi))``
  with ``pi = P(X[j:j+k] = z)``; equivalently ``Q(z, j) * sqrt(pi / (1 - pi))``;
* maximal POIM ``q_max(k, j) = max_z |Q(z, j)|`` and differential POIM
  ``Omega(1, j) = q_max(1, j)``,
  ``Omega(k, j) = q_max(k, j) - max(q_max(k-1, j), q_max(k-1, j+1))``.

:class:`POIMResult` holds these tables whatever estimated them (this module's exact engine,
or a sampling estimator elsewhere in seqimp).
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field

import numpy as np

from ..io._alphabet import get_alphabet, kmer_string
from ..errors import SeqimpError
from .._tables import Table

__all__ = ["POIMResult", "poim", "maximal_poim", "differential_poim"]


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
    from ._dp_kernels import row_abs_max

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


def _as_tables(tables, name, alphabet_size, length=None, allow_none=False):
    if tables is None:
        if allow_none:
            return None
        raise SeqimpError(f"POIMResult: {name} is required")
    tables = [np.ascontiguousarray(t, dtype=np.float64) for t in tables]
    if not tables:
        raise SeqimpError(f"POIMResult: {name} must hold at least one table (k = 1)")
    if length is None:
        if tables[0].ndim != 2:
            raise SeqimpError(f"POIMResult: {name}[0] must be 2-D (L, {alphabet_size}), got shape {tables[0].shape}")
        length = tables[0].shape[0]
    for k, t in enumerate(tables, start=1):
        want = (length - k + 1, alphabet_size ** k)
        if t.shape != want:
            raise SeqimpError(f"POIMResult: {name}[{k - 1}] must have shape (L-k+1, A**k) = {want} "
                              f"for L={length}, got {t.shape}")
    return tables


@dataclass
class POIMResult:
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

    @property
    def standardized_(self) -> bool:
        return bool(self.meta.get("standardized", False))

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
        sd = self.score_std
        if not np.isfinite(sd) or sd <= 0:
            raise SeqimpError(f"cannot standardize: the score's standard deviation is {sd:g} (constant score?)")

        def scale(tables):
            return None if tables is None else [t / sd for t in tables]

        meta = dict(self.meta, standardized=True)
        return POIMResult(scale(self.poim), scale(self.firm), expected_score=self.expected_score,
                          score_std=sd, alphabet=self.alphabet, poim_se=scale(self.poim_se),
                          firm_se=scale(self.firm_se), method=self.method, meta=meta)

    def top(self, n=20, *, measure="poim") -> Table:
        """The ``n`` positional oligomers of largest absolute importance, over all orders.

        Parameters
        ----------
        n : int, default=20
        measure : {"poim", "firm"}, default="poim"
            Rank by ``|poim|`` or ``|firm|``; NaN entries (impossible oligomers) are skipped.

        Returns
        -------
        Table
            Columns ``rank, oligomer, order, position`` (1-based start), ``poim, firm``.
        """
        if measure not in ("poim", "firm"):
            raise SeqimpError(f"measure must be 'poim' or 'firm', got {measure!r}")
        n = int(n)
        if n < 0:
            raise SeqimpError(f"n must be >= 0, got {n}")
        from ..kernels._weights import largest_entries

        ks, pos, idx = largest_entries(self.poim if measure == "poim" else self.firm, n)
        poim_vals = np.array([self.poim[k - 1][p, z] for k, p, z in zip(ks, pos, idx)], dtype=np.float64)
        firm_vals = np.array([self.firm[k - 1][p, z] for k, p, z in zip(ks, pos, idx)], dtype=np.float64)
        return Table({
            "rank": np.arange(1, ks.size + 1),
            "oligomer": [kmer_string(i, k, self.alphabet) for i, k in zip(idx, ks)],
            "order": ks,
            "position": pos + 1,
            "poim": poim_vals,
            "firm": firm_vals,
        })

    def save(self, path) -> None:
        """Write to ``.npz``: all tables, optional standard errors, scalars and ``meta`` (as JSON)."""
        arrays = {}
        for name in ("poim", "firm", "poim_se", "firm_se"):
            tables = getattr(self, name)
            if tables is not None:
                arrays.update({f"{name}_{k}": t for k, t in enumerate(tables, start=1)})
        np.savez(os.fspath(path), kind="POIMResult", expected_score=self.expected_score,
                            score_std=self.score_std, alphabet=self.alphabet.name, method=self.method,
                            meta=json.dumps(self.meta), **arrays)

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
                       meta=json.loads(str(data["meta"])))


def _as_weights(model_or_weights):
    from ..kernels._weights import PositionalWeights

    obj = model_or_weights
    if not isinstance(obj, PositionalWeights):
        if not hasattr(obj, "positional_weights"):
            raise SeqimpError("poim: model_or_weights must be a PositionalWeights or have .positional_weights() "
                              f"(got {type(obj).__name__})")
        obj = obj.positional_weights()
        if not isinstance(obj, PositionalWeights):
            raise SeqimpError(f"poim: positional_weights() returned {type(obj).__name__}, not PositionalWeights")
    return obj


def poim(model_or_weights, background=None, max_order=None, *, standardize=False, max_memory=None,
         progress=False) -> POIMResult:
    """Exact POIM and FIRM of a linear positional scoring system under a Markov background.

    Parameters
    ----------
    model_or_weights : PositionalWeights or object with ``.positional_weights()``
        The score ``s(x) = bias + sum_k sum_i W_k[i, x[i:i+k]]`` on sequences of length L.
    background : MarkovBackground, optional
        Any order D >= 0, homogeneous or position-specific (then of length L). Default: uniform.
    max_order : int, optional
        Largest oligomer length K (default: the weights' degree). May exceed the degree and
        the background order.
    standardize : bool, default=False
        Divide POIM and FIRM by the standard deviation of s(X) (see :meth:`POIMResult.standardized`).
    max_memory : int, optional
        Bytes the computation may use (default: half the available RAM). The need is estimated
        before anything large is allocated; above the limit a SeqimpError names the estimate
        in GB and the largest ``max_order`` that would fit.
    progress : bool, default=False
        Report progress per level on stderr.

    Returns
    -------
    POIMResult
        ``poim[k-1]``, ``firm[k-1]`` of shape (L-k+1, 4**k); ``maximal``, ``differential`` of
        shape (max_order, L); ``expected_score`` = E[s(X)]; ``score_std`` = sd of s(X).

    Notes
    -----
    Exact for every Markov order; the work is O(sum_n A**n * L) over n = 1..max(K, degree, D),
    by the recursions described in ``docs/poim.md`` (no per-window sum over overlapping windows).
    Oligomers of probability 0 get NaN POIM and 0 FIRM; FIRM is 0 where the probability is 1
    (to within 1e-12).
    """
    from ._engine import check_lengths, check_memory, exact_conditional, n_levels
    from ..background._markov import MarkovBackground
    from .._progress import progress_bar

    weights = _as_weights(model_or_weights)
    length, degree = weights.length, weights.degree
    if background is None:
        background = MarkovBackground.uniform(alphabet=weights.alphabet)
    if not isinstance(background, MarkovBackground):
        raise SeqimpError(f"poim: background must be a MarkovBackground, got {type(background).__name__}")
    background._check_fitted()
    if background.alphabet.name != weights.alphabet.name:
        raise SeqimpError(f"poim: background alphabet {background.alphabet.name} differs from the weights' "
                          f"{weights.alphabet.name}")
    max_order = degree if max_order is None else max_order
    try:
        ok = not isinstance(max_order, bool) and int(max_order) == max_order
    except (TypeError, ValueError):
        ok = False
    if not ok:
        raise SeqimpError(f"max_order must be a positive integer, got {max_order!r}")
    max_order = int(max_order)
    if max_memory is not None and (isinstance(max_memory, bool) or not isinstance(max_memory, (int, float, np.number))
                                   or not max_memory > 0):
        raise SeqimpError(f"max_memory must be a positive number of bytes, got {max_memory!r}")
    check_lengths(length, background, max_order)
    check_memory(weights.alphabet.size, length, degree, background.order, max_order, max_memory)
    with progress_bar(n_levels(degree, background.order, max_order), "poim levels", enabled=progress) as bar:
        poims, firms, es, var = exact_conditional(weights.tables, weights.bias, background, max_order,
                                                  progress=bar)
    meta = {"background": background.describe(), "degree": degree, "length": length}
    result = POIMResult(poims, firms, expected_score=es, score_std=float(np.sqrt(var)),
                        alphabet=weights.alphabet, method="exact", meta=meta)
    return result.standardized() if standardize else result
