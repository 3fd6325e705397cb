"""The one progress channel: a tqdm bar for every long loop, and log lines that do not cut through it.

Library functions take ``progress=None/True/False`` and pass it to :func:`progress_bar` as
``enabled``. ``None`` (the default of the front doors: ``seqimp.poim``, the pipeline's
``OutputOptions``, ...) means: a bar for work that lasts longer than :data:`AUTO_DELAY` seconds,
unless the ``"seqimp"`` logger's level is set above INFO (``logging.getLogger("seqimp")
.setLevel(logging.WARNING)`` silences every bar). ``True`` shows the bar at once, ``False`` never.
The command line turns bars off with ``--quiet`` and when stderr is not a terminal.

Bars come from ``tqdm.auto``: a widget in Jupyter (text when ipywidgets is missing), text on a
terminal, refreshed at most once a second. On a stream that is not a terminal (a log file, a
pipe, a captured stderr) a bar is whole lines instead: one every :data:`LINE_INTERVAL` seconds
while it runs and one at the end (``poim levels: 12/12 in 1.3 s``), so logs hold no carriage
returns. :func:`write_line` writes a log line through tqdm's lock, so a line never lands inside a
bar (the command line's log handler uses it).
"""

from __future__ import annotations

import logging
import sys

__all__ = ["progress_bar", "progress_default", "write_line", "AUTO_DELAY", "LINE_INTERVAL"]

#: Seconds a loop runs before its bar appears when ``progress=None``.
AUTO_DELAY = 2.0
#: Seconds between the lines of a bar on a stream that is not a terminal.
LINE_INTERVAL = 60.0


def progress_default() -> bool:
    """Whether ``progress=None`` shows bars: unless the ``seqimp`` logger's own level is above INFO."""
    level = logging.getLogger("seqimp").level
    return level == logging.NOTSET or level <= logging.INFO


def progress_bar(total, desc, *, enabled=True, file=None):
    """A tqdm bar counting ``total`` steps of ``desc`` on ``file`` (default stderr).

    Use it as a context manager and call ``bar.update(n)``. ``enabled``: True shows the bar,
    False writes nothing and costs nothing per update, None decides by :func:`progress_default`
    and shows the bar only once the loop has run :data:`AUTO_DELAY` seconds.

    Examples
    --------
    >>> with progress_bar(100, "sampling", enabled=False) as bar:
    ...     for _ in range(100):
    ...         bar.update()
    """
    tqdm = _bar_class()
    delay = AUTO_DELAY if enabled is None else 0.0
    show = progress_default() if enabled is None else bool(enabled)
    stream = sys.stderr if file is None else file
    total = max(int(total), 0)
    if show and not _interactive(stream):
        return _LineBar(total, desc, stream, delay)
    return tqdm(total=total, desc=desc, file=stream, disable=not show, mininterval=1.0, dynamic_ncols=True,
                delay=delay)


def _bar_class():
    """``tqdm.auto``'s bar: a widget in Jupyter, text elsewhere and in Jupyter without ipywidgets
    (whose warning about that is not repeated in every notebook: docs/tutorial.ipynb says it)."""
    import warnings

    from tqdm import TqdmWarning

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", TqdmWarning)
        from tqdm.auto import tqdm
    return tqdm


def _interactive(stream) -> bool:
    """Whether ``stream`` shows a redrawn bar: a terminal, or Jupyter (whose stderr is not a file)."""
    if bool(getattr(stream, "isatty", lambda: False)()):
        return True
    return "ipykernel" in sys.modules and type(stream).__module__.startswith("ipykernel")


class _LineBar:
    """A bar as whole lines, for logs: ``desc: n/total (p%), t s`` every :data:`LINE_INTERVAL`
    seconds and ``desc: n/total in t s`` at the end (none when the loop ended before ``delay``)."""

    def __init__(self, total, desc, stream, delay):
        import time

        self._clock = time.perf_counter
        self.total, self.desc, self.n, self._stream, self._delay = total, desc, 0, stream, delay
        self._start = self._last = self._clock()

    def update(self, n=1) -> None:
        self.n += n
        now = self._clock()
        if now - self._last >= LINE_INTERVAL and now - self._start >= self._delay:
            self._last = now
            share = f" ({100 * self.n / self.total:.0f}%)" if self.total else ""
            self._line(f"{self.desc}: {self.n}/{self.total}{share}, {now - self._start:.0f} s")

    def close(self) -> None:
        elapsed = self._clock() - self._start
        if elapsed >= self._delay and self._stream is not None:
            self._line(f"{self.desc}: {self.n}/{self.total} in {elapsed:.1f} s")
        self._stream = None

    def _line(self, text) -> None:
        if self._stream is not None:
            self._stream.write(text + "\n")
            self._stream.flush()

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def write_line(text: str, file=None) -> None:
    """Write one line on ``file`` (default stderr) through tqdm's lock: a bar on that stream is
    cleared first and drawn again below the line, so lines and bars never interleave."""
    from tqdm import tqdm

    tqdm.write(text, file=sys.stderr if file is None else file)
