"""Tests of seqimp.pipeline._poim_run: training/evaluation, backgrounds, full runs.

Fixture: tests/data/planted_{pos,neg}.fa, 100 + 100 random 30-nt sequences; the positives
carry GATTACA at 1-based positions 11-17 (one random base replaced in ~20% of them).
"""

import json
import logging
import warnings
from pathlib import Path

import numpy as np
import pytest
from sklearn.model_selection import train_test_split

from seqimp.background import MarkovBackground
from seqimp.errors import SeqimpError
from seqimp._utils.tables import write_tsv
from seqimp.io import read_fasta
from seqimp.importance._poim_plan import check_lengths
from seqimp.pipeline import _outputs
from seqimp.background._poim_background import make_background
from seqimp.importance._poim_job import check_job, compute_importance
from seqimp.options import BackgroundOptions, ImportanceOptions, ModelOptions, OutputOptions
from seqimp.pipeline import run_model, run_poim, run_sampled
from seqimp.pipeline._outputs import top_oligomers
from seqimp.training import load_model, train_model
from seqimp.training._classifier import evaluate
from seqimp.importance import load_poim
from seqimp.kernels import PositionalWeights

DATA = Path(__file__).resolve().parent / "data"


@pytest.fixture(scope="module")
def planted():
    return read_fasta(DATA / "planted_pos.fa"), read_fasta(DATA / "planted_neg.fa")


@pytest.fixture(scope="module")
def trained(planted):
    pos, neg = planted
    return train_model(pos, neg, model=ModelOptions(degree=2), random_state=0)


def test_evaluate_matches_pair_counting():
    scores = np.array([0.5, -0.2, 0.1, -1.0, 0.3, 0.3])
    y = np.array([1, 1, 0, 0, 1, 0])
    pos, neg = scores[y == 1], scores[y == 0]
    auc = np.mean([1.0 if p > n else 0.5 if p == n else 0.0 for p in pos for n in neg])
    out = evaluate(scores, y)
    assert out == {"n_test": 6, "accuracy": pytest.approx(3 / 6), "auroc": pytest.approx(auc)}


def test_train_model_reports_held_out_metrics_of_the_returned_model(planted, trained):
    pos, neg = planted
    weights, info = trained
    assert isinstance(weights, PositionalWeights) and weights.degree == 2 and weights.length == 30
    assert info["n_train"] == 160 and info["n_test"] == 40
    # recompute the same stratified split and score the held-out part with the unfolded weights
    X = np.concatenate([pos.codes, neg.codes])
    y = np.r_[np.ones(100), np.zeros(100)]
    _, X_test, _, y_test = train_test_split(X, y, test_size=0.2, stratify=y, random_state=0)
    expected = evaluate(weights.score(X_test), y_test)
    assert info["accuracy"] == pytest.approx(expected["accuracy"])
    assert info["auroc"] == pytest.approx(expected["auroc"])
    assert info["auroc"] > 0.9


def test_train_classifier_without_weights_gives_the_same_held_out_figures(planted, trained):
    """weights=False (a fit made for its held-out figures): no weights unfolded, the same info."""
    from seqimp.training import train_classifier

    pos, neg = planted
    X = np.concatenate([pos.codes, neg.codes])
    y = np.r_[np.ones(100), np.zeros(100)].astype(int)
    none, info = train_classifier(X, y, model=ModelOptions(degree=2), random_state=0, weights=False)
    assert none is None
    keys = ("n_train", "n_test", "accuracy", "auroc", "passes", "converged")
    assert {k: info.get(k) for k in keys} == {k: trained[1].get(k) for k in keys}


def test_keep_start_gives_the_next_fit_its_dual_variables(planted):
    """keep_start: after a split, the held-out start (the split fit's dual variables on its rows,
    C or 0 on the held-out rows by their margin); without one, the fit's own. A fit started
    there reaches the cold fit's optimum (liblinear's rule at tol 1e-8; 1e-9 relative)."""
    from seqimp.training import train_classifier
    from seqimp.training._classifier import held_out_split

    pos, neg = planted
    X = np.concatenate([pos.codes, neg.codes])
    y = np.r_[np.ones(100), np.zeros(100)].astype(int)
    model = ModelOptions(degree=2)
    _none, held = train_classifier(X, y, model=model, random_state=0, weights=False, keep_start=True)
    start = held.pop("alpha_start")
    train, test = held_out_split(y, model.test_fraction, 0)
    assert start.shape == (200,) and set(np.unique(start[test])) <= {0.0, model.C}
    assert (start[train] > 0).any() and (start >= 0).all() and (start <= model.C).all()
    from seqimp.kernels import WDClassifier

    cold = WDClassifier(degree=2, tol=1e-8, random_state=0).fit(X, y)
    warm = WDClassifier(degree=2, tol=1e-8, random_state=0).fit(X, y, alpha_init=start)
    assert warm.dual_objective_ == pytest.approx(cold.dual_objective_, rel=1e-9)
    full = ModelOptions(degree=2, test_fraction=0.0)
    _w, info = train_classifier(X, y, model=full, random_state=0, keep_start=True)
    same = WDClassifier(degree=2, random_state=0).fit(X, y)  # train_classifier's fit
    np.testing.assert_array_equal(info["alpha_start"], np.abs(same.dual_coef_))
    shifted, info = train_classifier(X, y, model=ModelOptions(degree=2, shifts=1, test_fraction=0.0),
                                     random_state=0, keep_start=True, alpha_init=start)
    assert info["alpha_start"] is None  # the WDS kernel route has no such start, and ignores one


def test_train_model_warns_when_the_model_is_close_to_chance(planted):
    rng = np.random.default_rng(0)
    noise = rng.integers(0, 4, size=(200, 30)).astype(np.uint8)
    with pytest.warns(UserWarning, match=r"the model is close to chance \(held-out auROC 0\.\d+ < 0\.6\)"):
        _, info = train_model(noise[:100], noise[100:], model=ModelOptions(degree=2), random_state=0)
    assert info["auroc"] < 0.6
    pos, neg = planted
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        train_model(pos, neg, model=ModelOptions(degree=2), random_state=0)  # a good model: no warning


def test_train_model_bad_input(planted):
    pos, neg = planted
    with pytest.raises(SeqimpError, match=r"positive sequences have length 30 but negative ones 20"):
        train_model(pos, neg.codes[:, :20], model=ModelOptions(degree=2))
    with pytest.raises(SeqimpError, match=r"too few sequences \(2 positive, 1 negative\)"):
        train_model(pos.codes[:2], neg.codes[:1], model=ModelOptions(degree=2))
    with pytest.raises(SeqimpError, match=r"negative: no sequences"):
        train_model(pos, np.zeros((0, 30), dtype=np.uint8), model=ModelOptions(degree=2))


def test_backgrounds(planted):
    pos, neg = planted
    uniform, text = make_background("uniform", length=30)
    np.testing.assert_allclose(uniform.marginal(2, 5), np.full(16, 1 / 16))
    assert "uniform" in text
    fitted, text = make_background("negative", negative=neg, order=1, positional=True)
    reference = MarkovBackground(order=1, positional=True).fit(neg.codes)
    for j in (0, 13, 28):
        np.testing.assert_allclose(fitted.marginal(2, j), reference.marginal(2, j))
    assert text == "order-1 position-specific Markov chain fitted on the negative sequences (100 sequences)"
    both, _ = make_background("all", positive=pos, negative=neg)
    reference = MarkovBackground(order=0).fit(np.concatenate([pos.codes, neg.codes]))
    np.testing.assert_allclose(both.marginal(1, 0, length=30), reference.marginal(1, 0, length=30))
    with pytest.raises(SeqimpError, match=r"background must be one of uniform, negative, all, got 'x'"):
        make_background("x", negative=neg)
    with pytest.raises(SeqimpError, match=r"background sequences have length 30, the model expects 31"):
        make_background("negative", negative=neg, length=31)


def test_memory_refusal_is_passed_through(trained):
    weights, _ = trained
    with pytest.raises(SeqimpError, match=r"even one position per block needs about .*, more than max_memory=1000 B \(1000 bytes\)"):
        compute_importance(weights, MarkovBackground.uniform(), max_order=6, max_memory=1000)


def test_run_poim_writes_everything_and_finds_the_motif(tmp_path, planted):
    pos, neg = planted
    run = run_poim(tmp_path, pos, neg, model=ModelOptions(degree=2), importance=ImportanceOptions(max_order=3),
                   output=OutputOptions(top=5), random_state=0)
    names = sorted(p.name for p in tmp_path.iterdir())
    assert names == sorted(["top_oligomers.tsv", "differential_poim.png", "maximal_poim.png", "poim_order1.png", "poim_order2.png",
                            "poim_order3.png", "weights_vs_firm.png", "poim.npz", "model.npz", "summary.json",
                            "report.html"])
    assert sorted(p.name for p in run.files) == names
    loaded = load_poim(tmp_path / "poim.npz")  # the summaries: full tables for k <= 4
    for k in (1, 2, 3):
        np.testing.assert_array_equal(loaded.firm[k - 1], run.result.firm[k - 1])
    assert (tmp_path / "top_oligomers.tsv").read_text() == write_tsv(top_oligomers(run.result, 5))
    summary = run.summary
    assert summary["metrics"]["n_test"] == 40 and summary["data"]["n_positive"] == 100
    assert set(summary["timings"]) == {"train", "poim", "outputs"}
    # what was written and its size: every file but the summary and the report, measured on disk
    recorded = summary["files"]["bytes"]
    assert set(recorded) == set(names) - {"summary.json", "report.html"}
    assert all(recorded[name] == (tmp_path / name).stat().st_size for name in recorded)
    assert summary["files"]["total"] == sum(recorded.values())
    # the best 3-mer lies inside the planted GATTACA at 11-17
    best3 = next(r for r in summary["top_per_order"] if r["order"] == 3)
    assert best3["oligomer"] in "GATTACA" and 11 <= best3["position"] <= 15
    # the saved model reproduces the analysis
    weights, meta = load_model(tmp_path / "model.npz")
    assert meta["degree"] == 2 and meta["n_train"] == 160
    (tmp_path / "again").mkdir()
    again = run_model(tmp_path / "again", weights, negative=neg, importance=ImportanceOptions(max_order=3))
    np.testing.assert_allclose(again.result.poim[2], run.result.poim[2], rtol=1e-12, atol=1e-12)
    assert again.summary["metrics"]["evaluated_on"] == "held-out split at training time"


def test_run_sampled_outputs(tmp_path, planted):
    pos, neg = planted
    motif = np.array([2, 0, 3, 3, 0, 1, 0])

    def score(X):
        return (X[:, 10:17] == motif).sum(axis=1).astype(float)

    run = run_sampled(tmp_path, score, source="test scorer", positive=pos, negative=neg,
                      importance=ImportanceOptions(max_order=1, n_samples=40), random_state=0)
    names = {p.name for p in tmp_path.iterdir()}
    assert "weights_vs_firm.png" not in names and "model.npz" not in names
    assert {"top_oligomers.tsv", "poim.npz", "report.html", "poim_order1.png", "summary.json"} <= names
    assert run.summary["metrics"]["accuracy"] is None and run.summary["metrics"]["auroc"] > 0.9
    # planting a motif letter at its position raises this score by exactly 3/4 (uniform letters would give 1/4)
    best = run.summary["top_per_order"][0]
    assert 11 <= best["position"] <= 17
    assert best["oligomer"] == "GATTACA"[best["position"] - 11]
    with pytest.raises(SeqimpError, match=r"sequence length is unknown"):
        run_sampled(tmp_path, score, background=BackgroundOptions(kind="uniform"))


def test_check_job_refuses_before_training_with_the_engine_messages():
    with pytest.raises(SeqimpError, match=r"max_order must lie in 1\.\.30 \(the sequence length\), got 31"):
        check_job(30, degree=2, max_order=31)
    with pytest.raises(SeqimpError, match=r"background: order 30 needs sequences longer than 30"):
        check_job(30, degree=2, max_order=3, background_order=30)
    with pytest.raises(SeqimpError, match=r"even one position per block needs about .*, more than max_memory=1000 B \(1000 bytes\)"):
        check_job(30, degree=2, max_order=3, max_memory=1000)
    with pytest.raises(SeqimpError,
                       match=r"position-specific background has length 20, but the weights have length 30"):
        check_lengths(30, max_order=3, background_length=20)
    check_job(30, degree=2, max_order=3)  # fits: no error
    check_lengths(30, max_order=30)  # lengths only, no memory check


def test_run_poim_refuses_a_job_before_training(tmp_path, planted, caplog):
    pos, neg = planted
    with caplog.at_level(logging.INFO, logger="seqimp"):
        with pytest.raises(SeqimpError, match=r"max_order must lie in 1\.\.30"):
            run_poim(tmp_path, pos, neg, model=ModelOptions(degree=2), importance=ImportanceOptions(max_order=31))
    assert "training" not in caplog.text
    assert list(tmp_path.iterdir()) == []


def test_run_poim_logs_each_step_and_writes_the_summary_once(tmp_path, planted, caplog, monkeypatch):
    pos, neg = planted
    written = []
    real = _outputs.write_summary
    monkeypatch.setattr("seqimp.pipeline._poim_run.write_summary",
                        lambda path, summary: (written.append(path), real(path, summary)))
    with caplog.at_level(logging.INFO, logger="seqimp"):
        run = run_poim(tmp_path, pos.codes, neg.codes, model=ModelOptions(degree=2),
                       importance=ImportanceOptions(max_order=2), output=OutputOptions(top=3), random_state=0)
    assert written == [tmp_path / "summary.json"]
    messages = [r.getMessage() for r in caplog.records if r.name.startswith("seqimp")]
    assert messages[0] == "training a WD classifier (degree 2, shifts 0, C 1) on 160 sequences of length 30"
    assert messages[1].startswith("solver: the exact route (dual coordinate descent), auto: 160 training sequences, "
                                  "fewer than 50,000; ")
    assert messages[2].startswith("held-out accuracy ")
    assert messages[3:] == ["computing POIM and FIRM up to order 2 for L = 30",
                            "writing tables, figures and the report (png)"]
    on_disk = json.loads((tmp_path / "summary.json").read_text())
    assert set(on_disk["timings"]) == {"train", "poim", "outputs"}
    assert on_disk["timings"] == pytest.approx(run.summary["timings"])
    assert on_disk["data"] == {"length": 30, "positive": "positive sequences", "n_positive": 100,
                               "negative": "negative sequences", "n_negative": 100}


def test_options_are_checked_when_made_and_frozen():
    import dataclasses

    from seqimp.options import MotifOptions

    with pytest.raises(SeqimpError, match=r"^degree must be a positive integer, got 0$"):
        ModelOptions(degree=0)
    with pytest.raises(SeqimpError, match=r"^test_fraction must be a number in \[0, 1\), got 1$"):
        ModelOptions(test_fraction=1)
    with pytest.raises(SeqimpError, match=r"^C must be a number in \(0, inf\), got 0$"):
        ModelOptions(C=0)
    with pytest.raises(SeqimpError, match=r"^background must be one of uniform, negative, all, got 'x'$"):
        BackgroundOptions(kind="x")
    with pytest.raises(SeqimpError, match=r"^order must be an integer >= 0, got -1$"):
        BackgroundOptions(order=-1)
    with pytest.raises(SeqimpError, match=r"^max_memory must be a size such as 4G"):
        ImportanceOptions(max_memory="4 lots")
    with pytest.raises(SeqimpError, match=r"^strand must be one of 'given', 'both', got 'minus'$"):
        MotifOptions(strand="minus")
    with pytest.raises(SeqimpError, match=r"^fpr must lie in \(0, 1\), got 0$"):
        MotifOptions(fpr=0)
    with pytest.raises(SeqimpError, match=r"^figure format must be png, svg or pdf, got 'gif'$"):
        OutputOptions(fmt="gif")
    with pytest.raises(TypeError):
        ModelOptions(6)  # keyword-only
    with pytest.raises(dataclasses.FrozenInstanceError):
        ModelOptions().degree = 3
    assert ImportanceOptions(max_order=np.int64(4)).max_order == 4
    assert type(ImportanceOptions(max_order=4.0).max_order) is int
    assert ModelOptions() == ModelOptions(degree=8, shifts=0, C=1.0, alpha=1.0, test_fraction=0.2)


def test_the_sequences_are_encoded_once_per_run(tmp_path, planted, monkeypatch):
    """run_poim with motifs: training, background, summary and the motif step share one encoding."""
    from seqimp.io import _labelled as _sequences
    from seqimp.options import MotifOptions

    pos, neg = planted
    encoded = []
    real = _sequences.check_sequences
    monkeypatch.setattr(_sequences, "check_sequences", lambda X, name, *a, **kw: (encoded.append(name), real(X, name, *a, **kw))[1])
    run = run_poim(tmp_path, pos, neg, model=ModelOptions(degree=2), importance=ImportanceOptions(max_order=3),
                   motifs=MotifOptions(), random_state=0)
    assert encoded == ["positive", "negative"]
    assert run.motifs is not None and run.summary["best_motif"]["consensus"] == run.motifs.table().iloc[0]["consensus"]
    assert json.loads((tmp_path / "summary.json").read_text()) == run.summary
    with pytest.raises(SeqimpError, match=r"^motifs are refined on positive and negative sequences: give both"):
        run_model(tmp_path, run.weights, negative=neg, motifs=MotifOptions())
