"""The files of a motif run on attributions (:class:`seqimp.motifs.search._attribution_route.AttributionMotifRun`):
``motifs.meme`` (the PWMs), ``motifs.tsv``, ``seqlets.tsv``, ``motif_cwms.npz`` (CWM,
hypothetical CWM and PWM of every motif), ``motifs.json``, ``logos/`` (PWM and CWM logo of every
motif, match logos), ``matches.tsv`` with a database, and ``report.html``. (Written here, not in
:mod:`seqimp.pipeline`, which runs it: the report stage already draws and writes a run's figures.)"""

from __future__ import annotations

import json
from pathlib import Path

from .._utils.npz import save_npz
from .._utils.tables import write_tsv
from ._match_logos import match_logo_jobs
from ._page import write_motif_report

__all__ = ["write_attribution_run"]


def write_attribution_run(out, run, *, database=None, fmt="png") -> list:
    """Write ``run`` into the folder ``out`` (created if missing); return the paths written, the
    report last. The same input and seed give the same bytes."""
    from ..motifs import write_meme
    from ..plot._figure_process import FigureJob, draw_figures

    out = Path(out)
    out.mkdir(exist_ok=True)
    (out / "logos").mkdir(exist_ok=True)
    jobs = []
    for motif, found in zip(run.motifs, run.found):
        jobs.append(FigureJob(str(out / "logos" / f"{motif.name}_logo.{fmt}"), "seqimp.plot._logos:logo", (motif,)))
        jobs.append(FigureJob(str(out / "logos" / f"{motif.name}_cwm.{fmt}"), "seqimp.plot._cwm_logo:cwm_logo",
                              (found.cwm,), {"title": f"{motif.name} CWM ({len(found.seqlets)} seqlets)"}))
    jobs += match_logo_jobs(run.matches, run.motifs, database or [], out / "logos", fmt)
    pending = draw_figures(jobs)
    files = [out / name for name in ("motifs.meme", "motifs.tsv", "seqlets.tsv", "motif_cwms.npz", "motifs.json")]
    write_meme(run.motifs, files[0])
    write_tsv(run.table(), files[1])
    write_tsv(run.seqlet_table(), files[2])
    arrays = {}
    for motif, found in zip(run.motifs, run.found):
        arrays.update({f"{motif.name}_cwm": found.cwm, f"{motif.name}_hypothetical_cwm": found.hypothetical_cwm,
                       f"{motif.name}_pwm": found.pwm})
    save_npz(files[3], arrays)
    table = run.table()
    best = None if not len(table) else {k: (v.item() if hasattr(v, "item") else v)
                                        for k, v in sorted(table.iloc[0].to_dict().items())}
    files[4].write_text(json.dumps({"parameters": run.parameters, "best_motif": best}, indent=2, sort_keys=True,
                                   default=str) + "\n")
    if run.matches is not None:
        files.append(out / "matches.tsv")
        write_tsv(run.matches, files[-1])
    pending.wait()
    run.files = files + [Path(job.path) for job in jobs]
    run.files.append(write_motif_report(out, run))
    return run.files
