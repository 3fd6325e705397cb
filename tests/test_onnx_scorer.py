"""Deep-learning scorers: OnnxScorer (ONNX Runtime) and TorchScorer, checked against the exact
POIM and ISM of the same linear model."""

import numpy as np
import pytest

from seqimp import SeqimpError
from seqimp.background import MarkovBackground
from seqimp.importance import ism, poim, poim_sampled
from seqimp.kernels import PositionalWeights

onnx = pytest.importorskip("onnx")
pytest.importorskip("onnxruntime")
from onnx import TensorProto, helper, numpy_helper  # noqa: E402

from seqimp.scorers import OnnxScorer, TorchScorer  # noqa: E402

L = 10


def exact_weights(seed=0, degree=2):
    """Weights that are multiples of 1/8, so float32 and float64 sums agree exactly."""
    rng = np.random.default_rng(seed)
    tables = [rng.integers(-16, 17, size=(L - k + 1, 4 ** k)) / 8.0 for k in range(1, degree + 1)]
    return PositionalWeights(tables, bias=0.25)


def linear_onnx(weights, *, layout="NCL", two_outputs=False, length=L, dtype=TensorProto.FLOAT, channels=4):
    """x (n, 4, L) or (n, L, 4) one-hot -> bias + sum_p W1[p, x_p] + sum_p W2[p, x_p x_p+1], as MatMul + Add."""
    w1 = weights.tables[0]                                        # (L, 4)
    nodes, inits = [], []
    if layout == "NCL":
        shape = ["n", channels, length]
        x = "x"
    else:
        shape = ["n", length, channels]
        nodes.append(helper.make_node("Transpose", ["x"], ["xt"], perm=[0, 2, 1]))
        x = "xt"
    # order 1: flatten (n, 4, L) -> (n, 4L), column a * L + p
    inits.append(numpy_helper.from_array(np.array([0, -1], np.int64), "flat"))
    nodes.append(helper.make_node("Reshape", [x, "flat"], ["f1"]))
    inits.append(numpy_helper.from_array(w1.T.reshape(-1, 1).astype(np.float32), "w1"))
    nodes.append(helper.make_node("MatMul", ["f1", "w1"], ["s1"]))
    total = "s1"
    if weights.degree >= 2:
        w2 = weights.tables[1]                                    # (L-1, 16), column a * 4 + b
        for name, start, end in (("left", 0, L - 1), ("right", 1, L)):
            inits += [numpy_helper.from_array(np.array([start], np.int64), f"{name}_s"),
                      numpy_helper.from_array(np.array([end], np.int64), f"{name}_e"),
                      numpy_helper.from_array(np.array([2], np.int64), f"{name}_ax")]
            nodes.append(helper.make_node("Slice", [x, f"{name}_s", f"{name}_e", f"{name}_ax"], [name]))
        inits += [numpy_helper.from_array(np.array([2], np.int64), "ax2"),
                  numpy_helper.from_array(np.array([1], np.int64), "ax1")]
        nodes += [helper.make_node("Unsqueeze", ["left", "ax2"], ["lu"]),     # (n, 4, 1, L-1)
                  helper.make_node("Unsqueeze", ["right", "ax1"], ["ru"]),    # (n, 1, 4, L-1)
                  helper.make_node("Mul", ["lu", "ru"], ["pairs"]),           # (n, 4, 4, L-1)
                  helper.make_node("Reshape", ["pairs", "flat"], ["f2"])]     # column (a*4+b)*(L-1) + p
        inits.append(numpy_helper.from_array(w2.T.reshape(-1, 1).astype(np.float32), "w2"))
        nodes += [helper.make_node("MatMul", ["f2", "w2"], ["s2"]), helper.make_node("Add", ["s1", "s2"], ["s12"])]
        total = "s12"
    inits.append(numpy_helper.from_array(np.array([weights.bias], np.float32), "b"))
    nodes.append(helper.make_node("Add", [total, "b"], ["score"]))                 # (n, 1)
    out = "score"
    if two_outputs:   # a two-task model: column 0 = -score, column 1 = score
        inits.append(numpy_helper.from_array(np.array([-1.0], np.float32), "minus"))
        nodes += [helper.make_node("Mul", ["score", "minus"], ["neg"]),
                  helper.make_node("Concat", ["neg", "score"], ["both"], axis=1)]
        out = "both"
    graph = helper.make_graph(nodes, "linear", [helper.make_tensor_value_info("x", dtype, shape)],
                              [helper.make_tensor_value_info(out, TensorProto.FLOAT, ["n", None])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    return model


@pytest.mark.parametrize("layout", ["NCL", "NLC"])
def test_onnx_scores_equal_the_linear_model(tmp_path, layout):
    w = exact_weights()
    path = tmp_path / "linear.onnx"
    onnx.save(linear_onnx(w, layout=layout), path)
    scorer = OnnxScorer(path, layout=layout, batch_size=7)
    X = np.random.default_rng(1).integers(0, 4, size=(50, L)).astype(np.uint8)
    assert np.array_equal(scorer(X), w.score(X))             # exact: weights are multiples of 1/8
    assert scorer.length == L and scorer(X).dtype == np.float64
    assert np.array_equal(ism(scorer, X[:5]), ism(w.score, X[:5]))


def test_onnx_scorer_pickles_for_worker_processes(tmp_path):
    """The session cannot be pickled: a worker rebuilds it from the file path or the model bytes."""
    import pickle

    w = exact_weights(seed=3)
    onnx.save(linear_onnx(w, layout="NLC"), tmp_path / "m.onnx")
    X = np.random.default_rng(2).integers(0, 4, size=(9, L)).astype(np.uint8)
    for scorer in (OnnxScorer(tmp_path / "m.onnx", layout="NLC", batch_size=4),
                   OnnxScorer(linear_onnx(w).SerializeToString(), output_index=0)):
        clone = pickle.loads(pickle.dumps(scorer))
        assert clone is not scorer and clone.layout == scorer.layout and clone.batch_size == scorer.batch_size
        assert np.array_equal(clone(X), w.score(X))
    assert np.array_equal(ism(scorer, X[:4], batch_size=10, n_jobs=2), ism(w.score, X[:4]))


def test_sampled_poim_of_onnx_model_agrees_with_exact_poim():
    """Tolerance: |sampled - exact| <= 5 standard errors + 1e-9 for every k-mer and start."""
    w = exact_weights(seed=2)
    scorer = OnnxScorer(linear_onnx(w).SerializeToString(), batch_size=4096)
    rng = np.random.default_rng(0)
    bg = MarkovBackground.from_arrays(rng.dirichlet(np.ones(4)), rng.dirichlet(np.ones(4) * 3, size=4))
    exact = poim(w, bg, max_order=3)
    est = poim_sampled(scorer, bg, 3, length=L, n_samples=400, random_state=0)
    for k in range(3):
        gap = np.abs(est.poim[k] - exact.poim[k]) - 5 * est.poim_se[k]
        assert np.nanmax(gap) <= 1e-9, f"order {k + 1}"
        assert np.nanmax(np.abs(est.firm[k] - exact.firm[k]) - 5 * est.firm_se[k]) <= 1e-9
    assert est.expected_score == pytest.approx(exact.expected_score, abs=5 * est.meta["expected_score_se"])


def test_output_index_selects_a_column():
    w = exact_weights(degree=1)
    X = np.random.default_rng(3).integers(0, 4, size=(9, L)).astype(np.uint8)
    model = linear_onnx(w, two_outputs=True)
    assert np.array_equal(OnnxScorer(model, output_index=1)(X), w.score(X))
    assert np.array_equal(OnnxScorer(model)(X), -w.score(X))
    with pytest.raises(SeqimpError, match=r"output_index 2 is outside 0..1 \(the model returns shape \(9, 2\)\)"):
        OnnxScorer(model, output_index=2)(X)


def test_onnx_errors(tmp_path):
    w = exact_weights(degree=1)
    X = np.zeros((3, L), np.uint8)
    with pytest.raises(SeqimpError, match=r"input 'x' has shape \(n, 10, 4\), but layout NCL needs 4 one-hot "
                                          r"channels on axis 1 \(dna\); the model looks like layout NLC"):
        OnnxScorer(linear_onnx(w, layout="NLC"), layout="NCL")
    with pytest.raises(SeqimpError, match=r"the model takes sequences of length 10, got length 12"):
        OnnxScorer(linear_onnx(w))(np.zeros((2, 12), np.uint8))
    with pytest.raises(SeqimpError, match=r"input 'x' has type tensor\(int64\); a one-hot sequence input must be "
                                          r"float"):
        cast = helper.make_graph([helper.make_node("Cast", ["x"], ["y"], to=TensorProto.FLOAT)], "int",
                                 [helper.make_tensor_value_info("x", TensorProto.INT64, ["n", 4, L])],
                                 [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["n", 4, L])])
        OnnxScorer(helper.make_model(cast, opset_imports=[helper.make_opsetid("", 17)]))
    flat = helper.make_graph([helper.make_node("Identity", ["x"], ["y"])], "flat",
                             [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["n", 40])],
                             [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["n", 40])])
    with pytest.raises(SeqimpError, match=r"input 'x' has shape \(n, 40\); a one-hot sequence input has 3 axes"):
        OnnxScorer(helper.make_model(flat, opset_imports=[helper.make_opsetid("", 17)]))
    with pytest.raises(SeqimpError, match=r"--onnx-model .*nope\.onnx: no such file"):
        OnnxScorer(tmp_path / "nope.onnx")
    bad = tmp_path / "bad.onnx"
    bad.write_bytes(b"not a model")
    with pytest.raises(SeqimpError, match=r"bad\.onnx: cannot load the ONNX model"):
        OnnxScorer(bad)
    with pytest.raises(SeqimpError, match=r"layout must be one of 'NCL', 'NLC', got 'LNC'"):
        OnnxScorer(linear_onnx(w), layout="LNC")
    with pytest.raises(SeqimpError, match=r"codes must lie in 0..3, got 7"):
        OnnxScorer(linear_onnx(w))(X + 7)
    with pytest.raises(SeqimpError, match=r"expected encoded sequences, an integer array of shape \(n, L\)"):
        OnnxScorer(linear_onnx(w))(X.astype(float))
    # a per-position output is not one score per sequence
    per_pos = helper.make_graph([helper.make_node("Identity", ["x"], ["y"])], "pp",
                                [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["n", 4, L])],
                                [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["n", 4, L])])
    with pytest.raises(SeqimpError, match=r"the model returns shape \(3, 4, 10\) for 3 sequences; a scorer needs "
                                          r"\(n,\) or \(n, m\)"):
        OnnxScorer(helper.make_model(per_pos, opset_imports=[helper.make_opsetid("", 17)]))(X)


def test_torch_scorer_matches_the_linear_model():
    torch = pytest.importorskip("torch")
    w = exact_weights(degree=1)
    lin = torch.nn.Linear(4 * L, 2)
    with torch.no_grad():
        lin.weight[0] = torch.from_numpy(w.tables[0].T.reshape(-1).astype(np.float32))   # NCL flattening
        lin.weight[1] = -lin.weight[0]
        lin.bias[:] = torch.tensor([w.bias, -w.bias])
    module = torch.nn.Sequential(torch.nn.Flatten(), lin, torch.nn.Dropout(0.5))   # dropout is off in eval mode
    scorer = TorchScorer(module, batch_size=4)
    X = np.random.default_rng(4).integers(0, 4, size=(11, L)).astype(np.uint8)
    assert not module.training
    assert np.array_equal(scorer(X), w.score(X))
    assert np.array_equal(TorchScorer(module, output_index=1)(X), -w.score(X))
    assert np.array_equal(ism(scorer, X[:3]), ism(w.score, X[:3]))
    with pytest.raises(SeqimpError, match=r"the model failed on input of shape \(2, 4, 12\)"):
        scorer(np.zeros((2, 12), np.uint8))
    with pytest.raises(SeqimpError, match=r"module must be a torch.nn.Module, got function"):
        TorchScorer(lambda x: x)
