"""The timing the benchmark scripts share: the fastest of a few calls."""

from __future__ import annotations

import time


def best_of(fn, repeats, clock=time.perf_counter):
    """``(seconds, result)``: the fastest of ``repeats`` calls of ``fn`` by ``clock`` (wall time;
    ``time.process_time`` for CPU time) and the last call's result."""
    best, out = float("inf"), None
    for _ in range(repeats):
        start = clock()
        out = fn()
        best = min(best, clock() - start)
    return best, out


def seconds(fn, repeats, clock=time.perf_counter):
    """The fastest of ``repeats`` calls of ``fn`` (:func:`best_of` without the result)."""
    return best_of(fn, repeats, clock)[0]
