"""JASPAR releases as motif databases, read from the SQLite files the pyjaspar package bundles.

seqimp does not redistribute JASPAR's matrices; the optional extra ``seqimp[jaspar]``
installs pyjaspar, which carries every release from JASPAR 2014 on. A release becomes a
:class:`~seqimp.motifs.MotifDatabase` of :class:`~seqimp.motifs.Motif` named as in JASPAR's
own TRANSFAC files (name = matrix ID such as ``MA0099.4``, description = the factor such as
``FOS::JUN``), so matches read the same whether the database came from a file or a release.
"""

from __future__ import annotations

import re
import warnings

import numpy as np

from ...errors import SeqimpError
from ._database import MotifDatabase
from .._motif import DNA_LETTERS, Motif

__all__ = ["jaspar_motifs", "jaspar_releases", "parse_jaspar_name", "DEFAULT_RELEASE"]

#: The release ``seqimp demo`` matches against.
DEFAULT_RELEASE = "JASPAR2024"

#: The paper to cite for each release (JASPAR's data are CC BY 4.0).
CITATIONS = {
    "JASPAR2024": "Rauluseviciute et al., Nucleic Acids Res. 2024",
    "JASPAR2022": "Castro-Mondragon et al., Nucleic Acids Res. 2022",
    "JASPAR2020": "Fornes et al., Nucleic Acids Res. 2020",
    "JASPAR2018": "Khan et al., Nucleic Acids Res. 2018",
    "JASPAR2016": "Mathelier et al., Nucleic Acids Res. 2016",
    "JASPAR2014": "Mathelier et al., Nucleic Acids Res. 2014",
}

INSTALL_HINT = "pip install 'seqimp[jaspar]'"

_NAME = re.compile(r"jaspar\d{4}", re.IGNORECASE)


def _pyjaspar():
    try:
        import pyjaspar
    except ImportError:
        raise SeqimpError(f"reading a JASPAR release needs the pyjaspar package: {INSTALL_HINT}") from None
    return pyjaspar


def pyjaspar_available() -> bool:
    """Whether the pyjaspar package can be imported."""
    try:
        _pyjaspar()
    except SeqimpError:
        return False
    return True


def jaspar_releases() -> list:
    """The JASPAR releases the installed pyjaspar carries, oldest first (e.g. ``JASPAR2014``
    .. ``JASPAR2026``); SeqimpError without pyjaspar."""
    return sorted(_pyjaspar().jaspar_releases)


def _release(release) -> str:
    available = jaspar_releases()
    name = str(release).upper()
    if name not in available:
        raise SeqimpError(f"unknown JASPAR release {release!r}; pyjaspar has {', '.join(available)}")
    return name


def attribution(release) -> str:
    """The line that credits a release, e.g. ``JASPAR 2024 (Rauluseviciute et al., Nucleic
    Acids Res. 2024), CC BY 4.0, via pyjaspar``."""
    label = f"JASPAR {release[len('JASPAR'):]}"
    cite = f" ({CITATIONS[release]})" if release in CITATIONS else ""
    return f"{label}{cite}, CC BY 4.0, via pyjaspar"


def _distinct(conn, sql) -> list:
    return sorted({row[0] for row in conn.execute(sql).fetchall() if row[0]})


def jaspar_motifs(release=DEFAULT_RELEASE, *, collection="CORE", tax_group="vertebrates", ids=None):
    """The motifs of a JASPAR release (latest version of every matrix), through pyjaspar.

    Parameters
    ----------
    release : str, default="JASPAR2024"
        Release name, any case (:func:`jaspar_releases` lists them).
    collection : str, default="CORE"
        JASPAR collection (``CORE``, ``UNVALIDATED``, ...).
    tax_group : str or None, default="vertebrates"
        Taxonomic group (``vertebrates``, ``plants``, ``insects``, ...); None or ``"all"``: every group.
    ids : sequence of str, optional
        Matrix IDs (``MA0099.4``, or ``MA0099`` for the latest version) to take instead of
        a collection: ``collection`` and ``tax_group`` are then not applied.

    Returns
    -------
    MotifDatabase
        A list of :class:`Motif` sorted by matrix ID (``ids`` in the order given): name = the
        matrix ID, description = the factor's name, ``sites`` = the matrix's column total
        when its counts are whole numbers (as :func:`read_motifs` gives for JASPAR's TRANSFAC
        file); ``info`` records the release, collection, tax group, count and attribution,
        ``annotations`` each matrix's JASPAR ``tf_class`` and ``tf_family``. JASPAR 2024 CORE
        vertebrates holds 879 matrices (the non-redundant set).

    Raises
    ------
    SeqimpError
        Without pyjaspar (with the install command), for an unknown release (listing those
        available), an unknown matrix ID, or a selection with no motifs.
    """
    pyjaspar = _pyjaspar()
    release = _release(release)
    collection = str(collection).upper()
    tax_group = None if tax_group is None or str(tax_group).lower() == "all" else str(tax_group).lower()
    db = pyjaspar.jaspardb(release=release)
    with warnings.catch_warnings():  # pyjaspar warns of what is missing; the errors below say it
        from Bio import BiopythonWarning

        warnings.simplefilter("ignore", BiopythonWarning)
        found = _fetch(db, release, collection, tax_group, ids)
    motifs = [_motif(record) for record in found]
    info = {"release": release, "collection": None if ids is not None else collection,
            "tax_group": None if ids is not None else (tax_group or "all"), "motifs": len(motifs),
            "source": f"pyjaspar {getattr(pyjaspar, '__version__', '')}".strip(), "attribution": attribution(release)}
    if ids is not None:
        info["ids"] = [str(i) for i in ids]
    annotations = {m.name: {"tf_class": _joined(r.tf_class), "tf_family": _joined(r.tf_family)}
                   for m, r in zip(motifs, found)}
    return MotifDatabase(motifs, info=info, annotations=annotations)


def _fetch(db, release, collection, tax_group, ids) -> list:
    """pyjaspar's records: the matrices ``ids``, or the latest version of every matrix of a
    collection and tax group, sorted by matrix ID."""
    if ids is not None:
        found = []
        for matrix_id in ids:
            record = db.fetch_motif_by_id(str(matrix_id))
            if record is None:
                raise SeqimpError(f"{release} has no matrix {matrix_id!r}")
            found.append(record)
    else:
        found = db.fetch_motifs(collection=collection, tax_group=None if tax_group is None else [tax_group])
        found = sorted(found, key=lambda r: r.matrix_id)
        if not found:
            collections = _distinct(db.conn, "select distinct COLLECTION from MATRIX")
            groups = _distinct(db.conn, "select distinct VAL from MATRIX_ANNOTATION where TAG = 'tax_group'")
            raise SeqimpError(f"{release} has no motifs in collection {collection!r} for tax group {tax_group!r} "
                              f"(collections: {', '.join(collections)}; tax groups: {', '.join(groups)})")
    return found


def _joined(value) -> str:
    """A JASPAR annotation (a list for dimers: one entry per partner) as text, repeats once."""
    if value is None:
        return ""
    values = value if isinstance(value, (list, tuple)) else [value]
    return "; ".join(dict.fromkeys(str(v) for v in values if v))


def _motif(record) -> Motif:
    """A Bio.motifs.jaspar.Motif as a seqimp Motif (counts A, C, G, T by column)."""
    counts = np.array([record.counts[a] for a in DNA_LETTERS], dtype=np.float64).T
    return Motif.from_counts(record.matrix_id, counts, description=record.name or "")


#: JASPAR's collections of matrices (a name after the release that is none of these is a tax group)
COLLECTIONS = ("CORE", "UNVALIDATED", "CNE", "PHYLOFACTS", "SPLICE", "POLII", "FAM", "PBM", "PBM_HOMEO", "PBM_HLH")


def parse_jaspar_name(text):
    """``RELEASE[:COLLECTION][:TAX_GROUP]`` as keyword arguments of :func:`jaspar_motifs`; None when
    ``text`` does not name a JASPAR release.

    ``JASPAR2024`` (CORE vertebrates), ``JASPAR2024:insects`` (CORE insects: a name that is not
    a JASPAR collection is a tax group: vertebrates, insects, plants, fungi, nematodes,
    urochordates, ..., or ``all``), ``JASPAR2024:UNVALIDATED`` (vertebrates),
    ``jaspar2022:CORE:plants``. Collection defaults to CORE, tax group to vertebrates."""
    parts = str(text).split(":")
    if len(parts) > 3 or not _NAME.fullmatch(parts[0]):
        return None
    collection, tax_group = "CORE", "vertebrates"
    if len(parts) == 2 and parts[1] and parts[1].upper() not in COLLECTIONS:
        tax_group = parts[1]
    else:
        collection = parts[1] if len(parts) > 1 and parts[1] else "CORE"
        tax_group = parts[2] if len(parts) > 2 and parts[2] else "vertebrates"
    return {"release": parts[0].upper(), "collection": collection.upper(), "tax_group": tax_group.lower()}
