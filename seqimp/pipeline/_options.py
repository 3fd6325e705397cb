"""The options of the pipeline's runs, grouped by what they set: the model, the background, the
importance, the motifs and the outputs.

Each group is a small frozen dataclass, keyword-only, checked when it is made (a wrong value is a
:class:`~seqimp.errors.SeqimpError` naming the field, before any work), with the defaults of
``seqimp poim`` and ``seqimp motifs``::

    from seqimp.pipeline import ImportanceOptions, ModelOptions, OutputOptions, run_poim
    run_poim("results", pos, neg, model=ModelOptions(degree=6), importance=ImportanceOptions(max_order=8),
             output=OutputOptions(fmt="svg"), random_state=0)

A run uses the fields that apply to it (the regressor takes ``alpha``, the classifier ``C``; the
sampled route ``n_samples`` and ``n_jobs``) and its docstring says which.
"""

from __future__ import annotations

from dataclasses import dataclass

from .._parallel import check_n_jobs
from .._sizes import parse_size
from ..errors import SeqimpError, check_choice, check_int, check_number
from ..training import ModelOptions, SolverOptions

__all__ = ["ModelOptions", "SolverOptions", "BackgroundOptions", "ImportanceOptions", "MotifOptions", "OutputOptions",
           "BACKGROUNDS", "FIGURE_FORMATS", "check_background_kind", "check_figure_format"]

#: Background kinds: uniform letters, or a Markov chain fitted on the negatives or on all sequences.
BACKGROUNDS = ("uniform", "negative", "all")

#: Figure formats of the outputs.
FIGURE_FORMATS = ("png", "svg", "pdf")


def check_background_kind(kind) -> str:
    """``kind`` if it is one of :data:`BACKGROUNDS`, else a SeqimpError naming ``background``."""
    if kind not in BACKGROUNDS:
        raise SeqimpError(f"background must be one of {', '.join(BACKGROUNDS)}, got {kind!r}")
    return kind


def _set(options, name, value) -> None:
    """Set a field of frozen options in ``__post_init__`` (integers as ``int``)."""
    object.__setattr__(options, name, value)


def check_figure_format(fmt) -> str:
    """``fmt`` if it is one of :data:`FIGURE_FORMATS`, else a SeqimpError."""
    if fmt not in FIGURE_FORMATS:
        raise SeqimpError(f"figure format must be png, svg or pdf, got {fmt!r}")
    return fmt


@dataclass(frozen=True, kw_only=True)
class BackgroundOptions:
    """The background distribution of POIM/FIRM (:func:`~seqimp.pipeline._explain.make_background`).

    Attributes
    ----------
    kind : {"uniform", "negative", "all"}, default="negative"
        Uniform i.i.d. letters, or a Markov chain fitted on the negative sequences or on all of
        them (the regressor has no negatives: ``"negative"`` means all sequences there).
        Ignored when ``fasta`` is given.
    order : int, default=0
        Markov order.
    positional : bool, default=False
        Position-specific transition tables.
    fasta : sequences, optional
        Fit the background on these instead (``--background-fasta``).
    """

    kind: str = "negative"
    order: int = 0
    positional: bool = False
    fasta: object = None

    def __post_init__(self):
        check_background_kind(self.kind)
        _set(self, "order", check_int(self.order, "order", minimum=0))


@dataclass(frozen=True, kw_only=True)
class ImportanceOptions:
    """What POIM/FIRM is computed and within which memory.

    Attributes
    ----------
    max_order : int, optional
        Longest oligomer analysed; default the model's degree (3 for the sampled route). May
        exceed the degree.
    max_memory : int or str, optional
        Memory budget, bytes or a size such as ``"4G"`` (None: half the available RAM). Jobs
        whose full POIM tables exceed it stream (:func:`~seqimp.pipeline._explain.compute_importance`);
        jobs that cannot fit even streaming are refused before training, and so is a training
        set whose fit would need more.
    full_tables : bool, default=False
        Also write every order's full POIM and FIRM tables to ``poim_tables.h5`` (HDF5,
        float32, chunked by positions); ``poim.npz`` always holds the summaries.
    n_samples : int, default=1000
        Background samples of the sampled route (:func:`seqimp.poim_sampled`).
    n_jobs : int, optional
        The sampled route's batches on this many worker processes (None: joblib's active
        configuration, or where none is active every available core as threads, see
        :func:`seqimp.poim_sampled`); the results do not depend on it.
    """

    max_order: int | None = None
    max_memory: int | str | None = None
    full_tables: bool = False
    n_samples: int = 1000
    n_jobs: int | None = None

    def __post_init__(self):
        if self.max_order is not None:
            _set(self, "max_order", check_int(self.max_order, "max_order"))
        if self.max_memory is not None:
            parse_size(self.max_memory, "max_memory")
        _set(self, "n_samples", check_int(self.n_samples, "n_samples"))
        check_n_jobs(self.n_jobs)

    def order(self, default: int) -> int:
        """``max_order``, or ``default`` (the model's degree; 3 on the sampled route) when unset."""
        return default if self.max_order is None else self.max_order


@dataclass(frozen=True, kw_only=True)
class MotifOptions:
    """How motifs are found in a POIM, refined on the sequences and matched to known motifs
    (:func:`~seqimp.pipeline.find_motifs`).

    Attributes
    ----------
    strand : {"both", "given"}, default="both"
        Sites on either strand (a motif and its reverse complement are one motif), or on the
        given strand only (RNA, or a motif known to sit on one strand); as STREME's default.
    fpr : float, default=0.01
        Share of the negatives allowed a site (the site threshold).
    max_pvalue : float, default=1e-3
        Largest Fisher p-value of a motif's sites (positives against negatives).
    max_held_out_pvalue : float, default=0.05
        Largest Fisher p-value of its sites held out: each half of the sequences scored with
        the PWM and threshold fitted on the other half.
    database : sequence of Motif, path-like or str, optional
        Known motifs for TOMTOM matches: a MEME, JASPAR or TRANSFAC file (format ``db_format``
        or recognised), a JASPAR release name such as ``"JASPAR2024"``, or a loaded
        :class:`seqimp.motifs.MotifDatabase` (:func:`seqimp.motifs.load_database`).
    db_format : {"meme", "jaspar", "transfac", "homer"}, optional
    top_matches : int, default=5
        Best matches kept per motif.
    max_motifs : int, optional
        Most positional motifs (None: every differential-POIM peak above the noise).
    measure : {"poim", "firm"}, default="poim"
        Importance the motifs are fitted to.
    fit_order : int, default=3
        POIM orders ``1..min(fit_order, max_order)`` are fitted.
    min_score : float, default=0.0
        Drop motifs explaining less than this share of the POIM.
    rounds : int, default=5
        Most rounds of explaining away (:func:`~seqimp.pipeline.run_motifs`, when it trains the
        model): after a round that reported motifs, their sites are masked in the positives and
        negatives, the model retrained and the motifs looked for again; it stops at the first
        round that adds none. 1: a single search.
    min_width, max_width : int, default=1, 30
        Widths of the motifs reported (as STREME's ``--minw``/``--maxw``): candidates narrower
        than ``min_width`` are widened by uniform columns on both sides (within the sequences)
        before refinement, and no motif grows past ``max_width`` columns.
    position_origin : int, optional
        The 1-based position shown as ``+1`` (recorded in ``motifs.json``): ``motifs.tsv`` gains
        ``start_label`` and ``motif_sites.tsv`` ``position_label``, counted from it (no 0).
    homer : bool, default=False
        Also write the motifs in HOMER's motif format (``motifs.homer``, :func:`seqimp.motifs.write_homer`)
        beside ``motifs.meme``, ``motifs.jaspar`` and ``motifs.transfac``.
    scan_pwm : bool, default=True
        Fit every reported motif a PWM for scanning whole sequences (:func:`seqimp.motifs.scanning_motifs`:
        positives against the control over every window of both strands at ``fpr``, against
        the control's Markov background, held out): the motif files hold it, ``motifs.tsv``
        its threshold (``scan_threshold``); False: the motif files hold the refined PWMs and
        no threshold is computed.
    background_order : int, default=2
        Order of the control's Markov background the PWMs for scanning are scored against
        (``background.txt``, MEME's background format; 0..5).
    """

    strand: str = "both"
    fpr: float = 0.01
    max_pvalue: float = 1e-3
    max_held_out_pvalue: float = 0.05
    database: object = None
    db_format: str | None = None
    top_matches: int = 5
    max_motifs: int | None = None
    measure: str = "poim"
    fit_order: int = 3
    min_score: float = 0.0
    rounds: int = 5
    min_width: int = 1
    max_width: int = 30
    position_origin: int | None = None
    homer: bool = False
    scan_pwm: bool = True
    background_order: int = 2

    def __post_init__(self):
        check_choice(self.strand, "strand", ("given", "both"))
        _set(self, "background_order", check_int(self.background_order, "background_order", minimum=0, maximum=5))
        _set(self, "min_width", check_int(self.min_width, "min_width"))
        _set(self, "max_width", check_int(self.max_width, "max_width", minimum=self.min_width))
        if self.position_origin is not None:
            _set(self, "position_origin", check_int(self.position_origin, "position origin", minimum=-(2**62)))
        _set(self, "rounds", check_int(self.rounds, "rounds"))
        if not 0 < self.fpr < 1:
            raise SeqimpError(f"fpr must lie in (0, 1), got {self.fpr}")
        check_number(self.max_pvalue, "max_pvalue", low=0.0, high=1.0)
        check_number(self.max_held_out_pvalue, "max_held_out_pvalue", low=0.0, high=1.0)
        if self.db_format is not None:
            check_choice(self.db_format, "db_format", ("meme", "jaspar", "transfac", "homer"))
        _set(self, "top_matches", check_int(self.top_matches, "top_matches"))
        if self.max_motifs is not None and self.max_motifs < 1:
            raise SeqimpError(f"max_motifs must be >= 1, got {self.max_motifs}")
        check_choice(self.measure, "measure", ("poim", "firm"))
        _set(self, "fit_order", check_int(self.fit_order, "fit_order"))
        check_number(self.min_score, "min_score", low=0.0, high=1.0)


@dataclass(frozen=True, kw_only=True)
class OutputOptions:
    """What the output folder holds and how it shows positions.

    Attributes
    ----------
    fmt : {"png", "svg", "pdf"}, default="png"
        Figure format.
    top : int, default=50
        Rows per order in ``top_oligomers.tsv``.
    title : str, optional
        Title of ``summary.json`` and the report.
    position_labels : sequence of length L, optional
        Position tick labels for the heatmaps.
    position_origin : int, optional
        The 1-based position shown as ``+1`` (positions before it negative, no 0): adds the
        ``position_label`` column to ``top_oligomers.tsv`` and labels the figures' axes.
    windows : GenomicWindows, optional
        The positives as windows of a genome (:func:`seqimp.io.extract_windows`): adds
        ``top_oligomers.bed``, the genome coordinates of the top oligomers' hits.
    dropped : dict, optional
        Input records dropped by reason, written to ``summary.json`` as ``"dropped"``.
    progress : bool or None, default=None
        Progress bars for training and the POIM levels: None shows them for steps that last
        over 2 s unless the ``seqimp`` logger's level is above INFO (:mod:`seqimp._progress`).
    """

    fmt: str = "png"
    top: int = 50
    title: str | None = None
    position_labels: object = None
    position_origin: int | None = None
    windows: object = None
    dropped: dict | None = None
    progress: bool | None = None

    def __post_init__(self):
        check_figure_format(self.fmt)
        _set(self, "top", check_int(self.top, "top"))
        if self.position_origin is not None:
            _set(self, "position_origin", check_int(self.position_origin, "position origin", minimum=-(2**62)))
