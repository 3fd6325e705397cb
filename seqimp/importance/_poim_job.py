"""A run's exact POIM/FIRM job: refused before any model is trained when it cannot run
(:func:`check_job`), and computed within a memory budget (:func:`compute_importance`)."""

from __future__ import annotations

__all__ = ["check_job", "compute_importance"]


def check_job(length, *, degree, max_order, background_order=0, max_memory=None, full_tables=None,
              alphabet_size=4) -> None:
    """Refuse a POIM job that cannot run -- ``max_order`` outside 1..L, a background order the
    length cannot carry, or memory above ``max_memory`` bytes (None: half the available RAM)
    even for the streaming engine -- before any model is trained.

    The one check of :func:`seqimp.poim`, :func:`seqimp.importance.plan_poim`, on the job's sizes.
    """
    from ._poim_plan import plan_poim

    plan_poim(length, max_order, background_order, max_memory, degree=degree, full_tables=full_tables is not None,
              alphabet_size=alphabet_size)


def compute_importance(weights, background, *, max_order, max_memory=None, progress=False, full_tables=None):
    """Exact POIM/FIRM of a positional model within ``max_memory`` bytes: :func:`seqimp.poim`
    with ``engine="auto"``, in memory when its tables fit the budget, otherwise streamed (the
    same values, summaries kept; one log line says so); ``full_tables`` (a path, ``.h5``)
    streams and writes every order's full tables there.

    Returns
    -------
    POIMResult or StreamedPOIM
    """
    from ._poim import poim

    return poim(weights, background, max_order, max_memory=max_memory, full_tables=full_tables, progress=progress)
