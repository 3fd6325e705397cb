"""scripts/depth_null.py: the deeper search on random sets under each held-out seed rule, and the
search's own settings restored after it."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))
import depth_null  # noqa: E402


def test_each_rule_runs_on_the_same_sets_and_the_search_is_left_as_it_was():
    """Two small random sets per rule: a count of sets with a motif between 0 and 2 and at least
    one candidate tested per set (the word's bound lifted, every set yields one); afterwards
    ``half_seed``, ``DEPTH_WORD_PVALUE`` and the seqimp log's level are as they were, also when a
    run fails."""
    import logging

    import seqimp.motifs.search._depth as depth

    log = logging.getLogger("seqimp")
    half_seed, bound, level = depth.half_seed, depth.DEPTH_WORD_PVALUE, log.level

    def unchanged():
        return depth.half_seed is half_seed and depth.DEPTH_WORD_PVALUE == bound and log.level == level

    for rule in (1, 3, "not blind"):
        found, motifs, tested = depth_null.run(rule, 2, 60, 40, 100)
        assert 0 <= found <= 2 and motifs >= found and tested >= 2
        assert unchanged()
    try:
        depth_null.run(3, 1, 0, 40, 100)  # no sequences: the search refuses them
    except Exception:  # noqa: BLE001 - whatever the refusal, the settings must come back
        pass
    assert unchanged()
