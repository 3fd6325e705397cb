"""Known motifs from where a user names them: a motif file or a JASPAR release."""

from __future__ import annotations

import os
from pathlib import Path

from ...errors import SeqimpError
from ._database import MotifDatabase
from ._formats import read_motifs
from ._jaspar import jaspar_motifs, parse_jaspar_name

__all__ = ["load_database"]


def load_database(spec, format=None) -> MotifDatabase:
    """Known motifs from a motif file or a JASPAR release name.

    Parameters
    ----------
    spec : path-like, str or sequence of Motif
        A MEME (also MEME's and STREME's text output), JASPAR, TRANSFAC or HOMER file; the
        folder of a ``seqimp motifs`` run (its ``motifs.meme``); or
        ``RELEASE[:COLLECTION][:TAX_GROUP]`` such as ``JASPAR2024`` (any case; CORE vertebrates
        by default), ``JASPAR2024:insects`` or ``JASPAR2022:CORE:plants``,
        read through pyjaspar (:func:`seqimp.motifs.jaspar_motifs`). A file that exists wins
        over a release of the same name. Motifs already in hand are wrapped as they are.
    format : {"meme", "jaspar", "transfac", "homer"}, optional
        Format of a file (recognised from its content when omitted); not for a release.

    Returns
    -------
    MotifDatabase
    """
    if isinstance(spec, MotifDatabase):
        return spec
    if not isinstance(spec, (str, os.PathLike)):
        return MotifDatabase(spec)
    path = Path(os.fspath(spec))
    if path.is_dir():  # a seqimp motifs (or poim) run: its motifs.meme
        if not (path / "motifs.meme").is_file():
            raise SeqimpError(f"{path}: a folder without motifs.meme (expected a motif file or the folder of a "
                              "'seqimp motifs' run)")
        if format not in (None, "meme"):
            raise SeqimpError(f"{path}: a run folder holds motifs.meme; --db-format {format} does not apply")
        return MotifDatabase(read_motifs(path / "motifs.meme", "meme"), info={"file": str(path / "motifs.meme")})
    if not path.exists():
        release = parse_jaspar_name(os.fspath(spec))
        if release is not None:
            if format is not None:
                raise SeqimpError(f"{spec} is a JASPAR release, not a file: it takes no motif format ({format})")
            return jaspar_motifs(**release)
        raise SeqimpError(f"{path}: no such motif file (nor a JASPAR release such as JASPAR2024)")
    return MotifDatabase(read_motifs(path, format), info={"file": str(path)})
