"""Deep-learning models as score functions: an ONNX Runtime adapter (and the one-hot layouts
shared with the PyTorch adapter in :mod:`seqimp.importance._torch`).

A scorer takes an encoded ``(n, L)`` uint8 array (codes in alphabet order, A=0, C=1, G=2,
T=3 for DNA) and returns ``(n,)`` float64 scores, so it can be given to
:func:`seqimp.importance.poim_sampled` and :func:`seqimp.importance.ism`. The model sees a
one-hot float tensor: ``"NCL"`` = (n, A, L), channels in alphabet order (the layout of
PyTorch ``Conv1d`` models), or ``"NLC"`` = (n, L, A) (Keras / TensorFlow models).
"""

from __future__ import annotations

import os

import numpy as np

from ..errors import SeqimpError, check_choice, check_int
from ..io import get_alphabet

__all__ = ["OnnxScorer", "onehot_layout", "LAYOUTS"]

#: One-hot layouts a deep-learning scorer can feed the model.
LAYOUTS = ("NCL", "NLC")


def onehot_layout(codes, size, layout, dtype=np.float32, out=None) -> np.ndarray:
    """One-hot tensor of codes (n, L): (n, size, L) for ``"NCL"``, (n, L, size) for ``"NLC"``."""
    n, length = codes.shape
    shape = (n, size, length) if layout == "NCL" else (n, length, size)
    if out is None or out.shape != shape:
        out = np.empty(shape, dtype=dtype)
    letters = np.arange(size, dtype=codes.dtype)
    if layout == "NCL":
        np.equal(codes[:, None, :], letters[None, :, None], out=out, casting="unsafe")
    else:
        np.equal(codes[:, :, None], letters[None, None, :], out=out, casting="unsafe")
    return out


def check_codes(X, size, who) -> np.ndarray:
    """The (n, L) uint8 code array a scorer was called with, or a SeqimpError."""
    codes = np.asarray(getattr(X, "codes", X))
    if codes.ndim != 2 or codes.dtype.kind not in "iu":
        raise SeqimpError(f"{who}: expected encoded sequences, an integer array of shape (n, L); "
                          f"got {codes.dtype} of shape {codes.shape}")
    if codes.size and (codes.min() < 0 or codes.max() >= size):
        raise SeqimpError(f"{who}: codes must lie in 0..{size - 1}, got {int(codes.max())}")
    return codes


def select_output(out, n, output_index, who) -> np.ndarray:
    """Column ``output_index`` of a model output of shape (n,), (n, 1) or (n, m), as float64 (n,)."""
    out = np.asarray(out)
    if out.ndim == 1 and out.shape[0] == n:
        if output_index != 0:
            raise SeqimpError(f"{who}: output_index {output_index} given, but the model returns one score per "
                              f"sequence, shape ({n},)")
        return out.astype(np.float64)
    if out.ndim == 2 and out.shape[0] == n:
        if not 0 <= output_index < out.shape[1]:
            raise SeqimpError(f"{who}: output_index {output_index} is outside 0..{out.shape[1] - 1} "
                              f"(the model returns shape {out.shape})")
        return out[:, output_index].astype(np.float64)
    raise SeqimpError(f"{who}: the model returns shape {out.shape} for {n} sequences; a scorer needs (n,) or "
                      "(n, m) (reduce per-position outputs to one score per sequence in the model)")


_ORT_TYPES = {"tensor(float)": np.float32, "tensor(double)": np.float64, "tensor(float16)": np.float16}


class OnnxScorer:
    """An ONNX model as a score function on encoded sequences (ONNX Runtime).

    Parameters
    ----------
    model : str, path-like, bytes or onnx.ModelProto
        The ``.onnx`` file, its bytes, or an in-memory model.
    layout : {"NCL", "NLC"}, default="NCL"
        Input tensor: one-hot (n, A, L) with channels in alphabet order (A, C, G, T), or
        (n, L, A). The input's element type is read from the model (float32 usually;
        float64 and float16 work too).
    output_index : int, default=0
        Column of the model's first output to use as the score when it has shape (n, m)
        (a multi-task model); an output of shape (n,) or (n, 1) is used as is.
    batch_size : int, default=1024
        Sequences per ``session.run``; calls with more rows are split. A model whose batch
        axis is fixed (exported with batch 1, say) is fed exactly that many rows per call,
        the last call padded.
    providers : list of str, optional
        ONNX Runtime execution providers. Default: CUDA then CPU when onnxruntime-gpu
        offers CUDA, else CPU.
    alphabet : str or Alphabet, default="dna"
    input_name : str, optional
        Which input to feed when the model has several (the others must be optional).
    session_options : onnxruntime.SessionOptions, optional
        E.g. to set ``intra_op_num_threads``.

    Attributes
    ----------
    session : onnxruntime.InferenceSession
    length : int or None
        The sequence length the model's input fixes (None when dynamic).

    Examples
    --------
    >>> scorer = OnnxScorer("model.onnx")                      # doctest: +SKIP
    >>> result = seqimp.poim_sampled(scorer, background, 3)     # doctest: +SKIP
    """

    #: ONNX Runtime spreads each batch over the cores itself, so ``ism`` and ``poim_sampled``
    #: score its batches one at a time (:func:`~seqimp.importance._scorers.batch_threads`).
    batches_in_threads = False

    def __init__(self, model, *, layout="NCL", output_index=0, batch_size=1024, providers=None, alphabet="dna",
                 input_name=None, session_options=None):
        try:
            import onnxruntime as ort
        except ImportError:
            raise SeqimpError("ONNX models need onnxruntime: pip install 'seqimp[onnx]' "
                              "(or onnxruntime-gpu for CUDA)") from None
        self.layout = check_choice(layout, "layout", LAYOUTS)
        self.output_index = check_int(output_index, "--output-index", minimum=0)
        self.batch_size = check_int(batch_size, "batch_size")
        self.alphabet = get_alphabet(alphabet)
        if hasattr(model, "SerializeToString"):
            source, payload = "ONNX model", model.SerializeToString()
        elif isinstance(model, (bytes, bytearray, memoryview)):
            source, payload = "ONNX model", bytes(model)
        else:
            path = os.fspath(model)
            if not os.path.isfile(path):
                raise SeqimpError(f"--onnx-model {path}: no such file")
            source, payload = str(path), os.path.abspath(path)
        self.source = source
        # what a worker process rebuilds the session from (see __reduce__)
        self._init = (payload,
                      dict(layout=layout, output_index=output_index, batch_size=batch_size, providers=providers,
                           alphabet=alphabet, input_name=input_name, session_options=session_options))
        if providers is None:
            available = ort.get_available_providers()
            providers = [p for p in ("CUDAExecutionProvider", "CPUExecutionProvider") if p in available]
        try:
            self.session = ort.InferenceSession(payload, sess_options=session_options, providers=list(providers))
        except Exception as exc:  # noqa: BLE001 - onnxruntime raises its own exception types
            raise SeqimpError(f"{source}: cannot load the ONNX model ({_first_line(exc)})") from None
        inputs = self.session.get_inputs()
        if input_name is None:
            if len(inputs) != 1:
                raise SeqimpError(f"{source}: the model has {len(inputs)} inputs "
                                  f"({', '.join(i.name for i in inputs)}); pick one with input_name")
            node = inputs[0]
        else:
            node = next((i for i in inputs if i.name == input_name), None)
            if node is None:
                raise SeqimpError(f"{source}: no input named {input_name!r} "
                                  f"(inputs: {', '.join(i.name for i in inputs)})")
        self.input_name = node.name
        if node.type not in _ORT_TYPES:
            raise SeqimpError(f"{source}: input {node.name!r} has type {node.type}; a one-hot sequence input must "
                              "be float (float32), double or float16")
        self.dtype = _ORT_TYPES[node.type]
        shape = list(node.shape)
        if len(shape) != 3:
            raise SeqimpError(f"{source}: input {node.name!r} has shape {_shape(shape)}; a one-hot sequence input "
                              f"has 3 axes, (n, {self.alphabet.size}, L) for layout NCL or (n, L, "
                              f"{self.alphabet.size}) for NLC")
        channel, length = (shape[1], shape[2]) if self.layout == "NCL" else (shape[2], shape[1])
        if isinstance(channel, int) and channel != self.alphabet.size:
            other = "NLC" if self.layout == "NCL" else "NCL"
            hint = ""
            if isinstance(length, int) and length == self.alphabet.size:
                hint = f"; the model looks like layout {other} (pass layout={other!r})"
            raise SeqimpError(f"{source}: input {node.name!r} has shape {_shape(shape)}, but layout {self.layout} "
                              f"needs {self.alphabet.size} one-hot channels on axis "
                              f"{1 if self.layout == 'NCL' else 2} ({self.alphabet.name}){hint}")
        self.length = length if isinstance(length, int) else None
        # a model exported with a fixed batch axis (often 1) takes exactly that many sequences per call
        self.fixed_batch = shape[0] if isinstance(shape[0], int) and shape[0] > 0 else None
        if self.fixed_batch is not None:
            self.batch_size = self.fixed_batch
        self.output_name = self.session.get_outputs()[0].name
        self._buffer = None

    def __repr__(self) -> str:
        return (f"OnnxScorer({self.source}, layout={self.layout!r}, output_index={self.output_index}, "
                f"length={self.length}, providers={self.session.get_providers()})")

    def onehot(self, codes) -> np.ndarray:
        """The model input for codes (n, L): the one-hot tensor in this scorer's layout and dtype."""
        return onehot_layout(codes, self.alphabet.size, self.layout, self.dtype)

    def __reduce__(self):
        """Pickled as the model (its bytes, or its path: readable on the workers) and the arguments.

        The ONNX Runtime session itself cannot be pickled; a worker process (joblib, Dask)
        loads its own. A ``session_options`` object must be picklable too.
        """
        payload, kwargs = self._init
        return _rebuild, (payload, kwargs)

    def __call__(self, X) -> np.ndarray:
        codes = check_codes(X, self.alphabet.size, self.source)
        n, length = codes.shape
        if self.length is not None and length != self.length:
            raise SeqimpError(f"{self.source}: the model takes sequences of length {self.length}, got length {length}")
        out = np.empty(n, dtype=np.float64)
        for a in range(0, n, self.batch_size):
            block = codes[a:a + self.batch_size]
            if self._buffer is None or self._buffer.shape[0] < block.shape[0] or \
                    self._buffer.shape[1:] != self._shape_for(length):
                rows = self.fixed_batch or max(block.shape[0], min(n, self.batch_size))
                self._buffer = np.zeros((rows,) + self._shape_for(length), dtype=self.dtype)
            feed = onehot_layout(block, self.alphabet.size, self.layout, self.dtype,
                                 out=self._buffer[:block.shape[0]])
            if self.fixed_batch is not None:  # the last block padded to the model's batch (rows ignored)
                feed = self._buffer
            try:
                result = self.session.run([self.output_name], {self.input_name: feed})[0]
            except Exception as exc:  # noqa: BLE001 - report onnxruntime's complaint in one line
                raise SeqimpError(f"{self.source}: the model failed on input of shape {feed.shape} "
                                  f"({_first_line(exc)})") from None
            if self.fixed_batch is not None:
                result = np.asarray(result)[:block.shape[0]]
            out[a:a + block.shape[0]] = select_output(result, block.shape[0], self.output_index, self.source)
        return out

    def _shape_for(self, length):
        return (self.alphabet.size, length) if self.layout == "NCL" else (length, self.alphabet.size)


def _rebuild(model, kwargs):
    return OnnxScorer(model, **kwargs)


def _shape(shape) -> str:
    return "(" + ", ".join(str(d) if d is not None else "?" for d in shape) + ")"


def _first_line(exc) -> str:
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0] if text else ''}"[:300]
