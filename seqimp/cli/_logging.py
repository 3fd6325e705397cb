"""What the command line tells the user: :class:`UserError` (a mistake on the command line,
printed as one ``seqimp: error:`` line) and the ``seqimp`` log on stderr (``configure``, ``log``)."""

from __future__ import annotations

import logging
import sys

from ..errors import SeqimpError

__all__ = ["UserError", "configure", "log", "progress_enabled"]

STATE = {"quiet": False, "debug": False}


class UserError(SeqimpError):
    """A mistake on the command line (bad option value, conflicting options)."""


logger = logging.getLogger(__name__)


class _StderrHandler(logging.StreamHandler):
    """A plain ``%(message)s`` handler writing to the current ``sys.stderr`` (which may be swapped)."""

    def __init__(self):
        super().__init__()
        self.setFormatter(logging.Formatter("%(message)s"))

    @property
    def stream(self):
        return sys.stderr

    @stream.setter
    def stream(self, _value):
        pass


def configure(*, quiet=False, debug=False) -> None:
    """Send the ``seqimp`` log to stderr, one plain line per message: INFO and above, or
    WARNING and above with ``quiet``. Replaces the handler an earlier call installed."""
    STATE["quiet"], STATE["debug"] = bool(quiet), bool(debug)
    root = logging.getLogger("seqimp")
    for handler in [h for h in root.handlers if isinstance(h, _StderrHandler)]:
        root.removeHandler(handler)
    root.addHandler(_StderrHandler())
    root.setLevel(logging.WARNING if quiet else logging.INFO)


def log(message: str, *, always=False) -> None:
    """Log a line on stderr unless ``--quiet`` (``always``: a warning, shown anyway)."""
    if not any(isinstance(h, _StderrHandler) for h in logging.getLogger("seqimp").handlers):
        configure(quiet=STATE["quiet"], debug=STATE["debug"])
    logger.log(logging.WARNING if always else logging.INFO, message)


def progress_enabled() -> bool:
    """Whether long steps show progress (not ``--quiet``)."""
    return not STATE["quiet"]
