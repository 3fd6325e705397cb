"""Seqlets and the attribution profile of the gkm route, on hand-made attributions."""

import numpy as np
import pytest

from seqimp.errors import SeqimpError
from seqimp.importance import find_seqlets, gkm_attributions
from seqimp.importance._gkmexplain import attribution_profile


def test_find_seqlets_threshold_and_exclusion():
    neg = np.zeros((10, 30))
    neg[np.arange(10), np.arange(10)] = np.arange(10) / 10  # best window sums 0.0 .. 0.9
    pos = np.zeros((2, 30))
    pos[0, 5:8] = 1.0       # a window of 4 holding all three: 3.0
    pos[0, 20] = 0.95       # alone: 0.95 > threshold, taken second
    pos[1, 12] = 0.5        # below the threshold
    table = find_seqlets(pos, neg, width=4, quantile=0.9)
    assert table.attrs["threshold"] == pytest.approx(np.quantile(np.arange(10) / 10, 0.9))
    assert table[["sequence", "start", "end"]].values.tolist() == [[0, 4, 8], [0, 17, 21]]
    assert table["score"].tolist() == pytest.approx([3.0, 0.95])
    # the windows overlapping a taken one are excluded: no second seqlet from the 5..7 block
    assert len(find_seqlets(pos, neg, width=4, quantile=0.9, per_sequence=1)) == 1


def test_attribution_profile_means_per_letter():
    codes = np.array([[0, 1], [0, 2], [3, 2]], dtype=np.uint8)
    attr = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    prof = attribution_profile(attr, codes)
    np.testing.assert_allclose(prof, [[2.0, 0, 0, 5.0], [0, 2.0, 5.0, 0]])


def test_errors():
    with pytest.raises(SeqimpError, match="attributions must be 2-D of one length"):
        find_seqlets(np.zeros((2, 5)), np.zeros((2, 6)))
    with pytest.raises(SeqimpError, match="model must be a fitted GKMClassifier, got str"):
        gkm_attributions("model", ["ACGT"])
    with pytest.raises(SeqimpError, match="codes has 1 sequences, attributions 2"):
        attribution_profile(np.zeros((2, 2)), np.zeros((1, 2), dtype=np.uint8))
