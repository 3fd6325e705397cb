"""The lock of an output folder: one file that names the process writing into the folder.

A lock is taken atomically: its text (``PID START``, ``START`` being the process's start
time in clock ticks since boot, from ``/proc/PID/stat``) is written into a private file
first and then hard-linked to the lock's name, so no other process ever sees an empty or
half-written lock. A lock is stale -- and taken over, with a line on stderr -- when its
process no longer runs, when the process running under that pid started at another time
(the pid was reused: pid 1 in every new container, say), or when it names no possible
process (0, negative, beyond the kernel's ``pid_max``, not a number). Taking over renames
the stale lock away first, so of two runs that find the same stale lock one wins.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

from ._logging import UserError, log

__all__ = ["take_lock", "lock_text", "lock_owner", "PID_MAX"]


def _pid_max() -> int:
    try:
        return int(Path("/proc/sys/kernel/pid_max").read_text())
    except (OSError, ValueError):
        return 4_194_304  # Linux's largest pid_max


PID_MAX = _pid_max()

#: An unreadable lock younger than this may be one being written by a run that does not
#: write its locks atomically (an older seqimp); older ones are stale.
GRACE_SECONDS = 10.0


def _start_time(pid: int) -> str | None:
    """The start time of process ``pid`` (field 22 of ``/proc/PID/stat``), or None where unknown."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = text[text.rfind(")") + 2:].split()  # the command name may hold spaces and parentheses
    return fields[19] if len(fields) > 19 else None


def lock_text() -> str:
    """What this process writes into a lock: ``PID START`` (``START`` is ``?`` where unknown)."""
    return f"{os.getpid()} {_start_time(os.getpid()) or '?'}\n"


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's live process
        return True
    return True


def lock_owner(text: str, age: float) -> tuple:
    """``(pid, why_stale)`` of a lock's text: ``why_stale`` is None for a live owner, else the
    reason the lock is stale. ``age``: seconds since the lock was written."""
    parts = text.split()
    if not parts:
        return None, None if age < GRACE_SECONDS else "it is empty"
    try:
        pid = int(parts[0])
    except ValueError:
        return None, None if age < GRACE_SECONDS else f"it holds {parts[0][:20]!r}, not a process id"
    if not 1 <= pid <= PID_MAX:
        return pid, f"no process can have the id {str(pid)[:20]}"
    start = parts[1] if len(parts) > 1 and parts[1] != "?" else None
    if pid == 1 and start is None:
        return pid, "process 1 is the system's or a container's first process, never an earlier seqimp run"
    if not _alive(pid):
        return pid, "that process no longer runs"
    running = _start_time(pid)
    if start is not None and running is not None and running != start:
        return pid, "its process id now belongs to another process"
    return pid, None


def _create(lock: Path, text: str) -> bool:
    """Create ``lock`` holding ``text``, atomically; False if it exists."""
    tmp = lock.with_name(f"{lock.name}.{os.getpid()}.new")
    try:
        tmp.write_text(text)
        try:
            os.link(tmp, lock)
            return True
        except FileExistsError:
            return False
        except OSError:  # a file system without hard links: exclusive create, then write
            try:
                fd = os.open(lock, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
            except FileExistsError:
                return False
            with os.fdopen(fd, "w") as fh:
                fh.write(text)
            return True
    finally:
        tmp.unlink(missing_ok=True)


def _busy(out, pid, lock) -> UserError:
    who = f"pid {pid}" if pid is not None else "a process that is writing its lock"
    return UserError(f"--out {out}: another seqimp run ({who}) is writing into this folder; "
                     f"wait for it, or delete {lock} if that process is not seqimp")


def take_lock(out: Path, lock: Path | None = None) -> Path:
    """Take ``lock`` (default ``OUT/.seqimp.lock``) for ``out``; UserError if a live run holds it."""
    lock = out / ".seqimp.lock" if lock is None else lock
    text = lock_text()
    for _attempt in range(5):
        try:
            if _create(lock, text):
                return lock
        except PermissionError:
            raise UserError(f"--out {out}: folder is not writable") from None
        try:
            seen = lock.read_text(errors="replace")
            age = time.time() - lock.stat().st_mtime
        except FileNotFoundError:
            continue  # released meanwhile
        except OSError:
            seen, age = "", GRACE_SECONDS
        pid, stale = lock_owner(seen, age)
        if stale is None:
            raise _busy(out, pid, lock)
        grave = lock.with_name(f"{lock.name}.{os.getpid()}.stale")
        try:
            os.rename(lock, grave)
        except FileNotFoundError:
            continue  # another run took it over first
        if grave.read_text(errors="replace") != seen:  # we moved a lock another run has just taken
            try:
                os.link(grave, lock)
            except OSError:
                pass
            grave.unlink(missing_ok=True)
            raise _busy(out, None, lock)
        grave.unlink(missing_ok=True)
        shown = "" if pid is None else f" of process {str(pid)[:20]}"
        log(f"seqimp: taking over the stale lock {lock}{shown} ({stale})")
    raise UserError(f"--out {out}: cannot take the lock {lock}")
