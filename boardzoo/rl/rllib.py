"""RLlib (new API stack): any boardzoo game as a ``MultiAgentEnv``, boardzoo agents as RLlib
modules, and a self-play PPO config in which they are fixed opponents.

``PPOConfig().environment(RLlibEnv, env_config={"game": "connect_four"})`` with RLlib's
action-masking module (``ray.rllib.examples.rl_modules.classes.action_masking_rlm``) trains
with no adapter: each observation is a dict with the flat planes from the observing agent's
view under ``"observations"`` and the legal moves as a float 0/1 vector under
``"action_mask"``, the keys that module reads. :func:`selfplay_ppo_config` builds the whole
self-play setup: one trained policy ("main") on both seats, optionally frozen past copies of
it (a league refreshed by a callback) and boardzoo agents (random, MCTS, alpha-beta,
AlphaZero, ...) as fixed opponents, assigned to seats per episode by RLlib's policy mapping.
:func:`ray_session` starts a private loopback-only Ray (as boardzoo's other Ray paths do, see
docs/ray.md) or joins a cluster at an address.

Needs the ``rllib`` extra (``pip install 'boardzoo[rllib]'``).
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
from collections.abc import Iterator, Mapping
from typing import Any, cast

import gymnasium as gym
import numpy as np
from ray.rllib.algorithms.ppo import PPOConfig
from ray.rllib.callbacks.callbacks import RLlibCallback
from ray.rllib.core.columns import Columns
from ray.rllib.core.rl_module.default_model_config import DefaultModelConfig
from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
from ray.rllib.core.rl_module.rl_module import RLModule, RLModuleSpec
from ray.rllib.env.multi_agent_env import MultiAgentEnv
from ray.rllib.examples.rl_modules.classes.action_masking_rlm import (
    ActionMaskingTorchRLModule,
)

from boardzoo.envs import checked_game
from boardzoo.envs.aec import (
    AGENTS,
    BoardGameEnv,
    check_illegal_action,
    forfeit_returns,
    snapshot_of,
)
from boardzoo.envs.core import OUTCOME, TO_PLAY, Game, outcome_returns
from boardzoo.errors import IllegalActionError, InvalidOptionError
from boardzoo.rl.observation import observation_shape

__all__ = [
    "MAIN",
    "AgentModule",
    "LeagueCallback",
    "ModuleAgent",
    "RLlibEnv",
    "ray_session",
    "selfplay_ppo_config",
]

#: the module id of the policy that self-play trains
MAIN = "main"
_ENV_KEYWORDS = ("game", "illegal_action", "include_state")


class RLlibEnv(MultiAgentEnv):
    """A boardzoo game as an RLlib multi-agent env: agents ``"player_0"`` (moves first) and
    ``"player_1"``; only the side to move gets an observation, except at the end, when both
    get their last one with their reward (+1 win, 0 draw, -1 loss; an illegal action: -1
    for its mover, 0 for the other seat, or +1 with ``illegal_action="lose"``).

    ``RLlibEnv("connect_four", rows=6)`` or, as RLlib builds it,
    ``RLlibEnv({"game": "connect_four", "rows": 6})``. ``include_state=True`` adds the game's
    state array (viewed as int64) under ``"state"``: what :class:`AgentModule` needs to
    search the position (:func:`selfplay_ppo_config` turns it on when there are such
    opponents).
    """

    def __init__(self, config: Mapping[str, Any] | str | None = None, **options: Any):
        super().__init__()
        settings = {"game": config} if isinstance(config, str) else dict(config or {})
        settings.update(options)
        if "game" not in settings:
            raise InvalidOptionError(
                'RLlibEnv needs a game: RLlibEnv("connect_four") or env_config={"game": ...}'
            )
        name = settings.pop("game")
        self.illegal_action = settings.pop("illegal_action", "terminate")
        check_illegal_action(self.illegal_action)
        self.include_state = bool(settings.pop("include_state", False))
        self.game: Game = checked_game(name, settings, "RLlibEnv()", also=_ENV_KEYWORDS)
        self.agents = self.possible_agents = list(AGENTS)
        space = observation_space(self.game, self.include_state)
        self.observation_spaces = dict.fromkeys(AGENTS, space)
        self.action_spaces = dict.fromkeys(AGENTS, gym.spaces.Discrete(self.game.num_actions))
        self._starts = BoardGameEnv(self.game, illegal_action="raise")  # reads reset options
        self._state = self.game.initial_state()

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        """A new game (``options``: "moves" or "position", as boardzoo's AEC env takes)."""
        self._starts.reset(seed=seed, options=options)
        self._state = self._starts.state_array
        mover = AGENTS[int(self._state[TO_PLAY])]
        return {mover: self._observe(mover)}, {mover: {}}

    def step(self, action_dict: dict[Any, Any]):
        mover = AGENTS[int(self._state[TO_PLAY])]
        try:
            action = self.game.check_action(self._state, action_dict[mover])
        except IllegalActionError:
            if self.illegal_action == "raise":
                raise
            returns = forfeit_returns(AGENTS.index(mover), self.illegal_action)
            infos = {mover: {"illegal_action": True}}
        else:
            self.game.kernels.apply(self._state, action)
            returns, infos = outcome_returns(int(self._state[OUTCOME])), {}
            if not self._state[OUTCOME]:
                nxt = AGENTS[int(self._state[TO_PLAY])]
                return {nxt: self._observe(nxt)}, {}, {"__all__": False}, {"__all__": False}, {}
        observations = {agent: self._observe(agent, final=True) for agent in AGENTS}
        rewards = {agent: float(r) for agent, r in zip(AGENTS, returns, strict=True)}
        done = {agent: True for agent in AGENTS} | {"__all__": True}
        return observations, rewards, done, {"__all__": False}, infos

    def _observe(self, agent: str, final: bool = False) -> dict[str, np.ndarray]:
        return observe(self.game, self._state, AGENTS.index(agent), not final,
                       self.include_state)


def observe(game: Game, state: np.ndarray, seat: int, with_mask: bool = True,
            include_state: bool = False) -> dict[str, np.ndarray]:
    """:class:`RLlibEnv`'s observation of ``state`` for ``seat``: the flat planes from its
    view, the legal moves as float 0/1 (zeros for a seat not to move or after the end)."""
    mask = np.zeros(game.num_actions, dtype=np.float32)
    if with_mask and not state[OUTCOME] and int(state[TO_PLAY]) == seat:
        mask[game.legal_mask(state)] = 1.0
    obs = {"observations": game.observe(state, seat).reshape(-1), "action_mask": mask}
    if include_state:
        obs["state"] = _as_int64(state)
    return obs


def observation_space(game: Game, include_state: bool = False) -> gym.spaces.Dict:
    """The observation space of :class:`RLlibEnv` for ``game``."""
    spaces: dict[str, gym.Space] = {
        "observations": gym.spaces.Box(0.0, 1.0, observation_shape(game, "flat"), np.float32),
        "action_mask": gym.spaces.Box(0.0, 1.0, (game.num_actions,), np.float32),
    }
    if include_state:
        limits = np.iinfo(np.int64)
        spaces["state"] = gym.spaces.Box(limits.min, limits.max, game.initial_state().shape,
                                         np.int64)
    return gym.spaces.Dict(spaces)


def _as_int64(state: np.ndarray) -> np.ndarray:
    """A state array as int64 (bit for bit for uint64 bitboards)."""
    return state.view(np.int64).copy() if state.dtype == np.uint64 else state.astype(np.int64)


def _from_int64(row: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """The inverse of :func:`_as_int64` for the game's state ``dtype``."""
    row = np.ascontiguousarray(row, dtype=np.int64)
    return row.view(np.uint64).copy() if dtype == np.uint64 else row.astype(dtype)


def _numpy(value: Any) -> np.ndarray:
    return value.cpu().numpy() if hasattr(value, "cpu") else np.asarray(value)


# ------------------------------------------------------------------ agents as modules
class AgentModule(RLModule):
    """A boardzoo agent as a fixed (never trained) RLlib module: it reads each position
    from the observation's ``"state"`` and returns the agent's move as the action.

    ``model_config``: ``{"agent": spec, "game": name, "options": {...}, "seed": int}``, the
    agent spec as ``make_agent`` takes it ("mcts:simulations=100", {"name": "alphabeta",
    "time_limit": 0.1}, ...). The env must have ``include_state=True``."""

    def setup(self) -> None:
        from boardzoo.agents import make_agent

        config: Mapping[str, Any] = cast(Mapping[str, Any], self.model_config or {})
        self.game = checked_game(config["game"], config.get("options", {}), "AgentModule")
        self.agent = make_agent(config["agent"], seed=config.get("seed"))
        self._env = BoardGameEnv(self.game, illegal_action="raise")

    def _forward(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        obs = batch[Columns.OBS]
        if not isinstance(obs, Mapping) or "state" not in obs:
            raise InvalidOptionError(
                "a boardzoo agent as an RLlib module reads the position from the observation's "
                "'state': create the env with include_state=True"
            )
        dtype = self.game.initial_state().dtype
        actions = [self._act(_from_int64(row, dtype)) for row in _numpy(obs["state"])]
        return {Columns.ACTIONS: np.asarray(actions, dtype=np.int64)}

    def _forward_train(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        raise NotImplementedError("a boardzoo agent module is a fixed opponent, never trained")

    def _act(self, state: np.ndarray) -> int:
        self._env.restore_state(snapshot_of(self.game, state))
        return int(self.agent.act(self._env))


class ModuleAgent:
    """A trained RLlib module (e.g. ``algo.get_module("main")``, with RLlib's masking
    module) as a boardzoo agent for arenas: it plays the legal move it rates best."""

    def __init__(self, module: RLModule):
        self.module = module

    def act(self, env: Any) -> int:
        import torch

        raw = env.unwrapped
        seat = AGENTS.index(raw.agent_selection)
        obs = observe(raw.game, raw.state_array, seat)
        batch = {Columns.OBS: {key: torch.as_tensor(value)[None] for key, value in obs.items()}}
        with torch.no_grad():
            logits = self.module.forward_inference(batch)[Columns.ACTION_DIST_INPUTS][0]
        logits = logits.cpu().numpy().astype(np.float64)
        logits[obs["action_mask"] == 0] = -np.inf
        return int(np.argmax(logits))


# ---------------------------------------------------------------------------- self-play
class SeatMapping:
    """RLlib's policy mapping for self-play: per episode, "main" takes a seat drawn from the
    episode id, and the other seat is "main" too with probability ``self_play_share``, else
    one of ``others`` (frozen copies, boardzoo agents) drawn uniformly."""

    def __init__(self, others: list[str], self_play_share: float):
        self.others, self.self_play_share = list(others), self_play_share

    def __call__(self, agent_id: Any, episode: Any, **kwargs: Any) -> str:
        digest = hashlib.blake2b(str(episode.id_).encode(), digest_size=16).digest()
        main_seat = digest[0] % 2
        if AGENTS.index(agent_id) == main_seat or not self.others:
            return MAIN
        draw = int.from_bytes(digest[1:9], "little") / 2**64
        if draw < self.self_play_share:
            return MAIN
        share = (draw - self.self_play_share) / (1.0 - self.self_play_share)
        return self.others[min(int(share * len(self.others)), len(self.others) - 1)]


class LeagueCallback(RLlibCallback):
    """Keeps ``copies`` frozen past versions of "main" (module ids "main_1", ...): all start
    as the initial "main", and every ``snapshot_every`` training iterations the oldest one
    becomes a copy of the current "main"."""

    def __init__(self, copies: int, snapshot_every: int):
        super().__init__()
        self.copies, self.snapshot_every = copies, snapshot_every
        self.next_slot = 0

    def on_algorithm_init(self, *, algorithm: Any, **kwargs: Any) -> None:
        for slot in league_ids(self.copies):
            self._copy_main(algorithm, slot)

    def on_train_result(self, *, algorithm: Any, result: dict, **kwargs: Any) -> None:
        if algorithm.iteration % self.snapshot_every == 0:
            slot = league_ids(self.copies)[self.next_slot]
            self._copy_main(algorithm, slot)
            self.next_slot = (self.next_slot + 1) % self.copies
            result["league_refreshed"] = slot

    @staticmethod
    def _copy_main(algorithm: Any, slot: str) -> None:
        """The learner's "main" into ``slot``, on the learner and every env runner."""
        algorithm.set_weights({slot: algorithm.get_weights([MAIN])[MAIN]})
        algorithm.env_runner_group.sync_weights(
            from_worker_or_learner_group=algorithm.learner_group, policies=[slot],
            inference_only=True,
        )


def league_ids(copies: int) -> list[str]:
    """The module ids of the frozen copies of "main"."""
    return [f"{MAIN}_{k}" for k in range(1, copies + 1)]


def selfplay_ppo_config(
    game: str = "connect_four",
    *,
    opponents: Mapping[str, str | Mapping[str, Any]] | None = None,
    league: int = 0,
    snapshot_every: int = 10,
    self_play_share: float = 0.5,
    hidden: tuple[int, ...] = (256, 256),
    game_options: Mapping[str, Any] | None = None,
    seed: int | None = None,
) -> PPOConfig:
    """A PPO config (new API stack) that trains "main", RLlib's masking module, by self-play
    on :class:`RLlibEnv` of ``game``: "main" plays one seat of every episode and, with
    probability ``self_play_share`` (or always, with no other module), the other too;
    otherwise the other seat is one of ``league`` frozen copies of "main" (refreshed every
    ``snapshot_every`` iterations, :class:`LeagueCallback`) or one of ``opponents``, boardzoo
    agents by name and spec (``{"mcts": "mcts:simulations=100"}``), drawn uniformly.

    Change the rest as with any PPOConfig (``.env_runners(...)``, ``.training(...)``)."""
    options = dict(game_options or {})
    checked_game(game, options, "selfplay_ppo_config(game_options=...)")
    if not 0.0 <= self_play_share <= 1.0:
        raise InvalidOptionError(f"self_play_share={self_play_share!r}: use a number in [0, 1]")
    if league < 0 or snapshot_every < 1:
        raise InvalidOptionError("league must be >= 0 and snapshot_every >= 1")
    opponents = dict(opponents or {})
    taken = {MAIN, *league_ids(league)} & set(opponents)
    if taken:
        raise InvalidOptionError(f"opponent names {sorted(taken)} are taken by main's modules")
    main = RLModuleSpec(module_class=ActionMaskingTorchRLModule,
                        model_config=DefaultModelConfig(fcnet_hiddens=list(hidden)))
    specs = {MAIN: main} | dict.fromkeys(league_ids(league), main)
    for offset, (name, spec) in enumerate(opponents.items()):
        specs[name] = RLModuleSpec(module_class=AgentModule, model_config={
            "agent": spec, "game": game, "options": options,
            "seed": None if seed is None else seed + offset})
    env_config = {"game": game, **options, "include_state": bool(opponents)}
    others = [module for module in specs if module != MAIN]
    config = (
        PPOConfig()
        .environment(RLlibEnv, env_config=env_config)
        .multi_agent(policies=set(specs), policy_mapping_fn=SeatMapping(others, self_play_share),
                     policies_to_train=[MAIN])
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs=specs))
        .debugging(seed=seed)
    )
    if league:  # RLlib takes a callback class or a factory of one (its own examples pass partials)
        config.callbacks(cast(Any, functools.partial(LeagueCallback, league, snapshot_every)))
    return config


@contextlib.contextmanager
def ray_session(address: str | None = None, cpus: int = 2) -> Iterator[None]:
    """Ray for RLlib, as boardzoo's other Ray paths run it: the cluster at ``address``
    ("auto", "10.0.0.5:6379"), or else a private loopback-only instance with ``cpus`` CPUs
    (shut down at the end); a process already connected to Ray keeps its connection."""
    from boardzoo.executor import RayExecutor

    with RayExecutor(workers=cpus, address=address):
        yield
