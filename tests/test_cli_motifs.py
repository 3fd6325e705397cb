"""``seqimp motifs`` in-process: from FASTA, from a saved POIM into a 'seqimp poim' folder, bad input."""

import contextlib
import io
import json
import re
from pathlib import Path

import numpy as np
import pytest

from seqimp.importance import load_poim
from seqimp.cli import main
from seqimp.io import read_fasta, write_fasta
from seqimp.motifs import Motif, implied_poim, read_motifs
from seqimp.importance import POIMResult

DATA = Path(__file__).resolve().parent / "data"


@pytest.fixture(scope="module")
def planted(tmp_path_factory):
    """300 + 300 random sequences of length 30; positives carry GATTACA at 11..17 (1-based)."""
    rng = np.random.default_rng(7)
    folder = tmp_path_factory.mktemp("planted")
    pos = rng.integers(0, 4, (300, 30))
    neg = rng.integers(0, 4, (300, 30))
    pos[:, 10:17] = [2, 0, 3, 3, 0, 1, 0]
    mutate = rng.random(300) < 0.3
    pos[mutate, 10 + rng.integers(0, 7, mutate.sum())] = rng.integers(0, 4, mutate.sum())
    for name, codes in (("pos", pos), ("neg", neg)):
        write_fasta(folder / f"{name}.fa", ["".join("ACGT"[c] for c in row) for row in codes])
    return folder


@pytest.fixture(scope="module")
def from_fasta(planted, tmp_path_factory):
    """``seqimp motifs`` trained on the planted FASTA pair: its folder and what it printed."""
    out = tmp_path_factory.mktemp("from_fasta") / "motifs"
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        assert main(["motifs", "--positive", str(planted / "pos.fa"), "--negative", str(planted / "neg.fa"),
                     "--out", str(out), "--degree", "4", "--seed", "0", "-q"]) == 0
    return out, printed.getvalue()


@pytest.fixture(scope="module")
def genome(planted):
    """The planted FASTA pair as a genome: the positives end to end on chr1, the negatives on chr2,
    and BED3 files of one 30-nt region per record (with a region off chr1's end, dropped)."""
    folder = planted / "genome"
    folder.mkdir()
    pos, neg = read_fasta(planted / "pos.fa"), read_fasta(planted / "neg.fa")
    chroms = {"chr1": "".join(pos.sequences()), "chr2": "".join(neg.sequences())}
    (folder / "genome.fa").write_text("".join(f">{c}\n{seq}\n" for c, seq in chroms.items()))
    for name, chrom, n in (("pos.bed", "chr1", len(pos)), ("neg.bed", "chr2", len(neg))):
        (folder / name).write_text("".join(f"{chrom}\t{30 * i}\t{30 * i + 30}\n" for i in range(n)))
    with open(folder / "pos.bed", "a") as fh:
        fh.write(f"chr1\t{30 * len(pos) - 10}\t{30 * len(pos) + 10}\n")
    return folder


def _tsv(path):
    lines = path.read_text().splitlines()
    header = lines[0].split("\t")
    return [dict(zip(header, line.split("\t"))) for line in lines[1:]]


def test_motifs_from_fasta(from_fasta):
    out, printed = from_fasta
    rows = _tsv(out / "motifs.tsv")
    assert list(rows[0]) == ["name", "consensus", "start", "length", "direction", "position_free", "spread", "score",
                             "sites", "fraction_positive", "fraction_negative", "p_value", "plus_strand",
                             "held_out_p_value", "log10_p_value", "log10_held_out_p_value", "composition", "round",
                             "poim_share",
                             # appended: the PWMs for scanning (seqimp.motifs.scanning_motifs)
                             "scan_threshold", "scan_fraction_positive", "scan_fraction_negative",
                             "scan_held_out_fraction_positive", "scan_tuned", "scan_length", "scan_pwm",
                             # appended: the E-value (held-out p-value times the candidates tested)
                             "evalue", "log10_evalue",
                             # appended: the strands the sites were called on (both, or given: one strand)
                             "strand"]
    assert float(rows[0]["scan_fraction_negative"]) <= 0.01
    assert (out / "background.txt").read_text().startswith("# order-2 Markov background")
    best = rows[0]
    assert best["consensus"] == "GATTACA" and best["start"] == "11" and best["length"] == "7"
    assert int(best["sites"]) > 200
    for ext in ("meme", "jaspar", "transfac"):
        back = read_motifs(out / f"motifs.{ext}")
        assert back[0].name == "motif1" and back[0].consensus == "GATTACA"
    assert (out / "logos" / "motif1_logo.png").stat().st_size > 1000
    assert (out / "logos" / "importance_logo.png").exists()
    assert load_poim(out / "motifs_poim.npz").max_order == 4
    assert not (out / "poim.npz").exists()
    assert not (out / "matches.tsv").exists()
    assert "motif1\tGATTACA\tstart 11" in printed


def test_candidate_tests_say_what_became_of_every_candidate(from_fasta):
    """candidate_tests.tsv: one row per candidate tested (as many as motifs.json counts for the
    E-values), each reported motif once under its own name, every other row a copy, a candidate
    whose sites another motif took, untested held out or not enriched; rounds in order."""
    import json

    from seqimp.motifs._select import OUTCOMES, TEST_COLUMNS

    out, _printed = from_fasta
    rows = _tsv(out / "candidate_tests.tsv")
    assert list(rows[0]) == TEST_COLUMNS + ["round"]
    assert len(rows) == json.loads((out / "motifs.json").read_text())["parameters"]["candidates_tested"]
    assert {r["outcome"] for r in rows} <= set(OUTCOMES)
    reported = [r["motif"] for r in rows if r["outcome"].startswith("reported")]
    assert sorted(reported) == sorted(r["name"] for r in _tsv(out / "motifs.tsv"))  # each once
    names = set(reported)
    assert all(r["motif"] in names for r in rows if r["outcome"] in ("copy", "sites of another motif"))
    assert all(r["motif"] == "" for r in rows if r["outcome"] in ("not enriched", "not tested held out"))
    rounds = [int(r["round"]) for r in rows]
    assert rounds == sorted(rounds) and rounds[0] == 1


def test_central_width_reaches_the_deeper_search_and_is_recorded(planted, from_fasta, tmp_path, capsys):
    """motifs.json records the central width the deeper search counted words in: 0 for 30-nt
    records at the default (100: records under 300 nt), 10 with --central-width 10; a negative
    width is refused with one line naming the option."""
    depth = json.loads((from_fasta[0] / "motifs.json").read_text())["parameters"]["depth"]
    assert depth["central_width"] == 0
    args = ["motifs", "--positive", str(planted / "pos.fa"), "--negative", str(planted / "neg.fa"),
            "--degree", "4", "--seed", "0", "-q"]
    assert main(args + ["--out", str(tmp_path / "c10"), "--central-width", "10"]) == 0
    depth = json.loads((tmp_path / "c10" / "motifs.json").read_text())["parameters"]["depth"]
    assert depth["central_width"] == 10
    capsys.readouterr()
    assert main(args + ["--out", str(tmp_path / "bad"), "--central-width", "-1"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--central-width" in err[0], err
    assert not (tmp_path / "bad").exists()


def test_motifs_from_bed_windows_equal_the_fasta_run(genome, from_fasta, tmp_path, capsys):
    """The same sequences as BED windows cut from a genome (read_inputs, as in 'seqimp poim'):
    the same motifs, byte for byte; the sites named by their genome coordinates."""
    out = tmp_path / "bed"
    assert main(["motifs", "--positive-bed", str(genome / "pos.bed"), "--negative-bed", str(genome / "neg.bed"),
                 "--genome", str(genome / "genome.fa"), "--width", "30", "--out", str(out), "--degree", "4",
                 "--seed", "0"]) == 0
    captured = capsys.readouterr()
    assert "motif1\tGATTACA\tstart 11" in captured.out
    assert re.search(r"300 windows of 30 nt \(dropped 1: .*off_chromosome 1", captured.err)
    fasta = from_fasta[0]
    for name in ("motifs.meme", "motifs.jaspar", "motif_candidates.tsv"):
        assert (out / name).read_bytes() == (fasta / name).read_bytes(), name
    # the same table; BED windows count positions from their centre (+1 at 1-based 16: no 0)
    bed_motifs, fasta_motifs = _tsv(out / "motifs.tsv"), _tsv(fasta / "motifs.tsv")
    assert [{k: v for k, v in r.items() if k != "start_label"} for r in bed_motifs] == fasta_motifs
    assert bed_motifs[0]["start_label"] == "-5"  # start 11 counted from origin 16
    bed_sites, fasta_sites = _tsv(out / "motif_sites.tsv"), _tsv(fasta / "motif_sites.tsv")
    assert len(bed_sites) == len(fasta_sites) > 200
    for b, f in zip(bed_sites, fasta_sites):  # record seq<i> of the FASTA is region chr1:30(i-1)-30i
        i = int(f["id"].removeprefix("seq"))
        assert b["id"] == f"chr1:{30 * i - 30}-{30 * i}(+)"
        assert (b["position"], b["strand"], b["score"]) == (f["position"], f["strand"], f["score"])


def test_motifs_from_bed_windows_with_shuffled_negatives_and_a_poim(genome, from_fasta, tmp_path, capsys):
    """--negatives shuffle with --poim: the saved POIM's motifs refined on BED windows against
    dinucleotide shuffles drawn with --seed (recorded in motifs.json)."""
    out = tmp_path / "shuf"
    argv = ["motifs", "--poim", str(from_fasta[0] / "motifs_poim.npz"), "--positive-bed", str(genome / "pos.bed"),
            "--genome", str(genome / "genome.fa"), "--width", "30", "--negatives", "shuffle", "--seed", "3",
            "--out", str(out), "-q"]
    assert main(argv) == 0
    best = _tsv(out / "motifs.tsv")[0]
    assert best["consensus"] == "GATTACA" and best["start"] == "11" and float(best["p_value"]) < 1e-10
    assert json.loads((out / "motifs.json").read_text())["parameters"]["seed"] == 3
    short = argv[:argv.index("--width") + 1] + ["20"] + argv[argv.index("--width") + 2:]
    assert main(short) == 2
    assert capsys.readouterr().err.strip().endswith(
        f"--positive-bed {genome / 'pos.bed'} has length 20, but --poim {from_fasta[0] / 'motifs_poim.npz'} "
        "describes sequences of length 30")


def test_motifs_into_a_poim_report(planted, tmp_path):
    out = tmp_path / "results"
    assert main(["poim", "--positive", str(planted / "pos.fa"), "--negative", str(planted / "neg.fa"),
                 "--out", str(out), "--degree", "4", "--seed", "0", "--no-motifs", "-q"]) == 0
    assert 'id="motifs"' not in (out / "report.html").read_text()
    before = json.loads((out / "summary.json").read_text())["files"]["bytes"]
    assert "motifs.meme" not in before and "model.npz" in before
    assert main(["motifs", "--poim", str(out / "poim.npz"), "--out", str(out), "--db",
                 str(DATA / "toy_motifs.transfac"), "-q"]) == 0
    # the summary's record of what was written gains the motif files, measured on disk
    files = json.loads((out / "summary.json").read_text())["files"]
    assert set(before) < set(files["bytes"]) and {"motifs.meme", "matches.tsv", "logos/motif1_logo.png"} <= set(files["bytes"])
    assert all(files["bytes"][name] == (out / name).stat().st_size for name in files["bytes"])
    assert files["total"] == sum(files["bytes"].values())
    matches = _tsv(out / "matches.tsv")
    assert {"query", "target", "p_value", "q_value"} <= set(matches[0])
    # a PWM fitted to the POIM alone is flat (no sequences to count sites in): not compared, and said so
    assert [r["target_description"] for r in matches if r["query"] == "motif1"] == ["not compared: uninformative"]
    report = (out / "report.html").read_text()
    assert 'id="motifs"' in report and "Matches to known motifs" in report and "GATTACA" in report
    assert "Database: not compared: uninformative" in report


def test_motifs_with_a_jaspar_release_by_name(planted, tmp_path, capsys):
    """--db JASPAR2024 (any case): JASPAR 2024 CORE vertebrates through pyjaspar, recorded in
    motifs.json; a release that does not exist fails before any work."""
    pytest.importorskip("pyjaspar", reason="needs pyjaspar: pip install '.[jaspar]'")
    import json

    out = tmp_path / "motifs"
    args = ["motifs", "--positive", str(planted / "pos.fa"), "--negative", str(planted / "neg.fa"), "--degree", "4"]
    assert main(args + ["--out", str(out), "--db", "jaspar2024", "-q"]) == 0
    matches = _tsv(out / "matches.tsv")
    assert list(matches[0])[:5] == ["query", "target", "target_description", "target_class", "p_value"]
    assert {r["query"] for r in matches} == {r["name"] for r in _tsv(out / "motifs.tsv")}
    database = json.loads((out / "motifs.json").read_text())["parameters"]["database"]
    assert (database["release"], database["collection"], database["tax_group"], database["motifs"]) == \
        ("JASPAR2024", "CORE", "vertebrates", 879)
    stdout = capsys.readouterr().out
    assert "\nmotif1: " in stdout
    assert "\nknown motifs: JASPAR2024 CORE vertebrates (879 motifs) -- JASPAR 2024 (Rauluseviciute" in stdout
    assert main(args + ["--out", str(tmp_path / "never"), "--db", "JASPAR1999"]) == 2
    assert "unknown JASPAR release 'JASPAR1999'; pyjaspar has JASPAR2014" in capsys.readouterr().err
    assert not (tmp_path / "never").exists()


def test_motifs_from_synthetic_poim(tmp_path):
    truth = [Motif.from_consensus("a", "TTGACA", purity=0.9, start=8),
             Motif.from_consensus("b", "TATAAT", purity=0.9, start=25)]
    tables = implied_poim(truth, 40, 4)
    POIMResult(tables, tables, expected_score=0.0, score_std=1.0).save(tmp_path / "p.npz")
    out = tmp_path / "m"
    assert main(["motifs", "--poim", str(tmp_path / "p.npz"), "--out", str(out), "--format", "svg", "-q"]) == 0
    rows = {r["consensus"]: r for r in _tsv(out / "motifs.tsv")}
    assert rows["TTGACA"]["start"] == "8" and rows["TATAAT"]["start"] == "25"
    assert rows["TTGACA"]["sites"] == "NA"  # no sequences to count sites in: unknown, not 0
    assert len(list((out / "logos").glob("*.svg"))) == 3


def test_bad_input(planted, tmp_path, capsys):
    empty = tmp_path / "empty.meme"
    empty.write_text("\n")
    out = tmp_path / "never"
    args = ["motifs", "--positive", str(planted / "pos.fa"), "--negative", str(planted / "neg.fa"),
            "--out", str(out), "--degree", "3"]
    assert main(args + ["--db", str(empty)]) == 2
    assert "empty motif database" in capsys.readouterr().err
    rna = tmp_path / "rna.meme"
    rna.write_text((DATA / "toy_motifs.meme").read_text().replace("ALPHABET= ACGT", "ALPHABET= ACGU"))
    assert main(args + ["--db", str(rna)]) == 2
    assert "alphabet 'ACGU' is not supported" in capsys.readouterr().err
    assert main(["motifs", "--negative", str(planted / "neg.fa"), "--out", str(out)]) == 2
    assert "--negative needs --positive (alone, --positive gets dinucleotide-shuffled controls" in capsys.readouterr().err
    # BED windows: the checks of 'seqimp poim' (read_inputs), before any work
    bed = tmp_path / "p.bed"
    bed.write_text("seq1\t0\t30\n")  # the first record of pos.fa as a chromosome
    for extra, message in ((["--width", "30"], "seqimp: error: --positive-bed needs --genome GENOME.fa\n"),
                           (["--genome", str(bed), "--width", "30", "--positive", str(planted / "pos.fa")],
                            "seqimp: error: --positive and --positive-bed both give the sequences; use one\n"),
                           (["--genome", str(planted / "pos.fa"), "--width", "30", "--negative-bed", str(bed),
                             "--negatives", "shuffle"],
                            "seqimp: error: --negative-bed and --negatives both give the negative sequences; use "
                            "one\n")):
        assert main(["motifs", "--positive-bed", str(bed), "--out", str(out)] + extra) == 2
        assert capsys.readouterr().err.endswith(message)
    assert main(["motifs", "--poim", str(tmp_path / "missing.npz"), "--out", str(out)]) == 2
    assert "missing.npz: no such file" in capsys.readouterr().err
    not_npz = tmp_path / "not.npz"
    not_npz.write_text(">a\nACGT\n")
    assert main(["motifs", "--poim", str(not_npz), "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"seqimp: error: --poim {not_npz}: not a POIM result file (poim.npz of 'seqimp poim', "
                   "or a saved POIMResult)"]
    # too large a POIM is refused before any training
    assert main(args + ["--max-order", "31"]) == 2
    err = capsys.readouterr().err
    assert "--max-order 31 exceeds the sequence length 30" in err and "training" not in err
    a_file = tmp_path / "a_file"
    a_file.write_text("x")
    assert main(args[:5] + ["--out", str(a_file)]) == 2
    err = capsys.readouterr().err
    assert "exists and is not a directory" in err and "training" not in err
    assert not out.exists()  # nothing half-written


def test_motifs_homer_writes_motifs_homer_listed_in_the_manifest(tmp_path):
    from seqimp.cli._output_folder import owned_files

    truth = [Motif.from_consensus("a", "TTGACA", purity=0.9, start=8)]
    tables = implied_poim(truth, 30, 4)
    POIMResult(tables, tables, expected_score=0.0, score_std=1.0).save(tmp_path / "p.npz")
    out = tmp_path / "m"
    assert main(["motifs", "--poim", str(tmp_path / "p.npz"), "--out", str(out), "--homer", "-q"]) == 0
    meme, homer = read_motifs(out / "motifs.meme"), read_motifs(out / "motifs.homer")
    assert [m.name for m in homer] == [m.name for m in meme] and homer[0].consensus == "TTGACA"
    for a, b in zip(meme, homer):  # HOMER rows carry 3 decimals
        np.testing.assert_allclose(b.pwm, a.pwm, atol=2e-3)
    assert "motifs.homer" in owned_files(out, "motifs")
    # a later run without --homer leaves no motifs.homer of the earlier motifs behind
    assert main(["motifs", "--poim", str(tmp_path / "p.npz"), "--out", str(out), "-q"]) == 0
    assert not (out / "motifs.homer").exists() and "motifs.homer" not in owned_files(out, "motifs")


def test_motifs_with_the_figure_process_writes_the_same_files(planted, from_fasta, tmp_path, monkeypatch):
    """The figures drawn by the figure process (seqimp.plot._figure_process, on for a command
    line run on two or more cores; off for the rest of the suite): every file the same bytes as
    the run that drew them itself (the report and manifest name their folder and are left out)."""
    monkeypatch.setenv("SEQIMP_FIGURE_PROCESS", "1")
    monkeypatch.setattr("seqimp._utils.cores.available_cores", lambda: 2)
    started = []
    import seqimp.plot._figure_process as figures

    monkeypatch.setattr(figures.FigureProcess, "submit",
                        lambda self, jobs, _submit=figures.FigureProcess.submit: started.append(self.alive)
                        or _submit(self, jobs))
    batches = []
    monkeypatch.setattr(figures.FigureProcess, "_send_batch",
                        lambda self, jobs, _send=figures.FigureProcess._send_batch: batches.append(len(jobs))
                        or _send(self, jobs))
    out = tmp_path / "motifs"
    with contextlib.redirect_stdout(io.StringIO()):
        assert main(["motifs", "--positive", str(planted / "pos.fa"), "--negative", str(planted / "neg.fa"),
                     "--out", str(out), "--degree", "4", "--seed", "0", "-q"]) == 0
    assert started == [True]
    # the first round's figures were sent ahead, while round 2 searched; round 2 found no new
    # motif, so the final figures were copied from there and none drawn again
    assert batches == [3]
    reference = from_fasta[0]
    names = sorted(p.relative_to(reference).as_posix() for p in reference.rglob("*") if p.is_file()
                   and p.name not in ("report.html", ".seqimp-motifs.json", "motifs.json"))
    assert any(n.startswith("logos/") for n in names)
    for name in names:
        assert (out / name).read_bytes() == (reference / name).read_bytes(), name
