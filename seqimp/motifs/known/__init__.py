"""Known motifs: motif files (MEME, JASPAR, TRANSFAC, HOMER; ``_formats``), databases from a file
or a JASPAR release (``_database``, ``_load``, ``_jaspar``), TOMTOM comparison and matches
(``_compare``), sites with exact p-values (``_scan``, FIMO-like) and enrichment in positives
against negatives (``_enrich``, SEA/AME-like). Public names are exported by :mod:`seqimp.motifs`.
"""
