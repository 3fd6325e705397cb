"""scripts/motif_scenarios.py: STREME run beside seqimp (``--streme``), timed processes."""

import stat
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))
import motif_scenarios as ms  # noqa: E402

# A stand-in for the streme executable: writes a one-motif streme.txt and a sites.tsv into --oc
# and records its arguments, so that what the benchmark reads from a STREME run is tested here
# without MEME installed.
FAKE_STREME = '''#!{python}
import sys
from pathlib import Path

args = sys.argv[1:]
out = Path(args[args.index("--oc") + 1])
out.mkdir(parents=True, exist_ok=True)
(out / "args.txt").write_text(" ".join(args))
(out / "streme.txt").write_text("""MEME version 5.5.8

ALPHABET= ACGT

strands: + -

Background letter frequencies
A 0.25 C 0.25 G 0.25 T 0.25

MOTIF 1-TGACGTCA STREME-1
letter-probability matrix: alength= 4 w= 8 nsites= 2 E= 1.0e-005
""" + "".join(" ".join("0.91" if j == c else "0.03" for j in range(4)) + "\\n" for c in [3, 2, 0, 1, 2, 3, 1, 0]) + """
FINALTIME:\\t0.25 seconds
""")
(out / "sites.tsv").write_text(
    "motif_ID\\tmotif_ALT_ID\\tseq_ID\\tsite_Start\\tsite_End\\tsite_Strand\\tsite_Score\\tsite_Sequence\\n"
    "1-TGACGTCA\\tSTREME-1\\tt_pos_1\\t3\\t10\\t+\\t9.0\\tTGACGTCA\\n"
    "1-TGACGTCA\\tSTREME-1\\tt_pos_2\\t12\\t5\\t-\\t9.0\\tTGACGTCA\\n"
    "# streme\\n")
sys.exit(int("--fail" in args))
'''


@pytest.fixture
def fake_streme(tmp_path):
    path = tmp_path / "streme"
    path.write_text(FAKE_STREME.format(python=sys.executable))
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


def _scenario(tmp_path):
    (tmp_path / "t_pos.fa").write_text(">t_pos_1\nACTGACGTCAAC\n>t_pos_2\nACCTGACGTCAA\n")
    (tmp_path / "t_neg.fa").write_text(">t_neg_1\nACGTTTGGCAAC\n>t_neg_2\nCCGATTAGCAAT\n")
    planted = pd.DataFrame({"sequence": [0, 1], "motif": ["X", "X"], "start": [3, 5], "end": [10, 12]})
    return ms.Scenario("t", tmp_path / "t_pos.fa", tmp_path / "t_neg.fa", planted, {})


def test_run_streme_passes_the_stored_options_and_its_answer_is_read(tmp_path, fake_streme):
    sc = _scenario(tmp_path)
    timing = ms.run_streme(sc, tmp_path / "t_streme", fake_streme)
    assert timing.code == 0 and timing.wall > 0 and timing.cpu >= 0 and timing.rss > 0
    args = (tmp_path / "t_streme" / "args.txt").read_text().split()
    assert args == ["--p", str(sc.pos.resolve()), "--n", str(sc.neg.resolve()), "--dna", "--oc",
                    str((tmp_path / "t_streme").resolve())]
    assert (tmp_path / "t_streme.log").exists()
    motifs, sites, seconds = ms.streme_answer(sc, (tmp_path / "t_streme" / "streme.txt",
                                                   tmp_path / "t_streme" / "sites.tsv"))
    assert [m.consensus for m in motifs] == ["TGACGTCA"] and seconds == 0.25
    # 0-based sequence, leftmost 1-based position on + for both strands, length from start/end
    assert sites["sequence"].tolist() == [0, 1]
    assert sites["position"].tolist() == [3, 5] and sites["length"].tolist() == [8, 8]
    assert ms.recall(sc.planted, sites) == 1.0


def test_timed_process_reports_the_exit_code(tmp_path, fake_streme):
    timing = ms.timed_process([str(fake_streme), "--oc", str(tmp_path / "o"), "--fail"], tmp_path / "o.log")
    assert timing.code == 1
    assert np.isfinite(timing.wall) and timing.rss > 0
