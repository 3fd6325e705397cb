"""seqimp motifs takes the input routes of seqimp poim (a table with a binary label, --alphabet,
--position-origin), width limits, and writes its own report; positions counted from the origin
in motifs.tsv and motif_sites.tsv; motif_sites.bed with BED's integer scores."""

from pathlib import Path

import pandas as pd
import pytest

from seqimp.cli import main

DATA = Path(__file__).resolve().parent / "data"


def _records(path):
    return [line.strip() for line in path.read_text().splitlines() if line.strip() and not line.startswith(">")]


@pytest.fixture(scope="module")
def table(tmp_path_factory):
    folder = tmp_path_factory.mktemp("table")
    rows = [(s.replace("T", "U"), "1") for s in _records(DATA / "planted_pos.fa")] + \
           [(s.replace("T", "U"), "0") for s in _records(DATA / "planted_neg.fa")]
    path = folder / "t.tsv"
    path.write_text("seq\tstate\n" + "".join(f"{s}\t{v}\n" for s, v in rows))
    return path


def test_table_origin_widths_and_own_report(table, tmp_path):
    out = tmp_path / "m"
    assert main(["motifs", "--table", str(table), "--sequence-column", "seq", "--value-column", "state",
                 "--out", str(out), "--degree", "4", "--position-origin", "11", "--min-width", "9",
                 "--alphabet", "rna"]) == 0
    motifs = pd.read_csv(out / "motifs.tsv", sep="\t")
    best = motifs.iloc[0]
    assert "GATTACA" in best["consensus"] and best["length"] >= 9
    # GATTACA is planted at 11 (1-based): counted from origin 11, GATTACA's G is +1
    assert best["start_label"] == best["start"] - 11 + (1 if best["start"] >= 11 else 0)
    sites = pd.read_csv(out / "motif_sites.tsv", sep="\t")
    assert list(sites.columns[:4]) == ["motif", "id", "position", "position_label"]
    bed = pd.read_csv(out / "motif_sites.bed", sep="\t", header=None)
    assert bed[4].dtype.kind == "i" and bed[4].between(0, 1000).all()
    html = (out / "report.html").read_text()
    assert html.index('id="motifs"') < html.index("Motif details")
    assert '"position_origin": 11' in (out / "motifs.json").read_text()


def test_max_width(tmp_path):
    out = tmp_path / "m"
    assert main(["motifs", "--positive", str(DATA / "planted_pos.fa"), "--negative", str(DATA / "planted_neg.fa"),
                 "--out", str(out), "--degree", "4", "--max-width", "5"]) == 0
    assert (pd.read_csv(out / "motifs.tsv", sep="\t")["length"] <= 5).all()


@pytest.mark.parametrize("extra, message", [
    (["--alphabet", "protein"], "invalid choice: 'protein' (choose from 'dna', 'rna')"),
    (["--min-width", "8", "--max-width", "6"], "--min-width 8 exceeds --max-width 6"),
])
def test_bad_options(tmp_path, capsys, extra, message):
    out = tmp_path / "m"
    argv = ["motifs", "--positive", str(DATA / "planted_pos.fa"), "--negative", str(DATA / "planted_neg.fa"),
            "--out", str(out)] + extra
    assert main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert message in err[-1] and not out.exists()


def test_measured_values_are_refused(tmp_path, capsys):
    path = tmp_path / "v.tsv"
    path.write_text("seq\tactivity\n" + "".join(f"{s}\t{i * 0.5}\n" for i, s in
                                                   enumerate(_records(DATA / "planted_pos.fa")[:20])))
    assert main(["motifs", "--table", str(path), "--sequence-column", "seq", "--value-column", "activity",
                 "--out", str(tmp_path / "m")]) == 2
    assert "motifs need two classes" in capsys.readouterr().err
