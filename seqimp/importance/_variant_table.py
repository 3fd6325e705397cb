"""The variants of :func:`seqimp.importance._variants.variant_effects` checked against their windows
(one line naming the variant for each error), their alleles read (which change one base), and the
alternative window re-cut around the same centre."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..errors import SeqimpError
from ..io import decode
from ..io._alphabet import INVALID

__all__ = ["alt_window", "single_base_change"]

_LETTERS = "ACGT"


def _integers(values, name, what):
    arr = np.asarray(values)
    if arr.dtype.kind not in "iu":
        try:
            as_int = arr.astype(np.int64)
        except (TypeError, ValueError):
            as_int = None
        if as_int is None or arr.dtype.kind == "b" or not np.array_equal(as_int, arr):
            bad = next(i for i, v in enumerate(arr) if isinstance(v, (bool, np.bool_)) or not float(v).is_integer()) \
                if as_int is not None else 0
            raise SeqimpError(f"{name[bad]}: {what} {arr[bad]!r} is not an integer")
        arr = as_int
    return arr.astype(np.int64)


def _variant_table(variants, codes, flanks):
    """The variants as a DataFrame (window, offset, ref, alt, name) checked against the windows
    (vectorised: 10^5 variants in a fraction of a second)."""
    if isinstance(variants, pd.DataFrame):
        table = variants.reset_index(drop=True).copy()
    else:
        try:
            table = pd.DataFrame(list(variants), columns=["window", "offset", "ref", "alt"])
        except (TypeError, ValueError) as exc:
            raise SeqimpError(f"variants must be a DataFrame or (window, offset, ref, alt) tuples ({exc})") from None
    missing = [c for c in ("window", "offset", "ref", "alt") if c not in table.columns]
    if missing:
        raise SeqimpError(f"variants: no column {missing[0]!r} (need window, offset, ref, alt)")
    if "name" not in table.columns:
        table["name"] = [f"variant {i + 1}" for i in range(len(table))]
    names = table["name"].to_numpy(object)
    m, length = codes.shape
    left, right = flanks if flanks is not None else (np.zeros((m, 0), np.uint8), np.zeros((m, 0), np.uint8))
    win = _integers(table["window"].to_numpy(), names, "window")
    off = _integers(table["offset"].to_numpy(), names, "offset")
    bad = np.flatnonzero((win < 0) | (win >= m))
    if bad.size:
        raise SeqimpError(f"{names[bad[0]]}: window {win[bad[0]]} is not a row of ref_sequences (0..{m - 1})")
    alleles, lengths = {}, {}
    for column in ("ref", "alt"):
        raw = table[column].tolist()
        text = [v.upper() if isinstance(v, str) else "" for v in raw]
        size = np.fromiter(map(len, text), dtype=np.int64, count=len(text))
        letters = np.frombuffer("".join(text).encode("ascii", "replace"), np.uint8)
        ok = size > 0
        if not np.isin(letters, np.frombuffer(_LETTERS.encode(), np.uint8)).all() or not ok.all():
            ok &= np.array([set(t) <= set(_LETTERS) for t in text], dtype=bool)
        if not ok.all():
            i = int(np.flatnonzero(~ok)[0])
            raise SeqimpError(f"{names[i]}: ref and alt must be non-empty strings of A, C, G, T, got "
                              f"{table['ref'][i]!r} and {table['alt'][i]!r}")
        alleles[column], lengths[column] = np.array(text, dtype=object), size
    same = (lengths["ref"] == lengths["alt"]) & (alleles["ref"] == alleles["alt"])
    if same.any():
        i = int(np.flatnonzero(same)[0])
        raise SeqimpError(f"{names[i]}: alt {table['alt'][i]!r} equals ref")
    ref_len = lengths["ref"]
    bad = np.flatnonzero((off < 0) | (off + ref_len > length))
    if bad.size:
        i = int(bad[0])
        raise SeqimpError(f"{names[i]}: offset {off[i]} with ref of {ref_len[i]} bases does not fit a window of "
                          f"{length} (0-based offsets 0..{length - ref_len[i]})")
    one = ref_len == 1
    first = np.searchsorted(np.frombuffer(_LETTERS.encode(), np.uint8),
                            np.frombuffer("".join(r[0] for r in alleles["ref"]).encode(), np.uint8))
    wrong = one & (codes[win, off] != first)
    for i in np.flatnonzero(~one):
        found = decode(codes[win[i], off[i]:off[i] + ref_len[i]][None, :])[0]
        wrong[i] = found != alleles["ref"][i]
    if wrong.any():
        i = int(np.flatnonzero(wrong)[0])
        found = decode(codes[win[i], off[i]:off[i] + ref_len[i]][None, :])[0]
        raise SeqimpError(f"{names[i]}: ref {table['ref'][i]!r} does not match the window at offset {off[i]} "
                          f"({found!r})")
    table["window"], table["offset"] = win, off
    table["ref"] = pd.Series(alleles["ref"], dtype=object)
    table["alt"] = pd.Series(alleles["alt"], dtype=object)
    return table, left, right


def _snvs(table):
    """``(is_snv, index, letter)``: which variants change one base, the index of that base in the
    allele and its new letter code."""
    ref, alt = table["ref"].to_numpy(object), table["alt"].to_numpy(object)
    rl = np.fromiter(map(len, ref), dtype=np.int64, count=ref.size)
    al = np.fromiter(map(len, alt), dtype=np.int64, count=alt.size)
    is_snv = (rl == 1) & (al == 1)
    index = np.zeros(len(table), dtype=np.int64)
    letter = np.zeros(len(table), dtype=np.uint8)
    if is_snv.any():
        letter[is_snv] = np.searchsorted(np.frombuffer(_LETTERS.encode(), np.uint8),
                                         np.frombuffer("".join(alt[is_snv]).encode(), np.uint8))
    for i in np.flatnonzero((rl == al) & (rl > 1)):  # multi-base records changing one base are SNVs too
        one = single_base_change(ref[i], alt[i])
        if one is not None:
            is_snv[i], index[i], letter[i] = True, one[0], one[1]
    return is_snv, index, letter


def single_base_change(ref, alt):
    """``(index, letter)`` when ref -> alt changes one base, else None."""
    if len(ref) != len(alt):
        return None
    diff = [i for i, (a, b) in enumerate(zip(ref, alt)) if a != b]
    return (diff[0], _LETTERS.index(alt[diff[0]])) if len(diff) == 1 else None


def alt_window(window, left, right, offset, ref, alt, unknown=True) -> np.ndarray:
    """The alternative window: ``ref`` at ``offset`` of ``window`` replaced by ``alt``, re-cut to the
    window's width around the same centre (0-based index ``width // 2``), taking bases from the
    flanks ``left``/``right`` where an indel shifts it. SeqimpError when it needs a base the flanks
    lack (off the chromosome: INVALID) or, with ``unknown=False`` (a model that does not read N),
    an unknown base (code >= 4) -- the message is completed by the caller.

    The centre keeps its base: unchanged when it lies before the variant, moved by the length change
    when after it, and, inside a replaced REF, kept at its index within the allele (at most the ALT's
    last base)."""
    width = window.size
    f = left.size
    full = np.concatenate([left, window, right])
    start = f + offset
    alt_codes = np.frombuffer(alt.encode(), dtype=np.uint8)
    alt_codes = np.searchsorted(np.frombuffer(_LETTERS.encode(), dtype=np.uint8), alt_codes).astype(np.uint8)
    hap = np.concatenate([full[:start], alt_codes, full[start + len(ref):]])
    centre = f + width // 2
    if centre >= start + len(ref):
        centre += len(alt) - len(ref)
    elif centre >= start:
        centre = start + min(centre - start, len(alt) - 1)
    lo = centre - width // 2
    if lo < 0 or lo + width > hap.size or (hap[lo:lo + width] == INVALID).any():
        raise SeqimpError("the re-cut window reaches a base that is off the chromosome or N")
    if not unknown and (hap[lo:lo + width] >= 4).any():
        raise SeqimpError("the re-cut window reaches an unknown base (N), which a score function does not read")
    return np.ascontiguousarray(hap[lo:lo + width])
