"""AlphaZero's network (PyTorch): a residual tower with a policy head and a value head, built
from a game's observation planes and action count, and its batched evaluator.

Input: the game's planes ``(H, W, C)`` from the side to move's view plus a constant plane
(so zero padding is told apart from empty cells), as ``(C + 1, H, W)``. Output: policy logits
``[B, A]`` and a value ``[B]`` in (-1, 1) from the side to move's view (tanh).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np
import torch
from torch import nn
from torch.nn import functional as F

from boardzoo.agents.alphazero.inference import network_forward, resolve_inference
from boardzoo.envs.core import Game
from boardzoo.envs.symmetry import symmetries
from boardzoo.errors import InvalidOptionError, excerpt
from boardzoo.wrappers.model import Evaluation

ILLEGAL_LOGIT = -1e9

__all__ = ["NETWORK_LIMITS", "AlphaZeroNet", "NetworkConfig", "NetworkEvaluator",
           "alphazero_loss", "pick_device", "zero_subnormals"]


#: the sizes a network may have, per field: up to AlphaGo Zero's 40 blocks at twice its 256
#: channels (under 1 GB of weights); a bigger one is a damaged or hostile checkpoint or
#: config, refused before anything is allocated
NETWORK_LIMITS = {"blocks": (0, 40), "channels": (1, 512), "value_hidden": (1, 2048)}


@dataclass(frozen=True)
class NetworkConfig:
    """The tower's shape: ``blocks`` residual blocks of ``channels`` 3x3 convolutions; the
    value head's hidden layer has ``value_hidden`` units (each within NETWORK_LIMITS)."""

    blocks: int = 4
    channels: int = 64
    value_hidden: int = 64

    def __post_init__(self) -> None:
        for name, value in asdict(self).items():
            low, high = NETWORK_LIMITS[name]
            if type(value) is not int or not low <= value <= high:
                raise InvalidOptionError(
                    f"network {name}={excerpt(value)}; give an integer in {low}..{high}")


class _Residual(nn.Module):
    def __init__(self, channels: int):
        super().__init__()
        self.conv1 = nn.Conv2d(channels, channels, 3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(channels)
        self.conv2 = nn.Conv2d(channels, channels, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(channels)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = F.relu(self.bn1(self.conv1(x)))
        return F.relu(x + self.bn2(self.conv2(y)))


class AlphaZeroNet(nn.Module):
    """Residual policy-value network for planes ``planes_shape = (H, W, C)`` and
    ``num_actions`` actions. ``forward`` takes ``[B, H, W, C]`` float planes."""

    def __init__(self, planes_shape: tuple[int, int, int], num_actions: int,
                 config: NetworkConfig = NetworkConfig()):
        super().__init__()
        rows, cols, planes = planes_shape
        self.planes_shape = tuple(planes_shape)
        self.num_actions = num_actions
        self.config = config
        width = config.channels
        self.stem = nn.Sequential(
            nn.Conv2d(planes + 1, width, 3, padding=1, bias=False), nn.BatchNorm2d(width), nn.ReLU()
        )
        self.tower = nn.Sequential(*[_Residual(width) for _ in range(config.blocks)])
        self.policy_conv = nn.Sequential(nn.Conv2d(width, 2, 1, bias=False), nn.BatchNorm2d(2),
                                         nn.ReLU())
        self.policy_fc = nn.Linear(2 * rows * cols, num_actions)
        self.value_conv = nn.Sequential(nn.Conv2d(width, 1, 1, bias=False), nn.BatchNorm2d(1),
                                        nn.ReLU())
        self.value_fc = nn.Sequential(nn.Linear(rows * cols, config.value_hidden), nn.ReLU(),
                                      nn.Linear(config.value_hidden, 1))

    @classmethod
    def for_game(cls, game: Game, config: NetworkConfig = NetworkConfig()) -> AlphaZeroNet:
        return cls(game.planes_shape, game.num_actions, config)

    def forward(self, planes: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """(logits ``[B, A]``, values ``[B]``) for planes ``[B, H, W, C]``; values from the
        side to move's view. Illegal actions are *not* masked here: the loss and the evaluator
        mask them."""
        x = planes.permute(0, 3, 1, 2)
        x = torch.cat([x, torch.ones_like(x[:, :1])], dim=1)
        x = self.tower(self.stem(x))
        logits = self.policy_fc(self.policy_conv(x).flatten(1))
        values = torch.tanh(self.value_fc(self.value_conv(x).flatten(1))).squeeze(-1)
        return logits, values


def alphazero_loss(
    net: AlphaZeroNet,
    planes: torch.Tensor,
    masks: torch.Tensor,
    target_policy: torch.Tensor,
    target_value: torch.Tensor,
    l2: float,
) -> tuple[torch.Tensor, dict[str, float]]:
    """AlphaZero's loss, averaged over the batch: ``(z - v)^2 - pi^T log p + c ||theta||^2``
    with ``p`` the softmax of the masked logits, ``c = l2`` over every weight (batch-norm
    parameters and biases included, as in the paper's formula). Returns the loss and its
    parts as floats."""
    logits, values = net(planes)
    # a finite fill keeps 0 * log p (illegal actions) at 0 in the backward pass too
    log_p = torch.log_softmax(logits.masked_fill(~masks, ILLEGAL_LOGIT), dim=-1)
    policy_loss = -(target_policy * log_p).sum(-1).mean()
    value_loss = ((target_value - values) ** 2).mean()
    l2_term = torch.stack([(p * p).sum() for p in net.parameters()]).sum()
    loss = value_loss + policy_loss + l2 * l2_term
    parts = {"loss": float(loss.detach()), "value_loss": float(value_loss.detach()),
             "policy_loss": float(policy_loss.detach()), "l2": float(l2_term.detach())}
    return loss, parts


@torch.no_grad()
def zero_subnormals(module: nn.Module) -> int:
    """Set every floating-point parameter and buffer below float32's smallest normal
    magnitude (about 1.2e-38) to zero; returns how many were.

    Why: weight decay drives the weights of channels that stopped contributing towards zero,
    into the subnormal range, where CPU arithmetic is tens of times slower. The shipped
    Othello 6x6 network had 62,724 such weights and evaluated a batch about 8x slower than
    with them zeroed; values that small change no output.
    """
    zeroed = 0
    for tensor in (*module.parameters(), *module.buffers()):
        if tensor.is_floating_point():
            tiny = (tensor != 0) & (tensor.abs() < torch.finfo(tensor.dtype).tiny)
            zeroed += int(tiny.sum())
            tensor[tiny] = 0.0
    return zeroed


def pick_device(device: str | None = None) -> torch.device:
    """``device`` or, when None or "auto", CUDA if available, else the CPU."""
    if device in (None, "auto"):
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    return torch.device(device)


class NetworkEvaluator:
    """The :class:`~boardzoo.wrappers.model.Evaluator` of a network: one forward pass per
    batch, run by ``inference``: "torch" (in inference mode, on the network's device),
    "onnxruntime" (on the CPU, the weights as they are now) or "auto"
    (:func:`~boardzoo.agents.alphazero.inference.resolve_inference`). With
    ``symmetric=True`` every position is evaluated under each of the game's symmetries (one
    larger batch) and the policies (probabilities) and values are averaged."""

    def __init__(self, net: AlphaZeroNet, game: Game | None = None, symmetric: bool = False,
                 inference: str = "auto"):
        self.net = net.eval()
        self.device = next(net.parameters()).device
        self.symmetries = symmetries(game) if (symmetric and game is not None) else None
        #: what runs the forward pass: "torch" or "onnxruntime"
        self.inference = resolve_inference(inference, self.device)
        self._run = network_forward(self.net, self.inference)

    def __call__(self, observations: np.ndarray, masks: np.ndarray) -> Evaluation:
        if self.symmetries is None:
            logits, values = self._forward(observations)
            return Evaluation(np.where(masks, logits, -np.inf), values)
        count = len(observations)
        batch = np.concatenate([s.planes(observations) for s in self.symmetries])
        logits, values = self._forward(batch)
        probs = np.zeros(masks.shape)
        for k, sym in enumerate(self.symmetries):
            part = logits[k * count:(k + 1) * count][:, sym.action_map]  # back to the original
            part = np.where(masks, part, -np.inf)
            part = np.exp(part - part.max(axis=1, keepdims=True))
            probs += part / part.sum(axis=1, keepdims=True)
        with np.errstate(divide="ignore"):
            mean_logits = np.log(probs / len(self.symmetries))
        return Evaluation(mean_logits, values.reshape(len(self.symmetries), count).mean(0))

    def _forward(self, observations: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return self._run(np.ascontiguousarray(observations, np.float32))

