"""The pipeline stage: train -> evaluate -> background -> importance -> files, as library
functions (what the command line calls), the result files and the HTML report.

:func:`run_poim` (and :func:`run_model`, :func:`run_sampled`, :func:`run_regression`) make the files of
``seqimp poim``, with ``motifs=MotifOptions(...)`` its motifs too; :func:`run_motifs` those of ``seqimp
motifs`` (the shared step is :func:`find_motifs`). Their options are a few small dataclasses:
:class:`ModelOptions`, :class:`BackgroundOptions`, :class:`ImportanceOptions`, :class:`MotifOptions`,
:class:`OutputOptions`. Progress lines go to the ``seqimp`` :mod:`logging` logger (level INFO); the
library installs no handler.
"""

from ._motif_files import update_report, write_motif_run
from ._motif_run import run_motifs
from ._model_route import MODEL_KINDS, ModelRoute, choose_route, run_motifs_routed
from ._motifs import MotifRun, find_motifs, no_motifs_reason
from ._options import BACKGROUNDS, BackgroundOptions, ImportanceOptions, ModelOptions, MotifOptions, OutputOptions
from ._outputs import (load_model, save_model, top_oligomers, versions, write_figures, write_outputs,
                       write_result_files, write_summary, write_top_bed)
from ._poim_run import PipelineRun
from ._regression import run_regression, train_regressor
from ._report import build_report, write_motif_report, write_report
from ._scan_run import ScanOptions, ScanRun, run_scan
from ._enrich_run import EnrichOptions, EnrichRun, run_enrich
from ._poim_routes import check_job, compute_importance, make_background, run_model, run_poim, run_sampled
from ._sequences import Sequences, encode_sequences
from ._train import SolverOptions, evaluate, train_model, train_on_store

__all__ = ["ModelOptions", "BackgroundOptions", "ImportanceOptions", "MotifOptions", "OutputOptions", "BACKGROUNDS",
           "PipelineRun", "run_poim", "run_regression", "train_regressor", "run_model", "run_sampled", "train_model",
           "train_on_store", "evaluate", "make_background", "write_top_bed", "check_job", "compute_importance",
           "Sequences", "encode_sequences", "MotifRun", "run_motifs", "find_motifs", "write_motif_run",
           "run_motifs_routed", "ModelRoute", "choose_route", "MODEL_KINDS",
           "update_report", "no_motifs_reason", "top_oligomers", "write_figures", "write_outputs",
           "write_result_files", "write_summary", "save_model", "load_model", "versions", "write_report",
           "build_report", "ScanOptions", "ScanRun", "run_scan", "EnrichOptions", "EnrichRun", "run_enrich",
           "write_motif_report", "SolverOptions"]
