"""Sequences with measured values from a TSV/CSV table (plain or gzip).

One row per sequence: a sequence column and a value column (a measured activity, or a
binary label), optionally an id column. Every bad row is named by its 1-based line number
in the file (the header is line 1).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ._alphabet import INVALID, describe_char, get_alphabet, symbol_bytes
from ._unknown import log_unknown, mask_text
from ._fasta import SequenceSet
from ..errors import SeqimpError, check_choice, check_file

__all__ = ["MeasuredSequences", "read_sequence_table", "TABLE_DROP_REASONS"]

#: Reasons a row is bad (keys of ``MeasuredSequences.dropped`` with ``on_invalid="skip"``).
TABLE_DROP_REASONS = ("empty_sequence", "bad_value", "wrong_length", "bad_symbol")
_NAN_WORDS = {"", "na", "nan", "n/a", "null", "none", "."}


@dataclass(repr=False)
class MeasuredSequences(SequenceSet):
    """A :class:`~seqimp.io.SequenceSet` with one measured value per sequence.

    Attributes
    ----------
    values : ndarray of shape (n,), float64
        The value column; for a binary label column, 0.0 / 1.0 (1.0 = ``classes[1]``).
    binary : bool
        Whether the value column holds exactly two distinct labels (numbers compared as
        numbers, so ``1`` and ``1.0`` are one: 0/1, -1/1 or any two numbers; or two distinct strings): then
        train a classifier instead of a regressor. Decided once, for the whole column.
    classes : tuple or None
        For a binary column, the (negative, positive) labels as written in the file;
        strings are ordered alphabetically, numbers ascending.
    lines : ndarray of shape (n,), int64
        1-based line number of each row in the file.
    dropped : dict of str -> int
        Rows skipped by reason (:data:`TABLE_DROP_REASONS`; all 0 with ``on_invalid="error"``).
    """

    values: np.ndarray | None = None
    binary: bool = False
    classes: tuple | None = None
    lines: np.ndarray | None = None
    dropped: dict = field(default_factory=dict)

    def __post_init__(self):
        super().__post_init__()
        self.values = np.asarray(self.values, dtype=np.float64)
        if self.values.shape != (self.codes.shape[0],):
            raise SeqimpError(f"MeasuredSequences: {self.values.shape} values for {self.codes.shape[0]} sequences")
        if self.lines is None:
            self.lines = np.arange(2, self.codes.shape[0] + 2, dtype=np.int64)

    @property
    def labels(self) -> np.ndarray:
        """The values as int labels 0/1 (binary columns only)."""
        if not self.binary:
            raise SeqimpError("the value column is not a binary label")
        return self.values.astype(np.int64)

    def subset(self, index) -> "MeasuredSequences":
        index = np.asarray(index)
        rows = np.flatnonzero(index) if index.dtype == bool else index
        return MeasuredSequences(self.codes[rows], [self.ids[r] for r in rows], self.alphabet, self.source,
                                 values=self.values[rows], binary=self.binary, classes=self.classes,
                                 lines=self.lines[rows], dropped=dict(self.dropped))

    def __repr__(self) -> str:
        kind = f"binary {self.classes}" if self.binary else "values"
        return f"MeasuredSequences(n={len(self)}, length={self.length}, alphabet={self.alphabet.name!r}, {kind})"


def _guess_sep(path) -> str | None:
    name = str(path).lower()
    if name.endswith(".gz"):
        name = name[:-3]
    if name.endswith((".tsv", ".tab", ".txt")):
        return "\t"
    if name.endswith(".csv"):
        return ","
    return None


#: Largest magnitude of a measured value: beyond it sums of squares overflow float64 on large tables.
MAX_VALUE = 1e100


def _number(text):
    """``text`` as a float, or None when it is not a number (missing words are not numbers)."""
    if text.lower() in _NAN_WORDS:
        return None
    try:
        return float(text)
    except ValueError:
        return None


def _binary(raw_values):
    """(is_binary, classes, 0/1 values) of the stripped value strings, decided once for the column:
    two distinct labels make a label column -- numbers compared as numbers (``1`` and ``1.0`` are
    one label, written as first seen; the smaller number is the negative class: 0/1, -1/1, or any
    other two numbers, since a column of two values is a label whatever its coding), or two
    strings (alphabetically)."""
    present = [v for v in raw_values if v.lower() not in _NAN_WORDS]
    numbers = [_number(v) for v in present]
    if present and all(x is not None for x in numbers):
        spelling = {}
        for v, x in zip(present, numbers):
            spelling.setdefault(x, v)
        if len(spelling) != 2:
            return False, None, None
        lo, hi = sorted(spelling)
        classes = (spelling[lo], spelling[hi])
        values = [_number(v) for v in raw_values]
        return True, classes, np.array([1.0 if x == hi else 0.0 if x == lo else np.nan for x in values])
    distinct = sorted(set(present))
    if len(distinct) != 2:
        return False, None, None
    lo, hi = distinct
    return True, (lo, hi), np.array([1.0 if v == hi else 0.0 if v == lo else np.nan for v in raw_values])


def read_sequence_table(path, *, sequence_column, value_column, alphabet="dna", sep=None, id_column=None,
                        on_invalid="error", mask_lowercase=False) -> MeasuredSequences:
    """Read equal-length sequences and their measured values from a TSV or CSV file.

    Parameters
    ----------
    path : str or path-like
        TSV or CSV, plain or gzip (detected by pandas from the ``.gz`` suffix or content).
    sequence_column, value_column : str
        Header names of the sequence and value columns.
    alphabet : {"dna", "rna", "protein"} or Alphabet, default="dna"
    sep : str, optional
        Field separator; default: tab for ``.tsv``/``.tab``/``.txt``, comma for ``.csv``,
        otherwise sniffed from the header.
    id_column : str, optional
        Column of record ids (default ``line{N}`` with the file's line number).
    on_invalid : {"error", "skip"}, default="error"
        ``"error"``: the first bad row raises one line ``{path}: line {N}: ...``. ``"skip"``:
        bad rows are dropped and counted in ``.dropped`` by reason.
    mask_lowercase : bool, default=False
        Read lower-case (soft-masked) letters as unknown (N).

    N and the other ambiguity codes are read as the unknown code (one log line counts them).

    A row is bad when its sequence is empty, its value is not a finite number (empty, NaN,
    text; unless the column is a two-label column), its length differs from the first good
    row's, or it holds a symbol outside the alphabet and its ambiguity codes. Blank lines are ignored.

    Returns
    -------
    MeasuredSequences
        ``codes`` (n, L) uint8, ``values`` (n,) float64, ``ids``, ``lines`` (1-based), and
        ``binary`` / ``classes`` when the value column holds two labels.
    """
    alpha = get_alphabet(alphabet)
    check_choice(on_invalid, "on_invalid", ("error", "skip"))
    path = check_file(path, "--table")
    if sep is None:
        sep = _guess_sep(path)
    try:
        frame = pd.read_csv(path, sep=sep, dtype=str, keep_default_na=False, skip_blank_lines=False,
                            engine="python", compression="infer")
    except (pd.errors.ParserError, UnicodeDecodeError, OSError, EOFError, ValueError) as exc:
        raise SeqimpError(f"--table {path}: cannot read as a {'TSV' if sep == chr(9) else 'CSV'} table "
                          f"({str(exc).splitlines()[0] if str(exc) else type(exc).__name__})") from None
    frame = frame.fillna("")   # blank lines and short rows
    frame.columns = [str(c).strip() for c in frame.columns]
    for option, col in (("--sequence-column", sequence_column), ("--value-column", value_column),
                        ("id_column", id_column)):
        if col is not None and col not in frame.columns:
            raise SeqimpError(f"{option} {col!r}: no such column in {path} (columns: {', '.join(frame.columns)})")
    lines = np.arange(2, len(frame) + 2, dtype=np.int64)
    blank = (frame.apply(lambda c: c.str.strip()) == "").all(axis=1).to_numpy()
    frame, lines = frame.loc[~blank], lines[~blank]
    if len(frame) == 0:
        raise SeqimpError(f"--table {path}: no rows")
    seqs = [mask_text(seq, alpha, mask_lowercase) for seq in frame[sequence_column].str.strip().to_list()]
    raw_values = frame[value_column].str.strip().to_list()
    is_binary, classes, labels = _binary(raw_values)

    dropped = {r: 0 for r in TABLE_DROP_REASONS}
    keep = np.ones(len(seqs), dtype=bool)
    values = np.full(len(seqs), np.nan)
    length = None

    def bad(i, reason, message):
        if on_invalid == "error":
            raise SeqimpError(f"--table {path}: line {lines[i]}: {message}")
        dropped[reason] += 1
        keep[i] = False

    for i, (s, v) in enumerate(zip(seqs, raw_values)):
        if not s:
            bad(i, "empty_sequence", f"empty sequence in column {sequence_column!r}")
            continue
        if is_binary:
            if np.isnan(labels[i]):
                bad(i, "bad_value", f"label {v!r} in column {value_column!r} is missing (the column holds the "
                                    f"labels {classes[0]!r} and {classes[1]!r})")
                continue
            values[i] = labels[i]
        else:
            try:
                x = float(v) if v.lower() not in _NAN_WORDS else math.nan
            except ValueError:
                bad(i, "bad_value", f"value {v!r} in column {value_column!r} is not a number")
                continue
            if not math.isfinite(x):
                bad(i, "bad_value", f"value {v!r} in column {value_column!r} is missing or not finite")
                continue
            if abs(x) > MAX_VALUE:
                bad(i, "bad_value", f"value {v!r} in column {value_column!r} is beyond +-{MAX_VALUE:g}, too large "
                                    "to train on; rescale the column (e.g. log10 of it)")
                continue
            values[i] = x
        codes = alpha.lut[np.frombuffer(symbol_bytes(s), dtype=np.uint8)]
        wrong = np.flatnonzero(codes == INVALID)
        if wrong.size:
            p = int(wrong[0])
            bad(i, "bad_symbol", f"invalid symbol {describe_char(s[p])} at position {p + 1} (alphabet "
                                 f"{alpha.name}: {alpha.symbols})")
            continue
        if length is None:
            length = len(s)
        elif len(s) != length:
            bad(i, "wrong_length", f"sequence has length {len(s)}, but the first sequence (line "
                                   f"{lines[np.flatnonzero(keep)[0]]}) has length {length}; positional methods "
                                   "need sequences of equal length")
            continue
    rows = np.flatnonzero(keep)
    if rows.size == 0:
        raise SeqimpError(f"--table {path}: no valid rows (" + ", ".join(f"{k} {v}" for k, v in dropped.items())
                          + ")")
    blob = "".join(seqs[i] for i in rows).encode("ascii")
    codes = alpha.lut[np.frombuffer(blob, dtype=np.uint8)].reshape(rows.size, length)
    log_unknown(f"--table {path}", codes, alpha, masked=mask_lowercase)
    if id_column is not None:
        ids = [str(x) for x in frame[id_column].to_numpy()[rows]]
    else:
        ids = [f"line{lines[i]}" for i in rows]
    if not is_binary and np.ptp(values[rows]) == 0:
        raise SeqimpError(f"--table {path}: column {value_column!r} holds the one value {values[rows[0]]:g} in every "
                          "row; there is nothing to learn (give a column whose values differ)")
    if is_binary:
        kept = set(values[i] for i in rows)
        if len(kept) < 2:
            only = classes[int(kept.pop())]
            raise SeqimpError(f"--table {path}: column {value_column!r}: only label {only!r} is left "
                              "after dropping bad rows; a classifier needs both labels")
    return MeasuredSequences(codes, ids, alpha, str(path), values=values[rows], binary=is_binary,
                             classes=classes, lines=lines[rows], dropped=dropped)
