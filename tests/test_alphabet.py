import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import seqimp
from seqimp.io import DNA, PROTEIN, RNA, decode, encode, get_alphabet, kmer_index, kmer_string, window_indices


def test_codes_follow_convention():
    codes = seqimp.encode(["ACGT", "acgt"])
    assert codes.dtype == np.uint8 and codes.shape == (2, 4)
    np.testing.assert_array_equal(codes, [[0, 1, 2, 3], [0, 1, 2, 3]])


def test_lookup_table_is_256_entries_and_case_insensitive():
    for alpha in (DNA, RNA, PROTEIN):
        assert alpha.lut.shape == (256,)
        for code, sym in enumerate(alpha.symbols):
            assert alpha.lut[ord(sym)] == code == alpha.lut[ord(sym.lower())]
        for sym in alpha.ambiguous:  # N, the IUPAC codes (X, B, Z, J): the unknown code, either case
            assert alpha.lut[ord(sym)] == alpha.unknown == alpha.lut[ord(sym.lower())] == alpha.size
        assert (alpha.lut != 255).sum() == 2 * (alpha.size + len(alpha.ambiguous))


def test_rna_and_protein():
    np.testing.assert_array_equal(encode(["ACGU"], "rna"), [[0, 1, 2, 3]])
    assert encode(["ACDEFGHIKLMNPQRSTVWY"], "protein")[0].tolist() == list(range(20))
    with pytest.raises(ValueError, match="invalid symbol 'T' at position 4"):
        encode(["ACGT"], "rna")


def test_unknown_alphabet():
    with pytest.raises(ValueError, match="unknown alphabet 'xna'"):
        get_alphabet("xna")


@pytest.mark.parametrize("bad, symbol, pos", [("ACZT", "'Z'", 3), ("AC1T", "'1'", 3), ("*CGT", r"'\*'", 1)])
def test_invalid_symbols_name_sequence_position_symbol(bad, symbol, pos):
    with pytest.raises(ValueError, match=rf"sequence 1: invalid symbol {symbol} at position {pos}"):
        encode(["ACGT", bad])


def test_unequal_lengths_name_sequence_and_lengths():
    with pytest.raises(ValueError, match="sequence 2 has length 3, but sequence 0 has length 4"):
        encode(["ACGT", "ACGT", "ACG"])


def test_kmer_index_examples():
    assert kmer_index("A") == 0 and kmer_index("T") == 3
    assert kmer_index("CA") == 4
    assert kmer_index("GATTACA") == int("2033010", 4)
    assert kmer_string(int("2033010", 4), 7) == "GATTACA"
    with pytest.raises(ValueError, match="index 16 out of range for k=2"):
        kmer_string(16, 2)


dna_strings = st.text(alphabet="ACGTacgt", min_size=1, max_size=40)


@given(st.lists(st.text(alphabet="ACGT", min_size=7, max_size=7), min_size=1, max_size=20))
def test_encode_decode_roundtrip(seqs):
    assert decode(encode(seqs)) == seqs


@given(dna_strings)
def test_kmer_index_string_roundtrip(kmer):
    index = kmer_index(kmer)
    assert 0 <= index < 4 ** len(kmer)
    assert kmer_string(index, len(kmer)) == kmer.upper()


@settings(max_examples=50)
@given(st.integers(min_value=1, max_value=8).flatmap(
    lambda k: st.tuples(st.just(k), st.integers(min_value=0, max_value=4 ** k - 1))))
def test_kmer_string_index_roundtrip(k_index):
    k, index = k_index
    assert kmer_index(kmer_string(index, k)) == index


def test_window_indices_match_kmer_index():
    rng = np.random.default_rng(0)
    codes = rng.integers(0, 4, size=(5, 12)).astype(np.uint8)
    seqs = decode(codes)
    for k in (1, 3, 5):
        idx = window_indices(codes, k)
        assert idx.shape == (5, 12 - k + 1)
        for r, s in enumerate(seqs):
            assert idx[r].tolist() == [kmer_index(s[i:i + k]) for i in range(12 - k + 1)]
    with pytest.raises(ValueError, match="window length k=13 must lie in 1..12"):
        window_indices(codes, 13)
