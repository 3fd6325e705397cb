"""How many cores this process may use: its CPU affinity, its cgroup's CPU quota, the user's variables.

A server may show 64 CPUs to a process that a batch system pinned to 8 (its affinity mask),
whose container may run 4 CPUs' worth of time per period (the cgroup quota), and whose user may
have said ``OMP_NUM_THREADS=2``. :func:`available_cores` is the smallest of them:

* the CPUs of the affinity mask (``os.sched_getaffinity``; ``os.cpu_count()`` where there is none),
* the CPU quota of the process's cgroup and its ancestors: cgroup v2 ``cpu.max`` (``"QUOTA PERIOD"``,
  ``"max"``: none), cgroup v1 ``cpu.cfs_quota_us`` / ``cpu.cfs_period_us`` (-1: none), rounded up to
  whole cores (a quota of 2.5 CPUs is 3 threads, at least 1),
* ``NUMBA_NUM_THREADS`` and ``OMP_NUM_THREADS`` where set to a positive number (OpenMP's list form
  ``"4,2"`` counts its first entry); other values are left to numba and OpenMP to judge.

:func:`core_count` returns the number and a line saying which of them set it (for logs).
:func:`limit_numba_threads` makes numba's thread pool no larger than that number where the user did
not set ``NUMBA_NUM_THREADS`` (numba sizes it by the affinity mask alone, so under a quota its
parallel kernels would run more threads than the process has cores). Standard library only.
"""

from __future__ import annotations

import math
import os
import sys
from pathlib import Path

__all__ = ["available_cores", "core_count", "limit_numba_threads", "cgroup_quota"]

_ENV_VARIABLES = ("NUMBA_NUM_THREADS", "OMP_NUM_THREADS")


def _affinity(affinity) -> tuple[int, str]:
    if affinity is not None:
        cpus = affinity()
    elif hasattr(os, "sched_getaffinity"):
        cpus = os.sched_getaffinity(0)
    else:  # pragma: no cover - macOS, Windows
        return max(1, os.cpu_count() or 1), "CPUs"
    return max(1, len(cpus)), "affinity mask"


def _env_threads(value) -> int | None:
    """The thread count a NUMBA_NUM_THREADS / OMP_NUM_THREADS value asks for, or None."""
    first = str(value).split(",")[0].strip()
    return int(first) if first.isdigit() and int(first) > 0 else None


def _cgroup_dirs(proc_cgroup, cgroup_root):
    """``(version, directory)`` of this process's CPU cgroup and each ancestor, deepest first (those that exist)."""
    try:
        lines = Path(proc_cgroup).read_text().splitlines()
    except OSError:
        return []
    root = Path(cgroup_root)
    found = []
    for line in lines:
        parts = line.split(":", 2)
        if len(parts) != 3:
            continue
        _, controllers, path = parts
        if controllers == "":                                         # cgroup v2: "0::/path"
            mounts = [(2, root), (2, root / "unified")]
        elif "cpu" in controllers.split(","):                         # cgroup v1: "4:cpu,cpuacct:/path"
            mounts = [(1, root / controllers), (1, root / "cpu"), (1, root / "cpu,cpuacct")]
        else:
            continue
        relative = Path(path.strip().lstrip("/"))
        for version, mount in mounts:
            if not mount.is_dir():
                continue
            chain = [mount / relative] + [mount / p for p in relative.parents]
            found.extend((version, d) for d in chain if d.is_dir())   # parents end with mount itself
            break
    return found


def _quota_of(version, directory) -> float | None:
    """CPUs' worth of time per period that ``directory`` allows, None when unlimited or unreadable."""
    try:
        if version == 2:
            fields = (directory / "cpu.max").read_text().split()
            if not fields or fields[0] == "max":
                return None
            quota, period = float(fields[0]), float(fields[1]) if len(fields) > 1 else 100_000.0
        else:
            quota = float((directory / "cpu.cfs_quota_us").read_text().strip())
            period = float((directory / "cpu.cfs_period_us").read_text().strip())
    except (OSError, ValueError, IndexError):
        return None
    if quota <= 0 or period <= 0:
        return None
    return quota / period


def cgroup_quota(*, proc_cgroup="/proc/self/cgroup", cgroup_root="/sys/fs/cgroup") -> float | None:
    """The smallest CPU quota (in CPUs, e.g. 2.5) over this process's cgroup and its ancestors, v2 or v1;
    None where there is none (or no cgroup file system)."""
    quotas = [q for version, d in _cgroup_dirs(proc_cgroup, cgroup_root) if (q := _quota_of(version, d)) is not None]
    return min(quotas) if quotas else None


def core_count(*, environ=None, affinity=None, proc_cgroup="/proc/self/cgroup",
               cgroup_root="/sys/fs/cgroup") -> tuple[int, str]:
    """``(cores, why)``: the threads this process should run (module docstring) and what set the number.

    Parameters
    ----------
    environ : mapping, optional
        The environment (default ``os.environ``).
    affinity : callable, optional
        Returns the set of CPUs the process may run on (default ``os.sched_getaffinity(0)``).
    proc_cgroup, cgroup_root : path
        Where the process's cgroup membership and the cgroup file system are read (tests point them
        at fixtures).
    """
    environ = os.environ if environ is None else environ
    cores, why = _affinity(affinity)
    limits = [(cores, f"{cores} in the {why}")]
    quota = cgroup_quota(proc_cgroup=proc_cgroup, cgroup_root=cgroup_root)
    if quota is not None:
        limits.append((max(1, math.ceil(quota - 1e-9)), f"cgroup CPU quota {quota:g}"))
    for name in _ENV_VARIABLES:
        asked = _env_threads(environ.get(name, ""))
        if asked is not None:
            limits.append((asked, f"{name}={asked}"))
    best = min(limits, key=lambda item: item[0])
    return best[0], best[1]


def available_cores(**kwargs) -> int:
    """The number of threads this process should run: :func:`core_count` without the reason."""
    return core_count(**kwargs)[0]


def limit_numba_threads(*, environ=None) -> int | None:
    """Keep numba's threads within :func:`available_cores` where the user did not set ``NUMBA_NUM_THREADS``.

    Before numba is imported, ``NUMBA_NUM_THREADS`` is set in ``environ`` (its pool is then that size);
    after, ``numba.set_num_threads`` lowers the threads of this thread's parallel kernels. Returns the
    limit applied, or None when nothing was changed (the user's variable, or no limit below numba's own).
    """
    environ = os.environ if environ is None else environ
    if "NUMBA_NUM_THREADS" in environ:
        return None
    cores, _ = core_count(environ=environ)
    visible, _ = _affinity(None)
    if cores >= visible:                     # numba's own default (the affinity mask) is already right
        return None
    numba = sys.modules.get("numba")
    if numba is None:
        environ["NUMBA_NUM_THREADS"] = str(cores)
        return cores
    numba.set_num_threads(min(cores, numba.config.NUMBA_NUM_THREADS))
    return cores
