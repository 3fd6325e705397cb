"""The run record: ``summary.json`` (:func:`write_summary`), what a run wrote and its size
(:func:`file_sizes`, :func:`add_file_sizes`) and the versions it ran with (:func:`versions`)."""

from __future__ import annotations

import json
import platform
import sys
from importlib import metadata
from pathlib import Path

from .. import __version__
from .._utils.jsonable import json_ready

__all__ = ["versions", "file_sizes", "add_file_sizes", "write_summary", "json_ready", "MOTIF_FILES"]

#: The files of one set of motifs, as ``seqimp motifs`` (and ``seqimp poim`` with sequences) writes
#: them: the report links them (:mod:`._motif_cards`, ``motifs.tsv`` shown as a table), and a
#: command that writes motifs into a folder replaces the whole set
#: (:func:`seqimp.cli._output_folder.output_dir`), so motif files of two runs are never mixed.
MOTIF_FILES = ("motifs.meme", "motifs.jaspar", "motifs.transfac", "motifs.homer", "motif_candidates.tsv",
               "candidate_tests.tsv", "matches.tsv", "motif_sites.tsv", "motif_sites.bed", "motifs.json",
               "motifs.tsv", "background.txt", "logos/")


def versions() -> dict:
    """Versions of seqimp, Python and the numerical libraries, for summaries."""
    out = {"seqimp": __version__, "python": platform.python_version()}
    for name, dist in (("numpy", "numpy"), ("scipy", "scipy"), ("numba", "numba"), ("sklearn", "scikit-learn"),
                       ("matplotlib", "matplotlib")):
        try:  # an installed package not imported by this run is not imported for its version
            out[name] = sys.modules[name].__version__ if name in sys.modules else metadata.version(dist)
        except (metadata.PackageNotFoundError, AttributeError):  # pragma: no cover - optional
            pass
    return out


def file_sizes(folder, paths) -> dict:
    """What a run wrote and its size, as ``summary.json`` records it (key ``files``).

    Parameters
    ----------
    folder : path-like
        The output folder; names are relative to it, with ``/`` between folders.
    paths : iterable of path-like
        Files written into ``folder`` (``summary.json`` and ``report.html`` themselves are not
        among them: they are written after the record).

    Returns
    -------
    dict
        ``{"bytes": {name: size in bytes}, "total": sum of the sizes}``, names sorted.
    """
    folder = Path(folder)
    sizes = {Path(p).relative_to(folder).as_posix(): Path(p).stat().st_size for p in paths}
    sizes = dict(sorted(sizes.items()))
    return {"bytes": sizes, "total": sum(sizes.values())}


def add_file_sizes(summary: dict, folder, paths) -> dict:
    """``summary`` with the files ``paths`` in ``folder`` added to its record of what was written
    (:func:`file_sizes`; files already recorded are measured again, and those no longer in
    ``folder``, e.g. the logos of an earlier motif run that a new one replaced, left out)."""
    folder = Path(folder)
    earlier = [folder / name for name in summary.get("files", {}).get("bytes", {})]
    return dict(summary, files=file_sizes(folder, set(p for p in earlier if p.is_file()) | {Path(p) for p in paths}))


def write_summary(path, summary) -> None:
    """Write a summary dict as indented, valid JSON (:func:`json_ready`: NumPy values and paths
    converted, NaN and infinities written as ``null``)."""
    Path(path).write_text(json.dumps(json_ready(summary), indent=2, allow_nan=False) + "\n")
