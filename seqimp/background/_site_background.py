"""The background a motif site is scored against: a homogeneous Markov chain of order 0..2
counted on both strands of the control sequences, as MEME's background files hold it (STREME's
order-2 background, FIMO's ``--bfile``).

A window ``w = w_1 .. w_m`` as read on its strand has the background probability

    P(w) = P(w_1) P(w_2 | w_1) ... P(w_k+1 | w_1..w_k) P(w_k+2 | w_2..w_k+1) ...

(order k: every letter given the k letters before it inside the window, the first letters given
fewer), so a site's log-likelihood ratio ``log2 P(w | PWM) - log2 P(w)`` depends on the window
alone. The conditional probabilities come from the (j+1)-mer counts of the sequences on both
strands (j = 0..k, one pseudocount per (j+1)-mer): a GC-rich control scores a GC-rich window as
likely, and a CpG-depleted one scores CG as unlikely.

The table :attr:`SiteBackground.conditional` has shape (k+1, 4**(k+1)): row j, column ``idx``
(the index of a (j+1)-mer, first letter most significant; columns past 4**(j+1) unused) holds
P(last letter | the j letters before it).

Files: :meth:`SiteBackground.write` and :func:`read_bfile` use MEME's background format (lines
``WORD frequency`` for every word of length 1..k+1, comments after ``#``), which
``fasta-get-markov`` writes and FIMO, STREME and SEA read.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
from numba import njit, prange

from ..errors import SeqimpError, check_int
from ..io._strand import reverse_complement_index

__all__ = ["SiteBackground", "read_bfile", "MAX_SITE_ORDER", "window_log2"]

#: the highest order (MEME's tools use up to 2 by default; 5 at most here)
MAX_SITE_ORDER = 5
_LETTERS = "ACGT"


def _word(idx, length):
    return "".join(_LETTERS[(idx // 4 ** (length - 1 - p)) % 4] for p in range(length))


class SiteBackground:
    """A Markov chain of order ``order`` over the windows a site is read in (module docstring).

    Build it with :meth:`fit` (sequences), :meth:`from_frequencies` (word frequencies) or
    :func:`read_bfile` (a MEME background file).

    Attributes
    ----------
    order : int
    frequencies : list of ndarray
        ``frequencies[j]``: the frequencies of the (j+1)-mers, shape (4**(j+1),), summing to 1.
    conditional : ndarray of shape (order + 1, 4**(order + 1))
        P(last letter | the letters before it), per (j+1)-mer (module docstring).
    """

    def __init__(self, frequencies):
        freqs = [np.asarray(f, dtype=np.float64) for f in frequencies]
        if not 1 <= len(freqs) <= MAX_SITE_ORDER + 1:
            raise SeqimpError(f"a site background has orders 0..{MAX_SITE_ORDER}, got {len(freqs)} word lengths")
        for j, f in enumerate(freqs):
            if f.shape != (4 ** (j + 1),) or not np.all(np.isfinite(f)) or (f <= 0).any():
                raise SeqimpError(f"background words of length {j + 1}: need {4 ** (j + 1)} positive frequencies")
        self._given = freqs  # written as given, so that a file read back is the same background
        self.frequencies = [f / f.sum() for f in freqs]
        self.order = len(freqs) - 1
        k = self.order
        cond = np.ones((k + 1, 4 ** (k + 1)))
        for j, f in enumerate(self.frequencies):
            rows = f.reshape(-1, 4)  # context (j letters) x last letter
            cond[j, :f.size] = (rows / rows.sum(axis=1, keepdims=True)).ravel()
        self.conditional = cond

    @classmethod
    def fit(cls, codes, order=2, *, pseudocount=1.0) -> "SiteBackground":
        """The background of sequences: (j+1)-mer counts on both strands (every word and its
        reverse complement), plus ``pseudocount`` each, j = 0..``order``.

        ``codes``: letter codes of shape (n, L) (A=0 .. T=3; other values break a word), or a
        flat array.
        """
        order = check_int(order, "background order", 0, MAX_SITE_ORDER)
        codes = np.asarray(codes)
        flat = codes.reshape(1, -1) if codes.ndim == 1 else codes.reshape(codes.shape[0], -1)
        flat = np.ascontiguousarray(flat, dtype=np.uint8)
        freqs = []
        for j in range(order + 1):
            counts = np.zeros(4 ** (j + 1))
            _count_words(flat, j + 1, counts)
            counts = counts + counts[reverse_complement_index(j + 1)] + float(pseudocount)
            # the frequencies as the file writes them (7 significant digits): read back, the same
            freqs.append(np.array([float(f"{p:.6e}") for p in counts / counts.sum()]))
        return cls(freqs)

    @classmethod
    def from_frequencies(cls, frequencies) -> "SiteBackground":
        """Order 0 from four letter frequencies (A, C, G, T)."""
        return cls([np.asarray(frequencies, dtype=np.float64)])

    @property
    def letters(self) -> np.ndarray:
        """The letter frequencies (order 0), shape (4,)."""
        return self.frequencies[0].copy()

    def window_log2(self, codes, starts, m, strands=("+", "-")) -> np.ndarray:
        """``log2 P(window as read on each strand)``: shape (n, len(starts), len(strands)) for
        codes (n, L) (:func:`window_log2`)."""
        return window_log2(self.conditional, self.order, codes, starts, m, strands)

    def text(self) -> str:
        """The background in MEME's background-file format."""
        lines = [f"# order-{self.order} Markov background of both strands, written by seqimp"]
        for j, f in enumerate(self._given):
            lines.append(f"# order {j}")
            lines += [f"{_word(i, j + 1)} {p:.6e}" for i, p in enumerate(f)]
        return "\n".join(lines) + "\n"

    def write(self, path) -> Path:
        """Write :meth:`text` to ``path``; return the path."""
        path = Path(os.fspath(path))
        path.write_text(self.text())
        return path

    def describe(self) -> dict:
        return {"order": self.order, "letters": [round(float(p), 6) for p in self.frequencies[0]]}

    def __repr__(self) -> str:
        return f"SiteBackground(order={self.order}, letters={np.round(self.frequencies[0], 4).tolist()})"


def read_bfile(path) -> SiteBackground:
    """A MEME background file (``WORD frequency`` per line, ``#`` comments; words of length 1
    to k+1, every word of a length present): a :class:`SiteBackground` of order k. Errors name
    the file and line."""
    path = Path(os.fspath(path))
    if not path.is_file():
        raise SeqimpError(f"{path}: no such background file")
    words = {}
    for n, raw in enumerate(path.read_text(errors="replace").splitlines(), start=1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        fields = line.split()
        if len(fields) != 2 or any(c not in _LETTERS for c in fields[0].upper()):
            raise SeqimpError(f"{path}, line {n}: expected 'WORD frequency' with a word over ACGT, got {raw.strip()!r}")
        try:
            value = float(fields[1])
        except ValueError:
            raise SeqimpError(f"{path}, line {n}: {fields[1]!r} is not a number") from None
        if not np.isfinite(value) or value <= 0:
            raise SeqimpError(f"{path}, line {n}: frequency {fields[1]} must be positive")
        words[fields[0].upper()] = value
    lengths = sorted({len(w) for w in words})
    if not lengths:
        raise SeqimpError(f"{path}: no background frequencies")
    if lengths != list(range(1, lengths[-1] + 1)) or lengths[-1] > MAX_SITE_ORDER + 1:
        raise SeqimpError(f"{path}: words of lengths {lengths}; need every length 1..k+1 (k <= {MAX_SITE_ORDER})")
    freqs = []
    for length in lengths:
        missing = [_word(i, length) for i in range(4 ** length) if _word(i, length) not in words]
        if missing:
            raise SeqimpError(f"{path}: no frequency for the word {missing[0]} (every word of length {length} needed)")
        freqs.append(np.array([words[_word(i, length)] for i in range(4 ** length)]))
    return SiteBackground(freqs)


@njit(cache=True)
def _count_words(codes, length, counts):
    """Counts of the words of ``length`` letters (A..T only) in every row, into ``counts``."""
    size = 4 ** length
    for i in range(codes.shape[0]):
        run = 0
        idx = 0
        for s in range(codes.shape[1]):
            x = codes[i, s]
            if x > 3:
                run = 0
                idx = 0
                continue
            idx = (idx * 4 + x) % size
            run += 1
            if run >= length:
                counts[idx] += 1.0


@njit(cache=True, parallel=True)
def _window_kernel(logcond, order, codes, starts, m, n_strands, out):
    """``out[i, j, t]``: log2 P of the window at ``starts[j]`` of row ``i`` read on strand t
    (0: as it stands, 1: its reverse complement). Per row and strand the full-context terms
    ``log2 P(x_p | the order letters before it)`` are looked up once; a window adds its first
    ``order`` terms (shorter contexts) and then those, letter by letter as one sum. A window
    holding an unknown letter (code above 3) is NaN. Rows in parallel (each its own)."""
    n, length = codes.shape
    size = logcond.shape[1]
    for i in prange(n):
        row = np.empty(length, dtype=np.int64)
        full = np.zeros(length)
        unknown = np.zeros(length + 1, dtype=np.int64)  # unknown letters before each position
        for t in range(n_strands):
            for p in range(length):
                x = np.int64(codes[i, p]) if t == 0 else np.int64(codes[i, length - 1 - p])
                unknown[p + 1] = unknown[p] + (x > 3)
                row[p] = 0 if x > 3 else (x if t == 0 else 3 - x)
            idx = 0
            for p in range(length):
                idx = (idx * 4 + row[p]) % size
                if p >= order:
                    full[p] = logcond[order, idx]
            for j in range(starts.shape[0]):
                s = starts[j] if t == 0 else length - starts[j] - m
                if unknown[s + m] > unknown[s]:
                    out[i, j, t] = np.nan
                    continue
                total = 0.0
                idx = 0
                for c in range(min(order, m)):
                    idx = idx * 4 + row[np.uint64(s + c)]
                    total += logcond[c, idx]
                for c in range(order, m):
                    total += full[np.uint64(s + c)]  # unsigned: no negative-index check (starts checked)
                out[i, j, t] = total


def window_log2(conditional, order, codes, starts, m, strands=("+", "-")) -> np.ndarray:
    """log2 background probability of every window of length ``m`` at ``starts`` (0-based) of
    ``codes`` (n, L), as read on each of ``strands`` (``"+"``: as it stands; ``"-"``: its reverse
    complement): shape (n, len(starts), len(strands)); NaN for a window that holds an unknown
    letter (N, code 4), which has no background probability of its own and is no site."""
    codes = np.ascontiguousarray(codes, dtype=np.uint8)
    starts = np.ascontiguousarray(starts, dtype=np.intp)
    if starts.size and (starts.min() < 0 or starts.max() + m > codes.shape[1]):
        raise SeqimpError(f"starts: windows of {m} at {int(starts.min()) + 1}..{int(starts.max()) + 1} (1-based) do not "
                          f"fit in sequences of length {codes.shape[1]}")
    logcond = np.ascontiguousarray(np.log2(conditional))
    both = np.empty((codes.shape[0], starts.size, 2))
    _window_kernel(logcond, int(order), codes, starts, int(m), 2 if "-" in strands else 1, both)
    which = [0 if s == "+" else 1 for s in strands]
    # both strands in order: the array as it is (an index list would copy it strand-major,
    # (n, W, 2) with the strand axis outermost in memory, which every reader then copies back)
    return both if which == [0, 1] else np.ascontiguousarray(both[:, :, which])
