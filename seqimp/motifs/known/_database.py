"""Databases of known motifs: a list of motifs with a record of where they came from
(:func:`._load.load_database` reads a motif file or a JASPAR release into one)."""

from __future__ import annotations

__all__ = ["MotifDatabase", "database_info", "database_label"]


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
