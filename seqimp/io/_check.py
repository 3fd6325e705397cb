"""The one sequence check: every stage turns its sequence argument into codes here."""

from __future__ import annotations

import numpy as np

from ._alphabet import encode, get_alphabet
from ._fasta import SequenceSet
from ..errors import SeqimpError, check_int

__all__ = ["check_sequences"]


def check_sequences(X, name: str = "X", alphabet="dna", length: int | None = None, *,
                    unknown: bool = False) -> np.ndarray:
    """``X`` as a code matrix of shape (n, L), uint8, or a SeqimpError naming ``name``.

    Parameters
    ----------
    X : str, sequence of str/bytes, SequenceSet or integer array of shape (n, L)
        A single string is one sequence. An integer array must be 2-D with codes in
        ``0..A-1`` (A = alphabet size); a 1-D array is refused rather than guessed to be
        one sequence (write ``codes[None, :]``). A list of integer lists is read as such
        an array.
    name : str, default="X"
        The argument's name, first word of every message (``"positive: no sequences"``).
    alphabet : str or Alphabet, default="dna"
        A SequenceSet must be of this alphabet.
    length : int, optional
        The length every sequence must have.
    unknown : bool, default=False
        Whether the caller reads the unknown code ``A`` (N, X and the other ambiguity letters,
        :attr:`~seqimp.io.Alphabet.unknown`). A caller that does not is given an error
        naming the first unknown symbol instead of codes it would misread.

    Returns
    -------
    ndarray of shape (n, L), uint8, C-contiguous, n >= 1 and L >= 1
        A SequenceSet's own ``codes`` are returned without a copy.

    Raises
    ------
    SeqimpError
        One line naming ``name`` and, where known, the 0-based sequence and 1-based
        position: no sequences, empty sequences, unequal lengths or a length other than
        ``length``, symbols or codes outside the alphabet, a SequenceSet of another
        alphabet, an array that is not 2-D or not integer.
    """
    alpha = get_alphabet(alphabet)
    codes = _coerce(X, name, alpha, length)
    if not unknown and alpha.ambiguous:
        wrong = np.flatnonzero(codes.ravel() >= alpha.size)
        if wrong.size:
            r, pos = divmod(int(wrong[0]), codes.shape[1])
            raise SeqimpError(f"{name}: sequence {r} holds an unknown symbol ({alpha.ambiguous[0]} or another "
                              f"ambiguity code) at position {pos + 1}, which this method cannot read")
    return codes


def _coerce(X, name, alpha, length):
    if length is not None:
        length = check_int(length, "length")
    if isinstance(X, SequenceSet):
        if X.alphabet.name != alpha.name:
            raise SeqimpError(f"{name} is a {X.alphabet.name} SequenceSet, but alphabet={alpha.name!r}; "
                              f"pass alphabet={X.alphabet.name!r}")
        codes = X.codes
    elif isinstance(X, (str, bytes)):
        codes = _from_strings([X], name, alpha)
    elif isinstance(X, np.ndarray) and X.dtype.kind not in "OSU":
        codes = _from_array(X, name, alpha)
    else:
        try:
            items = list(X)
        except TypeError:
            raise SeqimpError(f"{name}: sequences must be strings, a SequenceSet or an integer array (n, L), "
                              f"got {type(X).__name__}") from None
        if items and all(isinstance(s, (str, bytes)) for s in items):
            codes = _from_strings(items, name, alpha)
        elif items:
            codes = _from_array(np.asarray(items), name, alpha)
        else:
            codes = np.zeros((0, 0), dtype=np.uint8)
    if codes.shape[0] == 0:
        raise SeqimpError(f"{name}: no sequences")
    if codes.shape[1] == 0:
        raise SeqimpError(f"{name}: the sequences are empty (length 0)")
    if length is not None and codes.shape[1] != length:
        raise SeqimpError(f"{name}: sequence 0 has length {codes.shape[1]}, expected {length}")
    return codes


def _from_strings(seqs, name, alpha):
    lengths = np.fromiter((len(s) for s in seqs), dtype=np.int64, count=len(seqs))
    bad = np.flatnonzero(lengths != lengths[0])
    if bad.size:
        r = int(bad[0])
        raise SeqimpError(f"{name}: sequence {r} has length {lengths[r]}, expected {lengths[0]} "
                          "(positional methods need sequences of equal length)")
    try:
        return encode(seqs, alpha)
    except SeqimpError as exc:
        raise SeqimpError(f"{name}: {exc}") from None


def _from_array(arr, name, alpha):
    if arr.dtype.kind not in "iu":
        raise SeqimpError(f"{name}: encoded sequences must be an integer array, got dtype {arr.dtype}")
    if arr.ndim != 2:
        raise SeqimpError(f"{name}: encoded sequences must have shape (n, L), got {arr.shape}"
                          + ("; write codes[None, :] for one sequence" if arr.ndim == 1 else ""))
    if arr.size:
        top = alpha.size if alpha.ambiguous else alpha.size - 1  # code size: unknown (N, X)
        wrong = np.flatnonzero(((arr < 0) | (arr > top)).ravel())
        if wrong.size:
            r, pos = divmod(int(wrong[0]), arr.shape[1])
            raise SeqimpError(f"{name}: sequence {r}: code {arr[r, pos]} at position {pos + 1} is outside "
                              f"0..{top} (alphabet {alpha.name}; {top} is unknown)")
    return np.ascontiguousarray(arr, dtype=np.uint8)

