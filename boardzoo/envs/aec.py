"""The one PettingZoo AEC environment class that serves every boardzoo game.

It holds a :class:`~boardzoo.envs.core.Game` and a state array, validates every action
itself, and keeps PettingZoo's bookkeeping (rewards, terminations, dead steps). Nothing here
is game-specific, so the invariants ("no step after the end", "illegal move", "mask at the
end") are enforced in one place for every game.
"""

from __future__ import annotations

import ast
import warnings
import weakref
from collections.abc import Mapping
from typing import Any, NamedTuple

import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding
from pettingzoo import AECEnv

from boardzoo.envs.core import (
    INTEGER_TYPES,
    OUTCOME,
    P0_WINS,
    P1_WINS,
    PLY,
    TO_PLAY,
    Game,
    outcome_returns,
)
from boardzoo.envs.drawing import BoardPicture, draw_board
from boardzoo.envs.render import HumanWindow, render_ansi
from boardzoo.errors import (
    BoardzooError,
    GameOverError,
    IllegalActionError,
    IncompatibleSnapshotError,
    InvalidOptionError,
    InvalidPositionError,
    ResetNeededError,
    excerpt,
)

__all__ = [
    "ILLEGAL_ACTION_MODES",
    "BoardGameEnv",
    "EnvSnapshot",
    "IllegalActionWarning",
    "UnusedResetOptionWarning",
    "check_illegal_action",
    "forfeit_returns",
    "snapshot_of",
]

AGENTS = ("player_0", "player_1")
_RENDER_MODES = ("human", "ansi", "rgb_array")
#: what an illegal action does: "terminate" (PettingZoo classic's convention: the game ends,
#: the mover gets -1 and the other seat 0), "lose" (the same, zero-sum: the other seat +1),
#: "raise" (IllegalActionError; boardzoo's own players use it)
ILLEGAL_ACTION_MODES = ("terminate", "lose", "raise")


def check_illegal_action(mode: Any) -> None:
    """Raise InvalidOptionError unless ``mode`` is one of :data:`ILLEGAL_ACTION_MODES`."""
    if not isinstance(mode, str) or mode not in ILLEGAL_ACTION_MODES:
        raise InvalidOptionError(
            f"illegal_action={mode!r} is not allowed; use 'terminate' (the game ends, -1 for "
            "the mover and 0 for the other seat, the default), 'lose' (-1 and +1) or 'raise'"
        )


def forfeit_returns(mover: int, mode: str) -> np.ndarray:
    """Returns per seat (shape ``[2]``) when seat ``mover`` plays an illegal action under
    ``mode`` "terminate" (-1 for the mover, 0 for the other) or "lose" (-1 and +1)."""
    returns = np.zeros(2)
    returns[mover] = -1.0
    if mode == "lose":
        returns[1 - mover] = 1.0
    return returns


class IllegalActionWarning(UserWarning):
    """An illegal action ended the game (``illegal_action="terminate"``, the default): mask
    the policy's actions with ``obs["action_mask"]``."""


class UnusedResetOptionWarning(UserWarning):
    """``reset(options=...)`` got keys other than "moves" and "position" (likely a typo)."""


class EnvSnapshot(NamedTuple):
    """Everything a :class:`BoardGameEnv` depends on, from ``clone_state()``; picklable.

    The per-agent dicts hold the agents still in the game (PettingZoo removes an agent's
    entries once it has stepped ``None`` after the end); restoring copies them.
    ``last_move`` is ``(state before it, action)`` of the last move played, or None; only
    pictures read it. Notebooks show a snapshot as its board.
    """

    game_key: tuple
    state: np.ndarray
    agents: tuple[str, ...]
    agent_selection: str
    skip_agent_selection: str | None
    rewards: dict[str, float]
    cumulative_rewards: dict[str, float]
    terminations: dict[str, bool]
    truncations: dict[str, bool]
    last_move: tuple[np.ndarray, int] | None = None

    def _repr_svg_(self) -> str | None:
        """The board, for notebooks; None (no picture) for a game this process cannot make."""
        from boardzoo.envs import make_game  # the registry imports this module

        try:
            name, options = self.game_key
            game = make_game(name, **{key: ast.literal_eval(value) for key, value in options})
            return draw_board(game, self.state, self.last_move).svg()
        except (BoardzooError, ValueError, TypeError, SyntaxError):
            return None


class BoardGameEnv(AECEnv):
    """A PettingZoo AEC environment for a boardzoo :class:`Game`.

    Agents are ``"player_0"`` (moves first) and ``"player_1"``. Observations are dicts with
    ``"observation"`` (float32 planes (H, W, C) from the observing agent's view) and
    ``"action_mask"`` (int8, 1 = legal; all zeros for the agent not to move). Rewards are
    per seat: +1 win, 0 draw, -1 loss, given at the end.

    An illegal or out-of-range action follows ``illegal_action``: ``"terminate"`` (default,
    PettingZoo classic's convention) ends the game with -1 for the mover and 0 for the other
    seat and warns (:class:`IllegalActionWarning`, naming the move and why); ``"lose"`` ends
    it zero-sum, -1 and +1, without a warning; ``"raise"`` raises
    :class:`~boardzoo.errors.IllegalActionError` and leaves the game as it was. Either way
    the mover's ``infos`` get ``"illegal_action": True``.

    Notebooks show the env as its board (coordinates, the last move, the side to move);
    ``picture()`` gives that drawing as SVG text or an image.
    """

    #: the two agents, the first to move first; a subclass may name them otherwise (the
    #: pettingzoo.classic drop-ins use PettingZoo's names)
    agent_names: tuple[str, str] = AGENTS
    #: a reward of nothing: rewards start at it and the mover's cumulative reward is reset
    #: to it when it moves (its type is the one ``last()`` reports before the end)
    no_reward: Any = 0

    metadata = {
        "render_modes": list(_RENDER_MODES),
        "render_fps": 2,
        "is_parallelizable": False,
    }

    def __init__(
        self, game: Game, render_mode: str | None = None, illegal_action: str = "terminate"
    ):
        super().__init__()
        if render_mode is not None and render_mode not in _RENDER_MODES:
            raise InvalidOptionError(
                f"render_mode={render_mode!r} is not supported; use None or one of {_RENDER_MODES}"
            )
        check_illegal_action(illegal_action)
        self.game = game
        self.render_mode = render_mode
        self.illegal_action = illegal_action
        self.metadata = {**self.metadata, "name": f"{game.name}_v0"}
        agents = self.agent_names
        self.possible_agents = list(agents)
        planes = spaces.Box(0.0, 1.0, shape=game.planes_shape, dtype=np.float32)
        mask = spaces.Box(0, 1, shape=(game.num_actions,), dtype=np.int8)
        self.observation_spaces = {
            a: spaces.Dict({"observation": planes, "action_mask": mask}) for a in agents
        }
        self.action_spaces = {a: spaces.Discrete(game.num_actions) for a in agents}
        self._window: HumanWindow | None = None
        self._state = game.initial_state()
        self._mask: np.ndarray | None = None
        self._last_move: tuple[np.ndarray, int] | None = None
        self._reset_bookkeeping()
        self._started = False  # step() needs a reset() or restore_state() first, as in PettingZoo

    def __repr__(self) -> str:
        """What a notebook or a debugger shows: the game with its options, then where the
        game stands, e.g. ``<connect_four_v0 env: ConnectFour(rows=6, columns=7), ply 3,
        position '445', player_1 to play>``."""
        shell = "" if self.illegal_action == "terminate" else (
            f", illegal_action={self.illegal_action!r}")
        return f"<{self.metadata['name']} env: {self.game!r}{shell}, {self._standing()}>"

    def _standing(self) -> str:
        """Where the game stands, in words, with the position in the game's notation."""
        if not self._started:
            return "not started: call reset()"
        where = f"ply {int(self._state[PLY])}, position {excerpt(self.position())}"
        if self.agents and not any(self.terminations.values()):
            return f"{where}, {self.agent_selection} to play"
        outcome = int(self._state[OUTCOME])
        if not outcome:
            return f"{where}, game over by an illegal move"
        winner = {P0_WINS: "player_0 won", P1_WINS: "player_1 won"}.get(outcome, "a draw")
        return f"{where}, game over: {winner}"

    # --------------------------------------------------------------------- PettingZoo API
    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Start a game: from the initial position, or from ``options["moves"]`` (a list of
        actions or move strings) or ``options["position"]`` (the game's text notation)."""
        if seed is not None:
            self.np_random, self.np_random_seed = seeding.np_random(seed)
            for offset, agent in enumerate(self.agent_names):
                self.action_spaces[agent].seed(seed + offset)
        self._state, self._last_move = self._start_state(options or {})
        self._mask = None
        self._reset_bookkeeping()
        self._started = True
        if self.render_mode == "human":
            self.render()

    def step(self, action: Any) -> None:
        """Play ``action`` for ``agent_selection``; ``None`` only for an agent whose game ended."""
        if not self._started:
            raise ResetNeededError("step() before reset(): call env.reset() to start a game "
                                   "(or restore_state() to continue one)")
        agent = self.agent_selection
        if agent not in self.terminations:
            raise GameOverError("the game is over and both agents have left; call reset()")
        if self.terminations[agent] or self.truncations[agent]:
            if action is not None:
                raise GameOverError(
                    f"the game is over; {agent} may only step(None) to leave, got {excerpt(action)}"
                )
            self._was_dead_step(action)
            return
        self._cumulative_rewards[agent] = self.no_reward
        legal = self._legal()
        if type(action) in INTEGER_TYPES and 0 <= action < legal.shape[0] and legal[action]:
            self._play(int(action))  # the fast path: a legal integer needs no more checks
        else:
            try:
                self._play(self.game.check_action(self._state, action, legal))
            except IllegalActionError as err:
                if self.illegal_action == "raise":
                    raise
                self._forfeit(agent, action, err)
        if self.terminations[agent]:  # rewards are only ever given at the end
            self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        planes = self.game.observe(self._state, self.agent_names.index(agent))
        # while the game runs, agent_selection is the seat to move (state[TO_PLAY])
        if agent == self.agent_selection and not self.terminations[agent]:
            mask = self._legal().astype(np.int8)
        else:
            mask = np.zeros(self.game.num_actions, dtype=np.int8)
        return {"observation": planes, "action_mask": mask}

    def render(self) -> str | np.ndarray | None:
        if self.render_mode is None:
            return None
        if self.render_mode == "ansi":
            return render_ansi(self.game, self._state)
        frame = self.picture().to_array()
        if self.render_mode == "rgb_array":
            return frame
        if self._window is None:
            self._window = HumanWindow(str(self.metadata["name"]))
        self._window.show(frame)
        return None

    def close(self) -> None:
        if self._window is not None:
            self._window.close()
            self._window = None

    # ---------------------------------------------------------------- boardzoo additions
    def picture(self) -> BoardPicture:
        """The board as a picture: ``.svg()`` text, ``.to_image()`` (PIL), ``.to_array()``."""
        return draw_board(self.game, self._state, self._last_move)

    def _repr_svg_(self) -> str:
        return self.picture().svg()

    def clone_state(self) -> EnvSnapshot:
        """A cheap picklable snapshot; ``restore_state`` continues exactly from here.

        The snapshot shares the state array with the env as an immutable copy sealed for
        this game and options (see :func:`_sealed`), taken once per position: the env copies
        it again when it moves on (copy on write), and restoring it into an env of the same
        game in this process needs no validation.
        """
        key = self.game.key
        if not _is_sealed(self._state, key):
            self._state = _sealed(self._state, key)
        if self._last_move is not None and not _is_sealed(self._last_move[0], key):
            self._last_move = (_sealed(self._last_move[0], key), self._last_move[1])
        return EnvSnapshot(
            self.game.key,
            self._state,
            tuple(self.agents),
            self.agent_selection,
            getattr(self, "_skip_agent_selection", None),
            dict(self.rewards),
            dict(self._cumulative_rewards),
            dict(self.terminations),
            dict(self.truncations),
            self._last_move,
        )

    def restore_state(self, snapshot: EnvSnapshot) -> None:
        """Return to the moment ``snapshot`` was taken (by this env or one of the same game)."""
        if not isinstance(snapshot, EnvSnapshot):
            got = type(snapshot).__name__
            raise IncompatibleSnapshotError(
                f"restore_state expects an EnvSnapshot from clone_state(), got {got}"
            )
        key = self.game.key
        if snapshot.game_key != key:
            theirs, ours = _describe(snapshot.game_key), _describe(key)
            raise IncompatibleSnapshotError(f"snapshot is of {theirs}, this env plays {ours}")
        state = snapshot.state
        # the seal names the game it was made for, so a relabelled game_key cannot pass a
        # sealed array of another game (or size) to the kernels unchecked
        if not _is_sealed(state, key):  # unpickled, made by hand or relabelled: check it all
            try:
                self.game.validate_state(state)
            except InvalidPositionError as err:
                raise IncompatibleSnapshotError(f"snapshot state rejected: {err}") from None
            state = _sealed(state, key)  # whoever holds the array cannot change it under us
        _check_bookkeeping(snapshot, self.agent_names)
        self._last_move = _checked_last_move(self.game, snapshot.last_move, state)
        self._state = state
        self._mask = None
        self.agents = list(snapshot.agents)
        self.agent_selection = snapshot.agent_selection
        self._skip_agent_selection = snapshot.skip_agent_selection
        self.rewards = dict(snapshot.rewards)
        self._cumulative_rewards = dict(snapshot.cumulative_rewards)
        self.terminations = dict(snapshot.terminations)
        self.truncations = dict(snapshot.truncations)
        self.infos: dict[str, dict[str, Any]] = {agent: {} for agent in self.agents}
        self._started = True

    @property
    def state_array(self) -> np.ndarray:
        """A copy of the game state array (see :mod:`boardzoo.envs.core`)."""
        return self._state.copy()

    def legal_mask(self) -> np.ndarray:
        """Bool mask of the legal actions of the side to move (all False at the end)."""
        return self._legal().copy()

    def position(self) -> str:
        """The current position in the game's text notation; ``reset`` accepts it back."""
        return self.game.position(self._state)

    def action_to_str(self, action: int) -> str:
        """The action as a move in the game's notation in the current position."""
        return self.game.move_to_str(self._state, self.game.action_index(action))

    def str_to_action(self, text: str) -> int:
        """The action of a move in the game's notation (e.g. "d3"); IllegalActionError if
        it is not one (actions themselves go to ``step`` as they are)."""
        if not isinstance(text, str):
            raise IllegalActionError(
                f"str_to_action takes move text in {self.game.name}'s notation (e.g. "
                f"{self.game.action_to_str(0)!r}), got {excerpt(text)} of type "
                f"{type(text).__name__}; "
                "pass an action number to step() directly"
            )
        return self.game.str_to_move(self._state, text)

    # ------------------------------------------------------------------------- internals
    def _legal(self) -> np.ndarray:
        if self._mask is None:
            self._mask = self.game.legal_mask(self._state)
        return self._mask

    def _start_state(
        self, options: dict[str, Any]
    ) -> tuple[np.ndarray, tuple[np.ndarray, int] | None]:
        """The state ``reset`` starts from, and its last move when the options give it."""
        if type(options) is dict and not options:  # the common reset(), checked first
            return self.game.initial_state(), None
        if not isinstance(options, Mapping):
            raise InvalidOptionError(
                f"reset options must be a dict such as {{'moves': [...]}} or {{'position': "
                f"'...'}}, got {excerpt(options)} of type {type(options).__name__}"
            )
        unknown = set(options) - {"moves", "position"}
        if unknown:  # Gymnasium's convention is to tolerate them, so warn rather than raise
            warnings.warn(
                f"reset option(s) {sorted(unknown)} are not used; boardzoo envs read 'moves' "
                "or 'position'",
                UnusedResetOptionWarning,
                stacklevel=3,
            )
        if "moves" in options and "position" in options:
            raise InvalidOptionError("give reset options 'moves' or 'position', not both")
        if "position" in options:
            text = options["position"]
            if not isinstance(text, str):
                raise InvalidPositionError(
                    f"options['position'] must be text ({self.game.position_format}), got "
                    f"{excerpt(text)}"
                )
            return self.game.parse_position(text), None
        if "moves" in options:
            return self.game.replay(options["moves"]), self._last_of(options["moves"])
        return self.game.initial_state(), None

    def _last_of(self, moves: Any) -> tuple[np.ndarray, int] | None:
        """(state before the last of ``moves``, its action), for pictures; ``moves`` have
        just been replayed without error."""
        if not isinstance(moves, (list, tuple)) or not moves:
            return None
        last = moves[-1]
        before = self.game.replay(moves[:-1])
        action = self.game.str_to_move(before, last) if isinstance(last, str) else int(last)
        return before, action

    def _reset_bookkeeping(self) -> None:
        agents = self.agent_names
        self.agents = list(agents)
        self._skip_agent_selection = None
        self.rewards = dict.fromkeys(agents, self.no_reward)
        self._cumulative_rewards = dict.fromkeys(agents, self.no_reward)
        self.terminations = dict.fromkeys(agents, False)
        self.truncations = dict.fromkeys(agents, False)
        self.infos = {a: {} for a in agents}
        self.agent_selection = agents[int(self._state[TO_PLAY])]
        if self._state[OUTCOME]:
            self._finish(outcome_returns(int(self._state[OUTCOME])))
            self._cumulative_rewards = dict(self.rewards)

    def _play(self, index: int) -> None:
        """Apply the legal action ``index`` for the side to move; the state before it is
        kept unchanged as the last move's (pictures mark the move)."""
        self._last_move = (self._state, index)
        self._state = self._state.copy()
        self.game.kernels.apply(self._state, index)
        self._mask = None
        self._after_move()

    def _after_move(self) -> None:
        if self._state[OUTCOME]:
            self._finish(outcome_returns(int(self._state[OUTCOME])))
        self.agent_selection = self.agent_names[int(self._state[TO_PLAY])]

    def _forfeit(self, agent: str, action: Any, err: IllegalActionError) -> None:
        """illegal_action "terminate" or "lose": the game ends, the mover gets -1."""
        seat = self.agent_names.index(agent)
        returns = forfeit_returns(seat, self.illegal_action)
        if self.illegal_action == "terminate":
            warnings.warn(
                f"{agent} played the illegal action {excerpt(action)}: {err}. The game ends with "
                f"-1 for {agent} and 0 for {self.agent_names[1 - seat]} "
                "(illegal_action='terminate'; mask actions with obs['action_mask'])",
                IllegalActionWarning,
                stacklevel=3,
            )
        self._finish(returns)
        self.infos[agent] = {"illegal_action": True}
        self.agent_selection = self.agent_names[1 - seat]

    def _finish(self, returns: np.ndarray) -> None:
        """The game is over with ``returns`` per seat (float rewards)."""
        first, second = self.agent_names
        self.rewards = {first: float(returns[0]), second: float(returns[1])}
        self.terminations = {first: True, second: True}


def snapshot_of(game: Game, state: np.ndarray) -> EnvSnapshot:
    """The snapshot of an env of ``game`` at ``state`` (a position of a game still running,
    the side to move selected, no rewards yet): ``restore_state`` checks the state."""
    zeros, running = dict.fromkeys(AGENTS, 0.0), dict.fromkeys(AGENTS, False)
    mover = AGENTS[int(state[TO_PLAY])]
    return EnvSnapshot(game.key, state, AGENTS, mover, None, zeros, dict(zeros), running,
                       dict(running))


def _describe(key: Any) -> str:
    try:
        name, options = key
        return f"{name}({', '.join(f'{k}={v}' for k, v in options)})"
    except (TypeError, ValueError):
        return repr(key)


#: the state arrays sealed in this process, by (id, game key): a seal holds for that game only
_SEALED_STATES: weakref.WeakValueDictionary[tuple[int, tuple], np.ndarray] = (
    weakref.WeakValueDictionary()
)


def _sealed(state: np.ndarray, key: tuple) -> np.ndarray:
    """An immutable copy of a state that is valid for the game ``key``: an array over a
    ``bytes`` object, which numpy refuses to make writeable, so it holds what it held when
    sealed for as long as it lives, and restoring it into that game needs no validation."""
    frozen = np.frombuffer(state.tobytes(), dtype=state.dtype)
    _SEALED_STATES[(id(frozen), key)] = frozen
    return frozen


def _is_sealed(state: Any, key: tuple) -> bool:
    """Whether ``state`` is itself an array :func:`_sealed` made in this process for ``key``
    (None never is: the table's answer for an unknown id is None too)."""
    return state is not None and _SEALED_STATES.get((id(state), key)) is state


def _is_game_in_progress(snapshot: EnvSnapshot, agents: tuple[str, str]) -> bool:
    """Whether a snapshot's bookkeeping is exactly that of a game still running (both agents
    in, no rewards yet, the side to move of its validated state selected): most snapshots,
    recognised in a few comparisons before the full check of :func:`_check_bookkeeping`."""
    state = snapshot.state
    return (
        snapshot.agents == agents
        and snapshot.skip_agent_selection is None
        and not state[OUTCOME]
        and snapshot.agent_selection == agents[int(state[TO_PLAY])]
        and snapshot.rewards == dict.fromkeys(agents, 0)
        and snapshot.cumulative_rewards == snapshot.rewards
        and snapshot.terminations == dict.fromkeys(agents, False)
        and snapshot.truncations == snapshot.terminations
    )


def _checked_last_move(
    game: Game, last_move: Any, state: np.ndarray
) -> tuple[np.ndarray, int] | None:
    """A snapshot's ``last_move``, sealed, if it is None or a legal move of a valid state
    that leads to ``state``; else IncompatibleSnapshotError."""
    if last_move is None:
        return None
    if not (isinstance(last_move, tuple) and len(last_move) == 2):
        raise IncompatibleSnapshotError(
            f"snapshot last_move must be None or (state, action), got {type(last_move).__name__}"
        )
    before, action = last_move
    if _is_sealed(before, game.key) and type(action) is int and 0 <= action < game.num_actions:
        return before, action  # this process's own snapshot, like a sealed state
    try:
        game.validate_state(before)
        index = game.check_action(before, action)
    except BoardzooError as err:
        raise IncompatibleSnapshotError(f"snapshot last_move rejected: {err}") from None
    if not np.array_equal(game.step(before, index), state):
        raise IncompatibleSnapshotError("snapshot last_move rejected: it does not lead there")
    return _sealed(before, game.key), index


def _check_bookkeeping(snapshot: EnvSnapshot, names: tuple[str, str]) -> None:
    """IncompatibleSnapshotError unless the PettingZoo bookkeeping of a snapshot is of the
    shape ``clone_state`` writes and agrees with its (validated) state: known agents, the
    side to move selected while the game runs, every agent terminated once it is over."""
    if _is_game_in_progress(snapshot, names):
        return
    agents = snapshot.agents
    dicts = (
        snapshot.rewards,
        snapshot.cumulative_rewards,
        snapshot.terminations,
        snapshot.truncations,
    )
    problem = None
    if not isinstance(agents, tuple) or list(agents) != [a for a in names if a in agents]:
        problem = f"agents {agents!r} are not in {names}"
    elif snapshot.agent_selection not in names or snapshot.skip_agent_selection not in (
        None,
        *names,
    ):
        problem = f"agent_selection {snapshot.agent_selection!r} is not one of {names}"
    elif not all(isinstance(d, dict) and set(d) == set(agents) for d in dicts):
        problem = f"its rewards/terminations/truncations are not keyed by the agents {agents}"
    elif not all(
        isinstance(v, (int, float, np.integer, np.floating)) and -1 <= v <= 1
        for d in dicts[:2]
        for v in d.values()
    ) or not all(isinstance(v, (bool, np.bool_)) for d in dicts[2:] for v in d.values()):
        problem = "its rewards are not numbers in [-1, 1] or its terminations not booleans"
    elif snapshot.state[OUTCOME] and not all(snapshot.terminations.values()):
        problem = "its game is over but terminations are not all True"
    elif (
        agents
        and not any(snapshot.terminations.values())
        and (snapshot.agent_selection != names[int(snapshot.state[TO_PLAY])])
    ):
        problem = f"{snapshot.agent_selection} is selected but the state has the other seat to move"
    if problem:
        raise IncompatibleSnapshotError(f"snapshot bookkeeping rejected: {problem}")
