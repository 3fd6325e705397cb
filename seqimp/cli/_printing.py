"""What the subcommands print on the terminal when a run is done: the outcome of a POIM run,
its motifs and their matches to known motifs."""

from __future__ import annotations

from pathlib import Path

from ._logging import log, terminal_text

__all__ = ["print_outcome", "print_motifs", "match_lines"]


def print_outcome(run, out, *, note="") -> None:
    """Tell the user the metrics (stderr), the top oligomer and where the report is (stdout)."""
    from ..training._classifier import metrics_line

    metrics = run.summary.get("metrics", {})
    if metrics.get("auroc") is not None:
        log(metrics_line(metrics))
    if metrics.get("r2") is not None:
        log(f"held-out R^2 {metrics['r2']:.4f}, Spearman {metrics['spearman']:.4f}")
    rows = run.summary.get("top_per_order", [])
    if rows:
        print(f"top oligomer of each order by |FIRM| (1-based start){note}:")
        for row in rows:
            where = f"{row['position']} ({row['position_label']})" if "position_label" in row else row["position"]
            print(f"  k={row['order']}: {row['oligomer']:>{rows[-1]['order']}s} at {where}"
                  f"  FIRM {row['firm']:+.4g}  POIM {row['poim']:+.4g}")
    print(f"report: {out}/report.html")


def print_motifs(run, out) -> None:
    """The motifs of a :class:`seqimp.pipeline.MotifRun` (stdout): one line each, strongest first,
    each one's database verdict (:func:`match_lines`), and where ``motifs.tsv`` is."""
    for line in run.lines():  # names read from --db files: escape sequences shown, not obeyed; tabs kept
        print("\t".join(terminal_text(part) for part in line.split("\t")))
    if run.matches is not None and len(run.matches):
        for line in match_lines(run.matches, database=run.parameters.get("database")):
            print(terminal_text(line))
    print(f"motifs: {Path(out)}/motifs.tsv")


def match_lines(matches, consensus=None, database=None) -> list:
    """Lines for the terminal: ``known motifs: LABEL -- CREDIT`` when ``database`` (the
    ``database`` of ``motifs.json``) is given, then per query of ``matches``
    (:func:`seqimp.motifs.compare_motifs`) ``NAME: verdict`` (``NAME CONSENSUS:`` when
    ``consensus`` maps names to consensi) and, when the table has JASPAR classes
    (``target_class``), one indented line grouping its significant matches by class, the
    largest group first."""
    from ..motifs.known._compare import best_matches, match_line
    from ..motifs.known._database import database_label

    lines = []
    if database:
        credit = database.get("attribution")
        lines.append(f"known motifs: {database_label(database)}" + (f" -- {credit}" if credit else ""))
    for query, row in best_matches(matches).items():
        name = f"{query} {consensus[query]}" if consensus and query in consensus else query
        lines.append(f"{name}: {match_line(row)}")
        if "target_class" not in matches:
            continue
        groups = {}
        mine = matches[(matches["query"] == query) & matches["significant"].astype(bool)]
        for target, factor, tf_class in zip(mine["target"], mine["target_description"], mine["target_class"]):
            groups.setdefault(tf_class or "no class given", []).append(factor or target)
        if groups:
            ranked = sorted(groups.items(), key=lambda item: -len(item[1]))
            lines.append("  its significant matches by JASPAR class: "
                         + "; ".join(f"{tf_class}: {', '.join(names)}" for tf_class, names in ranked))
    return lines
