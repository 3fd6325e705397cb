"""What a motif search found (:class:`MotifRun`) and the ending every route shares from its seeds
on (:func:`refined_run`: refinement and sites on the sequences -> the enriched motifs -> matches,
:func:`motif_matches`). The routes that seed it: a POIM's candidates (:mod:`._poim_route`), a gkm
model's l-mers (:mod:`._gkm_route`), the words most enriched in the positives (:mod:`._word_route`).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

__all__ = ["MotifRun", "refined_run", "motif_matches", "with_database_loaded", "empty_stats", "empty_sites",
           "TABLE_SCAN_COLUMNS", "SHOWN_MOTIFS"]

#: the columns of the PWMs for scanning that motifs.tsv appends (:func:`seqimp.motifs.scanning_motifs`)
TABLE_SCAN_COLUMNS = ["scan_threshold", "scan_fraction_positive", "scan_fraction_negative",
                      "scan_held_out_fraction_positive", "scan_tuned", "scan_length", "scan_pwm"]

#: Motifs shown with a logo in a MotifRun's HTML view.
SHOWN_MOTIFS = 5


@dataclass
class MotifRun:
    """What a motif search found (:func:`~seqimp.pipeline.run_motifs`, :func:`~seqimp.pipeline.find_motifs`,
    the motifs of :func:`~seqimp.pipeline.run_poim`).

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
        (:class:`seqimp.io._genome.GenomicWindows`): ``motif_sites.bed`` is then in genome coordinates.
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
    tested : int
        Candidates refined and tested in the whole search (every route's seeds, every round,
        the deeper search's words, :mod:`._depth`): a motif's E-value is its held-out p-value
        times this number.
    candidate_tests : DataFrame or None
        What became of each of them (``candidate_tests.tsv``): the columns of
        :data:`seqimp.motifs._select.TEST_COLUMNS` and ``round``, one row per candidate in the
        order tested; None where no candidate was refined on sequences.
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
    tested: int = 0
    candidate_tests: object = None

    def __repr__(self) -> str:
        from ..._utils.repr import short_repr

        names = ", ".join(m.consensus for m in self.motifs[:3]) + (", ..." if len(self.motifs) > 3 else "")
        return short_repr("MotifRun", motifs=len(self.motifs), consensus=names,
                          matches=None if self.matches is None else len(self.matches), files=len(self.files),
                          folder=_folder(self.files))

    def _repr_html_(self) -> str:
        """Jupyter's view: the motifs' table and logos (the first :data:`SHOWN_MOTIFS`), the
        database matches."""
        from ..._utils.repr import html_card, logo_svg

        lines = [("motifs", len(self.motifs)), ("output folder", _folder(self.files) or "-")]
        database = self.parameters.get("database")
        if database:
            from ..known._database import database_label

            lines.append(("known motifs", database_label(database)))
        images = [(f"{m.name} {m.consensus}" + (f" at {m.start}" if m.start else ""), logo_svg(m.pwm))
                  for m in self.motifs[:SHOWN_MOTIFS]]
        table = self.table()
        keep = [c for c in ("name", "consensus", "start", "length", "direction", "score", "sites",
                            "fraction_positive", "fraction_negative", "held_out_p_value") if c in table.columns]
        parts = [html_card("MotifRun", lines, table=table[keep], images=images,
                           note="\n".join(self.lines()) if not self.motifs else "")]
        if self.matches is not None and len(self.matches):
            parts.append(html_card("best database matches (TOMTOM)", table=self.matches.head(10)))
        return "".join(parts)

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
        0..1, what the motifs were ranked by in discovery), the ``scan_*`` columns of the PWMs
        for scanning, and last ``evalue`` (the held-out p-value times the candidates the search
        tested, :attr:`tested`, as STREME's E-value; printed from its log10) and
        ``log10_evalue``."""
        import numpy as np

        from .._discover import motif_table
        from .._stats import format_pvalue

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
        log_e = np.full(len(table), np.nan)
        if self.stats is not None and self.tested > 0:
            log_e = table["log10_held_out_p_value"].to_numpy(dtype=float) + np.log10(self.tested)
        table["evalue"] = [format_pvalue(v, digits=3) for v in log_e]
        table["log10_evalue"] = log_e
        if self.stats is not None and "strand" in self.stats:  # one strand or both, as the sites were called
            table["strand"] = table["name"].map(dict(zip(self.stats["name"], self.stats["strand"])))
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
                         f"held out p = {row['held_out_p_value']}, E = {row['evalue']}, {strand})")
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
    ``accepted``), with ``options.scan_pwm`` their PWMs for scanning
    (:func:`seqimp.motifs.scanning_motifs`), and with ``match`` TOMTOM matches against
    ``options.database``.

    Parameters
    ----------
    seeds : list of Motif
        The route's seeds (PWMs of shape (m, 4)).
    sequences : LabelledSequences
        Positives and negatives, codes of shape (n, L) each (:func:`seqimp.io._labelled.encode_labelled`).
    options : MotifOptions
        Strand, ``fpr``, the p-value cuts, ``scan_pwm`` and ``background_order``, the database (loaded).
    candidates : DataFrame
        The seeds' rows (``motif_candidates.tsv``).
    result : POIMResult or None
        The importance the seeds came from, kept in the run.
    parameters : dict
        What ``motifs.json`` records; ``scan_pwm`` and ``background_order`` are added to it.
    round : int, default=1
        The round of explaining away, the ``round`` column of ``stats``.
    accepted : sequence of Motif
        Motifs reported in earlier rounds.
    match : bool, default=True
        Match the motifs to ``options.database`` here.
    random_state : int or None
        The seed of the composition controls and of the PWMs for scanning.
    **refine
        Keywords of :func:`seqimp.motifs.refine_motifs` (``max_iter``, ``tune``, ``max_length``, ...).

    Returns
    -------
    MotifRun
        Without ``files``; ``parameters`` as given.
    """
    from ...background import SiteBackground
    from .. import refine_motifs, scanning_motifs, select_motifs  # through the package: what a test spies on

    refined = refine_motifs(seeds, sequences.positive, sequences.negative, strand=options.strand, fpr=options.fpr,
                            ids=sequences.ids, random_state=random_state, **refine)
    selected = select_motifs(refined, max_pvalue=options.max_pvalue, max_held_out_pvalue=options.max_held_out_pvalue,
                             strand=options.strand, first_number=len(accepted) + 1, accepted=accepted,
                             words={s.name: s for s in seeds} if refine.get("keep_seed") else None)
    if options.scan_pwm:
        selected = scanning_motifs(selected, sequences.positive, sequences.negative, fpr=options.fpr,
                                   order=options.background_order, random_state=random_state)
    stats = selected.stats
    stats["round"] = round
    tests = selected.tests.assign(round=round) if selected.tests is not None else None
    run = MotifRun(selected.motifs, None, candidates, result=result, stats=stats, sites=selected.sites,
                   coords=sequences.coords, parameters=parameters, scanning=list(selected.scanning or []),
                   tested=len(seeds), candidate_tests=tests)
    if options.scan_pwm:
        run.background = SiteBackground.fit(sequences.negative, options.background_order)
        parameters.update(scan_pwm=True, background_order=options.background_order)
    if match:
        run.matches = motif_matches(run, options)
    return run


def joined_tests(runs):
    """The ``candidate_tests`` of several runs (steps of one search) in their order, or None where
    none has any."""
    import pandas as pd

    tables = [t for t in (getattr(r, "candidate_tests", None) for r in runs) if t is not None]
    return pd.concat(tables, ignore_index=True) if tables else None


def motif_matches(run, options):
    """TOMTOM matches of ``run``'s motifs against ``options.database`` (loaded), leaving out the
    motifs flagged as composition (no transcription-factor match is offered for them).

    Parameters
    ----------
    run : MotifRun
    options : MotifOptions
        ``database`` (loaded: :func:`with_database_loaded`) and ``top_matches``.

    Returns
    -------
    DataFrame or None
        One row per match (:func:`seqimp.motifs.database_matches`); None without a database.
    """
    from .. import database_matches

    if options.database is None:
        return None
    motifs = run.motifs
    if run.stats is not None and "composition" in run.stats and len(run.stats):
        flagged = set(run.stats.loc[run.stats["composition"].astype(bool), "name"])
        motifs = [m for m in motifs if m.name not in flagged]
    return database_matches(motifs, options.database, top=options.top_matches)


def _folder(files) -> str | None:
    """The folder the files were written to (that of the first file), or None."""
    from pathlib import Path

    return str(Path(files[0]).parent) if files else None


def empty_stats():
    """The site statistics of a search that reports no motif: the columns, no row."""
    import pandas as pd

    return pd.DataFrame(columns=["name", "sites", "positives", "fraction_positive", "negative_sites",
                                 "fraction_negative", "p_value", "log10_p_value", "plus_strand", "palindromic",
                                 "held_out_p_value", "log10_held_out_p_value", "composition", "round", "strand"])


def empty_sites():
    """The site table of a search that reports no motif: the columns, no row."""
    import pandas as pd

    return pd.DataFrame(columns=["motif", "sequence", "id", "position", "strand", "score"])


def with_database_loaded(options):
    """``options`` with its database loaded (:func:`seqimp.motifs.load_database`: a file read, a
    JASPAR release fetched), once for a run; as they are without a database."""
    from .. import load_database

    if options.database is None:
        return options
    return replace(options, database=load_database(options.database, options.db_format))
