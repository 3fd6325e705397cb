"""Motifs: from POIMs and trained models to PWMs with sites, matches to known motifs, motif files.

Discovery, in the order a run takes its steps (one internal module each; docs/architecture.md,
"Where a new motif step goes"):

1. :func:`motif_candidates` (``_candidates``): peaks of the differential POIM, their noise level,
   greedy PWMs from overlapping top positional oligomers, position-free k-mers;
2. :func:`fit_motifs` (``_fit``): the block-convex least-squares fit of PWMs, starts and spreads to
   an observed POIM, through :func:`implied_poim` (the POIM implied by motifs);
   :func:`discover_motifs` (``_discover``): steps 1 and 2 in one call;
3. :func:`refine_motifs` (``_refine``): EM (ZOOPS) refinement on the sequences, calibrated sites,
   enrichment, held out too; seeds that do not come from a POIM: :func:`gkm_seed_motifs` (a
   gapped-k-mer model's l-mer weights and seqlets) and :func:`word_seeds` (enriched words);
4. :func:`site_scores` (``_sites``): log-odds scores of windows, the site threshold;
5. :func:`select_motifs` (``_select``): the enriched motifs, copies merged, renamed;
   :func:`scanning_motifs` (``_scanning_pwm``): each one's PWM for scanning whole sequences.

The search of a run, from these steps to the motifs it reports (each model's route, the rounds
of explaining away, sites in padding), is the subpackage ``search``.

Known motifs (the subpackage ``known``): :func:`read_motifs`, :func:`write_motifs`,
:func:`read_meme`, :func:`write_meme` (MEME, JASPAR, TRANSFAC and HOMER files);
:class:`MotifDatabase`, :func:`load_database`, :func:`jaspar_motifs`, :func:`jaspar_releases`
(a file or a JASPAR release through the optional pyjaspar package); :func:`compare_motifs`,
:func:`database_matches` (TOMTOM, memelite); :func:`scan_sequences` (sites with exact p-values,
FIMO-like); :func:`enrich_motifs` (enrichment in positives against negatives, SEA/AME-like).
:class:`Motif` is a PWM (m, 4) with a 1-based start, a positional spread and a score.
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
