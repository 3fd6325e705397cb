"""A PyTorch module as a score function and its input gradient (torch is imported only here, when
it is used); a TorchScript file loaded as one (:func:`load_torch_model`)."""

from __future__ import annotations

import numpy as np

from ._onnx import LAYOUTS, check_codes, onehot_layout, select_output
from ..errors import SeqimpError, check_choice, check_int
from ..io import get_alphabet

__all__ = ["TorchScorer", "load_torch_model", "torch_device"]


def _torch(who):
    try:
        import torch
    except ImportError:
        raise SeqimpError(f"{who} needs PyTorch: pip install 'seqimp[torch]' (or torch from pytorch.org for "
                          "your CUDA)") from None
    return torch


class TorchScorer:
    """A ``torch.nn.Module`` as a score function on encoded sequences.

    The module runs in eval mode under ``torch.no_grad()``; it gets a one-hot tensor (float32, or
    the float type of the module's parameters) in ``layout`` on ``device`` and returns (n,), (n, 1)
    or (n, m) (column ``output_index``); a tuple or list output uses its first element.
    :meth:`input_gradient` gives the gradient of that score with respect to the one-hot input.

    Parameters
    ----------
    module : torch.nn.Module
    device : str or torch.device, default="cpu"
    batch_size : int, default=1024
    layout : {"NCL", "NLC"}, default="NCL"
        (n, A, L) as ``Conv1d`` expects, or (n, L, A).
    output_index : int, default=0
    alphabet : str or Alphabet, default="dna"
    """

    #: torch spreads each batch over the cores (or runs it on the GPU) itself, so ``ism`` and
    #: ``poim_sampled`` score its batches one at a time.
    batches_in_threads = False

    def __init__(self, module, *, device="cpu", batch_size=1024, layout="NCL", output_index=0, alphabet="dna"):
        torch = _torch("TorchScorer")
        if not isinstance(module, torch.nn.Module):
            raise SeqimpError(f"TorchScorer: module must be a torch.nn.Module, got {type(module).__name__}")
        self.layout = check_choice(layout, "layout", LAYOUTS)
        self.output_index = check_int(output_index, "--output-index", minimum=0)
        self.batch_size = check_int(batch_size, "batch_size")
        self.alphabet = get_alphabet(alphabet)
        self.device = torch.device(device)
        self.module = module.to(self.device)
        try:
            self.module.eval()
        except NotImplementedError:  # an exported program's module: traced in its mode once and for all
            pass
        # the input in the module's own float type (float32 usually; a float64 module gets float64)
        self.dtype = next((q.dtype for q in self.module.parameters() if q.is_floating_point()), torch.float32)
        self.source = f"torch model {type(module).__name__}"

    def __repr__(self) -> str:
        return (f"TorchScorer({type(self.module).__name__}, device={str(self.device)!r}, layout={self.layout!r}, "
                f"output_index={self.output_index})")

    def _forward(self, x):
        """The module's output column ``output_index`` for input ``x``, shape (m,) (a torch tensor)."""
        try:
            y = self.module(x)
        except Exception as exc:  # noqa: BLE001 - report the module's complaint in one line
            text = str(exc).strip().splitlines()
            raise SeqimpError(f"{self.source}: the model failed on input of shape {tuple(x.shape)} "
                              f"({type(exc).__name__}: {text[0] if text else ''})") from None
        if isinstance(y, (tuple, list)):
            y = y[0]
        m = x.shape[0]
        select_output(np.empty(tuple(y.shape), np.float32), m, self.output_index, self.source)  # the shape checks
        return y if y.ndim == 1 else y[:, self.output_index]

    def __call__(self, X) -> np.ndarray:
        import torch

        codes = check_codes(X, self.alphabet.size, self.source)
        n = codes.shape[0]
        out = np.empty(n, dtype=np.float64)
        with torch.no_grad():
            for a in range(0, n, self.batch_size):
                block = codes[a:a + self.batch_size]
                x = torch.from_numpy(onehot_layout(block, self.alphabet.size, self.layout)).to(self.device, self.dtype)
                out[a:a + block.shape[0]] = self._forward(x).detach().double().cpu().numpy()
        return out

    def input_gradient(self, X) -> np.ndarray:
        """The gradient of the score with respect to the one-hot input, (n, L, A) float64, by autograd in
        batches of ``batch_size`` on ``device`` (an unknown code, N, is a one-hot row of zeros)."""
        import torch

        codes = check_codes(X, self.alphabet.size + 1, self.source)
        out = np.empty(codes.shape + (self.alphabet.size,), dtype=np.float64)
        for a in range(0, codes.shape[0], self.batch_size):
            block = codes[a:a + self.batch_size]
            x = torch.from_numpy(onehot_layout(block, self.alphabet.size, self.layout)).to(self.device, self.dtype)
            x.requires_grad_(True)
            with torch.enable_grad():
                y = self._forward(x)
                if not y.requires_grad:
                    raise SeqimpError(f"{self.source}: the output does not depend on the input through autograd "
                                      "(no gradient); use ISM")
                (grad,) = torch.autograd.grad(y.sum(), x)
            grad = grad.detach().double().cpu().numpy()
            out[a:a + block.shape[0]] = grad.transpose(0, 2, 1) if self.layout == "NCL" else grad
        return out


def torch_device(device="auto") -> str:
    """``device``, with ``auto``: ``cuda`` where torch sees a GPU, else ``cpu``."""
    torch = _torch("--torch-model")
    if device == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    try:
        kind = torch.device(device).type
    except (RuntimeError, TypeError, ValueError) as exc:
        raise SeqimpError(f"--device {device!r}: not a torch device ({str(exc).splitlines()[0]})") from None
    if kind == "cuda" and not torch.cuda.is_available():
        raise SeqimpError(f"--device {device}: torch sees no CUDA GPU here (torch {torch.__version__}); use --device "
                          "cpu or auto")
    return str(device)


def load_torch_model(path, *, device="auto", batch_size=256, layout="NCL", output_index=0) -> TorchScorer:
    """A TorchScript file (``torch.jit.save``) or an exported program (``torch.export.save``) as a
    :class:`TorchScorer` on ``device`` (``auto``: a GPU where torch sees one, else the CPU)."""
    import os

    torch = _torch("--torch-model")
    path = os.fspath(path)
    if not os.path.isfile(path):
        raise SeqimpError(f"--torch-model {path}: no such file")
    device = torch_device(device)
    try:
        module = torch.jit.load(path, map_location=device)
    except Exception as exc:  # noqa: BLE001 - any load failure is a bad file for the user
        import logging

        quiet = logging.getLogger("torch.export")
        level = quiet.level
        quiet.setLevel(logging.CRITICAL)  # its warning of a file that is no exported program: the error says it
        try:  # an exported program (torch.export.save, .pt2)
            module = torch.export.load(path).module()
        except Exception:  # noqa: BLE001 - the TorchScript complaint is the one to report
            text = (str(exc).strip().splitlines() or [""])[0].split(". ")[0][:200]
            raise SeqimpError(f"--torch-model {path}: neither a TorchScript model (torch.jit.save) nor an exported "
                              f"program (torch.export.save) ({type(exc).__name__}: {text})") from None
        finally:
            quiet.setLevel(level)
    scorer = TorchScorer(module, device=device, batch_size=batch_size, layout=layout, output_index=output_index)
    scorer.source = f"--torch-model {path}"
    return scorer
