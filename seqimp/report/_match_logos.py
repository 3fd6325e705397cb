"""Figures of database matches: the query's logo above the matched motif's, aligned."""

from __future__ import annotations

from pathlib import Path

__all__ = ["write_match_logos", "match_logo_jobs", "match_figure"]


def write_match_logos(matches, motifs, database, folder, fmt="png") -> list:
    """For every query with a significant match, ``<query>_match.<fmt>`` in ``folder``: the
    compared (trimmed) query columns above the best target, at the reported offset and
    strand (:func:`seqimp.plot._logos.match_logo`). Returns the paths written."""
    from ..plot._figure_process import draw_figures

    jobs = match_logo_jobs(matches, motifs, database, folder, fmt)
    draw_figures(jobs).wait()
    return [Path(job.path) for job in jobs]


def match_logo_jobs(matches, motifs, database, folder, fmt="png") -> list:
    """The figures of :func:`write_match_logos` as :class:`seqimp.plot._figure_process.FigureJob` (``folder``
    created), to draw with :func:`seqimp.plot._figure_process.draw_figures`."""
    from ..motifs.known._compare import best_matches
    from ..plot._figure_process import FigureJob

    if matches is None:
        return []
    by_name = {m.name: m for m in motifs}
    targets = {m.name: m for m in database}
    folder = Path(folder)
    folder.mkdir(exist_ok=True)
    jobs = []
    for name, row in best_matches(matches).items():
        if not row["significant"] or name not in by_name or row["target"] not in targets:
            continue
        # fixed metadata and ids: the same bytes on a rerun (seqimp.plot._save.save_figure)
        jobs.append(FigureJob(str(folder / f"{name}_match.{fmt}"), "seqimp.report._match_logos:match_figure",
                              (by_name[name], targets[row["target"]], dict(row))))
    return jobs


def match_figure(query, target, row):
    """The match logo of one verdict row of ``matches`` (query's compared columns above
    ``target``), its title whole inside the figure. Returns the pair of Axes."""
    from ..motifs import Motif
    from ..plot._logos import match_logo

    compared = Motif(query.name, query.pwm[row["query_from"] - 1:row["query_to"]])
    ax = match_logo(compared, target, offset=row["offset"], strand=row["strand"], title=match_title(query.name, row))
    fit_title(ax[0])
    return ax


def match_title(name, row) -> str:
    """The title of a match logo, three short lines: the query and its compared columns, the
    best target, its q-values (the calibrated one only where it was computed)."""
    import math

    qs = f"q = {row['q_value']:.2g}"
    if not math.isnan(row["calibrated_q"]):
        qs += f", calibrated q = {row['calibrated_q']:.2g}"
    return f"{name} (columns {row['query_from']}-{row['query_to']})\nbest match {row['target']}\n{qs}"


def fit_title(ax, pad_inches=0.5) -> None:
    """Widen ``ax``'s figure until its title fits inside it whole (a narrow motif makes a
    narrow figure, and a long title would be cut at the figure's edges)."""
    fig = ax.figure
    fig.canvas.draw()
    need = ax.title.get_window_extent().width / fig.dpi + 2 * pad_inches
    width, height = fig.get_size_inches()
    if need > width:
        fig.set_size_inches(need, height)
