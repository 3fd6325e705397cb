"""Benchmark of the ONNX scorer: sampled POIM throughput through ``OnnxScorer`` against the bare
ONNX Runtime session's own scoring throughput at the same batch size.

The model is a small convolutional network of the usual shape for regulatory DNA (built with
``onnx.helper``, random weights): one-hot (n, 4, L) -> Conv1d(4 -> C, width W) -> ReLU ->
global max pool -> Dense(C -> 1). Prints sequences per second for

1. the bare session: ``session.run`` on prepared one-hot float32 batches (nothing else);
2. the adapter alone: ``OnnxScorer(codes)`` (one-hot encoding + run + output checks);
3. ``poim_sampled(OnnxScorer, ...)``: everything the sampled estimator does around the model
   (background samples, planted k-mers, accumulation), counted as scored sequences per second;

and the ratios 2/1 and 3/1 (target for 3/1: >= 0.90).

Usage: ``python scripts/bench_onnx.py [--quick] [--length 200] [--filters 64] [--batch-size 1024] [--threads 0]``
"""

from __future__ import annotations

import argparse
import time

import numpy as np


def cnn_model(length, filters, width, seed=0):
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    rng = np.random.default_rng(seed)
    inits = [numpy_helper.from_array(rng.normal(scale=0.5, size=(filters, 4, width)).astype(np.float32), "wc"),
             numpy_helper.from_array(rng.normal(scale=0.1, size=filters).astype(np.float32), "bc"),
             numpy_helper.from_array(rng.normal(size=(filters, 1)).astype(np.float32), "wd"),
             numpy_helper.from_array(np.zeros(1, np.float32), "bd")]
    nodes = [helper.make_node("Conv", ["x", "wc", "bc"], ["c"], kernel_shape=[width]),
             helper.make_node("Relu", ["c"], ["r"]),
             helper.make_node("GlobalMaxPool", ["r"], ["p"]),
             helper.make_node("Flatten", ["p"], ["f"]),
             helper.make_node("Gemm", ["f", "wd", "bd"], ["y"])]
    graph = helper.make_graph(nodes, "cnn", [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["n", 4, length])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["n", 1])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    return model.SerializeToString()


def main(argv=None):
    import onnxruntime as ort

    from seqimp.background import MarkovBackground
    from seqimp.importance import poim_sampled
    from seqimp.scorers import onehot_layout
    from seqimp.scorers import OnnxScorer

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="fewer samples (a smoke run)")
    ap.add_argument("--length", type=int, default=200)
    ap.add_argument("--filters", type=int, default=64)
    ap.add_argument("--width", type=int, default=15)
    ap.add_argument("--batch-size", type=int, default=1024)
    ap.add_argument("--threads", type=int, default=0, help="ONNX Runtime intra-op threads (0: its default)")
    args = ap.parse_args(argv)
    L, bs = args.length, args.batch_size
    payload = cnn_model(L, args.filters, args.width)
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = args.threads
    session = ort.InferenceSession(payload, sess_options=opts, providers=["CPUExecutionProvider"])
    scorer = OnnxScorer(payload, batch_size=bs, session_options=opts, providers=["CPUExecutionProvider"])
    rng = np.random.default_rng(0)
    codes = rng.integers(0, 4, size=(bs, L)).astype(np.uint8)
    feed = onehot_layout(codes, 4, "NCL")
    for _ in range(3):   # warm up both
        session.run(None, {"x": feed})
        scorer(codes)
    reps = 5 if args.quick else 20

    def rate(fn, rows):
        t0 = time.perf_counter()
        for _ in range(reps):
            fn()
        return rows * reps / (time.perf_counter() - t0)

    bg = MarkovBackground(order=2).fit(rng.integers(0, 4, size=(200, L)).astype(np.uint8))
    n_samples = 64 if args.quick else 256
    positions = np.arange(L // 2 - 5, L // 2 + 5)
    poim_sampled(scorer, bg, 1, length=L, n_samples=16, batch_size=bs, positions=positions[:2])  # compile numba
    # the three measurements interleaved, best of `rounds` each, so that load from other processes on a
    # shared machine hits them alike
    bare = adapter = best = 0.0
    calls = 0
    for _ in range(2 if args.quick else 4):
        bare = max(bare, rate(lambda: session.run(None, {"x": feed}), bs))
        adapter = max(adapter, rate(lambda: scorer(codes), bs))
        t0 = time.perf_counter()
        res = poim_sampled(scorer, bg, 2, length=L, n_samples=n_samples, batch_size=bs, positions=positions,
                           random_state=0)
        calls = res.meta["score_calls"]
        best = max(best, calls / (time.perf_counter() - t0))
    print(f"model: CNN, L={L}, {args.filters} filters of width {args.width}; batch size {bs}; "
          f"ONNX Runtime {ort.__version__}, CPU, intra-op threads {args.threads or 'default'}")
    print(f"bare session.run on prepared one-hot:   {bare:12,.0f} sequences/s")
    print(f"OnnxScorer(codes):                      {adapter:12,.0f} sequences/s   ratio {adapter / bare:.3f}")
    print(f"poim_sampled(OnnxScorer), order 2, {len(positions)} starts, {n_samples} samples ({calls:,} scored):")
    print(f"                                        {best:12,.0f} sequences/s   ratio {best / bare:.3f}")
    return best / bare


if __name__ == "__main__":
    main()
