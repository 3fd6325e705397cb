"""The pipeline stage: train -> evaluate -> background -> importance -> files, as library
functions (what the command line calls), the result files and the HTML report.

:func:`run_poim` (and :func:`run_model`, :func:`run_sampled`, :func:`run_regression`) make the files of
``seqimp poim``, with ``motifs=MotifOptions(...)`` its motifs too; :func:`run_motifs` those of ``seqimp
motifs`` (the shared step is :func:`find_motifs`). Their options are a few small dataclasses:
:class:`ModelOptions`, :class:`BackgroundOptions`, :class:`ImportanceOptions`, :class:`MotifOptions`,
:class:`OutputOptions`. Progress lines go to the ``seqimp`` :mod:`logging` logger (level INFO); the
library installs no handler.
"""

from .._lazy import lazy_exports

# public name -> the module that defines it; imported on first use (seqimp/_lazy.py)
_EXPORTS = {
    "update_report": "_motif_files", "write_motif_run": "_motif_files",
    "run_motifs": "_motif_run",
    "MODEL_KINDS": "_model_route", "ModelRoute": "_model_route", "choose_route": "_model_route",
    "run_motifs_routed": "_model_route",
    "MotifRun": "_motifs", "find_motifs": "_motifs", "no_motifs_reason": "_motifs",
    "BACKGROUNDS": "_options", "BackgroundOptions": "_options", "ImportanceOptions": "_options",
    "ModelOptions": "_options", "MotifOptions": "_options", "OutputOptions": "_options",
    "load_model": "_outputs", "save_model": "_outputs", "top_oligomers": "_outputs", "versions": "_outputs",
    "write_figures": "_outputs", "write_outputs": "_outputs", "write_result_files": "_outputs",
    "write_summary": "_outputs", "write_top_bed": "_outputs",
    "PipelineRun": "_poim_run",
    "run_regression": "_regression", "train_regressor": "_regression",
    "build_report": "_report", "write_motif_report": "_report", "write_report": "_report",
    "ScanOptions": "_scan_run", "ScanRun": "_scan_run", "run_scan": "_scan_run",
    "EnrichOptions": "_enrich_run", "EnrichRun": "_enrich_run", "run_enrich": "_enrich_run",
    "VariantOptions": "_variants_run", "VariantRun": "_variants_run", "run_variants": "_variants_run",
    "check_job": "_poim_routes", "compute_importance": "_poim_routes", "make_background": "_poim_routes",
    "run_model": "_poim_routes", "run_poim": "_poim_routes", "run_sampled": "_poim_routes",
    "Sequences": "_sequences", "encode_sequences": "_sequences",
    "SolverOptions": "_train", "evaluate": "_train", "train_model": "_train", "train_on_store": "_train",
}

__all__ = ["ModelOptions", "BackgroundOptions", "ImportanceOptions", "MotifOptions", "OutputOptions", "BACKGROUNDS",
           "PipelineRun", "run_poim", "run_regression", "train_regressor", "run_model", "run_sampled", "train_model",
           "train_on_store", "evaluate", "make_background", "write_top_bed", "check_job", "compute_importance",
           "Sequences", "encode_sequences", "MotifRun", "run_motifs", "find_motifs", "write_motif_run",
           "run_motifs_routed", "ModelRoute", "choose_route", "MODEL_KINDS",
           "update_report", "no_motifs_reason", "top_oligomers", "write_figures", "write_outputs",
           "write_result_files", "write_summary", "save_model", "load_model", "versions", "write_report",
           "build_report", "ScanOptions", "ScanRun", "run_scan", "EnrichOptions", "EnrichRun", "run_enrich",
           "write_motif_report", "SolverOptions", "VariantOptions", "VariantRun", "run_variants"]

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
