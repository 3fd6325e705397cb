"""Tests of seqimp.datasets: demo paths, UCI splice and promoter parsers (+ real data when present)."""

import warnings
from pathlib import Path

import numpy as np
import pytest

from seqimp.datasets import demo_paths, load_uci_promoters, load_uci_splice, promoter_position
from seqimp.errors import SeqimpError
from seqimp.io import read_fasta

SHARED = Path(__file__).resolve().parents[2] / "shared" / "data"


def _shared(*parts) -> Path:
    path = SHARED.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"{path} is not present")
    return path


def test_demo_paths_exist_and_read():
    pos, neg = demo_paths()
    assert read_fasta(pos).length == read_fasta(neg).length == 60


def test_demo_data_is_what_the_script_makes(tmp_path):
    import subprocess
    import sys

    script = Path(__file__).resolve().parents[1] / "scripts" / "make_demo_data.py"
    subprocess.run([sys.executable, str(script), "--out", str(tmp_path / "new")], check=True, capture_output=True)
    for made, shipped in zip(sorted((tmp_path / "new").iterdir()), sorted(demo_paths())):
        assert made.name == shipped.name and made.read_bytes() == shipped.read_bytes()
    pos = read_fasta(demo_paths()[0]).sequences()
    starts = {s.find("TGACTCA") + 1 for s in pos} - {0}  # 0: the ~20% with a mutated site
    assert {21, 22, 23} <= starts and sum(s.find("TGACTCA") + 1 in (21, 22, 23) for s in pos) >= 0.75 * len(pos)


def _splice_line(label, name, seq):
    return f"{label},{' ' * 3}{name},{' ' * 10}{seq}\n"


def test_splice_parser_on_a_small_file(tmp_path):
    rng = np.random.default_rng(0)
    seqs = ["".join(rng.choice(list("ACGT"), 60)) for _ in range(4)]
    ambiguous = seqs[2][:5] + "D" + seqs[2][6:]
    bad = seqs[3][:10] + "Z" + seqs[3][11:]
    path = tmp_path / "splice.data"
    path.write_text(_splice_line("EI", "A-DONOR-1", seqs[0]) + _splice_line("IE", "B-ACCEPTOR-2", seqs[1])
                    + "\n" + _splice_line("N", "C-NEG-3", ambiguous) + _splice_line("N", "D-NEG-4", bad))
    with pytest.warns(UserWarning, match=r"skipped 1 of 4 records with symbols that are no IUPAC nucleotide code "
                                         r"\(e.g. D-NEG-4\)"):
        data = load_uci_splice(tmp_path)  # the folder works as well as the file
    assert data.sequences.sequences() == [seqs[0], seqs[1], seqs[2][:5] + "N" + seqs[2][6:]]
    assert data.sequences.codes[2, 5] == 4  # D (not C): unknown, the record kept
    assert list(data.target) == ["EI", "IE", "N"]
    assert data.names == ["A-DONOR-1", "B-ACCEPTOR-2", "C-NEG-3"]
    assert data.n_skipped == 1
    with pytest.raises(SeqimpError, match=r"record 'D-NEG-4': invalid symbol 'Z' at position 11"):
        load_uci_splice(path, on_invalid="error")


@pytest.mark.parametrize("line, message", [
    ("EI,X,ACGT,extra\n", r"line 1: expected 3 comma-separated fields"),
    ("XX,X," + "A" * 60 + "\n", r"line 1: unknown class 'XX'"),
    ("EI,X," + "A" * 59 + "\n", r"line 1 \(X\): sequence has length 59, expected 60"),
    ("\n", r"no records"),
])
def test_splice_parser_rejects_bad_lines(tmp_path, line, message):
    path = tmp_path / "splice.data"
    path.write_text(line)
    with pytest.raises(SeqimpError, match=message):
        load_uci_splice(path)


def test_missing_file_is_named(tmp_path):
    with pytest.raises(SeqimpError, match=r"promoters.data: no such file"):
        load_uci_promoters(tmp_path)


def test_promoter_positions_skip_zero():
    assert promoter_position(1) == -50
    assert promoter_position(50) == -1
    assert promoter_position(51) == 1
    assert promoter_position(57) == 7
    assert list(promoter_position([16, 44])) == [-35, -7]
    with pytest.raises(SeqimpError, match=r"lie in 1..57"):
        promoter_position(0)


def test_real_splice_data():
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # every letter is a base or an IUPAC code: no record dropped
        data = load_uci_splice(_shared("uci_splice", "splice.data"))
    assert data.sequences.codes.shape == (3190, 60) and data.n_skipped == 0
    held = (data.sequences.codes == 4).any(axis=1)
    assert int(held.sum()) == 15  # the records with D, N, S, R, read as unknown
    counts = {c: int((data.target == c).sum()) for c in ("EI", "IE", "N")}
    assert sum(counts.values()) == 3190 and counts["EI"] > 750 and counts["IE"] > 750
    # the consensus of donors: GT at 1-based 31-32 in (almost) every EI record
    ei = data.sequences.subset(data.target == "EI").codes
    assert np.mean((ei[:, 30] == 2) & (ei[:, 31] == 3)) > 0.95


def test_real_promoter_data():
    data = load_uci_promoters(_shared("uci_promoters", "promoters.data"))
    assert data.sequences.codes.shape == (106, 57)
    assert int((data.target == "+").sum()) == 53 and data.n_skipped == 0
    assert data.positions[0] == -50 and data.positions[-1] == 7 and 0 not in data.positions


@pytest.mark.parametrize("cls, expected, start", [("EI", "GT", 31), ("IE", "AG", 29)])
def test_real_splice_sites_top_the_2mer_poim(cls, expected, start):
    """Known biology: donors (EI) have GT at 31-32, acceptors (IE) AG at 29-30 (1-based)."""
    from seqimp.io import kmer_string
    from seqimp.background._poim_background import make_background
    from seqimp.importance._poim_job import compute_importance
    from seqimp.options import ModelOptions
    from seqimp.training import train_model

    data = load_uci_splice(_shared("uci_splice", "splice.data"))
    known = (data.sequences.codes < 4).all(axis=1)  # the biology, on the records of bases only
    pos = data.sequences.subset((data.target == cls) & known)
    neg = data.sequences.subset((data.target == "N") & known)
    weights, info = train_model(pos, neg, model=ModelOptions(degree=3), random_state=0)
    assert info["auroc"] > 0.97
    result = compute_importance(weights, make_background("negative", negative=neg)[0], max_order=2)
    table = np.abs(result.poim[1])
    j, z = np.unravel_index(np.argmax(table), table.shape)
    assert (kmer_string(z, 2), j + 1) == (expected, start)
