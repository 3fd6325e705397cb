"""``seqimp variants`` as a library function: a model, a VCF and a genome -> every variant's exact
effect on the model's score -> ``variants.tsv``, ``variants.bed``, ``variants.json``, the delta
distribution, the per-base importance of the top variants and ``report.html``.

>>> from seqimp.pipeline import run_variants                                         # doctest: +SKIP
>>> run = run_variants("out", "model.npz", "calls.vcf.gz", "hg38.fa", regions="peaks.bed")  # doctest: +SKIP
>>> run.table.head()                                                                 # doctest: +SKIP
"""

from __future__ import annotations

import html
import logging
import os
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path

import numpy as np
import pandas as pd

from .._utils.tables import write_tsv
from ..errors import SeqimpError, check_int
from ..options import OutputOptions, VariantOptions
from ..plot._save import save_figure
from ..report._page import page_table, write_page
from ..report._record import json_ready, versions, write_summary
from ..training._model_file import load_model_file

__all__ = ["VARIANT_COLUMNS", "VariantRun", "run_variants"]

logger = logging.getLogger(__name__)

#: The columns of variants.tsv: the contract first (chrom .. delta, the p-value, the oligomer).
VARIANT_COLUMNS = ["chrom", "pos", "id", "ref", "alt", "window", "score_ref", "score_alt", "delta", "p_value",
                   "oligomer", "oligomer_position", "oligomer_change"]


#: What ``variants.json`` records of a model file's metadata.
_MODEL_KEYS = ("model", "degree", "shifts", "C", "length", "alphabet", "word_length", "informative", "n_train",
               "n_test", "accuracy", "auroc", "seed")


@dataclass
class VariantRun:
    """What :func:`run_variants` found and wrote: ``table`` (``variants.tsv``), ``null`` (the deltas
    of every substitution of the windows), ``parameters`` (``variants.json``), ``files``."""

    table: pd.DataFrame
    null: np.ndarray
    parameters: dict
    files: list = field(default_factory=list)

    def _top(self, n=10) -> pd.DataFrame:
        return self.table.iloc[_top_rows(self.table, n)]

    def __repr__(self) -> str:
        from .._utils.repr import short_repr

        top = self._top(1)
        return short_repr("VariantRun", rows=len(self.table), variants=self.parameters.get("variants"),
                          windows=self.parameters.get("windows"),
                          top=f"{top['chrom'].iloc[0]}:{top['pos'].iloc[0]} {top['ref'].iloc[0]}>{top['alt'].iloc[0]}"
                          if len(top) else None)

    def _repr_html_(self) -> str:
        from .._utils.repr import html_card

        lines = [("variants", self.parameters.get("variants")), ("windows", self.parameters.get("windows")),
                 ("rows at p <= 0.01", int((self.table["p_value"] <= 0.01).sum()))]
        return html_card("seqimp variants", lines, table=self._top(10))


def _width(kind, inner, metadata, width):
    """The window width: the WD model's length, else ``width``, the model file's ``length`` or the
    scorer's fixed input length."""
    if kind == "wd":
        if width is not None and width != inner.length:
            raise SeqimpError(f"--width {width}: the WD model scores windows of {inner.length} nt; leave --width out "
                              "or give that")
        return inner.length
    if width is not None:
        return width
    known = (metadata or {}).get("length") or getattr(inner, "length", None)
    lengths = {len(s) for s in getattr(inner, "support_vectors", ())}  # an LS-GKM model: its training windows'
    if not known and len(lengths) == 1 and lengths.pop() > getattr(inner, "l", 0):
        known = len(inner.support_vectors[0])
    if not known:
        raise SeqimpError("the model does not say how wide a window it scores: give --width")
    return int(known)


def _window_label(coords) -> list:
    return [f"{c}:{s + 1}-{e}" + ("(-)" if st == "-" else "")
            for c, s, e, st in zip(coords["chrom"], coords["start"], coords["end"], coords["strand"])]


def run_variants(out, model, vcf, genome, *, regions=None, options=VariantOptions(), output=OutputOptions(),
                 random_state=None, metadata=None, model_source=None) -> VariantRun:
    """Score the variants of a VCF with a model and write the results into the folder ``out``.

    Parameters
    ----------
    out : path-like
        Existing folder: ``variants.tsv``, ``variants.bed``, ``variants.json``,
        ``variants_delta.<fmt>``, ``top_variants.<fmt>`` and ``report.html`` are written into it.
    model : path-like, PositionalWeights, GKMClassifier or callable
        A model file of ``seqimp train`` (WD/WDS or ``--model gkm``), a model, or a score function
        on codes (n, L) (:mod:`seqimp.scorers`).
    vcf : path-like
        VCF (plain, gzip or bgzip; :func:`seqimp.io._vcf.read_vcf`).
    genome : path-like or pyfaidx.Fasta
        Indexed genome FASTA.
    regions : path-like or pandas.DataFrame, optional
        BED regions: the windows (``options.width`` around each summit or centre, as ``seqimp poim``
        cuts them) a positional model scores; each variant is scored in every window holding it.
        None: one window centred on each variant.
    options : VariantOptions
    output : OutputOptions
        ``fmt``: the format of the figures.
    random_state : int or None
        The seed of the null's sample of windows (``options.null_windows``; None: 0, recorded in
        ``variants.json``).
    metadata : dict, optional
        The model file's metadata (its ``length`` gives a gkm model's window width).
    model_source : str, optional
        What the model is (a path, ``--scorer`` spec), for ``variants.json``.

    Returns
    -------
    VariantRun
    """
    from ..importance import variant_effects
    from ..importance._variants import model_kind, snv_null
    from ..io import extract_windows, open_genome, read_vcf
    from ..io._variant_windows import variant_windows

    out = Path(out)
    if options.fmt is not None:  # the old place of the figure format (VariantOptions warned)
        output = replace(output, fmt=options.fmt)
    if options.random_state is not None and random_state is None:  # the old place of the seed
        random_state = options.random_state
    if random_state is not None:
        check_int(random_state, "random_state", minimum=0)
    seed = 0 if random_state is None else random_state
    if isinstance(model, (str, os.PathLike)):
        model_source = model_source or str(model)
        model, _, metadata = load_model_file(model)
    kind, inner = model_kind(model)
    width = _width(kind, inner, metadata, options.width)
    fa = open_genome(genome)
    windows = None
    if regions is not None:
        windows = extract_windows(regions, fa, width, name="--regions", mask_lowercase=options.mask_lowercase)
    variants = read_vcf(vcf, regions=windows.coords if windows is not None and options.skip_outside else None,
                        split_multiallelic=options.split_multiallelic)
    placed = variant_windows(variants, fa, width, windows=windows, skip_mismatch=options.skip_mismatch,
                             skip_outside=options.skip_outside, mask_lowercase=options.mask_lowercase)
    pairs = placed.pairs
    used, window_row = np.unique(pairs["window"].to_numpy(np.int64), return_inverse=True)
    codes = placed.windows.codes[used]
    coords = placed.windows.coords.iloc[used].reset_index(drop=True)
    vrows = pairs["variant"].to_numpy(np.int64)
    kept = placed.variants
    names = [f"{chrom}:{pos} {ref}>{alt}" for chrom, pos, ref, alt in
             zip(kept["chrom"].to_numpy(object)[vrows], kept["pos"].to_numpy(np.int64)[vrows],
                 kept["ref"].to_numpy(object)[vrows], kept["alt"].to_numpy(object)[vrows])]
    request = pd.DataFrame({"window": window_row.astype(np.int64), "offset": pairs["offset"].to_numpy(np.int64),
                            "ref": pairs["ref"], "alt": pairs["alt"], "name": names})
    logger.info(f"{len(pairs):,} variant-window pairs ({len(kept):,} variants, {len(used):,} windows of {width} nt)")
    null = snv_null(inner, codes, windows=options.null_windows, random_state=seed, batch_size=options.batch_size)
    effects = variant_effects(inner, codes, request, flanks=(placed.left[used], placed.right[used]), null=null,
                              batch_size=options.batch_size)
    table = pd.DataFrame({
        "chrom": kept["chrom"].to_numpy(object)[vrows], "pos": kept["pos"].to_numpy(np.int64)[vrows],
        "id": kept["id"].to_numpy(object)[vrows], "ref": kept["ref"].to_numpy(object)[vrows],
        "alt": kept["alt"].to_numpy(object)[vrows],
        "window": np.asarray(_window_label(coords), dtype=object)[window_row]})
    for column in VARIANT_COLUMNS[6:]:
        table[column] = effects[column].to_numpy()
    from ..importance._deltasvm import deltasvm_scores
    from ..kernels.gkm._lsgkm_lmers import lmer_model

    if lmer_model(inner) is not None:  # gkm and LS-GKM models: deltaSVM's own score too
        table["deltasvm"] = deltasvm_scores(inner, codes, request)
    files = [out / "variants.tsv", out / "variants.bed", out / "variants.json"]
    write_tsv(table, files[0])
    _write_bed(table, files[1])
    recorded = {k: v for k, v in (metadata or {}).items() if k in _MODEL_KEYS}
    parameters = {"options": dict(asdict(options), random_state=seed, fmt=output.fmt),  # in the fields' order
                  "model": {"kind": kind, "source": model_source, "width": width, "metadata": recorded},
                  "vcf": str(vcf), "genome": str(genome), "regions": None if regions is None else str(
                      regions if not isinstance(regions, pd.DataFrame) else regions.attrs.get("source", "table")),
                  "variants": len(kept), "rows": len(table), "windows": len(used),
                  "null_substitutions": int(null.size), "skipped": {**variants.attrs.get("skipped", {}),
                                                                    **placed.dropped},
                  "versions": versions()}
    write_summary(files[2], json_ready(parameters))
    files.append(_delta_figure(table, null, out / f"variants_delta.{output.fmt}", options.top))
    top = _top_rows(table, options.top)
    if top.size:
        files.append(_top_figure(inner, table, effects, codes, placed, used, top,
                                 out / f"top_variants.{output.fmt}"))
    run = VariantRun(table, null, parameters, files)
    run.files.append(_report(out, run, top, width))
    _log_skipped(parameters["skipped"])
    return run


def _log_skipped(skipped):
    said = {"no_alt": "with ALT '.'", "outside_regions": "outside the regions (--skip-outside)",
            "mismatch": "whose REF differs from the genome (--skip-mismatch)",
            "outside": "in no window (--skip-outside)", "off_chromosome": "whose window runs off the chromosome",
            "ambiguous_base": "whose window holds N"}
    for key, n in skipped.items():
        if n:
            logger.warning(f"{n:,} variant record{'s' if n > 1 else ''} {said.get(key, key)} left out")


def _top_rows(table, n) -> np.ndarray:
    """Rows of the ``n`` largest |delta|, ties in file order."""
    return np.argsort(-np.abs(table["delta"].to_numpy(np.float64)), kind="stable")[:n]


def _write_bed(table, path) -> None:
    """BED6: the REF span of each row, name = ID (or chrom:pos:ref>alt), score = |delta| scaled to 0..1000."""
    from ..io import write_bed

    start = table["pos"].to_numpy(np.int64) - 1
    names = [vid if vid not in (".", "") else f"{c}:{p}:{r}>{a}"
             for vid, c, p, r, a in zip(table["id"], table["chrom"], table["pos"], table["ref"], table["alt"])]
    write_bed(pd.DataFrame({"chrom": table["chrom"], "start": start,
                            "end": start + table["ref"].str.len().to_numpy(np.int64),
                            "name": pd.Series(names, dtype=object), "score": table["delta"].abs(),
                            "strand": "."}), path)


def _delta_figure(table, null, path, top) -> Path:
    import matplotlib.pyplot as plt

    from ..plot import delta_distribution

    ax = delta_distribution(table, null, top=top)
    ax.figure.tight_layout()
    save_figure(ax.figure, path, dpi=110)
    plt.close(ax.figure)
    return path


def _top_figure(model, table, effects, codes, placed, used, top, path) -> Path:
    """Per-base importance of the windows of the top variants, with ref and with alt."""
    import matplotlib.pyplot as plt

    from ..importance._variant_table import alt_window, single_base_change
    from ..importance._variants import base_importance
    from ..plot import variant_importance

    refs, alts = [], []
    for i in top:
        w = int(effects["window"][i])
        ref_row = codes[w]
        ref, alt, offset = effects["ref"][i], effects["alt"][i], int(effects["offset"][i])
        snv = single_base_change(ref, alt)
        if snv is not None:
            alt_row = ref_row.copy()
            alt_row[offset + snv[0]] = snv[1]
        else:
            alt_row = alt_window(ref_row, placed.left[used[w]], placed.right[used[w]], offset, ref, alt)
        refs.append(ref_row)
        alts.append(alt_row)
    imp_ref = base_importance(model, np.stack(refs))
    imp_alt = base_importance(model, np.stack(alts))
    fig, axes = plt.subplots(len(top), 1, figsize=(8, 2.2 * len(top)), squeeze=False)
    for ax, i, r, a in zip(axes[:, 0], top, imp_ref, imp_alt):
        row = table.iloc[int(i)]
        title = (f"{row['chrom']}:{row['pos']} {row['ref']}>{row['alt']} ({row['id']}) in {row['window']}: "
                 f"delta {row['delta']:.4g}, p {row['p_value']:.3g}")
        variant_importance(r, a, offset=int(effects["offset"][i]), ref_length=len(effects["ref"][i]), title=title,
                           ax=ax)
    fig.tight_layout()
    save_figure(fig, path, dpi=100)
    plt.close(fig)
    return path


def _report(out, run, top, width) -> Path:
    table = run.table
    if top.size:
        best = table.iloc[int(top[0])]
        lead = (f"<p><b>{html.escape(str(best['chrom']))}:{best['pos']} {html.escape(str(best['ref']))}&gt;"
                f"{html.escape(str(best['alt']))}</b> ({html.escape(str(best['id']))}) changes the score most: "
                f"delta {best['delta']:.4g} (p {best['p_value']:.3g} against every substitution of the "
                f"{run.parameters['windows']:,} windows); {int((table['p_value'] <= 0.01).sum())} of "
                f"{len(table):,} rows at p &le; 0.01.</p>")
    else:
        lead = "<p>No variant to show.</p>"
    sections = [("Delta distribution", Path(run.files[3]), "deltas of the variants (red) over those of every "
                                                            "possible substitution of the same windows (grey)")]
    if top.size:
        sections.append(("Top variants: per-base importance with ref and alt", Path(run.files[4]),
                         "the window's per-base importance with the reference allele (grey) and the alternative "
                         "(red); the variant shaded"))
        sections.append(("Top variants", page_table(table.iloc[top], limit=len(top))))
    sections.append(("All variants", page_table(table, limit=200)))
    model = run.parameters["model"]
    summary = {"model": f"{model['kind']} ({model['source']})" if model["source"] else model["kind"],
               "window": f"{width} nt", "variants": run.parameters["variants"], "rows (variant x window)": len(table),
               "windows": run.parameters["windows"], "substitutions in the null": run.parameters["null_substitutions"]}
    return write_page(out, title="seqimp variants", lead=lead, summary=summary, sections=sections,
                      files=[Path(p).name for p in run.files])
