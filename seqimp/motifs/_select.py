"""The motifs a run reports: refined motifs whose sites are enriched, copies merged, names
renumbered.

:func:`seqimp.motifs.refine_motifs` refines every discovered motif on the sequences and
tests its sites, enriched or not; :func:`select_motifs` keeps those whose sites are enriched
(in the positives and held out), merges a refined motif that copies a stronger one
(refinement can turn two candidates into one motif) and names the rest ``motif1, motif2,
...`` in their order. Each decision is one log line.
"""

from __future__ import annotations

import logging
from dataclasses import replace

import numpy as np

from ..errors import SeqimpError, check_choice
from ._copies import same_motif
from ._refine import MotifSites

__all__ = ["select_motifs"]

logger = logging.getLogger(__name__)


def select_motifs(refined, *, max_pvalue=1e-3, max_held_out_pvalue=0.05, strands="given",
                  min_sites=5) -> MotifSites:
    """The enriched motifs of a refinement, copies merged, renamed ``motif1, motif2, ...``.

    1. A motif is enriched when it has at least ``min_sites`` sites, a Fisher p-value at most
       ``max_pvalue`` and a held-out p-value at most ``max_held_out_pvalue`` (``stats`` of
       :func:`seqimp.motifs.refine_motifs`; a NaN p-value is not enriched).
    2. An enriched motif that copies an earlier enriched one (:func:`seqimp.motifs.same_motif`
       with ``strands``) is merged into it (left out; the earlier one is the stronger: motifs
       come strongest first).
    3. Where no motif is enriched, the one best enriched held out is reported (smallest
       held-out p-value, NaN last, then smallest p-value), and a log line says that none is.
    4. The motifs kept are renamed ``motif1, motif2, ...`` in their order, in ``motifs``,
       ``stats`` and ``sites`` alike.

    Logs one line per motif merged and per motif not enriched (ending ``; dropped`` when
    another is kept).

    Parameters
    ----------
    refined : MotifSites
        Of :func:`seqimp.motifs.refine_motifs` with ``held_out=True``; motifs strongest first.
    max_pvalue : float, default=1e-3
    max_held_out_pvalue : float, default=0.05
    strands : {"given", "both"}, default="given"
        Whether a reverse complement counts as a copy.
    min_sites : int, default=5

    Returns
    -------
    MotifSites
        The kept motifs, their rows of ``stats`` and ``sites`` (index reset), renamed.
    """
    check_choice(strands, "strands", ("given", "both"))
    if len(refined.stats) and "held_out_p_value" not in refined.stats.columns:
        raise SeqimpError("refined: no held-out p-values; refine with refine_motifs(..., held_out=True)")
    motifs = refined.motifs
    records = refined.stats.to_dict("records")
    ok = [bool(r["sites"] >= min_sites and r["p_value"] <= max_pvalue and r["held_out_p_value"] <= max_held_out_pvalue)
          for r in records]
    for i, m in enumerate(motifs):  # refinement can turn two candidates into one motif
        if ok[i] and any(ok[j] and same_motif(motifs[j], m, strands=strands) for j in range(i)):
            logger.info(f"{m.name} ({m.consensus} at {m.start}) is a copy of a stronger motif; merged")
            ok[i] = None
    for m, r, good in zip(motifs, records, ok):
        if good is False:
            logger.info(f"{m.name} ({m.consensus} at {m.start}): sites in {r['sites']} positives "
                        f"(p = {r['p_value']:.2g}), {r['held_out_sites']} positives against "
                        f"{r['held_out_negative_sites']} negatives held out (p = {r['held_out_p_value']:.2g})"
                        + ("; dropped" if any(ok) else ""))
    keep = [i for i, good in enumerate(ok) if good]
    if not keep and records:  # report the best-supported motif, and say that it is not significant
        keep = [min(range(len(records)), key=lambda i: (np.nan_to_num(records[i]["held_out_p_value"], nan=2.0),
                                                         records[i]["p_value"]))]
        logger.info(f"no motif's sites are enriched (p <= {max_pvalue:g}, held out p <= {max_held_out_pvalue:g}); "
                    f"reporting the one best enriched held out, {motifs[keep[0]].name}")
    return _renamed(refined, keep)


def _renamed(refined, keep):
    """The motifs ``keep`` (indices) of a :class:`MotifSites`, renamed motif1.. in their order,
    with their statistics and sites."""
    names = {refined.motifs[i].name: f"motif{n}" for n, i in enumerate(keep, start=1)}
    motifs = [replace(refined.motifs[i], name=names[refined.motifs[i].name]) for i in keep]
    stats = refined.stats[refined.stats["name"].isin(names)].reset_index(drop=True)
    stats["name"] = stats["name"].map(names)
    sites = refined.sites[refined.sites["motif"].isin(names)].reset_index(drop=True)
    sites["motif"] = sites["motif"].map(names)
    return MotifSites(motifs, stats, sites)
