"""A PyTorch module as a score function (torch is imported only here, when it is used)."""

from __future__ import annotations

import numpy as np

from ._onnx import LAYOUTS, check_codes, onehot_layout, select_output
from ..errors import SeqimpError, check_choice, check_int
from ..io import get_alphabet

__all__ = ["TorchScorer"]


class TorchScorer:
    """A ``torch.nn.Module`` as a score function on encoded sequences.

    The module runs in eval mode under ``torch.no_grad()``; it gets a one-hot float32 tensor
    in ``layout`` on ``device`` and returns (n,), (n, 1) or (n, m) (column ``output_index``);
    a tuple or list output uses its first element.

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
        try:
            import torch
        except ImportError:
            raise SeqimpError("TorchScorer needs PyTorch (pip install torch)") from None
        if not isinstance(module, torch.nn.Module):
            raise SeqimpError(f"TorchScorer: module must be a torch.nn.Module, got {type(module).__name__}")
        self.layout = check_choice(layout, "layout", LAYOUTS)
        self.output_index = check_int(output_index, "--output-index", minimum=0)
        self.batch_size = check_int(batch_size, "batch_size")
        self.alphabet = get_alphabet(alphabet)
        self.device = torch.device(device)
        self.module = module.to(self.device).eval()
        self.source = f"torch model {type(module).__name__}"

    def __repr__(self) -> str:
        return (f"TorchScorer({type(self.module).__name__}, device={str(self.device)!r}, layout={self.layout!r}, "
                f"output_index={self.output_index})")

    def __call__(self, X) -> np.ndarray:
        import torch

        codes = check_codes(X, self.alphabet.size, self.source)
        n = codes.shape[0]
        out = np.empty(n, dtype=np.float64)
        with torch.no_grad():
            for a in range(0, n, self.batch_size):
                block = codes[a:a + self.batch_size]
                x = torch.from_numpy(onehot_layout(block, self.alphabet.size, self.layout)).to(self.device)
                try:
                    y = self.module(x)
                except Exception as exc:  # noqa: BLE001 - report the module's complaint in one line
                    text = str(exc).strip().splitlines()
                    raise SeqimpError(f"{self.source}: the model failed on input of shape {tuple(x.shape)} "
                                      f"({type(exc).__name__}: {text[0] if text else ''})") from None
                if isinstance(y, (tuple, list)):
                    y = y[0]
                y = y.detach().float().cpu().numpy()
                out[a:a + block.shape[0]] = select_output(y, block.shape[0], self.output_index, self.source)
        return out
