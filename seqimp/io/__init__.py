"""Read and encode: alphabets, integer codes, k-mer indices, FASTA files, and the one sequence check
(:func:`check_sequences`) every stage uses; BED regions cut from a genome, sequence tables with
measured values, shuffled negatives, position labels.

Symbols A=0, C=1, G=2, T=3 (RNA: U=3; protein: ``ACDEFGHIKLMNPQRSTVWY`` = 0..19); a
k-mer's index is its base-|alphabet| number, first symbol most significant.
"""

from .._lazy import lazy_exports

# public name -> the module that defines it; imported on first use (seqimp/_lazy.py)
_EXPORTS = {
    "DNA": "_alphabet", "INVALID": "_alphabet", "PROTEIN": "_alphabet", "RNA": "_alphabet", "Alphabet": "_alphabet",
    "decode": "_alphabet", "encode": "_alphabet", "get_alphabet": "_alphabet", "kmer_index": "_alphabet",
    "kmer_string": "_alphabet", "window_indices": "_alphabet",
    "SequenceSet": "_fasta", "read_fasta": "_fasta", "write_fasta": "_fasta", "iter_fasta": "_fasta",
    "LENGTH_HINTS": "_fasta", "fasta_summary": "_fasta", "with_fix": "_fasta",
    "STORE_FILES": "_store", "check_store_out": "_store", "fill_codes_store": "_store",
    "CodesStore": "_store", "encode_fasta_to_store": "_store", "open_codes_store": "_store",
    "write_codes_store": "_store",
    "check_sequences": "_check",
    "hits_to_bed": "_bed", "read_bed": "_bed", "write_bed": "_bed",
    "GenomicWindows": "_genome", "extract_windows": "_genome", "genome_negatives": "_genome",
    "oligomer_hits": "_genome", "open_genome": "_genome",
    "format_position": "_positions", "position_labels": "_positions",
    "dinucleotide_shuffle": "_shuffle", "shuffle_negatives": "_shuffle",
    "require_dna": "_strand", "reverse_complement_codes": "_strand", "reverse_complement_index": "_strand",
    "read_vcf": "_vcf", "variant_windows": "_variant_windows",
    "LabelledSequences": "_labelled", "encode_labelled": "_labelled", "alphabet_of": "_labelled",
    "source_of": "_labelled",
    "MeasuredSequences": "_table_input", "read_sequence_table": "_table_input",
    "PaddedSequences": "_any_length", "read_any_length": "_any_length", "centred_windows": "_any_length",
    "pad_records": "_any_length",
}

__all__ = ["Alphabet", "DNA", "RNA", "PROTEIN", "INVALID", "get_alphabet", "encode", "decode", "kmer_index",
           "kmer_string", "window_indices", "SequenceSet", "read_fasta", "write_fasta",
           "check_sequences", "read_bed", "write_bed", "hits_to_bed", "GenomicWindows", "open_genome",
           "extract_windows", "genome_negatives", "oligomer_hits", "position_labels", "format_position",
           "dinucleotide_shuffle", "shuffle_negatives", "require_dna", "reverse_complement_codes",
           "MeasuredSequences", "read_sequence_table", "CodesStore", "encode_fasta_to_store", "open_codes_store",
           "write_codes_store", "LabelledSequences", "encode_labelled", "alphabet_of", "source_of",
           "PaddedSequences", "read_any_length", "centred_windows", "pad_records"]

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
