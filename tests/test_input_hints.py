"""Errors that point the way: each names the cause and the fix -- in the library's words
(``alphabet='protein'``, ``on_invalid='skip'``) and, on the command line, in its options
(``--alphabet protein``, ``--skip-invalid``) with no Python names."""

from pathlib import Path

import numpy as np
import pytest

from seqimp.cli import main
from seqimp.errors import SeqimpError
from seqimp.importance import POIMResult, StreamedPOIM
from seqimp.io import read_fasta
from seqimp.io._alphabet import guess_alphabet
from seqimp.io._fasta import fasta_summary
from seqimp.options import ImportanceOptions, ModelOptions
from seqimp.pipeline import run_poim
from seqimp.plot import poim_heatmap

DATA = Path(__file__).resolve().parent / "data"
PYTHON_NAMES = ("on_invalid", "alphabet='", "(on_", "=True", "=False")


@pytest.fixture()
def files(tmp_path):
    texts = {"protein": ">p1\nMKVLAAGIEFPQ\n>p2\nMKVLAAGIEFPW\n", "rna": ">r1\nACGUACGU\n>r2\nACGUUUGA\n",
             "ragged": ">d1\nACGTACGT\n>d2\nACGTAC\n", "ambiguous": ">a1\nACGTNCGT\n>a2\nACGTACGT\n",
             "invalid": ">a1\nACGTZCGT\n>a2\nACGTACGT\n",
             "binary": None}
    paths = {}
    for name, text in texts.items():
        paths[name] = tmp_path / f"{name}.fa"
        if text is None:
            paths[name].write_bytes(b">b1\nAC\x00\xffGT\n")
        else:
            paths[name].write_text(text)
    return paths


@pytest.mark.parametrize("letters, expected", [("ACGT", "dna"), ("acgt", "dna"), ("ACGU", "rna"),
                                               ("MKVLE", "protein"), ("MKVLEX*", "protein"), ("ACGTN", "dna"),
                                               ("ACGTRY", "dna"), ("ACGUN", "rna"), ("ACGTU", None),
                                               ("AC\x00", None), ("ACGTZ", None), ("ACDGHKMNRSTVWY", "dna")])
def test_guess_alphabet(letters, expected):
    assert guess_alphabet(letters) == expected


@pytest.mark.parametrize("kind", ["protein", "rna"])
def test_other_alphabets_are_named_with_their_fix(files, kind):
    with pytest.raises(SeqimpError, match=rf"invalid symbol .*; the letters look like {kind}: read with "
                                          rf"alphabet='{kind}'$") as info:
        read_fasta(files[kind])
    assert info.value.for_cli.endswith(f"the letters look like {kind}: add --alphabet {kind}")
    assert read_fasta(files[kind], kind).alphabet.name == kind


def test_skipping_every_record_of_a_protein_file_names_the_alphabet(files):
    with pytest.raises(SeqimpError, match=r"no records left after skipping invalid ones \(symbols outside the dna "
                                          r"alphabet\); the letters look like protein"):
        read_fasta(files["protein"], on_invalid="skip")


def test_ambiguity_codes_and_unequal_lengths(files):
    assert read_fasta(files["ambiguous"]).codes[0, 4] == 4  # N: an unknown base, not an error
    with pytest.raises(SeqimpError, match=r"invalid symbol 'Z' at position 5 .*; N or IUPAC codes \(NRYSWKMBDHV\) "
                                          r"are read as unknown; drop records with other symbols with "
                                          r"on_invalid='skip'$") as info:
        read_fasta(files["invalid"])
    assert info.value.for_cli.endswith("drop records with other symbols with --skip-invalid")
    with pytest.raises(SeqimpError, match=r"record 'd2' has length 6, but record 'd1' has length 8; positional "
                                          r"methods need sequences of equal length; cut windows of one width "
                                          r"around the sites \(seqimp\.io\.extract_windows") as info:
        read_fasta(files["ragged"])
    assert "--positive-bed PEAKS.bed --genome GENOME.fa --width W" in info.value.for_cli


def _cli_error(argv, capsys) -> str:
    assert main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("seqimp: error: ")
    assert not any(name in err[0] for name in PYTHON_NAMES), err[0]
    return err[0]


def test_cli_errors_use_options_not_python_names(files, tmp_path, capsys):
    other = tmp_path / "other.fa"
    for kind, fix in (("protein", "add --alphabet protein"), ("rna", "add --alphabet rna"),
                      ("invalid", "drop records with other symbols with --skip-invalid"),
                      ("ragged", "--positive-bed PEAKS.bed --genome GENOME.fa --width W")):
        other.write_bytes(files[kind].read_bytes())
        err = _cli_error(["train", "--positive", str(files[kind]), "--negative", str(other),
                          "--model-out", str(tmp_path / "m.npz")], capsys)
        assert err.endswith(fix) or fix in err, err
    other.write_text(">n1\nACGTAC\n>n2\nACGTAA\n")
    err = _cli_error(["train", "--positive", str(DATA / "planted_pos.fa"), "--negative", str(other),
                      "--model-out", str(tmp_path / "m.npz")], capsys)
    assert "has length 6; positional methods need one common length; cut windows of one width" in err
    err = _cli_error(["inspect", "--alphabet", "dna", "--skip-invalid", str(files["protein"])], capsys)
    assert err.endswith("the letters look like protein: add --alphabet protein")


def test_inspect_detects_the_alphabet(files, capsys):
    assert main(["inspect", str(files["protein"]), str(files["rna"])]) == 0
    out = capsys.readouterr().out
    protein, rna = out.split("\n\n")
    assert "alphabet:    protein (ACDEFGHIKLMNPQRSTVWY) -- detected from the letters" in protein
    assert "GC content" not in protein and "GC content:  43.8%" in rna
    assert main(["inspect", str(files["binary"]), str(files["ambiguous"]), str(files["ragged"])]) == 0
    binary, ambiguous, ragged = capsys.readouterr().out.split("\n\n")
    assert "0x00=1  0xff=1 in 1 of 1 records (bytes that are not sequence letters" in binary
    assert "ambiguity" not in binary
    assert "unknown:     1 base (N or IUPAC codes) in 1 of 2 records; read as unknown" in ambiguous
    assert "other symbols" not in ambiguous
    assert "6..8 (lengths differ; positional methods need one common length: cut windows" in ragged
    assert main(["inspect", "--alphabet", "protein", str(files["rna"])]) == 0
    assert "alphabet:    protein" in capsys.readouterr().out  # chosen, not detected
    assert "alphabet:    dna (ACGT) -- detected from the letters" in ambiguous
    assert main(["inspect", str(files["invalid"])]) == 0
    invalid = capsys.readouterr().out
    assert "alphabet:    dna (ACGT) -- assumed: the letters fit no alphabet exactly" in invalid
    assert "other symbols: Z=1 in 1 of 2 records (symbols outside the dna alphabet; choose another" in invalid
    assert fasta_summary(files["protein"], "auto")["alphabet_source"] == "detected"
    assert fasta_summary(files["protein"], "protein")["alphabet_source"] == "given"


def test_run_poim_into_a_missing_folder_names_cause_and_fix(tmp_path):
    pos, neg = read_fasta(DATA / "planted_pos.fa"), read_fasta(DATA / "planted_neg.fa")
    with pytest.raises(SeqimpError, match=r"out .*missing: no such folder; the run functions write into an "
                                          r"existing folder: create it first \(Path\(out\)\.mkdir"):
        run_poim(tmp_path / "missing", pos, neg, model=ModelOptions(degree=2),
                 importance=ImportanceOptions(max_order=2))
    assert not (tmp_path / "missing").exists()


def test_heatmap_of_an_order_without_full_tables_names_the_fix():
    tables = [np.zeros((12 - k + 1, 4 ** k)) for k in range(1, 7)]
    summary = StreamedPOIM.from_result(POIMResult(tables, tables, expected_score=0.0, score_std=1.0), top_n=5)
    with pytest.raises(SeqimpError, match=r"order 6 tables are not kept: .*--full-tables.*differential POIM.*"
                                          r"top\(n, order=6\)"):
        poim_heatmap(summary, 6)


def test_too_few_sequences_for_a_split_names_the_option(tmp_path, capsys):
    pos, neg = tmp_path / "p.fa", tmp_path / "n.fa"
    pos.write_text(">p1\nACGTACGT\n>p2\nACGTACGA\n")
    neg.write_text(">n1\nTTGTACGT\n>n2\nTTGTACGA\n")
    with pytest.raises(SeqimpError, match=r"too few sequences \(2 positive, 2 negative\) for a held-out split of "
                                          r"0\.2; add data or use test_fraction=0$"):
        run_poim(tmp_path, read_fasta(pos), read_fasta(neg), model=ModelOptions(degree=2),
                 importance=ImportanceOptions(max_order=2))
    err = _cli_error(["train", "--positive", str(pos), "--negative", str(neg), "--model-out",
                      str(tmp_path / "m.npz")], capsys)
    assert err.endswith("add data or use --test-fraction 0")
