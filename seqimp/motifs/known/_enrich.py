"""Enrichment of known motifs in positive against negative sequences (as SEA and AME do).

Every motif scores every sequence by its best window on either strand (:mod:`._scan`'s
integer log-odds, both strands). Two tests:

* ``"fisher"`` (SEA-like): a sequence has a site when its best window's exact p-value
  (:func:`seqimp.motifs.scan_sequences`' null distribution) is at most ``site_pvalue``; the
  per-motif score threshold comes from the motif's own null distribution, never from the
  labels, so the one-sided Fisher exact test (more positives with a site) is valid as it
  stands.
* ``"ranksum"`` (AME-like): the one-sided Mann-Whitney U test of the positives' best scores
  against the negatives'.

q-values are Benjamini-Hochberg across the motifs tested.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import stats

from ...errors import SeqimpError, check_choice, check_number
from ._compare import bh_qvalues
from ._scan import (PSEUDOCOUNT, SCALE, _check_motifs, _is_markov, background_frequencies, best_sequence_scores,
                    encode_any_length, motif_null, pvalue_threshold)

__all__ = ["enrich_motifs", "ENRICH_METHODS", "ENRICH_COLUMNS"]

ENRICH_METHODS = ("fisher", "ranksum")
#: the first columns of :func:`enrich_motifs`' table (the contract of enrichment.tsv)
ENRICH_COLUMNS = ["motif", "target_description", "positives_with_site", "negatives_with_site", "p_value",
                  "q_value"]


def enrich_motifs(motifs, positive, negative, *, method="fisher", site_pvalue=1e-4, background="uniform",
                  strand="both", annotations=None, pseudocount=PSEUDOCOUNT) -> pd.DataFrame:
    """Test every motif for enrichment in ``positive`` against ``negative`` sequences.

    Parameters
    ----------
    motifs : sequence of Motif
        A database (``MotifDatabase``: its JASPAR ``tf_family``/``tf_class`` annotations are
        added) or the motifs of a run.
    positive, negative : sequence of str, SequenceSet or ndarray of shape (n, L)
        Sequences of any lengths.
    method : {"fisher", "ranksum"}, default="fisher"
    site_pvalue : float, default=1e-4
        A sequence has a site when its best window's p-value is at most this.
    background : {"uniform", "sequences"}, array-like of shape (4,) or SiteBackground, default="uniform"
        Null letter frequencies of the site threshold (``"sequences"``: those of the
        negatives, both strands), or a Markov background of order 0..2
        (:class:`seqimp.background.SiteBackground`, e.g. ``SiteBackground.fit(negatives, 2)``
        or a MEME background file): scores are log-likelihood ratios against it and the site
        threshold's p-value exact under it.
    strand : {"both", "given"}, default="both"
    annotations : dict, optional
        Per motif name, extra columns (default: the database's ``annotations``).

    Returns
    -------
    pandas.DataFrame
        One row per motif, most enriched first (p-value, then the order given): ``motif``,
        ``target_description``, ``positives_with_site``, ``negatives_with_site``, ``p_value``,
        ``q_value`` (:data:`ENRICH_COLUMNS`), then ``positives``, ``negatives`` (counts),
        ``positive_share``, ``negative_share``, ``site_score`` (the score threshold, bits),
        ``method``, and ``tf_family``/``tf_class`` where annotated.
    """
    if annotations is None:
        annotations = getattr(motifs, "annotations", None) or {}
    motifs = _check_motifs(motifs)
    method = check_choice(method, "method", ENRICH_METHODS)
    site_pvalue = check_number(site_pvalue, "site_pvalue", low=0.0, high=1.0, low_open=True)
    pos_codes, pos_off = encode_any_length(positive)
    neg_codes, neg_off = encode_any_length(negative)
    n_pos, n_neg = pos_off.size - 1, neg_off.size - 1
    if n_pos == 0 or n_neg == 0:
        raise SeqimpError(f"enrichment needs positive and negative sequences, got {n_pos} and {n_neg}")
    bg = background if _is_markov(background) else background_frequencies(background, neg_codes)
    rows = []
    for order, motif in enumerate(motifs):
        low, tail = motif_null(motif, bg, pseudocount=pseudocount)
        cut = pvalue_threshold(low, tail, site_pvalue)
        best_pos = best_sequence_scores(motif, pos_codes, pos_off, bg, strand=strand, pseudocount=pseudocount)
        best_neg = best_sequence_scores(motif, neg_codes, neg_off, bg, strand=strand, pseudocount=pseudocount)
        a, b = int((best_pos >= cut).sum()), int((best_neg >= cut).sum())
        if method == "fisher":
            # P(X >= a), X hypergeometric: n_pos draws from n_pos + n_neg holding a + b sites
            p = float(stats.hypergeom.sf(a - 1, n_pos + n_neg, a + b, n_pos))
        else:
            p = _ranksum(best_pos, best_neg)
        row = {"motif": motif.name, "target_description": motif.description, "positives_with_site": a,
               "negatives_with_site": b, "p_value": min(max(p, 0.0), 1.0), "positives": n_pos, "negatives": n_neg,
               "positive_share": a / n_pos, "negative_share": b / n_neg, "site_score": cut / SCALE,
               "method": method, "_order": order}
        row.update(annotations.get(motif.name, {}))
        rows.append(row)
    table = pd.DataFrame(rows)
    table.insert(5, "q_value", bh_qvalues(table["p_value"].to_numpy()))
    table = table.sort_values(["p_value", "_order"], kind="stable").drop(columns="_order").reset_index(drop=True)
    table.attrs["background"] = (bg.letters if _is_markov(bg) else bg).tolist()
    if _is_markov(bg):
        table.attrs["background_order"] = bg.order
    return table


def _ranksum(best_pos, best_neg) -> float:
    """One-sided Mann-Whitney U p-value (positives score higher); sequences without a
    scorable window take the lowest score."""
    floor = min(best_pos.min(), best_neg.min())
    x, y = np.maximum(best_pos, floor), np.maximum(best_neg, floor)
    if np.all(x == x[0]) and np.all(y == x[0]):
        return 1.0
    return float(stats.mannwhitneyu(x, y, alternative="greater").pvalue)
