"""The output-folder transaction of the subcommands (docs/pipeline.md, "What each command owns").

:func:`output_dir` checks and locks a results folder, stages a command's files inside it and
publishes them as one set: the files the command's previous run wrote (its manifest,
``OUT/.seqimp-<command>.json``, file by file, ``logos/`` included) are replaced, a file no
seqimp command wrote is never deleted or replaced (the run is refused instead), an input of
the run is never an output, and the shared files another command owns (``summary.json`` and
``report.html`` of a ``seqimp poim`` folder that ``seqimp motifs`` adds its motifs to) are
rewritten in the same set. Every file replaced is moved aside first; on any failure, signal
or full disk the moves are undone, so the folder holds the earlier result exactly.
"""

from __future__ import annotations

import contextlib
import errno
import filecmp
import json
import os
import shutil
import signal
import time
from pathlib import Path

from ..errors import SeqimpError
from ..report._record import MOTIF_FILES  # the files of one set of motifs: one run's set replaces another's
from ._lock import GRACE_SECONDS, take_lock
from ._logging import UserError, log

__all__ = ["check_output_path", "manifest_path", "owned_files", "output_dir", "input_paths", "committed_note",
           "LOCK_NAME", "STAGING_PREFIX", "MOTIF_FILES"]

LOCK_NAME = ".seqimp.lock"
STAGING_PREFIX = ".seqimp-staging-"

#: Folders whose outputs are committed; the interruption message of :func:`seqimp.cli.main` reads it.
_COMMITTED: set = set()


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


def manifest_path(out, command) -> Path:
    """``OUT/.seqimp-<command>.json``: the files the last successful ``command`` wrote into OUT."""
    return Path(out) / f".seqimp-{command}.json"


def _read_manifest(path: Path) -> list:
    """The relative paths a manifest lists (``a.tsv``, ``logos/M1_logo.png``); none that leave the folder."""
    try:
        files = json.loads(path.read_text()).get("files", [])
    except (OSError, ValueError, AttributeError):
        return []
    return [f for f in files if isinstance(f, str) and f and not f.startswith("/")
            and all(part not in ("", ".", "..") for part in f.split("/"))]


def owned_files(out, command) -> list:
    """The files of ``OUT`` that the last successful ``command`` run wrote (its manifest)."""
    return _read_manifest(manifest_path(out, command))


def input_paths(args) -> list:
    """Every existing file named by an option of ``args`` (``--out`` aside): the run's inputs,
    which it never replaces or removes. ``FILE:NAME`` values (``--scorer``) count by their file."""
    found = []
    for key, value in vars(args).items():
        if key in ("out", "func"):
            continue
        for item in value if isinstance(value, (list, tuple)) else [value]:
            if not isinstance(item, (str, os.PathLike)):
                continue
            for candidate in {os.fspath(item), os.fspath(item).rsplit(":", 1)[0]}:
                if candidate and os.path.isfile(candidate):
                    found.append(Path(candidate))
    return found


def committed_note(out) -> str:
    """What an interruption message says about ``out``: nothing written, or written before it."""
    if out is not None and Path(out).resolve() in _COMMITTED:
        return f"; the results had been written to {out} before it"
    return f"; nothing written, earlier results in {out} unchanged" if out else ""


def _remove(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path)
    elif path.exists() or path.is_symlink():
        path.unlink()


def _files(folder: Path) -> list:
    """Relative posix paths of the files under ``folder``, sorted."""
    return sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*") if not p.is_dir() or p.is_symlink())


def _in_group(name: str, group) -> bool:
    return any(name == g or (g.endswith("/") and name.startswith(g)) for g in group)


def _same_file(path: Path, inputs) -> bool:
    try:
        return any(os.path.samefile(path, i) for i in inputs)
    except OSError:
        return False


def _exists(path: Path) -> bool:
    return path.exists() or path.is_symlink()


JOURNAL_PREFIX = ".seqimp-journal-"


class _Transaction:
    """Moves of one commit, undone in reverse order on failure (see the module docstring).

    Each move is appended to a journal (``OUT/.seqimp-journal-<command>-<pid>``, paths
    relative to OUT) before it is made, so that the moves of a process killed mid-commit
    (``kill -9``) are undone by the next run into OUT (:func:`_recover`)."""

    def __init__(self, out: Path, aside: Path, journal: Path):
        self.out, self.aside, self.done, self.made = out, aside, [], []
        self.journal = open(journal, "w", encoding="utf-8")

    def _mkdirs(self, folder: Path) -> None:
        missing = []
        while not folder.exists():
            missing.append(folder)
            folder = folder.parent
        for d in reversed(missing):
            d.mkdir()
            self.made.append(d)

    def move(self, src: Path, dst: Path) -> None:
        self._mkdirs(dst.parent)
        self.journal.write(f"{src.relative_to(self.out).as_posix()}\t{dst.relative_to(self.out).as_posix()}\n")
        self.journal.flush()
        os.replace(src, dst)
        self.done.append((src, dst))

    def put(self, source: Path, name: str) -> None:
        """``source`` becomes ``OUT/name``; what was there is moved aside."""
        target = self.out / name
        if _exists(target):
            self.move(target, self.aside / name)
        self.move(source, target)

    def drop(self, name: str) -> None:
        self.move(self.out / name, self.aside / name)

    def undo(self) -> None:
        for src, dst in reversed(self.done):
            with contextlib.suppress(OSError):
                os.replace(dst, src)
        for d in reversed(self.made):
            with contextlib.suppress(OSError):
                d.rmdir()
        self.close()

    def close(self) -> None:
        self.journal.close()
        Path(self.journal.name).unlink(missing_ok=True)

    def tidy(self, names) -> None:
        """After success: what was moved aside is gone, folders emptied by removals too."""
        self.close()
        shutil.rmtree(self.aside, ignore_errors=True)
        for name in names:
            parent = (self.out / name).parent
            while parent != self.out and parent.is_dir() and not any(parent.iterdir()):
                parent.rmdir()
                parent = parent.parent


def _recover(out: Path) -> None:
    """Undo the journalled moves of commits that a killed process left half-done (newest last
    made, first undone): a move happened when its destination exists and its source does not."""
    for journal in sorted(out.glob(JOURNAL_PREFIX + "*")):
        try:
            moves = [line.split("\t") for line in journal.read_text(encoding="utf-8").splitlines()]
        except OSError:
            continue
        for src, dst in reversed([m for m in moves if len(m) == 2]):
            src, dst = out / src, out / dst
            if _exists(dst) and not _exists(src):
                src.parent.mkdir(parents=True, exist_ok=True)
                os.replace(dst, src)
                parent = dst.parent
                while parent != out and parent.is_dir() and not any(parent.iterdir()):
                    parent.rmdir()
                    parent = parent.parent
        journal.unlink()
        log(f"seqimp: {out}: undid a commit that an interrupted run had left half-done; the earlier results "
            "are back")


def _owners(out: Path, command: str, adopt=()) -> dict:
    """``{command: [files]}`` of every manifest in ``out`` (this command's included, with ``adopt``)."""
    owners = {command: sorted(set(owned_files(out, command)) | set(adopt))}
    for path in sorted(out.glob(".seqimp-*.json")):
        name = path.name[len(".seqimp-"):-len(".json")]
        owners.setdefault(name, _read_manifest(path))
    return owners


def _foreign(out: Path, name: str, why: str) -> UserError:
    return UserError(f"--out {out}: {name} {why}; move it away or choose another --out "
                     f"(nothing written, the folder is unchanged)")


def _check_no_link_out(out: Path, names, verb="writes") -> None:
    """UserError when a folder on the way to one of ``names`` (paths relative to ``out``) is a
    symbolic link that leads out of ``out`` (``OUT/logos`` -> elsewhere): a run writes, replaces
    and removes files inside its folder only. A link inside the folder, or ``out`` itself a link,
    is fine; a file that is a link is replaced as a link, never written through."""
    root, seen = out.resolve(), set()
    for name in names:
        folder = out
        for part in Path(name).parts[:-1]:
            folder = folder / part
            if folder in seen:
                continue
            seen.add(folder)
            if folder.is_symlink() and not folder.resolve().is_relative_to(root):
                raise _foreign(out, folder.relative_to(out).as_posix(),
                               f"is a symbolic link to {folder.resolve()}, outside the folder, where this run "
                               f"{verb} {name}")


def _commit(staging: Path, out: Path, command: str, *, inputs=(), group=(), finish=None, adopt=()) -> None:
    """Publish the staged files of ``command`` in ``out`` as one set (see the module docstring)."""
    new = _files(staging)
    _check_no_link_out(out, new)
    owners = _owners(out, command, adopt)
    ours = set(owners[command])
    seqimp_files = {f for files in owners.values() for f in files}
    for entry in list(seqimp_files):  # a folder listed whole (older seqimp): its files may be replaced,
        if (out / entry).is_dir():     # but none is removed (a user's file may have joined them)
            seqimp_files.update(f"{entry}/{f}" for f in _files(out / entry))
    for name in new:
        target = out / name
        for parent in list(Path(name).parents)[:-1]:
            if _exists(out / parent) and not (out / parent).is_dir():
                raise _foreign(out, parent.as_posix(), "is a file where this run writes a folder")
        if target.is_dir() and not target.is_symlink():
            raise _foreign(out, name, "is a folder where this run writes a file")
        if _same_file(target, inputs):
            if filecmp.cmp(staging / name, target, shallow=False):  # the run wrote its input again: keep it
                (staging / name).unlink()
                continue
            raise UserError(f"--out {out}: {name} is an input of this run and would be replaced by its output; "
                            "choose another --out (nothing written)")
        if _exists(target) and name not in seqimp_files:
            raise _foreign(out, name, "was not written by seqimp")
        other = next((cmd for cmd, files in owners.items() if cmd != command and name in files), None)
        if _exists(target) and name not in ours and other is not None and not _in_group(name, group):
            raise _foreign(out, name, f"belongs to an earlier 'seqimp {other}' run")  # motif files change owner
    unchanged = [n for n in new if not _exists(staging / n)]  # inputs written again, byte for byte
    new = [n for n in new if n not in unchanged]
    writes_group = group and any(_in_group(n, group) for n in new)
    superseded = {f for cmd, files in owners.items() if cmd != command for f in files
                  if writes_group and _in_group(f, group)}
    stale = sorted(f for f in (ours | superseded) - set(new)
                   if _exists(out / f) and not (out / f).is_dir() and not _same_file(out / f, inputs))
    _check_no_link_out(out, stale, "removes")
    kept = sorted(f for f in ours - set(new) - set(stale) if _exists(out / f) and (out / f).is_file())
    aside = staging.with_name(staging.name + "-old")
    shared = staging.with_name(staging.name + "-shared")
    txn = _Transaction(out, aside, out / f"{JOURNAL_PREFIX}{staging.name[len(STAGING_PREFIX):]}")
    try:
        for name in stale:
            txn.drop(name)
        for name in new:
            txn.put(staging / name, name)
        manifests = {command: sorted(set(new) | set(kept) | set(unchanged))}
        for cmd, files in owners.items():
            if cmd != command and (set(files) & set(new) or set(files) & set(stale)):
                manifests[cmd] = [f for f in files if f not in new and f not in stale]
        if finish is not None:  # files another command owns, rewritten in the same set (owners unchanged)
            shared.mkdir()
            finish(shared)
            for name in _files(shared):
                if name not in seqimp_files:
                    raise _foreign(out, name, "was not written by seqimp")
                _check_no_link_out(out, [name])
                txn.put(shared / name, name)
        for cmd, files in sorted(manifests.items()):
            tmp = staging.with_name(f"{staging.name}-{cmd}.json")
            data = {"files": files} if cmd != command else {"command": command, "files": files}
            tmp.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
            txn.put(tmp, manifest_path(out, cmd).name)
    except BaseException:
        txn.undo()
        raise
    finally:
        shutil.rmtree(shared, ignore_errors=True)
    txn.tidy(stale)


def _user_paths(exc: BaseException, staging: Path, out: Path) -> BaseException:
    """``exc`` with the staging folder replaced by ``out`` in its message; ENOSPC names ``out``."""
    if isinstance(exc, OSError) and exc.errno in (errno.ENOSPC, errno.EDQUOT):
        return UserError(f"--out {out}: no space left on device while writing the results; "
                         f"earlier results in {out} are unchanged")
    text = str(exc)
    if str(staging) in text:
        text = text.replace(str(staging), str(out))
        return UserError(text) if isinstance(exc, (OSError, SeqimpError)) else exc
    return exc


@contextlib.contextmanager
def output_dir(out, command="poim", *, finish=None, inputs=(), group=MOTIF_FILES, adopt=()):
    """Stage a command's results inside ``out`` and publish them on success.

    The rule (docs/pipeline.md, "What each command owns"): ``out`` is checked and locked
    (``OUT/.seqimp.lock``: a second run into it is refused), results are written into
    ``OUT/.seqimp-staging-<command>-<pid>/`` (the same file system, so mount points and
    ``--out .`` work), and when the block succeeds they are published as one set: the files
    the previous ``command`` run wrote (``OUT/.seqimp-<command>.json``) are replaced, those it
    does not write again removed, other commands' files stay, files no seqimp command wrote are
    never replaced (the run is refused) and ``inputs`` (paths) are never replaced or removed.
    ``group``: files of which one run's set replaces another's whoever wrote them
    (:data:`MOTIF_FILES`). ``finish(folder)``, called after the files are in place, may write
    new versions of files other seqimp commands own into ``folder``; they are published in the
    same set. ``adopt``: files in ``out`` to treat as this command's own (an earlier result
    written without a manifest, e.g. a codes store of the library). On an error, signal or
    full disk, ``out`` is as before.
    """
    out = check_output_path(out)
    created = not out.exists()
    try:
        out.mkdir(exist_ok=True)
    except OSError as exc:
        raise UserError(f"--out {out}: cannot create the folder ({exc.strerror})") from None
    lock = None
    staging = out / f"{STAGING_PREFIX}{command}-{os.getpid()}"
    _COMMITTED.discard(out.resolve())
    try:
        lock = take_lock(out)
        _recover(out)  # a commit a killed run left half-done: undone first (its files are in staging)
        for left in list(out.glob(LOCK_NAME + ".*.new")) + list(out.glob(LOCK_NAME + ".*.stale")):
            with contextlib.suppress(OSError):  # a lock being written or taken over when its process was killed
                if time.time() - left.stat().st_mtime > GRACE_SECONDS:
                    left.unlink()
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
                _commit(staging, out, command, inputs=inputs, group=group, finish=finish, adopt=adopt)
            except (OSError, SeqimpError) as exc:
                converted = _user_paths(exc, staging, out)
                if converted is exc:
                    raise
                raise converted from None
            _COMMITTED.add(out.resolve())
    finally:
        for leftover in out.glob(f"{STAGING_PREFIX}{command}-{os.getpid()}*"):
            _remove(leftover)
        if lock is not None:
            lock.unlink(missing_ok=True)
        if created and out.is_dir() and not any(out.iterdir()):
            out.rmdir()  # a failed first run leaves no empty folder


@contextlib.contextmanager
def _signals_blocked():
    """Hold SIGINT/SIGTERM back while results are moved into place; one that arrives meanwhile
    acts right after. Python handlers are swapped for one that only records the signal: masking
    the main thread alone would not do, as the kernel hands a process signal to any thread that
    does not block it (numba's, OpenBLAS's), and Python then runs its handler in the main thread."""
    pending = []
    try:
        previous = {sig: signal.signal(sig, lambda signum, _frame: pending.append(signum))
                    for sig in (signal.SIGINT, signal.SIGTERM)}
    except ValueError:  # not the main thread: Python runs no handler here
        yield
        return
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        if pending:
            signal.raise_signal(pending[0])  # now, under the command's own handler
