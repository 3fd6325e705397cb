"""seqimp._utils.heap: glibc's thresholds set by the command line only, the free heap handed back and the
POIM's blocks mapped outside the heap only where they were set."""

import os
import subprocess
import sys

import pytest

from seqimp._utils import heap as _heap


def _mallinfo2():
    return _heap._libc() is not None and hasattr(_heap._libc(), "mallinfo2")


def test_nothing_changes_in_a_process_whose_thresholds_seqimp_did_not_set(monkeypatch):
    monkeypatch.setitem(_heap._set, "mmap", None)
    assert _heap.release_free_heap() is False
    with _heap.tables_outside_heap() as lowered:
        assert lowered is False


_MAPPED = r"""
import ctypes, sys
import numpy as np
from seqimp._utils import heap as _heap

class Info(ctypes.Structure):
    _fields_ = [(n, ctypes.c_size_t) for n in ("arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks",
                                                "fsmblks", "uordblks", "fordblks", "keepcost")]

info = ctypes.CDLL(None).mallinfo2
info.restype = Info
if sys.argv[1] == "set":
    assert _heap.keep_freed_memory()

def mapped_by(nbytes):
    before = info().hblkhd
    a = np.ones(nbytes // 8)
    grew = info().hblkhd - before
    del a
    return grew

size = 8 << 20  # between TABLES_MMAP_THRESHOLD and MMAP_THRESHOLD
with _heap.tables_outside_heap() as lowered:
    inside = mapped_by(size)  # first: no free block of this size in the heap yet
outside = mapped_by(size)
print(lowered, inside >= size, outside >= size, _heap.release_free_heap())
"""


@pytest.mark.skipif(not _mallinfo2(), reason="mallinfo2 and mallopt are glibc's (2.33 on)")
def test_blocks_of_the_poim_are_mapped_only_inside_and_only_where_seqimp_set_the_thresholds():
    """Under the command line's thresholds an 8 MiB block is mapped inside tables_outside_heap
    (the threshold 4 MiB) and comes from the heap after it (32 MiB again); in a process whose
    thresholds seqimp did not set, nothing is changed."""
    def run(mode):
        # without the MALLOC_* variables a process may have set (dask's local cluster sets one in its parent)
        env = {k: v for k, v in os.environ.items() if not k.startswith("MALLOC_")}
        done = subprocess.run([sys.executable, "-c", _MAPPED, mode], capture_output=True, text=True, env=env)
        assert done.returncode == 0, done.stderr
        return done.stdout.split()

    assert _heap.TABLES_MMAP_THRESHOLD < 8 << 20 < _heap.MMAP_THRESHOLD
    assert run("set") == ["True", "True", "False", "True"]
    lowered, *_rest, released = run("unset")
    assert lowered == "False" and released == "False"
