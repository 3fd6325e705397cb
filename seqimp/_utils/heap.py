"""glibc's heap in a command-line run: freed blocks kept for the next allocation, and the two
moments of a positional motif round that hand memory back. Standard library only (imported by
:mod:`seqimp.cli._resources` before NumPy).

:func:`keep_freed_memory` (the command line, on import): freed blocks up to
:data:`MMAP_THRESHOLD` stay in the process's heap for the next allocation instead of going back
to the system and being faulted in, page by page, again; a motif run allocates and frees the
same arrays round after round (site scores, EM tables, POIM levels): on
``motif_benchmark_2/masked`` its page faults fell from 241,000 to 74,000 and its system time from
3.1 to 2.2 s. Where the user set ``MALLOC_MMAP_THRESHOLD_`` or ``MALLOC_TRIM_THRESHOLD_`` their
choice stands and nothing here changes the heap.

Kept blocks are resident, and a heap reused round after round grows: the refinement's arrays
leave free blocks that the next round's training and POIM tables partly fill, and the tables'
own levels leave more. On the generated ``masked`` set (2,000 sequences of 200 nt, three
rounds, POIM to order 8) the heap grew from 317 to 531 MiB over the rounds, 250-360 MiB of it
free at a round's start, and the run's peak was the third round's (892 MiB). A round of the
positional route therefore (:func:`seqimp.motifs.search._poim_route.trained_poim`) first hands the free
blocks back (:func:`release_free_heap`, glibc's ``malloc_trim``) and computes its POIM with
blocks from :data:`TABLES_MMAP_THRESHOLD` on mapped outside the heap
(:func:`tables_outside_heap`: the tables and the dynamic programme's levels are returned whole
when freed): the peak fell to 828 MiB (16 MiB instead of 4: 859 MiB; either alone: 884-885 MiB),
``motif_benchmark_2/masked``'s from 802 to 743 MiB, for 28,000-35,000 more page faults
(0.1-0.3 s of system time; the motif files byte for byte the same). A block that fits in a free
block of the heap is still taken from there (glibc looks in its free lists before it maps);
handed back first, its pages are faulted in again as they are written, not kept resident.
Both act only where :func:`keep_freed_memory` set the thresholds (a library user's process keeps
glibc's own behaviour).
"""

from __future__ import annotations

import contextlib
import functools
import os

__all__ = ["keep_freed_memory", "release_free_heap", "tables_outside_heap", "MMAP_THRESHOLD", "TRIM_THRESHOLD",
           "TABLES_MMAP_THRESHOLD"]

#: Blocks up to this size come from the heap (glibc's largest mmap threshold on 64-bit systems);
#: larger ones are mapped and returned on free as before.
MMAP_THRESHOLD = 32 << 20

#: Free memory at the top of the heap is returned to the system only beyond this much.
TRIM_THRESHOLD = 1 << 30

#: While a round's POIM is computed, blocks from this size on are mapped (:func:`tables_outside_heap`).
TABLES_MMAP_THRESHOLD = 4 << 20

_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3  # glibc's mallopt parameters (malloc.h)

_set = {"mmap": None}  # the mmap threshold keep_freed_memory set; None: the process's own


@functools.lru_cache(maxsize=None)
def _libc():
    """glibc's C library (``mallopt`` and ``malloc_trim`` typed), or None; loaded once."""
    try:
        import ctypes

        libc = ctypes.CDLL(None)
        mallopt, trim = libc.mallopt, libc.malloc_trim
    except (OSError, AttributeError):  # not glibc (macOS, Windows)
        return None
    mallopt.argtypes, mallopt.restype = [ctypes.c_int, ctypes.c_int], ctypes.c_int
    trim.argtypes, trim.restype = [ctypes.c_size_t], ctypes.c_int
    return libc


def keep_freed_memory() -> bool:
    """Set glibc's mmap and trim thresholds (module docstring); True when both were taken, False
    where the user set them, or without glibc's ``mallopt`` (it is then a no-op)."""
    if "MALLOC_MMAP_THRESHOLD_" in os.environ or "MALLOC_TRIM_THRESHOLD_" in os.environ:
        return False
    libc = _libc()
    if libc is None:
        return False
    taken = libc.mallopt(_M_MMAP_THRESHOLD, MMAP_THRESHOLD) == 1 and libc.mallopt(_M_TRIM_THRESHOLD, TRIM_THRESHOLD) == 1
    _set["mmap"] = MMAP_THRESHOLD if taken else None
    return taken


def release_free_heap() -> bool:
    """Hand the heap's free blocks back to the system (``malloc_trim(0)``) where
    :func:`keep_freed_memory` set the thresholds; True when it ran."""
    libc = _libc() if _set["mmap"] is not None else None
    if libc is None:
        return False
    libc.malloc_trim(0)
    return True


@contextlib.contextmanager
def tables_outside_heap():
    """Inside: blocks from :data:`TABLES_MMAP_THRESHOLD` on are mapped outside the heap, where
    :func:`keep_freed_memory` set the thresholds (its threshold is set again on the way out);
    elsewhere nothing changes. Yields whether the threshold was lowered."""
    threshold = _set["mmap"]
    libc = _libc() if threshold is not None else None
    lowered = libc is not None and libc.mallopt(_M_MMAP_THRESHOLD, TABLES_MMAP_THRESHOLD) == 1
    try:
        yield lowered
    finally:
        if lowered:
            libc.mallopt(_M_MMAP_THRESHOLD, threshold)
