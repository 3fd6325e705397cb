"""The pipeline stage: the runs that the command line calls, as library functions. It
orchestrates the stages below it (train -> evaluate -> background -> importance -> motifs ->
files and report) and holds no algorithm of its own.

:func:`run_poim` (and :func:`run_model`, :func:`run_sampled`, :func:`run_regression`) make the files of
``seqimp poim``, with ``motifs=MotifOptions(...)`` its motifs too; :func:`run_motifs` those of ``seqimp
motifs``; :func:`run_scan`, :func:`run_enrich` and :func:`run_variants` those of ``seqimp scan``,
``seqimp enrich`` and ``seqimp variants``; :func:`run_predict` those of ``seqimp predict``;
:func:`find_motifs` is the motif search of a notebook (no files). Their options are the
dataclasses of :mod:`seqimp.options`; every run takes
``output=OutputOptions(...)`` and, where it draws at random, ``random_state=``. Progress lines go to
the ``seqimp`` :mod:`logging` logger (level INFO); the library installs no handler.
"""

from .._utils.lazy import lazy_exports

# public name -> the module that defines it; imported on first use (seqimp/_utils/lazy.py)
_EXPORTS = {
    "run_poim": "_poim_run", "run_model": "_poim_run", "run_sampled": "_poim_run", "PipelineRun": "_poim_run",
    "run_regression": "_regression",
    "run_motifs": "_motif_run", "find_motifs": "_motif_run",
    "MotifRun": "..motifs.search._run",  # what a motif search found: the class of the motifs stage
    "run_scan": "_scan_run", "ScanRun": "_scan_run",
    "run_enrich": "_enrich_run", "EnrichRun": "_enrich_run",
    "run_variants": "_variants_run", "VariantRun": "_variants_run",
    "run_predict": "_predict_run",
}

__all__ = list(_EXPORTS)

#: names whose one home is now seqimp.options: still found here, with a FutureWarning
_MOVED = {name: "seqimp.options" for name in ("ModelOptions", "SolverOptions", "BackgroundOptions",
                                              "ImportanceOptions", "MotifOptions", "OutputOptions", "ScanOptions",
                                              "EnrichOptions", "VariantOptions")}

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, moved=_MOVED)
