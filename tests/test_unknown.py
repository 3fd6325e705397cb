"""Unknown bases as the readers take them (seqimp/io/_unknown.py): N and the IUPAC codes read as the
unknown code 4 with no record dropped, soft-masked letters read as unknown with mask_lowercase, one log
line per file, padding of records of any lengths, and the command line's inspect and encode."""

import logging
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from seqimp.cli import main
from seqimp.io import decode, encode, read_fasta, reverse_complement_codes, write_fasta
from seqimp.io._any_length import pad_records, read_any_length
from seqimp.io._unknown import count_unknown, lookup_table, mask_text

FASTA = Path(__file__).resolve().parent / "data" / "unknown_bases.fa"
#: What the fixture holds: 4 records of 20 nt; peak1 N N R Y (+ acgt soft-masked), peak3 nnnn, peak4 N at 20.
UNKNOWN = {"peak1": [4, 5, 14, 15], "peak2": [], "peak3": [0, 1, 2, 3], "peak4": [19]}
LOWER = {"peak1": [10, 11, 12, 13], "peak2": [], "peak3": [], "peak4": [4, 5, 6, 7]}


def test_read_fasta_keeps_every_record_and_reads_unknown_as_code_4(caplog):
    with caplog.at_level(logging.INFO, logger="seqimp"):
        s = read_fasta(FASTA)
    assert s.ids == list(UNKNOWN) and s.codes.shape == (4, 20) and s.skipped == 0
    for r, rid in enumerate(s.ids):
        np.testing.assert_array_equal(np.flatnonzero(s.codes[r] == 4), UNKNOWN[rid])
    assert s.sequences()[0] == "ACGTNNACGTACGTNNACGT"  # R and Y written back as N
    assert caplog.messages == [f"{FASTA}: 3 of 4 records hold unknown bases (N or IUPAC codes), 9 bases in all; "
                               "read as unknown"]
    np.testing.assert_allclose(s.composition().sum(), 1.0)  # of the known bases only, shape (4,)
    assert s.composition().shape == (4,)


def test_mask_lowercase_reads_soft_masked_bases_as_unknown(caplog):
    with caplog.at_level(logging.INFO, logger="seqimp"):
        s = read_fasta(FASTA, mask_lowercase=True)
    for r, rid in enumerate(s.ids):
        np.testing.assert_array_equal(np.flatnonzero(s.codes[r] == 4), sorted(UNKNOWN[rid] + LOWER[rid]))
    assert caplog.messages == [f"{FASTA}: 3 of 4 records hold unknown bases (N or IUPAC codes, soft-masked lower "
                               "case), 17 bases in all; read as unknown"]
    ids, codes, _src, skipped = read_any_length(FASTA, mask_lowercase=True)
    np.testing.assert_array_equal(np.stack(codes), s.codes)
    assert ids == s.ids and skipped == 0


@settings(max_examples=80, deadline=None)
@given(st.lists(st.text(alphabet="ACGTNRYacgtnry", min_size=7, max_size=7), min_size=1, max_size=5))
def test_mask_lowercase_equals_writing_lowercase_as_n(seqs):
    masked = encode([mask_text(s, "dna") for s in seqs])
    np.testing.assert_array_equal(masked, encode(["".join("N" if c.islower() else c for c in s) for s in seqs]))
    np.testing.assert_array_equal(masked, lookup_table("dna", True)[np.frombuffer("".join(seqs).encode(), np.uint8)]
                                  .reshape(len(seqs), 7))
    assert count_unknown(masked, "dna") == (int((masked == 4).any(axis=1).sum()), int((masked == 4).sum()))


def test_mask_lowercase_keeps_letters_outside_the_alphabet_invalid(tmp_path):
    path = tmp_path / "z.fa"
    path.write_text(">a\nACGz\n>b\nACGT\n")
    with pytest.raises(ValueError, match=r"record 'a': invalid symbol 'z' at position 4"):
        read_fasta(path, mask_lowercase=True)
    assert mask_text("MkvXb", "protein") == "MXXXX" and lookup_table("protein", True)[ord("k")] == 20


def test_reverse_complement_keeps_unknown_bases():
    codes = encode(["ACNGTR"])
    assert decode(reverse_complement_codes(codes)) == ["NACNGT"]


def test_padding_of_records_of_any_lengths_is_unknown_bases():
    sets = [(["a", "b"], [encode("ACG")[0], encode("ACGTNA")[0]], "pos.fa"), (["c"], [encode("T")[0]], "neg.fa")]
    pos, neg = pad_records(sets)
    assert decode(pos.codes) == ["ACGNNN", "ACGTNA"] and decode(neg.codes) == ["TNNNNN"]
    assert pos.record_lengths.tolist() == [3, 6] and neg.record_lengths.tolist() == [1]
    assert pos.ids == ["a", "b"] and pos.source == "pos.fa"


def test_cli_inspect_counts_unknown_bases(capsys):
    assert main(["inspect", str(FASTA)]) == 0
    out = capsys.readouterr().out
    assert "records:     4" in out and "alphabet:    dna (ACGT) -- detected" in out
    assert "unknown:     9 bases (N or IUPAC codes) in 3 of 4 records; read as unknown" in out
    assert "lower case:  8 bases in 2 of 4 records (soft-masked repeats?), read as bases; --mask-lowercase" in out
    assert main(["inspect", "--mask-lowercase", str(FASTA)]) == 0
    out = capsys.readouterr().out
    assert "unknown:     17 bases (N or IUPAC codes, soft-masked lower case) in 3 of 4 records; read as unknown" in out
    assert "lower case:" not in out


def test_cli_encode_keeps_every_record_and_logs_the_count(tmp_path, capsys):
    assert main(["encode", "--fasta", str(FASTA), "--out", str(tmp_path / "s")]) == 0
    captured = capsys.readouterr()
    assert "4 sequences of length 20 written to" in captured.out
    assert f"{FASTA}: 3 of 4 records hold unknown bases (N or IUPAC codes), 9 bases in all; read as unknown" \
        in captured.err
    codes = np.load(tmp_path / "s" / "codes.npy")
    np.testing.assert_array_equal(codes, read_fasta(FASTA).codes)
    assert main(["encode", "--mask-lowercase", "--fasta", str(FASTA), "--out", str(tmp_path / "m")]) == 0
    np.testing.assert_array_equal(np.load(tmp_path / "m" / "codes.npy"), read_fasta(FASTA, mask_lowercase=True).codes)


def test_write_fasta_round_trip_of_unknown_bases(tmp_path):
    s = read_fasta(FASTA)
    write_fasta(tmp_path / "out.fa", s)
    np.testing.assert_array_equal(read_fasta(tmp_path / "out.fa").codes, s.codes)


def test_fasta_summary_counts_lower_case_read_as_bases():
    from seqimp.io._fasta import fasta_summary

    plain, masked = fasta_summary(FASTA), fasta_summary(FASTA, mask_lowercase=True)
    assert (plain["lowercase"], plain["lowercase_records"]) == (8, 2)  # acgt of peak1 and peak4; 'nnnn' is unknown
    assert (masked["lowercase"], masked["lowercase_records"]) == (0, 0)
    assert masked["unknown"] == plain["unknown"] + plain["lowercase"]
