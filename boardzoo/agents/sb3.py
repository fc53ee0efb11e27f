"""A stable-baselines3 model as a boardzoo agent (for arenas and as a gym opponent)."""

from __future__ import annotations

from typing import Any

import numpy as np

from boardzoo.envs.core import Game
from boardzoo.errors import InvalidOptionError, excerpt
from boardzoo.options import KeywordChecked
from boardzoo.wrappers.model import boardzoo_env

__all__ = ["SB3Agent"]


class SB3Agent(KeywordChecked):
    """Plays ``model.predict`` on the observation of the agent to move.

    Works with models (or policies) trained on boardzoo's gym views: the mover's planes are
    reshaped to the model's observation shape, so "planes" and "flat" models both play.
    MaskablePPO (sb3-contrib) gets the legal-action mask; other models' illegal choices are
    replaced by the legal action they rate best when they expose action probabilities, else
    by the first legal action (and counted in ``illegal_choices``).
    """

    def __init__(self, model: Any, deterministic: bool = True):
        if not hasattr(model, "predict"):
            raise InvalidOptionError(
                f"SB3Agent needs a stable-baselines3 model, got {excerpt(model)}")
        self.model = model
        self.deterministic = deterministic
        self.illegal_choices = 0

    def act(self, env: Any) -> int:
        planes, mask = self._observation(env)
        kwargs = {"action_masks": mask} if _is_maskable(self.model) else {}
        action, _ = self.model.predict(planes, deterministic=self.deterministic, **kwargs)
        action = int(np.asarray(action).reshape(-1)[0])
        if mask[action]:
            return action
        self.illegal_choices += 1
        return self._best_legal(planes, mask)

    def policy(self, env: Any) -> np.ndarray:
        """The model's move probabilities for the side to move, shape ``[num_actions]``: zero
        on illegal actions, renormalised over the legal ones (what a masked policy plays
        from; its deterministic move is the most probable). Needs a model with action
        probabilities (``get_distribution``: PPO, A2C...)."""
        planes, mask = self._observation(env)
        probabilities = np.where(mask, self._probabilities(planes), 0.0)
        total = probabilities.sum()
        return probabilities / total if total > 0 else mask / mask.sum()

    def _observation(self, env: Any) -> tuple[np.ndarray, np.ndarray]:
        """(the mover's planes in the model's shape, the boolean legal mask) of ``env``."""
        raw = boardzoo_env(env)
        if raw is None:
            raise InvalidOptionError("SB3Agent plays boardzoo envs (AEC or the gym view)")
        observation = raw.observe(raw.agent_selection)
        mask = observation["action_mask"].astype(bool)
        planes = observation["observation"]
        self.check_plays(raw.game)
        space = getattr(self.model, "observation_space", None)
        if space is not None:
            planes = planes.reshape(space.shape)
        return planes, mask

    def check_plays(self, game: Game) -> None:
        """Refuse a game the model was not trained for (its observations or actions are not
        the model's sizes: another game or board size) with an InvalidOptionError naming
        the model's sizes and the game's."""
        if self._fits(game):
            return
        shape, actions = self._model_sizes()
        planes = game.planes_shape
        raise InvalidOptionError(
            f"{self.trained_for()} takes observations of shape {shape} and {actions} actions; "
            f"{game!r} has {planes} ({int(np.prod(planes))} values) and {game.num_actions} "
            "actions: use it on the game and options it was trained for"
        )

    def _fits(self, game: Game) -> bool:
        """Whether the model takes ``game``'s planes (as they are, or flat) and actions."""
        shape, actions = self._model_sizes()
        planes = tuple(game.planes_shape)
        fits_planes = shape is None or shape in (planes, (int(np.prod(planes)),))
        return fits_planes and (actions is None or actions == game.num_actions)

    def _model_sizes(self) -> tuple[tuple[int, ...] | None, int | None]:
        """The model's observation shape and number of actions (None: it does not say)."""
        space = getattr(self.model, "observation_space", None)
        actions = getattr(getattr(self.model, "action_space", None), "n", None)
        return (None if space is None else tuple(space.shape),
                None if actions is None else int(actions))

    def trained_for(self) -> str:
        """The model, as error messages name it."""
        return f"this {type(self.model).__name__} model"

    def _best_legal(self, planes: np.ndarray, mask: np.ndarray) -> int:
        if self._has_probabilities():
            return int(np.argmax(np.where(mask, self._probabilities(planes), -1.0)))
        return int(np.flatnonzero(mask)[0])

    def _has_probabilities(self) -> bool:
        return hasattr(getattr(self.model, "policy", self.model), "get_distribution")

    def _probabilities(self, planes: np.ndarray) -> np.ndarray:
        """The model's action probabilities for ``planes`` (unmasked), shape ``[num_actions]``."""
        if not self._has_probabilities():
            raise InvalidOptionError(f"{self.trained_for()} gives no action probabilities")
        import torch

        policy = getattr(self.model, "policy", self.model)
        obs, _ = policy.obs_to_tensor(planes)
        with torch.no_grad():
            return policy.get_distribution(obs).distribution.probs[0].cpu().numpy()

    def __repr__(self) -> str:
        return f"SB3Agent({type(self.model).__name__})"


def _is_maskable(model: Any) -> bool:
    return type(model).__name__.startswith("Maskable")
