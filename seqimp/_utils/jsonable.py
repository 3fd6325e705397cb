"""Values as the JSON data they are written as (stage-free utility): :func:`json_ready`."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

__all__ = ["json_ready"]


def json_ready(value):
    """``value`` (nested dicts, lists, tuples, arrays, NumPy and Python numbers, paths) as the
    JSON data it is written as: lists, Python numbers, strings for paths, and None for NaN and
    infinities. What ``summary.json`` holds is what a report built from it in memory shows."""
    if isinstance(value, dict):
        return {k: json_ready(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_ready(v) for v in value]
    if isinstance(value, np.ndarray):
        return json_ready(value.tolist())
    if isinstance(value, Path):
        return str(value)
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value
