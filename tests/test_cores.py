"""How many cores the process may use: affinity mask, cgroup quota (v1, v2), NUMBA/OMP variables."""

import os
from pathlib import Path

import pytest

from seqimp._utils import cores as _cores
from seqimp._utils.cores import available_cores, cgroup_quota, core_count, limit_numba_threads

DATA = Path(__file__).parent / "data" / "cgroup"


def _count(kind, cpus=16, environ=None):
    return core_count(environ=environ or {}, affinity=lambda: set(range(cpus)),
                      proc_cgroup=DATA / kind / "self_cgroup", cgroup_root=DATA / kind / "fs")


def test_cgroup_v2_smallest_quota_along_the_path():
    # job42 allows 2.5 CPUs, its parent 6, the root none: 2.5, rounded up to 3 threads
    assert cgroup_quota(proc_cgroup=DATA / "v2" / "self_cgroup", cgroup_root=DATA / "v2" / "fs") == 2.5
    assert _count("v2") == (3, "cgroup CPU quota 2.5")


def test_cgroup_v1_quota_over_period():
    assert cgroup_quota(proc_cgroup=DATA / "v1" / "self_cgroup", cgroup_root=DATA / "v1" / "fs") == 1.5
    assert _count("v1")[0] == 2


def test_no_quota_leaves_the_affinity_mask():
    assert cgroup_quota(proc_cgroup=DATA / "none" / "self_cgroup", cgroup_root=DATA / "none" / "fs") is None
    assert _count("none", cpus=6) == (6, "6 in the affinity mask")
    assert _count("v2", cpus=2) == (2, "2 in the affinity mask")      # the mask below the quota
    missing = core_count(environ={}, affinity=lambda: {0, 5, 7}, proc_cgroup=DATA / "absent",
                         cgroup_root=DATA / "absent")
    assert missing == (3, "3 in the affinity mask")


@pytest.mark.parametrize("environ, expected", [
    ({"OMP_NUM_THREADS": "4"}, (4, "OMP_NUM_THREADS=4")),
    ({"NUMBA_NUM_THREADS": "5", "OMP_NUM_THREADS": "7"}, (5, "NUMBA_NUM_THREADS=5")),
    ({"OMP_NUM_THREADS": "2,1"}, (2, "OMP_NUM_THREADS=2")),          # OpenMP's nested list: the first level
    ({"OMP_NUM_THREADS": "64"}, (16, "16 in the affinity mask")),    # asking more than the mask does not add cores
    ({"OMP_NUM_THREADS": "0"}, (16, "16 in the affinity mask")),     # not a thread count: numba/OpenMP judge it
    ({"OMP_NUM_THREADS": "many"}, (16, "16 in the affinity mask")),
])
def test_environment_variables_are_honoured(environ, expected):
    assert _count("none", environ=environ) == expected


def test_variables_and_quota_together():
    assert _count("v2", environ={"OMP_NUM_THREADS": "2"}) == (2, "OMP_NUM_THREADS=2")
    assert _count("v2", environ={"OMP_NUM_THREADS": "8"})[0] == 3


def test_available_cores_of_this_process_is_within_its_mask():
    n = available_cores()
    assert 1 <= n <= len(os.sched_getaffinity(0))


def test_limit_numba_threads_sets_the_variable_before_numba(monkeypatch):
    monkeypatch.setattr(_cores, "core_count", lambda environ: (3, "cgroup CPU quota 2.5"))
    monkeypatch.setattr(_cores, "_affinity", lambda affinity: (16, "affinity mask"))
    monkeypatch.delitem(__import__("sys").modules, "numba", raising=False)
    environ = {}
    assert limit_numba_threads(environ=environ) == 3
    assert environ == {"NUMBA_NUM_THREADS": "3"}
    # the user's own choice stands
    assert limit_numba_threads(environ={"NUMBA_NUM_THREADS": "9"}) is None
    # nothing to lower when the cores are those numba sees
    monkeypatch.setattr(_cores, "_affinity", lambda affinity: (3, "affinity mask"))
    environ = {}
    assert limit_numba_threads(environ=environ) is None and environ == {}


def test_limit_numba_threads_after_numba_lowers_its_threads(monkeypatch):
    numba = pytest.importorskip("numba")
    before = numba.get_num_threads()
    monkeypatch.setattr(_cores, "core_count", lambda environ: (1, "OMP_NUM_THREADS=1"))
    monkeypatch.setattr(_cores, "_affinity", lambda affinity: (16, "affinity mask"))
    try:
        assert limit_numba_threads(environ={}) == 1
        assert numba.get_num_threads() == 1
    finally:
        numba.set_num_threads(before)
