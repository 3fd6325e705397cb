"""The background stage: Markov chains of any order (homogeneous or positional) and the
exact conditional sampling of sequences around a fixed positional oligomer.
"""

from ._markov import MarkovBackground

__all__ = ["MarkovBackground"]
