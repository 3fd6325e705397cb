import gzip
import re
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import seqimp
from seqimp.io import SequenceSet, read_fasta, write_fasta


def write(path, text):
    path.write_text(text)
    return path


def test_read_plain_and_gzip(tmp_path):
    text = ">a first\nACGT\nacgt\n>b\nTTTT\nGGGG\n"
    plain = write(tmp_path / "x.fa", text)
    gz = tmp_path / "x.fa.gz"
    with gzip.open(gz, "wt") as fh:
        fh.write(text)
    for path in (plain, gz):
        s = seqimp.read_fasta(path)
        assert len(s) == 2 and s.ids == ["a", "b"] and s.length == 8
        assert s.codes.dtype == np.uint8
        np.testing.assert_array_equal(s.codes[0], [0, 1, 2, 3, 0, 1, 2, 3])
        assert s.sequences() == ["ACGTACGT", "TTTTGGGG"]


def test_gzip_detected_by_content_not_name(tmp_path):
    path = tmp_path / "reads.fasta"
    with gzip.open(path, "wt") as fh:
        fh.write(">r\nACGT\n")
    assert read_fasta(path).sequences() == ["ACGT"]


def test_empty_file(tmp_path):
    with pytest.raises(ValueError, match=r"empty\.fa: file is empty"):
        read_fasta(write(tmp_path / "empty.fa", "\n\n"))


def test_no_header(tmp_path):
    with pytest.raises(ValueError, match=r"plain\.txt: not FASTA: .* does not start with '>'"):
        read_fasta(write(tmp_path / "plain.txt", "ACGT\nACGT\n"))


def test_unequal_lengths_name_record_and_both_lengths(tmp_path):
    path = write(tmp_path / "u.fa", ">a\nACGT\n>b\nACGT\n>c\nACG\n")
    with pytest.raises(ValueError, match=r"u\.fa: record 'c' has length 3, but record 'a' has length 4"):
        read_fasta(path)


@pytest.mark.parametrize("symbol", ["Z", "7", "*", "J"])
def test_invalid_symbol_names_record_position_symbol(tmp_path, symbol):
    path = write(tmp_path / "bad.fa", f">ok\nACGTA\n>bad1\nAC{symbol}TA\n")
    expected = rf"bad\.fa: record 'bad1': invalid symbol {re.escape(repr(symbol))} at position 3"
    with pytest.raises(ValueError, match=expected):
        read_fasta(path)


@pytest.mark.parametrize("raw, named, position", [
    ("ACéTA".encode(), "'é' (U+00E9)", 3),              # UTF-8: one letter, at its position
    ("ACGT\u200b".encode(), "U+200B", 5),               # a zero-width space: printed as nothing
    (b"AC\xe9TA", "byte 0xe9", 3),                       # Latin-1: not UTF-8, named as a byte
    ("ACGTAé".encode(), "'é' (U+00E9)", 6),             # one letter longer: named before the lengths
])
def test_a_character_beyond_ascii_is_named_at_its_position(tmp_path, raw, named, position):
    path = tmp_path / "u.fa"
    path.write_bytes(b">ok\nACGTA\n>bad1\n" + raw + b"\n")
    expected = rf"u\.fa: record 'bad1': invalid symbol {re.escape(named)} at position {position} \(alphabet dna"
    with pytest.raises(ValueError, match=expected):
        read_fasta(path)
    if position < 6:  # records of one length in letters: the invalid one is dropped
        with pytest.warns(UserWarning, match="skipped 1 of 2 records"):
            assert read_fasta(path, on_invalid="skip").ids == ["ok"]


def test_encode_names_a_character_beyond_ascii_of_a_string_or_a_byte():
    from seqimp.io import encode

    with pytest.raises(ValueError, match=r"sequence 1: invalid symbol '€' \(U\+20AC\) at position 2"):
        encode(["ACGT", "A€GT"])  # not Latin-1: once read as '?'
    with pytest.raises(ValueError, match=r"sequence 0: invalid symbol byte 0xc3 at position 3"):
        encode([b"AC\xc3\xa9T"])
    with pytest.raises(ValueError, match=r"sequence 0: invalid symbol '\?' at position 1"):
        encode(["?CGT"])


def test_titles_in_utf8_or_latin1_and_a_byte_order_mark(tmp_path):
    path = tmp_path / "t.fa"
    path.write_bytes("\ufeff>séq1 x\nACGT\n".encode() + b">s\xe9q2\nACGT\n")
    assert read_fasta(path).ids == ["séq1", "séq2"]  # a title that is not UTF-8 is read as Latin-1


def test_skip_invalid_warns_with_count(tmp_path):
    path = write(tmp_path / "bad.fa", ">a\nACGT\n>b\nAZGT\n>c\n1CGT\n>d\nTTTT\n>e\nANGR\n")
    with pytest.warns(UserWarning, match="skipped 2 of 5 records"):
        s = read_fasta(path, on_invalid="skip")
    assert s.ids == ["a", "d", "e"]  # N and R are unknown bases, not invalid
    assert s.codes[2].tolist() == [0, 4, 2, 4]
    with pytest.raises(ValueError, match="on_invalid must be 'error' or 'skip'"):
        read_fasta(path, on_invalid="ignore")


def test_skip_all_invalid(tmp_path):
    path = write(tmp_path / "n.fa", ">a\nZZZZ\n")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(ValueError, match="no records left"):
            read_fasta(path, on_invalid="skip")


def test_missing_path_and_directory(tmp_path):
    with pytest.raises(ValueError, match=r"nope\.fa: no such file"):
        read_fasta(tmp_path / "nope.fa")
    with pytest.raises(ValueError, match="is a directory"):
        read_fasta(tmp_path)


def test_truncated_gzip(tmp_path):
    full = tmp_path / "full.fa.gz"
    with gzip.open(full, "wt") as fh:
        for r in range(2000):
            fh.write(f">r{r}\n{'ACGT' * 25}\n")
    data = full.read_bytes()
    cut = tmp_path / "cut.fa.gz"
    cut.write_bytes(data[: len(data) // 2])
    with pytest.raises(ValueError, match=r"cut\.fa\.gz: cannot read"):
        read_fasta(cut)


def test_protein_fasta(tmp_path):
    path = write(tmp_path / "p.fa", ">p\nMKWVT\n")
    s = read_fasta(path, alphabet="protein")
    assert s.alphabet.name == "protein" and s.sequences() == ["MKWVT"]


def test_sequence_set_helpers():
    s = SequenceSet(seqimp.encode(["AACC", "GGTT"]))
    assert s.ids == ["seq1", "seq2"] and len(s) == 2
    np.testing.assert_allclose(s.composition(), [0.25] * 4)
    assert s.subset([False, True]).sequences() == ["GGTT"]
    assert "n=2" in repr(s)


records = st.lists(st.text(alphabet="ACGT", min_size=9, max_size=9), min_size=1, max_size=15)


@settings(max_examples=30, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(records, st.sampled_from([0, 4, 60]), st.booleans())
def test_write_read_roundtrip(tmp_path, seqs, width, compress):
    path = tmp_path / ("rt.fa.gz" if compress else "rt.fa")
    ids = [f"id{r}" for r in range(len(seqs))]
    write_fasta(path, seqs, ids, width=width)
    back = read_fasta(path)
    assert back.ids == ids and back.sequences() == seqs


def test_fasta_summary_matches_read_fasta_and_counts_ragged_files(tmp_path):
    from seqimp.io._fasta import fasta_summary

    rng = np.random.default_rng(3)
    seqs = ["".join(rng.choice(list("ACGT"), 12)) for _ in range(20)]
    path = tmp_path / "equal.fa"
    write_fasta(path, seqs)
    summary = fasta_summary(path)
    np.testing.assert_allclose(summary["composition"], read_fasta(path).composition())
    assert (summary["records"], summary["min_length"], summary["max_length"]) == (20, 12, 12)
    ragged = [s[: 3 + i % 7] for i, s in enumerate(seqs)]
    path = tmp_path / "ragged.fa"
    write_fasta(path, ragged)
    summary = fasta_summary(path)
    joined = "".join(ragged)
    np.testing.assert_allclose(summary["composition"], [joined.count(c) / len(joined) for c in "ACGT"])
    assert (summary["min_length"], summary["max_length"]) == (3, 9)
    path.write_text(">r1\nACG\n>r2\nACGT\n>r3\nAZG\n>r4\nANNa\n")
    with pytest.raises(ValueError, match=r"ragged\.fa: record 'r3': invalid symbol 'Z' at position 2 .*"
                                         r"are read as unknown; drop records with other symbols with "
                                         r"on_invalid='skip'$") as info:
        fasta_summary(path, on_invalid="error")
    assert info.value.for_cli.endswith("drop records with other symbols with --skip-invalid")  # the command line's
    summary = fasta_summary(path)  # the default reports them
    assert summary["invalid"] == {"Z": 1} and summary["invalid_records"] == 1 and summary["records"] == 4
    assert (summary["unknown"], summary["unknown_records"]) == (2, 1)
    np.testing.assert_allclose(summary["composition"], np.array([5, 2, 3, 1]) / 11)  # A, C, G, T; Z, N not counted
    masked = fasta_summary(path, mask_lowercase=True)
    assert (masked["unknown"], masked["unknown_records"]) == (3, 1)
    np.testing.assert_allclose(masked["composition"], np.array([4, 2, 3, 1]) / 10)
