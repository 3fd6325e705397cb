"""The attribution route of the motif search (TF-MoDISco's job): one-hot sequences and any
model's hypothetical contributions -> seqlets -> clustered motifs with CWMs and PWMs
(:func:`seqimp.motifs._attribution_motifs.attribution_motifs`) -> TOMTOM matches. No model is
trained and no site is counted in negatives: the motifs are what the attributions hold."""

from __future__ import annotations

import logging
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ...errors import SeqimpError
from ...importance._attributions import ism_attributions  # noqa: F401 - its former home, still importable
from ._run import MotifRun, motif_matches, with_database_loaded

__all__ = ["AttributionMotifRun", "attribution_run", "ism_attributions"]

logger = logging.getLogger(__name__)


@dataclass
class AttributionMotifRun(MotifRun):
    """A :class:`MotifRun` of the attribution route.

    Attributes
    ----------
    found : list of AttributionMotif
        One per motif of ``motifs`` (same order): CWM, hypothetical CWM, PWM, sign, seqlets.
    all_seqlets : DataFrame
        Every seqlet the map gave (clustered or not).
    ids : list of str
        The sequences' names (``seq1, seq2, ...`` for arrays).
    """

    found: list = field(default_factory=list)
    all_seqlets: object = None
    ids: list = field(default_factory=list)

    def __repr__(self) -> str:
        from ..._utils.repr import short_repr

        return short_repr("MotifRun", route="attributions", motifs=len(self.motifs),
                          consensus=", ".join(m.consensus for m in self.motifs[:3]),
                          seqlets=0 if self.all_seqlets is None else len(self.all_seqlets), files=len(self.files))

    def table(self) -> pd.DataFrame:
        """``motifs.tsv``: one row per motif, most seqlets first: ``name, consensus`` (the PWM's
        most probable letters), ``length, n_seqlets, sign`` (+1: the motif raises the model's
        output, -1: lowers it), ``direction`` (enriched / depleted), ``contribution`` (sum of the
        CWM), ``plus_strand`` (share of the seqlets on the given strand), ``cwm_consensus`` (the
        largest contribution of each CWM column, lower case below 20% of the largest column), ``sites``
        (= n_seqlets) and ``position_free`` (True), as the report's motif cards read them."""
        rows = []
        for m, a in zip(self.motifs, self.found):
            imp = np.abs(a.cwm).sum(axis=1)
            letters = "".join(("ACGT"[int(np.argmax(np.abs(c)))] if v >= 0.2 * imp.max() else
                               "acgt"[int(np.argmax(np.abs(c)))]) for c, v in zip(a.cwm, imp))
            rows.append({"name": m.name, "consensus": m.consensus, "length": m.length, "n_seqlets": len(a.seqlets),
                         "sign": a.sign, "direction": m.direction, "contribution": float(a.cwm.sum()),
                         "plus_strand": float((a.seqlets["strand"] == "+").mean()), "cwm_consensus": letters,
                         "sites": len(a.seqlets), "position_free": True})
        columns = ["name", "consensus", "length", "n_seqlets", "sign", "direction", "contribution", "plus_strand",
                   "cwm_consensus", "sites", "position_free"]
        return pd.DataFrame(rows, columns=columns)

    def seqlet_table(self) -> pd.DataFrame:
        """``seqlets.tsv``: every seqlet of a motif: ``motif, row`` (0-based row of the arrays),
        ``id``, ``start, end`` (1-based, inclusive, on the given strand), ``strand`` ("-": the
        motif is the reverse complement there), ``contribution`` (summed over the seqlet)."""
        parts = []
        for m, a in zip(self.motifs, self.found):
            s = a.seqlets
            parts.append(pd.DataFrame({"motif": m.name, "row": s["sequence"].to_numpy(),
                                       "id": [self.ids[i] for i in s["sequence"]],
                                       "start": s["start"].to_numpy() + 1, "end": s["start"].to_numpy() + m.length,
                                       "strand": s["strand"].to_numpy(), "contribution": s["contribution"].to_numpy()}))
        columns = ["motif", "row", "id", "start", "end", "strand", "contribution"]
        return pd.concat(parts, ignore_index=True) if parts else pd.DataFrame(columns=columns)

    def lines(self) -> list:
        """One line per motif for the terminal; "no motif found" when none is reported."""
        lines = [f"{r['name']}\t{r['consensus']}\tlength {r['length']}\t{r['n_seqlets']} seqlets\t"
                 f"{'positive' if r['sign'] > 0 else 'negative'} contribution {r['contribution']:.3g}"
                 for r in self.table().to_dict("records")]
        return lines or ["no motif found: no cluster of seqlets stands out of the attribution map's noise"]


def attribution_run(sequences, attributions, *, options, names=("sequences", "attributions"), ids=None,
                    random_state=0, **settings) -> AttributionMotifRun:
    """The motifs of an attribution map and their TOMTOM matches.

    Parameters
    ----------
    sequences, attributions : array-like of shape (n, 4, L) or (n, L, 4)
        One-hot sequences (A C G T) and hypothetical contributions
        (:func:`seqimp.motifs._attribution_seqlets.check_attribution_arrays`).
    options : MotifOptions
        ``database`` and ``top_matches``.
    names : (str, str)
        How the arrays are named in error messages.
    ids : list of str, optional
        Sequence names (default ``seq1, seq2, ...``).
    random_state : int
        Recorded (the search draws nothing at random).
    **settings
        Keywords of :func:`seqimp.motifs._attribution_motifs.attribution_motifs`.

    Returns
    -------
    AttributionMotifRun
        Position-free motifs (PWMs: the seqlets' letter frequencies), no files.
    """
    from .._attribution_motifs import attribution_motifs
    from .._attribution_seqlets import DEFAULTS, check_attribution_arrays
    from .._motif import Motif
    from ..known._database import database_info

    if sequences is None or attributions is None:
        raise SeqimpError(f"motifs from attributions: give both {names[0]} (one-hot) and {names[1]} (hypothetical "
                          "contributions)")
    onehot, hyp = check_attribution_arrays(sequences, attributions, names=names)
    settings = {**DEFAULTS, **settings}
    options = with_database_loaded(options)
    logger.info(f"attributions of {onehot.shape[0]} sequences of length {onehot.shape[1]}: seqlets, clusters")
    found, seqlets = attribution_motifs(onehot, hyp, **settings)
    motifs = []
    for k, a in enumerate(found, start=1):
        name = f"motif{k}"
        motifs.append(Motif(name, a.pwm, start=None, position_free=True, sites=len(a.seqlets),
                            score=float(abs(a.cwm.sum())), direction="enriched" if a.sign > 0 else "depleted"))
    ids = list(ids) if ids is not None else [f"seq{i + 1}" for i in range(onehot.shape[0])]
    parameters = {"route": "attributions", **settings, "sequences": int(onehot.shape[0]),
                  "length": int(onehot.shape[1]), "seqlets": int(len(seqlets)),
                  "seqlet_threshold": float(seqlets.attrs["threshold"]), "null_scale": float(seqlets.attrs["scale"]),
                  "database": database_info(options.database), "seed": int(random_state)}
    run = AttributionMotifRun(motifs, None, pd.DataFrame(columns=["name"]), parameters=parameters, found=found,
                              all_seqlets=seqlets, ids=ids)
    logger.info(f"{len(seqlets)} seqlets (|window sum| >= {parameters['seqlet_threshold']:.3g}), "
                f"{len(motifs)} motif(s)")
    run.matches = motif_matches(run, options)
    return run
