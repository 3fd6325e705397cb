"""``seqimp scan`` as a library function: known motifs over sequences -> sites with exact
p-values and q-values -> ``scan.tsv``, ``scan.bed``, ``scan.json``, a figure and ``report.html``.

>>> from seqimp.options import ScanOptions                                 # doctest: +SKIP
>>> from seqimp.pipeline import run_scan                                   # doctest: +SKIP
>>> run = run_scan("scan", motifs, ["ACGT...", ...], options=ScanOptions(site_pvalue=1e-5))  # doctest: +SKIP
>>> run.hits.head()                                                        # doctest: +SKIP
"""

from __future__ import annotations

import html
import logging
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from .._utils.renamed import moved_keywords
from .._utils.tables import write_tsv
from ..io import hits_to_bed, position_labels, write_bed
from ..options import OutputOptions, ScanOptions
from ..plot._save import save_figure
from ..report._page import page_table, write_page
from ..report._record import json_ready, versions, write_summary

__all__ = ["ScanRun", "run_scan", "SCAN_COLUMNS", "pvalue_bed_score", "position_column", "plain_sequences"]

logger = logging.getLogger(__name__)

#: the columns of scan.tsv, the contract first
SCAN_COLUMNS = ["motif", "id", "position", "strand", "score", "p_value", "q_value", "matched"]


@dataclass
class ScanRun:
    """What :func:`run_scan` found and wrote.

    ``hits``: the table of ``scan.tsv`` (one row per site: :data:`SCAN_COLUMNS`, and
    ``position_label`` with an origin); ``tests``: windows scored per motif; ``parameters``:
    what ``scan.json`` records; ``files``: the paths written.
    """

    hits: pd.DataFrame
    tests: dict
    parameters: dict
    files: list = field(default_factory=list)


def pvalue_bed_score(p) -> np.ndarray:
    """BED score of a site: ``min(1000, round(100 * -log10 p))`` (p = 1e-4 -> 400, p <= 1e-10 ->
    1000), shape of ``p``, int64."""
    p = np.maximum(np.asarray(p, dtype=np.float64), 1e-300)
    return np.minimum(1000, np.rint(-100 * np.log10(p))).astype(np.int64)


def position_column(position, origin, length=None) -> np.ndarray | None:
    """``position_label`` of 1-based positions counted from ``origin`` (the 1-based position
    shown as +1; :func:`seqimp.io.position_labels`), or None without an origin."""
    if origin is None:
        return None
    position = np.asarray(position, dtype=np.int64)
    top = int(position.max()) if position.size else 1
    labels = position_labels(max(top, length or 1), origin=origin)
    return labels[position - 1]


@moved_keywords(fmt="output.fmt")
def run_scan(out, motifs, sequences, *, ids=None, windows=None, origin=None, options=ScanOptions(), database=None,
             output=OutputOptions()) -> ScanRun:
    """Scan ``sequences`` with ``motifs`` and write the results into the folder ``out``.

    Parameters
    ----------
    out : path-like
        Existing folder: ``scan.tsv``, ``scan.bed``, ``scan.json``, ``scan_positions.<fmt>``
        and ``report.html`` are written into it.
    motifs : sequence of Motif
    sequences : sequence of str, SequenceSet or GenomicWindows
        Sequences of any lengths (strings) or one common length.
    ids : sequence of str, optional
        One per sequence (default: the set's ids, else ``seq1, ...``).
    windows : GenomicWindows, optional
        The genomic windows ``sequences`` were cut from: ``scan.bed`` is then in genome
        coordinates (a site on a '-' window lies on the other genome strand).
    origin : int, optional
        The 1-based position shown as +1: ``scan.tsv`` gains ``position_label``.
    options : ScanOptions
    database : dict, optional
        What the motifs are (``MotifDatabase.info``), recorded in ``scan.json``.
    output : OutputOptions
        ``fmt``: the format of the figure (``fmt=`` as a keyword of its own is its old place,
        still accepted with a FutureWarning).

    Returns
    -------
    ScanRun
    """
    from ..motifs import scan_sequences

    fmt = output.fmt
    out = Path(out)
    if ids is None:
        ids = getattr(sequences, "ids", None)
    background = options.background
    if isinstance(background, str) and background == "all":
        background = "sequences"  # scan_sequences' name for the letters of all the scanned sequences
    found = scan_sequences(motifs, plain_sequences(sequences), ids=ids, background=background,
                           threshold=options.site_pvalue,
                           strand=options.strand, q_method=options.q_method, pseudocount=options.pseudocount,
                           min_scores=options.min_scores)
    hits = found[["sequence"] + SCAN_COLUMNS].copy()
    labels = position_column(hits["position"], origin)
    if labels is not None:
        hits.insert(4, "position_label", labels)
    lengths = {m.name: m.length for m in motifs}
    recorded = asdict(options)
    if hasattr(options.background, "describe"):  # a Markov background: its order and letters
        recorded["background"] = options.background.describe()
    parameters = {"options": recorded, "background": found.attrs["background"], "motifs": len(motifs),
                  "sequences": _count(sequences), "tests": found.attrs["tests"], "sites": int(len(hits)),
                  "position_origin": origin, "database": database, "versions": versions()}
    files = [out / "scan.tsv", out / "scan.bed", out / "scan.json"]
    write_tsv(hits.drop(columns="sequence"), files[0])
    write_bed(_bed_rows(hits, lengths, windows), files[1])
    write_summary(files[2], json_ready(parameters))
    figure = _positions_figure(hits, lengths, out / f"scan_positions.{fmt}", origin)
    if figure is not None:
        files.append(figure)
    run = ScanRun(hits.drop(columns="sequence").reset_index(drop=True), found.attrs["tests"], parameters, files)
    run.files.append(_report(out, run, motifs, figure, database))
    logger.info(f"{len(hits)} sites of {len(motifs)} motifs at p <= {options.site_pvalue:g}")
    return run


def _count(sequences) -> int:
    return len(sequences)


def plain_sequences(sequences):
    """Records (``cli._inputs.Records``: ``.sequences`` a list of strings) as that list; other
    inputs (strings, SequenceSets, code matrices) as they are."""
    inner = getattr(sequences, "sequences", None)
    return inner if isinstance(inner, list) else sequences


def _bed_rows(hits, lengths, windows) -> pd.DataFrame:
    """BED6 rows of the sites: genome coordinates for genomic windows, else the sequence id as
    chrom; score from the p-value (:func:`pvalue_bed_score`)."""
    length = hits["motif"].map(lengths).to_numpy(np.int64)
    score = pvalue_bed_score(hits["p_value"])
    if windows is not None:
        return hits_to_bed(windows, hits["sequence"], hits["position"], length, strand=hits["strand"],
                           name=hits["motif"], score=score)
    start = hits["position"].to_numpy(np.int64) - 1
    return pd.DataFrame({"chrom": hits["id"], "start": start, "end": start + length, "name": hits["motif"],
                         "score": score, "strand": hits["strand"]})


def _positions_figure(hits, lengths, path, origin):
    """Sites per position (the centre of each site) of the motifs with the most sites, one line
    each: where along the sequences a motif lies. None without sites."""
    if not len(hits):
        return None
    import matplotlib.pyplot as plt

    from ..plot._text import plot_text

    counts = hits["motif"].value_counts(sort=False)
    top = sorted(counts.index, key=lambda m: (-counts[m], list(lengths).index(m)))[:6]
    centre = hits["position"].to_numpy(np.int64) + hits["motif"].map(lengths).to_numpy(np.int64) // 2
    fig, ax = plt.subplots(figsize=(8, 3.2))
    span = int(centre.max())
    bins = np.linspace(0.5, span + 0.5, min(span, 60) + 1)
    for name in top:
        mask = (hits["motif"] == name).to_numpy()
        n, edges = np.histogram(centre[mask], bins=bins)
        ax.step(edges[:-1], n, where="post", label=plot_text(f"{name} ({mask.sum()} sites)"))
    ax.set_xlabel("1-based position of the site centre" + (f" (origin {origin} = +1)" if origin else ""))
    ax.set_ylabel("sites")
    ax.legend(fontsize=7, frameon=False)
    fig.tight_layout()
    save_figure(fig, path, dpi=110)
    plt.close(fig)
    return path


def _report(out, run, motifs, figure, database) -> Path:
    per_motif = run.hits.groupby("motif", sort=False).agg(sites=("p_value", "size"), best_p=("p_value", "min"),
                                                         significant=("q_value", lambda q: int((q <= 0.05).sum())))
    table = pd.DataFrame({"motif": [m.name for m in motifs], "description": [m.description for m in motifs]})
    table = table.merge(per_motif, left_on="motif", right_index=True, how="left").fillna(
        {"sites": 0, "significant": 0}).astype({"sites": int, "significant": int})
    table = table.sort_values(["significant", "sites"], ascending=False, kind="stable")
    best = table.iloc[0] if len(table) else None
    lead = ("<p><b>No site passed the threshold.</b></p>" if best is None or best["sites"] == 0 else
            f"<p><b>{html.escape(str(best['motif']))}</b> {html.escape(str(best['description']))}: "
            f"{best['sites']} sites, {best['significant']} at q &le; 0.05 "
            f"(of {len(run.hits)} sites of {len(motifs)} motifs at p &le; {run.parameters['options']['site_pvalue']:g}).</p>")
    sections = [("Sites per motif", page_table(table, limit=100))]
    if figure is not None:
        sections.append(("Where the sites lie", figure, "sites per position of the motifs with the most sites"))
    sections.append(("Sites", page_table(run.hits, limit=200)))
    summary = {"motifs": (database or {}).get("file") or _label(database) or len(motifs),
               "sequences": run.parameters["sequences"], "windows scored": sum(run.tests.values()),
               "p-value threshold": run.parameters["options"]["site_pvalue"],
               "q-values": run.parameters["options"]["q_method"], "strands": run.parameters["options"]["strand"]}
    return write_page(out, title="seqimp scan", lead=lead, summary=summary, sections=sections,
                      files=[Path(p).name for p in run.files])


def _label(database):
    if not database:
        return None
    from ..motifs.known._database import database_label

    return database_label(database)
