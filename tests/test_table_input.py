"""Sequences with measured values from TSV/CSV tables, and regression metrics."""

import gzip
import logging

import numpy as np
import pytest

from seqimp import SeqimpError
from seqimp.io import decode, read_sequence_table
from seqimp.io._table_input import MeasuredSequences
from seqimp.kernels import WDRegressor, regression_metrics
from seqimp.kernels._metrics import holdout_regression_metrics

MOTIF = "TATAAT"


def planted_table(n=300, length=30, seed=0):
    """Random sequences; those with TATAAT at 0-based 12 have a value about 3 higher."""
    rng = np.random.default_rng(seed)
    seqs, values = [], []
    for i in range(n):
        s = list(rng.choice(list("ACGT"), size=length))
        has = i % 2 == 0
        if has:
            s[12:18] = MOTIF
        seqs.append("".join(s))
        values.append(3.0 * has + rng.normal(scale=0.5))
    return seqs, np.array(values)


def write_tsv(path, seqs, values, sep="\t", extra=""):
    text = f"id{sep}sequence{sep}activity\n" + "".join(
        f"r{i}{sep}{s}{sep}{v:.4f}\n" for i, (s, v) in enumerate(zip(seqs, values))) + extra
    if str(path).endswith(".gz"):
        path.write_bytes(gzip.compress(text.encode()))
    else:
        path.write_text(text)
    return path


@pytest.mark.parametrize("name, sep", [("t.tsv", "\t"), ("t.csv", ","), ("t.tsv.gz", "\t"), ("t.dat", ";")])
def test_read_table_and_planted_motif(tmp_path, name, sep):
    seqs, values = planted_table()
    data = read_sequence_table(write_tsv(tmp_path / name, seqs, values, sep), sequence_column="sequence",
                               value_column="activity", id_column="id")
    assert isinstance(data, MeasuredSequences) and data.codes.shape == (300, 30)
    assert decode(data.codes[:2]) == seqs[:2] and data.ids[:2] == ["r0", "r1"]
    assert np.allclose(data.values, np.round(values, 4)) and not data.binary
    assert data.lines[:2].tolist() == [2, 3]
    if name == "t.tsv":     # the planted motif raises the value: a WD regressor finds it, held out
        metrics = holdout_regression_metrics(WDRegressor(degree=3, alpha=1.0), data, data.values, random_state=0)
        assert metrics["n_test"] == 60 and metrics["r2"] > 0.5 and metrics["spearman"] > 0.6


@pytest.mark.parametrize("row, message", [
    ("r9\t\t1.0\n", r"line 4: empty sequence in column 'sequence'"),
    ("r9\tACGTACGT\tabc\n", r"line 4: value 'abc' in column 'activity' is not a number"),
    ("r9\tACGTACGT\tNaN\n", r"line 4: value 'NaN' in column 'activity' is missing or not finite"),
    ("r9\tACGTACGT\t\n", r"line 4: value '' in column 'activity' is missing or not finite"),
    ("r9\tACGTACG\t1.0\n", r"line 4: sequence has length 7, but the first sequence \(line 2\) has length 8"),
    ("r9\tACGTZCGT\t1.0\n", r"line 4: invalid symbol 'Z' at position 5 \(alphabet dna: ACGT\)"),
])
def test_bad_rows_are_named_by_line(tmp_path, row, message):
    path = tmp_path / "bad.tsv"
    # three measured values (two would be two labels), the bad row on line 4
    path.write_text("id\tsequence\tactivity\nr1\tACGTACGT\t0.5\n\nr2\tACGTACGA\t1.5\n".replace("\n\n", "\n")
                    + row + "r3\tACGTACGC\t2.5\n")
    with pytest.raises(SeqimpError, match=r"--table .*bad\.tsv: " + message):
        read_sequence_table(path, sequence_column="sequence", value_column="activity")


def test_blank_lines_keep_line_numbers_and_skip_mode(tmp_path):
    path = tmp_path / "b.tsv"
    path.write_text("sequence\tactivity\nACGT\t1\n\nACGT\tx\nACG\t2\nACGT\t3\n")
    with pytest.raises(SeqimpError, match=r"line 4: value 'x'"):
        read_sequence_table(path, sequence_column="sequence", value_column="activity")
    data = read_sequence_table(path, sequence_column="sequence", value_column="activity", on_invalid="skip")
    assert data.values.tolist() == [1.0, 3.0] and data.lines.tolist() == [2, 6]
    assert data.dropped == {"empty_sequence": 0, "bad_value": 1, "wrong_length": 1, "bad_symbol": 0}
    assert data.ids == ["line2", "line6"]


def test_missing_column(tmp_path):
    path = write_tsv(tmp_path / "t.tsv", ["ACGT"], [1.0])
    with pytest.raises(SeqimpError, match=r"--value-column 'expr': no such column in .*t\.tsv "
                                          r"\(columns: id, sequence, activity\)"):
        read_sequence_table(path, sequence_column="sequence", value_column="expr")


@pytest.mark.parametrize("labels, classes", [(["0", "1"], ("0", "1")), (["-1", "1"], ("-1", "1")),
                                             (["bound", "unbound"], ("bound", "unbound"))])
def test_binary_label_column_is_detected(tmp_path, labels, classes):
    path = tmp_path / "c.csv"
    path.write_text("seq,label\n" + "".join(f"ACGTAC,{labels[i % 2]}\n" for i in range(6)))
    data = read_sequence_table(path, sequence_column="seq", value_column="label")
    assert data.binary and data.classes == classes
    assert data.labels.tolist() == [0, 1, 0, 1, 0, 1]
    two_numbers = tmp_path / "d.csv"
    two_numbers.write_text("seq,label\nACGT,2.5\nACGT,7\n")
    two = read_sequence_table(two_numbers, sequence_column="seq", value_column="label")
    assert two.binary and two.classes == ("2.5", "7")  # any two numbers are two labels; the smaller is negative


def test_protein_table(tmp_path):
    path = tmp_path / "p.tsv"
    path.write_text("sequence\tactivity\nMKVLAW\t1.0\nMKVLAY\t2.0\n")
    data = read_sequence_table(path, sequence_column="sequence", value_column="activity", alphabet="protein")
    assert data.alphabet.name == "protein" and data.codes.shape == (2, 6)
    with pytest.raises(SeqimpError, match=r"line 3: invalid symbol 'O' at position 2 \(alphabet protein"):
        path.write_text("sequence\tactivity\nMKVLAW\t1.0\nMOVLAY\t2.0\n")
        read_sequence_table(path, sequence_column="sequence", value_column="activity", alphabet="protein")
    path.write_text("sequence\tactivity\nMKVLAW\t1.0\nMBVLAX\t2.0\n")  # B and X: unknown residues (20)
    data = read_sequence_table(path, sequence_column="sequence", value_column="activity", alphabet="protein")
    assert data.codes[1].tolist() == [10, 20, 17, 9, 0, 20]


def test_unknown_and_soft_masked_bases(tmp_path, caplog):
    path = tmp_path / "n.tsv"
    path.write_text("sequence\tactivity\nACGTNCGT\t0.5\nacgtACGT\t1.5\nACGTACGY\t2.5\nACGTACGT\t3.5\n")
    with caplog.at_level(logging.INFO, logger="seqimp"):
        data = read_sequence_table(path, sequence_column="sequence", value_column="activity")
    assert data.codes[:, 4].tolist() == [4, 0, 0, 0] and data.codes[2, 7] == 4 and len(data) == 4
    assert f"--table {path}: 2 of 4 records hold unknown bases (N or IUPAC codes), 2 bases in all; read as unknown" \
        in caplog.messages
    masked = read_sequence_table(path, sequence_column="sequence", value_column="activity", mask_lowercase=True)
    assert masked.codes[1].tolist() == [4, 4, 4, 4, 0, 1, 2, 3]
    np.testing.assert_array_equal(np.delete(masked.codes, 1, axis=0), np.delete(data.codes, 1, axis=0))


def test_regression_metrics():
    y = np.array([1.0, 2.0, 3.0, 4.0, 5.0])
    m = regression_metrics(y, y ** 3)
    assert m["spearman"] == pytest.approx(1.0) and m["n"] == 5 and m["r2"] < 1
    assert regression_metrics(y, y)["r2"] == pytest.approx(1.0)
    assert np.isnan(regression_metrics(y, np.ones(5))["spearman"])
    with pytest.raises(SeqimpError, match="5 values but 4 predictions"):
        regression_metrics(y, y[:4])


def test_binary_column_with_a_missing_label(tmp_path):
    path = tmp_path / "m.tsv"
    path.write_text("seq\tlabel\nACGT\tyes\nACGA\tno\nACGC\t\n")
    with pytest.raises(SeqimpError, match=r"line 4: label '' in column 'label' is missing \(the column holds the "
                                          r"labels 'no' and 'yes'\)"):
        read_sequence_table(path, sequence_column="seq", value_column="label")
