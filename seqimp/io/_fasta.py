"""FASTA input and output, and the :class:`SequenceSet` container."""

from __future__ import annotations

import gzip
import io
import itertools
import warnings
import zlib
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from Bio.SeqIO.FastaIO import SimpleFastaParser

from ._alphabet import INVALID, Alphabet, decode, encode, get_alphabet, guess_alphabet, symbol_bytes
from ._unknown import log_unknown, mask_text, unknown_words
from ..errors import SeqimpError, check_choice, check_file

__all__ = ["SequenceSet", "read_fasta", "write_fasta"]


@dataclass
class SequenceSet:
    """Equal-length encoded sequences with their record ids.

    Attributes
    ----------
    codes : ndarray of shape (n, L), dtype uint8
        Symbol codes, 0-based positions.
    ids : list of str
        Record ids, ``len(ids) == n``.
    alphabet : Alphabet
    source : str or None
        Where the sequences came from (a path), for messages.
    skipped : int
        Records of the file dropped for symbols outside the alphabet
        (``read_fasta(..., on_invalid="skip")``).
    """

    codes: np.ndarray
    ids: list = field(default_factory=list)
    alphabet: Alphabet = field(default_factory=lambda: get_alphabet("dna"))
    source: str | None = None
    skipped: int = 0

    def __post_init__(self):
        self.alphabet = get_alphabet(self.alphabet)
        self.codes = np.ascontiguousarray(self.codes, dtype=np.uint8)
        if self.codes.ndim != 2:
            raise SeqimpError(f"codes must be a 2-D array (n, L), got shape {self.codes.shape}")
        if not self.ids:
            self.ids = [f"seq{r + 1}" for r in range(self.codes.shape[0])]
        if len(self.ids) != self.codes.shape[0]:
            raise SeqimpError(f"{len(self.ids)} ids for {self.codes.shape[0]} sequences")

    def __len__(self) -> int:
        return self.codes.shape[0]

    @property
    def length(self) -> int:
        """Sequence length L."""
        return self.codes.shape[1]

    def sequences(self) -> list[str]:
        """The sequences as upper-case strings."""
        return decode(self.codes, self.alphabet)

    def composition(self) -> np.ndarray:
        """Fraction of each symbol over all known positions (unknown ones, N, left out), shape
        (alphabet size,)."""
        counts = np.bincount(self.codes.ravel(), minlength=self.alphabet.size + 1)[:self.alphabet.size]
        total = counts.sum()
        return counts / total if total else counts.astype(float)

    def subset(self, index) -> "SequenceSet":
        """A new set holding the selected rows (boolean mask or integer index)."""
        index = np.asarray(index)
        rows = np.flatnonzero(index) if index.dtype == bool else index
        return SequenceSet(self.codes[rows], [self.ids[r] for r in rows], self.alphabet, self.source)

    def __repr__(self) -> str:
        return (f"SequenceSet(n={len(self)}, length={self.length}, alphabet={self.alphabet.name!r}"
                + (f", source={self.source!r})" if self.source else ")"))


class _Prefixed(io.RawIOBase):
    """A byte stream: ``head`` (bytes already read) followed by the rest of ``handle``."""

    def __init__(self, head: bytes, handle):
        super().__init__()
        self._head, self._handle = head, handle

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        if self._head:
            n = min(len(buffer), len(self._head))
            buffer[:n], self._head = self._head[:n], self._head[n:]
            return n
        data = self._handle.read(len(buffer))
        buffer[:len(data)] = data
        return len(data)

    def close(self) -> None:
        self._handle.close()
        super().close()


def _open_text(path: Path):
    """A text handle on ``path``, gunzipped when it starts with the gzip magic bytes.

    The file is opened and read once, so pipes and process substitution
    (``/dev/stdin``, ``<(zcat x.fa.gz)``) work. Text is UTF-8 (ASCII included), so that a
    letter such as 'é' is one character, named as such, at its position; a byte that is not
    UTF-8 is kept as Python's surrogate escape (``\\udcXX``), named ``byte 0xXX``.
    """
    handle = open(path, "rb")
    head = b""
    while len(head) < 2:
        chunk = handle.read(2 - len(head))
        if not chunk:
            break
        head += chunk
    stream = io.BufferedReader(_Prefixed(head, handle))
    if head == b"\x1f\x8b":
        stream = gzip.GzipFile(fileobj=stream, mode="rb")
    return io.TextIOWrapper(stream, encoding="utf-8", errors="surrogateescape")


def iter_fasta(path: Path):
    """(id, sequence) of each record of a FASTA file (plain or gzip), streamed.

    The first word of the title is the id (``record<r>`` for an empty title). An empty
    file, a first non-empty line that is not a header and unreadable compressed data are
    one-line SeqimpErrors naming the file.
    """
    try:
        with _open_text(path) as handle:
            first = ""
            for line in handle:
                if line.strip():
                    first = line
                    break
            if not first:
                raise SeqimpError(f"{path}: file is empty (no FASTA records)")
            first = first.removeprefix("\ufeff")  # a UTF-8 byte-order mark
            if not first.startswith(">"):
                raise SeqimpError(f"{path}: not FASTA: the first non-empty line does not start with '>'")
            # SimpleFastaParser wants to see the header line itself; feed it back.
            for r, (title, seq) in enumerate(SimpleFastaParser(itertools.chain([first], handle))):
                yield (_record_id(title.split(None, 1)[0]) if title.strip() else f"record{r + 1}"), seq
    except (EOFError, OSError, zlib.error) as exc:
        raise SeqimpError(f"{path}: cannot read compressed/raw data ({exc})") from None


def _record_id(word: str) -> str:
    """A record id as text: a title that is not UTF-8 (a Latin-1 file's 'é') is read as Latin-1."""
    if word.isascii():
        return word
    try:
        word.encode("utf-8")
    except UnicodeEncodeError:  # surrogate escapes: the bytes of another encoding
        return word.encode("utf-8", "surrogateescape").decode("latin-1")
    return word


def _parse(path: Path):
    ids, seqs = [], []
    for name, seq in iter_fasta(path):
        ids.append(name)
        seqs.append(seq)
    return ids, seqs


def read_fasta(path, alphabet="dna", on_invalid="error", *, mask_lowercase=False) -> SequenceSet:
    """Read equal-length sequences from a FASTA file (plain or gzip).

    Parameters
    ----------
    path : str or path-like
        FASTA file; gzip compression is detected from the file's magic bytes. The
        file is read once, so pipes (``/dev/stdin``) and process substitution work.
    alphabet : {"dna", "rna", "protein"} or Alphabet, default="dna"
        Lower-case (soft-masked) letters are read as upper case. N and the IUPAC
        ambiguity codes (protein: X, B, Z, J) are read as the unknown code
        ``alphabet.unknown`` (4 for DNA); no record is dropped for them, and one
        INFO line on the ``seqimp`` logger counts the records and letters.
    on_invalid : {"error", "skip"}, default="error"
        What to do with records that contain symbols outside the alphabet and its
        ambiguity codes (a digit, 'Z' in DNA, a letter beyond ASCII): raise an error
        naming the record id, the 1-based position and the symbol, or drop those
        records with a warning that says how many were dropped (``SequenceSet.skipped``).
    mask_lowercase : bool, default=False
        Read lower-case (soft-masked, e.g. repeats) letters as unknown, as HOMER's
        ``-mask``; by default they are bases like upper-case ones.

    Returns
    -------
    SequenceSet
        ``.codes`` of shape (n, L) uint8, ``.ids`` list of n str.

    Raises
    ------
    ValueError (SeqimpError)
        Missing path, directory, empty or header-less file, truncated gzip,
        unequal lengths (naming the first differing record and both lengths),
        invalid symbols.

    Warns
    -----
    UserWarning
        Records skipped; duplicate record ids.
    """
    alpha = get_alphabet(alphabet)
    path, ids, seqs, skipped = _read_records(path, alpha, on_invalid, mask_lowercase=mask_lowercase)
    try:
        codes = encode(seqs, alpha, names=ids)
    except SeqimpError as exc:
        raise input_error(f"{path}: {exc}", seqs, alpha) from None
    if codes.shape[1] == 0:
        raise SeqimpError(f"{path}: sequences are empty")
    log_unknown(path, codes, alpha, masked=mask_lowercase)
    return SequenceSet(codes, ids, alpha, str(path), skipped)


#: The fix of unequal lengths: (for the library, for the command line).
LENGTH_HINTS = ("; cut windows of one width around the sites (seqimp.io.extract_windows: BED regions on a "
                "genome) or trim the records to one length",
                "; cut windows of one width with --positive-bed PEAKS.bed --genome GENOME.fa --width W, or trim "
                "the records to one length ('seqimp inspect' shows the lengths); 'seqimp motifs' takes records of "
                "any lengths")


def with_fix(message: str, hints) -> SeqimpError:
    """A SeqimpError whose message ends with the library's fix (``hints[0]``); its attribute
    ``for_cli`` holds the same message with the command line's fix (``hints[1]``), which
    ``seqimp`` prints instead."""
    error = SeqimpError(message + hints[0])
    error.for_cli = message + hints[1]
    return error


def _letters(seqs) -> set:
    """The distinct characters of ``seqs``."""
    return set().union(*map(set, seqs))


def symbol_hints(seqs, alpha) -> tuple:
    """The fix of symbols outside ``alpha`` (for the library, for the command line): another alphabet
    when the letters look like RNA or protein (:func:`~seqimp.io._alphabet.guess_alphabet`), else
    dropping the records (N and the other ambiguity codes are read as unknown, not refused)."""
    read = f"; {unknown_words(alpha)[1]} ({alpha.ambiguous}) are read as unknown; drop records with other symbols"
    return _alphabet_hints(seqs, alpha) or (f"{read} with on_invalid='skip'", f"{read} with --skip-invalid")


def _alphabet_hints(seqs, alpha):
    """(library, command line) fix naming the alphabet the letters of ``seqs`` look like, or None
    when that is ``alpha`` or none."""
    guess = guess_alphabet(_letters(seqs))
    if guess is None or guess == alpha.name:
        return None
    return (f"; the letters look like {guess}: read with alphabet='{guess}'",
            f"; the letters look like {guess}: add --alphabet {guess}")


def input_error(message, seqs, alpha) -> SeqimpError:
    """The error of an encoding failure ``message`` with its fix: another alphabet, dropping records
    with ambiguity codes, or windows of one width (:func:`with_fix`)."""
    if "invalid symbol" in message:
        return with_fix(message, symbol_hints(seqs, alpha))
    if "equal length" in message:
        return with_fix(message, LENGTH_HINTS)
    return SeqimpError(message)


def fasta_summary(path, alphabet="dna", on_invalid="report", *, mask_lowercase=False) -> dict:
    """Records, length range and symbol composition of a FASTA file whose lengths may differ.

    What ``seqimp inspect`` prints; the same checks as :func:`read_fasta` except equal lengths.

    Parameters
    ----------
    alphabet : {"dna", "rna", "protein", "auto"} or Alphabet, default="dna"
        "auto": the alphabet the letters look like (:func:`~seqimp.io._alphabet.guess_alphabet`;
        DNA when they fit none, e.g. with ambiguity codes); see ``alphabet_source``.
    on_invalid : {"report", "error", "skip"}, default="report"
        Symbols outside the alphabet: count them (``invalid``, ``invalid_records``),
        raise like :func:`read_fasta`, or drop their records (``skipped``).
    mask_lowercase : bool, default=False
        Count lower-case (soft-masked) letters as unknown (:func:`read_fasta`).

    Returns
    -------
    dict
        ``source`` (str), ``alphabet`` (Alphabet), ``records`` (int), ``min_length``,
        ``max_length`` (int), ``composition`` (ndarray of shape (alphabet size,), fractions of
        the known symbols), ``unknown`` (letters read as unknown: N and the other ambiguity
        codes, soft-masked letters with ``mask_lowercase``), ``unknown_records`` (records
        holding any), ``lowercase``, ``lowercase_records`` (letters of the alphabet in lower
        case, read as bases: soft-masked repeats; 0 with ``mask_lowercase``), ``invalid`` (dict
        symbol -> count, symbols outside the alphabet, control characters and bytes that are not
        UTF-8 as ``0x..``, other characters beyond ASCII as ``é(U+00E9)``), ``invalid_records``
        (records holding any), ``skipped``
        (records dropped), ``duplicate_ids`` (records whose id an earlier record has), ``alphabet_source``
        ("given"; with ``alphabet="auto"`` "detected", or "assumed": DNA, the letters fitting no
        alphabet exactly).
    """
    mode = check_choice(on_invalid, "on_invalid", ("report", "error", "skip"))
    how = "given"
    if isinstance(alphabet, str) and alphabet.lower() == "auto":
        path = check_file(path, expected="a FASTA file")
        ids, seqs = _parse(path)
        guess = guess_alphabet(_letters(seqs))
        how = "assumed" if guess is None else "detected"
        alpha = get_alphabet(guess or "dna")
        path, ids, seqs, skipped = _read_records(path, alpha, "skip" if mode == "skip" else "error",
                                                 parsed=(ids, seqs), mask_lowercase=mask_lowercase)
    else:
        alpha = get_alphabet(alphabet)
        path, ids, seqs, skipped = _read_records(path, alpha, "skip" if mode == "skip" else "error",
                                                 mask_lowercase=mask_lowercase)
    counts = np.zeros(alpha.size + 1, dtype=np.int64)  # the known symbols, then unknown
    unknown_records = lower = lower_records = 0
    invalid = np.zeros(256, dtype=np.int64)
    beyond = Counter()  # characters beyond ASCII, counted by character (they are byte 0xff in ``raw``)
    invalid_records = 0
    for rid, seq in zip(ids, seqs):
        raw = np.frombuffer(symbol_bytes(seq), np.uint8)
        codes = alpha.lut[raw]
        bad = codes == INVALID
        soft = int(np.count_nonzero((raw >= ord("a")) & (raw <= ord("z")) & (codes < alpha.size)))
        lower, lower_records = lower + soft, lower_records + bool(soft)
        if bad.any():
            if mode == "error":
                try:
                    encode([seq], alpha, names=[rid])  # raises naming the record, position and symbol
                except SeqimpError as exc:
                    raise input_error(f"{path}: {exc}", seqs, alpha) from None
            invalid_records += 1
            invalid += np.bincount(raw[bad], minlength=256)
            if not seq.isascii():
                beyond.update(ch for ch in seq if not ch.isascii())
            codes = codes[~bad]
        record = np.bincount(codes, minlength=alpha.size + 1)
        counts += record
        unknown_records += bool(record[alpha.size])
    lengths = [len(seq) for seq in seqs]
    if max(lengths) == 0:
        raise SeqimpError(f"{path}: the records hold no sequence (headers only)")
    counts, unknown = counts[:alpha.size], int(counts[alpha.size])
    total = counts.sum()
    return {"source": str(path), "alphabet": alpha, "records": len(seqs), "min_length": min(lengths),
            "max_length": max(lengths), "composition": counts / total if total else counts.astype(float),
            "unknown": unknown, "unknown_records": unknown_records, "lowercase": lower,
            "lowercase_records": lower_records,
            "invalid": {**{_symbol(b): int(invalid[b]) for b in np.flatnonzero(invalid[:0x80])},
                        **{_char_symbol(ch): n for ch, n in sorted(beyond.items())}},
            "invalid_records": invalid_records, "skipped": skipped, "duplicate_ids": len(ids) - len(set(ids)),
            "alphabet_source": how}


def _symbol(b: int) -> str:
    """A byte as people read it: the letter, or ``0x..`` for bytes that are not printable ASCII."""
    return chr(b) if b < 0x80 and chr(b).isprintable() else f"0x{b:02x}"


def _char_symbol(ch: str) -> str:
    """A character beyond ASCII as ``seqimp inspect`` counts it: ``é(U+00E9)``, ``U+200B`` when it
    prints as nothing, ``0x..`` for a byte that is not UTF-8 (a surrogate escape)."""
    code = ord(ch)
    if 0xDC80 <= code <= 0xDCFF:
        return f"0x{code - 0xDC00:02x}"
    return f"{ch}(U+{code:04X})" if ch.isprintable() else f"U+{code:04X}"


def _read_records(path, alpha, on_invalid, *, parsed=None, mask_lowercase=False):
    """``(path, ids, seqs, skipped)`` of a FASTA file (or of its records ``parsed``, ``(ids, seqs)``),
    records with invalid symbols dropped when ``on_invalid="skip"``, lower-case letters written as
    the unknown letter with ``mask_lowercase`` (:func:`~seqimp.io._unknown.mask_text`); warns about
    duplicate record ids."""
    if on_invalid not in ("error", "skip"):
        raise SeqimpError(f"on_invalid must be 'error' or 'skip', got {on_invalid!r}")
    path = check_file(path, expected="a FASTA file")
    ids, seqs = _parse(path) if parsed is None else parsed
    if mask_lowercase:
        seqs = [mask_text(s, alpha) for s in seqs]
    if not seqs:
        raise SeqimpError(f"{path}: no FASTA records")
    seen, dup = set(), []
    for rid in ids:
        if rid in seen:
            dup.append(rid)
        seen.add(rid)
    if dup:
        warnings.warn(f"{path}: {len(dup)} record(s) repeat an earlier record id (first: {dup[0]!r})",
                      stacklevel=3)
    dropped, all_seqs = 0, seqs
    if on_invalid == "skip":
        keep = [alpha.lut[np.frombuffer(symbol_bytes(s), np.uint8)].max(initial=0) != INVALID
                for s in seqs]
        dropped = len(seqs) - sum(keep)
        if dropped == len(seqs):  # one error, no warning before it
            message = f"{path}: no records left after skipping invalid ones (symbols outside the {alpha.name} alphabet)"
            hints = _alphabet_hints(all_seqs, alpha)
            raise with_fix(message, hints) if hints else SeqimpError(message)
        if dropped:
            warnings.warn(
                f"{path}: skipped {dropped} of {len(seqs)} records with symbols outside "
                f"the {alpha.name} alphabet",
                stacklevel=3,
            )
            ids = [i for i, k in zip(ids, keep) if k]
            seqs = [s for s, k in zip(seqs, keep) if k]
    return path, ids, seqs, dropped


def write_fasta(path, seqs, ids=None, alphabet="dna", *, width=60) -> None:
    """Write sequences (strings, a code matrix or a SequenceSet) as FASTA.

    A path ending in ``.gz`` is written gzip-compressed.
    """
    if isinstance(seqs, SequenceSet):
        ids = seqs.ids if ids is None else ids
        alphabet = seqs.alphabet
        seqs = seqs.sequences()
    elif isinstance(seqs, np.ndarray):
        seqs = decode(seqs, alphabet)
    seqs = list(seqs)
    if ids is None:
        ids = [f"seq{r + 1}" for r in range(len(seqs))]
    if len(ids) != len(seqs):
        raise SeqimpError(f"write_fasta: {len(ids)} ids for {len(seqs)} sequences")
    path = Path(path)
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "wt") as fh:
        for rid, s in zip(ids, seqs):
            fh.write(f">{rid}\n")
            step = width if width and width > 0 else max(len(s), 1)
            for start in range(0, len(s), step):
                fh.write(s[start:start + step] + "\n")
