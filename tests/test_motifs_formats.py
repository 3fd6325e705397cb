"""Motif files: round trips, the toy database in three formats, JASPAR 2024, bad input."""

from pathlib import Path

import numpy as np
import pytest

from seqimp.errors import SeqimpError
from seqimp.motifs import Motif, read_meme, read_motifs, write_meme, write_motifs
from seqimp.motifs.known._formats import read_jaspar, read_transfac, write_jaspar, write_transfac

DATA = Path(__file__).resolve().parent / "data"
JASPAR = Path(__file__).resolve().parents[2] / "shared" / "data" / "jaspar" / \
    "JASPAR2024_CORE_vertebrates_non-redundant_pfms_transfac.txt"


def _random_motifs(seed=0):
    rng = np.random.default_rng(seed)
    return [Motif(f"m{i}", rng.dirichlet(np.full(4, 0.5), size=int(rng.integers(3, 13))), start=int(rng.integers(1, 40)),
                  spread=float(rng.uniform(0, 3)), sites=int(rng.integers(10, 500)), description=f"factor{i}")
            for i in range(5)]


@pytest.mark.parametrize("fmt, reader, atol", [("meme", read_meme, 1e-6), ("jaspar", read_jaspar, 1e-5),
                                               ("transfac", read_transfac, 1e-5)])
def test_round_trip(tmp_path, fmt, reader, atol):
    motifs = _random_motifs()
    path = tmp_path / f"m.{fmt}"
    text = write_motifs(motifs, path, fmt)
    assert path.read_text() == text
    back = reader(path)
    assert [m.name for m in back] == [m.name for m in motifs]
    assert [m.description for m in back] == [m.description for m in motifs]
    for a, b in zip(motifs, back):
        np.testing.assert_allclose(b.pwm, a.pwm, atol=atol)
        assert b.consensus == a.consensus
    assert read_motifs(path)[0].name == "m0"  # format recognised from the content
    if fmt == "meme":
        assert [m.sites for m in back] == [m.sites for m in motifs]
    if fmt == "transfac":  # seqimp's placement survives as CC lines
        assert [m.start for m in back] == [m.start for m in motifs]
        np.testing.assert_allclose([m.spread for m in back], [m.spread for m in motifs], rtol=1e-3)


def test_toy_database_agrees_across_formats():
    sets = [read_motifs(DATA / f"toy_motifs.{ext}") for ext in ("meme", "jaspar", "transfac")]
    assert len(sets[0]) == 8
    for other in sets[1:]:
        assert [m.name for m in other] == [m.name for m in sets[0]]
        for a, b in zip(sets[0], other):
            np.testing.assert_allclose(a.pwm, b.pwm, atol=1e-6)
    assert sets[0][0].consensus == "GATTACA" and sets[0][0].sites == 40


def test_jaspar_2024_transfac():
    if not JASPAR.exists():
        pytest.skip("shared JASPAR 2024 file is not present")
    motifs = read_motifs(JASPAR)
    assert len(motifs) > 800
    arnt = motifs[0]
    assert (arnt.name, arnt.description, arnt.consensus, arnt.sites) == ("MA0004.1", "Arnt", "CACGTG", 20)
    np.testing.assert_allclose(arnt.pwm[0], [4 / 20, 16 / 20, 0, 0])
    assert len({m.name for m in motifs}) == len(motifs)
    assert all(np.allclose(m.pwm.sum(axis=1), 1) for m in motifs)


def test_motif_object():
    m = Motif.from_consensus("x y", "ACGT", purity=0.7, start=3)
    assert m.name == "x_y" and m.consensus == "ACGT" and m.length == 4
    np.testing.assert_allclose(m.information_content(),
                               2 + 0.7 * np.log2(0.7) + 0.3 * np.log2(0.1))
    with pytest.raises(SeqimpError, match=r"shape \(m, 4\)"):
        Motif("bad", np.ones((3, 5)) / 5)
    with pytest.raises(SeqimpError, match="column 2 sums to"):
        Motif("bad", [[1, 0, 0, 0], [0.5, 0.2, 0, 0]])
    with pytest.raises(SeqimpError, match="start must be a 1-based position"):
        Motif("bad", [[1, 0, 0, 0]], start=0)
    with pytest.raises(SeqimpError, match="over ACGT"):
        Motif.from_consensus("bad", "ACGU")


def test_empty_database(tmp_path):
    empty = tmp_path / "empty.meme"
    empty.write_text("")
    with pytest.raises(SeqimpError, match="empty motif database"):
        read_motifs(empty)
    header_only = tmp_path / "h.meme"
    header_only.write_text(write_meme([]))
    with pytest.raises(SeqimpError, match="no motifs found"):
        read_meme(header_only)
    with pytest.raises(SeqimpError, match="no motifs found"):
        read_transfac(empty)
    with pytest.raises(SeqimpError, match="no such motif file"):
        read_motifs(tmp_path / "missing.meme")


def test_wrong_alphabet(tmp_path):
    m = _random_motifs()[:1]
    meme = tmp_path / "rna.meme"
    meme.write_text(write_meme(m).replace("ALPHABET= ACGT", "ALPHABET= ACGU"))
    with pytest.raises(SeqimpError, match=r"rna.meme, line 3: alphabet 'ACGU' is not supported"):
        read_motifs(meme)
    jaspar = tmp_path / "rna.jaspar"
    jaspar.write_text(write_jaspar(m).replace("\nT  [", "\nU  ["))
    with pytest.raises(SeqimpError, match="has rows 'ACGU'; only DNA rows"):
        read_motifs(jaspar)
    transfac = tmp_path / "protein.transfac"
    transfac.write_text(write_transfac(m).replace("PO\tA\tC\tG\tT", "PO\tA\tC\tD\tE"))
    with pytest.raises(SeqimpError, match="matrix columns 'ACDE'; only DNA"):
        read_motifs(transfac)


def test_malformed_files(tmp_path):
    m = _random_motifs()[:1]
    bad = tmp_path / "bad.meme"
    bad.write_text(write_meme(m).replace("\n 0.", "\n x.", 1))
    with pytest.raises(SeqimpError, match=r"bad.meme, line \d+: expected numbers"):
        read_meme(bad)
    short = tmp_path / "short.jaspar"
    short.write_text("\n".join(write_jaspar(m).splitlines()[:3]) + "\n")
    with pytest.raises(SeqimpError, match="needs 4 rows"):
        read_jaspar(short)
    unknown = tmp_path / "x.txt"
    unknown.write_text("hello\n")
    with pytest.raises(SeqimpError, match="cannot tell the motif format"):
        read_motifs(unknown)
    with pytest.raises(SeqimpError, match="unknown motif format"):
        read_motifs(unknown, "bogus")
