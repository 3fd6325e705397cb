"""seqimp.cli._resources.keep_freed_memory: glibc's malloc thresholds set once, the user's kept."""

import subprocess
import sys

import pytest

from seqimp.cli import _resources


def _glibc():
    import ctypes

    try:
        ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):
        return False
    return sys.platform.startswith("linux")


@pytest.mark.skipif(not _glibc(), reason="mallopt is glibc's")
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
