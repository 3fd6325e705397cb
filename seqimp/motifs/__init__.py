"""Motifs from POIMs: candidates, PWM reconstruction, motif files, matches to known motifs.

* :class:`Motif` -- a PWM (m, 4) with a 1-based start, a positional spread and a score;
* :func:`motif_candidates` -- peaks of the differential POIM (length and position);
* :func:`assemble_motif` -- greedy PWM from overlapping top positional oligomers;
* :func:`implied_poim`, :func:`fit_motifs` -- the POIM implied by motifs and the
  block-convex least-squares fit of PWMs, starts and spreads to an observed POIM;
* :func:`discover_motifs` -- all of the above in one call;
* :func:`read_motifs`, :func:`write_meme`, :func:`write_jaspar`, :func:`write_transfac`, ...
  -- MEME minimal, JASPAR and TRANSFAC files;
* :func:`count_sites` -- site counts in the positive sequences (a calibrated PWM);
* :func:`compare_motifs` -- TOMTOM matches against a database (memelite), p- and q-values.
"""

from .._lazy import lazy_exports

# public name -> owning submodule of seqimp.motifs
_EXPORTS = {
    "Motif": "motif",
    "information_content": "motif",
    "motif_candidates": "candidates",
    "assemble_motif": "candidates",
    "implied_poim": "implied",
    "placement_weights": "implied",
    "fit_motifs": "fit",
    "MotifFit": "fit",
    "simplex_lstsq": "fit",
    "trim_motif": "fit",
    "discover_motifs": "discover",
    "MotifDiscovery": "discover",
    "motif_table": "discover",
    "read_motifs": "formats",
    "write_motifs": "formats",
    "read_meme": "formats",
    "write_meme": "formats",
    "read_jaspar": "formats",
    "write_jaspar": "formats",
    "read_transfac": "formats",
    "write_transfac": "formats",
    "compare_motifs": "compare",
    "bh_qvalues": "compare",
    "count_sites": "sites",
}

__all__ = sorted(_EXPORTS)


__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
