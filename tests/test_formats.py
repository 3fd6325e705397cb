"""Motif formats and their header checks: HOMER in and out,
MEME's and STREME's text output read without a format, MEME header fields refused with file
and line, JASPAR collections by name, a run folder as a motif source."""

from pathlib import Path

import numpy as np
import pytest

from seqimp.errors import SeqimpError
from seqimp.motifs import Motif, load_database, read_motifs, write_meme
from seqimp.motifs.known._formats import read_homer, write_homer
from seqimp.motifs.known._scan import score_matrix, score_pvalues
from seqimp.motifs.known._jaspar import parse_jaspar_name
from seqimp.motifs.known._scan import SCALE

STREME = Path(__file__).resolve().parents[2] / "shared" / "data" / "motif_benchmark" / "streme_planted.txt"

STREME_LIKE = """\
********************************************************************************
STREME - Sensitive, Thorough, Rapid, Enriched Motif Elicitation
********************************************************************************
MEME version 5.5.8 (Release date: none)

********************************************************************************
ALPHABET= ACGT

strands: + -

Background letter frequencies
A 0.25 C 0.25 G 0.25 T 0.25

MOTIF 1-TGAC STREME-1
letter-probability matrix: alength= 4 w= 4 nsites= 120 E= 1.4e-091
 0.05 0.05 0.05 0.85
 0.05 0.05 0.85 0.05
 0.85 0.05 0.05 0.05
 0.05 0.85 0.05 0.05

MOTIF 2-AAT STREME-2
letter-probability matrix: alength= 4 w= 3 nsites= 12 E= 3.3e+000
 0.85 0.05 0.05 0.05
 0.85 0.05 0.05 0.05
 0.05 0.05 0.05 0.85
"""


def _motifs():
    rng = np.random.default_rng(0)
    return [Motif(f"m{i}", rng.dirichlet(np.full(4, 0.5), size=10), description=f"factor {i}") for i in range(3)]


def test_homer_round_trip_and_threshold(tmp_path):
    motifs = _motifs()
    text = write_homer(motifs, tmp_path / "m.motif")
    back = read_motifs(tmp_path / "m.motif")  # recognised as HOMER from the content
    assert [m.name for m in back] == [m.name for m in motifs]
    for a, b in zip(motifs, back):
        np.testing.assert_allclose(b.pwm, a.pwm, atol=1e-3)
    header = text.splitlines()[0].split("\t")
    assert header[0] == ">" + motifs[0].consensus and header[1] == "m0/factor_0"
    # the threshold is the natural-log score of p-value 1e-4 under a uniform background
    bg = np.full(4, 0.25)
    low, tail = score_pvalues(score_matrix(motifs[0], bg), bg)
    score = round(float(header[2]) / np.log(2) * SCALE)
    assert tail[score - low] <= 1e-4 < tail[score - low - 1]


def test_homer_file_as_homer_writes_it(tmp_path):
    path = tmp_path / "known.motifs"
    path.write_text(">TGACTCA\tAP-1(bZIP)/ThioMac-PU.1-ChIP-Seq(GSE21512)/Homer\t6.049\n"
                    "0.419\t0.275\t0.277\t0.028\n0.001\t0.001\t0.001\t0.997\n0.010\t0.002\t0.965\t0.023\n")
    (m,) = read_homer(path)
    assert m.name == "AP-1(bZIP)" and m.description.endswith("/Homer") and m.consensus == "ATG"
    path.write_text(">TGA\tname\t6\n0.1 0.2 0.7\n")
    with pytest.raises(SeqimpError, match=r"line 2: motif name: expected 4 numbers"):
        read_homer(path)


def test_streme_text_output_read_without_format(tmp_path):
    path = tmp_path / "streme.txt"
    path.write_text(STREME_LIKE)
    motifs = load_database(path)
    assert [m.name for m in motifs] == ["1-TGAC", "2-AAT"]
    assert motifs[0].sites == 120 and motifs[0].evalue == pytest.approx(1.4e-91)
    if STREME.exists():  # the real STREME 5.5.8 output, outside the repository
        real = load_database(STREME)
        assert real[0].name == "1-CCASYAGRKGGCRS" and real[0].length == 14


@pytest.mark.parametrize("field, value, message", [
    ("w=", "four", r"w= 'four' is not a whole number >= 1"),
    ("w=", "inf", r"w= 'inf' is not a whole number >= 1"),
    ("w=", "2.5", r"w= '2.5' is not a whole number"),
    ("alength=", "nan", r"alength= 'nan' is not a whole number"),
    ("alength=", "20", r"alength= 20; only DNA"),
    ("nsites=", "many", r"nsites= 'many' is not a finite number >= 0"),
    ("nsites=", "-3", r"nsites= '-3' is not a finite number >= 0"),
    ("E=", "NaN", r"E= 'NaN' is not a finite number >= 0"),
    ("E=", "inf", r"E= 'inf' is not a finite number >= 0"),
])
def test_meme_header_fields_are_checked(tmp_path, field, value, message):
    good = {"alength=": "4", "w=": "4", "nsites=": "120", "E=": "1.4e-091"}
    good[field] = value
    text = STREME_LIKE.replace("alength= 4 w= 4 nsites= 120 E= 1.4e-091",
                               " ".join(f"{k} {v}" for k, v in good.items()))
    path = tmp_path / "bad.meme"
    path.write_text(text)
    with pytest.raises(SeqimpError, match=rf"bad.meme, line 15: motif 1-TGAC: {message}"):
        read_motifs(path)


def test_meme_round_trip_keeps_evalue(tmp_path):
    motifs = [Motif("a", np.full((3, 4), 0.25), sites=7, evalue=2.5e-8)]
    write_meme(motifs, tmp_path / "a.meme")
    assert read_motifs(tmp_path / "a.meme")[0].evalue == pytest.approx(2.5e-8, rel=1e-2)


@pytest.mark.parametrize("text, expected", [
    ("JASPAR2024", ("CORE", "vertebrates")),
    ("jaspar2024:insects", ("CORE", "insects")),
    ("JASPAR2024:plants", ("CORE", "plants")),
    ("JASPAR2024:all", ("CORE", "all")),
    ("JASPAR2024:UNVALIDATED", ("UNVALIDATED", "vertebrates")),
    ("JASPAR2022:CORE:fungi", ("CORE", "fungi")),
])
def test_jaspar_names(text, expected):
    spec = parse_jaspar_name(text)
    assert (spec["collection"], spec["tax_group"]) == expected
    assert parse_jaspar_name("motifs.meme") is None


def test_jaspar_collection_insects():
    pytest.importorskip("pyjaspar", reason="needs pyjaspar: pip install '.[jaspar]'")
    db = load_database("JASPAR2024:insects")
    assert db.info["tax_group"] == "insects" and len(db) > 50
    assert "insects" in db.label


def test_run_folder_is_a_motif_source(tmp_path):
    write_meme(_motifs(), tmp_path / "motifs.meme")
    assert [m.name for m in load_database(tmp_path)] == ["m0", "m1", "m2"]
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(SeqimpError, match="a folder without motifs.meme"):
        load_database(empty)
