"""Motifs from any model's attributions (TF-MoDISco's inputs): one-hot sequences and hypothetical
contributions -> seqlets where the contribution stands out -> clusters of aligned seqlets ->
motifs with their CWM, hypothetical CWM and PWM.

The steps (:func:`attribution_motifs`):

1. **Seqlets** (:func:`seqimp.motifs._attribution_seqlets.find_attribution_seqlets`: windows
   whose summed contribution passes a Laplace null fitted to the map's own windows at a
   Benjamini-Hochberg false discovery rate; that module).
2. **Clusters** (:func:`_greedy_clusters`, numba). Strongest seqlet first, each is aligned to every
   cluster's mean hypothetical contribution over shifts up to ``max_shift`` and both strands (cosine
   similarity, as TF-MoDISco compares seqlets); it joins the best cluster at ``min_similarity`` or
   more, else starts one. A second pass assigns every seqlet again to the final means of the
   clusters of at least ``min_seqlets`` seqlets.
3. **Motifs**. Each cluster's CWM (mean contribution of its aligned seqlets) is trimmed to the
   positions holding at least ``trim`` of its largest column's contribution; clusters whose trimmed
   CWMs align at ``merge_similarity`` or more (the same sign), or the shorter of which fits inside
   the longer at ``contain_similarity`` (cosine over the overlapping columns: a partial copy), are
   merged, the larger one keeping its frame (one motif per pattern); clusters of fewer than
   ``min_seqlets`` seqlets are dropped, and so are those whose CWM sums, in the cluster's sign, to
   less than ``min_contribution`` times the seqlet threshold (seqlets of sites spoilt by
   mismatches, whose window sum took the other sign), or that are narrower than ``min_width``
   columns.
   The PWM is the letter frequencies of the motif's seqlets.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from numba import njit

from ._attribution_seqlets import find_attribution_seqlets

__all__ = ["attribution_motifs", "AttributionMotif"]


@njit(cache=True)
def _best_alignment(x, mean, width, max_shift):
    """Cosine similarity of the best alignment of a seqlet's extended profile ``x`` (width + 2 *
    max_shift, 4) with a cluster's ``mean`` (width, 4): (similarity, shift, strand 0/1)."""
    mm = 0.0
    for j in range(width):
        for a in range(4):
            mm += mean[j, a] * mean[j, a]
    best, bd, bs = -2.0, 0, 0
    if mm <= 0.0:
        return best, bd, bs
    ext = x.shape[0]
    for s in range(2):
        for d in range(-max_shift, max_shift + 1):
            dot = 0.0
            xx = 0.0
            for j in range(width):
                r = max_shift + d + j
                for a in range(4):
                    v = x[r, a] if s == 0 else x[ext - 1 - r, 3 - a]
                    dot += v * mean[j, a]
                    xx += v * v
            if xx > 0.0:
                sim = dot / np.sqrt(xx * mm)
                if sim > best + 1e-12:
                    best, bd, bs = sim, d, s
    return best, bd, bs


@njit(cache=True)
def _add_window(total, x, width, max_shift, d, s):
    ext = x.shape[0]
    for j in range(width):
        r = max_shift + d + j
        for a in range(4):
            total[j, a] += x[r, a] if s == 0 else x[ext - 1 - r, 3 - a]


@njit(cache=True)
def _greedy_clusters(ext, order, width, max_shift, min_similarity, max_clusters):
    """Greedy clustering of seqlets (``ext``: (N, width + 2 * max_shift, 4) hypothetical profiles, in
    ``order``): each joins the best-aligned cluster mean at ``min_similarity`` or more, else starts
    a cluster. Returns the cluster sums (K, width, 4) and counts."""
    sums = np.zeros((max_clusters, width, 4))
    counts = np.zeros(max_clusters, np.int64)
    k_used = 0
    for idx in order:
        x = ext[idx]
        best, bk, bd, bs = -2.0, -1, 0, 0
        for k in range(k_used):
            sim, d, s = _best_alignment(x, sums[k], width, max_shift)
            if sim > best + 1e-12:
                best, bk, bd, bs = sim, k, d, s
        if bk >= 0 and best >= min_similarity:
            _add_window(sums[bk], x, width, max_shift, bd, bs)
            counts[bk] += 1
        elif k_used < max_clusters:
            _add_window(sums[k_used], x, width, max_shift, 0, 0)
            counts[k_used] = 1
            k_used += 1
    return sums[:k_used], counts[:k_used]


@njit(cache=True)
def _assign(ext, means, width, max_shift, min_similarity):
    """Every seqlet's best cluster (-1 below ``min_similarity``), shift and strand."""
    n = ext.shape[0]
    label = np.full(n, -1, np.int64)
    shift = np.zeros(n, np.int64)
    strand = np.zeros(n, np.int64)
    for i in range(n):
        best = -2.0
        for k in range(means.shape[0]):
            sim, d, s = _best_alignment(ext[i], means[k], width, max_shift)
            if sim > best + 1e-12:
                best = sim
                if sim >= min_similarity:
                    label[i], shift[i], strand[i] = k, d, s
    return label, shift, strand


@dataclass
class AttributionMotif:
    """A motif of an attribution map: its seqlets aligned, their mean contribution and letters.

    Attributes
    ----------
    cwm : ndarray of shape (w, 4)
        Mean contribution (onehot * hyp) of the seqlets, oriented.
    hypothetical_cwm : ndarray of shape (w, 4)
        Mean hypothetical contribution of the seqlets.
    pwm : ndarray of shape (w, 4)
        Letter frequencies of the seqlets (rows sum to 1; a column of only Ns is uniform).
    sign : int
        +1 (raises the output) or -1.
    seqlets : DataFrame
        ``sequence`` (0-based row), ``start`` (0-based, forward strand), ``strand`` ("+" or "-";
        on "-" the motif is the reverse complement of the sequence there), ``contribution``.
    """

    cwm: np.ndarray
    hypothetical_cwm: np.ndarray
    pwm: np.ndarray
    sign: int
    seqlets: pd.DataFrame = field(repr=False)

    @property
    def length(self) -> int:
        return int(self.cwm.shape[0])


class _Padded:
    """An (n, L, 4) array, or the product of two (``onehot * hyp``: a contribution map), read as if
    padded with ``pad`` zero positions at both ends (windows may pass a sequence's ends), without
    the padded copy."""

    def __init__(self, pad, *arrays):
        self.pad, self.arrays = pad, arrays
        self.length = arrays[0].shape[1]

    def windows(self, seq, start, strand, width):
        """Windows (k, width, 4), float64, at padded ``start``, reverse-complemented on strand 1."""
        idx = start[:, None] - self.pad + np.arange(width)[None, :]
        inside = (idx >= 0) & (idx < self.length)
        idx = np.clip(idx, 0, self.length - 1)
        win = self.arrays[0][seq[:, None], idx].astype(np.float64)
        for other in self.arrays[1:]:
            win *= other[seq[:, None], idx]
        win[~inside] = 0.0
        minus = strand == 1
        win[minus] = win[minus][:, ::-1, ::-1]
        return win


def _trim(cwm, trim):
    imp = np.abs(cwm).sum(axis=1)
    keep = np.nonzero(imp >= trim * imp.max())[0] if imp.max() > 0 else np.arange(len(imp))
    return int(keep[0]), int(keep[-1]) + 1


def _cosine_alignment(a, b, min_overlap, *, within=False):
    """Best alignment of CWM ``b`` on ``a`` over offsets and both strands: (similarity, offset,
    strand 0/1), the products of overlapping columns over the whole norms; ``within``: over the
    norms of the overlapping columns alone (how well the shorter CWM, overlapped whole, fits inside
    the longer one)."""
    na, nb = np.sqrt((a ** 2).sum()), np.sqrt((b ** 2).sum())
    best = (-2.0, 0, 0)
    if na <= 0 or nb <= 0:
        return best
    for s, bb in ((0, b), (1, b[::-1, ::-1])):
        for d in range(-len(bb) + min_overlap, len(a) - min_overlap + 1):
            lo, hi = max(d, 0), min(len(a), d + len(bb))
            if hi - lo < min_overlap:
                continue
            x, y = a[lo:hi], bb[lo - d:hi - d]
            norm = np.sqrt((x ** 2).sum() * (y ** 2).sum()) if within else na * nb
            sim = float((x * y).sum() / norm) if norm > 0 else -2.0
            if sim > best[0] + 1e-12:
                best = (sim, d, s)
    return best


def _map_instances(inst, m1, m2, offset, strand):
    """Instances (sequence, start, strand) of a motif of length ``m2`` in the frame of a motif of
    length ``m1`` onto which it aligns at ``offset`` (its column 0, reverse-complemented for
    ``strand`` 1, on column ``offset``)."""
    seq, start, st = inst
    if strand == 0:
        new_start = np.where(st == 0, start - offset, start + m2 + offset - m1)
        new_strand = st
    else:
        new_start = np.where(st == 0, start + m2 + offset - m1, start - offset)
        new_strand = 1 - st
    return seq, new_start, new_strand


def attribution_motifs(onehot, hyp, *, window=15, flank=5, fdr=0.05, max_shift=8, min_similarity=0.5,
                       merge_similarity=0.7, contain_similarity=0.8, trim=0.25, min_seqlets=20, min_contribution=0.5,
                       min_width=4, max_clusters=200):
    """Motifs of an attribution map: seqlets, clusters, merged copies (the module's steps).

    Parameters
    ----------
    onehot, hyp : ndarray of shape (n, L, 4)
        One-hot sequences and hypothetical contributions
        (:func:`seqimp.motifs._attribution_seqlets.check_attribution_arrays`).
    window, flank, fdr
        Of :func:`find_attribution_seqlets`.
    max_shift : int, default=8
        Most positions a seqlet is shifted to align with a cluster.
    min_similarity : float, default=0.5
        Cosine similarity of hypothetical profiles for a seqlet to join a cluster.
    merge_similarity : float, default=0.7
        Cosine similarity of two clusters' aligned CWMs (whole norms) for them to be merged.
    contain_similarity : float, default=0.8
        Or: cosine similarity of the shorter CWM, overlapped whole, with the columns of the longer
        it overlaps (a partial copy of a motif is merged into it).
    trim : float, default=0.25
        A motif spans the columns holding at least this share of its largest column's contribution.
    min_seqlets : int, default=20
        Fewest seqlets of a motif.
    min_contribution : float, default=0.5
        A motif's CWM must sum, in its sign, to at least this share of the seqlet threshold.
    min_width : int, default=4
        Fewest columns of a motif after trimming (one or two columns of contribution are no motif).
    max_clusters : int, default=200
        Most clusters of the greedy pass (per sign).

    Returns
    -------
    motifs : list of AttributionMotif
        Most seqlets first.
    seqlets : DataFrame
        Every seqlet found (:func:`find_attribution_seqlets`); its ``attrs`` hold the threshold.
    """
    length = onehot.shape[1]
    seqlets = find_attribution_seqlets(onehot, hyp, window=window, flank=flank, fdr=fdr)
    width = window + 2 * flank
    pad = width + max_shift
    hyp_p, contrib_p, onehot_p = _Padded(pad, hyp), _Padded(pad, onehot, hyp), _Padded(pad, onehot)
    found = []
    for sign in (1, -1):
        rows = seqlets[seqlets["sign"] == sign]
        if len(rows) < min_seqlets:
            continue
        seq = rows["sequence"].to_numpy(np.int64)
        start = rows["start"].to_numpy(np.int64) + pad  # padded coordinates
        ext = hyp_p.windows(seq, start - max_shift, np.zeros(len(seq), np.int64), width + 2 * max_shift)
        ext = np.ascontiguousarray(ext * sign)
        order = np.arange(len(rows), dtype=np.int64)  # strongest first
        sums, counts = _greedy_clusters(ext, order, width, max_shift, min_similarity, max_clusters)
        kept = counts >= min_seqlets
        if not kept.any():
            continue
        label, shift, strand = _assign(ext, np.ascontiguousarray(sums[kept]), width, max_shift, min_similarity)
        clusters = []
        for k in range(int(kept.sum())):
            members = label == k
            if members.sum() < min_seqlets:
                continue
            s_seq, s_strand = seq[members], strand[members]
            # the aligned window: a shift d on "+" starts d later; on "-" it starts d earlier
            s_start = np.where(s_strand == 0, start[members] + shift[members], start[members] - shift[members])
            cwm = contrib_p.windows(s_seq, s_start, s_strand, width).mean(axis=0)
            a, b = _trim(cwm, trim)
            t_start = np.where(s_strand == 0, s_start + a, s_start + width - b)
            clusters.append([s_seq, t_start, s_strand, b - a])
        clusters = _merge(clusters, contrib_p, merge_similarity, contain_similarity, length, pad)
        for s_seq, t_start, s_strand, m in clusters:
            if len(s_seq) < min_seqlets:
                continue
            motif = _motif(s_seq, t_start, s_strand, m, sign, onehot_p, hyp_p, contrib_p, pad)
            # a motif holds its seqlets' contribution: a cluster of seqlets whose aligned columns
            # sum to little, or to the other sign (sites of the other sign spoilt by mismatches), is none
            held = sign * float(motif.cwm.sum())
            if motif.length >= min_width and held >= min_contribution * seqlets.attrs["threshold"]:
                found.append(motif)
    found.sort(key=lambda mt: (-len(mt.seqlets), -abs(float(mt.cwm.sum()))))
    return found, seqlets


def _merge(clusters, contrib_p, merge_similarity, contain_similarity, length, pad):
    """Clusters whose trimmed CWMs align at ``merge_similarity`` (whole norms), or the shorter of
    which fits inside the longer at ``contain_similarity`` (the norms of the overlap: a copy of part
    of a motif, its sites spoilt elsewhere), merged into the larger one (in its frame); instances
    that would pass a sequence's end, and repeated instances, dropped."""
    clusters = sorted(clusters, key=lambda c: -len(c[0]))
    merged = []
    for seq, start, strand, m in clusters:
        cwm = contrib_p.windows(seq, start, strand, m).mean(axis=0)
        for target in merged:
            t_cwm = contrib_p.windows(target[0], target[1], target[2], target[3]).mean(axis=0)
            sim, offset, st = _cosine_alignment(t_cwm, cwm, min_overlap=max(3, min(m, target[3]) // 2))
            if sim < merge_similarity:
                inner = _cosine_alignment(t_cwm, cwm, min_overlap=min(m, target[3]), within=True)
                if inner[0] >= contain_similarity:
                    sim, offset, st = merge_similarity, inner[1], inner[2]
            if sim >= merge_similarity:
                new_seq, new_start, new_strand = _map_instances((seq, start, strand), target[3], m, offset, st)
                inside = (new_start >= pad) & (new_start + target[3] <= pad + length)
                key = set(zip(target[0].tolist(), target[1].tolist(), target[2].tolist()))
                fresh = np.array([(q, p, s) not in key for q, p, s in zip(new_seq, new_start, new_strand)], bool)
                take = inside & fresh if len(fresh) else inside
                target[0] = np.concatenate([target[0], new_seq[take]])
                target[1] = np.concatenate([target[1], new_start[take]])
                target[2] = np.concatenate([target[2], new_strand[take]])
                break
        else:
            merged.append([seq, start, strand, m])
    return merged


def _motif(seq, start, strand, m, sign, onehot_p, hyp_p, contrib_p, pad):
    order = np.lexsort((strand, start, seq))
    seq, start, strand = seq[order], start[order], strand[order]
    contrib = contrib_p.windows(seq, start, strand, m)
    letters = onehot_p.windows(seq, start, strand, m).sum(axis=0)
    totals = letters.sum(axis=1, keepdims=True)
    pwm = np.where(totals > 0, letters / np.where(totals > 0, totals, 1.0), 0.25)
    table = pd.DataFrame({"sequence": seq, "start": start - pad, "strand": np.where(strand == 0, "+", "-"),
                          "contribution": contrib.sum(axis=(1, 2))})
    hypothetical = hyp_p.windows(seq, start, strand, m).mean(axis=0)
    return AttributionMotif(cwm=contrib.mean(axis=0), hypothetical_cwm=hypothetical, pwm=pwm, sign=int(sign),
                            seqlets=table)
