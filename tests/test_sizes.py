"""seqimp._utils.sizes: one unit convention (binary) for parsing, printing and budgets of memory."""

import argparse

import numpy as np
import pytest

from seqimp._utils.sizes import available_memory, format_size, memory_budget, parse_size
from seqimp.cli._options import memory_size
from seqimp.errors import SeqimpError


@pytest.mark.parametrize("text, expected", [
    ("1", 1), ("1000", 1000), ("1K", 1024), ("1kb", 1024), ("1KiB", 1024), ("2M", 2 << 20), ("2 MB", 2 << 20),
    ("4G", 4 << 30), ("4GB", 4 << 30), ("4 GiB", 4 << 30), ("1.5G", int(1.5 * 2 ** 30)), (".5M", 1 << 19),
    ("1T", 1 << 40), ("1e3", 1000),
])
def test_parse_size_reads_binary_units_however_spelled(text, expected):
    assert parse_size(text) == expected
    assert memory_size(text) == expected  # the command line's type reads the same


@pytest.mark.parametrize("value", [1024, 1024.0, np.int64(1024), np.float32(1024)])
def test_parse_size_takes_numbers_of_bytes(value):
    assert parse_size(value) == 1024


@pytest.mark.parametrize("value, message", [
    ("lots", r"max_memory must be a size such as 4G, 500M, 1\.5GiB or a number of bytes, got 'lots'"),
    ("4X", r"got '4X'"), ("-1G", r"got '-1G'"), ("", r"got ''"),
    (0, r"max_memory must be a positive size of at least 1 byte, got 0"),
    ("0.1", r"at least 1 byte, got '0.1'"), (float("inf"), r"got inf"), (float("nan"), r"got nan"),
    (True, r"got True"), (None, r"got None"), ([1], r"got \[1\]"),
])
def test_parse_size_refuses_in_one_line(value, message):
    with pytest.raises(SeqimpError, match=message):
        parse_size(value)


def test_command_line_type_turns_errors_into_argparse_errors():
    with pytest.raises(argparse.ArgumentTypeError, match=r"expected a size such as 4G, 500M, 1\.5GiB or a number of bytes, got 'big'"):
        memory_size("big")


@pytest.mark.parametrize("n, text", [
    (0, "0 B"), (1000, "1000 B"), (1024, "1 KiB"), (10_000, "9.77 KiB"), (4 << 30, "4 GiB"),
    (int(4.29e9), "4 GiB"), (17.5 * 2 ** 20, "17.5 MiB"), (3 << 40, "3 TiB"), (5000 << 40, "5e+03 TiB"),
])
def test_format_size_prints_binary_units(n, text):
    assert format_size(n) == text


def test_a_parsed_size_prints_as_typed():
    for text in ("4G", "512M", "10K"):
        assert format_size(parse_size(text)) == text[:-1] + {"G": " GiB", "M": " MiB", "K": " KiB"}[text[-1]]


def test_budget_is_the_value_or_a_share_of_available_memory(monkeypatch):
    assert memory_budget("2G") == 2 << 30
    monkeypatch.setattr("seqimp._utils.sizes.available_memory", lambda: 8 << 30)
    assert memory_budget(None) == 4 << 30
    assert memory_budget(None, share=1.0) == 8 << 30
    with pytest.raises(SeqimpError, match="memory_budget must be a size"):
        memory_budget("x", "memory_budget")


def test_available_memory_is_positive():
    assert available_memory() > 0
