"""Single-agent Gymnasium view of a boardzoo game against a fixed opponent.

``gymnasium.make("boardzoo/ConnectFour-v0", opponent="random", seat="random")``. The learner
plays one seat and the opponent's replies happen inside ``step``, so every observation and
every reward is the learner's: the reward of a step is the learner's result (+1 win, 0 draw,
-1 loss, at the end) even when the opponent's reply ended the game (the reward-perspective
bug of PettingZoo #1147 cannot happen here). ``info["action_mask"]`` (int8) and
``action_masks()`` (bool, for sb3-contrib's MaskablePPO) are the learner's legal moves.

An illegal action ends the episode with reward -1 and ``info["illegal_action"] = True``
(``illegal_action`` "terminate", the default, or "lose": they differ only in the other
seat's reward, which this view does not show, and neither warns: the reward and the info
say it); ``illegal_action="raise"`` raises instead (for debugging).
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np

from boardzoo.envs import checked_game, gym_id
from boardzoo.envs.aec import AGENTS, BoardGameEnv, check_illegal_action
from boardzoo.errors import GameOverError, InvalidOptionError
from boardzoo.options import keyword_names
from boardzoo.rl.kernels import batch_kernels
from boardzoo.rl.observation import observation_space, shape_observation
from boardzoo.rl.opponents import CompiledOpponent, resolve_opponent
from boardzoo.rng import below, make_rng

__all__ = ["SingleAgentEnv", "check_learner_options", "env_keywords"]


def check_num_envs(num_envs: Any) -> None:
    """Raise InvalidOptionError unless ``num_envs`` (games stepped together) is an integer
    >= 1."""
    if isinstance(num_envs, bool) or not isinstance(num_envs, (int, np.integer)) or num_envs < 1:
        raise InvalidOptionError(f"num_envs={num_envs!r} is not allowed; use an integer >= 1")


def check_opening_plies(plies: Any) -> None:
    """Raise InvalidOptionError unless ``plies`` is an integer >= 0."""
    if isinstance(plies, bool) or not isinstance(plies, (int, np.integer)) or plies < 0:
        raise InvalidOptionError(
            f"opening_plies={plies!r} is not allowed; use an integer >= 0 (the most random "
            "moves played at each reset; 0: every game starts from the initial position)"
        )


def check_seat(seat: Any) -> None:
    """Raise InvalidOptionError unless ``seat`` is 0, 1 or "random"."""
    if isinstance(seat, bool) or seat not in (0, 1, "random"):
        raise InvalidOptionError(f"seat={seat!r} is not allowed; use 0, 1 or 'random'")


def check_learner_options(illegal_action: Any, opening_plies: Any, seat: Any = "random",
                          num_envs: Any = 1) -> None:
    """Raise InvalidOptionError for a learner env's option outside its allowed values: the
    options every learner env takes, and ``seat`` / ``num_envs`` where it takes them (their
    defaults pass)."""
    check_num_envs(num_envs)
    check_seat(seat)
    check_illegal_action(illegal_action)
    check_opening_plies(opening_plies)


def env_keywords(env_class: type) -> list[str]:
    """The keywords of a learner env's constructor other than the game and its options:
    listed as valid, with the game's options, when an unknown one is passed."""
    return [name for name in keyword_names(env_class) if name != "game"]


class SingleAgentEnv(gym.Env):
    """One game against ``opponent`` from the learner's seat.

    ``seat``: 0 (moves first), 1, or "random" (drawn at each reset). ``observation``:
    "planes" (float32 (H, W, C), the default) or "flat" (float32 vector, for MlpPolicy).
    ``opening_plies``: each reset plays a uniformly drawn number (0 to ``opening_plies``) of
    uniformly random moves first, for both sides (never one that ends the game), so that a
    learner sees varied positions and not only its own lines from the initial position.
    ``opponent``: see :func:`boardzoo.rl.opponents.resolve_opponent`.
    """

    metadata = {"render_modes": ["ansi", "rgb_array", "human"], "render_fps": 2}

    def __init__(
        self,
        game: str,
        opponent: Any = "random",
        seat: int | str = "random",
        render_mode: str | None = None,
        illegal_action: str = "terminate",
        observation: str = "planes",
        opening_plies: int = 0,
        **options: Any,
    ):
        check_learner_options(illegal_action, opening_plies, seat=seat)
        self.opening_plies = int(opening_plies)
        self.game = checked_game(
            game, options, f"gym.make({gym_id(game)!r})", also=env_keywords(SingleAgentEnv)
        )
        # "terminate" and "lose" give the learner the same -1; "lose" keeps the inner env quiet
        inner = "raise" if illegal_action == "raise" else "lose"
        self.aec_env = BoardGameEnv(self.game, render_mode, inner)
        self.render_mode = render_mode
        self.observation_format = observation
        self.observation_space = observation_space(self.game, observation)
        self.action_space = gym.spaces.Discrete(self.game.num_actions)
        self._opponent_spec = opponent
        self._seat_spec = seat
        self.opponent = resolve_opponent(opponent, game=self.game)
        self.seat = 0 if seat == "random" else int(seat)
        self._rng = make_rng(None)

    @property
    def learner(self) -> str:
        return AGENTS[self.seat]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None):
        """A new game; with ``seed``, the seat draws and the opponent are reseeded."""
        super().reset(seed=seed)
        if seed is not None:
            self._rng = make_rng(seed)
            self._reseed_opponent(seed)
        if self._seat_spec == "random":
            self.seat = int(below(self._rng, 2))
        opening = self.opening_plies > 0 and not options
        if opening:
            options = {"moves": self._random_opening()}
        self.aec_env.reset(seed=seed, options=options)
        self._let_opponent_move()
        if opening and self._done():  # the reply to the opening ended the game: start over
            self.aec_env.reset(seed=seed)
            self._let_opponent_move()
        return self._observation(), self._info()

    def step(self, action: Any):
        if self._done():
            raise GameOverError("the episode has ended; call reset()")
        self.aec_env.step(action)
        self._let_opponent_move()
        terminated = self._done()
        reward = float(self.aec_env.rewards[self.learner]) if terminated else 0.0
        return self._observation(), reward, terminated, False, self._info()

    def action_masks(self) -> np.ndarray:
        """Bool mask ``[num_actions]`` of the learner's legal actions (all False at the end)."""
        if self._done():
            return np.zeros(self.game.num_actions, dtype=bool)
        return self.aec_env.legal_mask()

    def render(self):
        return self.aec_env.render()

    def close(self) -> None:
        self.aec_env.close()

    def _random_opening(self) -> list[int]:
        """The moves of a random opening, drawn from the env's generator as the vector env
        draws them."""
        state = self.game.initial_state()
        mask = np.empty(self.game.num_actions, np.bool_)
        moves = np.empty(self.opening_plies, np.int64)
        count = batch_kernels(self.game).random_opening(
            state, self.opening_plies, self._rng, mask, np.empty_like(state), moves
        )
        return [int(m) for m in moves[:count]]

    def _reseed_opponent(self, seed: int) -> None:
        if isinstance(self._opponent_spec, (str, dict)):
            self.opponent = resolve_opponent(self._opponent_spec, seed=seed)
        elif hasattr(self.opponent, "reseed"):
            self.opponent.reseed(seed)

    def _done(self) -> bool:
        return self.aec_env.terminations[self.learner]

    def _let_opponent_move(self) -> None:
        env = self.aec_env
        while not self._done() and env.agent_selection != self.learner:
            if isinstance(self.opponent, CompiledOpponent):
                action = self.opponent.choose(self.game, env.state_array, self._rng)
            else:
                action = self.opponent.act(env)
            env.step(action)

    def _observation(self) -> np.ndarray:
        planes = self.aec_env.observe(self.learner)["observation"]
        return shape_observation(planes, self.observation_format)

    def _info(self) -> dict[str, Any]:
        info = {"action_mask": self.action_masks().astype(np.int8), "seat": self.seat}
        if self.aec_env.infos.get(self.learner, {}).get("illegal_action"):
            info["illegal_action"] = True
        return info
