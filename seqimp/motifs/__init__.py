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
   sites, enrichment (held out too);
4. ``_sites`` -- :func:`site_scores`: log-odds scores of windows, the site threshold, the best
   window per sequence (what :func:`refine_motifs` counts sites with);
5. ``_select`` -- :func:`select_motifs`: the enriched motifs, copies merged, renamed;
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
"""

from ._motif import Motif, information_content
from ._candidates import assemble_motif, motif_candidates, noise_level, position_free_candidates
from ._implied_poim import implied_poim, placement_weights
from ._fit import MotifFit, fit_motifs, simplex_lstsq, trim_motif
from ._copies import merge_similar, pwm_similarity, same_motif
from ._discover import MotifDiscovery, discover_motifs, motif_table
from ._refine import MotifSites, refine_motifs
from ._sites import site_scores
from ._select import select_motifs
from ._compare import (best_matches, bh_qvalues, compare_motifs, database_matches, match_line, meme_pseudocount,
                       trim_uninformative)
from ._formats import (read_homer, read_jaspar, read_meme, read_motifs, read_transfac, write_homer, write_jaspar,
                       write_meme, write_motifs, write_transfac)
from ._database import MotifDatabase, database_info, database_label
from ._load import load_database
from ._jaspar import jaspar_motifs, jaspar_releases
from ._scan import score_distribution, score_matrix, score_pvalues, scan_sequences
from ._enrich import enrich_motifs

__all__ = ["Motif", "information_content",
           "motif_candidates", "noise_level", "assemble_motif", "position_free_candidates",
           "implied_poim", "placement_weights", "fit_motifs", "MotifFit", "simplex_lstsq", "trim_motif",
           "pwm_similarity", "same_motif", "merge_similar",
           "discover_motifs", "MotifDiscovery", "motif_table",
           "refine_motifs", "MotifSites", "site_scores",
           "select_motifs",
           "compare_motifs", "database_matches", "bh_qvalues", "best_matches", "match_line", "trim_uninformative",
           "meme_pseudocount",
           "read_motifs", "write_motifs", "read_meme", "write_meme", "read_jaspar", "write_jaspar", "read_transfac",
           "write_transfac", "read_homer", "write_homer",
           "MotifDatabase", "load_database", "database_info", "database_label", "jaspar_motifs", "jaspar_releases",
           "scan_sequences", "score_matrix", "score_distribution", "score_pvalues", "enrich_motifs"]
