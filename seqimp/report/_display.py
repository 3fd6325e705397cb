"""How the pipeline's results show themselves: a short ``repr`` and Jupyter's HTML view of a
:class:`~seqimp.pipeline.PipelineRun` and a :class:`~seqimp.pipeline.MotifRun` (built with
:mod:`seqimp._repr`): the metrics and where the files are, the best oligomers, the motifs with
their logos and database matches."""

from __future__ import annotations

from pathlib import Path

from .._repr import html_card, logo_svg, short_repr

__all__ = ["pipeline_run_repr", "pipeline_run_html", "motif_run_repr", "motif_run_html"]

#: Motifs shown with a logo in a MotifRun's HTML view.
SHOWN_MOTIFS = 5


def _folder(files) -> str | None:
    """The folder the files were written to (that of the first file), or None."""
    return str(Path(files[0]).parent) if files else None


def pipeline_run_repr(run) -> str:
    summary = run.summary
    return short_repr("PipelineRun", command=summary.get("command", "?"), method=getattr(run.result, "method", "?"),
                      max_order=getattr(run.result, "max_order", "?"), files=len(run.files), folder=_folder(run.files),
                      motifs=0 if run.motifs is None else len(run.motifs.motifs))


def _metrics_lines(summary) -> list:
    from ..training import metrics_line

    metrics = summary.get("metrics", {}) or {}
    lines = []
    text = metrics_line(metrics)
    if text:
        lines.append(("model", text))
    if metrics.get("r2") is not None:
        lines.append(("model", f"held-out R^2 {metrics['r2']:.4f}, Spearman {metrics.get('spearman', float('nan')):.4f}"))
    return lines


def pipeline_run_html(run) -> str:
    summary = run.summary
    lines = [("title", summary.get("title", "")), ("command", summary.get("command", "")),
             ("output folder", _folder(run.files) or "-"), ("files", len(run.files))]
    lines += _metrics_lines(summary)
    if summary.get("background", {}).get("description"):
        lines.append(("background", summary["background"]["description"]))
    parts = [html_card("PipelineRun", lines, note="run.result: the POIM/FIRM; run.motifs: the motifs; "
                                                  "run.summary: summary.json")]
    if run.result is not None:
        parts.append(run.result._repr_html_())
    if run.motifs is not None:
        parts.append(motif_run_html(run.motifs))
    return "".join(parts)


def motif_run_repr(run) -> str:
    names = ", ".join(m.consensus for m in run.motifs[:3]) + (", ..." if len(run.motifs) > 3 else "")
    return short_repr("MotifRun", motifs=len(run.motifs), consensus=names,
                      matches=None if run.matches is None else len(run.matches), files=len(run.files),
                      folder=_folder(run.files))


def motif_run_html(run) -> str:
    lines = [("motifs", len(run.motifs)), ("output folder", _folder(run.files) or "-")]
    database = run.parameters.get("database")
    if database:
        from ..motifs import database_label

        lines.append(("known motifs", database_label(database)))
    images = [(f"{m.name} {m.consensus}" + (f" at {m.start}" if m.start else ""), logo_svg(m.pwm))
              for m in run.motifs[:SHOWN_MOTIFS]]
    table = run.table()
    keep = [c for c in ("name", "consensus", "start", "length", "direction", "score", "sites", "fraction_positive",
                        "fraction_negative", "held_out_p_value") if c in table.columns]
    parts = [html_card("MotifRun", lines, table=table[keep], images=images,
                       note="\n".join(run.lines()) if not run.motifs else "")]
    if run.matches is not None and len(run.matches):
        matches = run.matches.head(10)
        parts.append(html_card("best database matches (TOMTOM)", table=matches))
    return "".join(parts)
