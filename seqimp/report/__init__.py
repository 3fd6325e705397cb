"""Outputs that a person reads: the HTML report of a results folder (:func:`write_report`,
:func:`build_report`; the page of ``seqimp scan`` and ``seqimp enrich``, :func:`write_page`),
the run record ``summary.json`` (:func:`write_summary`, :func:`file_sizes`), the match logos of a
motif run, and how a run's result shows itself in a terminal or notebook (``_display``).
"""

from .._utils.lazy import lazy_exports

# public name -> the module that defines it; imported on first use (seqimp/_utils/lazy.py)
_EXPORTS = {
    "write_report": "_page",
}

__all__ = list(_EXPORTS)

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
