"""Motifs from POIMs: candidates, PWM fit, refinement and sites on the sequences, selection,
matches to known motifs, motif files.

The steps in the order a run takes them (one module each; docs/architecture.md, "Where a
new motif step goes"):

1. ``_candidates`` -- :func:`motif_candidates`, :func:`noise_level`: peaks of the differential
   POIM (length and position) and their noise level; :func:`assemble_motif`: a greedy PWM from
   overlapping top positional oligomers; :func:`position_free_candidates`: k-mers whose
   importance is spread over the positions;
2. ``_fit`` -- :func:`fit_motifs`: the block-convex least-squares fit of PWMs, starts and
   spreads to an observed POIM, through :func:`implied_poim` (``_implied_poim``: the POIM
   implied by motifs); ``_copies`` -- :func:`pwm_similarity`, :func:`same_motif`,
   :func:`merge_similar`: copies of a motif (moved, reverse complement);
   ``_discover`` -- :func:`discover_motifs`: steps 1 and 2 in one call;
3. ``_refine`` -- :func:`refine_motifs`: EM (ZOOPS) refinement on the sequences, calibrated
   sites, enrichment (held out too), through ``_zoops_fit`` (one motif's EM fit, its columns
   and window, and its refits on held-out halves);
4. ``_sites`` -- :func:`site_scores`: log-odds scores of windows, the site threshold, the best
   window per sequence (what :func:`refine_motifs` counts sites with);
5. ``_select`` -- :func:`select_motifs`: the enriched motifs, copies merged, renamed;
   ``_scanning`` -- :func:`scanning_motifs`: each one's PWM for scanning whole sequences, fitted
   to separate positives from the control at 1% FPR against its Markov background, and its
   threshold;
6. ``_compare`` -- :func:`compare_motifs`: TOMTOM matches against a database (memelite), p-
   and q-values, uninformative columns trimmed, a decoy-calibrated verdict ("no significant
   match"); :func:`database_matches`: the matches a run reports.

Around them: :class:`Motif` -- a PWM (m, 4) with a 1-based start, a positional spread and a
score; :func:`read_motifs`, :func:`write_meme`, :func:`write_jaspar`, :func:`write_transfac`,
... -- MEME minimal, JASPAR and TRANSFAC files; :class:`MotifDatabase`, :func:`load_database`
-- known motifs from a file or a JASPAR release (:func:`jaspar_motifs`,
:func:`jaspar_releases`: through the optional pyjaspar package); ``_scan`` --
:func:`scan_sequences`: sites of known motifs with exact p-values (FIMO-like); ``_enrich`` --
:func:`enrich_motifs`: enrichment of known motifs in positives against negatives (SEA/AME-like).
Seeds that do not come from a POIM, for step 3 on: ``_gkm_seeds`` -- :func:`gkm_seed_motifs`
(a gapped-k-mer model's l-mer weights and seqlets); ``_word_seeds`` -- :func:`word_seeds` (the
words most enriched in the positives, no model). The search of a run, from these steps to the
motifs it reports (each model's route, the rounds of explaining away), is the subpackage ``search``.
"""

from .._utils.lazy import lazy_exports

# public name -> the module that defines it; imported on first use (seqimp/_utils/lazy.py)
_EXPORTS = {
    "Motif": "_motif",
    "discover_motifs": "_discover", "MotifDiscovery": "_discover",
    "motif_candidates": "_candidates",
    "fit_motifs": "_fit", "MotifFit": "_fit",
    "implied_poim": "_implied_poim",
    "refine_motifs": "_refine", "MotifSites": "_refine",
    "site_scores": "_sites",
    "select_motifs": "_select",
    "scanning_motifs": "_scanning_pwm",
    "gkm_seed_motifs": "_gkm_seeds",
    "word_seeds": "_word_seeds",
    "compare_motifs": "known._compare", "database_matches": "known._compare",
    "read_motifs": "known._formats", "write_motifs": "known._formats", "read_meme": "known._formats",
    "write_meme": "known._formats",
    "MotifDatabase": "known._database",
    "load_database": "known._load",
    "jaspar_motifs": "known._jaspar", "jaspar_releases": "known._jaspar",
    "scan_sequences": "known._scan",
    "enrich_motifs": "known._enrich",
}

__all__ = list(_EXPORTS)

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
