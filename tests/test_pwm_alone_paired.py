"""scripts/pwm_alone_paired.py: paired differences, the columns over a planted matrix, site hits."""

import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))
import motif_scenarios as ms  # noqa: E402
import pwm_alone_paired as pap  # noqa: E402


def test_paired_difference_is_the_mean_difference_and_its_standard_error():
    a = np.array([1, 1, 0, 1, 0, 1, 1, 0], dtype=float)
    b = np.array([1, 0, 0, 1, 1, 0, 0, 0], dtype=float)
    ma, mb, d, se = pap.paired_difference(a, b)
    diffs = [0, 1, 0, 0, -1, 1, 1, 0]
    mean = sum(diffs) / 8
    sd = (sum((x - mean) ** 2 for x in diffs) / 7) ** 0.5
    assert (ma, mb) == (5 / 8, 3 / 8)
    assert d == pytest.approx(2 / 8, abs=1e-15)
    assert se == pytest.approx(sd / 8 ** 0.5, rel=1e-12)
    # the same items both ways: no spread, no error
    assert pap.paired_difference(a, a)[2:] == (0.0, 0.0)
    with pytest.raises(ValueError, match="same length"):
        pap.paired_difference(a, b[:-1])


def _random_pwm(rng, m):
    return rng.dirichlet(np.full(4, 0.3), size=m)


def test_aligned_columns_finds_a_part_of_the_matrix_on_the_other_strand():
    rng = np.random.default_rng(3)
    truth = _random_pwm(rng, 9)
    letters = np.array([0.2, 0.3, 0.3, 0.2])
    extra = np.array([[0.25, 0.25, 0.25, 0.25]])
    # columns 2..8 of the truth, reverse complemented, one uninformative column before them
    part = np.vstack([extra, truth[2:][::-1, ::-1]])
    out = pap.aligned_columns(part, truth, letters)
    assert out.shape == truth.shape
    np.testing.assert_array_equal(out[2:], truth[2:])
    np.testing.assert_array_equal(out[:2], np.tile(letters, (2, 1)))
    # longer than the truth, same strand: the covering columns
    longer = np.vstack([np.full((3, 4), 0.25), truth, extra])
    np.testing.assert_array_equal(pap.aligned_columns(longer, truth, letters), truth)


def test_flanked_and_site_hits():
    cols = np.full((4, 4), 0.25)
    left, right = np.zeros((2, 4)), np.ones((1, 4))
    out = pap.flanked(cols, left, right)
    assert out.shape == (7, 4) and out[:2].sum() == 0 and out[-1].sum() == 4
    planted = pd.DataFrame({"sequence": [0, 0, 1, 2], "start": [5, 30, 10, 1], "end": [12, 37, 17, 8]})
    sites = pd.DataFrame({"sequence": [0, 1, 2], "position": [12, 1, 20], "length": [6, 9, 4]})
    # seq 0: [12, 17] overlaps [5, 12] only; seq 1: [1, 9] misses [10, 17]; seq 2: [20, 23] misses
    np.testing.assert_array_equal(ms.site_hits(planted, sites), [1, 0, 0, 0])
    assert ms.recall(planted, sites) == 0.25
    assert np.isnan(ms.recall(planted.iloc[:0], sites))


def test_across_seeds_means_the_per_seed_differences_and_counts_the_seeds_at_least_as_good():
    ours = [0.20, 0.30, 0.25, 0.10]
    theirs = [0.25, 0.20, 0.25, 0.30]
    mo, mt, d, se, at_least = pap.across_seeds(ours, theirs)
    diffs = [-0.05, 0.10, 0.0, -0.20]
    mean = sum(diffs) / 4
    sd = (sum((x - mean) ** 2 for x in diffs) / 3) ** 0.5
    assert (mo, mt) == (pytest.approx(0.2125, abs=1e-15), pytest.approx(0.25, abs=1e-15))
    assert d == pytest.approx(mean, abs=1e-15)
    assert se == pytest.approx(sd / 2, rel=1e-12)
    assert at_least == 2  # the tie counts
    one = pap.across_seeds([0.3], [0.2])
    assert one[2] == pytest.approx(0.1) and np.isnan(one[3]) and one[4] == 1
    with pytest.raises(ValueError, match="same length"):
        pap.across_seeds(ours, theirs[:-1])
