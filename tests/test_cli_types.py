"""The argparse types of seqimp.cli._options: thin wrappers of seqimp.errors' checks."""

import argparse

import pytest

from seqimp.cli._options import fraction, nonneg_int, positive_float, positive_int


@pytest.mark.parametrize("kind, text, value", [
    (positive_int, "3", 3), (nonneg_int, "0", 0), (fraction, "0", 0.0), (fraction, "0.25", 0.25),
    (positive_float, "1e-3", 1e-3),
])
def test_accepted(kind, text, value):
    assert kind(text) == value and type(kind(text)) is type(value)


@pytest.mark.parametrize("kind, text, message", [
    (positive_int, "0", r"^must be a positive integer, got 0$"),
    (positive_int, "1.5", r"^must be a positive integer, got '1.5'$"),
    (nonneg_int, "-1", r"^must be an integer >= 0, got -1$"),
    (nonneg_int, "x", r"^must be an integer >= 0, got 'x'$"),
    (fraction, "1", r"^must be a number in \[0, 1\), got 1.0$"),
    (fraction, "nan", r"^must be a number in \[0, 1\), got nan$"),
    (positive_float, "0", r"^must be a number in \(0, inf\), got 0.0$"),
    (positive_float, "inf", r"^must be a number in \(0, inf\), got inf$"),
])
def test_refused_as_argparse_errors(kind, text, message):
    with pytest.raises(argparse.ArgumentTypeError, match=message):
        kind(text)


def test_argparse_names_the_option(capsys):
    parser = argparse.ArgumentParser(prog="seqimp")
    parser.add_argument("--degree", type=positive_int)
    with pytest.raises(SystemExit):
        parser.parse_args(["--degree", "0"])
    assert "argument --degree: must be a positive integer, got 0" in capsys.readouterr().err
