"""The figure process of :mod:`seqimp.plot._figure_process` (``python -m seqimp.plot._figure_worker``):
imports matplotlib and the logo functions at once, then draws every batch of figure jobs read
from its standard input and answers one error line (or None) per job on its standard output,
until its input ends."""

from __future__ import annotations

import os
import sys


def main() -> int:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot  # noqa: F401  (imported while the run that started it works)

    from . import _logos  # noqa: F401
    from ._figure_process import _receive, _send, draw_job

    # the answers go to the original standard output; anything else printed goes to standard error
    stdout = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    stdin = sys.stdin.buffer
    _warm_up()
    while True:
        jobs = _receive(stdin)
        if jobs is None:  # the run is done: out at once, without tearing matplotlib down
            stdout.flush()
            sys.stderr.flush()
            os._exit(0)
        errors = []
        for job in jobs:
            try:
                draw_job(job)
                errors.append(None)
            except Exception as exc:  # noqa: BLE001 (reported back: the job is drawn again there, raising there)
                errors.append(f"{type(exc).__name__}: {exc}")
        _send(stdout, errors)


def _warm_up() -> None:
    """A logo, an importance logo and a site plot drawn into memory and dropped: the fonts, the
    letters' outlines and the renderer's caches are loaded before the first batch comes (a
    first figure took about 0.5 s more than the next ones)."""
    import io

    import matplotlib.pyplot as plt
    import numpy as np
    import pandas as pd

    from ..motifs import Motif
    from ._logos import block_logo, logo, site_positions

    motif = Motif("warm", np.full((2, 4), 0.25), start=1)
    sites = pd.DataFrame({"motif": ["warm"], "position": [1], "strand": ["+"]})
    for ax in (logo(motif), block_logo(np.zeros((2, 4)), 1, "dna"), site_positions(sites, motif, 4)):
        ax.figure.savefig(io.BytesIO(), format="png", dpi=130)
        plt.close(ax.figure)


if __name__ == "__main__":
    sys.exit(main())
