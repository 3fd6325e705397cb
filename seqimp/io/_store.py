"""Codes stores: sequences larger than memory as an on-disk (n, L) uint8 array.

A store is a folder::

    codes.npy    (n, L) uint8 symbol codes (A=0, C=1, G=2, T=3, unknown N=4), a plain .npy file
    labels.npy   (n,) labels (int64 or float64), when labels were given
    ids.txt      one record id per line, in row order
    meta.json    {"format": "seqimp-codes", "version": 1, "n", "length", "alphabet",
                  "sources", "labels"}

:func:`encode_fasta_to_store` streams FASTA files (plain or gzip) in chunks of records
into ``codes.npy`` (``numpy.lib.format.open_memmap``): memory is one chunk, whatever
the number of sequences. :func:`open_codes_store` maps the arrays read-only
(``np.load(mmap_mode="r")``); the WD estimators train and score on such a memory map
row by row, without loading it whole.
"""

from __future__ import annotations

import errno
import itertools
import json
import os
import shutil
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..errors import SeqimpError, check_file, check_int
from ._alphabet import INVALID, encode, get_alphabet, symbol_bytes
from ._fasta import iter_fasta
from ._unknown import count_unknown, log_counts, mask_text

__all__ = ["CodesStore", "encode_fasta_to_store", "fill_codes_store", "check_store_out", "store_state", "STORE_FILES",
           "write_codes_store", "open_codes_store"]

FORMAT = "seqimp-codes"
VERSION = 1


@dataclass
class CodesStore:
    """An opened codes store (see the module docstring).

    Attributes
    ----------
    path : Path
    codes : numpy.memmap of shape (n, L), uint8, read-only
    labels : numpy.memmap of shape (n,) or None, read-only
    alphabet : Alphabet
    meta : dict
        The parsed ``meta.json``.
    """

    path: Path
    codes: np.ndarray
    labels: np.ndarray | None
    alphabet: object
    meta: dict = field(default_factory=dict)

    def __len__(self) -> int:
        return self.codes.shape[0]

    @property
    def length(self) -> int:
        """Sequence length L."""
        return self.codes.shape[1]

    @property
    def ids(self) -> list[str]:
        """Record ids in row order (read from ``ids.txt`` on each access)."""
        return (self.path / "ids.txt").read_text(encoding="utf-8").splitlines()

    def __repr__(self) -> str:
        return (f"CodesStore({str(self.path)!r}, n={len(self)}, length={self.length}, "
                f"alphabet={self.alphabet.name!r}, labels={self.labels is not None})")


def _valid(seq, alpha) -> bool:
    codes = alpha.lut[np.frombuffer(symbol_bytes(seq), np.uint8)]
    return not (codes.size and codes.max() == INVALID)


def _label_source(labels, paths):
    """Per-file labels (one value per FASTA file), a labels text file (one per record) or None."""
    if labels is None:
        return None, None
    if isinstance(labels, (str, os.PathLike)):
        p = Path(os.fspath(labels))
        if not p.is_file():
            raise SeqimpError(f"labels {p}: no such file")
        text = p.read_text(encoding="utf-8").split()
        try:
            values = np.array([float(v) for v in text])
        except ValueError:
            raise SeqimpError(f"labels {p}: expected one number per record") from None
        return None, values
    per_file = list(np.atleast_1d(np.asarray(labels, dtype=np.float64)))
    if len(per_file) != len(paths):
        raise SeqimpError(f"labels: one label per FASTA file expected ({len(paths)} files), got {len(per_file)}; "
                          "or give a text file with one label per record")
    return per_file, None


#: The files of a codes store; a folder holding anything else (hidden files aside) is not one.
STORE_FILES = ("codes.npy", "labels.npy", "ids.txt", "meta.json")


def store_state(out) -> str:
    """What the folder ``out`` is to a store writer: ``"new"`` (missing or empty), ``"store"``
    (a codes store: ``meta.json`` of this format and nothing visible besides :data:`STORE_FILES`)
    or ``"other"`` (a file, or a folder holding anything else, which a store never replaces)."""
    out = Path(os.fspath(out))
    if not out.exists() and not out.is_symlink():
        return "new"
    if not out.is_dir() or out.is_symlink():
        return "other"
    visible = {p.name for p in out.iterdir() if not p.name.startswith(".")}
    if not visible:
        return "new"
    if not visible <= set(STORE_FILES) or not (out / "meta.json").is_file():
        return "other"
    try:
        meta = json.loads((out / "meta.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return "other"
    return "store" if isinstance(meta, dict) and meta.get("format") == FORMAT else "other"


def check_store_out(out, *, overwrite=False, name="out") -> Path:
    """``out`` as a Path if a store may be written there: a new or empty folder, or with
    ``overwrite`` an earlier codes store; SeqimpError for anything else (nothing is deleted)."""
    out = Path(os.fspath(out))
    state = store_state(out)
    if state == "other":
        what = "is a file" if out.exists() and not out.is_dir() else "holds files that are not a codes store"
        raise SeqimpError(f"{name} {out}: {what}; a store is written into a new or empty folder "
                          "(nothing was deleted)")
    if state == "store" and not overwrite:
        raise SeqimpError(f"{name} {out}: already exists and holds a codes store (pass overwrite=True to replace it)")
    if not out.resolve().parent.is_dir():
        raise SeqimpError(f"{name} {out}: folder {out.resolve().parent} does not exist")
    return out


def encode_fasta_to_store(fasta, out, *, labels=None, alphabet="dna", on_invalid="error", chunk_size=100_000,
                          overwrite=False, verbose=False, mask_lowercase=False) -> CodesStore:
    """Stream FASTA files into a codes store on disk; memory is one chunk of records.

    Parameters
    ----------
    fasta : path or list of paths
        FASTA files (plain or gzip), read in order; all sequences must have one length.
    out : path
        The store folder to create (missing or empty).
    labels : list of numbers, path or None
        One label per FASTA file (e.g. ``[1, 0]`` for positive and negative files), or a
        text file with one number per record (in order), or None (no ``labels.npy``).
    alphabet : str or Alphabet, default="dna"
    on_invalid : {"error", "skip"}, default="error"
        Records with symbols outside the alphabet and its ambiguity codes: fail naming the
        record, position and symbol, or drop them (their labels too) with a warning line on
        stderr. N and the other ambiguity codes are stored as the unknown code
        (``alphabet.unknown``, 4 for DNA); one log line per file counts them.
    chunk_size : int, default=100000
        Records encoded and written at a time.
    overwrite : bool, default=False
        Replace an earlier codes store at ``out``. A folder holding anything else is never
        replaced (:func:`check_store_out`).
    verbose : bool, default=False
        Progress with ETA (tqdm, stderr) while encoding.
    mask_lowercase : bool, default=False
        Store lower-case (soft-masked) letters as unknown.

    Returns
    -------
    CodesStore
        The new store, opened read-only.

    Notes
    -----
    Two passes over the input: the first counts the records and checks their lengths
    (so that ``codes.npy`` can be allocated at its final size, on disk at once: a full disk
    fails here with ENOSPC, not later inside the memory map), the second encodes
    (:func:`fill_codes_store`). The store is written to a temporary folder beside ``out`` and
    renamed, so a failed or interrupted run leaves no half-written store and the earlier
    one as it was.
    """
    out = check_store_out(out, overwrite=overwrite)
    tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.", dir=out.resolve().parent))
    try:
        fill_codes_store(fasta, tmp, labels=labels, alphabet=alphabet, on_invalid=on_invalid,
                         chunk_size=chunk_size, verbose=verbose, mask_lowercase=mask_lowercase)
        if out.is_dir():  # empty, or an earlier store (checked): moved aside, then removed
            aside = tmp.with_name(tmp.name + ".old")
            os.replace(out, aside)
            try:
                os.replace(tmp, out)
            except BaseException:
                os.replace(aside, out)
                raise
            shutil.rmtree(aside, ignore_errors=True)
        else:
            os.replace(tmp, out)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return open_codes_store(out)


def _allocate_codes(path: Path, n: int, length: int) -> np.memmap:
    """``codes.npy`` of shape (n, length) uint8 with its blocks allocated on disk before it is
    mapped (a full disk raises ENOSPC here instead of a bus error while writing the map)."""
    header = {"descr": "|u1", "fortran_order": False, "shape": (n, length)}
    with open(path, "wb") as fh:
        np.lib.format.write_array_header_1_0(fh, header)
        offset = fh.tell()
        fh.flush()
        try:
            os.posix_fallocate(fh.fileno(), 0, offset + n * length)
        except AttributeError:  # pragma: no cover - no posix_fallocate (macOS): a sparse file
            fh.truncate(offset + n * length)
        except OSError as exc:
            if exc.errno not in (errno.EOPNOTSUPP, errno.EINVAL, errno.ENOSYS):
                raise
            fh.truncate(offset + n * length)  # a file system that cannot preallocate
    return np.memmap(path, dtype=np.uint8, mode="r+", offset=offset, shape=(n, length))


def fill_codes_store(fasta, folder, *, labels=None, alphabet="dna", on_invalid="error", chunk_size=100_000,
                     verbose=False, mask_lowercase=False) -> Path:
    """Write the files of a codes store (:data:`STORE_FILES`) into the existing folder ``folder``
    (a staging folder that is renamed or published afterwards; see
    :func:`encode_fasta_to_store` for the parameters). Returns ``folder``."""
    from tqdm import tqdm

    alpha = get_alphabet(alphabet)
    if on_invalid not in ("error", "skip"):
        raise SeqimpError(f"on_invalid must be 'error' or 'skip', got {on_invalid!r}")
    chunk_size = check_int(chunk_size, "chunk_size")
    paths = [fasta] if isinstance(fasta, (str, os.PathLike)) else list(fasta)
    if not paths:
        raise SeqimpError("fasta: no input files")
    paths = [check_file(p, expected="a FASTA file") for p in paths]
    folder = Path(os.fspath(folder))
    per_file, per_record = _label_source(labels, paths)

    # pass 1: count, check lengths (and which records are dropped)
    n, length, first, dropped, total = 0, None, None, 0, 0
    for path in paths:
        for rid, seq in iter_fasta(path):
            total += 1
            if length is None:
                length, first = len(seq), (path, rid)
            elif len(seq) != length:
                raise SeqimpError(f"{path}: record {rid!r} has length {len(seq)}, but record {first[1]!r} of "
                                  f"{first[0]} has length {length}; positional methods need one common length")
            if on_invalid == "skip" and not _valid(seq, alpha):
                dropped += 1
                continue
            n += 1
    if total == 0:
        raise SeqimpError(f"{paths[0]}: no FASTA records")
    if length == 0:
        raise SeqimpError(f"{paths[0]}: sequences are empty")
    if n == 0:
        raise SeqimpError(f"all {total} records contain symbols outside the alphabet {alpha.name}")
    if per_record is not None and per_record.shape[0] != total:
        raise SeqimpError(f"labels: {per_record.shape[0]} labels for {total} records")

    codes = _allocate_codes(folder / "codes.npy", n, length)
    label_values = np.empty(n) if (per_file is not None or per_record is not None) else None
    row, rec, held_by_file = 0, 0, []
    with open(folder / "ids.txt", "w", encoding="utf-8") as ids_out, \
            tqdm(total=n, desc="encoding", unit="seq", file=sys.stderr, disable=not verbose,
                 mininterval=1.0) as bar:
        for f, path in enumerate(paths):
            records = iter_fasta(path)
            held = [0, 0, 0]  # records, of them holding unknown letters, unknown letters
            while True:
                block = [(rid, mask_text(seq, alpha, mask_lowercase))
                         for rid, seq in itertools.islice(records, chunk_size)]
                if not block:
                    break
                keep = [on_invalid == "error" or _valid(s, alpha) for _, s in block]
                ids = [rid for (rid, _), k in zip(block, keep) if k]
                try:
                    enc = encode([s for (_, s), k in zip(block, keep) if k], alpha, names=ids)
                except SeqimpError as exc:
                    raise SeqimpError(f"{path}: {exc}") from None
                m = enc.shape[0]
                codes[row:row + m] = enc
                held = [a + b for a, b in zip(held, (m, *count_unknown(enc, alpha)))]
                if label_values is not None:
                    if per_file is not None:
                        label_values[row:row + m] = per_file[f]
                    else:
                        label_values[row:row + m] = per_record[rec:rec + len(block)][np.asarray(keep)]
                ids_out.write("".join(f"{i}\n" for i in ids))
                row += m
                rec += len(block)
                bar.update(m)
            held_by_file.append((path, held))
    codes.flush()
    del codes
    for path, held in held_by_file:  # after the progress bar
        log_counts(path, *held, alpha, masked=mask_lowercase)
    if label_values is not None:
        if np.all(label_values == np.round(label_values)):
            label_values = label_values.astype(np.int64)
        np.save(folder / "labels.npy", label_values)
    meta = {"format": FORMAT, "version": VERSION, "n": n, "length": length, "alphabet": alpha.name,
            "sources": [str(p) for p in paths], "labels": label_values is not None}
    (folder / "meta.json").write_text(json.dumps(meta, indent=1) + "\n", encoding="utf-8")
    if dropped:
        print(f"seqimp: dropped {dropped} of {total} records with symbols outside {alpha.symbols}",
              file=sys.stderr)
    return folder


def write_codes_store(out, codes, labels=None, ids=None, *, alphabet="dna", rows=1 << 20) -> CodesStore:
    """Write an in-memory or memory-mapped (n, L) code array as a store (rows copied in blocks)
    into ``out``: a new or empty folder, or an earlier store, which is replaced
    (:func:`check_store_out`)."""
    alpha = get_alphabet(alphabet)
    codes = np.asarray(codes)
    if codes.ndim != 2 or codes.dtype.kind not in "iu" or 0 in codes.shape:
        raise SeqimpError(f"codes must be a non-empty (n, L) integer array, got shape {codes.shape}")
    n, length = codes.shape
    if labels is not None and np.shape(labels) != (n,):
        raise SeqimpError(f"labels must have shape ({n},), got {np.shape(labels)}")
    if ids is not None and len(ids) != n:
        raise SeqimpError(f"ids: {len(ids)} ids for {n} sequences")
    out = check_store_out(out, overwrite=True)  # a folder of other files is never written into
    out.mkdir(parents=True, exist_ok=True)
    mm = _allocate_codes(out / "codes.npy", n, length)
    for a in range(0, n, rows):
        block = codes[a:a + rows]
        if block.max() > alpha.unknown:
            raise SeqimpError(f"codes must lie in 0..{alpha.unknown} for alphabet {alpha.name} "
                              f"({alpha.unknown}: unknown)")
        mm[a:a + rows] = block
    mm.flush()
    del mm
    if labels is not None:
        np.save(out / "labels.npy", np.asarray(labels))
    with open(out / "ids.txt", "w", encoding="utf-8") as fh:
        for r in range(n):
            fh.write(f"{ids[r] if ids is not None else f'seq{r + 1}'}\n")
    meta = {"format": FORMAT, "version": VERSION, "n": n, "length": length, "alphabet": alpha.name,
            "sources": [], "labels": labels is not None}
    (out / "meta.json").write_text(json.dumps(meta, indent=1) + "\n", encoding="utf-8")
    return open_codes_store(out)


def open_codes_store(path) -> CodesStore:
    """Open a codes store read-only: ``codes`` (and ``labels``) are memory maps, nothing is loaded."""
    path = Path(os.fspath(path))
    meta_file = path / "meta.json"
    if not path.is_dir() or not meta_file.is_file():
        raise SeqimpError(f"{path}: not a codes store (no meta.json); create one with encode_fasta_to_store")
    try:
        meta = json.loads(meta_file.read_text(encoding="utf-8"))
    except ValueError as exc:
        raise SeqimpError(f"{meta_file}: not valid JSON ({exc})") from None
    if meta.get("format") != FORMAT:
        raise SeqimpError(f"{meta_file}: format {meta.get('format')!r} is not {FORMAT!r}")
    codes = np.load(path / "codes.npy", mmap_mode="r")
    if codes.dtype != np.uint8 or codes.shape != (meta["n"], meta["length"]):
        raise SeqimpError(f"{path / 'codes.npy'}: shape {codes.shape} {codes.dtype}, meta.json says "
                          f"({meta['n']}, {meta['length']}) uint8")
    labels = np.load(path / "labels.npy", mmap_mode="r") if meta.get("labels") else None
    return CodesStore(path, codes, labels, get_alphabet(meta["alphabet"]), meta)
