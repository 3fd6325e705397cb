"""Bundled demo data and loaders for public reference data sets."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

__all__ = ["demo_paths"]


def demo_paths() -> tuple[Path, Path]:
    """Paths of the embedded planted-motif demo FASTA pair (positive, negative).

    See ``data/README.md`` in the source tree for how they were made.
    """
    try:
        root = resources.files("seqimp.data")
    except ModuleNotFoundError:  # editable installs do not map data/ -> seqimp.data
        root = Path(__file__).resolve().parent.parent / "data"
    return Path(str(root / "demo_positive.fa")), Path(str(root / "demo_negative.fa"))
