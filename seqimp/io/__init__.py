"""Read and encode: alphabets, integer codes, k-mer indices, FASTA files, and the one sequence check
(:func:`check_sequences`) every stage uses; BED regions cut from a genome, sequence tables with
measured values, shuffled negatives, position labels.

Symbols A=0, C=1, G=2, T=3 (RNA: U=3; protein: ``ACDEFGHIKLMNPQRSTVWY`` = 0..19); a
k-mer's index is its base-``|alphabet|`` number, first symbol most significant.
"""

from .._utils.lazy import lazy_exports

# public name -> the module that defines it; imported on first use (seqimp/_utils/lazy.py)
_EXPORTS = {
    "Alphabet": "_alphabet", "DNA": "_alphabet", "RNA": "_alphabet", "PROTEIN": "_alphabet",
    "get_alphabet": "_alphabet", "encode": "_alphabet", "decode": "_alphabet", "kmer_index": "_alphabet",
    "kmer_string": "_alphabet", "window_indices": "_alphabet",
    "reverse_complement_codes": "_strand",
    "SequenceSet": "_fasta", "read_fasta": "_fasta", "write_fasta": "_fasta",
    "read_bed": "_bed", "write_bed": "_bed", "hits_to_bed": "_bed",
    "open_genome": "_genome", "extract_windows": "_genome", "genome_negatives": "_genome", "oligomer_hits": "_genome",
    "read_vcf": "_vcf",
    "read_sequence_table": "_table_input",
    "position_labels": "_positions",
    "dinucleotide_shuffle": "_shuffle", "shuffle_negatives": "_shuffle",
    "open_codes_store": "_store", "encode_fasta_to_store": "_store",
}

__all__ = list(_EXPORTS)

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
