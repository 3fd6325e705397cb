"""Child processes that must not outlive their owner: :func:`reap` waits for one to leave and
kills it where it does not, or where the wait is interrupted."""

from __future__ import annotations

import subprocess

__all__ = ["reap"]


def reap(process: subprocess.Popen, timeout: float = 5) -> None:
    """Wait up to ``timeout`` seconds for ``process`` to end; kill it if it is still there then, or
    if the wait is interrupted (KeyboardInterrupt, a SIGTERM raised as an exception), and reap it.
    The interruption is raised again once the process is gone."""
    try:
        process.wait(timeout=timeout)
    except BaseException as exc:  # never leave the process behind
        process.kill()
        process.wait()
        if not isinstance(exc, subprocess.TimeoutExpired):
            raise
