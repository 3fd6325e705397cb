"""The options of every run, one small dataclass per group: the model (:class:`ModelOptions`), how
its SVM is solved (:class:`SolverOptions`), the background (:class:`BackgroundOptions`), the
importance (:class:`ImportanceOptions`), the motifs (:class:`MotifOptions`), the outputs
(:class:`OutputOptions`), and the options of ``seqimp scan``, ``seqimp enrich`` and ``seqimp
variants`` (:class:`ScanOptions`, :class:`EnrichOptions`, :class:`VariantOptions`).

Each group is checked when it is made (a wrong value is a :class:`~seqimp.errors.SeqimpError`
naming the field, before any work), with the defaults of the command line::

    from seqimp.options import ImportanceOptions, ModelOptions, OutputOptions
    from seqimp.pipeline import run_poim
    run_poim("results", pos, neg, model=ModelOptions(degree=6), importance=ImportanceOptions(max_order=8),
             output=OutputOptions(fmt="svg"), random_state=0)

Every ``run_*`` of :mod:`seqimp.pipeline` takes the groups that apply to it, ``output=OutputOptions(...)``
for the figure format and the progress bars, and ``random_state=`` as a keyword of its own where
it draws at random. A run uses the fields that apply to it (the regressor takes ``alpha``, the
classifier ``C``; the sampled route ``n_samples`` and ``n_jobs``) and its docstring says which.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from math import comb

from ._utils.parallel import check_n_jobs
from ._utils.renamed import renamed_keywords
from ._utils.sizes import parse_size
from .errors import SeqimpError, check_choice, check_int, check_number

__all__ = ["ModelOptions", "SolverOptions", "BackgroundOptions", "ImportanceOptions", "MotifOptions", "OutputOptions",
           "ScanOptions", "EnrichOptions", "VariantOptions"]

#: The model kinds of ``--model``: chosen by the run, WD, WDS, gapped k-mers.
MODEL_KINDS = ("auto", "wd", "wds", "gkm")

#: The alphabets by name (:data:`seqimp.io.DNA`, :data:`~seqimp.io.RNA`, :data:`~seqimp.io.PROTEIN`).
ALPHABET_NAMES = ("dna", "rna", "protein")

#: Largest number of features ``C(l, k) * 4**k`` of a gapped-k-mer model (the weight vector and
#: the scratch vector of :mod:`seqimp.kernels.gkm` are dense float64: 512 MiB each at this size).
MAX_FEATURES = 1 << 26

#: The solvers of the WD SVM's implicit route (:class:`~seqimp.WDClassifier`'s ``solver``).
SOLVERS = ("auto", "dcd", "fast", "sgd")

#: The thresholds of the fast route's stopping rule: :class:`~seqimp.WDClassifier` parameters.
STOPPING_THRESHOLDS = ("validation_fraction", "validation_tol", "weight_tol", "patience", "optimum_tol")

#: The fast route's options besides its stopping thresholds (refused with solver 'dcd').
_FAST_ONLY = ("average", "shrink_margin", "refit", "extrapolate")

#: The fast route's options that solver 'sgd' has nothing for, and why (the refusal's words).
_SGD_LACKS = {"optimum_tol": "the fast route's estimate from the dual objective; solver 'sgd' has no dual",
              "shrink_margin": "the fast route's active set of dual variables; solver 'sgd' has none",
              "extrapolate": "a line search of the fast route's dual; solver 'sgd' has no dual",
              "average": "the fast route's average of its passes; solver 'sgd' averages its own steps"}

#: Background kinds: uniform letters, or a Markov chain fitted on the negatives or on all sequences.
BACKGROUNDS = ("uniform", "negative", "all")

#: Figure formats of the outputs.
FIGURE_FORMATS = ("png", "svg", "pdf")


def _set(options, name, value) -> None:
    """Set a field of frozen options in ``__post_init__`` (integers as ``int``)."""
    object.__setattr__(options, name, value)


def check_alphabet_name(alphabet):
    """``alphabet`` if it names one of :data:`ALPHABET_NAMES` (any case) or is an alphabet
    (:class:`seqimp.io.Alphabet`), else a SeqimpError."""
    if hasattr(alphabet, "symbols") or str(alphabet).lower() in ALPHABET_NAMES:
        return alphabet
    raise SeqimpError(f"unknown alphabet {alphabet!r}; choose one of {', '.join(ALPHABET_NAMES)}")


def check_gkm_params(word_length, informative) -> tuple[int, int]:
    """``(l, k)`` of a gapped-k-mer model checked: ``1 <= k <= l <= 16`` and at most
    :data:`MAX_FEATURES` features."""
    word_length = check_int(word_length, "word_length", maximum=16)
    informative = check_int(informative, "informative")
    if informative > word_length:
        raise SeqimpError(f"informative must be <= word_length ({word_length}), got {informative}")
    n = comb(word_length, informative) * 4 ** informative
    if n > MAX_FEATURES:
        raise SeqimpError(f"word_length={word_length}, informative={informative} give C(l, k) * 4**k = {n} "
                          f"features, more than {MAX_FEATURES}; choose fewer informative columns")
    return word_length, informative


def check_background_kind(kind) -> str:
    """``kind`` if it is one of :data:`BACKGROUNDS`, else a SeqimpError naming ``background``."""
    if kind not in BACKGROUNDS:
        raise SeqimpError(f"background must be one of {', '.join(BACKGROUNDS)}, got {kind!r}")
    return kind


def check_figure_format(fmt) -> str:
    """``fmt`` if it is one of :data:`FIGURE_FORMATS`, else a SeqimpError."""
    if fmt not in FIGURE_FORMATS:
        raise SeqimpError(f"figure format must be png, svg or pdf, got {fmt!r}")
    return fmt


@dataclass(frozen=True, kw_only=True)
class ModelOptions:
    """How the model is trained (``seqimp train``, ``seqimp poim``, ``seqimp motifs``).

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
            check_alphabet_name(self.alphabet)


@dataclass(frozen=True, kw_only=True)
class SolverOptions:
    """How the WD SVM is solved (implicit route, shifts 0): the solver and when the fast route stops.

    The fields are the :class:`~seqimp.WDClassifier` parameters of the same names, checked when
    the options are made; None leaves the classifier's default, so the defaults live in one
    place (docs/training-at-scale.md, "Exact or fast: the solver and when it stops").

    Attributes
    ----------
    solver : {"auto", "dcd", "fast", "sgd"}, default="auto"
        "dcd": the exact fit; "fast": coordinate descent until the model stops changing;
        "sgd": averaged SGD, an early regularised model; "auto": "dcd" below
        ``seqimp.kernels._estimators.AUTO_FAST_FROM`` training sequences, else "fast".
    validation_fraction : float in (0, 1), optional
        Share of the sequences held out for the stopping rule.
    validation_tol, weight_tol : float >= 0, optional
        The stopping rule's thresholds on the held-out loss and accuracy and on the weights.
    patience : int >= 1, optional
        Settled passes in a row before the fit stops.
    optimum_tol : float >= 0, optional
        "fast" on one machine: also wait until the iterate is within this estimated distance
        of the SVM's optimum, in units of ``||w|| / sqrt(n)`` (``WDClassifier(optimum_tol=)``).
    average : float >= 0 or "none", optional
        "fast": eta of the polynomial-decay average of the pass-end iterates that is the model;
        "none": the last iterate (``WDClassifier(average=None)``).
    shrink_margin : float >= 0, optional
        "fast" on one machine, one thread: rows whose dual variable sits at a bound with a
        margin beyond ``1 +- shrink_margin`` leave the passes, with a pass over all rows every
        few passes and before a stop (``WDClassifier(shrink_margin=)``).
    refit : bool, optional
        "fast" on one machine: False keeps the validation slice out of training for good
        (``WDClassifier(refit=False)``; with a small ``validation_fraction``, the model of
        nearly all sequences, without the passes after the slice joins).
    extrapolate : bool, optional
        "fast" on one machine, one thread: True searches the dual along every pass's move and
        keeps the point where it rises (``WDClassifier(extrapolate=True)``; fewer passes at
        10^5 sequences and more).
    threads : int >= 1, optional
        ``WDClassifier(n_jobs=...)``: the coordinate-descent passes on that many threads sharing
        the weights (the same model up to the last digits); 1: one thread, bit for bit
        reproducible. None: one thread (the same bits on every run, docs/multicore.md).
    """

    solver: str = "auto"
    validation_fraction: float | None = None
    validation_tol: float | None = None
    weight_tol: float | None = None
    patience: int | None = None
    optimum_tol: float | None = None
    average: float | str | None = None
    shrink_margin: float | None = None
    refit: bool | None = None
    extrapolate: bool | None = None
    threads: int | None = None

    def __post_init__(self):
        check_choice(self.solver, "solver", SOLVERS)
        if self.validation_fraction is not None:
            check_number(self.validation_fraction, "validation_fraction", low=0, high=1, low_open=True,
                         high_open=True)
        for name in ("validation_tol", "weight_tol", "optimum_tol", "shrink_margin"):
            if getattr(self, name) is not None:
                check_number(getattr(self, name), name, low=0)
        if self.patience is not None:
            check_int(self.patience, "patience")
        if self.threads is not None:
            check_int(self.threads, "threads")
        if isinstance(self.average, str) and self.average != "none":
            raise SeqimpError(f"average must be a number >= 0 or 'none' (the last iterate), got {self.average!r}")
        if self.average is not None and self.average != "none":
            check_number(self.average, "average", low=0)
        for name in ("refit", "extrapolate"):
            if getattr(self, name) is not None and not isinstance(getattr(self, name), bool):
                raise SeqimpError(f"{name} must be True or False, got {getattr(self, name)!r}")
        given = [name for name in STOPPING_THRESHOLDS + _FAST_ONLY if getattr(self, name) is not None]
        if self.solver == "dcd" and given:
            raise SeqimpError(f"{', '.join(given)}: options of the fast route; solver 'dcd' stops by liblinear's "
                              "rule (tol); use solver 'fast', 'sgd' or 'auto'")
        self._refuse_with_sgd(("optimum_tol", "shrink_margin"))
        self._refuse_with_sgd(("extrapolate", "average"))

    def _set(self, name) -> bool:
        """Whether option ``name`` is set: neither None (the classifier's default) nor False."""
        value = getattr(self, name)
        return value is not None and value is not False

    def _refuse_with_sgd(self, names):
        """SeqimpError for the first of ``names`` set with solver 'sgd' (:data:`_SGD_LACKS`)."""
        for name in names:
            if self.solver == "sgd" and self._set(name):
                raise SeqimpError(f"{name}: {_SGD_LACKS[name]}; use solver 'fast' or 'auto'")

    def params(self) -> dict:
        """The :class:`~seqimp.WDClassifier` keyword arguments these options set."""
        params = {name: value for name in ("solver",) + STOPPING_THRESHOLDS
                  if (value := getattr(self, name)) is not None}
        if self.average is not None:
            params["average"] = None if self.average == "none" else self.average
        for name in ("shrink_margin", "refit", "extrapolate"):
            if getattr(self, name) is not None:
                params[name] = getattr(self, name)
        if self.threads is not None:
            params["n_jobs"] = self.threads
        return params


@dataclass(frozen=True, kw_only=True)
class BackgroundOptions:
    """The background distribution of POIM/FIRM (:func:`seqimp.background._poim_background.make_background`).

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
        whose full POIM tables exceed it stream (:func:`seqimp.importance._poim_job.compute_importance`);
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
        negatives, the model retrained and the motifs looked for again, until a round adds
        none. Then the deeper search tests enriched words (of 5-10 letters, and gapped) one at a
        time, each passing motif's sites erased, until three candidates in a row fail their
        held-out test (docs/motifs.md, "Going deeper"). 1: a single search, without either.
    min_width, max_width : int, default=1, 30
        Widths of the motifs reported (as STREME's ``--minw``/``--maxw``): candidates narrower
        than ``min_width`` are widened by uniform columns on both sides (within the sequences)
        before refinement, and no motif grows past ``max_width`` columns.
    position_origin : int, optional
        The 1-based position shown as ``+1`` (recorded in ``motifs.json``): ``motifs.tsv`` gains
        ``start_label`` and ``motif_sites.tsv`` ``position_label``, counted from it (no 0).
    homer : bool, default=False
        Also write the motifs in HOMER's motif format (``motifs.homer``, :func:`seqimp.motifs.known._formats.write_homer`)
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
    central_width : int, default=100
        The deeper search also counts its words in every record's central ``central_width``
        letters (as MEME-ChIP searches the centres of ChIP-seq peaks, its ``-ccut``), where the
        longest positive record is at least three times as long; 0: whole records only
        (docs/motifs.md, "Going deeper").
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
    central_width: int = 100

    def __post_init__(self):
        check_choice(self.strand, "strand", ("given", "both"))
        _set(self, "background_order", check_int(self.background_order, "background_order", minimum=0, maximum=5))
        _set(self, "central_width", check_int(self.central_width, "central_width", minimum=0))
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
    """What the output folder holds and how it shows positions; every ``run_*`` takes it
    (``seqimp scan``, ``enrich`` and ``variants`` use ``fmt`` only).

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
        over 2 s unless the ``seqimp`` logger's level is above INFO (:mod:`seqimp._utils.progress`).
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


@dataclass(frozen=True)
class ScanOptions:
    """How ``seqimp scan`` scores sites (:func:`seqimp.motifs.scan_sequences`).

    ``site_pvalue``: report windows with p-value <= this (``threshold=`` is its old name, still
    accepted with a DeprecationWarning); ``strand``: ``"both"`` or ``"given"``; ``q_method``:
    ``"bh"`` or ``"storey"``; ``background``: ``"uniform"``, ``"all"`` (the letters of all the
    scanned sequences; ``"sequences"`` is its old name), 4 frequencies or a
    :class:`seqimp.background.SiteBackground` (a Markov background, e.g. from a MEME background
    file); ``pseudocount``: spread by the background; ``min_scores``: motif name -> score (bits)
    reported instead of ``site_pvalue`` (the ``scan_threshold`` of a ``seqimp motifs`` run).
    """

    site_pvalue: float = 1e-4
    strand: str = "both"
    q_method: str = "bh"
    background: object = "uniform"
    pseudocount: float = 0.1
    min_scores: dict | None = None

    def __post_init__(self):
        check_number(self.site_pvalue, "site_pvalue", low=0.0, high=1.0, low_open=True)
        if isinstance(self.background, str) and self.background == "sequences":
            warnings.warn("ScanOptions(background='sequences') is now background='all'; the old value will be "
                          "removed", DeprecationWarning, stacklevel=3)
            object.__setattr__(self, "background", "all")
        check_choice(self.strand, "strand", ("both", "given"))
        check_choice(self.q_method, "q_method", ("bh", "storey"))
        check_number(self.pseudocount, "pseudocount", low=0.0)


ScanOptions.__init__ = renamed_keywords(threshold="site_pvalue")(ScanOptions.__init__)


@dataclass(frozen=True)
class EnrichOptions:
    """How ``seqimp enrich`` tests (:func:`seqimp.motifs.enrich_motifs`).

    ``method``: ``"fisher"`` (sequences with a site) or ``"ranksum"`` (best scores);
    ``site_pvalue``: a sequence has a site when its best window's p-value is at most this;
    ``background``: ``"uniform"``, ``"negative"`` (the negatives' letters; ``"sequences"`` is its
    old name), 4 frequencies or a :class:`seqimp.background.SiteBackground` (a Markov background);
    ``strand``: ``"both"`` or ``"given"``; ``max_qvalue``: what the report calls enriched.
    """

    method: str = "fisher"
    site_pvalue: float = 1e-4
    background: object = "uniform"
    strand: str = "both"
    max_qvalue: float = 0.05

    def __post_init__(self):
        check_choice(self.method, "method", ("fisher", "ranksum"))
        check_number(self.site_pvalue, "site_pvalue", low=0.0, high=1.0, low_open=True)
        if isinstance(self.background, str) and self.background == "sequences":
            warnings.warn("EnrichOptions(background='sequences') is now background='negative'; the old value will "
                          "be removed", DeprecationWarning, stacklevel=3)
            object.__setattr__(self, "background", "negative")
        check_choice(self.strand, "strand", ("both", "given"))
        check_number(self.max_qvalue, "max_qvalue", low=0.0, high=1.0)


@dataclass(frozen=True)
class VariantOptions:
    """How ``seqimp variants`` places and scores variants.

    ``width``: the window width (default: the model's length; needed for a score function or a gkm
    model that does not record one); ``skip_mismatch``: leave out variants whose REF differs from
    the genome (else refused; N and the IUPAC codes in the genome are unknown bases, which no
    k-mer covers); ``skip_outside``: leave out variants in no window of the regions
    (else refused; a bgzip VCF is then read through its index); ``split_multiallelic``: one
    record per ALT (else refused); ``top``: variants shown in the report; ``null_windows``: draw
    the p-values' null from a random sample of this many windows (None: all); ``batch_size``:
    windows per call of a score function; ``mask_lowercase``: the genome's soft-masked (lower-case)
    bases read as unknown (``--mask-lowercase``).

    The seed of the null's sample is :func:`~seqimp.pipeline.run_variants`' ``random_state`` and
    the figure format its ``output=OutputOptions(fmt=...)``; ``random_state`` and ``fmt`` here are
    their old places, still accepted with a FutureWarning.
    """

    width: int | None = None
    skip_mismatch: bool = False
    skip_outside: bool = False
    split_multiallelic: bool = False
    top: int = 8
    null_windows: int | None = None
    random_state: int | None = None
    batch_size: int = 4096
    fmt: str | None = None
    mask_lowercase: bool = False

    def __post_init__(self):
        if self.width is not None:
            check_int(self.width, "width")
        check_int(self.top, "top", minimum=0)
        if self.null_windows is not None:
            check_int(self.null_windows, "null_windows")
        if self.random_state is not None:
            warnings.warn("VariantOptions(random_state=...) is now run_variants(random_state=...); the old field "
                          "will be removed", FutureWarning, stacklevel=3)
            check_int(self.random_state, "random_state", minimum=0)
        check_int(self.batch_size, "batch_size")
        if self.fmt is not None:
            warnings.warn("VariantOptions(fmt=...) is now run_variants(output=OutputOptions(fmt=...)); the old "
                          "field will be removed", FutureWarning, stacklevel=3)
            check_figure_format(self.fmt)
