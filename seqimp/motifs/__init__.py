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
words most enriched in the positives, no model).
"""

from .._lazy import lazy_exports

# public name -> the module that defines it; imported on first use (seqimp/_lazy.py)
_EXPORTS = {
    "Motif": "_motif", "information_content": "_motif",
    "assemble_motif": "_candidates", "motif_candidates": "_candidates", "noise_level": "_candidates",
    "position_free_candidates": "_candidates",
    "implied_poim": "_implied_poim", "placement_weights": "_implied_poim",
    "MotifFit": "_fit", "fit_motifs": "_fit", "simplex_lstsq": "_fit", "trim_motif": "_fit",
    "merge_similar": "_copies", "pwm_similarity": "_copies", "same_motif": "_copies",
    "MotifDiscovery": "_discover", "discover_motifs": "_discover", "motif_table": "_discover",
    "MotifSites": "_refine", "refine_motifs": "_refine",
    "site_scores": "_sites", "has_site": "_sites", "site_threshold": "_sites", "sites_passing": "_sites",
    "mask_sites": "_sites",
    "tune_pwm": "_tune",
    "scanning_motifs": "_scanning", "quantised_pwm": "_scanning", "sharpened_pwm": "_scanning", "site_pwm": "_scanning",
    "gkm_seed_motifs": "_gkm_seeds", "GkmSeeds": "_gkm_seeds", "lmer_seeds": "_gkm_seeds", "gkm_seeds": "_gkm_seeds",
    "EM_ITERATIONS": "_gkm_seeds",
    "word_seeds": "_word_seeds", "WORD_LENGTHS": "_word_seeds", "WORD_MAX_PVALUE": "_word_seeds",
    "select_motifs": "_select",
    "format_pvalue": "_stats",
    "best_matches": "_compare", "bh_qvalues": "_compare", "compare_motifs": "_compare",
    "database_matches": "_compare", "match_line": "_compare", "meme_pseudocount": "_compare",
    "trim_uninformative": "_compare",
    "read_homer": "_formats", "read_jaspar": "_formats", "read_meme": "_formats", "read_motifs": "_formats",
    "read_transfac": "_formats", "write_homer": "_formats", "write_jaspar": "_formats", "write_meme": "_formats",
    "write_motifs": "_formats", "write_transfac": "_formats",
    "MotifDatabase": "_database", "database_info": "_database", "database_label": "_database",
    "load_database": "_load",
    "jaspar_motifs": "_jaspar", "jaspar_releases": "_jaspar", "pyjaspar_available": "_jaspar",
    "INSTALL_HINT": "_jaspar", "tomtom_warmup": "_compare",
    "score_distribution": "_scan", "score_matrix": "_scan", "score_pvalues": "_scan", "scan_sequences": "_scan",
    "enrich_motifs": "_enrich",
}

__all__ = ["Motif", "information_content",
           "motif_candidates", "noise_level", "assemble_motif", "position_free_candidates",
           "implied_poim", "placement_weights", "fit_motifs", "MotifFit", "simplex_lstsq", "trim_motif",
           "pwm_similarity", "same_motif", "merge_similar",
           "discover_motifs", "MotifDiscovery", "motif_table",
           "refine_motifs", "MotifSites", "site_scores", "gkm_seed_motifs", "word_seeds", "tune_pwm",
           "select_motifs", "scanning_motifs", "sharpened_pwm", "site_pwm",
           "compare_motifs", "database_matches", "bh_qvalues", "best_matches", "match_line", "trim_uninformative",
           "meme_pseudocount",
           "read_motifs", "write_motifs", "read_meme", "write_meme", "read_jaspar", "write_jaspar", "read_transfac",
           "write_transfac", "read_homer", "write_homer",
           "MotifDatabase", "load_database", "database_info", "database_label", "jaspar_motifs", "jaspar_releases",
           "scan_sequences", "score_matrix", "score_distribution", "score_pvalues", "enrich_motifs"]

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
