"""Bundled demo data and loaders for public reference data sets.

The UCI loaders parse the original files where the user keeps them; seqimp
never ships third-party data.
"""

from __future__ import annotations

import os
import warnings
from importlib import resources
from pathlib import Path

import numpy as np
from sklearn.utils import Bunch

from .errors import SeqimpError
from .io import DNA, SequenceSet, encode
from .io._alphabet import INVALID
from .io._unknown import log_unknown

__all__ = ["demo_paths", "example_motifs_path", "load_uci_splice", "load_uci_promoters", "promoter_position"]


def demo_paths() -> tuple[Path, Path]:
    """Paths of the embedded planted-motif demo FASTA pair (positive, negative).

    See ``data/README.md`` in the source tree for how they were made.
    """
    try:
        root = resources.files("seqimp.data")
    except ModuleNotFoundError:  # editable installs do not map data/ -> seqimp.data
        root = Path(__file__).resolve().parent.parent / "data"
    return Path(str(root / "demo_positive.fa")), Path(str(root / "demo_negative.fa"))


def example_motifs_path() -> Path:
    """Path of the embedded example motif file ``known_motifs.meme`` (the demo's planted AP-1 site
    and four made-up matrices; ``data/README.md``), the file of every ``--db`` example."""
    return demo_paths()[0].with_name("known_motifs.meme")


def _resolve(path, filename) -> Path:
    path = Path(os.fspath(path))
    if path.is_dir():
        path = path / filename
    if not path.exists():
        raise SeqimpError(f"{path}: no such file")
    return path


def _read_uci(path: Path, classes: tuple, length: int):
    """Parse ``class, name, sequence`` lines; return labels, names, sequences and bad-record count."""
    labels, names, seqs = [], [], []
    with open(path, "rt", encoding="ascii", errors="replace") as fh:
        for lineno, line in enumerate(fh, start=1):
            if not line.strip():
                continue
            fields = [f.strip() for f in line.split(",")]
            if len(fields) != 3:
                raise SeqimpError(f"{path}, line {lineno}: expected 3 comma-separated fields "
                                  f"(class, name, sequence), got {len(fields)}")
            label, name, seq = fields
            if label not in classes:
                raise SeqimpError(f"{path}, line {lineno}: unknown class {label!r} "
                                  f"(expected one of {', '.join(classes)})")
            if len(seq) != length:
                raise SeqimpError(f"{path}, line {lineno} ({name}): sequence has length {len(seq)}, "
                                  f"expected {length}")
            labels.append(label)
            names.append(name)
            seqs.append(seq)
    if not seqs:
        raise SeqimpError(f"{path}: no records")
    return labels, names, seqs


def _bunch(path, labels, names, seqs, on_invalid, **extra) -> Bunch:
    if on_invalid not in ("skip", "error"):
        raise SeqimpError(f"on_invalid must be 'skip' or 'error', got {on_invalid!r}")
    valid = [DNA.lut[np.frombuffer(s.encode("ascii", "replace"), np.uint8)].max() != INVALID for s in seqs]
    dropped = len(seqs) - sum(valid)
    if dropped and on_invalid == "skip":
        bad = [n for n, v in zip(names, valid) if not v]
        warnings.warn(f"{path}: skipped {dropped} of {len(seqs)} records with symbols that are no IUPAC "
                      f"nucleotide code (e.g. {', '.join(bad[:3])})", stacklevel=3)
        keep = np.flatnonzero(valid)
        labels, names, seqs = ([x[i] for i in keep] for x in (labels, names, seqs))
    codes = encode(seqs, DNA, names=names)  # raises with record and position on_invalid="error"
    log_unknown(path, codes, DNA)
    return Bunch(sequences=SequenceSet(codes, list(names), DNA, str(path)),
                 target=np.array(labels), names=list(names), n_skipped=dropped, **extra)


def load_uci_splice(path, *, on_invalid="skip") -> Bunch:
    """Read the UCI "Splice-junction Gene Sequences" data (``splice.data``).

    Parameters
    ----------
    path : str or path-like
        The ``splice.data`` file or the folder that holds it. Lines are
        ``class, instance name, sequence`` with classes EI (exon→intron, donor),
        IE (intron→exon, acceptor) and N (neither); sequences have 60 nt.
    on_invalid : {"skip", "error"}, default="skip"
        Records with symbols that are no IUPAC nucleotide code: drop them with a
        warning, or raise naming the record and the 1-based position. The
        ambiguity codes of the file (D, N, S, R in 15 records) are read as the
        unknown code (4); no record is dropped for them.

    Returns
    -------
    Bunch
        ``sequences`` : SequenceSet of n records, codes of shape (n, 60);
        ``target`` : ndarray of shape (n,) of str, the class of each record;
        ``names`` : list of n str; ``n_skipped`` : int, records dropped.
        Select a class with ``data.sequences.subset(data.target == "EI")``.
    """
    path = _resolve(path, "splice.data")
    labels, names, seqs = _read_uci(path, ("EI", "IE", "N"), 60)
    return _bunch(path, labels, names, seqs, on_invalid)


#: Positions relative to the transcription start of the 57 promoter columns: -50..-1, +1..+7.
PROMOTER_POSITIONS = np.concatenate([np.arange(-50, 0), np.arange(1, 8)])


def promoter_position(column) -> np.ndarray:
    """Map 1-based promoter columns (1..57) to positions relative to the start site (-50..+7).

    The UCI promoter data has no position 0: column 50 is -1 and column 51 is +1.
    """
    column = np.asarray(column)
    if np.any((column < 1) | (column > 57)):
        raise SeqimpError("promoter columns are 1-based and lie in 1..57")
    return PROMOTER_POSITIONS[column - 1]


def load_uci_promoters(path, *, on_invalid="skip") -> Bunch:
    """Read the UCI "E. coli promoter gene sequences" data (``promoters.data``).

    Parameters
    ----------
    path : str or path-like
        The ``promoters.data`` file or its folder. Lines are ``class, name,
        sequence`` with class ``+`` (promoter) or ``-``; 57 lower-case nt covering
        positions -50..+7 relative to the transcription start.
    on_invalid : {"skip", "error"}, default="skip"

    Returns
    -------
    Bunch
        ``sequences`` : SequenceSet, codes of shape (n, 57); ``target`` : ndarray
        of shape (n,) of str (``"+"``/``"-"``); ``names`` : list of str;
        ``n_skipped`` : int; ``positions`` : ndarray of shape (57,), the position
        relative to the start site of each column (see :func:`promoter_position`).
    """
    path = _resolve(path, "promoters.data")
    labels, names, seqs = _read_uci(path, ("+", "-"), 57)
    return _bunch(path, labels, names, seqs, on_invalid, positions=PROMOTER_POSITIONS.copy())
