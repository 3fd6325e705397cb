"""Outputs that a person reads: the HTML report of a results folder (:func:`write_report`,
:func:`build_report`; the page of ``seqimp scan`` and ``seqimp enrich``, :func:`write_page`),
the run record ``summary.json`` (:func:`write_summary`, :func:`file_sizes`), the match logos of a
motif run, and how a run's result shows itself in a terminal or notebook (``_display``).
"""

from .._lazy import lazy_exports

# public name -> the module that defines it; imported on first use (seqimp/_lazy.py)
_EXPORTS = {
    "build_report": "_page", "write_report": "_page", "write_motif_report": "_page", "write_page": "_page",
    "page_table": "_page", "run_files": "_page",
    "versions": "_record", "file_sizes": "_record", "add_file_sizes": "_record", "write_summary": "_record",
    "json_ready": "_record",
    "write_match_logos": "_match_logos", "match_logo_jobs": "_match_logos",
    "pipeline_run_repr": "_display", "pipeline_run_html": "_display", "motif_run_repr": "_display",
    "motif_run_html": "_display",
}

__all__ = ["write_report", "build_report", "write_motif_report", "write_page", "write_summary", "file_sizes",
           "versions"]

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
