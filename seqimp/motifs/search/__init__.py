"""The motif search of a run, from a model or a POIM to the motifs it reports: the route of each
model (``_poim_route``: a POIM's candidates, and the POIM of a WD model trained on the sequences;
``_gkm_route``: a gapped-k-mer model's l-mers and seqlets; ``_word_route``: the words most
enriched in the positives, no model), the ending they share (``_run``: :class:`MotifRun`,
refinement and sites on the sequences, the enriched motifs, matches), the rounds of explaining
away (``_rounds``), the candidates tested one at a time after them until three fail in a row
(``_depth``; gapped words among its candidates, ``_gapped_words``), the search of a run that trains its model (``_trained_search``: the model
chosen, trained, searched, explained away) and the sites left out of records padded to one
length (``_padding``). It writes no result file (the positional rounds keep a POIM in a folder the
caller gives): :mod:`seqimp.pipeline` runs it and writes what it found.
"""
