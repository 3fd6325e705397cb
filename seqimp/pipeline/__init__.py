"""The pipeline stage: train -> evaluate -> background -> importance -> files, as library
functions (what the command line calls), the result files and the HTML report.
"""

from ._outputs import load_model, save_model, top_oligomers, versions, write_figures, write_outputs, write_summary
from ._report import build_report, write_report
from ._run import (BACKGROUNDS, PipelineRun, analyze, check_job, compute_importance, evaluate, finish, make_background,
                   run_model, run_poim, run_sampled, train_model)

__all__ = ["PipelineRun", "run_poim", "run_model", "run_sampled", "analyze", "finish", "train_model", "evaluate",
           "make_background", "check_job", "compute_importance", "BACKGROUNDS", "top_oligomers", "write_figures",
           "write_outputs", "write_summary", "save_model", "load_model", "versions", "write_report", "build_report"]
