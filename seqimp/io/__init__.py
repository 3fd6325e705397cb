"""Read and encode: alphabets, integer codes, k-mer indices, FASTA files, and the one sequence check
(:func:`check_sequences`) every stage uses; BED regions cut from a genome, sequence tables with
measured values, shuffled negatives, position labels.

Symbols A=0, C=1, G=2, T=3 (RNA: U=3; protein: ``ACDEFGHIKLMNPQRSTVWY`` = 0..19); a
k-mer's index is its base-|alphabet| number, first symbol most significant.
"""

from ._alphabet import (DNA, INVALID, PROTEIN, RNA, Alphabet, decode, encode, get_alphabet, kmer_index, kmer_string,
                        window_indices)
from ._fasta import SequenceSet, read_fasta, write_fasta
from ._store import CodesStore, encode_fasta_to_store, open_codes_store, write_codes_store
from ._check import check_sequences
from ._bed import hits_to_bed, read_bed, write_bed
from ._genome import GenomicWindows, extract_windows, genome_negatives, oligomer_hits, open_genome
from ._positions import format_position, position_labels
from ._shuffle import dinucleotide_shuffle, shuffle_negatives
from ._strand import require_dna, reverse_complement_codes
from ._table_input import MeasuredSequences, read_sequence_table

__all__ = ["Alphabet", "DNA", "RNA", "PROTEIN", "INVALID", "get_alphabet", "encode", "decode", "kmer_index",
           "kmer_string", "window_indices", "SequenceSet", "read_fasta", "write_fasta",
           "check_sequences", "read_bed", "write_bed", "hits_to_bed", "GenomicWindows", "open_genome",
           "extract_windows", "genome_negatives", "oligomer_hits", "position_labels", "format_position",
           "dinucleotide_shuffle", "shuffle_negatives", "require_dna", "reverse_complement_codes",
           "MeasuredSequences", "read_sequence_table", "CodesStore", "encode_fasta_to_store", "open_codes_store",
           "write_codes_store"]
