"""Read and encode: alphabets, integer codes, k-mer indices, FASTA files, sequence checks.

Symbols A=0, C=1, G=2, T=3 (RNA: U=3; protein: ``ACDEFGHIKLMNPQRSTVWY`` = 0..19); a
k-mer's index is its base-|alphabet| number, first symbol most significant.
"""

from ._alphabet import (DNA, INVALID, PROTEIN, RNA, Alphabet, decode, encode, get_alphabet, kmer_index, kmer_string,
                        window_indices)
from ._fasta import SequenceSet, as_codes, read_fasta, write_fasta
from ._store import CodesStore, encode_fasta_to_store, open_codes_store, write_codes_store

__all__ = ["Alphabet", "DNA", "RNA", "PROTEIN", "INVALID", "get_alphabet", "encode", "decode", "kmer_index",
           "kmer_string", "window_indices", "SequenceSet", "read_fasta", "write_fasta", "as_codes",
           "CodesStore", "encode_fasta_to_store", "open_codes_store", "write_codes_store"]
