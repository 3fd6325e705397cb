"""The :class:`Motif`: a position weight matrix placed in the sequence."""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np

from ..errors import SeqimpError

__all__ = ["Motif", "information_content", "DNA_LETTERS", "DIRECTIONS"]

DNA_LETTERS = "ACGT"

#: Motif directions: raises the score (enriched) or lowers it (depleted).
DIRECTIONS = ("enriched", "depleted")


def information_content(pwm, background=None) -> np.ndarray:
    """Information content (bits) of every column of a PWM.

    Parameters
    ----------
    pwm : ndarray of shape (m, 4)
        Rows are probability vectors over A, C, G, T.
    background : ndarray of shape (4,), optional
        Background letter probabilities; uniform by default.

    Returns
    -------
    ndarray of shape (m,)
        Relative entropy ``sum_a p(a) log2(p(a) / b(a))`` of each column (0..2 bits for a
        uniform background; 0..log2(A) for a PWM of A letters, e.g. protein (m, 20)).
    """
    p = np.asarray(pwm, dtype=np.float64)
    b = np.full(p.shape[1], 1.0 / p.shape[1]) if background is None else np.asarray(background, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(p > 0, p * np.log2(p / b), 0.0)
    return terms.sum(axis=1)


@dataclass
class Motif:
    """A DNA motif: a position weight matrix with a place in the sequences.

    Parameters
    ----------
    name : str
        Identifier (no white space in motif files; spaces are replaced by ``_``).
    pwm : array-like of shape (m, 4)
        Letter probabilities of the m motif columns, A, C, G, T; every row is
        non-negative and sums to 1 (rows are normalised when they sum to within 1e-3 of 1).
    start : int or None, default=None
        1-based start position in the sequences (``None`` for database motifs).
    spread : float, default=0.0
        Standard deviation of the start position, in positions.
    score : float, default=nan
        How strongly the motif explains the importance it was fitted to (see
        :func:`seqimp.motifs.discover_motifs`); for database motifs usually NaN.
    sites : int, default=0
        Number of sites the PWM was counted from (written to motif files; 0 if unknown).
    description : str, default=""
        Free text (e.g. a database's transcription-factor name).
    direction : {"enriched", "depleted"}, default="enriched"
        Whether the motif raises the model's score (enriched in the positives) or lowers it
        (negative importance: depleted).
    position_free : bool, default=False
        The motif's importance is spread over the sequence (no fixed place): ``start`` and
        ``spread`` then describe where its sites lie, not one position.
    evalue : float, default=nan
        E-value of the motif's enrichment in the positives (written to MEME files; NaN if
        unknown).
    log10_evalue : float, default=nan
        Its log10 where known: finite where ``evalue`` underflows to 0 (MEME files then write
        ``E= 1.2e-345``, :func:`seqimp.motifs._stats.format_pvalue`).

    Attributes
    ----------
    length : int
        m.
    consensus : str
        The most probable letter of every column.
    """

    name: str
    pwm: np.ndarray
    start: int | None = None
    spread: float = 0.0
    score: float = float("nan")
    sites: int = 0
    description: str = field(default="")
    direction: str = "enriched"
    position_free: bool = False
    evalue: float = float("nan")
    log10_evalue: float = float("nan")

    def __post_init__(self):
        if self.direction not in DIRECTIONS:
            raise SeqimpError(f"motif {self.name}: direction must be one of {', '.join(DIRECTIONS)}, "
                              f"got {self.direction!r}")
        self.evalue = float(self.evalue)
        self.log10_evalue = float(self.log10_evalue)
        self.position_free = bool(self.position_free)
        self.name = "_".join(str(self.name).split()) or "motif"
        pwm = np.array(self.pwm, dtype=np.float64)
        if pwm.ndim != 2 or pwm.shape[1] != 4:
            raise SeqimpError(f"motif {self.name}: PWM must have shape (m, 4) for A, C, G, T; got {pwm.shape}")
        if pwm.shape[0] == 0:
            raise SeqimpError(f"motif {self.name}: PWM has no columns")
        if not np.all(np.isfinite(pwm)) or (pwm < 0).any():
            raise SeqimpError(f"motif {self.name}: PWM entries must be finite and non-negative")
        sums = pwm.sum(axis=1)
        bad = np.flatnonzero(np.abs(sums - 1.0) > 1e-3)
        if bad.size:
            raise SeqimpError(f"motif {self.name}: PWM column {bad[0] + 1} sums to {sums[bad[0]]:.6g}, not 1")
        self.pwm = pwm / sums[:, None]
        if self.start is not None:
            self.start = int(self.start)
            if self.start < 1:
                raise SeqimpError(f"motif {self.name}: start must be a 1-based position >= 1, got {self.start}")
        self.spread = float(self.spread)
        self.score = float(self.score)
        self.sites = int(self.sites)

    def _repr_html_(self) -> str:
        """Jupyter's view: name, consensus, place and an inline logo."""
        from .._utils.repr import html_card, logo_svg

        lines = [("consensus", self.consensus), ("length", self.length),
                 ("start (1-based)", "position-free" if self.position_free else self.start),
                 ("score", self.score), ("sites", self.sites), ("direction", self.direction)]
        if self.description:
            lines.append(("description", self.description))
        return html_card(f"Motif {self.name}", lines, images=[("logo (bits)", logo_svg(self.pwm))])

    @property
    def length(self) -> int:
        return self.pwm.shape[0]

    @property
    def consensus(self) -> str:
        return "".join(DNA_LETTERS[i] for i in self.pwm.argmax(axis=1))

    def information_content(self) -> np.ndarray:
        """Information content (bits) of every column, shape (m,)."""
        return information_content(self.pwm)

    @classmethod
    def from_counts(cls, name, counts, **kwargs) -> "Motif":
        """A motif from a count (or frequency) matrix of shape (m, 4)."""
        counts = np.asarray(counts, dtype=np.float64)
        if counts.ndim != 2 or counts.shape[1] != 4:
            raise SeqimpError(f"motif {name}: count matrix must have shape (m, 4), got {counts.shape}")
        if (counts < 0).any() or not np.all(np.isfinite(counts)):
            raise SeqimpError(f"motif {name}: counts must be finite and non-negative")
        totals = counts.sum(axis=1)
        if (totals <= 0).any():
            raise SeqimpError(f"motif {name}: column {int(np.argmin(totals)) + 1} has no counts")
        kwargs.setdefault("sites", int(round(totals.max())) if np.allclose(counts, np.round(counts)) else 0)
        return cls(name, counts / totals[:, None], **kwargs)

    @classmethod
    def from_consensus(cls, name, consensus, *, purity=1.0, **kwargs) -> "Motif":
        """A motif whose columns put ``purity`` on the consensus letter and share the rest."""
        seq = str(consensus).upper()
        if not seq or any(c not in DNA_LETTERS for c in seq):
            raise SeqimpError(f"motif {name}: consensus {consensus!r} must be a non-empty string over ACGT")
        pwm = np.full((len(seq), 4), (1.0 - purity) / 3.0)
        pwm[np.arange(len(seq)), [DNA_LETTERS.index(c) for c in seq]] = purity
        return cls(name, pwm, **kwargs)

    def reverse_complement(self) -> "Motif":
        """The same motif on the other strand: columns reversed, letters complemented (A<->T,
        C<->G); start, spread, score and the other attributes are kept."""
        return replace(self, pwm=self.pwm[::-1, ::-1].copy())

    def counts(self) -> np.ndarray:
        """Counts for motif files: ``pwm * sites`` (``sites`` or 100 when unknown), shape (m, 4)."""
        return self.pwm * (self.sites if self.sites > 0 else 100)

    def __repr__(self) -> str:
        where = f", start={self.start}, spread={self.spread:.3g}" if self.start is not None else ""
        return f"Motif({self.name!r}, consensus={self.consensus!r}, length={self.length}{where}, score={self.score:.4g})"
