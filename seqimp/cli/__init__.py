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
from . import _resources  # before NumPy: one BLAS thread under a memory limit
from ..errors import SeqimpError
from ._logging import UserError, configure, log, terminal_text

__all__ = ["main"]

# subcommand modules, in the order shown by --help
_COMMANDS = ["inspect", "demo", "encode", "train", "predict", "poim", "motifs", "scan", "enrich", "variants", "cite"]

#: The one-line help of a subcommand in ``seqimp --help``, so that only the command that runs is
#: imported (start-up: ``seqimp --help`` imports no subcommand). A command missing here is imported
#: to register it; tests/test_cli_logging.py checks that each module registers the same line.
_SUMMARIES = {
    "inspect": "summarise FASTA files",
    "demo": "run the pipeline on the embedded demo data",
    "encode": "stream FASTA into an on-disk codes store",
    "train": "train a WD model and save its positional weights",
    "poim": "POIM/FIRM analysis: tables, heatmaps, report",
    "motifs": "motifs (PWMs, logos, files, database matches) from a POIM",
    "scan": "sites of known motifs in sequences: exact p-values, q-values (FIMO-like)",
    "enrich": "enrichment of known motifs in positives vs negatives (SEA/AME-like)",
    "variants": "variant effects: exact score changes (deltaSVM-style) for the variants of a VCF",
    "predict": "score sequences with a saved model; auROC and auPRC given labels",
    "cite": "what to cite: seqimp and the methods a run used",
}

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


def build_parser(argv=None) -> argparse.ArgumentParser:
    """The parser of ``seqimp``: every subcommand registered, or, given the ``argv`` to parse, only the
    one it names (the others are listed by name and one-line help and not imported)."""
    parser = _Parser(
        prog="seqimp",
        description="Positional oligomer importance (POIM/FIRM) for trained sequence models.",
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"seqimp {__version__}")
    parser.add_argument("-q", "--quiet", action="store_true", help="no progress or log lines on stderr")
    parser.add_argument("-v", "--verbose", action="count", default=0,
                        help="more detail on stderr: -v adds the steps' details (a training command: the "
                             "solver's line per pass), -vv times and modules")
    parser.add_argument("--debug", action="store_true", help="show full tracebacks on errors")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    wanted = _chosen_command(argv)
    for name in _COMMANDS:
        if argv is not None and name != wanted and name in _SUMMARIES:
            sub.add_parser(name, help=_SUMMARIES[name])  # listed, not imported
            continue
        try:
            module = import_module(f".{name}", __name__)
        except ModuleNotFoundError as exc:
            if exc.name == f"{__name__}.{name}":
                continue  # command not built yet
            raise
        module.register(sub)
    return parser


def _chosen_command(argv):
    """The subcommand ``argv`` names (its first word that is a command), or None."""
    for word in argv or ():
        if word in _COMMANDS:
            return word
    return None


def main(argv=None) -> int:
    """Run the command line; return the exit status (0 success, 2 user error, 130 SIGINT, 141 the reader of
    stdout closed the pipe, 143 SIGTERM).

    Without ``argv`` (the console script, ``python -m seqimp``) the command line is the process's own:
    the process then ends when the command is over (:func:`_end_process`; not under a profiler,
    coverage or a debugger, which write their results as the interpreter exits, nor with
    ``python -i``), and a signal until then says what was written."""
    if argv is not None:
        return _main(list(argv), own_process=False)
    status = _main(sys.argv[1:], own_process=True)
    if sys.gettrace() is None and sys.getprofile() is None and not sys.flags.inspect:
        _end_process(status)
    return status


def _main(argv, own_process) -> int:
    debug = "--debug" in argv
    limit = _resources.limit_error()
    if limit:  # below what the libraries need: one line instead of a hang or an abort
        print(f"seqimp: error: {limit}", file=sys.stderr)
        return 2
    from ._vocabulary import rename_old_options, warn_old_spellings

    argv, renamed = rename_old_options(argv, _chosen_command(argv))  # options spelt as in an earlier release
    try:
        parser = build_parser(argv)
        args, extra = parser.parse_known_args(argv)
        if extra:  # argparse would name the top-level help; the command's own lists its options
            command = f"seqimp {args.command}" if getattr(args, "command", None) else "seqimp"
            raise UserError(f"unrecognized arguments: {' '.join(extra)} (see '{command} --help')")
    except SystemExit as exc:  # --help / --version
        return int(exc.code or 0)
    except UserError as exc:
        print(f"seqimp: error: {exc}", file=sys.stderr)
        return 2
    if args.command is None:
        parser.print_help(sys.stderr)
        return 2
    configure(quiet=args.quiet, debug=args.debug, verbose=getattr(args, "verbose", 0))
    warn_old_spellings(args, log, renamed)  # an option spelt as in an earlier release: one line each
    finished = {}  # the command's exit status, once it has returned
    try:
        _check_inputs(args)
        # a signal while the interpreter exits after the command is reported too (_exit_handler)
        with warnings.catch_warnings(), _sigterm_raises(_exit_handler(args, finished) if own_process else None):
            warnings.simplefilter("default")
            warnings.showwarning = _show_warning
            finished["status"] = status = int(args.func(args) or 0)
            return status
    except BrokenPipeError:  # the reader closed the pipe (seqimp cite | head): stop quietly, as Unix tools do
        _silence_stdout()
        return 141
    except (SeqimpError, UserError, OSError, MemoryError) as exc:
        if debug:
            raise
        # a library error may carry its fix in command-line words (--alphabet, not alphabet=...)
        message = getattr(exc, "for_cli", None) or str(exc)
        message = message if not isinstance(exc, MemoryError) else f"out of memory ({exc})"
        line = message.splitlines()[0] if message else type(exc).__name__
        print(f"seqimp: error: {terminal_text(line)}", file=sys.stderr)
        return 2
    except (KeyboardInterrupt, Terminated) as exc:
        signame, status = ("SIGTERM", 143) if isinstance(exc, Terminated) else ("SIGINT", 130)
        from ._output_folder import committed_note

        where = committed_note(_out(args))  # the results may have been committed just before the signal
        print(f"seqimp: {args.command} interrupted by {signame}{where}", file=sys.stderr)
        return status


def _end_process(status):
    """End the process with ``status`` as the interpreter's exit would, in its order (CPython's
    ``Py_FinalizeEx``): :func:`threading._shutdown` -- the callbacks of
    ``threading._register_atexit``, with which ``concurrent.futures`` and loky shut down their
    executors and worker processes, then the join of the non-daemon threads --, then the
    :mod:`atexit` functions (multiprocessing's join of its children, joblib's and Dask's
    clean-up), then the standard streams flushed. The teardown of every module is skipped: it takes
    half a second after a numba or LLVM run, and Python handles no signal during it, so a SIGTERM
    then would end the process without a word about the results, which are written. Of that
    teardown only the stop of loky's resource tracker is kept (:func:`_stop_resource_tracker`),
    so that no process of this one outlives it."""
    import atexit
    import os
    import threading

    shutdown = getattr(threading, "_shutdown", None)
    if shutdown is not None and threading.current_thread() is threading.main_thread():
        shutdown()
    else:  # an interpreter without it: the non-daemon threads joined, as it would
        for thread in threading.enumerate():
            if thread not in (threading.main_thread(), threading.current_thread()) and not thread.daemon:
                thread.join()
    atexit._run_exitfuncs()
    _stop_resource_tracker()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except BrokenPipeError:  # the reader of stdout is gone (seqimp cite | head)
            status = status or 141
        except (OSError, ValueError, AttributeError):
            pass
    os._exit(status)


def _stop_resource_tracker():
    """Stop loky's resource tracker (joblib's worker processes: their semaphores and memory-mapped
    folders) as the module teardown would, by its own ``__del__`` (it closes the tracker's pipe and
    waits a moment for it to clean up and leave); nothing where loky was not imported."""
    module = sys.modules.get("joblib.externals.loky.backend.resource_tracker")
    tracker = getattr(module, "_resource_tracker", None)
    stop = getattr(type(tracker), "__del__", None)
    if stop is None:
        return
    try:
        stop(tracker)
    except Exception:  # noqa: BLE001 - the tracker then leaves once this process has ended
        pass


def _end_children():
    """Stop the worker processes this one started through :mod:`multiprocessing` (loky's, joblib's,
    Dask's): SIGTERM, and SIGKILL to those still there a second later. Called where the process
    ends at once (a signal as it exits), so that none of them is left running; it imports nothing
    (without multiprocessing imported there are none)."""
    import time

    multiprocessing = sys.modules.get("multiprocessing")
    if multiprocessing is None:
        return
    try:
        children = multiprocessing.active_children()
        for child in children:
            child.terminate()
        end = time.monotonic() + 1.0
        for child in children:
            child.join(max(0.0, end - time.monotonic()))
            if child.exitcode is None:
                child.kill()
                child.join(1.0)
    except Exception:  # noqa: BLE001 - ending anyway
        pass


def _out(args):
    """What the command writes: ``--out`` or ``--model-out`` (None for inspect, cite)."""
    return getattr(args, "out", None) or getattr(args, "model_out", None)


def _exit_handler(args, finished):
    """The handler of SIGTERM and SIGINT once the command is over: the interpreter's exit (modules'
    clean-up) takes a moment, and a signal then would end the process without a word. It says
    whether the results had been written (the command returned 0), stops the worker processes
    still running (:func:`_end_children`) and ends the process at once with 143 or 130, as a signal
    during the command does."""
    import os

    from ._output_folder import committed_note  # now: no import while the interpreter shuts down

    def handler(signum, frame):
        signame, status = ("SIGTERM", 143) if signum == signal.SIGTERM else ("SIGINT", 130)
        out = _out(args)
        where = (f"; the results had been written to {out} before it" if out and finished.get("status") == 0
                 else committed_note(out))
        with contextlib.suppress(Exception):  # the lines printed so far, before the process ends
            sys.stdout.flush()
            sys.stderr.flush()
        with contextlib.suppress(OSError):
            os.write(2, f"seqimp: {args.command} interrupted by {signame} as it exited{where}\n".encode(
                errors="backslashreplace"))
        _end_children()  # the exit functions that would have ended them do not run
        os._exit(status)

    return handler


#: Options that name an input file or folder: checked before a command imports the library, so a
#: mistyped path is reported at once (start-up).
#: Only the sequence inputs: a command checks its option combinations first (cheap), and a saved model
#: or POIM named in such a check need not exist.
_INPUT_OPTIONS = ("positive", "negative", "positive_bed", "negative_bed", "genome", "table", "background_fasta",
                  "fasta")


def _check_inputs(args) -> None:
    """SeqimpError ``--option PATH: no such file`` for the first input path that does not exist."""
    from pathlib import Path

    for dest in _INPUT_OPTIONS:
        if args.command == "inspect":
            break  # its FASTA files are positional; it imports little and reports them itself
        values = getattr(args, dest, None)
        for value in values if isinstance(values, list) else [values]:
            if isinstance(value, str) and not Path(value).exists():
                raise SeqimpError(f"--{dest.replace('_', '-')} {value}: no such file")


def _silence_stdout() -> None:
    """Point stdout at /dev/null, so that flushing it at exit does not raise again on a closed pipe."""
    import os

    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):  # stdout without a file descriptor (captured in tests)
        pass


class Terminated(BaseException):
    """SIGTERM (``timeout``, SLURM, ``docker stop``) while a command runs: unwinds like Ctrl-C,
    so staging folders and locks are removed on the way out."""


@contextlib.contextmanager
def _sigterm_raises(after=None):
    """Turn SIGTERM into :class:`Terminated` for the duration of a command (main thread only);
    ``after``: the handler of SIGTERM and SIGINT from then on (else the previous ones come back).

    Python drops an exception raised where it cannot propagate -- in a callback from C code (LLVM
    calls one as numba compiles), a ``__del__``, a weakref callback -- and reports it through
    :data:`sys.unraisablehook`. Inside, :class:`Terminated` or :exc:`KeyboardInterrupt` dropped
    there is not reported: its signal is sent again (:func:`_send_later`), so that its handler
    raises it anew in the code that runs then, and the command still ends."""
    def handler(signum, frame):
        raise Terminated()

    try:
        previous = signal.signal(signal.SIGTERM, handler)
    except ValueError:  # not the main thread: leave signals alone
        yield
        return
    hook = sys.unraisablehook
    sys.unraisablehook = _signal_again(hook)
    try:
        yield
    finally:
        sys.unraisablehook = hook
        if after is None:
            signal.signal(signal.SIGTERM, previous)
        else:
            signal.signal(signal.SIGTERM, after)
            signal.signal(signal.SIGINT, after)


def _signal_again(hook):
    """An :data:`sys.unraisablehook` that has SIGTERM (SIGINT) sent again for a dropped
    :class:`Terminated` (:exc:`KeyboardInterrupt`) and hands anything else to ``hook``."""
    def unraisable(info):
        if isinstance(info.exc_value, Terminated):
            _send_later(signal.SIGTERM, unraisable.__code__)
        elif isinstance(info.exc_value, KeyboardInterrupt):
            _send_later(signal.SIGINT, unraisable.__code__)
        else:
            hook(info)

    return unraisable


def _send_later(signum, code):
    """Send ``signum`` to this process from another thread once no frame of the main thread runs
    ``code`` (the hook that asks for it): sent from the hook itself, its handler would raise inside
    the hook, where the exception is dropped again."""
    import os
    import threading
    import time

    main = threading.main_thread().ident

    def inside() -> bool:
        frame = sys._current_frames().get(main)
        while frame is not None:
            if frame.f_code is code:
                return True
            frame = frame.f_back
        return False

    def send():
        while inside():
            time.sleep(0.001)
        with contextlib.suppress(OSError):
            os.kill(os.getpid(), signum)

    threading.Thread(target=send, name="seqimp-signal-again", daemon=True).start()


def _show_warning(message, category, filename, lineno, file=None, line=None):
    log(f"seqimp: warning: {message}", always=True)
