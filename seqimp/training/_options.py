"""How a model is trained: :class:`ModelOptions`, the option group of the runs that train one
(``seqimp train``, ``seqimp poim``, ``seqimp motifs``), checked when made."""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import SeqimpError, check_choice, check_int, check_number
from ..io import get_alphabet
from ..kernels import check_gkm_params

__all__ = ["ModelOptions", "MODEL_KINDS"]

#: The model kinds of ``--model``: chosen by the run, WD, WDS, gapped k-mers.
MODEL_KINDS = ("auto", "wd", "wds", "gkm")


def _set(options, name, value) -> None:
    """Set a field of frozen options in ``__post_init__`` (integers as ``int``)."""
    object.__setattr__(options, name, value)


@dataclass(frozen=True, kw_only=True)
class ModelOptions:
    """How the WD/WDS model is trained.

    Attributes
    ----------
    degree : int, default=8
        Longest k-mer of the kernel.
    shifts : int, default=0
        Largest shift of the WDS kernel (0: WD).
    C : float, default=1.0
        Penalty of the classifier (:class:`seqimp.WDClassifier`).
    alpha : float, default=1.0
        Ridge penalty of the regressor (:class:`seqimp.WDRegressor`, the ``--table`` route).
    test_fraction : float in [0, 1), default=0.2
        Held-out share for the metrics; 0 trains on everything and reports none.
    alphabet : {"dna", "rna", "protein"}, optional
        Default: the alphabet of a SequenceSet given, else DNA.
    kind : {"auto", "wd", "wds", "gkm"}, default="auto"
        The model whose motifs a motif run finds: the positional WD/WDS model, the position-free
        gapped-k-mer model, or chosen by the run (:func:`~seqimp.training.choose_model`).
    word_length, informative : int, default=10, 6
        l and k of the gapped-k-mer model (:class:`seqimp.kernels.GKMClassifier`).
    """

    degree: int = 8
    shifts: int = 0
    C: float = 1.0
    alpha: float = 1.0
    test_fraction: float = 0.2
    alphabet: str | None = None
    kind: str = "auto"
    word_length: int = 10
    informative: int = 6

    def __post_init__(self):
        _set(self, "degree", check_int(self.degree, "degree"))
        check_choice(self.kind, "kind", MODEL_KINDS)
        if self.kind == "wd" and self.shifts:
            raise SeqimpError(f"model kind 'wd' is the WD kernel without shifts, got shifts {self.shifts}; use 'wds'")
        if self.kind == "wds" and not self.shifts:
            raise SeqimpError("model kind 'wds' needs shifts > 0 (--shifts S); 'wd' is the kernel without shifts")
        check_gkm_params(self.word_length, self.informative)
        _set(self, "shifts", check_int(self.shifts, "shifts", minimum=0))
        check_number(self.C, "C", low=0, low_open=True)
        check_number(self.alpha, "alpha", low=0, low_open=True)
        check_number(self.test_fraction, "test_fraction", low=0.0, high=1.0, high_open=True)
        if self.alphabet is not None:
            get_alphabet(self.alphabet)
