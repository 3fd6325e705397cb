"""Helpers shared by the subcommands: logging, output folders, argument types."""

from __future__ import annotations

import argparse
import contextlib
import os
import shutil
import sys
import tempfile
from pathlib import Path

from ..errors import SeqimpError

__all__ = ["UserError", "configure", "log", "check_output_path", "output_dir", "positive_int", "fraction", "nonneg_int", "STATE"]

STATE = {"quiet": False, "debug": False}


class UserError(SeqimpError):
    """A mistake on the command line (bad option value, conflicting options)."""


def configure(*, quiet=False, debug=False) -> None:
    STATE["quiet"], STATE["debug"] = bool(quiet), bool(debug)


def log(message: str, *, always=False) -> None:
    """Print a line on stderr unless ``--quiet`` (``always`` prints anyway)."""
    if always or not STATE["quiet"]:
        print(message, file=sys.stderr, flush=True)


def progress_enabled() -> bool:
    return not STATE["quiet"]


def check_output_path(out) -> Path:
    """``out`` as a Path; UserError if it is a file or its parent folder is missing.

    Subcommands call this before long work so a bad ``--out`` fails at once.
    """
    out = Path(out)
    if out.exists() and not out.is_dir():
        raise UserError(f"--out {out}: exists and is not a directory")
    parent = out.resolve().parent
    if not parent.is_dir():
        raise UserError(f"--out {out}: parent folder {parent} does not exist")
    return out


@contextlib.contextmanager
def output_dir(out):
    """Stage results in a temporary folder and move them into ``out`` on success.

    Nothing is written to ``out`` when the block raises, so a failed run never
    leaves half-written results. Existing files of the same name are replaced.
    """
    out = check_output_path(out)
    tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.", dir=out.resolve().parent))
    try:
        yield tmp
        out.mkdir(exist_ok=True)
        for item in sorted(tmp.iterdir()):
            target = out / item.name
            if target.is_dir() and not target.is_symlink():
                shutil.rmtree(target)
            os.replace(item, target)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def _int_at_least(text: str, minimum: int, what: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected {what}, got {text!r}") from None
    if value < minimum:
        raise argparse.ArgumentTypeError(f"expected {what}, got {value}")
    return value


def positive_int(text: str) -> int:
    return _int_at_least(text, 1, "a positive integer")


def nonneg_int(text: str) -> int:
    return _int_at_least(text, 0, "an integer >= 0")


def fraction(text: str) -> float:
    """A share in [0, 1) (0 means: none)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number in [0, 1), got {text!r}") from None
    if not 0.0 <= value < 1.0:
        raise argparse.ArgumentTypeError(f"expected a number in [0, 1), got {value}")
    return value

