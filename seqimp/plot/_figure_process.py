"""Figures drawn by a second process while this one works: :class:`FigureProcess`, :func:`draw_figures`.

A motif run's figures (logos, site positions, match logos) took matplotlib's import (about
0.6 s: pyplot, fonts, PIL) and the drawing (about 0.4 s) of this process's time, on one core.
Where the machine has a second core, a command line run starts a process that imports
matplotlib while this one imports and trains, and draws the figures it is sent
(:func:`draw_figures`) while this one writes its tables. The figures are the same bytes as
drawn here: the same functions, the same matplotlib, the Agg backend, fixed metadata
(:func:`~seqimp.plot._save.save_figure`).

A batch sent is a list of :class:`FigureJob`: a path, the function that draws (``"module:name"``
inside the ``seqimp`` package; it returns the Axes, or an array of Axes of one figure) and its
arguments, pickled through the process's standard input; its answer (one error line per job,
None where it was drawn) comes back on its standard output. A job the process could not draw
(it died, or the function raised) is drawn here, so an error is raised here as without the
process. Without an active process (the library, a notebook, one core,
``SEQIMP_FIGURE_PROCESS=0``) :func:`draw_figures` draws here at once.

Figures may be sent ahead (``draw_figures(jobs, ahead=True)``): a motif run sends the figures of
its first round before the next round's search, which mostly finds nothing new. They are drawn
into a scratch folder; a figure sent at the end whose drawing is the same (the same function,
arguments, resolution and format, compared as pickled bytes) is copied from there instead of drawn
again. Ahead of time nothing is drawn without a process.
"""

from __future__ import annotations

import collections
import importlib
import logging
import os
import pickle
import shutil
import struct
import subprocess
import sys
import tempfile
from typing import NamedTuple

from .._utils.processes import reap

__all__ = ["FigureJob", "FigureProcess", "draw_figures", "figure_process", "draw_job", "active_process"]

logger = logging.getLogger(__name__)

#: Environment variable: ``0`` keeps every figure in this process.
ENV = "SEQIMP_FIGURE_PROCESS"
_ACTIVE: list = []
_HEADER = struct.Struct("<Q")


class FigureJob(NamedTuple):
    """One figure: ``function`` (``"module:name"`` in the seqimp package) called with ``args``
    and ``kwargs`` draws it; it is saved to ``path`` at ``dpi`` (:func:`~seqimp.plot._save.save_figure`)."""

    path: str
    function: str
    args: tuple = ()
    kwargs: dict = {}
    dpi: int = 130


def _resolve(function):
    module, _, name = function.partition(":")
    if not (module == "seqimp" or module.startswith("seqimp.")) or not name:
        raise ValueError(f"figure function {function!r}: expected 'seqimp.<module>:<name>'")
    return getattr(importlib.import_module(module), name)


def draw_job(job: FigureJob) -> None:
    """Draw ``job`` in this process and save it; its figure is closed."""
    import matplotlib.pyplot as plt

    from ._save import save_figure

    ax = _resolve(job.function)(*job.args, **job.kwargs)
    figure = ax.figure if hasattr(ax, "figure") else ax[0].figure
    try:
        save_figure(figure, job.path, dpi=job.dpi)
    finally:
        plt.close(figure)


def _write(stream, data: bytes) -> None:
    """``data`` (pickled) on ``stream``, after its length."""
    stream.write(_HEADER.pack(len(data)))
    stream.write(data)
    stream.flush()


def _send(stream, obj) -> None:
    _write(stream, pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL))


def _receive(stream):
    """The next object on ``stream``, or None at its end."""
    head = stream.read(_HEADER.size)
    if len(head) < _HEADER.size:
        return None
    size = _HEADER.unpack(head)[0]
    data = stream.read(size)
    if len(data) < size:
        return None
    return pickle.loads(data)


def _key(job) -> bytes | None:
    """What decides a figure's bytes: its function, arguments, resolution and format (pickled);
    None where the arguments cannot be pickled (such a job is never copied)."""
    suffix = os.path.splitext(job.path)[1].lower()
    try:
        return pickle.dumps((job.function, job.args, job.kwargs, job.dpi, suffix), protocol=pickle.HIGHEST_PROTOCOL)
    except (pickle.PicklingError, TypeError, AttributeError):
        return None


class _Batch:
    """Jobs sent together; ``errors`` (one per job) once the process answered."""

    def __init__(self, jobs):
        self.jobs, self.errors = jobs, None


class Pending:
    """Figures sent to a process: :meth:`wait` for them (drawing here what it could not)."""

    def __init__(self, jobs, process=None, batch=None, copies=()):
        self.jobs, self._process, self._batch, self._copies = list(jobs), process, batch, list(copies)
        self._done = process is None

    def wait(self) -> None:
        if self._done:
            return
        self._done = True
        if self._batch is not None:
            self._process.answer(self._batch)
            for job, error in zip(self._batch.jobs, self._batch.errors):
                if error is not None:
                    logger.debug(f"figure {job.path}: the figure process could not draw it ({error}); drawn here")
                    draw_job(job)
        for job, (drawn, batch, at) in self._copies:  # drawn ahead: copied, or drawn here where that failed
            self._process.answer(batch)
            if batch.errors[at] is None and os.path.isfile(drawn.path):
                shutil.copyfile(drawn.path, job.path)
            else:
                draw_job(job)


class FigureProcess:
    """A second process that draws figures (a context manager; :func:`figure_process`)."""

    def __init__(self, start: bool = True):
        self.process, self._errors, self._scratch = None, None, None
        self._sent = collections.deque()  # batches whose answers were not read yet, in order
        self._ahead = {}                  # key -> (job drawn ahead, its batch, its place in the batch)
        if start:
            self._errors = tempfile.TemporaryFile()  # its messages: a pipe nobody reads could fill and stall it
            env = dict(os.environ, MPLBACKEND="Agg")
            try:
                self.process = subprocess.Popen([sys.executable, "-m", "seqimp.plot._figure_worker"],
                                                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._errors,
                                                env=env)
            except OSError as exc:  # no process: every figure is drawn here
                logger.debug(f"no figure process ({exc})")
                self.process = None

    @property
    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def _send_batch(self, jobs) -> _Batch | None:
        """``jobs`` sent as one batch, or None where they cannot be pickled (to be drawn here) or
        the process is gone (it is then ended)."""
        try:
            data = pickle.dumps(jobs, protocol=pickle.HIGHEST_PROTOCOL)
        except (pickle.PicklingError, TypeError, AttributeError) as exc:
            logger.debug(f"figures not sent to the figure process ({exc})")
            return None
        try:
            _write(self.process.stdin, data)
        except (OSError, ValueError) as exc:
            logger.debug(f"figures not sent to the figure process ({exc})")
            self._stop()
            return None
        batch = _Batch(jobs)
        self._sent.append(batch)
        return batch

    def ahead(self, jobs) -> None:
        """Send ``jobs`` to be drawn into the scratch folder, for :meth:`submit` to copy."""
        if not self.alive:
            return
        if self._scratch is None:
            self._scratch = tempfile.mkdtemp(prefix="seqimp-figures-")
        keys, drawn = [], []
        for job in jobs:
            key = _key(job)
            if key is None or key in self._ahead or key in keys:
                continue
            keys.append(key)
            name = f"{len(self._ahead) + len(drawn)}{os.path.splitext(job.path)[1]}"
            drawn.append(job._replace(path=os.path.join(self._scratch, name)))
        batch = self._send_batch(drawn) if drawn else None
        if batch is not None:
            self._ahead.update((key, (job, batch, at)) for at, (key, job) in enumerate(zip(keys, drawn)))

    def submit(self, jobs) -> Pending:
        """Send ``jobs`` (those drawn ahead are copied at :meth:`Pending.wait`; all drawn here at
        once when the process is gone)."""
        jobs = list(jobs)
        if not jobs:
            return Pending([])
        if self.alive:
            keys = [_key(job) for job in jobs]
            copies = [(job, self._ahead[key]) for job, key in zip(jobs, keys) if key in self._ahead]
            rest = [job for job, key in zip(jobs, keys) if key not in self._ahead]
            batch = self._send_batch(rest) if rest else None
            if rest and batch is None:
                for job in rest:
                    draw_job(job)
            return Pending(jobs, self, batch, copies)
        for job in jobs:
            draw_job(job)
        return Pending([])

    def answer(self, batch) -> None:
        """Read the process's answers up to ``batch``'s (every job an error where it is gone)."""
        while batch.errors is None:
            first = self._sent.popleft() if self._sent else batch
            errors = None
            if self.process is not None and not self.process.stdout.closed:
                try:
                    errors = _receive(self.process.stdout)
                except (OSError, ValueError, pickle.UnpicklingError, EOFError) as exc:
                    logger.debug(f"no answer from the figure process ({exc})")
            if not isinstance(errors, list) or len(errors) != len(first.jobs):
                self._stop()
                for left in [first, *self._sent, batch]:
                    if left.errors is None:
                        left.errors = ["the figure process ended"] * len(left.jobs)
                self._sent.clear()
                return
            first.errors = errors

    def _stop(self) -> None:
        if self.process is None:
            return
        for stream in (self.process.stdin, self.process.stdout):
            try:
                stream.close()
            except OSError:
                pass
        reap(self.process)

    def close(self) -> None:
        """End the process (its standard input closed: it leaves its loop), reap it and remove
        the scratch folder."""
        self._stop()
        if self._errors is not None:
            self._errors.close()
            self._errors = None
        if self._scratch is not None:
            shutil.rmtree(self._scratch, ignore_errors=True)
            self._scratch = None

    def __enter__(self):
        _ACTIVE.append(self)
        return self

    def __exit__(self, *exc):
        if self in _ACTIVE:
            _ACTIVE.remove(self)
        self.close()
        return False


def figure_process(needed: bool = True) -> FigureProcess:
    """A :class:`FigureProcess` for a command line run: started when ``needed``, the machine
    gives this process two or more cores (:func:`seqimp._utils.cores.available_cores`) and
    ``SEQIMP_FIGURE_PROCESS`` is not ``0``; else one that starts nothing (the figures are drawn
    here). Use as a context manager around the run."""
    from .._utils.cores import available_cores

    start = bool(needed) and os.environ.get(ENV, "1") != "0" and available_cores() >= 2
    return FigureProcess(start)


def active_process() -> FigureProcess | None:
    """The innermost running :class:`FigureProcess`, or None."""
    for process in reversed(_ACTIVE):
        if process.alive:
            return process
    return None


def draw_figures(jobs, *, ahead=False) -> Pending:
    """Draw ``jobs`` (:class:`FigureJob`): sent to the active :class:`FigureProcess` when one runs
    (call :meth:`Pending.wait` before the files are read), else drawn here at once. ``ahead``:
    only sent to be drawn into the process's scratch folder (module docstring); nothing is
    drawn without a process."""
    process = active_process()
    if ahead:
        if process is not None:
            process.ahead(jobs)
        return Pending([])
    if process is not None:
        return process.submit(jobs)
    for job in jobs:
        draw_job(job)
    return Pending([])
