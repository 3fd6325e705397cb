"""Variant effects: how much a model's score changes when a window carries a variant.

``delta = score(alt window) - score(ref window)``, computed exactly:

* WD/WDS models (:class:`~seqimp.kernels.PositionalWeights`, or a fitted model with
  ``positional_weights()``): a substitution from the positional k-mers that cover it
  (:func:`~seqimp.importance._variant_kernels._wd_snvs`, ``degree (degree + 1) / 2`` pairs of
  look-ups);
* gkm models (:class:`~seqimp.kernels.GKMClassifier`): a substitution from the gapped k-mers
  it changes, deltaSVM's rule for the unnormalised score and the exact new norm for the
  normalised one (:mod:`~seqimp.importance._variant_kernels`);
* any other score function (codes (n, L) -> n scores: ONNX, PyTorch, scikit-learn,
  ``module:function``): both windows scored, in batches.

Multi-base substitutions and indels re-score the alternative window, re-cut to the window's
width around the same centre from the bases beside it (``flanks``). Each variant's p-value is
empirical: the share of every possible substitution of the same windows whose ``|delta|`` is
at least as large (:func:`snv_null`).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..errors import SeqimpError, check_int, check_random_state
from ..io import decode, reverse_complement_codes
from ..io._check import check_sequences
from ._variant_table import _LETTERS, _snvs, _variant_table, alt_window

__all__ = [
    "EFFECT_COLUMNS",
    "base_importance",
    "deltasvm_sums",
    "empirical_p_values",
    "model_kind",
    "snv_null",
    "variant_effects",
]

#: Columns :func:`variant_effects` adds to the variants.
EFFECT_COLUMNS = ["score_ref", "score_alt", "delta", "p_value", "oligomer", "oligomer_position", "oligomer_change"]


def model_kind(model):
    """``("wd", PositionalWeights)``, ``("gkm", GKMClassifier)`` or ``("scorer", callable)``."""
    from ..kernels import GKMClassifier, PositionalWeights

    if isinstance(model, PositionalWeights):
        weights = model
    elif isinstance(model, GKMClassifier):
        if not hasattr(model, "coef_"):
            raise SeqimpError("model: the GKMClassifier is not fitted")
        return "gkm", model
    elif hasattr(model, "positional_weights") and not isinstance(model, type):
        try:
            weights = model.positional_weights()
        except Exception as exc:  # noqa: BLE001 - an unfitted estimator says so in its own words
            raise SeqimpError(f"model: cannot get its positional weights ({type(exc).__name__}: {exc})") from None
    elif callable(model):
        return "scorer", model
    else:
        raise SeqimpError(f"model must be PositionalWeights, a WD model, a GKMClassifier or a score function, "
                          f"got {type(model).__name__}")
    if weights.alphabet.size != 4:
        raise SeqimpError(f"model: variants need a DNA model, this one reads {weights.alphabet.name}")
    return "wd", weights


def _window_codes(ref_sequences, kind, model):
    # the positional and gkm kernels read N (the k-mers and l-mers that cover it are no features); a score
    # function is not asked to
    codes = check_sequences(ref_sequences, "ref_sequences", unknown=kind in ("wd", "gkm"))
    if kind == "wd" and codes.shape[1] != model.length:
        raise SeqimpError(f"ref_sequences have length {codes.shape[1]}; the model scores windows of {model.length}")
    if kind == "gkm" and codes.shape[1] < model.word_length:
        raise SeqimpError(f"ref_sequences have length {codes.shape[1]}, shorter than the gkm model's "
                          f"word_length {model.word_length}")
    return np.ascontiguousarray(codes, dtype=np.uint8)


def _kmer_strings(codes, win, start, k, pos, letter, gained) -> np.ndarray:
    """The k-mers ``codes[win, start:start + k]`` as strings (all of one k), with ``letter`` at ``pos``
    where ``gained``."""
    sub = codes[win[:, None], start[:, None] + np.arange(k)[None, :]].copy()
    rows = np.flatnonzero(gained)
    sub[rows, pos[rows] - start[rows]] = letter[rows]
    chars = np.frombuffer(_LETTERS.encode(), np.uint8)[sub]
    return np.ascontiguousarray(chars).view(f"S{k}").ravel().astype(str)


def _scorer_scores(score_fn, codes, batch_size):
    from ._scorers import call_scorer

    out = np.empty(codes.shape[0])
    for s in range(0, codes.shape[0], batch_size):
        out[s:s + batch_size] = call_scorer(score_fn, codes[s:s + batch_size])
    return out


def _wd_tables(weights):
    from numba.typed import List

    tables = List()
    for table in weights.tables:
        tables.append(np.ascontiguousarray(table, dtype=np.float64))
    return tables


def _gkm_args(model):
    tables = model.tables_
    cols = tables.columns
    with_col = np.array([[c for c in range(cols.shape[0]) if j in cols[c]] for j in range(tables.word_length)],
                        dtype=np.int64).reshape(tables.word_length, -1)
    return tables, with_col


def _chunks(m):
    import numba

    return max(1, min(int(m), numba.get_num_threads()))


def snv_null(model, ref_sequences, *, windows=None, random_state=None, batch_size=4096) -> np.ndarray:
    """The effect of every possible substitution of the windows: the null of the p-values.

    Parameters
    ----------
    model, ref_sequences
        As :func:`variant_effects`.
    windows : int, optional
        Use a random sample of this many windows (``random_state``) instead of all.
    random_state : int, Generator or None
        None: the fixed seed 0.

    Returns
    -------
    ndarray of shape (n_windows_used, 3 L)
        Entry ``[w, 3 p + j]``: ``score(window with the j-th other letter at p) - score(window)``; NaN
        where the window holds an unknown base (N) at p (:func:`empirical_p_values` leaves them out).
    """
    kind, model = model_kind(model)
    codes = _window_codes(ref_sequences, kind, model)
    if windows is not None:
        windows = check_int(windows, "null windows")
        if windows < codes.shape[0]:
            rows = np.sort(check_random_state(random_state).choice(codes.shape[0], windows, replace=False))
            codes = codes[rows]
    m, length = codes.shape
    out = np.empty((m, 3 * length))
    if kind == "wd":
        from ._variant_kernels import _wd_all_snvs

        _wd_all_snvs(codes, _wd_tables(model), model.degree, out)
    elif kind == "gkm":
        from ._variant_kernels import _gkm_all_snvs

        tables, with_col = _gkm_args(model)
        _gkm_all_snvs(codes, reverse_complement_codes(codes), tables.word_length, tables.left, tables.right, with_col, model.coef_,
                      bool(model.reverse_complement), bool(model.normalize), float(model.intercept_),
                      tables.n_features, out, _chunks(m))
    else:
        from ._ism import ism

        effects = ism(model, codes, batch_size=batch_size)  # (m, L, 4), 0 at the window's own letter
        other = np.ones((m, length, 4), dtype=bool)
        np.put_along_axis(other, codes[:, :, None].astype(np.intp), False, axis=2)
        out = effects[other].reshape(m, 3 * length)
    return out


def empirical_p_values(delta, null) -> np.ndarray:
    """Empirical p-values: ``(1 + #{|null| >= |delta|}) / (1 + n_null)`` (ties within 1e-12 relative
    count as at least as large)."""
    ref = np.abs(np.asarray(null, dtype=np.float64).ravel())
    ref = np.sort(ref[~np.isnan(ref)])     # NaN: the substitutions of an unknown base, which has none
    d = np.abs(np.asarray(delta, dtype=np.float64))
    at_least = ref.size - np.searchsorted(ref, d * (1 - 1e-12), side="left")
    return (1.0 + at_least) / (1.0 + ref.size)


def variant_effects(model, ref_sequences, variants, *, flanks=None, p_values=True, null=None, null_windows=None,
                    random_state=None, batch_size=4096) -> pd.DataFrame:
    """Exact effects of variants on a model's score.

    Parameters
    ----------
    model : PositionalWeights, fitted WD model, GKMClassifier or callable
        A WD/WDS model (its positional weights), a gapped-k-mer SVM, or any score function
        ``score_fn(codes (n, L) uint8) -> (n,)`` (:mod:`seqimp.scorers`).
    ref_sequences : list of str, SequenceSet or ndarray of shape (m, L)
        The reference windows, as the model reads them (length L: the WD model's length).
    variants : pandas.DataFrame or sequence of (window, offset, ref, alt)
        ``window``: 0-based row of ``ref_sequences``; ``offset``: 0-based index of the first REF
        base in that window; ``ref``, ``alt``: alleles (A, C, G, T) as read in the window. An
        optional ``name`` column names a variant in messages. Other columns are kept.
    flanks : (left, right) arrays of shape (m, F), optional
        The bases before and after each window (uint8 codes, :data:`~seqimp.io._alphabet.INVALID` where there
        are none), from which an indel's window is re-cut (:func:`alt_window`).
    p_values : bool, default=True
        Add each variant's empirical p-value against every possible substitution of the windows.
    null : ndarray, optional
        Those substitutions' effects already computed (:func:`snv_null`).
    null_windows : int, optional
        Draw the null from a random sample of this many windows (``random_state``).
    random_state : int, Generator or None
        None: the fixed seed 0 (used only with ``null_windows``).
    batch_size : int, default=4096
        Windows per call of a score function.

    Returns
    -------
    pandas.DataFrame
        The variants with :data:`EFFECT_COLUMNS`: ``score_ref``, ``score_alt``, ``delta`` (=
        ``score_alt - score_ref``), ``p_value`` (NaN without ``p_values``), and the positional
        oligomer whose weight changes most (WD: a k-mer; gkm: a gapped k-mer, gaps ``.``; lost or
        gained): ``oligomer``, ``oligomer_position`` (1-based start in the window) and
        ``oligomer_change`` (its signed effect: minus its weight when lost, its weight when gained);
        empty, 0 and NaN for score functions and for gkm indels.
    """
    kind, model = model_kind(model)
    codes = _window_codes(ref_sequences, kind, model)
    batch_size = check_int(batch_size, "batch_size")
    table, left, right = _variant_table(variants, codes, flanks)
    n = len(table)
    m = codes.shape[0]
    is_snv, index, letter = _snvs(table)
    win = table["window"].to_numpy(np.int64)
    pos = table["offset"].to_numpy(np.int64) + index
    others = np.flatnonzero(~is_snv)
    alt_codes = np.empty((others.size, codes.shape[1]), dtype=np.uint8)
    for j, i in enumerate(others):
        try:
            alt_codes[j] = alt_window(codes[win[i]], left[win[i]], right[win[i]], int(table["offset"][i]),
                                      table["ref"][i], table["alt"][i], unknown=kind in ("wd", "gkm"))
        except SeqimpError as exc:
            raise SeqimpError(f"{table['name'][i]}: {exc}" + ("" if flanks is not None else
                                                                " (give flanks= for indels)")) from None
    score_ref = np.full(n, np.nan)
    score_alt = np.full(n, np.nan)
    delta = np.full(n, np.nan)
    oligo = [""] * n
    oligo_pos = np.zeros(n, dtype=np.int64)
    oligo_change = np.full(n, np.nan)
    snvs = np.flatnonzero(is_snv)
    if kind == "wd":
        from ._variant_kernels import _wd_snvs

        ref_scores = model.score(codes)
        score_ref[:] = ref_scores[win]
        d = np.empty(snvs.size)
        top = np.empty((snvs.size, 4))
        _wd_snvs(codes, _wd_tables(model), model.degree, win[snvs], pos[snvs], letter[snvs], d, top)
        delta[snvs] = d
        score_alt[snvs] = score_ref[snvs] + d
        if others.size:
            score_alt[others] = model.score(alt_codes)
            delta[others] = score_alt[others] - score_ref[others]
        ks, starts = top[:, 0].astype(np.int64), top[:, 1].astype(np.int64)
        oligo_pos[snvs], oligo_change[snvs] = starts + 1, top[:, 3]
        for k in np.unique(ks):
            rows = np.flatnonzero(ks == k)
            at = snvs[rows]
            for i, text in zip(at, _kmer_strings(codes, win[at], starts[rows], int(k), pos[at], letter[at],
                                                 top[rows, 2] > 0)):
                oligo[i] = text
        for j, i in enumerate(others):
            oligo[i], oligo_pos[i], oligo_change[i] = _wd_top(model, codes[win[i]], alt_codes[j])
    elif kind == "gkm":
        from ._variant_kernels import _gkm_snvs

        tables, with_col = _gkm_args(model)
        score_ref[:] = model.decision_function(codes)[win]
        order = snvs[np.argsort(win[snvs], kind="stable")]
        bounds = np.searchsorted(win[order], np.arange(m + 1)).astype(np.int64)
        ref_k = np.full(m, np.nan)
        alt_k = np.empty(order.size)
        dn = np.empty(order.size)
        top = np.empty((order.size, 4))
        _gkm_snvs(codes, reverse_complement_codes(codes), tables.word_length, tables.left, tables.right, with_col, model.coef_,
                  bool(model.reverse_complement), bool(model.normalize), float(model.intercept_), tables.n_features,
                  bounds, pos[order], letter[order], ref_k, alt_k, dn, top, _chunks(m))
        delta[order] = alt_k - ref_k[win[order]]
        score_alt[order] = score_ref[order] + delta[order]
        if others.size:
            score_alt[others] = model.decision_function(alt_codes)
            delta[others] = score_alt[others] - score_ref[others]
        cols = tables.columns
        for j, i in enumerate(order):
            t, c, sign, change = int(top[j, 0]), int(top[j, 1]), int(top[j, 2]), top[j, 3]
            row = codes[win[i]].copy()
            if sign > 0:
                row[pos[i]] = letter[i]
            oligo[i], oligo_pos[i], oligo_change[i] = _gapped(row, t, cols[c]), t + cols[c][0] + 1, change
    else:
        ref_scores = _scorer_scores(model, codes, batch_size)
        score_ref[:] = ref_scores[win]
        alt_all = np.empty((n, codes.shape[1]), dtype=np.uint8)
        alt_all[snvs] = codes[win[snvs]]
        alt_all[snvs, pos[snvs]] = letter[snvs]
        alt_all[others] = alt_codes
        score_alt[:] = _scorer_scores(model, alt_all, batch_size)
        delta[:] = score_alt - score_ref
    out = table.copy()
    for name, values in zip(EFFECT_COLUMNS, (score_ref, score_alt, delta, np.full(n, np.nan),
                                             pd.Series(oligo, dtype=object), oligo_pos, oligo_change)):
        out[name] = values
    if p_values:
        if null is None:
            null = snv_null(model, codes, windows=null_windows, random_state=random_state, batch_size=batch_size)
        out["p_value"] = empirical_p_values(delta, null)
    return out


def _gapped(row, t, cols) -> str:
    """A gapped k-mer as letters with ``.`` at its gaps, from its first to its last informative column."""
    letters = decode(row[None, t + cols[0]:t + cols[-1] + 1])[0]
    keep = set(int(c - cols[0]) for c in cols)
    return "".join(ch if j in keep else "." for j, ch in enumerate(letters))


def _wd_top(weights, ref_row, alt_row):
    """The positional k-mer whose weight changes most between two windows (any change: indels):
    ``(k-mer, 1-based start, signed change)``, ties to the lower order, then start, lost first."""
    best = ("", 0, np.nan)
    best_abs = -1.0
    for k, idx, known in _known_windows(np.stack([ref_row, alt_row]), len(weights.tables)):
        table = weights.tables[k - 1]
        # a window that covers an unknown base is no feature: it is lost or gained only where it is known
        for i in np.flatnonzero((idx[0] != idx[1]) | (known[0] != known[1])):
            wr, wa = table[i, idx[0, i]], table[i, idx[1, i]]
            if known[0, i] and abs(wr) > best_abs:
                best, best_abs = (decode(ref_row[None, i:i + k])[0], i + 1, -wr), abs(wr)
            if known[1, i] and abs(wa) > best_abs:
                best, best_abs = (decode(alt_row[None, i:i + k])[0], i + 1, wa), abs(wa)
    return best


def _known_windows(codes, degree):
    """For k = 1..degree: ``(k, idx, known)``, the k-mer index of every window of ``codes`` (n, L) (an
    unknown base, code >= 4, read as 0) and whether the window covers no unknown base (as
    :meth:`PositionalWeights.score <seqimp.kernels.PositionalWeights.score>`)."""
    from ..io import window_indices
    from ..io._alphabet import known_windows, unknown_prefix

    clean, seen = unknown_prefix(codes, 4)
    for k in range(1, degree + 1):
        yield k, window_indices(clean, k, 4), known_windows(seen, k)


def deltasvm_sums(model, ref_sequences, variants) -> np.ndarray:
    """The change of a gkm model's unnormalised score ``<phi(x), w>`` for each substitution in
    ``variants`` (as :func:`variant_effects`): the sum of the weights of the gapped k-mers gained
    minus those lost, deltaSVM's score (for a model with ``normalize=False`` it is ``delta``)."""
    from ._variant_kernels import _gkm_snvs

    kind, model = model_kind(model)
    if kind != "gkm":
        raise SeqimpError("deltasvm_sums: the model must be a GKMClassifier")
    codes = _window_codes(ref_sequences, kind, model)
    table, _, _ = _variant_table(variants, codes, None)
    is_snv, index, letter = _snvs(table)
    if not is_snv.all():
        raise SeqimpError("deltasvm_sums: substitutions of one base only")
    win = table["window"].to_numpy(np.int64)
    order = np.argsort(win, kind="stable")
    pos = (table["offset"].to_numpy(np.int64) + index)[order]
    letter = letter[order]
    tables, with_col = _gkm_args(model)
    m = codes.shape[0]
    bounds = np.searchsorted(win[order], np.arange(m + 1)).astype(np.int64)
    dn = np.empty(order.size)
    _gkm_snvs(codes, reverse_complement_codes(codes), tables.word_length, tables.left, tables.right, with_col, model.coef_,
              bool(model.reverse_complement), bool(model.normalize), float(model.intercept_), tables.n_features,
              bounds, pos, letter, np.full(m, np.nan), np.empty(order.size), dn, np.empty((order.size, 4)), _chunks(m))
    out = np.empty(order.size)
    out[order] = dn
    return out


def base_importance(model, ref_sequences, *, batch_size=4096) -> np.ndarray:
    """Per-base importance of windows, shape (m, L): WD/WDS models split every positional k-mer's
    weight evenly over its k bases (rows sum to ``score - bias``); gkm models their
    attributions (:meth:`~seqimp.kernels.GKMClassifier.attributions`); score functions the mean
    drop of the score when the base is substituted (in-silico mutagenesis)."""
    kind, model = model_kind(model)
    codes = _window_codes(ref_sequences, kind, model)
    m, length = codes.shape
    if kind == "wd":
        out = np.zeros((m, length))
        for k, idx, known in _known_windows(codes, len(model.tables)):
            # (m, L - k + 1); a window that covers an unknown base is no feature and adds nothing
            contrib = np.where(known, model.tables[k - 1][np.arange(idx.shape[1])[None, :], idx], 0.0) / k
            for j in range(k):
                out[:, j:j + idx.shape[1]] += contrib
        return out
    if kind == "gkm":
        return np.asarray(model.attributions(codes), dtype=np.float64)
    from ._ism import ism

    return -ism(model, codes, batch_size=batch_size).sum(axis=2) / 3.0
