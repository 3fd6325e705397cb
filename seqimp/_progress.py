"""The one progress channel: a tqdm bar on stderr for every long loop.

Library functions take ``progress=True/False`` and pass it to :func:`progress_bar` as
``enabled``; the command line turns it off with ``--quiet``. The bar refreshes at most
once a second and keeps a fixed width when the stream is not a terminal (logs).
"""

from __future__ import annotations

import sys

from tqdm import tqdm

__all__ = ["progress_bar"]


def progress_bar(total, desc, *, enabled=True, file=None) -> tqdm:
    """A tqdm bar counting ``total`` steps of ``desc`` on ``file`` (default stderr).

    Use it as a context manager and call ``bar.update(n)``. With ``enabled=False`` it
    writes nothing and costs nothing per update.

    Examples
    --------
    >>> with progress_bar(100, "sampling", enabled=False) as bar:
    ...     for _ in range(100):
    ...         bar.update()
    """
    stream = sys.stderr if file is None else file
    tty = bool(getattr(stream, "isatty", lambda: False)())
    return tqdm(total=max(int(total), 0), desc=desc, file=stream, disable=not enabled, mininterval=1.0,
                dynamic_ncols=tty)
