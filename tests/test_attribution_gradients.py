"""Attributions of a model on sequences: gradient x input (torch modules, linear scikit-learn models)
against closed forms, finite differences and in-silico mutagenesis; seqimp motifs with
--sklearn-model and --torch-model."""

from __future__ import annotations

import numpy as np
import pytest

from seqimp.cli import main
from seqimp.errors import SeqimpError
from seqimp.importance._attributions import gradient_attributions, ism_attributions, onehot_rows
from seqimp.scorers import ModelScorer, onehot

SITE = [3, 2, 0, 1, 3, 1, 0]  # TGACTCA


def _codes(n=60, length=30, seed=0):
    return np.random.default_rng(seed).integers(0, 4, size=(n, length)).astype(np.uint8)


def _linear_model(length=30, seed=1):
    """A logistic regression on one-hot features (decision_function is linear in them)."""
    from sklearn.linear_model import LogisticRegression

    rng = np.random.default_rng(seed)
    X = rng.integers(0, 4, size=(200, length))
    y = (X[:, 5] == 2) ^ (rng.random(200) < 0.2)
    return LogisticRegression(max_iter=500).fit(onehot(X), y)


def test_gradient_x_input_of_a_linear_model_is_its_centred_coefficients_and_equals_ism():
    model = _linear_model()
    scorer = ModelScorer(model)
    codes = _codes()
    ohe, hyp = gradient_attributions(scorer, codes, batch_size=7)
    w = model.coef_.reshape(30, 4)
    expected = w - w.mean(axis=1, keepdims=True)  # closed form: the same at every sequence
    np.testing.assert_allclose(hyp, np.broadcast_to(expected, hyp.shape), rtol=0, atol=1e-12)
    np.testing.assert_array_equal(ohe, np.eye(4, dtype=np.float32)[codes])
    ism_ohe, ism_hyp = ism_attributions(scorer, codes)
    np.testing.assert_array_equal(ism_ohe, ohe)
    np.testing.assert_allclose(ism_hyp, hyp, rtol=0, atol=1e-9)  # linear: centred ISM = centred gradient
    # the contribution of each sequence is its score minus the mean over all letters, summed
    contribution = (ohe * hyp).sum(axis=(1, 2))
    np.testing.assert_allclose(contribution, scorer(codes) - model.intercept_[0] - w.mean(axis=1).sum(), atol=1e-9)


def test_an_unknown_base_has_no_contribution_and_its_letters_keep_the_gradient():
    model = _linear_model()
    codes = _codes(5)
    codes[2, 7] = 4  # N
    ohe, hyp = gradient_attributions(ModelScorer(model), codes)
    assert ohe[2, 7].sum() == 0 and (ohe * hyp)[2, 7].sum() == 0
    w = model.coef_.reshape(30, 4)
    np.testing.assert_allclose(hyp[2, 7], w[7] - w[7].mean(), atol=1e-12)
    np.testing.assert_array_equal(onehot_rows(np.array([[0, 4, 3]])), [[[1, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 1]]])


def test_a_nonlinear_or_pipeline_sklearn_model_has_no_gradient():
    from sklearn.ensemble import RandomForestClassifier
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    rng = np.random.default_rng(0)
    X = rng.integers(0, 4, size=(80, 30))
    y = X[:, 3] == 1
    for model in (RandomForestClassifier(n_estimators=3, random_state=0).fit(onehot(X), y),
                  make_pipeline(StandardScaler(), _linear_model().__class__(max_iter=200)).fit(onehot(X), y)):
        with pytest.raises(SeqimpError, match="ISM"):
            gradient_attributions(ModelScorer(model), _codes(3))


class _Scaled:
    """A linear model whose coef_ does not give its decision (so not linear in the one-hot features
    as coef_ says): the check of the model's own scores refuses it."""

    def __init__(self, model):
        self.model, self.coef_, self.intercept_ = model, model.coef_, model.intercept_
        self.n_features_in_ = model.n_features_in_

    def decision_function(self, X):
        return 2.0 * self.model.decision_function(X)


def test_a_model_whose_coefficients_do_not_give_its_scores_is_refused():
    with pytest.raises(SeqimpError, match="linear"):
        gradient_attributions(ModelScorer(_Scaled(_linear_model())), _codes(4))


def _planted_fasta(tmp_path, n=240, length=50, seed=0):
    rng = np.random.default_rng(seed)
    codes = rng.integers(0, 4, size=(n, length))
    for i in range(0, n, 2):
        p = int(rng.integers(0, length - 7))
        codes[i, p:p + 7] = SITE if rng.random() < 0.5 else [3 - x for x in SITE[::-1]]
    (tmp_path / "pos.fa").write_text("".join(f">s{i}\n" + "".join("ACGT"[c] for c in row) + "\n"
                                            for i, row in enumerate(codes)))
    return codes


def test_motifs_of_a_linear_sklearn_model_by_gradient_and_by_ism_are_the_same(tmp_path):
    """--sklearn-model: ISM by default, gradient x input on request; for a linear model the same map."""
    import joblib
    from sklearn.linear_model import Ridge

    codes = _planted_fasta(tmp_path)
    w = np.random.default_rng(5).normal(0, 0.02, size=(50, 4))
    pwm = np.log2(np.where(np.eye(4)[SITE] > 0, 0.85, 0.05) / 0.25)
    for p in range(0, 43, 6):  # a linear model that reads the site at several offsets, both strands
        w[p:p + 7] += pwm * 0.4
        w[p:p + 7] += pwm[::-1, ::-1] * 0.4
    model = Ridge().fit(np.eye(200), np.zeros(200))  # then set to the planted weights
    model.coef_, model.intercept_, model.n_features_in_ = w.reshape(-1), 0.0, 200
    joblib.dump(model, tmp_path / "m.joblib")
    runs = {}
    for how in ("ism", "gradient"):
        out = tmp_path / how
        assert main(["motifs", "--sklearn-model", str(tmp_path / "m.joblib"), "--positive", str(tmp_path / "pos.fa"),
                     "--attribution", how, "--out", str(out), "-q"]) == 0
        with np.load(out / "attributions.npz") as saved:
            runs[how] = (saved["sequences"], saved["attributions"], str(saved["method"]))
    assert runs["ism"][2] == "ism" and runs["gradient"][2] == "gradient"
    np.testing.assert_array_equal(runs["ism"][0], runs["gradient"][0])
    np.testing.assert_allclose(runs["ism"][1], runs["gradient"][1], rtol=0, atol=1e-9)
    assert runs["ism"][0].shape == (240, 4, 50)
    assert np.array_equal(runs["ism"][0].transpose(0, 2, 1).argmax(axis=2), codes)


def test_gradient_of_a_model_without_one_is_one_line_exit_2(tmp_path, capsys):
    _planted_fasta(tmp_path, n=10)
    (tmp_path / "score.py").write_text("import numpy as np\ndef score(codes):\n    return np.zeros(len(codes))\n")
    status = main(["motifs", "--scorer", f"{tmp_path}/score.py:score", "--positive", str(tmp_path / "pos.fa"),
                   "--attribution", "gradient", "--out", str(tmp_path / "out")])
    assert status == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--attribution gradient" in err[0] and "ISM" in err[0], err
    assert not (tmp_path / "out").exists()


def test_ism_of_sequences_with_an_unknown_base_is_one_line_naming_the_record(tmp_path, capsys):
    import joblib

    _planted_fasta(tmp_path, n=10)
    text = (tmp_path / "pos.fa").read_text().splitlines()
    text[7] = text[7][:11] + "N" + text[7][12:]  # record s3, position 12
    (tmp_path / "pos.fa").write_text("\n".join(text) + "\n")
    joblib.dump(_linear_model(50), tmp_path / "m.joblib")
    argv = ["motifs", "--sklearn-model", str(tmp_path / "m.joblib"), "--positive", str(tmp_path / "pos.fa")]
    assert main(argv + ["--out", str(tmp_path / "a")]) == 2
    err = capsys.readouterr().err.strip().splitlines()  # the reader's count of unknown bases, then the error
    assert "'s3'" in err[-1] and "position 12" in err[-1] and "gradient" in err[-1], err
    assert sum("error" in line for line in err) == 1 and not (tmp_path / "a").exists()
    assert main(argv + ["--attribution", "gradient", "--out", str(tmp_path / "b"), "-q"]) == 0
    with np.load(tmp_path / "b" / "attributions.npz") as saved:
        assert saved["sequences"][3, :, 11].sum() == 0 and saved["sequences"].sum() == 10 * 50 - 1


def test_records_of_several_lengths_need_width_and_give_their_central_windows(tmp_path, capsys):
    import joblib

    rng = np.random.default_rng(3)
    rows = [rng.integers(0, 4, size=50 + 2 * (i % 4)) for i in range(12)]
    (tmp_path / "pos.fa").write_text("".join(f">r{i}\n" + "".join("ACGT"[c] for c in row) + "\n"
                                            for i, row in enumerate(rows)))
    joblib.dump(_linear_model(50), tmp_path / "m.joblib")
    argv = ["motifs", "--sklearn-model", str(tmp_path / "m.joblib"), "--positive", str(tmp_path / "pos.fa")]
    assert main(argv + ["--out", str(tmp_path / "a")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert "50 to 56 nt" in err[-1] and "--width" in err[-1] and not (tmp_path / "a").exists()
    assert main(argv + ["--width", "50", "--out", str(tmp_path / "b"), "-q"]) == 0
    with np.load(tmp_path / "b" / "attributions.npz") as saved:
        got = saved["sequences"].argmax(axis=1)
    expected = [row[(len(row) - 50) // 2:(len(row) - 50) // 2 + 50] for row in rows]
    np.testing.assert_array_equal(got, expected)


def test_torch_model_without_torch_names_the_extra(tmp_path, capsys, monkeypatch):
    import sys

    _planted_fasta(tmp_path, n=10)
    (tmp_path / "m.pt").write_bytes(b"not a model")
    monkeypatch.setitem(sys.modules, "torch", None)  # as where torch is not installed
    status = main(["motifs", "--torch-model", str(tmp_path / "m.pt"), "--positive", str(tmp_path / "pos.fa"),
                   "--out", str(tmp_path / "out")])
    assert status == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "seqimp[torch]" in err[0], err


# --- PyTorch (the extra 'torch'; skipped without it) -------------------------------------------------------


def _torch():
    return pytest.importorskip("torch", reason="the extra 'torch' (pip install 'seqimp[torch]')")


def test_torch_gradient_of_a_linear_module_equals_ism_and_its_weights():
    torch = _torch()
    from seqimp.scorers import TorchScorer

    torch.manual_seed(0)
    module = torch.nn.Sequential(torch.nn.Flatten(), torch.nn.Linear(4 * 30, 1)).double()
    scorer = TorchScorer(module, batch_size=16)
    codes = _codes()
    ohe, hyp = gradient_attributions(scorer, codes)
    w = module[1].weight.detach().numpy().reshape(4, 30).T  # Flatten of (n, 4, L): channel-major
    np.testing.assert_allclose(hyp, np.broadcast_to(w - w.mean(axis=1, keepdims=True), hyp.shape), atol=1e-6)
    np.testing.assert_allclose(ism_attributions(scorer, codes)[1], hyp, atol=1e-5)  # float32 input to the module


def test_torch_gradient_of_a_nonlinear_module_matches_finite_differences():
    torch = _torch()
    from seqimp.scorers import TorchScorer

    torch.manual_seed(1)
    module = torch.nn.Sequential(torch.nn.Conv1d(4, 3, 5), torch.nn.Softplus(), torch.nn.Flatten(),
                                 torch.nn.Linear(3 * 26, 2))
    scorer = TorchScorer(module, output_index=1, batch_size=5)
    codes = _codes(6)
    grad = scorer.input_gradient(codes)
    x = torch.from_numpy(onehot_rows(codes).transpose(0, 2, 1).astype(np.float64))
    m64 = module.double()
    eps = 1e-6
    for i, p, a in [(0, 0, 0), (1, 10, 2), (5, 29, 3), (3, 14, 1)]:
        up, down = x.clone(), x.clone()
        up[i, a, p] += eps
        down[i, a, p] -= eps
        with torch.no_grad():
            fd = (m64(up)[i, 1] - m64(down)[i, 1]).item() / (2 * eps)
        assert grad[i, p, a] == pytest.approx(fd, rel=1e-3, abs=1e-5)


def test_a_bad_torch_device_or_file_is_one_line(tmp_path, capsys):
    torch = _torch()
    from seqimp.importance._torch import load_torch_model, torch_device

    with pytest.raises(SeqimpError, match="not a torch device"):
        torch_device("gpu7")
    if not torch.cuda.is_available():
        with pytest.raises(SeqimpError, match="no CUDA GPU"):
            torch_device("cuda")
    assert torch_device("auto") == ("cuda" if torch.cuda.is_available() else "cpu")
    (tmp_path / "m.pt").write_bytes(b"not a model")
    with pytest.raises(SeqimpError, match="neither a TorchScript model"):
        load_torch_model(tmp_path / "m.pt", device="cpu")


def test_motifs_of_a_torchscript_model_on_the_command_line(tmp_path):
    """--torch-model: gradient x input by default; the planted site's motif; attributions.npz kept."""
    torch = _torch()

    _planted_fasta(tmp_path)
    pwm = np.log2(np.where(np.eye(4)[SITE] > 0, 0.85, 0.05) / 0.25)

    class Sites(torch.nn.Module):
        def __init__(self):
            super().__init__()
            both = np.stack([pwm.T, pwm[::-1, ::-1].T.copy()])
            self.conv = torch.nn.Conv1d(4, 2, 7, bias=False)
            self.conv.weight.data = torch.tensor(both, dtype=torch.float32)

        def forward(self, x):
            return (3 * torch.sigmoid(self.conv(x) - 8)).sum(dim=(1, 2))

    torch.jit.save(torch.jit.script(Sites()), str(tmp_path / "m.pt"))
    out = tmp_path / "out"
    assert main(["motifs", "--torch-model", str(tmp_path / "m.pt"), "--positive", str(tmp_path / "pos.fa"),
                 "--device", "cpu", "--out", str(out), "-q"]) == 0
    table = (out / "motifs.tsv").read_text().splitlines()
    assert len(table) == 2 and table[1].split("\t")[1] in ("TGACTCA", "TGAGTCA"), table
    with np.load(out / "attributions.npz") as saved:
        assert str(saved["method"]) == "gradient" and saved["attributions"].shape == (240, 4, 50)


def test_flat_onehot_against_a_loop_with_unknown_rows_zero():
    """seqimp.importance.onehot (the scikit-learn features) built by a plain loop; the unknown
    code 4 is a row of zeros; the same letters as onehot_rows, flattened."""
    from seqimp.importance._scorers import onehot

    rng = np.random.default_rng(3)
    X = rng.integers(0, 5, (7, 9))
    want = np.zeros((7, 9 * 4))
    for i in range(7):
        for p in range(9):
            if X[i, p] < 4:
                want[i, p * 4 + X[i, p]] = 1
    got = onehot(X)
    assert got.dtype == np.float64 and np.array_equal(got, want)
    assert np.array_equal(onehot_rows(X).reshape(7, -1), want)
