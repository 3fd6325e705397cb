"""JASPAR releases through pyjaspar (seqimp.motifs.known._jaspar) and motif databases by file or
name (seqimp.motifs.known._database): checked against JASPAR's own TRANSFAC file (when
../shared/data is present) and against the SQLite tables pyjaspar ships, read here with plain SQL."""

import sqlite3
import sys
from pathlib import Path

import numpy as np
import pytest

from seqimp.errors import SeqimpError
from seqimp.motifs import Motif, MotifDatabase, jaspar_motifs, jaspar_releases, load_database, read_motifs, write_meme
from seqimp.motifs.known._database import database_info, database_label
from seqimp.motifs.known._jaspar import parse_jaspar_name

TRANSFAC = ("jaspar", "JASPAR2024_CORE_vertebrates_non-redundant_pfms_transfac.txt")


@pytest.fixture(scope="module")
def jaspar2024():
    pytest.importorskip("pyjaspar", reason="needs pyjaspar: pip install '.[jaspar]'")
    return jaspar_motifs("JASPAR2024")


def _sqlite_latest(release, collection, tax_group):
    """{matrix ID: (name, counts (m, 4))} of the latest version of every matrix of a collection
    and tax group, straight from pyjaspar's SQLite file (no pyjaspar code)."""
    import pyjaspar

    path = Path(pyjaspar.__file__).parent / "data" / f"{release}.sqlite"
    with sqlite3.connect(path) as conn:
        latest = conn.execute(
            "select m.ID, m.BASE_ID, m.VERSION, m.NAME from MATRIX m where m.COLLECTION = ? "
            "and m.VERSION = (select max(v.VERSION) from MATRIX v where v.BASE_ID = m.BASE_ID) "
            "and m.ID in (select ID from MATRIX_ANNOTATION where TAG = 'tax_group' and VAL = ?)",
            (collection, tax_group)).fetchall()
        out = {}
        for internal, base, version, name in latest:
            cells = conn.execute("select row, col, val from MATRIX_DATA where ID = ?", (internal,)).fetchall()
            counts = np.zeros((max(c for _r, c, _v in cells), 4))
            for row, col, val in cells:
                counts[col - 1, "ACGT".index(row.upper())] = val
            out[f"{base}.{version}"] = (name, counts)
    return out


def test_jaspar_2024_core_vertebrates_is_the_non_redundant_set(jaspar2024):
    assert isinstance(jaspar2024, MotifDatabase) and len(jaspar2024) == 879
    assert all(isinstance(m, Motif) for m in jaspar2024)
    names = [m.name for m in jaspar2024]
    assert names == sorted(names) and len(set(names)) == 879
    fos_jun = jaspar2024[names.index("MA0099.4")]
    assert fos_jun.description == "FOS::JUN" and fos_jun.consensus == "ATGAGTCAT"
    assert jaspar2024.annotations["MA0099.4"] == {"tf_class": "Basic leucine zipper factors (bZIP)",
                                                  "tf_family": "Fos-related; Jun-related"}
    assert jaspar2024.info == {"release": "JASPAR2024", "collection": "CORE", "tax_group": "vertebrates",
                               "motifs": 879, "source": jaspar2024.info["source"],
                               "attribution": "JASPAR 2024 (Rauluseviciute et al., Nucleic Acids Res. 2024), "
                                              "CC BY 4.0, via pyjaspar"}
    assert jaspar2024.info["source"].startswith("pyjaspar ")
    assert jaspar2024.label == "JASPAR2024 CORE vertebrates (879 motifs)"


def test_matrices_are_the_sqlite_counts(jaspar2024):
    """Every matrix against the counts read from the SQLite tables with plain SQL (tolerance
    1e-12 on the probabilities)."""
    table = _sqlite_latest("JASPAR2024", "CORE", "vertebrates")
    assert sorted(table) == [m.name for m in jaspar2024]
    for m in jaspar2024:
        name, counts = table[m.name]
        assert m.description == name
        np.testing.assert_allclose(m.pwm, counts / counts.sum(axis=1, keepdims=True), rtol=0, atol=1e-12)


def test_matrices_equal_jaspars_transfac_file(jaspar2024, shared_data):
    """The same motifs as read_motifs gives for JASPAR's own TRANSFAC file: names, factor names,
    sites (the pseudocount of TOMTOM depends on them) and PWMs (tolerance 1e-12)."""
    from_file = {m.name: m for m in read_motifs(shared_data.joinpath(*TRANSFAC))}
    assert sorted(from_file) == [m.name for m in jaspar2024]
    for m in jaspar2024:
        f = from_file[m.name]
        assert (m.description, m.sites, m.length) == (f.description, f.sites, f.length), m.name
        np.testing.assert_allclose(m.pwm, f.pwm, rtol=0, atol=1e-12)


def test_ids_select_matrices_in_the_order_given():
    pytest.importorskip("pyjaspar", reason="needs pyjaspar: pip install '.[jaspar]'")
    db = jaspar_motifs("jaspar2024", ids=["MA0835.3", "MA0099"])  # a base ID: the latest version
    assert [(m.name, m.description) for m in db] == [("MA0835.3", "BATF3"), ("MA0099.4", "FOS::JUN")]
    assert db.info["ids"] == ["MA0835.3", "MA0099"] and db.info["collection"] is None
    old = jaspar_motifs("JASPAR2024", ids=["MA0099.2"])
    assert old[0].name == "MA0099.2" and old[0].length != db[1].length
    with pytest.raises(SeqimpError, match=r"^JASPAR2024 has no matrix 'MA9999.1'$"):
        jaspar_motifs("JASPAR2024", ids=["MA9999.1"])


def test_other_releases_collections_and_groups():
    pytest.importorskip("pyjaspar", reason="needs pyjaspar: pip install '.[jaspar]'")
    assert {"JASPAR2014", "JASPAR2022", "JASPAR2024"} <= set(jaspar_releases())
    plants = jaspar_motifs("JASPAR2024", tax_group="Plants")
    assert len(plants) == len(_sqlite_latest("JASPAR2024", "CORE", "plants")) > 100
    assert plants.info["tax_group"] == "plants"
    every = jaspar_motifs("JASPAR2024", tax_group="all")
    assert len(every) > len(plants) + 879 and every.info["tax_group"] == "all"
    assert "JASPAR 2022 (Castro-Mondragon et al." in jaspar_motifs("JASPAR2022", ids=["MA0099"]).info["attribution"]


def test_unknown_release_and_empty_selection_say_what_exists():
    pytest.importorskip("pyjaspar", reason="needs pyjaspar: pip install '.[jaspar]'")
    with pytest.raises(SeqimpError, match=r"^unknown JASPAR release 'JASPAR1999'; pyjaspar has JASPAR2014, "
                                          r"JASPAR2016, .*JASPAR2024"):
        jaspar_motifs("JASPAR1999")
    with pytest.raises(SeqimpError, match=r"^JASPAR2024 has no motifs in collection 'CORE' for tax group "
                                          r"'martians' \(collections: .*CORE.*; tax groups: .*vertebrates"):
        jaspar_motifs("JASPAR2024", tax_group="martians")


def test_missing_pyjaspar_is_one_line_with_the_install_command(monkeypatch):
    monkeypatch.setitem(sys.modules, "pyjaspar", None)  # import pyjaspar now raises ImportError
    message = r"^reading a JASPAR release needs the pyjaspar package: pip install 'seqimp\[jaspar\]'$"
    with pytest.raises(SeqimpError, match=message):
        jaspar_motifs()
    with pytest.raises(SeqimpError, match=message):
        load_database("JASPAR2024")


def test_parse_jaspar_name():
    assert parse_jaspar_name("jaspar2024") == {"release": "JASPAR2024", "collection": "CORE",
                                               "tax_group": "vertebrates"}
    assert parse_jaspar_name("JASPAR2022:core:Plants") == {"release": "JASPAR2022", "collection": "CORE",
                                                           "tax_group": "plants"}
    assert parse_jaspar_name("JASPAR2024::all") == {"release": "JASPAR2024", "collection": "CORE", "tax_group": "all"}
    for text in ("JASPAR", "known.meme", "JASPAR2024.meme", "JASPAR2024:CORE:vertebrates:x", "XJASPAR2024"):
        assert parse_jaspar_name(text) is None, text


def test_load_database_file_wins_over_a_release_name(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write_meme([Motif.from_consensus("AP1", "TGACTCA", purity=0.9)], tmp_path / "JASPAR2024")
    db = load_database("JASPAR2024")
    assert [m.name for m in db] == ["AP1"] and db.info == {"file": "JASPAR2024", "motifs": 1}
    assert database_label(db.info) == "JASPAR2024 (1 motifs)"
    with pytest.raises(SeqimpError, match=r"^nothing\.meme: no such motif file \(nor a JASPAR release such as "
                                          r"JASPAR2024\)$"):
        load_database("nothing.meme")
    with pytest.raises(SeqimpError, match=r"^JASPAR2022 is a JASPAR release, not a file: it takes no motif format"):
        load_database("JASPAR2022", "meme")


def test_load_database_by_name_and_what_is_recorded():
    pytest.importorskip("pyjaspar", reason="needs pyjaspar: pip install '.[jaspar]'")
    db = load_database("Jaspar2024:CORE:vertebrates")
    assert len(db) == 879 and database_info(db)["release"] == "JASPAR2024"
    assert load_database(db) is db
    plain = [Motif.from_consensus("a", "ACGT")]
    assert database_info(plain) == {"motifs": 1} and database_info(None) is None
    assert list(load_database(plain)) == plain
