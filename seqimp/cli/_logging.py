"""What the command line tells the user: :class:`UserError` (a mistake on the command line,
printed as one ``seqimp: error:`` line) and the ``seqimp`` log on stderr (``configure``, ``log``).

Levels: ``-q/--quiet`` shows warnings and errors only; the default adds the steps of a run (INFO);
``-v`` adds details such as the solver's line per pass (DEBUG); ``-vv`` prefixes every line with
the time and the module that wrote it. Lines are written through tqdm's lock
(:func:`seqimp._utils.progress.write_line`), so they never run into a progress bar.
"""

from __future__ import annotations

import logging
import sys

from .._utils.progress import write_line
from ..errors import SeqimpError

__all__ = ["UserError", "configure", "log", "progress_enabled", "terminal_text", "log_level"]

STATE = {"quiet": False, "debug": False, "verbose": 0}


class UserError(SeqimpError):
    """A mistake on the command line (bad option value, conflicting options)."""


logger = logging.getLogger(__name__)


class _StderrHandler(logging.Handler):
    """Lines on the current ``sys.stderr`` (which may be swapped), written through tqdm's lock."""

    def __init__(self, fmt="%(message)s"):
        super().__init__()
        self.setFormatter(logging.Formatter(fmt, datefmt="%H:%M:%S"))

    @property
    def stream(self):
        return sys.stderr

    def format(self, record) -> str:
        message = record.getMessage()
        if record.levelno >= logging.WARNING and not message.startswith("seqimp: "):
            # a library's warning (seqimp.motifs, seqimp.pipeline) reads like the command's own: every line
            # on stderr under -q starts with 'seqimp: '
            record = logging.makeLogRecord({**record.__dict__, "args": None,
                                            "msg": f"seqimp: {record.levelname.lower()}: {message}"})
        return terminal_text(super().format(record))  # a name from a file cannot drive the terminal

    def emit(self, record) -> None:
        try:
            write_line(self.format(record), file=sys.stderr)
        except Exception:  # noqa: BLE001 -- logging must never raise
            self.handleError(record)


def log_level(*, quiet=False, verbose=0) -> int:
    """The level of the ``seqimp`` log: WARNING with ``quiet``, INFO by default, DEBUG with ``-v``."""
    if quiet:
        return logging.WARNING
    return logging.DEBUG if verbose else logging.INFO


def configure(*, quiet=False, debug=False, verbose=0) -> None:
    """Send the ``seqimp`` log to stderr, one plain line per message, at :func:`log_level`
    (``verbose`` >= 2: each line starts with the time and the logger's name). Replaces the handler
    an earlier call installed."""
    STATE["quiet"], STATE["debug"], STATE["verbose"] = bool(quiet), bool(debug), int(verbose or 0)
    root = logging.getLogger("seqimp")
    for handler in [h for h in root.handlers if isinstance(h, _StderrHandler)]:
        root.removeHandler(handler)
    fmt = "%(asctime)s %(name)s: %(message)s" if STATE["verbose"] >= 2 and not quiet else "%(message)s"
    root.addHandler(_StderrHandler(fmt))
    root.setLevel(log_level(quiet=quiet, verbose=STATE["verbose"]))


def log(message: str, *, always=False) -> None:
    """Log a line on stderr unless ``--quiet`` (``always``: a warning, shown anyway)."""
    if not any(isinstance(h, _StderrHandler) for h in logging.getLogger("seqimp").handlers):
        configure(quiet=STATE["quiet"], debug=STATE["debug"], verbose=STATE["verbose"])
    logger.log(logging.WARNING if always else logging.INFO, message)


#: Control characters (C0 but tab and newline, DEL, C1) shown as ``\\xNN`` on the terminal.
_CONTROL = {c: f"\\x{c:02x}" for c in [*range(0x09), *range(0x0b, 0x20), 0x7f, *range(0x80, 0xa0)]}


def terminal_text(text) -> str:
    """``text`` with its control characters (escape sequences, carriage returns, bells) written
    as ``\\x1b``, ``\\x0d``, ...: what a motif name or a file's text shows on a terminal."""
    return str(text).translate(_CONTROL)


def progress_enabled() -> bool:
    """Whether long steps show progress (not ``--quiet``)."""
    return not STATE["quiet"]


def verbose() -> bool:
    """Whether ``-v`` asked for details (the solver's line per pass)."""
    return STATE["verbose"] > 0 and not STATE["quiet"]
