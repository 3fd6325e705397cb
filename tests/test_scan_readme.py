"""The README's Usage block, run as written, line by line, in a folder holding small files of
the names it uses (pos.fa, neg.fa, peaks.fa, data/known_motifs.meme, peaks.narrowPeak, hg38.fa, mpra.tsv ...).

Lines that need what a test cannot make small (an ONNX model, a Dask cluster, a 4^12-column
streamed POIM, a codes store the block never writes) are listed in NOT_RUN with the test
that covers their command; every other line must exit 0, and a line that is neither run nor
listed fails the test."""

import re
import shlex
import shutil
from pathlib import Path

import numpy as np
import pytest

from seqimp.cli import main

ROOT = Path(__file__).resolve().parent.parent
DATA = Path(__file__).resolve().parent / "data"

#: command line (its start) -> why it is not run here and where its command is tested
NOT_RUN = {
    "seqimp poim --positive pos.fa --negative neg.fa --out results --max-order 12": "a streamed POIM of order 12 "
    "(tests/test_poim_streaming.py)",
    "seqimp train --codes train.codes --test-codes": "test.codes is not written by the block "
    "(tests/test_codes_store.py)",
    "seqimp train --positive pos.fa --negative neg.fa --model-out model.npz --dask-workers": "a local Dask "
    "cluster (tests/test_distributed.py)",
    "seqimp poim --onnx-model": "an ONNX model file (tests/test_onnx_scorer.py)",
    "seqimp --help": "prints the help (tests/test_cli.py)",
    "seqimp demo": "the demo (tests/test_cli_demo.py)",
    "seqimp motifs --positive pos.fa --negative neg.fa --out motifs --db JASPAR2024": "matched against JASPAR "
    "2024 in tests/test_cli_motifs.py; run here without --db",
}


def usage_lines():
    text = (ROOT / "README.md").read_text()
    block = re.findall(r"```bash\n(.*?)```", text.split("## Usage", 1)[1], flags=re.S)[0]
    return [line.split("#", 1)[0].strip() for line in block.splitlines() if line.split("#", 1)[0].strip()]


def _genome(folder, rng):
    chrom = "".join(rng.choice(list("ACGT"), size=3000))
    starts = list(range(100, 2900, 140))
    for s in starts:
        chrom = chrom[:s + 45] + "GATTACA" + chrom[s + 52:]
    (folder / "hg38.fa").write_text(">chr1\n" + "\n".join(chrom[i:i + 60] for i in range(0, len(chrom), 60)) + "\n")
    (folder / "peaks.narrowPeak").write_text("".join(f"chr1\t{s}\t{s + 100}\tp{i}\t0\t+\t1\t1\t1\t48\n"
                                                     for i, s in enumerate(starts)))
    # SNVs at the first summits (inside GATTACA) for 'seqimp variants'
    (folder / "calls.vcf").write_text("##fileformat=VCFv4.2\n#CHROM\tPOS\tID\tREF\tALT\n" + "".join(
        f"chr1\t{s + 49}\trs{i}\t{chrom[s + 48]}\t{'C' if chrom[s + 48] != 'C' else 'G'}\n"
        for i, s in enumerate(starts[:5])))


@pytest.fixture
def workdir(tmp_path, monkeypatch):
    rng = np.random.default_rng(0)
    shutil.copy(DATA / "planted_pos.fa", tmp_path / "pos.fa")
    shutil.copy(DATA / "planted_neg.fa", tmp_path / "neg.fa")
    (tmp_path / "data").mkdir()
    shutil.copy(ROOT / "data" / "demo_positive.fa", tmp_path / "data" / "demo_positive.fa")
    shutil.copy(ROOT / "data" / "known_motifs.meme", tmp_path / "data" / "known_motifs.meme")
    lines = (tmp_path / "pos.fa").read_text().splitlines()  # records of different lengths, as peaks are
    (tmp_path / "peaks.fa").write_text("".join(f"{lines[i]}\n{lines[i + 1][i % 7:]}\n"
                                               for i in range(0, len(lines), 2)))
    _genome(tmp_path, rng)
    seqs = ["".join(rng.choice(list("ACGT"), size=20)) for _ in range(60)]
    (tmp_path / "mpra.tsv").write_text("seq\tactivity\n" + "".join(
        f"{s}\t{s.count('GA') + rng.normal(0, 0.1):.3f}\n" for s in seqs))
    (tmp_path / "pos.fa.gz").write_bytes(__import__("gzip").compress((tmp_path / "pos.fa").read_bytes()))
    (tmp_path / "neg.fa.gz").write_bytes(__import__("gzip").compress((tmp_path / "neg.fa").read_bytes()))
    onehot = np.eye(4, dtype=np.float32)[rng.integers(0, 4, size=(20, 60))].transpose(0, 2, 1)
    np.savez(tmp_path / "ohe.npz", onehot)  # an attribution map of noise: its run reports no motif
    np.savez(tmp_path / "attr.npz", rng.normal(0, 0.1, size=onehot.shape).astype(np.float32))
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _small(argv):
    """Sizes for a test: the WD degree and POIM order of the block's defaults kept small."""
    if argv[0] in ("poim", "motifs", "train") and "--degree" not in argv and "--model" not in argv \
            and "--table" not in argv and "--poim" not in argv:
        argv += ["--degree", "4"]
    if "--degree" in argv:
        argv[argv.index("--degree") + 1] = "4"
    return argv


def test_every_usage_line_runs_or_is_listed(workdir):
    lines = usage_lines()
    assert any(line.startswith("seqimp scan") for line in lines) and any(line.startswith("seqimp enrich")
                                                                          for line in lines)
    ran = []
    for line in lines:
        reason = next((why for start, why in NOT_RUN.items() if line.startswith(start)), None)
        argv = shlex.split(line)[1:]
        if reason is not None and "run here without --db" not in reason:
            continue
        if reason is not None:  # the JASPAR release: the same command without the database
            argv = argv[:argv.index("--db")] + argv[argv.index("--db") + 2:]
        if argv[0] == "enrich" and "JASPAR2024" in " ".join(argv):
            pytest.importorskip("pyjaspar", reason="needs pyjaspar: pip install '.[jaspar]'")
        assert main(_small(argv)) == 0, line
        ran.append(argv[0])
    assert {"inspect", "poim", "train", "motifs", "scan", "enrich", "encode"} <= set(ran)
    scan = (workdir / "scan" / "scan.tsv").read_text().splitlines()
    assert scan[0].split("\t")[:7] == ["motif", "id", "position", "strand", "score", "p_value", "q_value"]
    assert len(scan) > 50  # the planted GATTACA motif found by 'seqimp motifs' is found again by the scan
    assert (workdir / "enrich" / "enrichment.tsv").exists()
