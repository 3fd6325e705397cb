"""The output-folder transaction of the subcommands: a results folder is checked, locked,
written through a staging folder inside it and published as a whole (:func:`output_dir`);
a store written as one folder is locked beside it (:func:`store_lock`)."""

from __future__ import annotations

import contextlib
import errno
import json
import os
import shutil
import signal
from pathlib import Path

from ..errors import SeqimpError
from ._logging import UserError, log

__all__ = ["check_output_path", "manifest_path", "output_dir", "store_lock", "LOCK_NAME", "STAGING_PREFIX"]


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
