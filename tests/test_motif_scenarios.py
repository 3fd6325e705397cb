"""scripts/motif_scenarios.py: STREME run beside seqimp (``--streme``), timed processes."""

import stat
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))
import motif_scenarios as ms  # noqa: E402
import scenario_sets  # noqa: E402

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
    return scenario_sets.Scenario("t", tmp_path / "t_pos.fa", tmp_path / "t_neg.fa", planted, {})


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


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_timed_process_counts_a_child_beside_its_parent(tmp_path):
    """The process-tree peak adds a child's memory to its parent's while both hold it (the
    os.wait4 peak is at most the larger of the two, or the size of this process where it forked
    the child: not checked)."""
    child = "import time; a = b'x' * (300 << 20); time.sleep(1.0)"
    parent = (f"import subprocess, sys; a = b'y' * (200 << 20); "
              f"subprocess.run([sys.executable, '-c', {child!r}], check=True)")
    timing = ms.timed_process([sys.executable, "-c", parent], tmp_path / "p.log")
    assert timing.code == 0
    assert timing.rss >= 300 and timing.tree >= 480


def test_pwm_alone_is_counted_on_the_fresh_set_too(tmp_path, monkeypatch):
    """evaluate scans a motif's PWM alone on the scenario's fresh twins with each twin's planted
    sites and gives the mean: a twin whose planted rows point at sequences without the motif
    recalls only chance hits (one of ten here), one that is the training set all of them."""
    from seqimp.motifs import Motif

    rng = np.random.default_rng(0)
    word = np.array([3, 2, 0, 1, 2, 3, 1, 0])  # TGACGTCA
    background = rng.integers(0, 4, size=(60, 30))
    pos, neg = background[:30].copy(), background[30:].copy()
    pos[:10, 5:13] = word  # ten carriers, at 6..13 (1-based)

    def write(folder, name, X):
        folder.mkdir(exist_ok=True)
        (folder / f"{name}.fa").write_text("".join(f">{name}_{i + 1}\n{''.join('ACGT'[c] for c in x)}\n"
                                                   for i, x in enumerate(X)))
        return folder / f"{name}.fa"

    planted = pd.DataFrame({"sequence": range(10), "motif": "X", "start": 6, "end": 13})
    fresh_planted = pd.DataFrame({"sequence": range(20, 30), "motif": "X", "start": 6, "end": 13})
    pwm = np.full((8, 4), 0.01)
    pwm[np.arange(8), word] = 0.97
    truth = Motif("X", pwm)
    sc = scenario_sets.Scenario("t", write(tmp_path, "pos", pos), write(tmp_path, "neg", neg), planted, {"X": truth})
    sc.fresh = [scenario_sets.Scenario("t2", write(tmp_path / "f", "pos", pos), write(tmp_path / "f", "neg", neg),
                                       fresh_planted, {"X": truth}),
                scenario_sets.Scenario("t3", sc.pos, sc.neg, planted, {"X": truth})]  # the training set itself: 1.0
    monkeypatch.setattr(ms, "compare", lambda motifs, truths, database: (np.array([[1e-9]]), np.zeros((1, 1)),
                                                                         np.zeros((1, 1))))
    sites = pd.DataFrame({"sequence": [], "position": [], "length": [], "motif": []})
    rows, _ = ms.evaluate(sc, [truth], sites, None, codes=(pos, neg))
    assert rows[0]["fpr"] == 1.0 and 0.5 <= rows[0]["fresh"] <= 0.6  # the mean of <= 0.2 and 1.0
    sc.fresh = []
    assert ms.evaluate(sc, [truth], sites, None, codes=(pos, neg))[0][0]["fresh"] is None
