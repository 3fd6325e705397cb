"""Alphabets, vectorised encoding and k-mer indices.

Conventions used throughout seqimp:

* symbols are coded ``0 .. size-1`` in alphabet order (DNA: A=0, C=1, G=2, T=3);
* a k-mer's index is its base-``size`` number with the first symbol most
  significant, so ``kmer_index("GATTACA") == 0b10_00_11_11_00_01_00``;
* arrays use 0-based positions; text meant for people uses 1-based positions.
"""

from __future__ import annotations

import codecs
from dataclasses import dataclass, field

import numpy as np

from ..errors import SeqimpError, check_int

__all__ = [
    "guess_alphabet",
    "Alphabet",
    "DNA",
    "RNA",
    "PROTEIN",
    "get_alphabet",
    "encode",
    "decode",
    "kmer_index",
    "kmer_string",
    "window_indices",
    "INVALID",
]

#: Code stored in the lookup table for bytes that are not in the alphabet.
INVALID = 255


@dataclass(frozen=True)
class Alphabet:
    """An ordered set of single-character symbols.

    Parameters
    ----------
    name : str
        Short name (``"dna"``, ``"rna"``, ``"protein"``).
    symbols : str
        The symbols in code order, upper case.
    ambiguous : str, default=""
        Letters read as an unknown symbol (DNA and RNA: N and the IUPAC ambiguity codes;
        protein: X, B, Z, J). An unknown symbol is stored as the code :attr:`unknown`
        (= ``size``): a k-mer, l-mer or motif window that covers it is no feature, site or
        seed, and background models count known letters only.

    Attributes
    ----------
    lut : ndarray of shape (256,), dtype uint8
        Byte -> code lookup table; lower case maps like upper case, the ``ambiguous``
        letters map to :attr:`unknown`, everything else maps to :data:`INVALID`.
    """

    name: str
    symbols: str
    ambiguous: str = ""
    lut: np.ndarray = field(init=False, repr=False, compare=False)
    _letters: np.ndarray = field(init=False, repr=False, compare=False)

    def __post_init__(self):
        if len(set(self.symbols)) != len(self.symbols) or len(self.symbols) >= INVALID:
            raise SeqimpError(f"alphabet {self.name!r}: symbols must be distinct")
        lut = np.full(256, INVALID, dtype=np.uint8)
        if set(self.ambiguous.upper()) & set(self.symbols.upper()):
            raise SeqimpError(f"alphabet {self.name!r}: a letter cannot be both a symbol and ambiguous")
        for code, sym in enumerate(self.symbols):
            lut[ord(sym.upper())] = code
            lut[ord(sym.lower())] = code
        for sym in self.ambiguous:
            lut[ord(sym.upper())] = len(self.symbols)
            lut[ord(sym.lower())] = len(self.symbols)
        lut.setflags(write=False)
        # decode writes an unknown symbol as the first ambiguous letter (N, X)
        letters = np.frombuffer((self.symbols + self.ambiguous[:1]).encode("ascii"), dtype=np.uint8).copy()
        object.__setattr__(self, "lut", lut)
        object.__setattr__(self, "_letters", letters)

    @property
    def size(self) -> int:
        """Number of symbols."""
        return len(self.symbols)

    @property
    def unknown(self) -> int:
        """The code of an unknown symbol (N, X and the other ``ambiguous`` letters): ``size``."""
        return len(self.symbols)

    def __len__(self) -> int:
        return len(self.symbols)

    def __str__(self) -> str:
        return self.name


#: IUPAC nucleotide ambiguity codes, N first (decode writes an unknown base as N).
_IUPAC_AMBIGUOUS = "NRYSWKMBDHV"
DNA = Alphabet("dna", "ACGT", _IUPAC_AMBIGUOUS)
RNA = Alphabet("rna", "ACGU", _IUPAC_AMBIGUOUS)
PROTEIN = Alphabet("protein", "ACDEFGHIKLMNPQRSTVWY", "XBZJ")
_ALPHABETS = {a.name: a for a in (DNA, RNA, PROTEIN)}


def get_alphabet(alphabet="dna") -> Alphabet:
    """Return the :class:`Alphabet` for a name or pass an Alphabet through."""
    if isinstance(alphabet, Alphabet):
        return alphabet
    try:
        return _ALPHABETS[str(alphabet).lower()]
    except KeyError:
        raise SeqimpError(
            f"unknown alphabet {alphabet!r}; choose one of {', '.join(_ALPHABETS)}"
        ) from None


#: Letters of proteins that are neither a nucleotide nor an IUPAC nucleotide code.
_PROTEIN_ONLY = frozenset("EFILPQ")
#: Letters a protein file may hold besides the 20 amino acids (unknown, ambiguous, stop).
_PROTEIN_EXTRA = frozenset("XBZJOU*")


def guess_alphabet(letters) -> str | None:
    """The alphabet a sequence's letters look like: ``"dna"`` (A, C, G, T, N and the other IUPAC
    ambiguity codes, which are read as unknown), ``"rna"`` (U, no T), ``"protein"`` (amino-acid
    letters that no nucleotide code uses, such as E, F, I, L, P, Q), or None (neither: digits,
    bytes that are not letters, T and U together).

    >>> guess_alphabet("ACGU"), guess_alphabet("MKLVE"), guess_alphabet("ACGTN"), guess_alphabet("ACGTU")
    ('rna', 'protein', 'dna', None)
    """
    letters = {c.upper() for c in letters}
    if letters <= set(DNA.symbols + DNA.ambiguous):
        return "dna"
    if letters <= set(RNA.symbols + RNA.ambiguous):
        return "rna"
    if letters & _PROTEIN_ONLY and letters <= set(PROTEIN.symbols) | _PROTEIN_EXTRA:
        return "protein"
    return None


def describe_byte(b: int) -> str:
    """A byte of input as a message names it: ``'X'`` when printable ASCII, else ``byte 0x..``."""
    ch = chr(b)
    return repr(ch) if b < 0x80 and ch.isprintable() else f"byte 0x{b:02x}"


def describe_char(ch: str) -> str:
    """A character of input as a message names it: ``'X'`` when printable ASCII, ``'é' (U+00E9)``
    beyond ASCII (``U+200B`` when it prints as nothing), ``byte 0x..`` for an ASCII control
    character or a byte that is not UTF-8 (read as ``\\udcXX``, Python's surrogate escape)."""
    code = ord(ch)
    if code < 0x80:
        return describe_byte(code)
    if 0xDC80 <= code <= 0xDCFF:
        return f"byte 0x{code - 0xDC00:02x}"
    return f"{ch!r} (U+{code:04X})" if ch.isprintable() else f"U+{code:04X}"


#: The error handler of :func:`symbol_bytes`: each character beyond ASCII becomes the one byte 0xff.
_NON_ASCII = "seqimp-non-ascii"
codecs.register_error(_NON_ASCII, lambda exc: (b"\xff" * (exc.end - exc.start), exc.end))


def symbol_bytes(seq) -> bytes:
    """``seq`` (str) as one byte per character: ASCII as itself, any other character as 0xff, which
    is in no alphabet (alphabets are ASCII), so positions stay those of the characters."""
    return seq.encode("ascii", _NON_ASCII)


def _first_non_ascii(seq):
    """The 0-based index of the first character (of a str) or byte (of bytes) beyond ASCII, or None."""
    if seq.isascii():
        return None
    if isinstance(seq, str):
        return next(i for i, ch in enumerate(seq) if not ch.isascii())
    return int(np.flatnonzero(np.frombuffer(seq, np.uint8) >= 0x80)[0])


def encode(seqs, alphabet="dna", *, names=None) -> np.ndarray:
    """Encode equal-length sequences into a code matrix.

    Parameters
    ----------
    seqs : str or sequence of str (or bytes)
        The sequences. A single string is treated as one sequence.
    alphabet : str or Alphabet, default="dna"
    names : sequence of str, optional
        Record names used in error messages instead of the 0-based index.

    Returns
    -------
    codes : ndarray of shape (n, L), dtype uint8
        ``codes[r, i]`` is the code of symbol ``i`` (0-based) of sequence ``r``.

        N, X and the other ``alphabet.ambiguous`` letters get the code ``alphabet.size``
        (unknown).

    Raises
    ------
    SeqimpError
        On unequal lengths or symbols outside the alphabet and its ambiguity codes; the
        message names the sequence (index or name), the 1-based position and the symbol.
    """
    alpha = get_alphabet(alphabet)
    if isinstance(seqs, (str, bytes)):
        seqs = [seqs]
    given = [s if isinstance(s, str) else bytes(s) for s in seqs]  # positions count characters of a str
    seqs = [symbol_bytes(s) if isinstance(s, str) else s for s in given]
    n = len(seqs)
    if n == 0:
        return np.zeros((0, 0), dtype=np.uint8)

    def label(r):
        return f"record {names[r]!r}" if names is not None else f"sequence {r}"

    def invalid(r, pos):
        symbol = given[r][pos:pos + 1]
        symbol = describe_char(symbol) if isinstance(symbol, str) else describe_byte(symbol[0])
        return SeqimpError(f"{label(r)}: invalid symbol {symbol} at position {pos + 1} "
                           f"(alphabet {alpha.name}: {alpha.symbols})")

    length = len(seqs[0])
    lengths = np.fromiter((len(s) for s in seqs), dtype=np.int64, count=n)
    bad = np.flatnonzero(lengths != length)
    if bad.size:
        for r, seq in enumerate(given):  # a letter beyond ASCII (a word processor's) is the likelier fault
            pos = _first_non_ascii(seq)
            if pos is not None:
                raise invalid(r, pos)
        r = int(bad[0])
        raise SeqimpError(
            f"{label(r)} has length {lengths[r]}, but {label(0)} has length {length}; "
            "positional methods need sequences of equal length"
        )
    raw = np.frombuffer(b"".join(seqs), dtype=np.uint8)
    codes = alpha.lut[raw]
    wrong = np.flatnonzero(codes == INVALID)
    if wrong.size:
        raise invalid(*divmod(int(wrong[0]), length))
    return codes.reshape(n, length)


def decode(codes, alphabet="dna") -> list[str]:
    """Inverse of :func:`encode`: a list of strings from a code matrix (n, L); the unknown code
    (``alphabet.size``) is written as the first ambiguous letter (N for DNA and RNA, X for protein)."""
    alpha = get_alphabet(alphabet)
    codes = np.asarray(codes)
    if codes.ndim == 1:
        codes = codes[None, :]
    top = alpha.size if alpha.ambiguous else alpha.size - 1
    if codes.size and (codes.min() < 0 or codes.max() > top):
        raise SeqimpError(f"codes must lie in 0..{top} for alphabet {alpha.name}")
    letters = alpha._letters[codes.astype(np.intp)]
    width = codes.shape[1]
    blob = letters.tobytes().decode("ascii")
    return [blob[r * width:(r + 1) * width] for r in range(codes.shape[0])]


def kmer_index(kmer: str, alphabet="dna") -> int:
    """Index of a k-mer: its base-``size`` number, first symbol most significant.

    >>> kmer_index("GATTACA")
    9156
    """
    alpha = get_alphabet(alphabet)
    if not kmer:
        raise SeqimpError("kmer_index: the k-mer must not be empty")
    index = 0
    for pos, code in enumerate(encode([kmer], alpha)[0]):
        if code == alpha.unknown:
            raise SeqimpError(f"kmer_index: {kmer!r} holds the ambiguous letter {kmer[pos]!r} at position {pos + 1}")
        index = index * alpha.size + int(code)
    return index


def kmer_string(index: int, k: int, alphabet="dna") -> str:
    """The k-mer with the given index; inverse of :func:`kmer_index`."""
    alpha = get_alphabet(alphabet)
    index, k = int(index), check_int(k, "kmer_string: k")
    if not 0 <= index < alpha.size ** k:
        raise SeqimpError(f"kmer_string: index {index} out of range for k={k} (0..{alpha.size ** k - 1})")
    out = []
    for _ in range(k):
        index, code = divmod(index, alpha.size)
        out.append(alpha.symbols[code])
    return "".join(reversed(out))


def unknown_prefix(codes, size: int = 4):
    """``(clean, seen)`` of codes (n, L): the codes with every unknown code (``>= size``) read as
    0, and per row the number of unknown codes before each position, shape (n, L + 1), so that
    the window ``[i, i + k)`` covers none where ``seen[:, i + k] == seen[:, i]``
    (:func:`known_windows`). A k-mer over an unknown base is no feature: the WD weights' scores,
    the Markov counts and the variant windows leave such windows out this way."""
    codes = np.asarray(codes)
    unknown = codes >= size
    clean = np.where(unknown, 0, codes).astype(codes.dtype)
    seen = np.zeros((codes.shape[0], codes.shape[1] + 1), dtype=np.int64)
    np.cumsum(unknown, axis=1, out=seen[:, 1:])
    return clean, seen


def known_windows(seen, k: int) -> np.ndarray:
    """Whether each window of length ``k`` covers no unknown base, shape (n, L - k + 1), from
    ``seen`` of :func:`unknown_prefix`."""
    return seen[:, k:] == seen[:, :-k]


def window_indices(codes, k: int, base: int = 4) -> np.ndarray:
    """k-mer index of every window of every sequence.

    Parameters
    ----------
    codes : ndarray of shape (n, L), integer codes
    k : int
        Window length, ``1 <= k <= L``.
    base : int, default=4
        Alphabet size.

    Returns
    -------
    idx : ndarray of shape (n, L-k+1), dtype int64
        ``idx[r, i]`` is the index of ``codes[r, i:i+k]``.
    """
    codes = np.asarray(codes)
    n, length = codes.shape
    if not 1 <= k <= length:
        raise SeqimpError(f"window length k={k} must lie in 1..{length}")
    idx = np.zeros((n, length - k + 1), dtype=np.int64)
    for t in range(k):
        idx *= base
        idx += codes[:, t:length - k + 1 + t]
    return idx
