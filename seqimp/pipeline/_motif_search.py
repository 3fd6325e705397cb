"""The motif search of every run: :class:`MotifRun` (what a search found), :func:`refined_run`
(the ending both seeders share: refinement and sites on the sequences -> the enriched motifs ->
matches), :func:`poim_motifs` (seeds from a POIM's candidates) and :func:`add_motifs` (the
motifs of a ``seqimp poim`` run, written into its folder). The gkm model's seeds are
:mod:`._gkm_motifs`'; ``seqimp motifs`` as a whole is :func:`~seqimp.pipeline.run_motifs`.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field, replace

from ..errors import SeqimpError
from ..io import LabelledSequences
from ..training import recorded_seed
from ._motif_files import write_motif_run
from ._options import MotifOptions

__all__ = ["MotifRun", "poim_motifs", "refined_run", "motif_matches", "add_motifs", "no_motifs_reason",
           "with_database_loaded", "empty_stats", "empty_sites"]

logger = logging.getLogger(__name__)

#: the columns of the PWMs for scanning that motifs.tsv appends (:func:`seqimp.motifs.scanning_motifs`)
TABLE_SCAN_COLUMNS = ["scan_threshold", "scan_fraction_positive", "scan_fraction_negative",
                      "scan_held_out_fraction_positive", "scan_tuned", "scan_length", "scan_pwm"]


@dataclass
class MotifRun:
    """What :func:`run_motifs` produced.

    Attributes
    ----------
    motifs : list of Motif
        Strongest first; PWMs from the sites in the positives when sequences were given.
    matches : Table or None
        TOMTOM matches (``matches.tsv``); None without a database.
    candidates : Table
        Differential-POIM peaks (``motif_candidates.tsv``).
    files : list of Path
        Files written.
    result : POIMResult
        The POIM the motifs were found in (given, loaded or computed).
    stats : DataFrame or None
        Per motif site statistics (:class:`seqimp.motifs.MotifSites`); None without sequences.
    sites : DataFrame or None
        The site table (``motif_sites.tsv``); None without sequences.
    parameters : dict
        Seed and options (``motifs.json``).
    coords : DataFrame or None
        The genome coordinates of the positives when they are genomic windows
        (:class:`seqimp.io.GenomicWindows`): ``motif_sites.bed`` is then in genome coordinates.
    scanning : list of Motif
        One per motif, same names: the PWM for scanning whole sequences that the motif files
        hold (:func:`seqimp.motifs.scanning_motifs`); empty where none was fitted (the motif
        files then hold ``motifs``).
    background : SiteBackground or None
        The control's Markov background the PWMs for scanning are scored against
        (``background.txt``).
    result_file : Path or None
        A file holding ``result`` as ``result.save`` writes it, byte for byte (the POIM parked
        in the output folder while later rounds ran): moved into place as ``motifs_poim.npz``
        instead of written again.
    """

    motifs: list
    matches: object
    candidates: object
    files: list = field(default_factory=list)
    result: object = None
    stats: object = None
    sites: object = None
    parameters: dict = field(default_factory=dict)
    coords: object = None
    scanning: list = field(default_factory=list)
    background: object = None
    result_file: object = None

    def __repr__(self) -> str:
        from ..report import motif_run_repr

        return motif_run_repr(self)

    def _repr_html_(self) -> str:
        """Jupyter's view: the motifs' table and logos, the database matches (:mod:`seqimp.report`)."""
        from ..report import motif_run_html

        return motif_run_html(self)

    def table(self):
        """``motifs.tsv``: one row per motif, in the order found (the first round's strongest
        first, then those found after explaining them away): ``name, consensus`` (the written
        PWM's most probable letters), ``start`` (1-based, where the written PWM aligns on the
        given strand; for sites on the other strand its reverse complement aligns there),
        ``length, direction, position_free, spread``, ``score`` (the confidence that the motif
        is real: -log10 of its held-out p-value, the sites of a PWM fitted on one half of the
        sequences counted in the other; noise scores about 0-1, a motif that passes the
        default held-out level 0.05 at least 1.3; NaN without sequences), ``sites`` (positives
        with a site) and, with sequences, ``fraction_positive, fraction_negative, p_value,
        plus_strand`` (share of the sites on the given strand; ``palindromic`` for a motif
        that is its own reverse complement), ``held_out_p_value`` (p-values printed from their
        log10, never 0), ``log10_p_value, log10_held_out_p_value, composition`` (True: the
        positives' composition explains the motif, see :func:`seqimp.motifs.select_motifs`)
        and ``round`` (1: found in the first search, 2...: after the motifs of earlier rounds
        were explained away); then ``poim_share`` (the motif's share of the POIM explained,
        0..1, what the motifs were ranked by in discovery)."""
        import numpy as np

        from ..motifs import motif_table
        from ..motifs import format_pvalue

        table = motif_table(self.motifs).rename(columns={"score": "poim_share"})
        score = np.full(len(table), np.nan)
        if self.stats is not None:
            cols = ["fraction_positive", "fraction_negative", "p_value", "plus_strand", "held_out_p_value",
                    "log10_p_value", "log10_held_out_p_value", "composition", "round"]
            cols += [c for c in TABLE_SCAN_COLUMNS if c in self.stats]
            stats = self.stats.copy()
            for col in cols:
                if col not in stats:
                    stats[col] = 1 if col == "round" else (False if col == "composition" else np.nan)
            stats["plus_strand"] = [("palindromic" if pal else share) for share, pal in
                                    zip(stats["plus_strand"], stats.get("palindromic", [False] * len(stats)))]
            for col in ("p_value", "held_out_p_value"):
                logs = stats[f"log10_{col}"].where(stats[f"log10_{col}"].notna(),
                                                   np.log10(stats[col].astype(float).clip(lower=1e-300)))
                stats[col] = [format_pvalue(v, digits=3) for v in logs]
            if len(table):
                table = table.merge(stats[["name"] + cols], on="name", how="left")
            else:  # no motif: the header only
                table = table.reindex(columns=list(table.columns) + cols)
            score = np.maximum(-table["log10_held_out_p_value"].to_numpy(dtype=float), 0.0)
        table.insert(table.columns.get_loc("spread") + 1, "score", score)
        share = table.pop("poim_share")
        scan = [table.pop(c) for c in TABLE_SCAN_COLUMNS if c in table]
        table["poim_share"] = share
        for column in scan:  # appended after the columns of earlier versions
            table[column.name] = column
        return table

    def lines(self) -> list:
        """One line per motif for the terminal, in the order found: consensus, place, direction,
        score and, with sequences, sites; "no motif found" when none is reported."""
        lines = []
        for row in self.table().to_dict("records"):
            where = (f"position-free (sites around {row['start']}, sd {row['spread']:.1f})" if row["position_free"]
                     else f"start {row['start']}")
            text = f"{row['name']}\t{row['consensus']}\t{where}\tlength {row['length']}\t{row['direction']}"
            if "fraction_positive" in row:
                strand = row["plus_strand"]
                strand = strand if isinstance(strand, str) else f"{100 * strand:.0f}% on the given strand"
                text += (f"\tscore {row['score']:.1f}\tsites {row['sites']} ({100 * row['fraction_positive']:.1f}% "
                         f"of positives, {100 * row['fraction_negative']:.1f}% of negatives, p = {row['p_value']}, "
                         f"held out p = {row['held_out_p_value']}, {strand})")
                if row["composition"]:
                    text += "\tcomposition, not a motif (as frequent in the positives' dinucleotide shuffles)"
            else:
                text += f"\tPOIM share {row['poim_share']:.3f}"
            lines.append(text)
        if not lines:
            lines.append("no motif found: no candidate's sites are enriched in the positives and held out "
                         "(the best candidate's figures are in the log)" if self.stats is not None else
                         "no motif found")
        return lines


def refined_run(seeds, sequences, options, *, candidates, result, parameters, round=1, accepted=(), match=True,
                random_state=None, **refine) -> MotifRun:
    """The ending every motif search shares, from its seeds on: refinement and sites on the
    sequences (:func:`seqimp.motifs.refine_motifs` with ``refine``'s keywords), the motifs reported
    (:func:`seqimp.motifs.select_motifs`: motifs whose sites are not enriched are dropped -- where
    none is, none is reported --, a refined motif that copies a stronger one or one of
    ``accepted`` is merged into it, composition is flagged, the rest numbered on from
    ``accepted``), and with ``match`` TOMTOM matches against ``options.database``.

    Returns
    -------
    MotifRun
        Without ``files``; ``parameters`` as given.
    """
    from ..background import SiteBackground
    from ..motifs import refine_motifs, scanning_motifs, select_motifs

    refined = refine_motifs(seeds, sequences.positive, sequences.negative, strand=options.strand, fpr=options.fpr,
                            ids=sequences.ids, random_state=random_state, **refine)
    selected = select_motifs(refined, max_pvalue=options.max_pvalue, max_held_out_pvalue=options.max_held_out_pvalue,
                             strand=options.strand, first_number=len(accepted) + 1, accepted=accepted)
    if options.scan_pwm:
        selected = scanning_motifs(selected, sequences.positive, sequences.negative, fpr=options.fpr,
                                   order=options.background_order, random_state=random_state)
    stats = selected.stats
    stats["round"] = round
    run = MotifRun(selected.motifs, None, candidates, result=result, stats=stats, sites=selected.sites,
                   coords=sequences.coords, parameters=parameters, scanning=list(selected.scanning or []))
    if options.scan_pwm:
        run.background = SiteBackground.fit(sequences.negative, options.background_order)
        parameters.update(scan_pwm=True, background_order=options.background_order)
    if match:
        run.matches = motif_matches(run, options)
    return run


def poim_motifs(result, sequences=None, *, options=MotifOptions(), round=1, accepted=(), match=True,
                random_state=None) -> MotifRun:
    """The motif search on a POIM already computed: no training, nothing written.

    :func:`seqimp.motifs.discover_motifs` on ``result``; with sequences, :func:`refined_run` on
    its candidates; TOMTOM matches against ``options.database``
    (:func:`seqimp.motifs.database_matches`) for every motif that is not composition.

    Parameters
    ----------
    result : POIMResult or StreamedPOIM
    sequences : LabelledSequences, optional
        From :func:`seqimp.io.encode_labelled`: positives and negatives (both or neither) of the
        POIM's length, encoded once by the caller. Where the positives are genomic windows
        (``sequences.coords``) ``motif_sites.bed`` is in genome coordinates.
    options : MotifOptions
    round : int, default=1
        The round of explaining away (:func:`~seqimp.pipeline.run_motifs`): candidates are
        named ``candidate1, ...`` in round 1, ``round2_candidate1, ...`` later; the motifs
        kept are numbered on from ``accepted``.
    accepted : sequence of Motif
        Motifs reported in earlier rounds: a copy of one is merged into it.
    match : bool, default=True
        Match the motifs to ``options.database`` here (the caller matches them all at the end
        of several rounds).
    random_state : int or None
        The seed of the composition controls (dinucleotide shuffles of the positives).

    Returns
    -------
    MotifRun
        Without ``files``; ``parameters`` hold the motif options (the caller adds the seed).
    """
    from ..motifs import database_info, discover_motifs

    options = with_database_loaded(options)
    strand = options.strand
    sequences = LabelledSequences(None, None) if sequences is None else sequences
    pos, neg = sequences.positive, sequences.negative
    if (pos is None) != (neg is None):
        raise SeqimpError("give both positive and negative sequences (or neither, with a POIM)")
    if pos is not None and pos.shape[1] != result.length:
        raise SeqimpError(f"positive sequences have length {pos.shape[1]}, but the POIM describes sequences "
                          f"of length {result.length}")
    result = _with_full_tables(result)
    fit_order = min(options.fit_order, result.max_order)
    parameters = {"min_width": options.min_width, "max_width": options.max_width,
                  "position_origin": options.position_origin, "strand": strand, "fpr": options.fpr,
                  "max_pvalue": options.max_pvalue,
                  "max_held_out_pvalue": options.max_held_out_pvalue, "measure": options.measure,
                  "fit_order": fit_order, "max_motifs": options.max_motifs, "min_score": options.min_score,
                  "rounds": options.rounds, "database": database_info(options.database)}
    logger.info(f"finding motifs in a POIM of length {result.length}, orders 1..{result.max_order}"
                + (f" (round {round}, the sites of {len(accepted)} motif(s) explained away)" if round > 1 else ""))
    reason = no_motifs_reason(result)
    if reason is not None and pos is not None:  # nothing to refine: "no motif" is an answer
        logger.info(f"no motif found: {reason}")
        return MotifRun([], None, _no_candidates(), result=result, stats=empty_stats(),
                        sites=empty_sites(), parameters=dict(parameters, noise_level=float("nan")))
    prefix = "candidate" if round == 1 else f"round{round}_candidate"
    found = discover_motifs(result, max_motifs=options.max_motifs, measure=options.measure,
                            orders=range(1, fit_order + 1), min_score=options.min_score,
                            strand="both" if strand == "both" else "given", prefix=prefix,
                            max_length=options.max_width)
    motifs = _widened(found.motifs, options.min_width, result.length)
    candidates = found.candidates.assign(round=round)
    parameters["noise_level"] = found.noise
    if pos is not None:
        logger.info(f"refining {len(motifs)} candidate(s) on the sequences (EM, strand {strand}) and finding sites")
        return refined_run(motifs, sequences, options, candidates=candidates, result=result, parameters=parameters,
                           round=round, accepted=accepted, match=match, random_state=random_state,
                           max_length=options.max_width, min_length=options.min_width,
                           max_held_out_pvalue=options.max_pvalue)  # a candidate failing p is not refitted
    # no sequences to count sites in: the POIM's motifs, named in their order
    motifs = [replace(m, name=f"motif{n}") for n, m in enumerate(motifs, start=len(accepted) + 1)]
    run = MotifRun(motifs, None, candidates, result=result, parameters=parameters)
    if match:
        run.matches = motif_matches(run, options)
    return run


def motif_matches(run, options):
    """TOMTOM matches of ``run``'s motifs against ``options.database`` (loaded), leaving out the
    motifs flagged as composition (no transcription-factor match is offered for them); None
    without a database."""
    from ..motifs import database_matches

    if options.database is None:
        return None
    motifs = run.motifs
    if run.stats is not None and "composition" in run.stats and len(run.stats):
        flagged = set(run.stats.loc[run.stats["composition"].astype(bool), "name"])
        motifs = [m for m in motifs if m.name not in flagged]
    return database_matches(motifs, options.database, top=options.top_matches)


def _no_candidates():
    import pandas as pd

    return pd.DataFrame(columns=["rank", "oligomer", "order", "position", "score", "importance", "direction",
                                 "round"])


def empty_stats():
    import pandas as pd

    return pd.DataFrame(columns=["name", "sites", "positives", "fraction_positive", "negative_sites",
                                 "fraction_negative", "p_value", "log10_p_value", "plus_strand", "palindromic",
                                 "held_out_p_value", "log10_held_out_p_value", "composition", "round"])


def empty_sites():
    import pandas as pd

    return pd.DataFrame(columns=["motif", "sequence", "id", "position", "strand", "score"])


def _with_full_tables(result, *, announce=True):
    """``result`` restricted to the orders whose full tables it holds: a streamed POIM (and the
    summaries in ``poim.npz``) keeps them for k <= 4 only, and motif candidates read whole rows.
    One log line (``announce``) says when orders are left out."""
    from ..importance import POIMResult

    full = 0
    while full < result.max_order and result.poim[full] is not None and result.firm[full] is not None:
        full += 1
    if full == result.max_order:
        return result
    if full == 0:
        raise SeqimpError("the POIM holds no full tables (only summaries): motifs need the tables of order 1 at least")
    if announce:
        logger.info(f"motifs from POIM orders 1..{full}: the higher orders are kept as summaries only "
                    "(streaming engine or poim.npz)")
    return POIMResult(list(result.poim[:full]), list(result.firm[:full]), expected_score=result.expected_score,
                      score_std=result.score_std, alphabet=result.alphabet, method=result.method, meta=result.meta)


def with_database_loaded(options):
    """``options`` with its database loaded (:func:`seqimp.motifs.load_database`: a file read, a
    JASPAR release fetched), once for a run; as they are without a database."""
    from ..motifs import load_database

    if options.database is None:
        return options
    return replace(options, database=load_database(options.database, options.db_format))


def add_motifs(out, result, sequences, options, *, fmt="png", random_state=None):
    """The motifs of a ``seqimp poim`` run (``motifs=`` of :func:`~seqimp.pipeline.run_poim`,
    :func:`~seqimp.pipeline.run_model` and :func:`~seqimp.pipeline.run_sampled`):
    :func:`poim_motifs` on the POIM it computed (a model trained there, a saved model, a
    sampled POIM of an external scorer) and the DNA sequences of the run (``sequences``, no
    retraining), and the files of :func:`~seqimp.pipeline.run_motifs` (no ``motifs_poim.npz``:
    the folder's ``poim.npz`` is the POIM) written into ``out``. The caller records the best
    motif in ``summary.json`` and writes the report.

    ``random_state`` is the run's seed (recorded in ``motifs.json``); the motif step draws
    only the composition controls with it (dinucleotide shuffles of the positives).

    Returns None, writing nothing, when the POIM holds no motif (e.g. a model of random
    sequences: no peak of the differential POIM; a POIM of order 1 only): one log line gives
    the reason (:func:`no_motifs_reason`). The POIM's own outputs stand either way.
    """
    result = _with_full_tables(result)
    reason = no_motifs_reason(result)
    if reason is not None:
        logger.info(f"no motifs: {reason}")  # the command prints it as its answer
        return None
    options = with_database_loaded(options)
    run = poim_motifs(result, sequences, options=options, random_state=random_state)
    run.parameters.update(seed=recorded_seed(random_state), trained=False,
                          poim="poim.npz of seqimp poim")
    run.files = write_motif_run(out, run, database=options.database, fmt=fmt, homer=options.homer)
    return run


def no_motifs_reason(result):
    """Why ``result`` holds no motif candidates (peaks of the differential POIM at orders 2 and
    up), as a phrase for the terminal, or None when it holds some."""
    from ..motifs import motif_candidates

    result = _with_full_tables(result, announce=False)
    if result.max_order < 2:
        return "a POIM of order 1 only; motif candidates are peaks at orders 2 and up (--max-order 2 or more)"
    if len(motif_candidates(result, 1)) == 0:
        return "the differential POIM has no positive peak"
    return None


def _widened(motifs, min_width, length) -> list:
    """Motifs narrower than ``min_width`` with uniform columns added on both sides (right first
    when odd), within positions 1..``length``; the others as they are."""
    import numpy as np
    from dataclasses import replace

    out = []
    for m in motifs:
        extra = min(min_width, length) - m.length
        if extra <= 0 or m.start is None:
            out.append(m)
            continue
        left = min(extra // 2, m.start - 1)
        right = min(extra - left, length - (m.start - 1 + m.length))
        left = min(extra - right, m.start - 1)
        pwm = np.vstack([np.full((left, 4), 0.25), m.pwm, np.full((right, 4), 0.25)])
        out.append(replace(m, pwm=pwm, start=m.start - left))
    return out
