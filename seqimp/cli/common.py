"""Helpers shared by the subcommands: logging, output folders, argument types, shared options.

Subcommand modules import only this module and the library.
"""

from __future__ import annotations

import argparse
import contextlib
import errno
import json
import logging
import os
import shutil
import signal
import sys
from pathlib import Path

from ..errors import SeqimpError, check_int, check_number

__all__ = ["UserError", "configure", "log", "check_output_path", "output_dir", "positive_int", "fraction", "nonneg_int",
           "positive_float", "STATE", "manifest_path", "seed",
           "share"]

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
    return not STATE["quiet"]


def check_output_path(out, option="--out") -> Path:
    """``out`` as a Path; UserError if it is a file, its parent folder is missing, or it
    (or the parent that will hold it) is not writable.

    Subcommands call this before any work so a bad ``--out`` fails at once.
    """
    out = Path(out)
    if out.exists() and not out.is_dir():
        raise UserError(f"{option} {out}: exists and is not a directory")
    parent = out.resolve().parent
    if not out.exists() and not parent.is_dir():
        raise UserError(f"{option} {out}: parent folder {parent} does not exist")
    where = out if out.exists() else parent
    if not os.access(where, os.W_OK | os.X_OK):
        raise UserError(f"{option} {out}: {'folder' if where == out else f'parent folder {parent}'} is not writable")
    return out


LOCK_NAME = ".seqimp.lock"
STAGING_PREFIX = ".seqimp-staging-"


def manifest_path(out, command) -> Path:
    """``OUT/.seqimp-<command>.json``: the files the last successful ``command`` wrote into OUT."""
    return Path(out) / f".seqimp-{command}.json"


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's live process
        return True
    return True


def _take_lock(out: Path, lock: Path | None = None) -> Path:
    """Create ``lock`` (default ``OUT/.seqimp.lock``; O_EXCL) holding our pid; take over a lock whose
    process is gone."""
    lock = out / LOCK_NAME if lock is None else lock
    for _attempt in range(2):
        try:
            fd = os.open(lock, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
        except FileExistsError:
            try:
                pid = int(lock.read_text().strip() or "0")
            except (OSError, ValueError):
                pid = 0
            if pid > 0 and pid != os.getpid() and _pid_alive(pid) or pid == os.getpid():
                raise UserError(f"--out {out}: another seqimp run (pid {pid}) is writing into this folder; "
                                f"wait for it, or delete {lock} if that process is not seqimp") from None
            log(f"seqimp: taking over the stale lock {lock} of process {pid}, which no longer runs")
            lock.unlink(missing_ok=True)
            continue
        except PermissionError:
            raise UserError(f"--out {out}: folder is not writable") from None
        with os.fdopen(fd, "w") as fh:
            fh.write(f"{os.getpid()}\n")
        return lock
    raise UserError(f"--out {out}: cannot take the lock {lock}")


def _remove(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path)
    elif path.exists() or path.is_symlink():
        path.unlink()


def _read_manifest(path: Path) -> list:
    try:
        files = json.loads(path.read_text()).get("files", [])
    except (OSError, ValueError, AttributeError):
        return []
    return [f for f in files if isinstance(f, str) and f and "/" not in f and f not in (".", "..")]


def _commit(staging: Path, out: Path, command: str) -> None:
    """Replace ``command``'s previous outputs in ``out`` by the staged ones, as a whole."""
    new = sorted(item.name for item in staging.iterdir())
    for name in _read_manifest(manifest_path(out, command)):
        if name not in new:
            _remove(out / name)  # an old output this run did not make again (other order, format)
    for other in sorted(out.glob(".seqimp-*.json")):
        if other != manifest_path(out, command):  # a file now made by this command changes owner
            files = _read_manifest(other)
            if set(files) & set(new):
                _write_json(other, {"files": [f for f in files if f not in new]})
    for name in new:
        target = out / name
        if target.is_dir() and not target.is_symlink():
            shutil.rmtree(target)
        os.replace(staging / name, target)
    _write_json(manifest_path(out, command), {"command": command, "files": new})


def _write_json(path: Path, data) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
    os.replace(tmp, path)


def _user_paths(exc: BaseException, staging: Path, out: Path) -> BaseException:
    """``exc`` with the staging folder replaced by ``out`` in its message; ENOSPC names ``out``."""
    if isinstance(exc, OSError) and exc.errno == errno.ENOSPC:
        return UserError(f"--out {out}: no space left on device while writing the results; "
                         f"earlier results in {out} are unchanged")
    text = str(exc)
    if str(staging) in text:
        text = text.replace(str(staging), str(out))
        return UserError(text) if isinstance(exc, (OSError, SeqimpError)) else exc
    return exc


@contextlib.contextmanager
def store_lock(out):
    """Hold ``PARENT/.<name>.seqimp.lock`` beside the store folder ``out`` that a command writes
    as a whole (``seqimp encode``: it writes a temporary folder and renames it): a second run
    writing the same store is refused instead of silently replacing the first one's."""
    out = check_output_path(out)
    lock = _take_lock(out, out.parent / f".{out.name}{LOCK_NAME}")
    try:
        yield out
    finally:
        lock.unlink(missing_ok=True)


@contextlib.contextmanager
def output_dir(out, command="poim", *, finish=None):
    """Stage a command's results inside ``out`` and publish them on success.

    The rule (docs/pipeline.md, "Output folders and interruptions"): ``out`` is checked
    and locked (``OUT/.seqimp.lock``: a second run into it is refused), results are
    written into ``OUT/.seqimp-staging-<command>-<pid>/`` (the same file system, so
    mount points and ``--out .`` work), and only when the block succeeds the files the
    previous ``command`` run wrote (listed in ``OUT/.seqimp-<command>.json``) are replaced
    as a whole by the new ones; other commands' files stay. ``finish()`` runs after
    that, still under the lock. On an error or interruption the staging folder is
    removed and ``out`` is as before.
    """
    out = check_output_path(out)
    created = not out.exists()
    try:
        out.mkdir(exist_ok=True)
    except OSError as exc:
        raise UserError(f"--out {out}: cannot create the folder ({exc.strerror})") from None
    lock = None
    staging = out / f"{STAGING_PREFIX}{command}-{os.getpid()}"
    try:
        lock = _take_lock(out)
        for old in out.glob(STAGING_PREFIX + "*"):  # left by a killed run: we hold the lock now
            _remove(old)
        staging.mkdir()
        try:
            yield staging
        except (OSError, SeqimpError) as exc:
            converted = _user_paths(exc, staging, out)
            if converted is exc:
                raise
            raise converted from None
        with _signals_blocked():
            try:
                _commit(staging, out, command)
            except OSError as exc:
                raise _user_paths(exc, staging, out) from None
        if finish is not None:
            finish()
    finally:
        if staging.exists():
            shutil.rmtree(staging, ignore_errors=True)
        if lock is not None:
            lock.unlink(missing_ok=True)
        if created and out.is_dir() and not any(out.iterdir()):
            out.rmdir()  # a failed first run leaves no empty folder


@contextlib.contextmanager
def _signals_blocked():
    """Hold SIGINT/SIGTERM back while results are moved into place (they act right after)."""
    mask = getattr(signal, "pthread_sigmask", None)
    if mask is None:  # pragma: no cover - not POSIX
        yield
        return
    old = mask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM})
    try:
        yield
    finally:
        mask(signal.SIG_SETMASK, old)


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


def seed(text: str) -> int:
    """A random seed: an integer in [0, 2**63 - 1] (``seqimp.errors.check_random_state``)."""
    return _arg_type(text, int, check_int, minimum=0, maximum=2**63 - 1)


def share(text: str) -> float:
    """A share in [0, 1] (NaN and infinities refused)."""
    return _arg_type(text, float, check_number, low=0.0, high=1.0)


def fraction(text: str) -> float:
    """A share in [0, 1) (0 means: none) (``seqimp.errors.check_number``)."""
    return _arg_type(text, float, check_number, low=0.0, high=1.0, high_open=True)


def positive_float(text: str) -> float:
    """A finite number > 0 (``seqimp.errors.check_number``)."""
    return _arg_type(text, float, check_number, low=0.0, low_open=True)


# ----- options and helpers shared by several subcommands -----------------------------------------

__all__ += ["add_quiet", "add_db_option", "add_data_options", "add_model_options", "read_pair", "check_degree", "memory_size",
            "print_outcome", "print_motifs", "match_lines"]


_positive_float = positive_float  # the name cli.train used


def memory_size(text: str) -> int:
    """Bytes from '2G', '500MB', '1.5GiB' or a plain number of bytes (binary units, :mod:`seqimp._sizes`)."""
    from .._sizes import SIZE_HINT, parse_size

    try:
        return parse_size(text, "size")
    except SeqimpError:
        raise argparse.ArgumentTypeError(f"expected {SIZE_HINT}, got {text!r}") from None


def add_db_option(group, what="to match with TOMTOM (matches.tsv)") -> None:
    """``--db MOTIFS``: a motif file or a JASPAR release name (:func:`seqimp.motifs.load_database`)."""
    group.add_argument("--db", metavar="MOTIFS",
                       help=f"known motifs {what}: a MEME, JASPAR or TRANSFAC file, or a JASPAR release read "
                            "through pyjaspar (JASPAR2024 = CORE vertebrates; RELEASE:COLLECTION:TAX_GROUP, e.g. "
                            "JASPAR2022:CORE:plants; pip install 'seqimp[jaspar]'); an existing file of that "
                            "name wins")


def add_quiet(p) -> None:
    """``-q/--quiet`` and ``--debug`` after the subcommand too (the global options also work)."""
    p.add_argument("-q", "--quiet", action="store_true", default=argparse.SUPPRESS,
                   help="no progress or log lines on stderr")
    p.add_argument("--debug", action="store_true", default=argparse.SUPPRESS,
                   help="show full tracebacks on errors")


def add_dask_options(p, what) -> None:
    """``--dask-workers N`` / ``--dask-scheduler ADDRESS`` (one of them); ``what`` runs on the cluster."""
    d = p.add_argument_group("Dask (optional extra 'dask')").add_mutually_exclusive_group()
    d.add_argument("--dask-workers", type=positive_int, metavar="N",
                   help=f"start a local Dask cluster of N worker processes and {what} on it")
    d.add_argument("--dask-scheduler", metavar="ADDRESS", help=f"{what} on the Dask cluster at ADDRESS "
                                                               "(tcp://host:8786)")


@contextlib.contextmanager
def dask_client(args):
    """The Client of ``--dask-workers``/``--dask-scheduler`` (closed, with its local cluster, at the end), or None."""
    if args.dask_workers is None and args.dask_scheduler is None:
        yield None
        return
    from ..kernels import connect

    client = connect(args.dask_scheduler, n_workers=args.dask_workers)
    try:
        yield client
    finally:
        client.close()


def add_data_options(p, *, required=True) -> None:
    """``--positive``, ``--negative`` and ``--skip-invalid``."""
    p.add_argument("--positive", metavar="POS.fa", required=required, help="positive sequences (FASTA, plain or gzip)")
    p.add_argument("--negative", metavar="NEG.fa", required=required, help="negative sequences (FASTA)")
    p.add_argument("--skip-invalid", action="store_true",
                   help="drop records with symbols other than A, C, G, T (N, R, Y, ...) instead of failing")


def add_model_options(p) -> None:
    """The ``model`` group: ``--degree``, ``--shifts``, ``--C``, ``--test-fraction``, ``--seed``."""
    g = p.add_argument_group("model")
    g.add_argument("--degree", type=positive_int, default=8, help="largest k-mer length of the WD kernel (default 8)")
    g.add_argument("--shifts", type=nonneg_int, default=0, help="maximal shift S of the WDS kernel (default 0: WD)")
    g.add_argument("--C", type=_positive_float, default=1.0, help="regularisation constant (default 1)")
    g.add_argument("--test-fraction", type=fraction, default=0.2,
                   help="held-out share for accuracy and auROC (default 0.2; 0 trains on all sequences "
                        "and reports no held-out figures)")
    g.add_argument("--seed", type=seed, default=0,
                   help="random seed of every random choice: held-out split, solver order, sampling "
                        "(default 0, recorded in summary.json)")


def read_pair(args):
    """Read --positive and --negative (either may be absent) as SequenceSets."""
    from ..io._fasta import read_fasta

    on_invalid = "skip" if getattr(args, "skip_invalid", False) else "error"
    if args.positive and args.negative and Path(args.positive).is_file() and Path(args.negative).is_file() \
            and Path(args.positive).samefile(args.negative):
        raise UserError(f"--positive and --negative are the same file ({args.negative}); "
                        "a classifier needs two different classes")
    alphabet = getattr(args, "alphabet", "dna")
    pos = read_fasta(args.positive, alphabet, on_invalid=on_invalid) if args.positive else None
    neg = read_fasta(args.negative, alphabet, on_invalid=on_invalid) if args.negative else None
    if pos is not None and neg is not None and pos.length != neg.length:
        raise UserError(f"--positive {args.positive} has length {pos.length} but --negative {args.negative} "
                        f"has length {neg.length}; positional methods need one common length")
    return pos, neg


def check_degree(args, length) -> None:
    """UserError when ``--degree`` or ``--shifts`` does not fit sequences of ``length``."""
    if args.degree > length:
        raise UserError(f"--degree {args.degree} exceeds the sequence length {length}")
    if args.shifts >= length:
        raise UserError(f"--shifts {args.shifts} must be smaller than the sequence length {length}")


def print_outcome(run, out, *, note="") -> None:
    """Tell the user the metrics (stderr), the top oligomer and where the report is (stdout)."""
    metrics = run.summary.get("metrics", {})
    if metrics.get("auroc") is not None:
        acc = metrics.get("accuracy")
        log(("" if acc is None else f"accuracy {acc:.4f}, ") + f"auROC {metrics['auroc']:.4f}")
    if metrics.get("r2") is not None:
        log(f"held-out R^2 {metrics['r2']:.4f}, Spearman {metrics['spearman']:.4f}")
    rows = run.summary.get("top_per_order", [])
    if rows:
        print(f"top oligomer of each order by |FIRM| (1-based start){note}:")
        for row in rows:
            where = f"{row['position']} ({row['position_label']})" if "position_label" in row else row["position"]
            print(f"  k={row['order']}: {row['oligomer']:>{rows[-1]['order']}s} at {where}"
                  f"  FIRM {row['firm']:+.4g}  POIM {row['poim']:+.4g}")
    print(f"report: {out}/report.html")


def print_motifs(run, out) -> None:
    """The motifs of a :class:`seqimp.pipeline.MotifRun` (stdout): one line each, strongest first,
    each one's database verdict (:func:`match_lines`), and where ``motifs.tsv`` is."""
    for line in run.lines():
        print(line)
    if run.matches is not None and len(run.matches):
        for line in match_lines(run.matches, database=run.parameters.get("database")):
            print(line)
    print(f"motifs: {Path(out)}/motifs.tsv")


def match_lines(matches, consensus=None, database=None) -> list:
    """Lines for the terminal: ``known motifs: LABEL -- CREDIT`` when ``database`` (the
    ``database`` of ``motifs.json``) is given, then per query of ``matches``
    (:func:`seqimp.motifs.compare_motifs`) ``NAME: verdict`` (``NAME CONSENSUS:`` when
    ``consensus`` maps names to consensi) and, when the table has JASPAR classes
    (``target_class``), one indented line grouping its significant matches by class, the
    largest group first."""
    from ..motifs import best_matches, database_label, match_line

    lines = []
    if database:
        credit = database.get("attribution")
        lines.append(f"known motifs: {database_label(database)}" + (f" -- {credit}" if credit else ""))
    for query, row in best_matches(matches).items():
        name = f"{query} {consensus[query]}" if consensus and query in consensus else query
        lines.append(f"{name}: {match_line(row)}")
        if "target_class" not in matches:
            continue
        groups = {}
        mine = matches[(matches["query"] == query) & matches["significant"].astype(bool)]
        for target, factor, tf_class in zip(mine["target"], mine["target_description"], mine["target_class"]):
            groups.setdefault(tf_class or "no class given", []).append(factor or target)
        if groups:
            ranked = sorted(groups.items(), key=lambda item: -len(item[1]))
            lines.append("  its significant matches by JASPAR class: "
                         + "; ".join(f"{tf_class}: {', '.join(names)}" for tf_class, names in ranked))
    return lines

