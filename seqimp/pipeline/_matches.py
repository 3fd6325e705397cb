"""Figures of database matches: the query's logo above the matched motif's, aligned."""

from __future__ import annotations

from pathlib import Path

from ._outputs import save_figure

__all__ = ["write_match_logos"]


def write_match_logos(matches, motifs, database, folder, fmt="png") -> list:
    """For every query with a significant match, ``<query>_match.<fmt>`` in ``folder``: the
    compared (trimmed) query columns above the best target, at the reported offset and
    strand (:func:`seqimp.plot.match_logo`). Returns the paths written."""
    import matplotlib.pyplot as plt

    from ..motifs import Motif, best_matches
    from ..plot import match_logo

    if matches is None:
        return []
    by_name = {m.name: m for m in motifs}
    targets = {m.name: m for m in database}
    folder = Path(folder)
    folder.mkdir(exist_ok=True)
    files = []
    for name, row in best_matches(matches).items():
        if not row["significant"] or name not in by_name or row["target"] not in targets:
            continue
        query = by_name[name]
        compared = Motif(query.name, query.pwm[row["query_from"] - 1:row["query_to"]])
        ax = match_logo(compared, targets[row["target"]], offset=row["offset"], strand=row["strand"],
                        title=f"{name} (columns {row['query_from']}-{row['query_to']})\nbest match "
                              f"{row['target']}, q = {row['q_value']:.2g}, calibrated q = {row['calibrated_q']:.2g}")
        files.append(folder / f"{name}_match.{fmt}")
        save_figure(ax[0].figure, files[-1], dpi=130)  # fixed metadata and ids: the same bytes on a rerun
        plt.close(ax[0].figure)
    return files
