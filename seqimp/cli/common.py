"""Helpers shared by the subcommands: logging, output folders, argument types."""

from __future__ import annotations

import argparse
import contextlib
import os
import shutil
import sys
import tempfile
from pathlib import Path

from ..errors import SeqimpError, check_int, check_number

__all__ = ["UserError", "configure", "log", "check_output_path", "output_dir", "positive_int", "fraction", "nonneg_int",
           "positive_float", "STATE"]

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


def _arg_type(text: str, convert, check, **limits):
    """``check(convert(text))`` for argparse: a SeqimpError becomes ArgumentTypeError.

    argparse puts ``argument --option:`` in front, so the check's message is used
    without the argument name ("must be a positive integer, got 0").
    """
    try:
        value = convert(text)
    except ValueError:
        value = text  # the checks refuse strings and quote them
    try:
        return check(value, "", **limits)
    except SeqimpError as exc:
        raise argparse.ArgumentTypeError(str(exc).strip()) from None


def positive_int(text: str) -> int:
    """An integer >= 1 (``seqimp.errors.check_int``)."""
    return _arg_type(text, int, check_int)


def nonneg_int(text: str) -> int:
    """An integer >= 0 (``seqimp.errors.check_int``)."""
    return _arg_type(text, int, check_int, minimum=0)


def fraction(text: str) -> float:
    """A share in [0, 1) (0 means: none) (``seqimp.errors.check_number``)."""
    return _arg_type(text, float, check_number, low=0.0, high=1.0, high_open=True)


def positive_float(text: str) -> float:
    """A finite number > 0 (``seqimp.errors.check_number``)."""
    return _arg_type(text, float, check_number, low=0.0, low_open=True)
