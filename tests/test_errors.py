"""The shared argument checks of seqimp.errors."""

import math

import numpy as np
import pytest

from seqimp.errors import SeqimpError, check_choice, check_file, check_int, check_number, check_random_state


def test_check_int_accepts_integral_values_and_names_the_argument():
    assert check_int(3, "n") == 3 and check_int(np.int64(2), "n") == 2 and check_int(4.0, "n") == 4
    assert check_int(0, "order", minimum=0) == 0
    for bad in (0, -1, 2.5, True, "3", None, math.inf):
        with pytest.raises(SeqimpError, match=r"^n must be a positive integer, got"):
            check_int(bad, "n")
    with pytest.raises(SeqimpError, match=r"order must be an integer in \[0, 3\], got 4"):
        check_int(4, "order", minimum=0, maximum=3)


def test_check_number_refuses_nan_inf_and_out_of_range():
    assert check_number(0.5, "x", low=0, high=1) == 0.5
    for bad in (math.nan, math.inf, -math.inf, "abc", None, True):
        with pytest.raises(SeqimpError, match=r"^C must be a number in \(0, inf\), got"):
            check_number(bad, "C", low=0, low_open=True)
    with pytest.raises(SeqimpError, match=r"fraction must be a number in \[0, 1\), got 1"):
        check_number(1, "fraction", low=0, high=1, high_open=True)
    with pytest.raises(SeqimpError, match=r"x must be a finite number, got nan"):
        check_number(math.nan, "x")


def test_check_choice_lists_the_choices():
    assert check_choice("firm", "measure", ("poim", "firm")) == "firm"
    with pytest.raises(SeqimpError, match=r"measure must be one of 'poim', 'firm', got 'x'"):
        check_choice("x", "measure", ("poim", "firm"))


def test_check_file(tmp_path):
    f = tmp_path / "a.txt"
    f.write_text("x")
    assert check_file(f) == f
    with pytest.raises(SeqimpError, match=r"--poim .*missing.npz: no such file"):
        check_file(tmp_path / "missing.npz", "--poim")
    with pytest.raises(SeqimpError, match=r"is a directory, expected a file"):
        check_file(tmp_path)


def test_check_random_state_default_is_seed_zero_and_reproducible():
    a = check_random_state(None).integers(1 << 30, size=5)
    b = check_random_state(0).integers(1 << 30, size=5)
    np.testing.assert_array_equal(a, b)
    g = np.random.default_rng(3)
    assert check_random_state(g) is g
    assert isinstance(check_random_state(np.random.RandomState(1)), np.random.Generator)
    for bad in (-1, 2**64, "1", 1.5, True):
        with pytest.raises(SeqimpError, match=r"random_state must be"):
            check_random_state(bad)
