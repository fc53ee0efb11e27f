"""PPO policies as agents, stored as weights only: ``make_agent("ppo:checkpoint=connect_four")``.

A checkpoint is a ``torch.save`` of a plain dict (loaded with ``weights_only=True``, so loading
never runs code): ``format``, ``game``, ``game_options``, ``observation`` ("planes" or
"flat"), ``net_arch``, ``features`` ("flatten" or "board_cnn"), ``features_dim``, and
``state_dict``, the weights of an sb3-contrib ``MaskableActorCriticPolicy`` that boardzoo's
code rebuilds from those fields (this module needs the torch and SB3 extras). Shipped
checkpoints are found by name (:mod:`boardzoo.checkpoints`); a path to any such file works
too.

:class:`BoardCNN` is the small CNN features extractor for the "planes" format (SB3's own
``NatureCNN`` wants images of at least 36x36).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import numpy as np
import torch
from gymnasium import spaces
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor

from boardzoo.agents.sb3 import SB3Agent
from boardzoo.checkpoints import shipped_checkpoints
from boardzoo.envs import make_game
from boardzoo.envs.core import Game
from boardzoo.errors import BoardzooError, CheckpointError, InvalidOptionError, excerpt
from boardzoo.files import atomic_write_bytes
from boardzoo.torch_files import error_reason, safe_torch_load, torch_bytes, unfit_tensor

__all__ = [
    "BoardCNN",
    "PPOAgent",
    "checkpoint_path",
    "load_policy",
    "save_policy",
]

FORMAT = "boardzoo-ppo-1"
_FEATURES = ("flatten", "board_cnn")


class BoardCNN(BaseFeaturesExtractor):
    """Two 3x3 same-padding convolutions over ``(H, W, C)`` planes, then a linear layer to
    ``features_dim`` features (input ``[B, H, W, C]`` float32, as the gym views give)."""

    def __init__(self, observation_space: spaces.Box, features_dim: int = 128, channels: int = 32):
        super().__init__(observation_space, features_dim)
        height, width, planes = observation_space.shape
        self.convs = torch.nn.Sequential(
            torch.nn.Conv2d(planes, channels, 3, padding=1),
            torch.nn.ReLU(),
            torch.nn.Conv2d(channels, channels, 3, padding=1),
            torch.nn.ReLU(),
            torch.nn.Flatten(),
        )
        self.linear = torch.nn.Sequential(
            torch.nn.Linear(channels * height * width, features_dim), torch.nn.ReLU()
        )

    def forward(self, observations: torch.Tensor) -> torch.Tensor:
        return self.linear(self.convs(observations.permute(0, 3, 1, 2)))


def policy_kwargs(features: str = "flatten", net_arch=(64, 64), features_dim: int = 128) -> dict:
    """SB3 ``policy_kwargs`` for a boardzoo policy (the fields a checkpoint stores)."""
    if features not in _FEATURES:
        raise InvalidOptionError(
            f"features={excerpt(features)} is not allowed; use one of {_FEATURES}")
    kwargs: dict[str, Any] = {"net_arch": list(net_arch)}
    if features == "board_cnn":
        kwargs["features_extractor_class"] = BoardCNN
        kwargs["features_extractor_kwargs"] = {"features_dim": features_dim}
    return kwargs


def save_policy(
    policy: Any,
    path: str | os.PathLike,
    game: str,
    game_options: dict,
    observation: str,
    features: str,
    net_arch,
    features_dim: int = 128,
) -> None:
    """Write ``policy``'s weights and how to rebuild it to ``path`` (atomically)."""
    record = {
        "format": FORMAT,
        "game": game,
        "game_options": dict(game_options),
        "observation": observation,
        "features": features,
        "net_arch": list(net_arch),
        "features_dim": int(features_dim),
        "state_dict": {k: v.detach().cpu() for k, v in policy.state_dict().items()},
    }
    atomic_write_bytes(path, torch_bytes(record))


def checkpoint_path(checkpoint: str | os.PathLike) -> Path:
    """The file of a shipped checkpoint's name or of a path (which must be a file)."""
    path = Path(checkpoint)
    if path.is_dir():
        raise CheckpointError(f"PPO checkpoint {str(path)!r} is a directory; give a .pt file")
    if path.suffix == ".pt" or path.exists():
        if not path.is_file():
            raise CheckpointError(f"PPO checkpoint {str(path)!r} does not exist")
        return path
    shipped = shipped_checkpoints("ppo")
    if str(checkpoint) not in shipped:
        raise CheckpointError(
            f"no shipped PPO checkpoint {str(checkpoint)!r}; shipped: "
            f"{', '.join(shipped) or 'none'} (or give a path to a .pt file)"
        )
    return shipped[str(checkpoint)]


def load_policy(checkpoint: str | os.PathLike) -> tuple[Any, dict]:
    """The policy (in eval mode, CPU) and the checkpoint's fields, from a name or path."""
    path = checkpoint_path(checkpoint)
    record = safe_torch_load(path, "file", kind="boardzoo PPO checkpoint")
    if not isinstance(record, dict) or record.get("format") != FORMAT:
        raise CheckpointError(
            f"file {str(path)!r} is not a boardzoo PPO checkpoint (no format {FORMAT!r} field)"
        )
    _check_fields(record, path)
    try:
        game = policy_game(record)
        shape: tuple[int, ...] = game.planes_shape
        if record["observation"] == "flat":
            shape = (int(np.prod(shape)),)
        policy = MaskableActorCriticPolicy(
            spaces.Box(0.0, 1.0, shape, np.float32),
            spaces.Discrete(game.num_actions),
            lambda _: 0.0,
            **policy_kwargs(record["features"], record["net_arch"], record["features_dim"]),
        )
        policy.load_state_dict(record["state_dict"])  # checks names and shapes, casts dtypes
        unfit = unfit_tensor(record["state_dict"], policy.state_dict())
    except (KeyError, TypeError, ValueError, RuntimeError, BoardzooError) as err:
        raise CheckpointError(
            f"file {str(path)!r} is a malformed boardzoo PPO checkpoint (fields or weights): "
            f"{error_reason(err)}"
        ) from None
    if unfit is not None:
        raise CheckpointError(f"file {str(path)!r} has unusable weights: {unfit}")
    policy.set_training_mode(False)
    return policy, {k: v for k, v in record.items() if k != "state_dict"}


#: the network sizes a PPO checkpoint may declare: hidden layers and their widths, and the
#: CNN's features (shipped policies use two layers of 64): more is a damaged or hostile file
MAX_LAYERS, MAX_WIDTH = 8, 1024
_OBSERVATIONS = ("planes", "flat")


def _check_fields(record: dict[str, Any], path: Path) -> None:
    """CheckpointError unless the fields that rebuild the policy are of the kinds and
    sizes :func:`save_policy` writes, checked before any network is built."""
    arch, dim = record.get("net_arch"), record.get("features_dim")
    problems = {
        "observation": (record.get("observation") in _OBSERVATIONS, f"one of {_OBSERVATIONS}"),
        "features": (record.get("features") in _FEATURES, f"one of {_FEATURES}"),
        "net_arch": (isinstance(arch, list) and len(arch) <= MAX_LAYERS and all(
            type(w) is int and 1 <= w <= MAX_WIDTH for w in arch),
            f"a list of at most {MAX_LAYERS} layer widths in 1..{MAX_WIDTH}"),
        "features_dim": (type(dim) is int and 1 <= dim <= MAX_WIDTH,
                         f"an integer in 1..{MAX_WIDTH}"),
        "game_options": (isinstance(record.get("game_options"), dict), "a table of options"),
    }
    for field, (ok, allowed) in problems.items():
        if not ok:
            raise CheckpointError(
                f"file {str(path)!r} is a malformed boardzoo PPO checkpoint: {field} is "
                f"{excerpt(record.get(field))}, not {allowed}")


def policy_game(config: dict[str, Any]) -> Game:
    """The game (with its options) a PPO checkpoint's fields say it was trained for."""
    return make_game(config["game"], **config["game_options"])


class PPOAgent(SB3Agent):
    """A shipped or saved PPO policy (masked): ``PPOAgent("tictactoe")`` or a path."""

    def __init__(self, checkpoint: str, deterministic: bool = True):
        policy, self.config = load_policy(checkpoint)
        super().__init__(policy, deterministic=deterministic)
        self.checkpoint = str(checkpoint)
        self.game = policy_game(self.config)

    def trained_for(self) -> str:
        return f"PPO checkpoint {self.checkpoint!r} (trained for {self.game!r})"

    def _fits(self, game: Game) -> bool:
        """Only the game and options it was trained for, as AlphaZero agents require."""
        return game.key == self.game.key and super()._fits(game)

    def __repr__(self) -> str:
        return f"PPOAgent({self.checkpoint!r})"
