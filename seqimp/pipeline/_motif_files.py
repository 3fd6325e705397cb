"""The files of a motif run: motif files in three formats, tables, ``motifs.json``, logos,
sites as BED, match logos; and the motif section of a ``seqimp poim`` folder's report. The files
of a motif run on attributions (:func:`write_attribution_run`)."""

from __future__ import annotations

import logging
import os
from pathlib import Path

from .._utils.npz import save_npz
from .._utils.tables import write_tsv
from ..report import write_report
from ..report._record import add_file_sizes, json_ready, write_summary

__all__ = ["write_motif_run", "write_attribution_run", "figures_ahead", "best_motif", "motif_summary", "update_report"]

logger = logging.getLogger(__name__)


def write_motif_run(out, run, *, database=None, measure="poim", fmt="png", with_poim=False, homer=False) -> list:
    """Write a :class:`~seqimp.pipeline.MotifRun` into the folder ``out`` (the files of :func:`run_motifs`:
    motif files, tables, ``motifs.json``, logos, ``matches.tsv`` and match logos with a
    database, ``motifs_poim.npz`` when ``with_poim``, ``motifs.homer`` when ``homer``); return
    the paths written. The figures are sent first (:func:`seqimp.plot._figure_process.draw_figures`: a figure
    process draws them while the tables are written, where a command line run started one)."""
    from ..plot._figure_process import draw_figures
    from ..report._match_logos import match_logo_jobs

    out = Path(out)
    out.mkdir(exist_ok=True)
    (out / "logos").mkdir(exist_ok=True)
    logos = _figure_jobs(out, run, measure=measure, fmt=fmt)
    matched = match_logo_jobs(run.matches, run.motifs, database or [], out / "logos", fmt)
    pending = draw_figures(logos + matched)
    files = _write_motif_files(out, run, with_poim=with_poim) + [Path(job.path) for job in logos]
    if homer:
        from ..motifs.known._formats import write_homer

        write_homer(_for_files(run), out / "motifs.homer", thresholds=_homer_thresholds(run))
        files.append(out / "motifs.homer")
    pending.wait()
    return files + [Path(job.path) for job in matched]


def figures_ahead(out, run, *, measure="poim", fmt="png") -> None:
    """The figures of ``run`` (those :func:`write_motif_run` would draw) sent ahead to the figure
    process, to be drawn while a later round searches (:func:`seqimp.plot._figure_process.draw_figures` with
    ``ahead=True``): where the final run's figures are the same, they are copied. Nothing is
    done without a figure process."""
    from ..plot._figure_process import active_process, draw_figures

    if active_process() is None or run.result is None:
        return
    try:
        jobs = _figure_jobs(Path(out), run, measure=measure, fmt=fmt)
    except Exception as exc:  # noqa: BLE001 (only a head start: the final figures are made and checked at the end)
        logger.debug(f"no figures sent ahead ({type(exc).__name__}: {exc})")
        return
    draw_figures(jobs, ahead=True)


def _for_files(run) -> list:
    """The motifs the motif files hold: the PWMs for scanning where they were fitted
    (:func:`seqimp.motifs.scanning_motifs`), else the refined motifs."""
    return list(run.scanning) if len(run.scanning) == len(run.motifs) and run.scanning else list(run.motifs)


def _homer_thresholds(run):
    """HOMER's detection threshold of every PWM for scanning (at the run's FPR), or None."""
    stats = run.stats
    if not run.scanning or stats is None or "scan_homer_threshold" not in stats:
        return None
    return dict(zip(stats["name"], stats["scan_homer_threshold"]))


def _write_motif_files(out: Path, run, *, with_poim) -> list:
    """Motif files, tables and ``motifs_poim.npz`` (``with_poim``) into ``out``; the paths written."""
    from ..motifs import write_meme
    from ..motifs.known._formats import write_jaspar, write_transfac

    result = run.result
    files = [out / "motifs.meme", out / "motifs.jaspar", out / "motifs.transfac", out / "motifs.tsv",
             out / "motif_candidates.tsv"]
    written = _for_files(run)
    letters = None if run.background is None else run.background.letters
    write_meme(written, files[0], background=letters)
    write_jaspar(written, files[1])
    write_transfac(written, files[2])
    if run.background is not None:  # what the PWMs for scanning are scored against (MEME's --bfile)
        files.append(run.background.write(out / "background.txt"))
    origin = run.parameters.get("position_origin")  # positions people read, counted from an origin
    write_tsv(_labelled(run.table(), "start", origin), files[3])
    write_tsv(run.candidates, files[4])
    if run.candidate_tests is not None:  # what became of every candidate tested on the sequences
        files.append(out / "candidate_tests.tsv")
        write_tsv(run.candidate_tests, files[-1])
    if run.matches is not None:
        write_tsv(run.matches, out / "matches.tsv")
        files.append(out / "matches.tsv")
    if run.sites is not None:
        files += [out / "motif_sites.tsv", out / "motif_sites.bed"]
        write_tsv(_labelled(run.sites[["motif", "id", "position", "strand", "score"]], "position", origin), files[-2])
        _write_bed(run.sites, dict((m.name, m.length) for m in run.motifs), files[-1], run.coords)
    files.append(out / "motifs.json")
    _write_json(run, files[-1])
    if with_poim:
        files.append(out / "motifs_poim.npz")
        if run.result_file is not None and Path(run.result_file).parent.resolve() == out.resolve():
            os.replace(run.result_file, files[-1])  # the same bytes, already written
            run.result_file = files[-1]
        else:
            result.save(files[-1])
    return files


def _figure_jobs(out: Path, run, *, measure, fmt) -> list:
    """The logos of a motif run as :class:`seqimp.plot._figure_process.FigureJob` (a figure process is sent
    the few numbers each one draws): one per motif, the importance logo around the motifs
    (``measure``), the site positions of every motif."""
    from ..plot._figure_process import FigureJob
    from ..plot._logos import importance_block

    motifs, result = run.motifs, run.result
    origin = run.parameters.get("position_origin")
    folder = out / "logos"
    jobs = [FigureJob(str(folder / f"{m.name}_logo.{fmt}"), "seqimp.plot._logos:logo", (m,), {"origin": origin})
            for m in motifs]
    starts = [(m.start, m.start + m.length - 1) for m in motifs] or [(1, min(result.length, 110))]  # no motif
    lo = max(min(a for a, _ in starts) - 5, 1)
    hi = min(max(b for _, b in starts) + 5, result.length)
    if hi - lo + 1 > 120:  # motifs far apart: show the strongest one's neighbourhood only
        centre = motifs[0].start + motifs[0].length // 2 if motifs else 60
        lo, hi = max(centre - 60, 1), min(centre + 59, result.length)
    block, first = importance_block(result, measure=measure, positions=(lo, hi))
    jobs.append(FigureJob(str(folder / f"importance_logo.{fmt}"), "seqimp.plot._logos:block_logo",
                          (block, first, result.alphabet), {"measure": measure}))
    if run.sites is not None:
        for m in motifs:
            rows = run.sites.loc[run.sites["motif"] == m.name, ["motif", "position", "strand"]]
            jobs.append(FigureJob(str(folder / f"{m.name}_positions.{fmt}"), "seqimp.plot._logos:site_positions",
                                  (rows.reset_index(drop=True), m, result.length), {"origin": origin}))
    return jobs


def _labelled(table, column, origin):
    """``table`` with ``<column>_label`` after ``column``: the 1-based positions counted from
    ``origin`` (+1 at it, -1 before it, no 0; :func:`seqimp.io.position_labels`); as it is
    without an origin or rows."""
    if origin is None or not len(table):
        return table
    from ..io import position_labels

    position = table[column].to_numpy(dtype="int64")
    table = table.copy()
    table.insert(list(table.columns).index(column) + 1, f"{column}_label",
                 position_labels(int(position.max()), origin=origin)[position - 1])
    return table


def _write_bed(sites, lengths, path, coords=None):
    """BED6 sites: chrom, 0-based start, end, motif, score, strand. In genome coordinates when
    the positives are genomic windows (``coords``, :func:`seqimp.io._bed.hits_to_bed`: a site on a
    '-' window lies on the other genome strand), else with the sequence id as chrom and the
    position along the sequence."""
    import pandas as pd

    from ..io import hits_to_bed, write_bed

    length = sites["motif"].map(lengths)
    if coords is not None:
        rows = hits_to_bed(coords, sites["sequence"], sites["position"], length, strand=sites["strand"],
                           name=sites["motif"], score=sites["score"])
    else:
        rows = pd.DataFrame({"chrom": sites["id"], "start": sites["position"] - 1,
                             "end": sites["position"] - 1 + length, "name": sites["motif"],
                             "score": sites["score"], "strand": sites["strand"]})
    write_bed(rows, path)  # BED's integer scores 0-1000: the site scores scaled by the largest


def best_motif(run) -> dict | None:
    """The strongest motif's row of ``motifs.tsv`` (:meth:`MotifRun.table`), keys sorted and
    values plain Python, as ``motifs.json`` records it; None without motifs."""
    table = run.table()
    if not len(table):
        return None
    return {k: (v.item() if hasattr(v, "item") else v) for k, v in sorted(table.iloc[0].to_dict().items())}


def _write_json(run, path):
    """``motifs.json``: the parameters (seed included) and the headline motif."""
    import json

    text = json.dumps({"parameters": run.parameters, "best_motif": best_motif(run)}, indent=2, sort_keys=True,
                      default=str)
    Path(path).write_text(text + "\n")


def motif_summary(run) -> dict:
    """What ``summary.json`` of a ``seqimp poim`` folder records of its motifs: ``best_motif``
    and, with a database, ``motif_database`` (JSON values)."""
    record = {"best_motif": json_ready(best_motif(run))}
    database = run.parameters.get("database")
    if database:
        record["motif_database"] = json_ready(database)
    return record


def update_report(folder, run, *, announce=True, written_in=None, into=None):
    """Add ``run``'s motifs to the ``seqimp poim`` folder ``folder`` (one with ``summary.json``,
    from an earlier ``seqimp poim``; ``seqimp motifs --out`` into it): its best motif and
    database (:func:`motif_summary`) into that summary, which is written back once, and the
    report rewritten from it with the motif section. Returns the report's path, or None for
    other folders. ``announce``: log where the report is (off for a staging folder, whose name
    the user never sees). ``written_in``: the folder ``run.files`` were written into when it is
    not ``folder`` (a staging folder published into ``folder`` since); the summary's record of
    what was written (``files``) gains them under their names in ``folder``. ``into``: the
    folder the new ``summary.json`` and ``report.html`` are written into (default ``folder``;
    the command line gives a folder its output transaction publishes with the motif files).
    Each file is written under a hidden name and renamed, so neither is ever half-written."""
    import json
    import os

    folder = Path(folder)
    into = folder if into is None else Path(into)
    if not (folder / "summary.json").exists():
        return None
    summary = json.loads((folder / "summary.json").read_text())
    summary.pop("motif_database", None)  # a database of earlier motifs
    summary.update(motif_summary(run))
    root = Path(written_in) if written_in is not None else folder
    written = (folder / Path(p).relative_to(root) for p in run.files)
    summary = add_file_sizes(summary, folder, [p for p in written if p.is_file()])
    partial = [into / ".summary.json.partial", into / ".report.html.partial"]
    try:
        write_summary(partial[0], summary)
        write_report(folder, summary=summary, path=partial[1])
        os.replace(partial[0], into / "summary.json")
        os.replace(partial[1], into / "report.html")
    finally:
        for path in partial:
            path.unlink(missing_ok=True)
    if announce:
        logger.info(f"report updated: {folder}/report.html")
    return into / "report.html"


def write_attribution_run(out, run, *, database=None, fmt="png") -> list:
    """Write a motif run on attributions (:class:`~seqimp.motifs.search._attribution_route.AttributionMotifRun`)
    into the folder ``out`` (created if missing): ``motifs.meme`` (the PWMs), ``motifs.tsv``, ``seqlets.tsv``,
    ``motif_cwms.npz`` (CWM, hypothetical CWM and PWM of every motif), ``motifs.json``, ``logos/`` (PWM and
    CWM logo of every motif, match logos), ``matches.tsv`` with a database, and ``report.html``; return the
    paths written, the report last. The same input and seed give the same bytes."""
    from ..motifs import write_meme
    from ..plot._figure_process import FigureJob, draw_figures
    from ..report._match_logos import match_logo_jobs
    from ..report._page import write_motif_report

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
    _write_json(run, files[4])
    if run.matches is not None:
        files.append(out / "matches.tsv")
        write_tsv(run.matches, files[-1])
    pending.wait()
    run.files = files + [Path(job.path) for job in jobs]
    run.files.append(write_motif_report(out, run))
    return run.files
