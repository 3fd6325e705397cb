"""``seqimp poim`` input routes, end to end through ``main([...])``: BED regions on a genome
(given, shuffled and genomic negatives), tables of measured values, protein sequences, ONNX
models, positions counted from an origin, and the bad-input cases of each route.

Every file is made in the test: a tiny genome with a non-palindromic motif planted at a fixed
offset from every peak summit (on the peak's strand), a narrowPeak file with '+' and '-' rows,
a TSV whose planted motif raises the value, a protein set with a planted motif, and linear
ONNX models built with the ``onnx`` package.
"""

import csv
import gzip
import json
import re
import subprocess
import sys

import numpy as np
import pytest

from seqimp.cli import main
from seqimp.io import position_labels

pytest.importorskip("pyfaidx")

CONTRACT = ["oligomer", "order", "position", "poim", "firm"]
MOTIF = "CAGGTA"                       # not its own reverse complement
MOTIF_RC = "TACCTG"
WIDTH, MOTIF_AT = 20, 12               # motif at 0-based window index 12..17: 1-based 13, label +3
FAST = ["--degree", "3", "--seed", "0", "--format", "svg", "-q"]


def _rows(path):
    with open(path) as fh:
        return list(csv.DictReader(fh, delimiter="\t"))


def _error(capsys, argv, out_dir, message):
    """Run argv: exit 2, one line 'seqimp: error: ...' matching message, no traceback, nothing written."""
    before = sorted(p.name for p in out_dir.parent.iterdir())
    assert main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("seqimp: error: "), err
    assert re.search(message, err[0]), err[0]
    assert not out_dir.exists()
    assert sorted(p.name for p in out_dir.parent.iterdir()) == before


@pytest.fixture(scope="module")
def genome(tmp_path_factory):
    """A 8000-nt chr1 with MOTIF 2 nt right of every summit on the peak's strand, and a narrowPeak
    file of 30 such peaks (odd ones on '-') plus one with an N (kept: an unknown base), one off the
    chromosome's end and one on a chromosome the genome lacks. Returns (folder, genome, bed, planted BED rows)."""
    d = tmp_path_factory.mktemp("genome")
    rng = np.random.default_rng(1)
    chrom = list(rng.choice(list("ACGT"), 8000))
    peaks, planted = [], []
    for i in range(30):
        summit = 200 + 200 * i
        if i % 2 == 0:                 # '+': window [summit - 10, summit + 10), motif at index 12
            start = summit - WIDTH // 2 + MOTIF_AT
            chrom[start:start + 6] = MOTIF
            planted.append(("chr1", start, start + 6, "+"))
        else:                          # '-': window [summit - 9, summit + 11) read backwards: index i is base end-1-i
            end = summit - (WIDTH - 1 - WIDTH // 2) + WIDTH - MOTIF_AT
            start = end - 6
            chrom[start:end] = MOTIF_RC
            planted.append(("chr1", start, end, "-"))
        offset = int(rng.integers(5, 30))
        peaks.append(f"chr1\t{summit - offset}\t{summit - offset + 60}\tpeak{i}\t0\t{'+-'[i % 2]}\t1\t1\t1\t{offset}")
    chrom[6505] = "N"
    peaks.append("chr1\t6490\t6520\twithN\t0\t+\t1\t1\t1\t15")
    peaks.append("chr1\t7985\t8000\toffend\t0\t+\t1\t1\t1\t10")
    peaks.append("chrX\t10\t100\tnochrom\t0\t+\t1\t1\t1\t5")
    fa = d / "genome.fa"
    fa.write_text(">chr1\n" + "".join(chrom) + "\n")
    bed = d / "peaks.narrowPeak"
    bed.write_text("track name=peaks\n" + "\n".join(peaks) + "\n")
    return d, fa, bed, planted


def test_bed_route_with_shuffled_negatives(genome, tmp_path, capsys):
    _, fa, bed, planted = genome
    out = tmp_path / "res"
    assert main(["poim", "--positive-bed", str(bed), "--genome", str(fa), "--width", str(WIDTH),
                 "--negatives", "shuffle", "--out", str(out), "--top", "5", "--degree", "3", "--seed", "0",
                 "--format", "svg"]) == 0
    err = capsys.readouterr().err
    lines = [ln for ln in err.splitlines() if "windows of 20 nt" in ln]
    assert lines == [f"--positive-bed {bed}: 31 windows of 20 nt (dropped 2: unknown_chromosome 1, "
                     "off_chromosome 1, ambiguous_base 0); negatives: 31 dinucleotide-preserving shuffles"]
    assert f"{bed}: 1 of 31 records hold unknown bases (N or IUPAC codes), 1 base in all; read as unknown" in err
    summary = json.loads((out / "summary.json").read_text())
    assert summary["dropped"] == {"unknown_chromosome": 1, "off_chromosome": 1, "ambiguous_base": 0}
    assert summary["position_origin"] == WIDTH // 2 + 1
    rows = _rows(out / "top_oligomers.tsv")
    assert set(CONTRACT) <= set(rows[0]) and list(rows[0])[3:5] == ["position", "position_label"]
    labels = position_labels(WIDTH, WIDTH // 2 + 1)
    for r in rows:                     # the label beside every 1-based position, counted from the summit
        assert r["position_label"] == f"{labels[int(r['position']) - 1]:+d}"
    # the top 3-mer lies inside the planted motif at its window position 13..18 (labels +3..+8)
    best3 = next(r for r in rows if r["order"] == "3")
    p = int(best3["position"])
    assert 13 <= p <= 16 and best3["oligomer"] == MOTIF[p - 13:p - 10]
    # top_oligomers.bed: the genome coordinates of every window holding it, strand flipped on '-' peaks
    with open(out / "top_oligomers.bed") as fh:
        bed_rows = [ln.rstrip("\n").split("\t") for ln in fh]
    name = f"{best3['oligomer']}@{p}"
    hits = {(c, int(s), int(e), st) for c, s, e, n, _, st in bed_rows if n == name}
    expected = set()
    for c, s, e, st in planted:        # the 3-mer's bases inside each planted site
        off = p - 13
        expected.add((c, s + off, s + off + 3, st) if st == "+" else (c, e - off - 3, e - off, st))
    assert expected <= hits
    assert sum(st == "-" for *_, st in expected) == 15


@pytest.mark.xfail(strict=True, reason="known limit (docs/motifs.md): in these 20-nt windows the POIM's candidate "
                   "lies one start left of the planted sites, and the uniform columns the EM puts beside a "
                   "positional candidate keep its core from reaching sites that end at the window's end")
def test_bed_route_motif_sites_in_genome_coordinates(genome, tmp_path):
    _, fa, bed, planted = genome
    out = tmp_path / "res"
    assert main(["poim", "--positive-bed", str(bed), "--genome", str(fa), "--width", str(WIDTH),
                 "--negatives", "shuffle", "--out", str(out), "--top", "5", "--degree", "3", "--seed", "0",
                 "--format", "svg"]) == 0
    # motif_sites.bed: genome coordinates too; the sites lie on the planted motifs, on their strand
    sites = [ln.split("\t") for ln in (out / "motif_sites.bed").read_text().splitlines()]
    top = _rows(out / "motifs.tsv")[0]["name"]
    on_top = [(c, int(s), int(e), st) for c, s, e, name, _, st in sites if name == top]
    assert len(on_top) >= 20
    for c, s, e, st in on_top:
        assert any(c == pc and s < pe and ps < e and st == pst for pc, ps, pe, pst in planted), (c, s, e, st)


def test_bed_route_with_genomic_and_bed_negatives(genome, tmp_path, capsys):
    d, fa, bed, _ = genome
    out = tmp_path / "gen"
    assert main(["poim", "--no-motifs", "--positive-bed", str(bed), "--genome", str(fa), "--width", str(WIDTH),
                 "--negatives", "genome", "--out", str(out)] + FAST) == 0
    summary = json.loads((out / "summary.json").read_text())
    assert set(summary["dropped"]) == {"unknown_chromosome", "off_chromosome", "ambiguous_base",
                                       "negative_gc_unmatched"}
    assert summary["data"]["n_negative"] + summary["dropped"]["negative_gc_unmatched"] == 31
    neg_bed = d / "background.bed"
    neg_bed.write_text("".join(f"chr1\t{s}\t{s + 40}\n" for s in range(290, 6000, 200)) + "chr1\t7990\t8000\n")
    out2 = tmp_path / "bedneg"
    assert main(["poim", "--no-motifs", "--positive-bed", str(bed), "--genome", str(fa), "--width", str(WIDTH),
                 "--negative-bed", str(neg_bed), "--out", str(out2), "--position-origin", "1"] + FAST) == 0
    summary = json.loads((out2 / "summary.json").read_text())
    assert summary["dropped"]["negative_off_chromosome"] == 1 and summary["data"]["n_negative"] == 29
    assert summary["position_origin"] == 1
    rows = _rows(out2 / "top_oligomers.tsv")
    assert all(r["position_label"] == f"+{r['position']}" for r in rows)   # origin 1: +1 .. +L


@pytest.mark.parametrize("extra, message", [
    (["--width", "20"], r"--positive-bed needs --genome GENOME\.fa$"),
    (["--genome", "{fa}"], r"--positive-bed needs --width W$"),
    (["--genome", "{fa}", "--width", "20", "--negatives", "shuffle", "--negative-bed", "{bed}"],
     r"--negative-bed and --negatives both give the negative sequences"),
    (["--genome", "{fa}", "--width", "20", "--negatives", "shuffle", "--alphabet", "protein"],
     r"cutting windows from a genome needs DNA sequences \(got protein\)"),
    (["--genome", "{fa}", "--width", "20", "--negatives", "shuffle", "--positive", "{fa}"],
     r"--positive and --positive-bed both give the sequences"),
    (["--genome", "{fa}", "--width", "9000", "--negatives", "shuffle"],
     r"--width 9,000: longer than every chromosome of the genome \(the longest, 'chr1', has 8,000 bases\)"),
])
def test_bed_route_bad_options(genome, tmp_path, capsys, extra, message):
    _, fa, bed, _ = genome
    extra = [x.format(fa=fa, bed=bed) for x in extra]
    _error(capsys, ["poim", "--positive-bed", str(bed), "--out", str(tmp_path / "o")] + extra + FAST,
           tmp_path / "o", message)


def test_bed_route_bad_files(genome, tmp_path, capsys):
    _, fa, bed, _ = genome
    broken = tmp_path / "broken.bed"
    broken.write_text("chr1\t10\t50\n# comment\nchr1\tten\t50\n")
    base = ["--genome", str(fa), "--width", "20", "--negatives", "shuffle", "--out", str(tmp_path / "o")] + FAST
    _error(capsys, ["poim", "--positive-bed", str(broken)] + base, tmp_path / "o",
           rf"--positive-bed {re.escape(str(broken))}: line 3: start and end must be integers, got 'ten' and '50'")
    _error(capsys, ["poim", "--positive", str(fa), "--genome", str(fa), "--out", str(tmp_path / "o")] + FAST,
           tmp_path / "o", r"--genome is for BED input: give --positive-bed")
    _error(capsys, ["poim", "--positive", str(fa), "--negatives", "genome", "--out", str(tmp_path / "o")] + FAST,
           tmp_path / "o", r"--negatives genome draws windows from --genome")
    gz = tmp_path / "genome.fa.gz"
    gz.write_bytes(gzip.compress(fa.read_bytes()))
    _error(capsys, ["poim", "--positive-bed", str(bed), "--genome", str(gz), "--width", "20", "--negatives",
                    "shuffle", "--out", str(tmp_path / "o")] + FAST, tmp_path / "o", r"gzip-compressed but not bgzip")


def _table(path, n=240, length=16, seed=0, label=False, sep="\t"):
    """Sequences with GATTC planted at 1-based 5..9 in half of them, raising the value by 2."""
    rng = np.random.default_rng(seed)
    lines = [sep.join(["name", "seq", "activity"])]
    for i in range(n):
        s = list(rng.choice(list("ACGT"), length))
        if i % 2 == 0:
            s[4:9] = "GATTC"
        value = ("bound" if i % 2 == 0 else "unbound") if label else f"{2.0 * (i % 2 == 0) + rng.normal(0, 0.3):.4f}"
        lines.append(sep.join([f"r{i}", "".join(s), value]))
    text = "\n".join(lines) + "\n"
    if str(path).endswith(".gz"):
        path.write_bytes(gzip.compress(text.encode()))
    else:
        path.write_text(text)
    return path


def test_table_route_regression(tmp_path, capsys):
    table = _table(tmp_path / "mpra.tsv")
    out = tmp_path / "reg"
    assert main(["poim", "--no-motifs", "--table", str(table), "--sequence-column", "seq", "--value-column", "activity",
                 "--out", str(out), "--top", "5", "--degree", "3", "--seed", "0", "--format", "svg"]) == 0
    captured = capsys.readouterr()
    assert f"--table {table}: 240 sequences of length 16 with measured values" in captured.err
    assert re.search(r"held-out R\^2 0\.\d+, Spearman 0\.\d+", captured.err)
    summary = json.loads((out / "summary.json").read_text())
    m = summary["metrics"]
    assert m["n_test"] == 48 and m["n_train"] == 192 and m["r2"] > 0.7 and m["spearman"] > 0.7
    assert summary["command"] == "poim --table (regression)" and summary["background"]["kind"] == "all"
    rows = _rows(out / "top_oligomers.tsv")
    assert list(rows[0]) == ["rank"] + CONTRACT
    best3 = next(r for r in rows if r["order"] == "3")
    p = int(best3["position"])
    assert 5 <= p <= 7 and best3["oligomer"] == "GATTC"[p - 5:p - 2]
    report = (out / "report.html").read_text()
    assert "R² (held out)" in report and "Spearman" in report and (out / "model.npz").exists()


def test_table_route_binary_labels_and_gzip_csv(tmp_path, capsys):
    table = _table(tmp_path / "labels.csv.gz", n=120, label=True, sep=",")
    out = tmp_path / "cls"
    assert main(["poim", "--no-motifs", "--table", str(table), "--sequence-column", "seq", "--value-column", "activity",
                 "--out", str(out)] + FAST) == 0
    summary = json.loads((out / "summary.json").read_text())
    assert summary["command"] == "poim" and summary["metrics"]["auroc"] > 0.9
    assert summary["data"]["n_positive"] == 60 and summary["data"]["n_negative"] == 60
    best3 = next(r for r in _rows(out / "top_oligomers.tsv") if r["order"] == "3")
    assert 5 <= int(best3["position"]) <= 7


@pytest.mark.parametrize("bad_line, message", [
    ("r9\tACGTACGTACGTACGT\tabc", r"line 4: value 'abc' in column 'activity' is not a number"),
    ("r9\tACGTACGTACGTACGT\tNaN", r"line 4: value 'NaN' in column 'activity' is missing or not finite"),
    ("r9\t\t1.5", r"line 4: empty sequence in column 'seq'"),
    ("r9\tACGTACGTACGTACGTAA\t1.5", r"line 4: sequence has length 18, but the first sequence \(line 2\) has length 16"),
    ("r9\tACGTACGTXCGTACGT\t1.5", r"line 4: invalid symbol 'X' at position 9"),
])
def test_table_route_bad_rows(tmp_path, capsys, bad_line, message):
    lines = _table(tmp_path / "t.tsv", n=20).read_text().splitlines()
    lines.insert(3, bad_line)
    (tmp_path / "t.tsv").write_text("\n".join(lines) + "\n")
    _error(capsys, ["poim", "--table", str(tmp_path / "t.tsv"), "--sequence-column", "seq", "--value-column",
                    "activity", "--out", str(tmp_path / "o")] + FAST, tmp_path / "o",
           rf"--table {re.escape(str(tmp_path / 't.tsv'))}: {message}")


def test_table_route_bad_options(tmp_path, capsys):
    table = _table(tmp_path / "t.tsv", n=20)
    out = tmp_path / "o"
    base = ["poim", "--table", str(table), "--out", str(out)] + FAST
    _error(capsys, base + ["--sequence-column", "seq"], out, r"--table needs --value-column NAME")
    _error(capsys, base + ["--sequence-column", "sequence", "--value-column", "activity"], out,
           r"--sequence-column 'sequence': no such column in .* \(columns: name, seq, activity\)")
    _error(capsys, base + ["--sequence-column", "seq", "--value-column", "activity", "--negatives", "shuffle"], out,
           r"--table holds all the sequences; --negatives cannot be added")
    _error(capsys, ["poim", "--positive", str(table), "--value-column", "activity", "--out", str(out)] + FAST, out,
           r"--value-column is for --table input")


def _protein_fasta(path, n, planted, seed):
    rng = np.random.default_rng(seed)
    aa = list("ACDEFGHIKLMNPQRSTVWY")
    with open(path, "w") as fh:
        for i in range(n):
            s = list(rng.choice(aa, 12))
            if planted:
                s[5:8] = "WHY"
            fh.write(f">p{i}\n{''.join(s)}\n")
    return path


def test_protein_route(tmp_path, capsys):
    pos = _protein_fasta(tmp_path / "pos.fa", 40, True, 0)
    neg = _protein_fasta(tmp_path / "neg.fa", 40, False, 1)
    out = tmp_path / "prot"
    assert main(["poim", "--no-motifs",
                 "--positive", str(pos), "--negative", str(neg), "--alphabet", "protein", "--degree", "2",
                 "--out", str(out), "--seed", "0", "--format", "svg", "-q"]) == 0
    summary = json.loads((out / "summary.json").read_text())
    assert summary["metrics"]["auroc"] > 0.9
    rows = _rows(out / "top_oligomers.tsv")
    best = {k: next(r for r in rows if r["order"] == str(k)) for k in (1, 2)}
    assert (best[1]["oligomer"], best[1]["position"]) in {("W", "6"), ("H", "7"), ("Y", "8")}
    assert (best[2]["oligomer"], best[2]["position"]) in {("WH", "6"), ("HY", "7")}
    assert {"poim_order1.svg", "poim_order2.svg", "differential_poim.svg"} <= {p.name for p in out.iterdir()}
    _error(capsys, ["poim", "--positive", str(pos), "--negative", str(neg), "--out", str(tmp_path / "o")] + FAST,
           tmp_path / "o", r"record 'p0': invalid symbol '\w' at position \d+ \(alphabet dna: ACGT\)")  # no --alphabet
    _error(capsys, ["poim", "--positive", str(pos), "--negative", str(neg), "--alphabet", "protein", "--scorer",
                    "numpy:sum", "--out", str(tmp_path / "o")] + FAST, tmp_path / "o",
           r"the sampled POIM \(--scorer, --sklearn-model, --onnx-model\) needs DNA sequences \(got protein\)")


def _linear_onnx(path, weights):
    """An ONNX model s = flatten(onehot (n, 4, L)) @ W, W of shape (4L, m), output (n, m)."""
    onnx = pytest.importorskip("onnx")
    pytest.importorskip("onnxruntime")
    from onnx import TensorProto, helper, numpy_helper

    m, size, length = weights.shape
    w = weights.reshape(m, size * length).T.astype(np.float32)      # flatten order: channel, then position
    graph = helper.make_graph(
        [helper.make_node("Flatten", ["x"], ["f"]), helper.make_node("MatMul", ["f", "w"], ["y"])],
        "linear", [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["n", size, length])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["n", m])], [numpy_helper.from_array(w, "w")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.save(model, path)
    return path


def _dna_fasta(path, n, seed, length=12):
    rng = np.random.default_rng(seed)
    path.write_text("".join(f">s{i}\n{''.join(rng.choice(list('ACGT'), length))}\n" for i in range(n)))
    return path


def test_onnx_route(tmp_path, capsys):
    L = 12
    w = np.zeros((2, 4, L))
    w[0, 2, 3] = 3.0                   # output 0: G at 1-based position 4
    w[1, 0, 8] = -3.0                  # output 1: A at 1-based position 9 lowers the score
    model = _linear_onnx(tmp_path / "linear.onnx", w)
    pos, neg = _dna_fasta(tmp_path / "pos.fa", 30, 0, L), _dna_fasta(tmp_path / "neg.fa", 30, 1, L)
    for index, (letter, position, sign) in enumerate((("G", "4", 1), ("A", "9", -1))):
        out = tmp_path / f"onnx{index}"
        argv = ["poim", "--no-motifs", "--onnx-model", str(model), "--positive", str(pos), "--negative", str(neg),
                "--out", str(out), "--max-order", "2", "--n-samples", "200", "--seed", "0", "--format", "svg", "-q"]
        assert main(argv + (["--output-index", "1"] if index else [])) == 0
        rows = _rows(out / "top_oligomers.tsv")
        assert list(rows[0]) == ["rank"] + CONTRACT
        best1 = next(r for r in rows if r["order"] == "1")
        assert (best1["oligomer"], best1["position"]) == (letter, position)
        summary = json.loads((out / "summary.json").read_text())
        assert summary["parameters"]["scorer"] == str(model) and "model.npz" not in {p.name for p in out.iterdir()}
        # exact POIM of this linear model under the order-0 background of the negatives: w (1 - p_letter);
        # the sampled estimate's SE is about 3 sqrt(p (1 - p) / 200) < 0.1, the tolerance 0.5 is > 5 SE
        p_letter = np.mean([c == letter for c in "".join(neg.read_text().split("\n")[1::2])])
        assert float(best1["poim"]) == pytest.approx(sign * 3.0 * (1 - p_letter), abs=0.5)
    base = ["poim", "--positive", str(pos), "--negative", str(neg), "--out", str(tmp_path / "o")] + FAST
    _error(capsys, base + ["--onnx-model", str(model), "--output-index", "2"], tmp_path / "o",
           r"output_index 2 is outside 0\.\.1")
    _error(capsys, base + ["--output-index", "1"], tmp_path / "o",
           r"--output-index selects an output column of --onnx-model")
    _error(capsys, base + ["--onnx-model", str(model), "--model-file", str(model)], tmp_path / "o",
           r"argument --model-file: not allowed with argument --onnx-model")
    _error(capsys, base + ["--onnx-model", str(tmp_path / "missing.onnx")], tmp_path / "o", r"missing\.onnx")


def test_position_origin_with_fasta(tmp_path, capsys):
    pos, neg = _dna_fasta(tmp_path / "p.fa", 20, 0), _dna_fasta(tmp_path / "n.fa", 20, 1)
    out = tmp_path / "origin"
    assert main(["poim", "--no-motifs", "--positive", str(pos), "--negative", str(neg), "--position-origin", "7",
                 "--degree", "2", "--test-fraction", "0", "--out", str(out), "--format", "svg", "-q"]) == 0
    rows = _rows(out / "top_oligomers.tsv")
    table = {int(r["position"]): r["position_label"] for r in rows}
    assert {p: table[p] for p in (6, 7, 8) if p in table} == {p: {6: "-1", 7: "+1", 8: "+2"}[p]
                                                              for p in (6, 7, 8) if p in table}
    assert all(lab not in ("0", "+0", "-0") for lab in table.values())
    assert table == {p: f"{p - 7:+d}" if p < 7 else f"{p - 6:+d}" for p in table}
    assert "position_label" in (out / "report.html").read_text()
    out2 = tmp_path / "plain"                      # FASTA without an origin: no label column
    assert main(["poim", "--no-motifs",
                 "--positive", str(pos), "--negative", str(neg), "--degree", "2", "--test-fraction", "0",
                 "--out", str(out2), "--format", "svg", "-q"]) == 0
    assert list(_rows(out2 / "top_oligomers.tsv")[0]) == ["rank"] + CONTRACT


def test_shuffled_negatives_of_fasta_positives(tmp_path, capsys):
    pos = _dna_fasta(tmp_path / "p.fa", 20, 0)
    out = tmp_path / "shuf"
    assert main(["poim", "--no-motifs",
                 "--positive", str(pos), "--negatives", "shuffle", "--degree", "2", "--test-fraction", "0",
                 "--out", str(out), "--format", "svg"]) == 0
    assert f"negatives: 20 dinucleotide-preserving shuffles of --positive {pos}" in capsys.readouterr().err
    assert json.loads((out / "summary.json").read_text())["data"]["n_negative"] == 20


def test_train_with_bed_and_table_input(genome, tmp_path, capsys):
    from seqimp.training import load_model

    _, fa, bed, _ = genome
    model = tmp_path / "bed.npz"
    assert main(["train", "--positive-bed", str(bed), "--genome", str(fa), "--width", str(WIDTH), "--negatives",
                 "shuffle", "--model-out", str(model), "--degree", "2", "--seed", "0", "-q"]) == 0
    weights, meta = load_model(model)
    assert weights.length == WIDTH and meta["positive"] == str(bed) and meta["negative"] == "--negatives shuffle"
    labels = _table(tmp_path / "labels.tsv", n=40, label=True)
    assert main(["train", "--table", str(labels), "--sequence-column", "seq", "--value-column", "activity",
                 "--model-out", str(tmp_path / "t.npz"), "--degree", "2", "--seed", "0", "-q"]) == 0
    assert load_model(tmp_path / "t.npz")[1]["n_positive"] == 20
    values = _table(tmp_path / "values.tsv", n=40)
    assert main(["train", "--table", str(values), "--sequence-column", "seq", "--value-column", "activity",
                 "--model-out", str(tmp_path / "v.npz")]) == 2
    assert "'seqimp train' saves a classifier" in capsys.readouterr().err
    assert not (tmp_path / "v.npz").exists()


def test_python_dash_m_runs_the_cli():
    proc = subprocess.run([sys.executable, "-m", "seqimp", "--version"], capture_output=True, text=True, check=False)
    assert proc.returncode == 0 and proc.stdout.startswith("seqimp ")


def test_records_of_any_lengths_keep_n_and_mask_lowercase_in_their_alphabet(tmp_path, caplog):
    from seqimp.cli._inputs import read_records

    path = tmp_path / "r.fa"
    path.write_text(">a\nACGUacgu\n>b\nNNACG\n>c\nACGU\n")
    with caplog.at_level("INFO", logger="seqimp"):
        records = read_records(path, "--fasta", mask_lowercase=True, alphabet="rna")
    assert records.sequences == ["ACGUNNNN", "NNACG", "ACGU"]
    assert caplog.messages == [f"--fasta {path}: 2 of 3 records hold unknown bases (N or IUPAC codes, soft-masked "
                               "lower case), 6 bases in all; read as unknown"]
    assert read_records(path, "--fasta").sequences == ["ACGUACGU", "NNACG", "ACGU"]  # lower case: bases


def test_shuffles_of_records_of_any_lengths_keep_n_in_place(tmp_path):
    from seqimp.cli._inputs import Records, _shuffled_records

    seqs = ["ACGTTGCANNNACGTAGCTTAC", "NGATTACAGATTACA", "AC1GT", "ACGTRYACGTTGCA"]
    out = _shuffled_records(Records(["a", "b", "c", "d"], seqs, "x.fa"), 0)
    assert out.ids == ["a_shuffle1", "b_shuffle1", "d_shuffle1"]  # '1' is no base: that record has no shuffle
    for seq, shuffled in zip([seqs[0], seqs[1], seqs[3]], out.sequences):
        known = seq.replace("R", "N").replace("Y", "N")
        assert [i for i, c in enumerate(shuffled) if c == "N"] == [i for i, c in enumerate(known) if c == "N"]
        for a, b in zip(known.split("N"), "".join(shuffled).split("N")):  # every stretch: its own pairs
            assert sorted(a[i:i + 2] for i in range(len(a) - 1)) == sorted(b[i:i + 2] for i in range(len(b) - 1))
    assert out.sequences == _shuffled_records(Records(["a", "b", "c", "d"], seqs, "x.fa"), 0).sequences
