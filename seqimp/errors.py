"""Exceptions shared by all of seqimp."""

__all__ = ["SeqimpError"]


class SeqimpError(ValueError):
    """A problem with the user's input or arguments.

    Subclasses :class:`ValueError` so that ordinary ``except ValueError``
    code keeps working. The command line prints such errors as a single
    ``seqimp: error: ...`` line and exits with status 2.
    """
