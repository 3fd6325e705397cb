"""Progress reporting on stderr for long computations.

Library functions take ``progress=True/False``; the command line turns it off
with ``--quiet``. Output is a periodic one-line report, safe in logs (no
carriage-return animation when stderr is not a terminal).
"""

from __future__ import annotations

import sys
import time

__all__ = ["Progress"]


class Progress:
    """Report ``done/total`` of a task at most every ``interval`` seconds.

    Examples
    --------
    >>> with Progress(100, "sampling", enabled=False) as bar:
    ...     for _ in range(100):
    ...         bar.update()
    """

    def __init__(self, total, desc="working", *, enabled=True, interval=1.0, stream=None):
        self.total = max(int(total), 1)
        self.desc = desc
        self.enabled = bool(enabled)
        self.interval = interval
        self.stream = stream if stream is not None else sys.stderr
        self.done = 0
        self._start = time.perf_counter()
        self._last = -float("inf")
        self._tty = hasattr(self.stream, "isatty") and self.stream.isatty()

    def update(self, n=1) -> None:
        self.done += n
        now = time.perf_counter()
        if self.enabled and (now - self._last >= self.interval or self.done >= self.total):
            self._last = now
            self._emit(now)

    def _emit(self, now) -> None:
        frac = min(self.done / self.total, 1.0)
        elapsed = now - self._start
        eta = elapsed / frac - elapsed if frac > 0 else float("nan")
        line = f"{self.desc}: {self.done}/{self.total} ({100 * frac:5.1f}%) {elapsed:6.1f}s elapsed"
        if frac < 1:
            line += f", ~{eta:.0f}s left"
        end = "\r" if self._tty and frac < 1 else "\n"
        self.stream.write(line + end)
        self.stream.flush()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        if self.enabled and self._tty and self.done < self.total:
            self.stream.write("\n")
        return False
