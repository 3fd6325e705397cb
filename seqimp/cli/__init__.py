"""The ``seqimp`` command line.

Each subcommand lives in its own module of this package and provides
``register(subparsers)``, which adds its parser and sets ``func`` to a callable
``func(args) -> int``. :func:`main` is the console-script entry point.
"""

from __future__ import annotations

import argparse
import contextlib
import signal
import sys
import warnings
from importlib import import_module

from .. import __version__
from ..errors import SeqimpError
from ._logging import UserError, configure, log

__all__ = ["main"]

# subcommand modules, in the order shown by --help
_COMMANDS = ["inspect", "demo", "encode", "train", "poim", "motifs", "scan", "enrich"]

_EPILOG = """\
examples:
  seqimp demo --out demo-results
  seqimp inspect data/demo_positive.fa
  seqimp poim --positive pos.fa --negative neg.fa --out results --degree 8
  seqimp COMMAND --help            options of one command

Positions printed or written for people are 1-based; arrays in the Python API are 0-based.
"""


class _Parser(argparse.ArgumentParser):
    """argparse with one-line errors: ``seqimp: error: ...`` and exit status 2."""

    def error(self, message):
        raise UserError(f"{message} (see '{self.prog} --help')")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="seqimp",
        description="Positional oligomer importance (POIM/FIRM) for trained sequence models.",
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"seqimp {__version__}")
    parser.add_argument("-q", "--quiet", action="store_true", help="no progress or log lines on stderr")
    parser.add_argument("--debug", action="store_true", help="show full tracebacks on errors")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for name in _COMMANDS:
        try:
            module = import_module(f".{name}", __name__)
        except ModuleNotFoundError as exc:
            if exc.name == f"{__name__}.{name}":
                continue  # command not built yet
            raise
        module.register(sub)
    return parser


def main(argv=None) -> int:
    """Run the command line; return the exit status (0 success, 2 user error, 130 SIGINT, 143 SIGTERM)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    debug = "--debug" in argv
    try:
        parser = build_parser()
        args = parser.parse_args(argv)
    except SystemExit as exc:  # --help / --version
        return int(exc.code or 0)
    except UserError as exc:
        print(f"seqimp: error: {exc}", file=sys.stderr)
        return 2
    if args.command is None:
        parser.print_help(sys.stderr)
        return 2
    configure(quiet=args.quiet, debug=args.debug)
    try:
        with warnings.catch_warnings(), _sigterm_raises():
            warnings.simplefilter("default")
            warnings.showwarning = _show_warning
            return int(args.func(args) or 0)
    except (SeqimpError, UserError, OSError, MemoryError) as exc:
        if debug:
            raise
        message = str(exc) if not isinstance(exc, MemoryError) else f"out of memory ({exc})"
        print(f"seqimp: error: {message.splitlines()[0] if message else type(exc).__name__}", file=sys.stderr)
        return 2
    except (KeyboardInterrupt, Terminated) as exc:
        signame, status = ("SIGTERM", 143) if isinstance(exc, Terminated) else ("SIGINT", 130)
        out = getattr(args, "out", None) or getattr(args, "model_out", None)
        where = f"; nothing written, earlier results in {out} unchanged" if out else ""
        print(f"seqimp: {args.command} interrupted by {signame}{where}", file=sys.stderr)
        return status


class Terminated(BaseException):
    """SIGTERM (``timeout``, SLURM, ``docker stop``) while a command runs: unwinds like Ctrl-C,
    so staging folders and locks are removed on the way out."""


@contextlib.contextmanager
def _sigterm_raises():
    """Turn SIGTERM into :class:`Terminated` for the duration of a command (main thread only)."""
    def handler(signum, frame):
        raise Terminated()

    try:
        previous = signal.signal(signal.SIGTERM, handler)
    except ValueError:  # not the main thread: leave signals alone
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def _show_warning(message, category, filename, lineno, file=None, line=None):
    log(f"seqimp: warning: {message}", always=True)
