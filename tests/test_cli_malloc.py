"""seqimp.cli._resources: glibc's malloc thresholds set once, the user's kept
(keep_freed_memory); OpenMP threads that wait asleep in ``seqimp motifs``
(sleeping_openmp_threads)."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

from seqimp._utils import heap as _heap
from seqimp.cli import _resources

DATA = Path(__file__).resolve().parent / "data"


@pytest.mark.skipif(_heap._libc() is None, reason="mallopt is glibc's")
def test_thresholds_are_set_with_glibc(monkeypatch):
    monkeypatch.delenv("MALLOC_MMAP_THRESHOLD_", raising=False)
    monkeypatch.delenv("MALLOC_TRIM_THRESHOLD_", raising=False)
    assert _resources.keep_freed_memory() is True


@pytest.mark.parametrize("name", ["MALLOC_MMAP_THRESHOLD_", "MALLOC_TRIM_THRESHOLD_"])
def test_the_users_setting_stands(monkeypatch, name):
    monkeypatch.setenv(name, "65536")
    assert _resources.keep_freed_memory() is False


def test_a_command_still_runs_with_the_thresholds():
    """The command line sets them on import; a command then runs as before (exit 0)."""
    done = subprocess.run([sys.executable, "-m", "seqimp", "cite"], capture_output=True, text=True)
    assert done.returncode == 0 and done.stdout


def test_openmp_threads_wait_asleep_unless_the_user_chose(monkeypatch):
    """sleeping_openmp_threads: OMP_WAIT_POLICY=PASSIVE and a short GOMP_SPINCOUNT where neither
    is set."""
    monkeypatch.delenv("OMP_WAIT_POLICY", raising=False)
    monkeypatch.delenv("GOMP_SPINCOUNT", raising=False)
    assert _resources.sleeping_openmp_threads() is True
    assert os.environ["OMP_WAIT_POLICY"] == "PASSIVE" and os.environ["GOMP_SPINCOUNT"] == "300"
    monkeypatch.delenv("GOMP_SPINCOUNT")
    monkeypatch.setenv("OMP_WAIT_POLICY", "ACTIVE")
    assert _resources.sleeping_openmp_threads() is False and os.environ["OMP_WAIT_POLICY"] == "ACTIVE"
    monkeypatch.delenv("OMP_WAIT_POLICY")
    monkeypatch.setenv("GOMP_SPINCOUNT", "10000")
    assert _resources.sleeping_openmp_threads() is False and "OMP_WAIT_POLICY" not in os.environ


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/self/maps")
def test_seqimp_motifs_sets_the_policy_before_its_first_parallel_kernel(tmp_path):
    """In a fresh process ``seqimp motifs`` sets the policy before numba loads the OpenMP runtime
    (libgomp reads it when loaded); with numba's omp layer the run loads it: the setting reaches it."""
    code = (
        "import os, sys\n"
        "import seqimp.cli.motifs as m\n"
        "seen = []\n"
        "inner = m._run\n"
        "def spy(args):\n"
        "    seen.append((os.environ.get('OMP_WAIT_POLICY'), 'gomp' in open('/proc/self/maps').read()))\n"
        "    return inner(args)\n"
        "m._run = spy\n"
        "from seqimp.cli import main\n"
        f"code = main(['motifs', '--positive', {str(DATA / 'planted_pos.fa')!r}, '--negative',"
        f" {str(DATA / 'planted_neg.fa')!r}, '--out', {str(tmp_path / 'out')!r}, '--strand', 'both', '--quiet',"
        " '--rounds', '1'])\n"
        "import numba\n"
        "print(code, seen[0][0], seen[0][1], 'gomp' in open('/proc/self/maps').read(), numba.threading_layer())\n")
    env = {k: v for k, v in os.environ.items() if k not in ("OMP_WAIT_POLICY", "GOMP_SPINCOUNT")}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    code, policy, before, after, layer = done.stdout.split()[-5:]
    assert (code, policy, before) == ("0", "PASSIVE", "False"), done.stdout + done.stderr
    assert after == str(layer == "omp")
