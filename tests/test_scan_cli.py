"""seqimp scan and seqimp enrich on small files: the contracts (scan.tsv, enrichment.tsv), BED in
genome coordinates, positions from an origin, run folders and JASPAR collections as motif
sources, and bad input (one line, exit 2, nothing written)."""

import os
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from seqimp.cli import main
from seqimp.motifs import Motif, write_meme

sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_enrich import planted_set  # noqa: E402

SITE = "TGACTCATCA"


def _fasta(path, seqs, prefix="s"):
    path.write_text("".join(f">{prefix}{i + 1}\n{s}\n" for i, s in enumerate(seqs)))
    return path


def _motif_file(tmp_path):
    path = tmp_path / "m.meme"
    write_meme([Motif.from_consensus("AP1", SITE, purity=0.9, description="planted"),
                Motif.from_consensus("GATA", "AGATAAG", purity=0.9)], path)
    return path


def _seqs(n=8, length=40, seed=0):
    rng = np.random.default_rng(seed)
    seqs = ["".join(rng.choice(list("ACGT"), size=length + i)) for i in range(n)]  # lengths differ
    seqs[2] = seqs[2][:5] + SITE + seqs[2][15:]
    seqs[4] = seqs[4][:20] + SITE[::-1].translate(str.maketrans("ACGT", "TGCA")) + seqs[4][30:]
    return seqs


def _listing(folder):
    return sorted(p.name for p in Path(folder).iterdir()) if Path(folder).exists() else []


def test_scan_contract(tmp_path, capsys):
    motifs, fasta = _motif_file(tmp_path), _fasta(tmp_path / "s.fa", _seqs())
    assert main(["scan", "--db", str(motifs), "--fasta", str(fasta), "--out", str(tmp_path / "out")]) == 0
    table = pd.read_csv(tmp_path / "out" / "scan.tsv", sep="\t")
    assert list(table.columns[:7]) == ["motif", "id", "position", "strand", "score", "p_value", "q_value"]
    ap1 = table[(table["motif"] == "AP1") & (table["p_value"] < 1e-5)]
    assert set(zip(ap1["id"], ap1["position"], ap1["strand"])) == {("s3", 6, "+"), ("s5", 21, "-")}
    assert (ap1["matched"] == SITE).all()
    bed = pd.read_csv(tmp_path / "out" / "scan.bed", sep="\t", header=None)
    assert bed.shape[1] == 6 and bed[4].between(0, 1000).all() and bed[4].dtype.kind == "i"
    row = bed[(bed[0] == "s3") & (bed[3] == "AP1")].iloc[0]
    assert (row[1], row[2], row[5]) == (5, 15, "+")
    assert {"report.html", "scan.json", "scan_positions.png"} <= set(_listing(tmp_path / "out"))
    assert "sites of 2 motifs" in capsys.readouterr().out


def test_scan_origin_and_run_folder(tmp_path):
    run = tmp_path / "run"
    run.mkdir()
    write_meme([Motif.from_consensus("AP1", SITE, purity=0.9)], run / "motifs.meme")  # a 'seqimp motifs' folder
    fasta = _fasta(tmp_path / "s.fa", [s[:40] for s in _seqs()])
    assert main(["scan", "--db", str(run), "--fasta", str(fasta), "--out", str(tmp_path / "o"),
                 "--position-origin", "11", "--site-pvalue", "1e-5"]) == 0
    table = pd.read_csv(tmp_path / "o" / "scan.tsv", sep="\t")
    assert dict(zip(table["id"], table["position_label"])) == {"s3": -5, "s5": 11}


def test_scan_genome_windows_in_genome_coordinates(tmp_path):
    rng = np.random.default_rng(3)
    chrom = "".join(rng.choice(list("ACGT"), size=400))
    chrom = chrom[:100] + SITE + chrom[110:]
    (tmp_path / "g.fa").write_text(">chr1\n" + "\n".join(chrom[i:i + 60] for i in range(0, 400, 60)) + "\n")
    (tmp_path / "p.bed").write_text("chr1\t80\t140\tpk1\t0\t+\nchr1\t80\t140\tpk2\t0\t-\n")
    assert main(["scan", "--db", str(_motif_file(tmp_path)), "--positive-bed", str(tmp_path / "p.bed"),
                 "--genome", str(tmp_path / "g.fa"), "--width", "60", "--out", str(tmp_path / "o"),
                 "--site-pvalue", "1e-5"]) == 0
    bed = pd.read_csv(tmp_path / "o" / "scan.bed", sep="\t", header=None)
    ap1 = bed[bed[3] == "AP1"]
    assert set(zip(ap1[0], ap1[1], ap1[2], ap1[5])) == {("chr1", 100, 110, "+")}  # both windows, one site
    assert len(ap1) == 2
    table = pd.read_csv(tmp_path / "o" / "scan.tsv", sep="\t")
    assert "position_label" in table.columns  # BED input: counted from the window centre


def test_enrich_contract_planted_and_folder(tmp_path, capsys):
    db, pos, neg = planted_set()
    path = tmp_path / "db.meme"
    write_meme(db, path)
    p, n = _fasta(tmp_path / "p.fa", pos, "p"), _fasta(tmp_path / "n.fa", neg, "n")
    assert main(["enrich", "--positive", str(p), "--negative", str(n), "--db", str(path),
                 "--out", str(tmp_path / "e")]) == 0
    table = pd.read_csv(tmp_path / "e" / "enrichment.tsv", sep="\t")
    assert list(table.columns[:6]) == ["motif", "target_description", "positives_with_site", "negatives_with_site",
                                       "p_value", "q_value"]
    assert table["motif"].iloc[0] == "PLANTED" and table["q_value"].iloc[0] <= 0.01
    assert "1 of 10 motifs enriched" in capsys.readouterr().out
    # the same test on the motifs of a run folder (a 'seqimp motifs' run's motifs.meme)
    run = tmp_path / "run"
    run.mkdir()
    write_meme(db, run / "motifs.meme")
    assert main(["enrich", "--positive", str(p), "--negative", str(n), "--db", str(run), "--out",
                 str(tmp_path / "r")]) == 0
    assert (tmp_path / "r" / "enrichment.tsv").read_bytes() == (tmp_path / "e" / "enrichment.tsv").read_bytes()
    html = (tmp_path / "e" / "report.html").read_text()
    assert html.index("PLANTED") < html.index("<table")  # the answer leads
    # shuffled positives as negatives: the seed is recorded
    assert main(["enrich", "--positive", str(p), "--negatives", "shuffle", "--db", str(path), "--seed", "3",
                 "--out", str(tmp_path / "s")]) == 0
    assert '"seed": 3' in (tmp_path / "s" / "enrichment.json").read_text()


def test_enrich_jaspar_collection_is_printed(tmp_path, capsys):
    pytest.importorskip("pyjaspar", reason="needs pyjaspar: pip install '.[jaspar]'")
    p = _fasta(tmp_path / "p.fa", _seqs(6, 30))
    n = _fasta(tmp_path / "n.fa", _seqs(6, 30, seed=9))
    assert main(["enrich", "--positive", str(p), "--negative", str(n), "--db", "JASPAR2024:fungi",
                 "--out", str(tmp_path / "e")]) == 0
    captured = capsys.readouterr()
    assert "JASPAR2024 CORE fungi" in captured.err and "JASPAR2024 CORE fungi" in captured.out


@pytest.mark.parametrize("argv, message", [
    (["scan", "--db", "{bad}", "--fasta", "{fasta}"], r"bad\.meme, line 4: motif X: w= 'abc' is not a whole"),
    (["scan", "--db", "{motifs}", "--fasta", "{missing}"], r"--fasta .*missing\.fa"),
    (["scan", "--db", "{motifs}", "--fasta", "{fasta}", "--site-pvalue", "2"], r"--site-pvalue is a p-value in \(0, 1\]"),
    (["scan", "--db", "{motifs}"], r"give the sequences to scan"),
    (["scan", "--db", "{motifs}", "--fasta", "{fasta}", "--negatives", "shuffle"],
     r"unrecognized arguments: --negatives"),  # one set of sequences: scan offers no negatives
    (["scan", "--db", "{motifs}", "--fasta", "{fasta}", "--alphabet", "protein"], r"invalid choice: 'protein'"),
    (["enrich", "--negative", "{fasta}", "--db", "{motifs}"], r"give the positives"),
    (["enrich", "--positive", "{fasta}", "--negatives", "shuffle", "--db", "{motifs}", "--alphabet", "protein"],
     r"invalid choice: 'protein'"),
    (["enrich", "--positive", "{fasta}", "--negative", "{fasta}", "--db", "{motifs}"], r"are the same file"),
    (["enrich", "--positive", "{fasta}", "--negative", "{fasta}", "--db", "nothing.meme"],
     r"nothing\.meme: no such motif file"),
    (["enrich", "--positive", "{fasta}", "--negatives", "shuffle", "--db", "{motifs}", "--method", "t"],
     r"argument --method: invalid choice"),
    # a letter outside DNA and its IUPAC codes: the file, record, 1-based position and letter (N is read)
    (["scan", "--db", "{motifs}", "--fasta", "{xfasta}"],
     r"--fasta .*x\.fa: record 'x2': invalid symbol 'X' at position 7 \(alphabet dna: ACGT\); N or IUPAC codes "
     r"\(NRYSWKMBDHV\) are read as unknown$"),
    (["enrich", "--positive", "{xfasta}", "--negative", "{fasta}", "--db", "{motifs}"],
     r"--positive .*x\.fa: record 'x2': invalid symbol 'X' at position 7 .*--skip-invalid leaves such records out"),
])
def test_bad_input_one_line_exit_2_nothing_written(tmp_path, capsys, argv, message):
    bad = tmp_path / "bad.meme"
    bad.write_text("MEME version 4\n\nMOTIF X\nletter-probability matrix: alength= 4 w= abc\n0.25 0.25 0.25 0.25\n")
    names = {"bad": bad, "fasta": _fasta(tmp_path / "s.fa", _seqs()), "motifs": _motif_file(tmp_path),
             "missing": tmp_path / "missing.fa", "xfasta": tmp_path / "x.fa"}
    names["xfasta"].write_text(">x1\nACGTNNACGTACGTAC\n>x2\nACGTACXGTACGTAC\n")
    out = tmp_path / "out"
    argv = [a.format(**{k: os.fspath(v) for k, v in names.items()}) for a in argv] + ["--out", str(out)]
    assert main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len([line for line in err if line.startswith("seqimp: error:")]) == 1
    assert "Traceback" not in "\n".join(err)
    import re

    assert re.search(message, err[-1]), err[-1]
    assert not out.exists()


def test_scan_table_route_and_byte_identical_reruns(tmp_path):
    seqs = [s[:40] for s in _seqs()]
    table = tmp_path / "t.tsv"
    table.write_text("seq\tvalue\n" + "".join(f"{s}\t{i * 0.5}\n" for i, s in enumerate(seqs)))
    argv = ["scan", "--db", str(_motif_file(tmp_path)), "--table", str(table), "--sequence-column", "seq",
            "--value-column", "value", "--site-pvalue", "1e-5"]
    assert main(argv + ["--out", str(tmp_path / "a")]) == 0
    assert main(argv + ["--out", str(tmp_path / "b")]) == 0
    hits = pd.read_csv(tmp_path / "a" / "scan.tsv", sep="\t")
    assert set(zip(hits["position"], hits["strand"])) == {(6, "+"), (21, "-")}
    for name in _listing(tmp_path / "a"):
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes(), name


def test_enrich_bed_windows_with_genomic_negatives(tmp_path):
    rng = np.random.default_rng(4)
    chrom = list("".join(rng.choice(list("ACGT"), size=20000)))
    peaks = []
    for i, start in enumerate(range(200, 6200, 200)):  # 30 peaks with the site at their centre
        chrom[start + 45:start + 55] = list(SITE)
        peaks.append(f"chr1\t{start}\t{start + 100}\tpk{i}\t0\t+\n")
    text = "".join(chrom)
    (tmp_path / "g.fa").write_text(">chr1\n" + "\n".join(text[i:i + 60] for i in range(0, len(text), 60)) + "\n")
    (tmp_path / "p.bed").write_text("".join(peaks))
    assert main(["enrich", "--positive-bed", str(tmp_path / "p.bed"), "--genome", str(tmp_path / "g.fa"),
                 "--width", "60", "--negatives", "genome", "--db", str(_motif_file(tmp_path)),
                 "--out", str(tmp_path / "e")]) == 0
    table = pd.read_csv(tmp_path / "e" / "enrichment.tsv", sep="\t")
    top = table.iloc[0]
    assert top["motif"] == "AP1" and top["positives_with_site"] == 30 and top["q_value"] <= 1e-5


def test_scan_and_enrich_keep_every_record_with_unknown_bases(tmp_path):
    """Records holding N and IUPAC codes (any case) are scanned and tested, none dropped: a site
    interrupted by an unknown base is no hit, the others are found as without them, and a
    window over an unknown base is never reported nor counted as a test."""
    seqs = _seqs()
    plain_windows = sum(2 * (len(s) - len(SITE) + 1) for s in seqs)
    seqs[0] = "NNNN" + seqs[0][4:]
    seqs[1] = seqs[1][:10] + "ryKM" + seqs[1][14:]
    seqs[2] = seqs[2][:5] + SITE[:4] + "n" + SITE[5:] + seqs[2][15:]  # the site at 6 interrupted
    seqs[6] = "N" * len(seqs[6])  # no window at all
    motifs, fasta = _motif_file(tmp_path), _fasta(tmp_path / "s.fa", seqs)
    assert main(["scan", "--db", str(motifs), "--fasta", str(fasta), "--out", str(tmp_path / "out"), "-q",
                 "--site-pvalue", "1"]) == 0
    table = pd.read_csv(tmp_path / "out" / "scan.tsv", sep="\t")
    ap1 = table[table["motif"] == "AP1"]
    unknown = [(i, j) for i, s in enumerate(seqs) for j, c in enumerate(s) if c.upper() not in "ACGT"]
    covered = {(f"s{i + 1}", p) for i, j in unknown for p in range(max(j - len(SITE) + 2, 1), j + 2)}
    expected = {(f"s{i + 1}", p) for i, s in enumerate(seqs) for p in range(1, len(s) - len(SITE) + 2)} - covered
    assert set(zip(ap1["id"], ap1["position"])) == expected  # every window without an unknown base, none with
    assert len(ap1) == 2 * len(expected)  # both strands
    assert not ap1["matched"].str.contains("N").any()
    import json
    summary = json.loads((tmp_path / "out" / "scan.json").read_text())
    assert summary["sequences"] == 8 and summary["tests"]["AP1"] == 2 * len(expected) < plain_windows
    best = ap1[ap1["p_value"] < 1e-5]
    assert set(zip(best["id"], best["position"], best["strand"])) == {("s5", 21, "-")}
    # enrich: every record counted, the one of unknown bases only among them
    neg = _fasta(tmp_path / "n.fa", _seqs(8, seed=5))
    assert main(["enrich", "--positive", str(fasta), "--negative", str(neg), "--db", str(motifs), "-q",
                 "--out", str(tmp_path / "e")]) == 0
    enr = pd.read_csv(tmp_path / "e" / "enrichment.tsv", sep="\t")
    assert (enr["positives"] == 8).all() and (enr["negatives"] == 8).all()


def test_skip_invalid_leaves_out_a_record_with_a_letter_outside_the_iupac_codes(tmp_path, caplog):
    """enrich --skip-invalid on records of any lengths: the record holding X is left out (one log
    line), the one holding N is read."""
    seqs = _seqs()
    pos = tmp_path / "p.fa"
    pos.write_text("".join(f">p{i}\n{s}\n" for i, s in enumerate(seqs)) + ">bad\nACGTXACGT\n")
    argv = ["enrich", "--positive", str(pos), "--negatives", "shuffle", "--db", str(_motif_file(tmp_path)),
            "--skip-invalid", "--out", str(tmp_path / "out")]
    assert main(argv) == 0
    assert "1 record(s) with letters outside the dna alphabet and its IUPAC codes left out" in caplog.text
