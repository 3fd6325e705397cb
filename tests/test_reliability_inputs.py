"""Adversarial cases of the command line, inputs: inputs that lie (genomes, BED, tables, model
and POIM files), faults (options out of range, low memory) and determinism (figures, scorers,
the terminal). Every case asserts the exit status, the one ``seqimp: error:`` line (or the
warning) and what is on disk (tests/reliability_helpers.py)."""

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from reliability_helpers import (DATA, FAST, NEG, POS, ROOT, copy, listing, make_poim_folder, motifs,
                                 one_error, poim)

from seqimp.cli import main


@pytest.fixture(scope="module")
def poim_folder(tmp_path_factory):
    return make_poim_folder(tmp_path_factory)


# ----- inputs that lie: genomes, BED, tables ------------------------------------------------------------

def _genome(path, records, width=60):
    with open(path, "w") as fh:
        for name, seq in records:
            fh.write(f">{name} test\n" + "".join(seq[i:i + width] + "\n" for i in range(0, len(seq), width)))
    return path


def _random_dna(n, seed):
    return "".join(np.random.default_rng(seed).choice(list("ACGT"), size=n))


@pytest.mark.parametrize("change, problem", [
    ("longer", r"record 'chr1': it no longer ends after 1,000 bases \(longer or re-wrapped\?\)"),
    ("last_longer", r"record 'chr2': it no longer ends after 700 bases \(longer or re-wrapped\?\)"),
    ("rewrapped", r"record 'chr1': its lines are no longer 60 bases long \(re-wrapped\?\)"),
])
def test_a_stale_fai_is_refused_with_one_line(tmp_path, capsys, change, problem):
    pytest.importorskip("pyfaidx")
    from seqimp.io import open_genome

    chr1, chr2 = _random_dna(1000, 1), _random_dna(700, 2)
    genome = _genome(tmp_path / "g.fa", [("chr1", chr1), ("chr2", chr2)])
    open_genome(genome).close()  # builds g.fa.fai
    fai = genome.with_name("g.fa.fai")
    built = fai.stat().st_mtime
    records = {"longer": [("chr1", chr1 + "ACGT" * 10), ("chr2", chr2)],
               "last_longer": [("chr1", chr1), ("chr2", chr2 + "ACGTA")],
               "rewrapped": [("chr1", chr1), ("chr2", chr2)]}[change]
    _genome(genome, records, width=50 if change == "rewrapped" else 60)
    os.utime(genome, (built - 100, built - 100))  # older than its index: pyfaidx keeps the index
    bed = tmp_path / "p.bed"
    bed.write_text("chr1\t100\t140\nchr2\t300\t340\n")
    before = listing(tmp_path)
    assert main(["poim", "--positive-bed", str(bed), "--genome", str(genome), "--width", "20",
                 "--negatives", "shuffle", "--out", str(tmp_path / "res"), *FAST]) == 2
    one_error(capsys, rf"^seqimp: error: --genome {genome}: its index {fai} does not match the FASTA \({problem}\); "
                      rf"the FASTA changed after the index was built: delete {fai} and run again")
    assert listing(tmp_path) == before


def test_a_current_fai_passes_the_check(tmp_path):
    pytest.importorskip("pyfaidx")
    from seqimp.io import open_genome
    from seqimp.io._genome import index_mismatch

    for width, newline in ((60, "\n"), (7, "\n"), (60, "\r\n")):
        genome = tmp_path / f"g{width}{len(newline)}.fa"
        text = "".join(f">{n}\n" + "".join(s[i:i + width] + newline for i in range(0, len(s), width))
                       for n, s in (("a", _random_dna(120, 3)), ("b", _random_dna(61, 4)), ("c", _random_dna(7, 5))))
        genome.write_bytes(text.encode())
        fa = open_genome(genome)
        assert index_mismatch(genome, fa.faidx.index) is None
        assert fa["b"][0:61] == text.split(">b\n")[1].split(">")[0].replace(newline, "")
        fa.close()


def test_bed_chromosomes_without_chr_warn_even_with_quiet(tmp_path, capsys):
    pytest.importorskip("pyfaidx")
    genome = _genome(tmp_path / "g.fa", [("chr1", _random_dna(1000, 1)), ("chr2", _random_dna(700, 2))])
    bed = tmp_path / "p.bed"
    bed.write_text("".join(f"chr1\t{s}\t{s + 40}\n" for s in range(50, 900, 30))
                   + "".join(f"2\t{s}\t{s + 40}\n" for s in range(50, 600, 30)))
    out = tmp_path / "res"
    assert main(["poim", "--positive-bed", str(bed), "--genome", str(genome), "--width", "20", "--negatives",
                 "shuffle", "--out", str(out), "--no-motifs", *FAST]) == 0
    warnings = [line for line in capsys.readouterr().err.splitlines() if "'chr' prefix" in line]
    assert warnings == [f"seqimp: warning: {bed}: 1 chromosome name(s) are not in the genome, which names them "
                        f"with the 'chr' prefix (e.g. '2' is 'chr2' there); their regions are dropped; rename "
                        f"them: awk 'BEGIN{{OFS=\"\\t\"}} !/^(#|track|browser)/{{$1=\"chr\"$1}} 1' {bed} > "
                        "renamed.bed"]


def test_a_fasta_with_a_utf8_byte_order_mark_is_read(tmp_path, capsys):
    fasta = tmp_path / "bom.fa"
    fasta.write_bytes(b"\xef\xbb\xbf" + Path(POS).read_bytes())
    assert main(["inspect", str(fasta)]) == 0
    assert "records:     100" in capsys.readouterr().out


def test_width_beyond_every_chromosome_is_refused_before_allocating(tmp_path, capsys):
    pytest.importorskip("pyfaidx")
    genome = _genome(tmp_path / "g.fa", [("chr1", _random_dna(1000, 1))])
    bed = tmp_path / "p.bed"
    bed.write_text("chr1\t100\t140\n")
    assert main(["poim", "--positive-bed", str(bed), "--genome", str(genome), "--width", "1000000000000",
                 "--negatives", "shuffle", "--out", str(tmp_path / "res"), *FAST]) == 2
    one_error(capsys, r"^seqimp: error: --width 1,000,000,000,000: longer than every chromosome of the genome "
                      r"\(the longest, 'chr1', has 1,000 bases\)$")
    assert not (tmp_path / "res").exists()


def _table(tmp_path, values, name="t.tsv"):
    seqs = [_random_dna(12, i) for i in range(len(values))]
    path = tmp_path / name
    path.write_text("sequence\tvalue\n" + "".join(f"{s}\t{v}\n" for s, v in zip(seqs, values)))
    return path


def test_table_labels_are_decided_once(tmp_path):
    from seqimp.io import read_sequence_table

    mixed = read_sequence_table(_table(tmp_path, ["0", "1", "1.0", "0.0", "1"] * 4), sequence_column="sequence",
                                value_column="value")
    assert mixed.binary and mixed.classes == ("0", "1") and mixed.labels.tolist() == [0, 1, 1, 0, 1] * 4
    # two other numbers are two labels too (the smaller the negative class), and 7 and 7.0 are one
    two = read_sequence_table(_table(tmp_path, ["2.5", "7", "7.0"] * 4, "two.tsv"), sequence_column="sequence",
                              value_column="value")
    assert two.binary and two.classes == ("2.5", "7") and two.labels.tolist() == [0, 1, 1] * 4


@pytest.mark.parametrize("values, message", [
    (["3.5"] * 12, r"column 'value' holds the one value 3\.5 in every row; there is nothing to learn"),
    (["1e300", "2", "3"] * 4, r"line 2: value '1e300' in column 'value' is beyond \+-1e\+100, too large to train "
                              r"on; rescale the column"),
    (["1", "inf", "3"] * 4, r"line 3: value 'inf' in column 'value' is missing or not finite"),
])
def test_table_values_that_cannot_be_learnt_are_refused(tmp_path, capsys, values, message):
    table = _table(tmp_path, values)
    out = tmp_path / "res"
    assert main(["poim", "--table", str(table), "--value-column", "value", "--out", str(out), *FAST]) == 2
    one_error(capsys, rf"^seqimp: error: --table {table}: {message}")
    assert not out.exists()


# ----- inputs that lie: model and POIM files -----------------------------------------------------------

def _npz(path, **arrays):
    from seqimp._utils.npz import save_npz

    save_npz(path, arrays)
    return path


def _bomb(path, name, shape, others):
    """An .npz whose entry ``name`` declares ``shape`` (float64) and holds that many zero bytes, deflated."""
    import io
    import zipfile

    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        for key, value in others.items():
            buffer = io.BytesIO()
            np.lib.format.write_array(buffer, np.asarray(value))
            zf.writestr(f"{key}.npy", buffer.getvalue())
        header = io.BytesIO()
        np.lib.format.write_array_header_1_0(header, {"descr": "<f8", "fortran_order": False, "shape": shape})
        with zf.open(f"{name}.npy", "w", force_zip64=True) as fh:
            fh.write(header.getvalue())
            left, zeros = int(np.prod(shape)) * 8, bytes(1 << 20)
            while left:
                fh.write(zeros[:min(left, 1 << 20)])
                left -= min(left, 1 << 20)
    return path


@pytest.mark.parametrize("make, message", [
    (lambda p: _npz(p, sparse_1_shape=np.array([20, 4]), sparse_1_index=np.array([-1, 3]),
                    sparse_1_value=np.array([1.0, 2.0]), bias=0.0, alphabet="dna"),
     r"the order-1 table is damaged \(sparse index -1 outside 0\.\.79\)"),  # values: read, then refused
    (lambda p: _npz(p, table_1=np.zeros((20, 4)), table_2=np.zeros((20, 16)), bias=0.0, alphabet="dna"),
     r"the order-2 table has shape \(20, 16\); a model of sequences of length 20 needs \(19, 16\); the file was "
     r"altered"),
    (lambda p: _npz(p, table_1=np.zeros((20, 4)), bias=0.0, alphabet="dna",
                    metadata=np.array("[" * 200_000 + "]" * 200_000)),
     r"its metadata is nested 200000 levels deep, more than the 64 a seqimp file holds"),
    (lambda p: _npz(p, table_1=np.zeros((20, 4)), bias=0.0, alphabet="dna", metadata=np.array("x" * (2 << 20))),
     r"its metadata entry is <U2097152, not a JSON string of at most 1,048,576 characters"),
    (lambda p: _bomb(p, "table_2", (19, 2 ** 16), dict(table_1=np.zeros((20, 4)), bias=0.0, alphabet="dna")),
     r"the order-2 table has shape \(19, 65536\); a model of sequences of length 20 needs \(19, 16\)"),
])
def test_model_files_that_lie_are_refused_with_one_line(tmp_path, capsys, monkeypatch, make, message):
    model = make(tmp_path / "m.npz")
    if "sparse index" not in message and "nested" not in message:  # these need the values; the rest, headers only
        monkeypatch.setattr("seqimp.kernels._weights.PositionalWeights.load",
                            lambda *a: pytest.fail("arrays read before the header check"))
    before = listing(tmp_path)
    assert main(["poim", "--model-file", str(model), "--background", "uniform", "--out", str(tmp_path / "o")]) == 2
    one_error(capsys, rf"^seqimp: error: {model}: {message}")
    assert listing(tmp_path) == before


def test_a_sparse_index_of_minus_one_is_refused_by_the_library(tmp_path):
    from seqimp.errors import SeqimpError
    from seqimp.kernels import PositionalWeights

    model = _npz(tmp_path / "m.npz", sparse_1_shape=np.array([20, 4]), sparse_1_index=np.array([-1]),
                 sparse_1_value=np.array([1.0]), bias=0.0, alphabet="dna")
    with pytest.raises(SeqimpError, match=r"the order-1 table is damaged \(sparse index -1 outside 0\.\.79\)"):
        PositionalWeights.load(model)


def test_a_poim_file_larger_than_memory_is_refused_before_reading(tmp_path, capsys, monkeypatch, poim_folder):
    monkeypatch.setattr("seqimp._utils.sizes._free_ram", lambda: 1 << 16)
    out = tmp_path / "m"
    assert motifs(out, "--poim", str(poim_folder / "poim.npz")) == 2
    one_error(capsys, rf"^seqimp: error: --poim {poim_folder / 'poim.npz'}: its arrays take [\d.]+ [KM]iB once read "
                      r"\(.*\), more than the 64 KiB of memory available$")
    assert not out.exists()


def test_npz_headers_read_shapes_without_inflating(tmp_path):
    from seqimp._utils.npz import npz_headers

    bomb = _bomb(tmp_path / "b.npz", "big", (2 ** 14, 1024), {"small": np.arange(3)})
    assert bomb.stat().st_size < 1 << 20  # 128 MiB of zeros, deflated
    headers = npz_headers(bomb)
    assert headers["big"][0] == (2 ** 14, 1024) and headers["small"][0] == (3,)


# ----- faults: options beyond range, low memory ----------------------------------------------------------

def test_position_origin_beyond_int64_is_one_line(tmp_path, capsys):
    out = tmp_path / "res"
    assert poim(out, "--position-origin", str(2 ** 70)) == 2
    one_error(capsys, r"^seqimp: error: argument --position-origin: must be an integer in "
                      r"\[-1000000000000000, 1000000000000000\], got 1180591620717411303424")
    assert not out.exists()


def test_a_tiny_max_memory_is_one_line_in_the_options_words(tmp_path, capsys):
    out = tmp_path / "res"
    assert poim(out, "--max-memory", "0.0000001") == 2
    line = one_error(capsys, r"^seqimp: error: argument --max-memory: expected a size such as 4G, 500M, 1\.5GiB or a "
                             r"number of bytes, got '0\.0000001'")
    assert "max_memory" not in line
    assert not out.exists()


def test_running_out_of_memory_mid_run_is_one_line_and_leaves_the_folder(tmp_path, capsys, monkeypatch, poim_folder):
    out = copy(poim_folder, tmp_path / "res")
    before = listing(out)

    def exhausted(*_args, **_kwargs):
        raise MemoryError("Unable to allocate 12.0 GiB for an array with shape (40000, 40000)")

    monkeypatch.setattr("seqimp.pipeline._poim_run.write_summary", exhausted)
    assert poim(out, "--no-motifs") == 2
    one_error(capsys, r"^seqimp: error: out of memory \(Unable to allocate 12\.0 GiB")
    assert listing(out) == before  # no staging folder, no lock


def _limited(limit):
    import resource

    def preexec():
        resource.setrlimit(resource.RLIMIT_AS, (limit, resource.RLIM_INFINITY))
    return preexec


def test_a_memory_limit_below_the_floor_is_one_line_and_leaves_nothing(tmp_path):
    out = tmp_path / "res"
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    env.pop("OPENBLAS_NUM_THREADS", None)
    run = subprocess.run([sys.executable, "-m", "seqimp", "poim", "--positive", POS, "--negative", NEG, "--out",
                          str(out), *FAST], env=env, capture_output=True, text=True, timeout=120,
                         preexec_fn=_limited(400 << 20))
    assert run.returncode == 2, run.stderr
    assert run.stderr.splitlines() == ["seqimp: error: the memory limit (ulimit -v) is 400 MiB; seqimp needs at "
                                       "least 1 GiB of address space to load its numerical libraries; raise the "
                                       "limit (ulimit -v) and run again; nothing was written"]
    assert not out.exists()


def test_under_a_memory_limit_budgets_and_blas_threads_follow_it():
    code = ("import os, seqimp.cli; from seqimp._utils.sizes import available_memory; "
            "print(os.environ['OPENBLAS_NUM_THREADS'], available_memory() < 3 << 30)")
    run = subprocess.run([sys.executable, "-c", code], env=dict(os.environ, PYTHONPATH=str(ROOT)),
                         capture_output=True, text=True, timeout=120, preexec_fn=_limited(3 << 30))
    assert run.returncode == 0, run.stderr
    assert run.stdout.split() == ["1", "True"]


# ----- determinism and scorers --------------------------------------------------------------------------

def test_match_logos_are_byte_identical_across_reruns(tmp_path):
    for fmt in ("svg", "pdf"):
        runs = []
        for name in ("a", "b"):
            out = tmp_path / f"{fmt}{name}"
            assert main(["motifs", "--positive", POS, "--negative", NEG, "--out", str(out), "--degree", "2", "-q",
                         "--db", str(DATA / "toy_motifs.meme"), "--format", fmt]) == 0
            runs.append(listing(out))
        matched = [n for n in runs[0] if n.endswith(f"_match.{fmt}")]
        assert matched, sorted(runs[0])
        assert runs[0] == runs[1]


SCORERS = """\
import sys
def exits(X):
    sys.exit(0)
def strings(X):
    return ["high"] * len(X)
def ragged(X):
    return [[1.0], [1.0, 2.0]] * (len(X) // 2)
"""


@pytest.mark.parametrize("name, message", [
    ("exits", r"--scorer '.*:exits' raised SystemExit: 0$"),
    ("strings", r"--scorer '.*:strings' returned strings, not real numbers; it must return one real score per "
                r"sequence, shape \(n,\)$"),
    ("ragged", r"--scorer '.*:ragged' returned list that is not an array of numbers"),
])
def test_scorers_that_exit_or_return_non_numbers_are_one_line(tmp_path, capsys, name, message):
    scorer = tmp_path / "scorers.py"
    scorer.write_text(SCORERS)
    out = tmp_path / "res"
    assert main(["poim", "--scorer", f"{scorer}:{name}", "--positive", POS, "--negative", NEG, "--out", str(out),
                 "--max-order", "2", "--n-samples", "20", "-q"]) == 2
    one_error(capsys, rf"^seqimp: error: {message}")
    assert not out.exists()


def test_control_characters_in_motif_names_are_escaped_on_the_terminal(tmp_path, capsys):
    db = tmp_path / "evil.meme"
    db.write_text((DATA / "toy_motifs.meme").read_text().replace("MOTIF toy.GATTACA GATTACA",
                                                                 "MOTIF toy.\x1b[2J\x1b]0;owned\x07GATTACA GATTACA"))
    out = tmp_path / "res"
    assert main(["motifs", "--positive", POS, "--negative", NEG, "--out", str(out), "--degree", "2", "-q",
                 "--db", str(db)]) == 0
    captured = capsys.readouterr()
    assert "\x1b" not in captured.out + captured.err and "\x07" not in captured.out + captured.err
    assert "toy.\\x1b[2J\\x1b]0;owned\\x07GATTACA" in captured.out
    assert "\x1b[2J" in (out / "matches.tsv").read_text()  # the files keep the name as it is


def test_an_onnx_model_with_a_fixed_batch_of_one_scores_every_sequence(tmp_path):
    pytest.importorskip("onnx")
    pytest.importorskip("onnxruntime")
    from onnx import TensorProto, helper, numpy_helper

    from seqimp.scorers import OnnxScorer, onehot

    length = 6
    w = np.random.default_rng(0).integers(-8, 9, size=(4 * length, 1)).astype(np.float32) / 4
    graph = helper.make_graph(
        [helper.make_node("Reshape", ["x", "flat"], ["f"]), helper.make_node("MatMul", ["f", "w"], ["y"])], "fixed",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, length, 4])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 1])],
        [numpy_helper.from_array(np.array([1, -1], np.int64), "flat"), numpy_helper.from_array(w, "w")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    path = tmp_path / "fixed.onnx"
    path.write_bytes(model.SerializeToString())
    codes = np.random.default_rng(1).integers(0, 4, size=(5, length)).astype(np.uint8)
    scorer = OnnxScorer(path, layout="NLC")
    np.testing.assert_allclose(scorer(codes), (onehot(codes) @ w).ravel(), atol=1e-6)
