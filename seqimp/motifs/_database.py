"""Databases of known motifs: a motif file or a JASPAR release, with a record of which."""

from __future__ import annotations

import os
from pathlib import Path

from ..errors import SeqimpError

__all__ = ["MotifDatabase", "load_database", "database_info", "database_label"]


class MotifDatabase(list):
    """A list of known :class:`~seqimp.motifs.Motif` that remembers where it came from.

    Parameters
    ----------
    motifs : iterable of Motif
    info : dict, optional
        What the database is, for output files: ``file`` (a motif file) or ``release``,
        ``collection``, ``tax_group``, ``source`` and ``attribution`` (a JASPAR release);
        ``motifs`` (the count) is filled in.
    annotations : dict, optional
        Per motif name, extra fields of the database (JASPAR: ``tf_class``, ``tf_family``).
    """

    def __init__(self, motifs=(), *, info=None, annotations=None):
        super().__init__(motifs)
        self.info = dict(info or {})
        self.info["motifs"] = len(self)
        self.annotations = dict(annotations or {})

    @property
    def label(self) -> str:
        """For a person: ``JASPAR2024 CORE vertebrates (879 motifs)`` or ``FILE (N motifs)``."""
        return database_label(self.info)


def database_label(info) -> str:
    """A database's ``info`` (:func:`database_info`) for a person: ``JASPAR2024 CORE
    vertebrates (879 motifs)``, ``FILE (N motifs)`` or ``N motifs``."""
    if "release" in info:
        what = " ".join(str(info[k]) for k in ("release", "collection", "tax_group") if info.get(k))
    else:
        what = str(info.get("file", ""))
    count = f"{info.get('motifs', '?')} motifs"
    return f"{what} ({count})" if what else count


def database_info(database) -> dict | None:
    """What ``motifs.json`` and ``summary.json`` record about a database: the ``info`` of a
    :class:`MotifDatabase`, ``{"motifs": N}`` for a plain list, None for no database."""
    if database is None:
        return None
    if isinstance(database, MotifDatabase):
        return dict(database.info)
    return {"motifs": len(database)}


def load_database(spec, format=None) -> MotifDatabase:
    """Known motifs from a motif file or a JASPAR release name.

    Parameters
    ----------
    spec : path-like, str or sequence of Motif
        A MEME, JASPAR or TRANSFAC file; or ``RELEASE[:COLLECTION[:TAX_GROUP]]`` such as
        ``JASPAR2024`` (any case; CORE vertebrates by default) or ``JASPAR2022:CORE:plants``,
        read through pyjaspar (:func:`seqimp.motifs.jaspar_motifs`). A file that exists wins
        over a release of the same name. Motifs already in hand are wrapped as they are.
    format : {"meme", "jaspar", "transfac"}, optional
        Format of a file (recognised from its content when omitted); not for a release.

    Returns
    -------
    MotifDatabase
    """
    from ._formats import read_motifs
    from ._jaspar import jaspar_motifs, parse_jaspar_name

    if isinstance(spec, MotifDatabase):
        return spec
    if not isinstance(spec, (str, os.PathLike)):
        return MotifDatabase(spec)
    path = Path(os.fspath(spec))
    if not path.exists():
        release = parse_jaspar_name(os.fspath(spec))
        if release is not None:
            if format is not None:
                raise SeqimpError(f"{spec} is a JASPAR release, not a file: it takes no motif format ({format})")
            return jaspar_motifs(**release)
        raise SeqimpError(f"{path}: no such motif file (nor a JASPAR release such as JASPAR2024)")
    return MotifDatabase(read_motifs(path, format), info={"file": str(path)})
