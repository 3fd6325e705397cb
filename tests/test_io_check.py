"""The one sequence check, seqimp.io._check.check_sequences: every accepted form and every refusal."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from seqimp import SeqimpError
from seqimp.io import SequenceSet, decode, encode
from seqimp.io._check import check_sequences

records = st.integers(1, 12).flatmap(
    lambda length: st.lists(st.text(alphabet="ACGTacgt", min_size=length, max_size=length), min_size=1, max_size=8))


@settings(max_examples=50, deadline=None)
@given(records)
def test_every_accepted_form_gives_the_same_codes(seqs):
    # independent reference: the symbol's place in "ACGT", one character at a time
    ref = np.array([["ACGT".index(c) for c in s.upper()] for s in seqs], dtype=np.uint8)
    for x in (seqs, tuple(seqs), [s.encode() for s in seqs], ref, ref.astype(np.int64), ref.tolist(),
              SequenceSet(ref)):
        got = check_sequences(x, "X", length=ref.shape[1])
        assert got.dtype == np.uint8 and got.flags.c_contiguous
        np.testing.assert_array_equal(got, ref)
    np.testing.assert_array_equal(check_sequences(seqs[0]), ref[:1])   # one string = one sequence


def test_a_sequence_set_is_returned_without_copy_and_other_alphabets_work():
    s = SequenceSet(encode(["ACGT", "TTTT"]))
    assert check_sequences(s) is s.codes
    protein = check_sequences(["WYV"], "X", alphabet="protein")
    assert decode(protein, "protein") == ["WYV"]
    np.testing.assert_array_equal(check_sequences(np.array([[19, 0]]), alphabet="protein"), [[19, 0]])


@pytest.mark.parametrize("x, kwargs, message", [
    ([], {}, r"^positive: no sequences$"),
    (np.zeros((0, 5), dtype=np.uint8), {}, r"^positive: no sequences$"),
    (SequenceSet(np.zeros((0, 3), dtype=np.uint8)), {}, r"^positive: no sequences$"),
    (["", ""], {}, r"^positive: the sequences are empty \(length 0\)$"),
    (["ACGT", "ACGT", "ACGT", "ACG"], {}, r"^positive: sequence 3 has length 3, expected 4 "),
    (["ACGTA", "ACGTA"], {"length": 4}, r"^positive: sequence 0 has length 5, expected 4$"),
    (np.zeros((2, 5), dtype=int), {"length": 6}, r"^positive: sequence 0 has length 5, expected 6$"),
    (["ACGT", "ACZT"], {}, r"^positive: sequence 1: invalid symbol 'Z' at position 3 \(alphabet dna: ACGT\)$"),
    (["ACGT", "ACNT"], {}, r"^positive: sequence 1 holds an unknown symbol \(N or another ambiguity code\) at "
                           r"position 3, which this method cannot read$"),
    (np.array([[0, 1], [2, 4]]), {}, r"^positive: sequence 1 holds an unknown symbol .* at position 2"),
    (np.array([[0, 1], [2, 5]]), {"unknown": True}, r"^positive: sequence 1: code 5 at position 2 is outside 0\.\.4 "),
    (np.array([[0, -1]]), {}, r"^positive: sequence 0: code -1 at position 2 is outside 0\.\.4 "),
    (np.array([0, 1, 2]), {}, r"^positive: encoded sequences must have shape \(n, L\), got \(3,\); "
                              r"write codes\[None, :\] for one sequence$"),
    (np.zeros((2, 3, 4), dtype=int), {}, r"shape \(n, L\), got \(2, 3, 4\)$"),
    (np.zeros((2, 3)), {}, r"^positive: encoded sequences must be an integer array, got dtype float64$"),
    (5, {}, r"^positive: sequences must be strings, a SequenceSet or an integer array \(n, L\), got int$"),
    (SequenceSet(np.zeros((1, 3), dtype=np.uint8), alphabet="protein"), {},
     r"^positive is a protein SequenceSet, but alphabet='dna'; pass alphabet='protein'$"),
    (["ACGT"], {"length": 0}, r"^length must be a positive integer, got 0$"),
])
def test_refusals_name_the_argument(x, kwargs, message):
    with pytest.raises(SeqimpError, match=message):
        check_sequences(x, "positive", **kwargs)


def test_a_reader_of_unknown_letters_gets_the_unknown_code():
    np.testing.assert_array_equal(check_sequences(["ACNT", "RYgt"], unknown=True), [[0, 1, 4, 3], [4, 4, 2, 3]])
    np.testing.assert_array_equal(check_sequences(["MXV"], alphabet="protein", unknown=True), [[10, 20, 17]])


