"""The motifs a run reports: refined motifs whose sites are enriched, copies merged, names
renumbered.

:func:`seqimp.motifs.refine_motifs` refines every discovered motif on the sequences and
tests its sites, enriched or not; :func:`select_motifs` keeps those whose sites are enriched
(in the positives and held out), merges a refined motif that copies a stronger one
(refinement can turn two candidates into one motif), names the rest ``motif1, motif2,
...`` in their order and flags those the composition explains. Where none is enriched, none
is kept. Each decision is one log line, with the final names.
"""

from __future__ import annotations

import logging
from dataclasses import replace

import numpy as np
import pandas as pd

from .._utils.renamed import renamed_keywords
from ..errors import SeqimpError, check_choice
from ._copies import holds_core, same_motif
from ._refine import MotifSites
from ._stats import format_pvalue

__all__ = ["select_motifs", "OUTCOMES", "TEST_COLUMNS"]

logger = logging.getLogger(__name__)

#: What became of a candidate (``MotifSites.tests``, ``candidate_tests.tsv``): reported (its sites
#: enriched, also held out), reported but flagged as the positives' composition, merged into a
#: motif it copies, left with too few sites because a stronger motif's sites are where its best
#: windows lie, not tested held out (neither half of the held-out test chose its word), or not
#: enriched (too few sites, p-value or held-out p-value above the cut).
OUTCOMES = ("reported", "reported, composition", "copy", "sites of another motif", "not tested held out",
            "not enriched")
#: The columns of ``MotifSites.tests``.
TEST_COLUMNS = ["candidate", "consensus", "sites", "log10_p_value", "log10_held_out_p_value", "outcome", "motif"]


@renamed_keywords(strands="strand:strands")
def select_motifs(refined, *, max_pvalue=1e-3, max_held_out_pvalue=0.05, strands="given",
                  min_sites=5, first_number=1, accepted=(), words=None) -> MotifSites:
    """The enriched motifs of a refinement, copies merged, renamed ``motif1, motif2, ...``.

    1. A motif is enriched when it has at least ``min_sites`` sites, a Fisher p-value at most
       ``max_pvalue`` and a held-out p-value at most ``max_held_out_pvalue`` (``stats`` of
       :func:`seqimp.motifs.refine_motifs`; a NaN p-value is not enriched).
    2. Of two enriched motifs where one copies the other (:func:`seqimp.motifs._copies.same_motif`
       with ``strands``), the stronger is kept, in the place of the earlier, and the other is
       merged into it (left out): stronger is the smaller p-value (its sites counted after the
       motifs ranked before it took theirs), then the smaller held-out p-value, then more
       sites (:func:`_strength`). Discovery ranks by the POIM, and
       refinement can turn a short candidate ranked first and a whole later one -- say the
       two halves of a composite element and the element -- into copies whose sites differ
       tenfold. An enriched motif that copies one of ``accepted`` (reported in an earlier
       round, its sites explained away) is merged into it -- unless it was refined from a word
       (``words``) that it still holds and the earlier motif does not (:func:`seqimp.motifs._copies.holds_core`):
       G/C-rich flanks make NRF1's GCGCATGCGC and a GC box copies by their whole PWMs, but a
       candidate kept to NRF1's word is NRF1.
    3. Where no motif is enriched, none is reported: "no motif" is an answer. A log line gives
       the best candidate's figures (smallest held-out p-value, NaN last, then smallest
       p-value).
    4. The motifs kept are renamed ``motif{first_number}, ...`` in their order, in ``motifs``,
       ``stats`` and ``sites`` alike, and every log line names them by these final names.
    5. A kept motif whose sites are not more frequent in the positives than in their
       dinucleotide shuffles (``log10_composition_p_value`` above ``log10(max_pvalue)``) gets
       ``composition`` True in ``stats``: the positives' letter composition explains it, it is
       no transcription-factor site (:func:`~seqimp.pipeline.find_motifs` matches no such motif
       to a database).

    Logs one line per motif merged (naming the motif it copies), per motif not enriched (and,
    where a stronger motif's sites took most of its sites, that motif), per composition motif.

    Parameters
    ----------
    refined : MotifSites
        Of :func:`seqimp.motifs.refine_motifs` with ``held_out=True``; motifs strongest first.
    max_pvalue : float, default=1e-3
    max_held_out_pvalue : float, default=0.05
    strand : {"given", "both"}, default="given"
        (The old keyword ``strands`` still works, with a DeprecationWarning.)
        Whether a reverse complement counts as a copy.
    min_sites : int, default=5
    first_number : int, default=1
        The number of the first motif kept (later rounds of explaining away go on counting).
    accepted : sequence of Motif
        Motifs already reported (final names): a copy of one is merged into it.
    words : dict of str to Motif, optional
        The seeds of candidates refined with their seed kept (``refine_motifs(keep_seed=True)``),
        by candidate name: such a candidate that still holds its seed's core copies a motif of
        ``accepted`` only where that motif holds the core too.

    Returns
    -------
    MotifSites
        The kept motifs, their rows of ``stats`` (with ``composition``) and ``sites`` (index
        reset), renamed; ``tests`` says what became of every candidate of ``refined``.
    """
    check_choice(strands, "strands", ("given", "both"))
    if len(refined.stats) and "held_out_p_value" not in refined.stats.columns:
        raise SeqimpError("refined: no held-out p-values; refine with refine_motifs(..., held_out=True)")
    motifs = refined.motifs
    records = refined.stats.to_dict("records")
    ok = [bool(r["sites"] >= min_sites and r["p_value"] <= max_pvalue and r["held_out_p_value"] <= max_held_out_pvalue)
          for r in records]
    copies, keep = {}, []  # keep: indices of the motifs kept, in their places
    for i, m in enumerate(motifs):  # refinement can turn two candidates into one motif
        if not ok[i]:
            continue
        word = (words or {}).get(m.name)
        word = word if word is not None and holds_core(word.pwm, m.pwm) else None  # still its word
        same = next((o for o in accepted if same_motif(o, m, strand=strands)
                     and (word is None or holds_core(word.pwm, o.pwm))), None)
        if same is not None:
            copies[i], ok[i] = same, None
            continue
        slot = next((k for k, j in enumerate(keep) if same_motif(motifs[j], m, strand=strands)), None)
        if slot is None:
            keep.append(i)
            continue
        j = keep[slot]
        if _strength(records[i]) < _strength(records[j]):  # the later is the stronger: it takes the place
            keep[slot], (i, j) = i, (j, i)
        copies[i], ok[i] = motifs[j], None
    names = {motifs[i].name: f"motif{n}" for n, i in enumerate(keep, start=int(first_number))}
    for i, m in enumerate(motifs):
        r = records[i]
        if i in copies:
            other = names.get(copies[i].name, copies[i].name)
            logger.info(f"{m.name} ({m.consensus} at {m.start}) is a copy of {other}; merged into it")
        elif ok[i] is False:
            taken = (f"; {r['taken_sites']} of its sites are sites of {names.get(r['taken_by'], r['taken_by'])}, "
                     f"which took them" if _taken(r, min_sites) else "")
            logger.info(f"{m.name} ({m.consensus} at {m.start}): {_figures(r)}{taken}; not reported")
    rest = [i for i in range(len(records)) if i not in copies]  # candidates neither kept nor merged
    if not keep and records:  # "no motif" is an answer: the best candidate's figures in the log only
        what = "no further motif" if accepted else "no motif found"
        if not rest:
            logger.info(f"{what}: every candidate copies a motif already reported")
        else:
            best = min(rest, key=lambda i: (np.nan_to_num(records[i]["held_out_p_value"], nan=2.0),
                                            records[i]["p_value"]))
            logger.info(f"{what}: no candidate's sites are enriched (p <= {max_pvalue:g}, held out "
                        f"p <= {max_held_out_pvalue:g}, at least {min_sites} sites); the best candidate, "
                        f"{motifs[best].consensus} at {motifs[best].start}: {_figures(records[best])}")
    kept = _renamed(refined, keep, names)
    if len(kept.stats):
        level = np.log10(max_pvalue) if max_pvalue > 0 else -np.inf
        log_c = kept.stats.get("log10_composition_p_value", pd.Series(np.nan, index=kept.stats.index))
        kept.stats["composition"] = (log_c > level).to_numpy()
        for m, flag, r in zip(kept.motifs, kept.stats["composition"], kept.stats.to_dict("records")):
            if flag:
                logger.info(f"{m.name} ({m.consensus} at {m.start}) is composition, not a motif: sites in "
                            f"{r['sites']} positives and {r['shuffled_sites']} of their dinucleotide shuffles "
                            f"(p = {format_pvalue(r['log10_composition_p_value'])}); no database match is offered")
    else:
        kept.stats["composition"] = pd.Series(dtype=bool)
    composition = dict(zip(kept.stats["name"], kept.stats["composition"].astype(bool)))
    kept.tests = pd.DataFrame([_test_row(m, r, i, names, copies, composition, min_sites)
                               for i, (m, r) in enumerate(zip(motifs, records))], columns=TEST_COLUMNS)
    return kept


def _test_row(m, r, i, names, copies, composition, min_sites) -> dict:
    """The row of ``MotifSites.tests`` of candidate ``i``."""
    if m.name in names:
        outcome = "reported, composition" if composition.get(names[m.name]) else "reported"
        motif = names[m.name]
    elif i in copies:
        outcome, motif = "copy", names.get(copies[i].name, copies[i].name)
    elif _taken(r, min_sites):
        outcome, motif = "sites of another motif", names.get(r["taken_by"], r["taken_by"])
    else:
        outcome = "not tested held out" if r.get("held_out_folds", np.nan) == 0 else "not enriched"
        motif = ""
    return {"candidate": m.name, "consensus": m.consensus, "sites": int(r["sites"]),
            "log10_p_value": _log10(r, "log10_p_value", "p_value"),
            "log10_held_out_p_value": _log10(r, "log10_held_out_p_value", "held_out_p_value"),
            "outcome": outcome, "motif": motif}


def _taken(r, min_sites) -> bool:
    """Whether a candidate not reported is a copy in effect: a stronger motif took at least as
    many of its sites as it kept, and at least ``min_sites``."""
    return bool(r.get("taken_by")) and r["taken_sites"] >= max(min_sites, r["sites"])


def _log10(r, key, p_key) -> float:
    """A row's log10 p-value: its column ``key`` (finite where the p-value underflows), else the
    log10 of ``p_key`` where that is positive, else NaN."""
    value = r.get(key, np.nan)
    if not np.isfinite(value) and r[p_key] > 0:
        value = np.log10(r[p_key])
    return float(value)


def _strength(r):
    """What orders two copies, smaller first for the stronger: the log10 p-value, the log10
    held-out p-value (NaN last), fewer sites last. The p-value first: it counts a motif's sites
    after the stronger-ranked motifs took theirs (``taken_sites`` of
    :func:`seqimp.motifs.refine_motifs`), the held-out test does not -- on ``gen weaklong`` a
    second copy of CTCF kept 44 of its sites (p = 1.7e-4) and had the smaller held-out p-value
    (4e-174 against 1e-156) than the first, which kept 556."""
    def log10(key, p_key):
        value = _log10(r, key, p_key)
        return np.inf if np.isnan(value) else value

    return (log10("log10_p_value", "p_value"), log10("log10_held_out_p_value", "held_out_p_value"), -int(r["sites"]))


def _figures(r) -> str:
    """A candidate's figures for a log line: sites, p, held-out sites and p (never printed as 0)."""
    log_p = r.get("log10_p_value", np.log10(r["p_value"]) if r["p_value"] > 0 else np.nan)
    log_h = r.get("log10_held_out_p_value", np.log10(r["held_out_p_value"]) if r["held_out_p_value"] > 0 else np.nan)
    if np.isnan(r.get("held_out_sites", np.nan)) and np.isnan(r["held_out_p_value"]):
        return f"sites in {r['sites']} positives (p = {format_pvalue(log_p)}), not tested held out"
    if r.get("held_out_folds", np.nan) == 0:  # the held-out seeds, chosen on each half, were other words
        return (f"sites in {r['sites']} positives (p = {format_pvalue(log_p)}), not tested held out: neither "
                "half chose it (held-out p = 1)")
    # counts (a column with untested NaNs holds them as floats)
    return (f"sites in {r['sites']} positives (p = {format_pvalue(log_p)}), {int(r['held_out_sites'])} positives "
            f"against {int(r['held_out_negative_sites'])} negatives held out (p = {format_pvalue(log_h)})")


def _renamed(refined, keep, names):
    """The motifs ``keep`` (indices) of a :class:`MotifSites`, renamed by ``names`` (old -> new),
    with their statistics and sites."""
    motifs = [replace(refined.motifs[i], name=names[refined.motifs[i].name]) for i in keep]
    stats = refined.stats.iloc[list(keep)].reset_index(drop=True)  # in the order of keep
    stats["name"] = stats["name"].map(names)
    sites = refined.sites[refined.sites["motif"].isin(names)]
    place = sites["motif"].map({refined.motifs[i].name: k for k, i in enumerate(keep)}).to_numpy()
    sites = sites.iloc[np.argsort(place, kind="stable")].reset_index(drop=True)  # in the order of keep
    sites["motif"] = sites["motif"].map(names)
    return MotifSites(motifs, stats, sites)
