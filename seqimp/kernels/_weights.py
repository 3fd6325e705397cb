"""Linear scoring systems over positional oligomers.

A :class:`PositionalWeights` is the explicit form of a weighted-degree model:
a weight for every k-mer at every start position, k = 1..degree. It is what
kernel models unfold into and what the POIM/FIRM engine analyses.
"""

from __future__ import annotations

import json
import os
from functools import partial

import numpy as np

from ..io import get_alphabet, kmer_string, window_indices
from ..errors import SeqimpError
from ..io._alphabet import known_windows, unknown_prefix
from ..io._check import check_sequences
from .._utils.npz import save_npz
from .._utils.tables import check_order_tables, oligomer_table

__all__ = ["PositionalWeights", "FORMAT_VERSION", "COMPRESS_ABOVE"]

#: Newest version of the ``.npz`` layout :meth:`PositionalWeights.save` writes and :meth:`load` reads:
#: files without a version are 1 (dense ``table_<k>`` only); 2 may store tables as their non-zero
#: entries (``sparse_<k>_shape``, ``_index``, ``_value``); 3, written for deflated files only, gives
#: the flat indices as the steps between them (``sparse_<k>_step``, the smallest unsigned integer
#: type that holds them), which deflate to about half the bytes of the indices themselves.
FORMAT_VERSION = 3

#: Model files whose arrays take more bytes than this are deflated by default (:meth:`PositionalWeights.save`).
COMPRESS_ABOVE = 16 << 20


class PositionalWeights:
    """Weights of positional k-mers: s(x) = bias + sum_k sum_i W_k[i, x[i:i+k]].

    Parameters
    ----------
    tables : sequence of ndarray
        ``tables[k-1]`` has shape (L-k+1, A**k) (A = alphabet size, 4 for DNA);
        entry ``[i, y]`` is the weight of k-mer index ``y`` starting at 0-based
        position ``i``. ``k`` runs from 1 to the degree without gaps.
    bias : float, default=0.0
    alphabet : str or Alphabet, default="dna"

    Attributes
    ----------
    tables : list of ndarray of shape (L-k+1, A**k), float64
    bias : float
    degree : int
        Largest k.
    length : int
        Sequence length L.
    """

    def __init__(self, tables, bias=0.0, alphabet="dna"):
        self.alphabet = get_alphabet(alphabet)
        tables = check_order_tables(tables, "PositionalWeights: tables", self.alphabet.size)
        length = tables[0].shape[0]
        if len(tables) > length:
            raise SeqimpError(f"degree {len(tables)} exceeds the sequence length {length}")
        for k, table in enumerate(tables, start=1):
            if not np.isfinite(table).all():
                bad = np.argwhere(~np.isfinite(table))[0]
                raise SeqimpError(f"PositionalWeights: the order-{k} table holds {table[tuple(bad)]} at position "
                                  f"{bad[0] + 1} (1-based); weights must be finite numbers")
        if not np.isfinite(bias):
            raise SeqimpError(f"PositionalWeights: the bias is {bias}; it must be a finite number")
        self.tables = tables
        self.bias = float(bias)

    @property
    def degree(self) -> int:
        return len(self.tables)

    @property
    def length(self) -> int:
        return self.tables[0].shape[0]

    def __repr__(self) -> str:
        return (f"PositionalWeights(degree={self.degree}, length={self.length}, "
                f"bias={self.bias:.6g}, alphabet={self.alphabet.name!r})")

    @classmethod
    def from_kernel_expansion(cls, X_support, dual_coef, intercept, *, degree, shifts=0,
                              alphabet="dna") -> "PositionalWeights":
        """Unfold a kernel machine on the WD / WDS kernel into positional weights.

        The machine scores s(x) = intercept + sum_j dual_coef[j] k(X_support[j], x)
        with ``k = wd_kernel(..., degree=degree, shifts=shifts)`` (unnormalised).
        Every kernel term is an indicator on one positional k-mer of x, so the
        result scores exactly like the machine, shifts included.

        Parameters
        ----------
        X_support : list of str, SequenceSet or ndarray of shape (n_support, L)
        dual_coef : array-like of shape (n_support,) or (1, n_support)
            E.g. ``SVC(kernel="precomputed").dual_coef_`` (already signed y_j a_j).
        intercept : float or array-like of shape (1,)
        degree : int
        shifts : int, default=0
        alphabet : str or Alphabet, default="dna"

        Returns
        -------
        PositionalWeights
            ``tables[k-1]`` of shape (L-k+1, A**k); ``bias = intercept``.

        Examples
        --------
        >>> from sklearn.svm import SVC
        >>> from seqimp import PositionalWeights, wd_kernel
        >>> seqs, y = ["ACGTAC", "ACGTTT", "TTGTAC", "GGGTAC"], [1, 1, 0, 0]
        >>> svm = SVC(kernel="precomputed").fit(wd_kernel(seqs, degree=3, shifts=1), y)
        >>> w = PositionalWeights.from_kernel_expansion(
        ...     [seqs[i] for i in svm.support_], svm.dual_coef_, svm.intercept_, degree=3, shifts=1)
        """
        from ._unfold import unfold_kernel_expansion

        tables = unfold_kernel_expansion(X_support, dual_coef, degree=degree, shifts=shifts,
                                         alphabet=alphabet)
        return cls(tables, bias=_scalar(intercept, "intercept"), alphabet=alphabet)

    @classmethod
    def from_wd_coef(cls, coef, intercept, *, length, degree, alphabet="dna") -> "PositionalWeights":
        """Positional weights of a linear model trained on :func:`~seqimp.wd_features`.

        Parameters
        ----------
        coef : array-like of shape (n_features,) or (1, n_features)
            One weight per feature column (layout of :func:`~seqimp.wd_features`).
        intercept : float or array-like of shape (1,)
        length, degree : int
            Sequence length L and degree K the features were built with.

        Returns
        -------
        PositionalWeights
            ``tables[k-1][i, y] = sqrt(beta_k) * coef[column(k, i, y)]``.
        """
        from ._unfold import unfold_wd_coef

        tables = unfold_wd_coef(coef, length=length, degree=degree, alphabet=alphabet)
        return cls(tables, bias=_scalar(intercept, "intercept"), alphabet=alphabet)

    def positional_weights(self) -> "PositionalWeights":
        """Return self, so that weights and models can be used alike."""
        return self

    def score(self, X) -> np.ndarray:
        """Scores of sequences, shape (n,).

        Parameters
        ----------
        X : list of str, SequenceSet or ndarray of shape (n, L)
            A positional k-mer that covers an unknown symbol (N, an ambiguity letter) is no
            feature and adds nothing to the score.
        """
        codes = check_sequences(X, "X", self.alphabet, unknown=True)
        if codes.shape[1] != self.length:
            raise SeqimpError(f"sequences have length {codes.shape[1]}, the weights length {self.length}")
        out = np.full(codes.shape[0], self.bias)
        rows = np.arange(self.length)
        size = self.alphabet.size
        unknown = bool((codes >= size).any())
        if unknown:                     # a k-mer that covers an unknown symbol is no feature: weight 0
            codes, seen = unknown_prefix(codes, size)
        for k, table in enumerate(self.tables, start=1):
            idx = window_indices(codes, k, size)
            terms = table[rows[: self.length - k + 1], idx]
            if unknown:
                terms = np.where(known_windows(seen, k), terms, 0.0)
            out += terms.sum(axis=1)
        return out

    def top(self, n=20):
        """The ``n`` positional oligomers with the largest ``|weight|``, over all orders.

        Ranked by ``|weight|`` descending, ties by order k, position, k-mer index (the ranking of
        :meth:`POIMResult.top <seqimp.importance.POIMResult.top>`).

        Returns
        -------
        pandas.DataFrame
            Columns ``rank, oligomer, order, position`` (1-based start), ``weight``.
        """
        if isinstance(n, bool) or int(n) != n or n < 0:
            raise SeqimpError(f"n must be a non-negative integer, got {n!r}")
        return oligomer_table(self.tables, n, {"weight": self.tables},
                              partial(kmer_string, alphabet=self.alphabet))

    def save(self, path, *, metadata=None, compress=None) -> None:
        """Save to ``.npz`` (tables, bias, alphabet, optional metadata).

        A table is stored as its non-zero entries (flat indices and values) when that is
        smaller, as the weights of a trained WD model are: the k-mers no training sequence
        has get weight 0. :meth:`load` restores the dense tables exactly.

        Parameters
        ----------
        path : str or path-like
            numpy appends ``.npz`` when missing; :meth:`load` accepts either name.
        metadata : dict, optional
            JSON-serialisable provenance (model parameters, data source, ...),
            read back with :meth:`load_metadata`.
        compress : bool, optional
            Deflate the entries (lossless; :func:`numpy.load` reads either kind; sparse tables keep
            the steps between their indices, format version 3). None (default):
            when the arrays take more than :data:`COMPRESS_ABOVE` bytes, as the high orders of a
            model on long sequences do (a degree-8 model of 1,600 sequences of 1,000 nt: 64 MB
            stored, 25 MB deflated, 1.7 s); small models stay uncompressed and quick to read.
        """
        arrays = {}
        for k, table in enumerate(self.tables, start=1):
            flat = table.ravel()
            nonzero = np.flatnonzero(flat)
            if nonzero.size * 12 < flat.size * 8:  # sparse is smaller: trained WD weights mostly are
                arrays[f"sparse_{k}_shape"] = np.array(table.shape, dtype=np.int64)
                arrays[f"sparse_{k}_index"] = nonzero.astype(np.int32 if flat.size < 2**31 else np.int64)
                arrays[f"sparse_{k}_value"] = flat[nonzero]
            else:
                arrays[f"table_{k}"] = table
        if metadata is not None:
            try:
                arrays["metadata"] = np.array(json.dumps(metadata, sort_keys=True))
            except TypeError as exc:
                raise SeqimpError(f"metadata must be JSON-serialisable: {exc}") from None
        if compress is None:
            compress = sum(np.asarray(a).nbytes for a in arrays.values()) > COMPRESS_ABOVE
        version = 2
        if compress:  # sorted flat indices as steps, in the narrowest type: they deflate better
            for name in [n for n in arrays if n.endswith("_index")]:
                index = arrays.pop(name).astype(np.int64)
                steps = np.diff(index, prepend=0)
                arrays[name.replace("_index", "_step")] = steps.astype(np.min_scalar_type(int(steps.max(initial=0))))
                version = 3
        save_npz(path, dict(bias=self.bias, alphabet=self.alphabet.name, kind="PositionalWeights",
                            format_version=version, **arrays), compress=bool(compress))

    @classmethod
    def load(cls, path) -> "PositionalWeights":
        """Load weights written by :meth:`save`."""
        path = npz_path(path)
        with np.load(path, allow_pickle=False) as data:
            if "kind" in data.files and str(data["kind"]) != "PositionalWeights":
                raise SeqimpError(f"{path}: holds a {str(data['kind'])}, not model weights (PositionalWeights)")
            version = int(data["format_version"]) if "format_version" in data.files else 1
            if version > FORMAT_VERSION:
                raise SeqimpError(f"{path}: model file format version {version} is newer than this seqimp "
                                  f"reads ({FORMAT_VERSION}); upgrade seqimp")
            orders = {int(name.split("_")[1]) for name in data.files
                      if (name.startswith("table_") or name.startswith("sparse_")) and name.split("_")[1].isdigit()}
            if not orders or "bias" not in data.files or "alphabet" not in data.files:
                raise SeqimpError(f"{path}: not a PositionalWeights file (no tables, bias or alphabet)")
            if sorted(orders) != list(range(1, len(orders) + 1)):
                raise SeqimpError(f"{path}: the model's tables are not orders 1..{len(orders)} without gaps")
            tables = []
            for k in range(1, len(orders) + 1):
                if f"table_{k}" in data.files:
                    tables.append(data[f"table_{k}"])
                    continue
                try:  # stored as its non-zero entries, their flat indices or the steps between them
                    table = np.zeros(tuple(int(n) for n in data[f"sparse_{k}_shape"]), dtype=np.float64)
                    if f"sparse_{k}_step" in data.files:
                        index = np.cumsum(data[f"sparse_{k}_step"], dtype=np.int64)
                    else:
                        index = data[f"sparse_{k}_index"]
                    if index.size and (index.min() < 0 or index.max() >= table.size):  # -1 would wrap around
                        raise IndexError(f"sparse index {int(index.min()) if index.min() < 0 else int(index.max())} "
                                         f"outside 0..{table.size - 1}")
                    table.ravel()[index] = data[f"sparse_{k}_value"]
                except (KeyError, IndexError, ValueError, TypeError) as exc:
                    raise SeqimpError(f"{path}: the order-{k} table is damaged ({exc})") from None
                tables.append(table)
            try:
                return cls(tables, bias=float(data["bias"]), alphabet=str(data["alphabet"]))
            except SeqimpError as exc:
                raise SeqimpError(f"{path}: {str(exc).removeprefix('PositionalWeights: ')}") from None

    @classmethod
    def load_metadata(cls, path) -> dict:
        """The ``metadata`` dict stored by :meth:`save` (empty when none was stored)."""
        path = npz_path(path)
        with np.load(path, allow_pickle=False) as data:
            return json.loads(str(data["metadata"])) if "metadata" in data.files else {}


def npz_path(path) -> str:
    """The file a ``save`` to ``path`` wrote: ``path`` itself, or ``path + ".npz"`` (numpy
    appends the suffix when it is missing); SeqimpError when neither exists."""
    path = os.fspath(path)
    if not os.path.exists(path) and os.path.exists(path + ".npz"):
        path = path + ".npz"
    if not os.path.isfile(path):
        raise SeqimpError(f"{path}: no such file")
    return path


def _scalar(value, name) -> float:
    arr = np.asarray(value, dtype=np.float64).ravel()
    if arr.size != 1 or not np.isfinite(arr[0]):
        raise SeqimpError(f"{name} must be one finite number, got {value!r}")
    return float(arr[0])
