"""How the pipeline's results show themselves: a short ``repr`` and Jupyter's HTML view of a
:class:`~seqimp.pipeline.PipelineRun` (built with :mod:`seqimp._utils.repr`): the metrics and where
the files are, the best oligomers, and the view of its :class:`~seqimp.pipeline.MotifRun` (the
motifs with their logos and database matches)."""

from __future__ import annotations

from pathlib import Path

from .._utils.repr import html_card, short_repr

__all__ = ["pipeline_run_repr", "pipeline_run_html"]


def _folder(files) -> str | None:
    """The folder the files were written to (that of the first file), or None."""
    return str(Path(files[0]).parent) if files else None


def pipeline_run_repr(run) -> str:
    summary = run.summary
    return short_repr("PipelineRun", command=summary.get("command", "?"), method=getattr(run.result, "method", "?"),
                      max_order=getattr(run.result, "max_order", "?"), files=len(run.files), folder=_folder(run.files),
                      motifs=0 if run.motifs is None else len(run.motifs.motifs))


def _metrics_lines(summary) -> list:
    from ..training._classifier import metrics_line

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
        parts.append(run.motifs._repr_html_())
    return "".join(parts)
