"""scripts/bench_motif_floor.py: the step timers of a child run and the reading of its answer."""

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))
import bench_motif_floor as floor  # noqa: E402


def test_a_step_is_timed_where_it_was_imported_before_and_after_the_wrap(tmp_path):
    """``_WRAP`` replaces a step in its module and in every seqimp module that imports it, before
    the wrap or after it (``_refine`` here); the step's answers are unchanged. A name bound
    outside seqimp before the wrap (``before``) keeps the original: not counted."""
    code = "\n".join([
        "import json, sys, time",
        "from seqimp.motifs._sites import has_site as before",
        "phases = {}",
        "PHASES = [('seqimp.motifs._sites', 'has_site', 'sites')]",
        floor._WRAP,
        "import numpy as np",
        "from seqimp.motifs import _refine",  # binds has_site at its import, after the wrap
        "import seqimp.motifs._sites as sites",
        "out = [bool(before(np.array([2.0]), 1.0, False)[0]), bool(sites.has_site(np.array([0.5]), 1.0, False)[0])]",
        "wrapped = _refine.has_site is sites.has_site",
        "print(json.dumps({'phases': sorted(phases), 'out': out, 'refine_wrapped': wrapped}))",
    ])
    timing, answer = floor._child(code, [], tmp_path / "child.log")
    assert timing.code == 0, (tmp_path / "child.log").read_text()
    # ``before`` was bound before the wrap: it is the original, not counted; the module's is
    assert answer == {"phases": ["has_site"], "out": [True, False], "refine_wrapped": True}


def test_the_answer_is_the_last_json_line_of_the_child(tmp_path):
    timing, answer = floor._child("print('log line'); print('{\"a\": 1}')", [], tmp_path / "c.log")
    assert timing.code == 0 and timing.wall > 0 and answer == {"a": 1}
    timing, answer = floor._child("import sys; sys.exit(3)", [], tmp_path / "d.log")
    assert timing.code == 3 and answer is None
    assert json.loads(json.dumps(floor.PHASES))  # the step list travels into the child as a literal
