"""``seqimp enrich`` as a library function: every motif of a database tested for enrichment in
positives against negatives -> ``enrichment.tsv``, ``enrichment.json``, a figure and
``report.html``.

>>> from seqimp.pipeline import run_enrich                                 # doctest: +SKIP
>>> run = run_enrich("enrich", database, positives, negatives)              # doctest: +SKIP
>>> run.table.head()                                                        # doctest: +SKIP
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
from ..options import EnrichOptions, OutputOptions
from ..plot._save import save_figure
from ..report._page import page_table, write_page
from ..report._record import json_ready, versions, write_summary
from ._scan_run import plain_sequences

__all__ = ["EnrichRun", "run_enrich", "enrichment_lead"]

logger = logging.getLogger(__name__)


@dataclass
class EnrichRun:
    """What :func:`run_enrich` found and wrote: ``table`` (``enrichment.tsv``: one row per
    motif, most enriched first), ``parameters`` (``enrichment.json``), ``files``."""

    table: pd.DataFrame
    parameters: dict
    files: list = field(default_factory=list)


@moved_keywords(fmt="output.fmt")
def run_enrich(out, database, positive, negative, *, options=EnrichOptions(), output=OutputOptions(),
               random_state=None) -> EnrichRun:
    """Test every motif of ``database`` for enrichment and write the results into ``out``.

    Parameters
    ----------
    out : path-like
        Existing folder: ``enrichment.tsv``, ``enrichment.json``, ``enrichment.<fmt>`` and
        ``report.html`` are written into it.
    database : MotifDatabase or sequence of Motif
        Its ``info`` is recorded and its JASPAR ``tf_family``/``tf_class`` become columns.
    positive, negative : sequence of str, SequenceSet or Records
        Sequences of any lengths.
    options : EnrichOptions
    output : OutputOptions
        ``fmt``: the format of the figure (``fmt=`` as a keyword of its own is its old place,
        still accepted with a FutureWarning).
    random_state : int or None
        The seed that drew negatives (shuffles, genomic windows), recorded as ``seed`` (the
        test itself is deterministic); default 0.

    Returns
    -------
    EnrichRun
    """
    from ..motifs import enrich_motifs
    from ..motifs.known._database import database_info

    fmt = output.fmt
    out = Path(out)
    background = options.background
    if isinstance(background, str) and background == "negative":
        background = "sequences"  # enrich_motifs' name for the letters of the negatives
    table = enrich_motifs(database, plain_sequences(positive), plain_sequences(negative), method=options.method,
                          site_pvalue=options.site_pvalue, background=background, strand=options.strand)
    info = database_info(database)
    enriched = int((table["q_value"] <= options.max_qvalue).sum())
    recorded = asdict(options)
    if hasattr(options.background, "describe"):  # a Markov background: its order and letters
        recorded["background"] = options.background.describe()
    parameters = {"options": recorded, "background": table.attrs["background"], "database": info,
                  "positives": int(table["positives"].iloc[0]), "negatives": int(table["negatives"].iloc[0]),
                  "enriched": enriched, "seed": 0 if random_state is None else random_state,
                  "versions": versions()}
    files = [out / "enrichment.tsv", out / "enrichment.json"]
    write_tsv(table, files[0])
    write_summary(files[1], json_ready(parameters))
    figure = _figure(table, out / f"enrichment.{fmt}", options.max_qvalue)
    files.append(figure)
    run = EnrichRun(table, parameters, files)
    run.files.append(write_page(out, title="seqimp enrich", lead=enrichment_lead(table, options.max_qvalue),
                                summary=_summary(parameters), sections=[
                                    ("Enrichment of every motif", page_table(table, limit=100)),
                                    ("Most enriched motifs", figure, "-log10 q of the 20 most enriched motifs; "
                                     f"the line marks q = {options.max_qvalue:g}")],
                                files=[p.name for p in files]))
    logger.info(f"{enriched} of {len(table)} motifs enriched at q <= {options.max_qvalue:g}")
    return run


def enrichment_lead(table, max_qvalue=0.05) -> str:
    """The report's first lines: the enriched motifs (target, family, shares of positives and
    negatives with a site, q), or that none is."""
    hits = table[table["q_value"] <= max_qvalue]
    if not len(hits):
        return (f"<p><b>No motif is enriched at q &le; {max_qvalue:g}</b> (best: "
                f"{html.escape(str(table['motif'].iloc[0]))}, q = {table['q_value'].iloc[0]:.3g}).</p>")
    items = []
    for row in hits.head(10).to_dict("records"):
        family = f", {row['tf_family']}" if row.get("tf_family") else ""
        items.append(f"<li><b>{html.escape(str(row['motif']))}</b> {html.escape(str(row['target_description']))}"
                     f"{html.escape(family)}: sites in {row['positive_share']:.0%} of positives, "
                     f"{row['negative_share']:.0%} of negatives, q = {row['q_value']:.3g}</li>")
    more = f"<p class=note>and {len(hits) - 10} more</p>" if len(hits) > 10 else ""
    return f"<p><b>{len(hits)} motifs enriched at q &le; {max_qvalue:g}</b></p><ul>{''.join(items)}</ul>{more}"


def _summary(parameters) -> dict:
    from ..motifs.known._database import database_label

    opts = parameters["options"]
    return {"database": database_label(parameters["database"]) if parameters["database"] else None,
            "positives": parameters["positives"], "negatives": parameters["negatives"],
            "test": "Fisher's exact test on sequences with a site" if opts["method"] == "fisher"
            else "Mann-Whitney U on the best site score",
            "site": f"best window p <= {opts['site_pvalue']:g}" if opts["method"] == "fisher" else None,
            "q-values": "Benjamini-Hochberg across the database"}


def _figure(table, path, max_qvalue):
    import matplotlib.pyplot as plt

    from ..plot._text import plot_text

    top = table.head(20).iloc[::-1]
    fig, ax = plt.subplots(figsize=(7, 0.28 * len(top) + 1.2))
    value = -np.log10(np.maximum(top["q_value"].to_numpy(float), 1e-300))
    labels = [plot_text(f"{m} {d}".strip()[:40]) for m, d in zip(top["motif"], top["target_description"])]
    ax.barh(np.arange(len(top)), value, color=np.where(top["q_value"] <= max_qvalue, "#c0392b", "#999999"))
    ax.set_yticks(np.arange(len(top)), labels, fontsize=7)
    ax.axvline(-np.log10(max_qvalue) if max_qvalue > 0 else 0, color="k", lw=0.8, ls="--")
    ax.set_xlabel("-log10 q")
    fig.tight_layout()
    save_figure(fig, path, dpi=110)
    plt.close(fig)
    return path
