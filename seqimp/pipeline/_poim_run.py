"""The steps every ``seqimp poim`` route ends with: compute the importance, write the result
files and (with motif options) the motifs, then ``summary.json`` and the report, once each, from
the summary in memory.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import SeqimpError
from ..io import require_dna
from ..kernels import PositionalWeights
from ._motif_files import motif_summary
from ._motifs import add_motifs
from ._outputs import add_file_sizes, json_ready, top_oligomers, versions, write_result_files, write_summary
from ._report import write_report

__all__ = ["PipelineRun", "explain_and_write", "run_summary", "check_motif_inputs", "check_out_folder"]

logger = logging.getLogger(__name__)


@dataclass
class PipelineRun:
    """What :func:`~seqimp.pipeline.run_poim` (and the other ``run_*`` routes) produced.

    Attributes
    ----------
    weights : PositionalWeights or None
        The unfolded model (None for external scorers).
    result : POIMResult or StreamedPOIM
        ``result.poim[k-1]``, ``result.firm[k-1]`` of shape (L-k+1, 4**k).
    summary : dict
        Everything written to ``summary.json`` (JSON values: NaN and infinities as None).
    files : list of Path
        Files written, in the output folder.
    motifs : MotifRun or None
        The motifs found with ``motifs=MotifOptions(...)``; None without motif options or when
        the POIM holds no motif candidate.
    """

    weights: PositionalWeights | None
    result: object
    summary: dict
    files: list = field(default_factory=list)
    motifs: object = None

    def __repr__(self) -> str:
        from ._display import pipeline_run_repr

        return pipeline_run_repr(self)

    def _repr_html_(self) -> str:
        """Jupyter's view: metrics, the POIM's figures and best oligomers, the motifs with logos."""
        from ._display import pipeline_run_html

        return pipeline_run_html(self)


def check_out_folder(out) -> Path:
    """``out`` as a Path to an existing folder, or a SeqimpError naming the cause and the fix."""
    out = Path(out)
    if not out.is_dir():
        cause = "is a file, not a folder" if out.exists() else "no such folder"
        raise SeqimpError(f"out {out}: {cause}; the run functions write into an existing folder: create it "
                          f"first (Path(out).mkdir(parents=True, exist_ok=True)) or give another")
    return out


def run_summary(title, command, parameters, data, metrics, background) -> dict:
    """The start of ``summary.json``: title, command, parameters, data, metrics and background."""
    return {"title": title or "seqimp POIM report", "command": command, "parameters": parameters,
            "data": data, "metrics": metrics, "background": background}


def check_motif_inputs(motifs, sequences) -> None:
    """Refuse motif options (``motifs`` not None) without both classes of DNA ``sequences``, before any work."""
    if motifs is None:
        return
    if not sequences.both:
        raise SeqimpError("motifs are refined on positive and negative sequences: give both, or motifs=None")
    require_dna(sequences.alphabet, "motifs")


def explain_and_write(explain, what, out, *, summary, timings, output, weights=None, model_metadata=None,
                      motifs=None, sequences=None, random_state=None) -> PipelineRun:
    """Compute the importance (``explain()``), write every output into ``out``, then
    ``summary.json`` once (with all timings) and the report from that summary.

    Parameters
    ----------
    explain : callable
        Returns the POIMResult (or StreamedPOIM).
    what : str
        The log line before it.
    out : path-like
        Existing folder.
    summary : dict
        From :func:`run_summary`; completed here.
    timings : dict
        Seconds of the steps before; ``poim`` and ``outputs`` are added.
    output : OutputOptions
        Format, top rows, positions (``position_origin``: the ``position_label`` column and the
        figures' axes), ``windows`` (``top_oligomers.bed``), ``dropped`` (``summary["dropped"]``).
    weights, model_metadata : PositionalWeights and dict, optional
        ``model.npz`` and ``weights_vs_firm``.
    motifs : MotifOptions, optional
        Find the motifs of the POIM, refined on ``sequences`` (:class:`Sequences` of both
        classes), and write them (:func:`~seqimp.pipeline._motifs.add_motifs`); the best motif
        goes to ``summary.json``. ``random_state`` is the seed ``motifs.json`` records.
    """
    out = check_out_folder(out)
    logger.info(what)
    start = time.perf_counter()
    result = explain()
    timings["poim"] = time.perf_counter() - start
    logger.info(f"writing tables, figures and the report ({output.fmt})")
    start = time.perf_counter()
    out = Path(out)
    summary = dict(summary, expected_score=result.expected_score, score_std=result.score_std,
                   method=result.method, versions=versions())
    if output.position_origin is not None:
        summary["position_origin"] = int(output.position_origin)
    if output.dropped is not None:
        summary["dropped"] = dict(output.dropped)
    # the top of every order, sorted by |FIRM|
    best = top_oligomers(result, 1, position_origin=output.position_origin).to_dict("records")
    if any(row["order"] >= 2 for row in best):  # the headline: oligomers, not single letters
        best = [row for row in best if row["order"] >= 2]
    if best:
        summary["top_oligomer"] = best[0]
        summary["top_per_order"] = sorted(best, key=lambda row: row["order"])
    files = write_result_files(out, result, weights=weights, fmt=output.fmt, top=output.top,
                               position_labels=output.position_labels, model_metadata=model_metadata,
                               position_origin=output.position_origin, windows=output.windows)
    if (out / "poim_tables.h5").exists():
        files.append(out / "poim_tables.h5")
    timings["outputs"] = time.perf_counter() - start
    summary["timings"] = timings
    found = None
    if motifs is not None:
        found = add_motifs(out, result, sequences, motifs, fmt=output.fmt, random_state=random_state)
        if found is not None:
            files += found.files
            summary.update(motif_summary(found))
    summary = json_ready(add_file_sizes(summary, out, files))
    write_summary(out / "summary.json", summary)
    files.append(out / "summary.json")
    files.append(write_report(out, summary=summary))
    return PipelineRun(weights, result, summary, files, found)
