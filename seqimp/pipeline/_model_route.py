"""Which model a motif run explains: the positional WD/WDS model, or the position-free
gapped-k-mer (gkm) model -- chosen by the user (``--model wd|wds|gkm``) or by the run
(``--model auto``, the default).

Auto rule: the positional model is trained first, as always; when its held-out auROC is below
:data:`~seqimp.pipeline._train.CHANCE_AUROC` (0.6, the level at which the pipeline already warns
that a model is close to chance) the signal, if any, is not at fixed positions, and the motifs
come from a :class:`~seqimp.kernels.GKMClassifier` instead (its attributions, seqlets and the
common refinement: :mod:`seqimp.pipeline._gkm_motifs`). Without a held-out split
(``test_fraction`` 0) there is no held-out auROC and the positional model is kept. Between
0.6 and :data:`COMPARE_AUROC` (0.8) the positional model has learnt something, but a motif whose
place varies (importance spread over the positions) is learnt better without positions: the gkm
model is then trained on the same split, and it runs when its held-out auROC exceeds the
positional model's by :data:`MARGIN` (0.05) or more (its held-out fit is reused). From 0.8 the
positional model is kept without the comparison. The choice and
its reason are recorded (:meth:`ModelRoute.record`): ``summary.json``'s ``model_route`` of
``seqimp poim``, and ``motifs.json``'s parameters of ``seqimp motifs``.

On the gkm route ``seqimp poim`` still writes the positional model's POIM (the command's
tables), and its motifs are the gkm model's; ``seqimp motifs`` computes no POIM at all.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field

import numpy as np

from ..errors import SeqimpError
from ._options import BackgroundOptions, ImportanceOptions, ModelOptions, MotifOptions, OutputOptions
from ._train import CHANCE_AUROC, evaluate, recorded_seed

__all__ = ["MODEL_KINDS", "COMPARE_AUROC", "MARGIN", "ModelRoute", "choose_route", "train_gkm", "run_motifs_routed",
           "add_gkm_motifs"]

logger = logging.getLogger(__name__)

#: The model kinds of ``--model``: chosen by the run, WD, WDS, gapped k-mers.
MODEL_KINDS = ("auto", "wd", "wds", "gkm")

#: Held-out auROC of the positional model below which auto compares it with the gkm model.
COMPARE_AUROC = 0.8

#: How much better (held-out auROC) the gkm model must predict for auto to choose it over an
#: informative positional model.
MARGIN = 0.05

#: The stopping tolerance of the route's gkm fits (``GKMClassifier(tol=...)``): liblinear's default
#: for its dual solvers. On the ``anywhere`` set of motif_benchmark_2 the passes fell from 19
#: (``tol`` 0.01, the estimator's default) to 12 with the same best l-mers (FOXA2's, z 9.7).
ROUTE_TOL = 0.1


@dataclass
class ModelRoute:
    """The model a run explains and why.

    Attributes
    ----------
    route : {"wd", "wds", "gkm"}
        The model the motifs come from.
    requested : {"auto", "wd", "wds", "gkm"}
    reason : str
        One sentence.
    held_out : dict or None
        The positional model's held-out metrics (``train_classifier``'s info) when it was
        trained for the choice; the run reuses them instead of training it again.
    gkm_held_out : dict or None
        The gkm model's held-out metrics (:func:`train_gkm`'s info) when the choice compared
        the two; the gkm route reuses them.
    """

    route: str
    requested: str
    reason: str
    held_out: dict | None = field(default=None, repr=False)
    gkm_held_out: dict | None = field(default=None, repr=False)

    def record(self) -> dict:
        """``model_route`` as JSON: ``route, requested, reason, threshold`` and the held-out
        ``positional_auroc`` and ``gkm_auroc`` of the choice (None where not measured)."""
        auroc = None if self.held_out is None else self.held_out.get("auroc")
        gkm = None if self.gkm_held_out is None else self.gkm_held_out.get("auroc")
        return {"route": self.route, "requested": self.requested, "reason": self.reason,
                "positional_auroc": auroc, "gkm_auroc": gkm, "threshold": CHANCE_AUROC}


def check_kind(kind, shifts) -> str:
    """``kind`` checked against ``shifts`` (:class:`ModelOptions`' rule: ``wd`` has none, ``wds`` needs some)."""
    return ModelOptions(kind=kind, shifts=shifts).kind


def choose_route(requested, *, shifts=0, held_out=None, gkm_held_out=None) -> ModelRoute:
    """The route of a run (module docstring): ``held_out`` is the positional model's held-out
    info (``auroc`` None or absent without a split); not needed for an explicit kind.
    ``gkm_held_out``: a callable returning the gkm model's held-out info (:func:`train_gkm` with
    ``full=False``), called only when the positional auROC lies in [0.6, 0.8); without it there
    is no comparison."""
    requested = check_kind(requested, shifts)
    positional = "wds" if shifts else "wd"
    if requested == "gkm":
        return ModelRoute("gkm", requested, "requested (--model gkm)", held_out)
    if requested != "auto":
        return ModelRoute(requested, requested, f"requested (--model {requested})", held_out)
    auroc = None if held_out is None else held_out.get("auroc")
    name = positional.upper()
    if auroc is None:
        return ModelRoute(positional, requested, f"no held-out split (test fraction 0): the positional {name} "
                                                 "model is kept", held_out)
    if auroc < CHANCE_AUROC:
        return ModelRoute("gkm", requested, f"the positional {name} model is near chance held out (auROC "
                                            f"{auroc:.3f} < {CHANCE_AUROC}); the position-free gapped-k-mer "
                                            "model finds the motifs", held_out)
    if auroc < COMPARE_AUROC and gkm_held_out is not None:
        gkm = gkm_held_out()
        if gkm.get("auroc") is not None and gkm["auroc"] >= auroc + MARGIN:
            return ModelRoute("gkm", requested, f"the position-free gapped-k-mer model predicts better held out "
                                                f"(auROC {gkm['auroc']:.3f} against {auroc:.3f} of the positional "
                                                f"{name} model, margin {MARGIN})", held_out, gkm)
        return ModelRoute(positional, requested, f"the positional {name} model is informative held out (auROC "
                                                 f"{auroc:.3f}) and the gapped-k-mer model is not better by "
                                                 f"{MARGIN} (auROC {gkm['auroc']:.3f})", held_out, gkm)
    return ModelRoute(positional, requested, f"the positional {name} model is informative held out (auROC "
                                             f"{auroc:.3f} >= {CHANCE_AUROC})", held_out)


def train_gkm(X, y, *, model, random_state, held_out=None, full=True, alpha_init=None):
    """A :class:`~seqimp.kernels.GKMClassifier` (``model.word_length``, ``model.informative``,
    ``model.C``, ``tol`` :data:`ROUTE_TOL`) evaluated on the held-out split of ``train_classifier`` (same stratified split,
    same seed) and then trained on all sequences, which the motifs come from. The fit on all
    sequences starts from the held-out fit's dual variables and the held-out rows' margins
    (:func:`held_out_start`, ``alpha_init`` of :meth:`~seqimp.kernels.GKMClassifier.fit`: the
    same optimum in fewer passes), or from
    ``alpha_init`` when given (an earlier round's model on the same sequences, masked); a fit
    with nothing to start from starts with every dual variable at ``C``, its upper bound: the
    gkm route runs where the positional model is near chance or weak, and on such data most
    sequences end inside the margin, at ``C`` (68% on the ``anywhere`` set of
    motif_benchmark_2, 39% on ``few``). The optimum is the same; the held-out fit on
    ``anywhere`` took 10 passes (14,885 coordinate visits) from there instead of 13 (20,594)
    from 0, on ``few`` 1,398 visits instead of 1,831.

    ``held_out``: that evaluation already made (a route's ``gkm_held_out``), reused;
    ``full=False``: the evaluation only (no model, info without the timings).

    Returns
    -------
    gkm : GKMClassifier or None
        Trained on all of ``X`` (None with ``full=False``).
    info : dict
        ``n_train, n_test, accuracy, auroc`` (held out; None without a split) and
        ``train_seconds`` (the fit on all sequences) and ``seconds_per_1000`` (of that fit).
    """
    from sklearn.model_selection import train_test_split

    from ..kernels import GKMClassifier
    from ._train import _split_seed

    def fit(X, y, alpha_init=None):
        if alpha_init is None:  # every dual variable at C (docstring)
            alpha_init = np.full(len(y), float(model.C))
        return GKMClassifier(model.word_length, model.informative, C=model.C, tol=ROUTE_TOL,
                             random_state=recorded_seed(random_state)).fit(X, y, alpha_init=alpha_init)

    info = {"n_train": int(len(y)), "n_test": 0, "accuracy": None, "auroc": None}
    if held_out is not None:
        info = dict(held_out)
    elif model.test_fraction > 0:
        # the split of train_test_split(X, y, ...) depends on y and the seed only: split indices
        train, test = train_test_split(np.arange(len(y)), test_size=model.test_fraction, stratify=y,
                                       random_state=_split_seed(random_state))
        held = fit(X[train], y[train])
        decision = held.decision_function(X[test])
        info.update(evaluate(decision, y[test]), n_train=int(len(train)))
        if alpha_init is None:
            alpha_init = held_out_start(held, train, test, decision, y)
        logger.info(f"gkm classifier (l {model.word_length}, k {model.informative}): held-out accuracy "
                    f"{info['accuracy']:.3f}, auROC {info['auroc']:.3f} on {info['n_test']} sequences")
    if not full:
        return None, info
    logger.info(f"training the gkm classifier on all {len(y)} sequences (l {model.word_length}, "
                f"k {model.informative}, C {model.C:g})")
    start = time.perf_counter()
    gkm = fit(X, y, alpha_init)
    info["train_seconds"] = time.perf_counter() - start
    info["seconds_per_1000"] = info["train_seconds"] * 1000.0 / len(y)
    logger.info(f"gkm classifier trained in {info['train_seconds']:.1f} s ({gkm.n_iter_} passes"
                + (", from the dual variables of an earlier fit)" if alpha_init is not None
                   else ", from every dual variable at C)"))
    return gkm, info


def held_out_start(held, train, test, decision, y) -> np.ndarray:
    """Dual variables to start the fit on all sequences from (``alpha_init``), shape (n,): the
    held-out fit's on its training rows; on the held-out rows the bound their margin under the
    held-out model points to -- ``C`` where ``y f(x) < 1`` (the hinge is active: a dual variable
    at the optimum is ``C`` for a point inside the margin), else 0. Only the start: the optimum
    is the same. On the ``anywhere`` set of motif_benchmark_2 (held-out auROC 0.51) the fit on
    all sequences took 9 passes (17,977 coordinate visits) from it instead of 11 (21,525) with
    the held-out rows at 0."""
    sign = np.where(y[test] == held.classes_[1], 1.0, -1.0)
    alpha = np.zeros(len(y))
    alpha[train] = np.abs(held.dual_coef_)
    alpha[test] = np.where(sign * decision < 1.0, float(held.C), 0.0)
    return alpha


def _gkm_parameters(model, info, route, random_state) -> dict:
    return {"model": "gkm", "word_length": model.word_length, "informative": model.informative, "C": model.C,
            "test_fraction": model.test_fraction, "seed": recorded_seed(random_state),
            "gkm_metrics": {k: info[k] for k in ("n_train", "n_test", "accuracy", "auroc", "train_seconds",
                                                 "seconds_per_1000")},
            "model_route": route.record()}


def run_motifs_routed(out, *, poim=None, positive=None, negative=None, model=ModelOptions(),
                      background=BackgroundOptions(), importance=ImportanceOptions(), motifs=MotifOptions(),
                      output=OutputOptions(), random_state=None):
    """:func:`~seqimp.pipeline.run_motifs` with the model route of ``model.kind`` (module docstring).

    With ``poim`` (no training) or a positional route this is ``run_motifs`` (on the auto route
    the held-out model trained for the choice is reused, and ``motifs.json`` records
    ``model_route``). On the gkm route a :class:`~seqimp.kernels.GKMClassifier` is trained
    (:func:`train_gkm`), its motifs found (:func:`~seqimp.pipeline._gkm_motifs.find_gkm_motifs`)
    and explained away round after round as on the positional route (up to ``motifs.rounds``:
    :func:`~seqimp.pipeline._gkm_motifs.gkm_explain_away`), and written like ``run_motifs``' (no
    ``motifs_poim.npz``: there is no POIM). Parameters as ``run_motifs``.

    Returns
    -------
    MotifRun
    """
    from ._motif_files import update_report, write_motif_run
    from ._motif_run import run_motifs
    from ._poim_routes import check_job
    from ._sequences import encode_sequences
    from ._train import train_classifier

    kind = check_kind(model.kind, model.shifts)
    common = dict(background=background, importance=importance, motifs=motifs, output=output,
                  random_state=random_state)
    if poim is not None:
        if kind == "gkm":
            raise SeqimpError("model kind 'gkm' trains a gapped-k-mer model on the sequences; it does not start "
                              "from a POIM (leave out the POIM, or use kind 'auto' or 'wd')")
        return run_motifs(out, poim=poim, positive=positive, negative=negative, model=model, **common)
    data = encode_sequences(positive, negative, "dna")
    if not data.both:
        return run_motifs(out, positive=positive, negative=negative, model=model, **common)  # its own error
    X, y = data.labelled()
    held = None
    if kind != "gkm":
        check_job(data.length, degree=model.degree, max_order=importance.order(model.degree),
                  background_order=background.order, max_memory=importance.max_memory)
        if model.test_fraction > 0:
            _w, held = train_classifier(X, y, model=model, random_state=0 if random_state is None else random_state,
                                        progress=output.progress, max_memory=importance.max_memory)
    route = choose_route(kind, shifts=model.shifts, held_out=held,
                         gkm_held_out=lambda: train_gkm(X, y, model=model, random_state=random_state, full=False)[1])
    logger.info(f"model route: {route.route} ({route.reason})")
    if route.route != "gkm":
        return run_motifs(out, positive=positive, negative=negative, model=model, route=route, **common)
    from ._gkm_motifs import find_gkm_motifs, gkm_explain_away
    from ._motifs import with_database_loaded

    motifs = with_database_loaded(motifs)
    gkm, info = train_gkm(X, y, model=model, random_state=random_state, held_out=route.gkm_held_out)
    run = find_gkm_motifs(gkm, data, options=motifs, match=False, random_state=random_state)
    run = gkm_explain_away(run, data, model=model, options=motifs, random_state=random_state, fitted=gkm)
    run.parameters.update(_gkm_parameters(model, info, route, random_state), trained=True)
    run.files = write_motif_run(out, run, database=motifs.database, fmt=output.fmt, with_poim=False,
                                homer=motifs.homer)
    update_report(out, run)
    return run


def add_gkm_motifs(out, summary, sequences, *, model, options, route, fmt="png", random_state=None):
    """The gkm route of ``seqimp poim`` (:func:`~seqimp.pipeline.run_poim`): after the positional
    model's outputs are written into ``out`` (without motifs), train the gkm model, find its
    motifs and write them, then record them and ``model_route`` in ``summary.json`` and the
    report (:func:`~seqimp.pipeline.update_report`). ``summary`` is the run's summary (updated
    in place with the written one).

    Returns
    -------
    MotifRun
    """
    import json
    from pathlib import Path

    from ._gkm_motifs import find_gkm_motifs
    from ._motif_files import update_report, write_motif_run
    from ._motifs import with_database_loaded

    options = with_database_loaded(options)
    X, y = sequences.labelled()
    gkm, info = train_gkm(X, y, model=model, random_state=random_state, held_out=route.gkm_held_out)
    run = find_gkm_motifs(gkm, sequences, options=options, random_state=random_state)
    run.parameters.update(_gkm_parameters(model, info, route, random_state), trained=False,
                          poim="none: the motifs are the gkm model's")
    run.files = write_motif_run(out, run, database=options.database, fmt=fmt, homer=options.homer)
    update_report(out, run, announce=False)
    summary.clear()
    summary.update(json.loads((Path(out) / "summary.json").read_text()))
    return run

