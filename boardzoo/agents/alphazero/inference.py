"""What runs a network's forward pass: torch eager, or ONNX Runtime (the ``onnx`` extra).

Why ONNX Runtime: one game's search sends the network small batches (1 to 16 leaves), where
torch eager spends most of a call on its own dispatch; ONNX Runtime runs the same graph
several times faster there on a CPU. Its graph is exported from the network's weights when
the evaluator is made, in memory (no second file to keep in step with the checkpoint): an
evaluator keeps the weights it was made with, so after changing them make a new agent.

Both return what :meth:`AlphaZeroNet.forward` does, as NumPy arrays: logits ``[B, A]`` and
values ``[B]`` from the side to move's view.
"""

from __future__ import annotations

import importlib.util
import io
import warnings
from collections.abc import Callable
from typing import Any, cast

import numpy as np
import torch

from boardzoo.errors import InvalidOptionError, excerpt, missing_extra

#: any network whose ``forward`` returns what ``AlphaZeroNet.forward`` does
Network = torch.nn.Module

__all__ = ["INFERENCE", "ONNX_THREADS", "Forward", "OnnxForward", "TorchForward",
           "network_forward", "resolve_inference"]

#: the runtimes a network can run on ("auto": :func:`resolve_inference` picks)
INFERENCE = ("torch", "onnxruntime")
#: ONNX Runtime's intra-op threads per session: one per process, as self-play and the
#: arena run one process per core
ONNX_THREADS = 1

#: planes ``[B, H, W, C]`` float32 -> (logits ``[B, A]``, values ``[B]``)
Forward = Callable[[np.ndarray], tuple[np.ndarray, np.ndarray]]


def resolve_inference(inference: str, device: torch.device) -> str:
    """``inference`` as given, or for "auto": ONNX Runtime when it is installed (the ``onnx``
    extra) and the network is on the CPU, else torch."""
    if inference == "auto":
        on_cpu = device.type == "cpu"
        return "onnxruntime" if on_cpu and _onnx_installed() else "torch"
    if inference not in INFERENCE:
        raise InvalidOptionError(
            f"inference={excerpt(inference)}; use 'auto', 'torch' or 'onnxruntime'")
    return inference


def network_forward(net: Network, inference: str) -> Forward:
    """The forward pass of ``net`` (in eval mode) on ``inference`` ("torch" or
    "onnxruntime"; see :func:`resolve_inference`); it pickles (arena worker processes)."""
    if inference == "onnxruntime":
        return OnnxForward(net)
    return TorchForward(net)


def _onnx_installed() -> bool:
    return all(importlib.util.find_spec(name) is not None for name in ("onnxruntime", "onnx"))


class TorchForward:
    """``net``'s forward pass in torch, in inference mode, on the network's device."""

    def __init__(self, net: Network):
        self.net = net
        self.device = next(net.parameters()).device

    def __call__(self, planes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        with torch.inference_mode():
            logits, values = self.net(torch.from_numpy(planes).to(self.device))
        return logits.float().cpu().numpy(), values.float().cpu().numpy()


class OnnxForward:
    """``net``'s forward pass in ONNX Runtime on the CPU, :data:`ONNX_THREADS` intra-op
    threads, from the graph exported when this is made; pickled as that graph."""

    def __init__(self, net: Network):
        self.model = _onnx_bytes(net)
        self._session = _session(self.model)

    def __call__(self, planes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        logits, values = self._session.run(None, {"planes": planes})
        return logits, values

    def __getstate__(self) -> dict[str, Any]:
        return {"model": self.model}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.model = state["model"]
        self._session = _session(self.model)


def _session(model: bytes) -> Any:
    """An ONNX Runtime session of the serialized ``model`` (MissingExtraError without it)."""
    try:
        import onnxruntime
    except ImportError as err:
        raise missing_extra(err, "inference='onnxruntime'") or err from None
    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = ONNX_THREADS
    options.inter_op_num_threads = 1
    return onnxruntime.InferenceSession(model, options, providers=["CPUExecutionProvider"])


def _onnx_bytes(net: Network) -> bytes:
    """``net`` as a serialized ONNX model with a dynamic batch axis (torch's TorchScript
    exporter: it needs no onnxscript and exports these networks as they are)."""
    try:
        import onnx  # noqa: F401  # the exporter imports it; name the extra if it is missing
    except ImportError as err:
        raise missing_extra(err, "inference='onnxruntime'") or err from None
    shape = cast("tuple[int, int, int]", net.planes_shape)
    example = torch.zeros((1, *shape), device=next(net.parameters()).device)
    batch: dict[int, str] = {0: "batch"}
    axes: Any = {"planes": batch, "logits": batch, "values": batch}
    buffer = io.BytesIO()
    with warnings.catch_warnings(), torch.no_grad():
        # the TorchScript exporter warns that it is deprecated in favour of the
        # torch.export one, which would make onnxscript a dependency too
        warnings.simplefilter("ignore", DeprecationWarning)
        # (its annotation names paths only; it writes to a file object as well)
        torch.onnx.export(net, (example,), buffer,  # type: ignore[arg-type]
                          input_names=["planes"],
                          output_names=["logits", "values"], dynamic_axes=axes, dynamo=False)
    return buffer.getvalue()
