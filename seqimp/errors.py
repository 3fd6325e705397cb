"""Exceptions shared by all of seqimp."""

__all__ = ["SeqimpError", "check_int"]


class SeqimpError(ValueError):
    """A problem with the user's input or arguments.

    Subclasses :class:`ValueError` so that ordinary ``except ValueError``
    code keeps working. The command line prints such errors as a single
    ``seqimp: error: ...`` line and exits with status 2.
    """


def check_int(value, name: str, minimum: int = 1) -> int:
    """``value`` as an ``int >= minimum``, or a SeqimpError naming ``name``.

    Integral floats and numpy integers are accepted; booleans and strings are not.
    """
    try:
        ok = not isinstance(value, bool) and int(value) == value and int(value) >= minimum
    except (TypeError, ValueError, OverflowError):
        ok = False
    if not ok:
        what = "a positive integer" if minimum == 1 else f"an integer >= {minimum}"
        raise SeqimpError(f"{name} must be {what}, got {value!r}")
    return int(value)
