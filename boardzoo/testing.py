"""The conformance checks every boardzoo game passes, shipped so a user's game can pass them too.

``check_game(MyGame)`` (or a registered name, a Game instance, or a BoardGameEnv) runs them all
and raises :class:`ConformanceError` naming the first broken promise. boardzoo's own test
suite runs each check over every registered game and option set. What is checked:

* random masked playouts through the pure API: ``step`` never mutates its input, the mask is
  non-empty exactly while the game runs, returns are zero before the end and zero-sum
  (+1/0/-1) at it, observations fit the observation space, position text round-trips;
* the compiled playout kernels reach a legal end (and a traced playout replays);
* clone/restore (also pickled, into a fresh env) replays identically; a clone is independent
  of later play; a seeded game is reproducible step for step; finished games reward zero-sum
  and the agents leave; illegal actions follow ``illegal_action``: "raise" raises a clear
  error and changes nothing, "terminate" (the default) ends the game -1/0 with a warning,
  "lose" ends it -1/+1;
* ansi and rgb_array renders; PettingZoo's ``api_test``; Gymnasium's ``check_env`` on the
  single-agent view (registered games);
* the two-seat batch (:class:`boardzoo.rl.TwoPlayerVectorEnv`) plays, game by game and move
  by move, what AEC envs given the same moves play: observations, masks, the seat to move,
  both seats' rewards, ends and restarts (with random openings drawn from each game's seeded
  generator, and some illegal actions), rewards zero-sum at every end by the rules.
"""

from __future__ import annotations

import pickle
import warnings
from collections.abc import Callable
from typing import Any, NamedTuple, cast
from xml.etree import ElementTree

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.utils.env_checker import check_env

from boardzoo.agents.random import RandomAgent
from boardzoo.envs.aec import BoardGameEnv, IllegalActionWarning
from boardzoo.envs.core import OUTCOME, PLY, Game
from boardzoo.envs.registry import GAMES, game_class, gym_id
from boardzoo.errors import BoardzooError, GameOverError, IllegalActionError
from boardzoo.rng import make_rng

__all__ = [
    "ConformanceError",
    "CheckReport",
    "check_game",
    "check_random_playouts",
    "check_compiled_playouts",
    "check_clone_restore",
    "check_clone_independence",
    "check_determinism",
    "check_finished_games",
    "check_illegal_actions",
    "check_renders",
    "check_pettingzoo_api",
    "check_gymnasium",
    "check_two_player_vector_env",
]

EnvFn = Callable[[], BoardGameEnv]


class ConformanceError(AssertionError):
    """A game broke one of the promises every boardzoo env makes (the message says which)."""


class CheckReport(NamedTuple):
    """What :func:`check_game` ran: the game checked and the names of the checks it passed."""

    game: Game
    checks: list[str]


def _require(condition: Any, message: str) -> None:
    if not condition:
        raise ConformanceError(message)


def _env_fn(game_or_env: Any) -> EnvFn:
    """A factory of fresh envs for a registered name, a Game class or instance, or an env."""
    game: Game
    if isinstance(game_or_env, str):
        game = _with_default_options(game_class(game_or_env))
    elif isinstance(game_or_env, type) and issubclass(game_or_env, Game):
        game = _with_default_options(game_or_env)
    elif isinstance(game_or_env, Game):
        game = game_or_env
    elif isinstance(getattr(game_or_env, "unwrapped", None), BoardGameEnv):
        game = game_or_env.unwrapped.game
    else:
        raise TypeError(
            f"check_game takes a game name, a Game class or instance, or a boardzoo env; "
            f"got {game_or_env!r}"
        )
    return lambda: BoardGameEnv(game, illegal_action="raise")


def _with_default_options(cls: type[Game]) -> Game:
    """The game with its default options (every option of a Game subclass has a default)."""
    make: Callable[[], Game] = cls  # subclasses give every option a default
    return make()


def random_trajectory(env: BoardGameEnv, seed: int, plies: int | None = None) -> list[int]:
    """Play masked random actions on an AEC env (to the end, or ``plies`` of them); returns
    the actions played."""
    agent = RandomAgent(seed)
    actions: list[int] = []
    for _ in env.agent_iter():
        _, _, termination, truncation, _ = env.last()
        if termination or truncation:
            env.step(None)
            continue
        if plies is not None and len(actions) == plies:
            break
        action = agent.act(env)
        actions.append(action)
        env.step(action)
    return actions


# ------------------------------------------------------------------ the pure API
def check_random_playouts(env_fn: EnvFn, games: int = 100, seed: int = 0) -> None:
    """Random masked games through the pure API keep the invariants (module docstring);
    positions round-trip at up to 40 plies of each of the first 20 games and at every end."""
    env = env_fn()
    game = env.game
    space = cast(spaces.Dict, env.observation_space("player_0"))["observation"]
    rng = np.random.default_rng(seed)
    for index in range(games):
        state, states = game.initial_state(), []
        while True:
            states.append(state)
            returns, mask = game.returns(state), game.legal_mask(state)
            if game.is_terminal(state):
                _require(returns.sum() == 0 and set(returns.tolist()) <= {-1.0, 0.0, 1.0},
                         f"returns {returns} at the end of {game.position(state)!r} are not "
                         "zero-sum +1/0/-1")
                _require(not mask.any(), f"legal moves left at the end: {game.position(state)!r}")
                break
            _require(not returns.any(), f"returns {returns} before the end")
            _require(mask.any(), f"no legal move in the running game {game.position(state)!r}")
            _require(game.to_play(state) in (0, 1), f"to_play is {game.to_play(state)}")
            before = state.copy()
            state = game.step(state, int(rng.choice(np.flatnonzero(mask))))
            _require(np.array_equal(states[-1], before), "step mutated its input state")
        checked = np.linspace(0, len(states) - 1, 40, dtype=int) if index < 20 else [-1]
        for ply in sorted(set(np.asarray(checked).tolist()) | {len(states) - 1}):
            check_position_round_trip(game, states[ply])
        for seat in (0, 1):
            _require(space.contains(game.observe(state, seat)),
                     f"observe(state, {seat}) does not fit the observation space {space}")


def check_position_round_trip(game: Game, state: np.ndarray) -> None:
    """``parse_position(position(state))`` is the same position: text, side, result, mask."""
    text = game.position(state)
    parsed = game.parse_position(text)
    _require(game.position(parsed) == text, f"position {text!r} does not round-trip: "
             f"it parses back as {game.position(parsed)!r}")
    same = (game.to_play(parsed) == game.to_play(state)
            and game.outcome(parsed) == game.outcome(state)
            and np.array_equal(game.legal_mask(parsed), game.legal_mask(state)))
    _require(same, f"position {text!r} parses back with another side to move, result or "
             "legal moves")


def check_compiled_playouts(env_fn: EnvFn, games: int = 200, seed: int = 7) -> None:
    """The ``playout`` kernel plays to a legal end and returns it; a traced playout (RAVE) replays
    through the checked API to the same final position."""
    game = env_fn().game
    rng = make_rng(seed)
    for _ in range(games):
        state = game.initial_state()
        outcome = game.kernels.playout(state, rng)
        _require(outcome == game.outcome(state) and outcome in (1, 2, 3),
                 f"the playout kernel returned {outcome}, the state says {game.outcome(state)}")
    if game.kernels.playout_trace is None:
        return
    for _ in range(min(games, 20)):
        state = game.initial_state()
        trace = np.empty(4096, np.int64)
        plies = game.kernels.playout_trace(state, rng, trace)
        _require(plies == int(state[PLY]) and state[OUTCOME] != 0,
                 f"the playout_trace kernel returned {plies} plies for a game of {state[PLY]}")
        replayed = game.replay(trace[:plies].tolist())
        _require(game.position(replayed) == game.position(state),
                 "replaying a traced playout does not reach the position it ended in")


# ------------------------------------------------------------------ the env shell
def check_clone_restore(env_fn: EnvFn) -> None:
    """A snapshot restores to replay identically, also pickled into a fresh env."""
    env = env_fn()
    env.reset(seed=1)
    random_trajectory(env, seed=5, plies=3)
    snapshot = env.clone_state()
    first = random_trajectory(env, seed=9)
    first_end = (env.position(), dict(env.rewards))
    env.restore_state(snapshot)
    _require(random_trajectory(env, seed=9) == first and
             (env.position(), dict(env.rewards)) == first_end,
             "a restored snapshot plays on differently from the moment it was taken")
    other = env_fn()
    other.reset()
    other.restore_state(pickle.loads(pickle.dumps(snapshot)))
    _require(random_trajectory(other, seed=9) == first and
             (other.position(), dict(other.rewards)) == first_end,
             "a pickled snapshot restored into a fresh env plays on differently")


def check_clone_independence(env_fn: EnvFn) -> None:
    """Play after ``clone_state()`` does not reach into the snapshot."""
    env = env_fn()
    env.reset()
    snapshot = env.clone_state()
    text = env.position()
    random_trajectory(env, seed=2)
    env.restore_state(snapshot)
    _require(env.position() == text, "play after clone_state() changed the snapshot")
    _require(env.agents == ["player_0", "player_1"] and not any(env.terminations.values()),
             "restoring a snapshot of a running game did not bring both agents back")


def seeded_game(env: BoardGameEnv, seed: int) -> list[tuple]:
    """One game driven by the env's own randomness: ``reset(seed)`` seeds the action spaces
    and each move is ``action_space.sample(mask)``. Returns every step as (agent, action,
    observation bytes, mask bytes, rewards), so any hidden state shows as a difference."""
    env.reset(seed=seed)
    steps = []
    for agent in env.agent_iter():
        obs, _, termination, truncation, _ = env.last()
        action = None
        if not (termination or truncation):
            action = int(env.action_space(agent).sample(mask=obs["action_mask"]))
        steps.append((agent, action, obs["observation"].tobytes(), obs["action_mask"].tobytes(),
                      tuple(sorted(env.rewards.items()))))
        env.step(action)
    return steps


def check_determinism(env_fn: EnvFn, seed: int = 42) -> None:
    """The same seed replays the same game step for step, in a fresh env and in one that
    played another game first; other seeds play other games (the seed is used)."""
    fresh = seeded_game(env_fn(), seed)
    used = env_fn()
    seeded_game(used, seed + 1)
    _require(seeded_game(used, seed) == fresh,
             f"reset(seed={seed}) replayed another game in an env that had played before")
    others = [seeded_game(env_fn(), seed + k) for k in (2, 3, 4)]
    _require(any(other != fresh for other in others),
             "reset(seed) does not seed the action spaces: every seed plays the same game")


def check_finished_games(env_fn: EnvFn, seed: int = 0) -> None:
    """Rewards are zero until the end and zero-sum at it; masks are empty for finished agents,
    both agents leave through step(None), and a real action afterwards raises GameOverError."""
    env = env_fn()
    env.reset()
    seen = {}
    agent = RandomAgent(seed)
    for who in env.agent_iter():
        obs, reward, termination, truncation, _ = env.last()
        if termination or truncation:
            seen[who] = reward
            _require(not obs["action_mask"].any(), f"{who} has legal moves after the end")
            env.step(None)
        else:
            _require(reward == 0, f"{who} got reward {reward} before the end")
            env.step(agent.act(env))
    _require(env.agents == [], "agents did not leave after the end")
    _require(sum(seen.values()) == 0 and set(seen) == {"player_0", "player_1"},
             f"final rewards {seen} are not zero-sum over both seats")
    try:
        env.step(0)
    except GameOverError:
        return
    raise ConformanceError("a step after both agents left did not raise GameOverError")


def check_illegal_actions(env_fn: EnvFn) -> None:
    """Under ``illegal_action="raise"``, out-of-range, non-integer and illegal actions raise
    IllegalActionError saying so and leave the position as it was; under "terminate" (the
    default) an illegal action ends the game with -1 for the mover and 0 for the other seat
    and warns; under "lose" it ends the game -1/+1."""
    game = env_fn().game
    env = BoardGameEnv(game, illegal_action="raise")
    env.reset()
    start = game.position(env.state_array)
    illegal = np.flatnonzero(~env.legal_mask())
    cases = [(game.num_actions, "out of range"), (1.5, "integer")]
    if illegal.size:
        cases.append((int(illegal[0]), "legal actions"))
    for action, says in cases:
        try:
            env.step(action)
        except IllegalActionError as err:
            _require(says in str(err), f"the error for action {action!r} does not say {says!r}")
        else:
            raise ConformanceError(f"action {action!r} did not raise IllegalActionError")
    _require(game.position(env.state_array) == start, "a rejected action changed the game")
    for mode, other in (("terminate", 0.0), ("lose", 1.0)):
        env = BoardGameEnv(game, illegal_action=mode)
        env.reset()
        mover = env.agent_selection
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            env.step(game.num_actions)
        warned = [w for w in caught if issubclass(w.category, IllegalActionWarning)]
        _require(len(warned) == (mode == "terminate"),
                 f"illegal_action={mode!r}: {len(warned)} IllegalActionWarning(s)")
        _require(all(env.terminations.values()), f"illegal_action={mode!r}: the game goes on")
        rewards = {agent: -1.0 if agent == mover else other for agent in env.possible_agents}
        _require(env.rewards == rewards and env.infos[mover] == {"illegal_action": True},
                 f"illegal_action={mode!r}: rewards {env.rewards}, infos {env.infos}")


def check_renders(env_fn: EnvFn) -> None:
    """ansi renders a string naming the side to move; rgb_array an (H, W, 3) uint8 image;
    notebooks get the same picture as SVG text that parses as XML."""
    for mode in ("ansi", "rgb_array"):
        env = BoardGameEnv(env_fn().game, render_mode=mode, illegal_action="raise")
        env.reset()
        random_trajectory(env, seed=0, plies=2)
        frame = env.render()
        if mode == "ansi":
            _require(isinstance(frame, str) and "to move" in frame, "bad ansi render")
        else:
            _require(isinstance(frame, np.ndarray) and frame.dtype == np.uint8
                     and frame.ndim == 3 and frame.shape[2] == 3, "bad rgb_array render")
            svg = ElementTree.fromstring(env._repr_svg_())
            size = (int(svg.get("height", 0)), int(svg.get("width", 0)))
            _require(svg.tag == "{http://www.w3.org/2000/svg}svg"
                     and size == cast(np.ndarray, frame).shape[:2],
                     "the SVG picture is not the rgb_array picture")


# ------------------------------------------------------------------ the libraries' checkers
def check_pettingzoo_api(env_fn: EnvFn, num_cycles: int = 200) -> list[type[Warning]]:
    """PettingZoo's ``api_test``. Returns the warning classes it raised: its advice for flat
    observations does not apply to board games, which rightly use dict observations."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        from pettingzoo.test import api_test  # warns on import (pettingzoo 1.27)

        api_test(env_fn(), num_cycles=num_cycles)
    return [w.category for w in caught]


def check_gymnasium(env_fn: EnvFn) -> None:
    """Gymnasium's ``check_env`` on the single-agent view (``gymnasium.make`` of the game's
    registered id, with its options), and the mask it offers learners."""
    game = env_fn().game
    if GAMES.get(game.name) is not type(game):
        raise ConformanceError(
            f"{type(game).__name__} is not registered: call register_game({type(game).__name__})"
        )
    # check_env steps unmasked random actions, so use the learner convention for illegal ones
    env = gymnasium.make(gym_id(game.name), opponent="random", seat="random",
                         illegal_action="lose", **game.options)
    check_env(env.unwrapped, skip_render_check=True)
    obs, info = env.reset(seed=3)
    _require(env.observation_space.contains(obs), "the gym view's observation is off its space")
    mask = cast(Any, env.unwrapped).action_masks()
    _require(mask.dtype == np.bool_ and mask.any(), "action_masks() is not a non-empty bool mask")
    _require(np.array_equal(info["action_mask"], mask.astype(np.int8)),
             "info['action_mask'] differs from action_masks()")


def check_two_player_vector_env(
    env_fn: EnvFn, games: int = 1000, num_envs: int = 8, opening_plies: int = 2, seed: int = 0,
    illegal_rate: float = 0.01,
) -> None:
    """``games`` random games of a TwoPlayerVectorEnv of ``num_envs`` (registered game) next
    to one AEC env per game, both given the same moves: uniformly random legal ones, and an
    illegal one (under the default "terminate") with probability ``illegal_rate``; every
    restart replays on the AEC env the opening that game ``i``'s generator (seeded ``seed +
    i``) draws. Observations, masks, seats to move, rewards and ends must agree at every
    step."""
    from boardzoo.rl.kernels import batch_kernels
    from boardzoo.rl.two_player import TwoPlayerVectorEnv

    game = env_fn().game
    venv = TwoPlayerVectorEnv(game.name, num_envs, opening_plies=opening_plies, **game.options)
    obs, info = venv.reset(seed=seed)
    openings = _Openings(batch_kernels(game), game, opening_plies, seed, num_envs)
    mirrors = [BoardGameEnv(game) for _ in range(num_envs)]
    for i, mirror in enumerate(mirrors):
        mirror.reset(options={"moves": openings.draw(i)})
    rng = np.random.default_rng(seed)
    finished = 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", IllegalActionWarning)  # the mirrors' illegal moves
        while True:
            _same_positions(mirrors, obs, info)
            if finished >= games:
                return
            masks = info["action_mask"]
            actions = [_some_action(rng, mask, illegal_rate) for mask in masks]
            obs, rewards, terminations, truncations, info = venv.step(actions)
            _require(not truncations.any(), "a two-seat game was truncated")
            flagged = info.get("illegal_action", np.zeros(num_envs, dtype=bool))
            for i, mirror in enumerate(mirrors):
                illegal = not 0 <= actions[i] < game.num_actions or not masks[i][actions[i]]
                mirror.step(actions[i])
                ended = all(mirror.terminations.values())
                expected = [mirror.rewards[a] for a in mirror.possible_agents] if ended else [0, 0]
                _require(bool(terminations[i]) == ended and list(rewards[i]) == expected,
                         f"game {i}: the two-seat env gave rewards {list(rewards[i])}, ended "
                         f"{terminations[i]}; the AEC env {expected}, ended {ended}")
                _require(bool(flagged[i]) == illegal, f"game {i}: info['illegal_action'] is off")
                if ended:
                    _require(illegal or sum(expected) == 0, f"game {i}: rewards not zero-sum")
                    mirror.reset(options={"moves": openings.draw(i)})
                    finished += 1


class _Openings:
    """The random openings each game of a two-seat env draws, in order (its generator)."""

    def __init__(self, kernels: Any, game: Game, plies: int, seed: int, num_envs: int):
        self.kernels, self.game, self.plies = kernels, game, plies
        self.rngs = [make_rng(seed + i) for i in range(num_envs)]

    def draw(self, i: int) -> list[int]:
        state = self.game.initial_state()
        moves = np.zeros(max(self.plies, 1), np.int64)
        count = self.kernels.random_opening(state, self.plies, self.rngs[i],
                                            np.zeros(self.game.num_actions, np.bool_),
                                            np.empty_like(state), moves)
        return [int(m) for m in moves[:count]]


def _some_action(rng: np.random.Generator, mask: np.ndarray, illegal_rate: float) -> int:
    if rng.random() < illegal_rate:
        return int(rng.choice(np.flatnonzero(mask == 0))) if (mask == 0).any() else -1
    return int(rng.choice(np.flatnonzero(mask)))


def _same_positions(mirrors: list[BoardGameEnv], obs: np.ndarray, info: dict[str, Any]) -> None:
    for i, mirror in enumerate(mirrors):
        mover = mirror.agent_selection
        seen = mirror.observe(mover)
        _require(int(info["to_play"][i]) == mirror.possible_agents.index(mover),
                 f"game {i}: to_play {info['to_play'][i]}, the AEC env has {mover} to move")
        _require(np.array_equal(obs[i], seen["observation"]),
                 f"game {i}: the observation differs from the AEC env's ({mirror.position()})")
        _require(np.array_equal(info["action_mask"][i], seen["action_mask"]),
                 f"game {i}: the action mask differs from the AEC env's ({mirror.position()})")


def _checks(games: int) -> dict[str, Callable[[EnvFn], Any]]:
    return {
        "random_playouts": lambda env_fn: check_random_playouts(env_fn, games),
        "compiled_playouts": check_compiled_playouts,
        "clone_restore": check_clone_restore,
        "clone_independence": check_clone_independence,
        "determinism": check_determinism,
        "finished_games": check_finished_games,
        "illegal_actions": check_illegal_actions,
        "renders": check_renders,
        "pettingzoo_api": check_pettingzoo_api,
        "gymnasium": check_gymnasium,
        "two_player_vector_env": lambda env_fn: check_two_player_vector_env(env_fn, games),
    }


def check_game(game_or_env: Any, games: int = 100) -> CheckReport:
    """Run every conformance check (module docstring) on a game: a registered name, a Game
    class (default options) or instance, or a boardzoo env. ``games`` random games go
    through the pure API. Raises ConformanceError (an AssertionError) naming the check that
    failed; a boardzoo error raised where the game should have played on fails it too."""
    env_fn = _env_fn(game_or_env)
    passed = []
    for name, check in _checks(games).items():
        try:
            check(env_fn)
        except ConformanceError as err:
            raise ConformanceError(f"{name}: {err}") from None
        except BoardzooError as err:
            raise ConformanceError(f"{name}: {type(err).__name__}: {err}") from err
        passed.append(name)
    return CheckReport(env_fn().game, passed)
