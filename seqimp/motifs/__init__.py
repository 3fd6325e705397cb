"""Motifs from POIMs: candidates, PWM reconstruction, motif files, matches to known motifs.

* :class:`Motif` -- a PWM (m, 4) with a 1-based start, a positional spread and a score;
* :func:`motif_candidates`, :func:`noise_level` -- peaks of the differential POIM (length and
  position) and their noise level;
* :func:`position_free_candidates` -- k-mers whose importance is spread over the positions;
* :func:`pwm_similarity`, :func:`same_motif`, :func:`merge_similar` -- copies of a motif
  (moved, reverse complement);
* :func:`assemble_motif` -- greedy PWM from overlapping top positional oligomers;
* :func:`implied_poim`, :func:`fit_motifs` -- the POIM implied by motifs and the
  block-convex least-squares fit of PWMs, starts and spreads to an observed POIM;
* :func:`discover_motifs` -- all of the above in one call;
* :func:`read_motifs`, :func:`write_meme`, :func:`write_jaspar`, :func:`write_transfac`, ...
  -- MEME minimal, JASPAR and TRANSFAC files;
* :func:`refine_motifs` -- EM (ZOOPS) refinement on the sequences, calibrated sites, enrichment;
* :func:`count_sites` -- site counts in the positive sequences (a calibrated PWM);
* :class:`MotifDatabase`, :func:`load_database` -- known motifs from a file or a JASPAR release
  (:func:`jaspar_motifs`, :func:`jaspar_releases`: through the optional pyjaspar package);
* :func:`compare_motifs` -- TOMTOM matches against a database (memelite), p- and q-values,
  uninformative columns trimmed, a decoy-calibrated verdict ("no significant match").
"""

from ._candidates import assemble_motif, motif_candidates, noise_level
from ._free import position_free_candidates
from ._similar import merge_similar, pwm_similarity, same_motif
from ._database import MotifDatabase, database_info, database_label
from ._load import load_database
from ._jaspar import jaspar_motifs, jaspar_releases
from ._compare import best_matches, bh_qvalues, compare_motifs, match_line, meme_pseudocount, trim_uninformative
from ._discover import MotifDiscovery, discover_motifs, motif_table
from ._fit import MotifFit, fit_motifs, simplex_lstsq, trim_motif
from ._formats import (read_jaspar, read_meme, read_motifs, read_transfac, write_jaspar, write_meme, write_motifs,
                       write_transfac)
from ._implied import implied_poim, placement_weights
from ._motif import Motif, information_content
from ._refine import MotifSites, refine_motifs, site_scores
from ._sites import count_sites

__all__ = ["Motif", "information_content", "motif_candidates", "assemble_motif", "implied_poim", "placement_weights",
           "fit_motifs", "MotifFit", "simplex_lstsq", "trim_motif", "discover_motifs", "MotifDiscovery",
           "motif_table", "read_motifs", "write_motifs", "read_meme", "write_meme", "read_jaspar", "write_jaspar",
           "read_transfac", "write_transfac", "compare_motifs", "bh_qvalues", "best_matches", "match_line", "trim_uninformative", "meme_pseudocount", "count_sites", "noise_level",
           "position_free_candidates", "pwm_similarity", "same_motif", "merge_similar", "refine_motifs",
           "MotifSites", "site_scores", "MotifDatabase", "load_database", "database_info", "database_label", "jaspar_motifs",
           "jaspar_releases"]
