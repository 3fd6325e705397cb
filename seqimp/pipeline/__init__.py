"""The pipeline stage: the runs that the command line calls, as library functions, and their
option classes. It orchestrates the stages below it (train -> evaluate -> background ->
importance -> motifs -> files and report) and holds no algorithm of its own.

:func:`run_poim` (and :func:`run_model`, :func:`run_sampled`, :func:`run_regression`) make the files of
``seqimp poim``, with ``motifs=MotifOptions(...)`` its motifs too; :func:`run_motifs` those of ``seqimp
motifs``; :func:`run_scan` and :func:`run_enrich` those of ``seqimp scan`` and ``seqimp enrich``;
:func:`find_motifs` is the motif search of a notebook (no files). Their options are a few small
dataclasses: :class:`ModelOptions`, :class:`SolverOptions` (from :mod:`seqimp.training`),
:class:`BackgroundOptions`, :class:`ImportanceOptions`, :class:`MotifOptions`, :class:`OutputOptions`,
:class:`ScanOptions`, :class:`EnrichOptions`. Progress lines go to the ``seqimp`` :mod:`logging` logger
(level INFO); the library installs no handler.
"""

from .._lazy import lazy_exports

# public name -> the module that defines it; imported on first use (seqimp/_lazy.py)
_EXPORTS = {
    "run_poim": "_poim_run", "run_model": "_poim_run", "run_sampled": "_poim_run", "PipelineRun": "_poim_run",
    "run_regression": "_regression",
    "run_motifs": "_motif_run", "find_motifs": "_motif_run",
    "MotifRun": "_motif_search",
    "run_scan": "_scan_run", "ScanOptions": "_scan_run", "ScanRun": "_scan_run",
    "run_enrich": "_enrich_run", "EnrichOptions": "_enrich_run", "EnrichRun": "_enrich_run",
    "BackgroundOptions": "_options", "ImportanceOptions": "_options", "MotifOptions": "_options",
    "OutputOptions": "_options", "ModelOptions": "_options", "SolverOptions": "_options",
    "update_report": "_motif_files", "no_motifs_reason": "_motif_search",
    "run_variants": "_variants_run", "VariantOptions": "_variants_run", "VariantRun": "_variants_run",
}

__all__ = sorted(_EXPORTS)

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
