"""The one adapter behind the ``pettingzoo.classic`` drop-ins: a :class:`BoardGameEnv` that
speaks PettingZoo's classic dialect, and PettingZoo's own wrapper chain around it.

What changes against boardzoo's ``*_v0`` envs is only what PettingZoo's classic envs do
otherwise: their agent names, int8 observation planes, integer rewards, the action mask of
the selected agent still listing the final position's moves after the end, and illegal
moves caught by PettingZoo's ``TerminateIllegalWrapper`` (-1 for the mover, as PettingZoo's
``env()`` does). Every step still runs on the game's compiled kernels, and snapshots,
``EnvModel`` planning and boardzoo's agents work as on any boardzoo env.
"""

from __future__ import annotations

import operator
from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces
from pettingzoo.utils import wrappers
from pettingzoo.utils.wrappers.order_enforcing import (
    AECOrderEnforcingIterable,
    AECOrderEnforcingIterator,
)
from PIL import Image

from boardzoo.envs.aec import BoardGameEnv
from boardzoo.envs.core import INTEGER_TYPES, OUTCOME, Game
from boardzoo.envs.drawing import BoardPicture
from boardzoo.options import require

__all__ = ["ClassicEnv", "HistoryEnv", "checked_screen_height", "checked_screen_scaling",
           "pettingzoo_metadata", "wrapped"]


def pettingzoo_metadata(name: str, render_fps: int = 2, ansi: bool = False) -> dict[str, Any]:
    """The ``metadata`` of PettingZoo's classic env ``name`` (its render modes: "human" and
    "rgb_array", with "ansi" first where it has one)."""
    modes = ["human", "ansi", "rgb_array"] if ansi else ["human", "rgb_array"]
    return {"render_modes": modes, "name": name, "is_parallelizable": False,
            "render_fps": render_fps}


class ClassicEnv(BoardGameEnv):
    """A boardzoo game in the dialect of a ``pettingzoo.classic`` raw env.

    Subclasses set ``agent_names`` and ``metadata`` (PettingZoo's: :func:`pettingzoo_metadata`)
    and :attr:`observation_kernel` or else :meth:`final_mask`.
    Observations are int8 planes from the observer's view; rewards are ints per agent (+1
    win, -1 loss, 0 for a draw and before the end). The raw env raises
    :class:`~boardzoo.errors.IllegalActionError` on an illegal move (PettingZoo's raw envs
    assert); :func:`wrapped` ends the game instead. ``rgb_array`` frames have the size of
    PettingZoo's (:meth:`frame_size`), boardzoo's picture fitted in.
    """

    #: PettingZoo's ``screen_height``, where the env takes it: its frames are that square
    screen_height: int | None = None

    #: dtype of the observation planes (PettingZoo's Connect Four and tic-tac-toe: int8)
    observation_dtype: ClassVar[type] = np.int8
    #: optional: ``(state, seat, planes, legal, mask)``, the selected agent's observation
    #: in one compiled call (:mod:`boardzoo.classic.kernels`); without it :meth:`planes`
    #: and :meth:`final_mask` make it
    observation_kernel: ClassVar[Any] = None

    def __init__(self, game: Game, render_mode: str | None = None):
        super().__init__(game, render_mode=render_mode, illegal_action="raise")
        self._seats = {agent: seat for seat, agent in enumerate(self.agent_names)}
        self._planes_buffer = np.empty(game.planes_shape, dtype=np.float32)
        self.metadata = dict(type(self).metadata)
        self._observation_shape = self._planes_shape()
        planes = spaces.Box(0, 1, shape=self._observation_shape, dtype=self.observation_dtype)
        mask = spaces.Box(0, 1, shape=(game.num_actions,), dtype=np.int8)
        self.observation_spaces = {
            a: spaces.Dict({"observation": planes, "action_mask": mask}) for a in self.agent_names
        }

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """PettingZoo's reset; of ``options`` only boardzoo's "moves" and "position" are read
        and the rest is ignored, as PettingZoo's classic envs ignore them all."""
        known = {k: v for k, v in (options or {}).items() if k in ("moves", "position")}
        super().reset(seed=seed, options=known)

    def _planes_shape(self) -> tuple[int, ...]:
        return self.game.planes_shape

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        """PettingZoo's observation, new arrays each call: the planes, and the selected
        agent's legal moves (after the end those of the final position, :meth:`final_mask`);
        zeros for the other."""
        if agent == self.agent_selection and self.observation_kernel is not None:
            return self._observe_compiled(agent)
        if agent != self.agent_selection:
            mask = np.zeros(self.game.num_actions, dtype=np.int8)
        else:
            mask = (self.final_mask() if self._state[OUTCOME] else self._legal()).astype(np.int8)
        return {"observation": self.planes(agent), "action_mask": mask}

    def _observe_compiled(self, agent: str) -> dict[str, np.ndarray]:
        """The selected agent's observation in one call of :attr:`observation_kernel`,
        whose legal moves the env keeps for the next step while the game runs."""
        planes: np.ndarray = np.empty(self._observation_shape, dtype=self.observation_dtype)
        legal = np.empty(self.game.num_actions, dtype=np.bool_)
        mask = np.empty(self.game.num_actions, dtype=np.int8)
        self.observation_kernel(self._state, self._seats[agent], planes, legal, mask)
        if not self._state[OUTCOME]:
            self._mask = legal
        return {"observation": planes, "action_mask": mask}

    def planes(self, agent: str) -> np.ndarray:
        """The observation planes of ``agent`` (int8, the game's planes): the game's observe
        kernel fills one buffer, copied once as int8 (games without one override this)."""
        buffer = self._planes_buffer
        self.game.kernels.observe(self._state, self._seats[agent], buffer)
        return buffer.astype(self.observation_dtype)

    def final_mask(self) -> np.ndarray:
        """Bool mask of the moves the PettingZoo env still lists once its game is over."""
        raise NotImplementedError

    def frame_size(self) -> tuple[int, int] | None:
        """(width, height) in pixels of PettingZoo's ``rgb_array`` frames for this env (by
        default ``screen_height`` square); None: boardzoo's picture at its own size."""
        if self.screen_height is None:
            return None
        return self.screen_height, self.screen_height

    def render(self) -> str | np.ndarray | None:
        """As boardzoo's envs render, but an ``rgb_array`` frame has PettingZoo's size
        (:meth:`frame_size`), so that code that draws over PettingZoo's frames or stacks
        them into a video (AgileRL's render script) finds the same canvas."""
        size = self.frame_size()
        if self.render_mode != "rgb_array" or size is None:
            return super().render()
        return _fitted(self.picture(), *size)

    def _finish(self, returns: np.ndarray) -> None:
        """The game is over: integer rewards, as PettingZoo's classic envs give them."""
        first, second = self.agent_names
        self.rewards = {first: int(returns[0]), second: int(returns[1])}
        self.terminations = {first: True, second: True}


def checked_screen_height(what: str, value: int | None) -> int | None:
    """``value`` checked as a ``screen_height`` (None or a positive int) for ``what``."""
    require(value is None or _is_positive_int(value),
            f"{what}: screen_height must be a positive int (pixels) or None, got {value!r}")
    return value


def checked_screen_scaling(what: str, value: int) -> int:
    """``value`` checked as Connect Four's ``screen_scaling`` (a positive int) for ``what``."""
    require(_is_positive_int(value),
            f"{what}: screen_scaling must be a positive int (99 x 86 pixels a unit), "
            f"got {value!r}")
    return value


def _is_positive_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value > 0


def _fitted(picture: BoardPicture, width: int, height: int) -> np.ndarray:
    """``picture`` drawn to fit ``width`` x ``height`` (aspect kept) and centred, on its own
    corner colour: an RGB uint8 array of shape ``(height, width, 3)``."""
    image = picture.to_image(min(width / picture.width, height / picture.height))
    frame = Image.new("RGB", (width, height), image.getpixel((0, 0)))
    frame.paste(image, ((width - image.width) // 2, (height - image.height) // 2))
    return np.asarray(frame, dtype=np.uint8).copy()


class HistoryEnv(ClassicEnv):
    """A drop-in whose observation holds past positions (go_v5, chess_v6): a move pushes one
    (:meth:`_push_history`), any other change of the state (reset, restore) rebuilds them
    from the state (:meth:`_rebuild_history`)."""

    def _push_history(self, before: np.ndarray, action: int) -> None:
        raise NotImplementedError

    def _rebuild_history(self) -> None:
        raise NotImplementedError

    def _after_move(self) -> None:
        assert self._last_move is not None  # set by the move just played
        self._push_history(*self._last_move)
        super()._after_move()

    def _reset_bookkeeping(self) -> None:
        self._rebuild_history()
        super()._reset_bookkeeping()

    def restore_state(self, snapshot: Any) -> None:
        super().restore_state(snapshot)
        self._rebuild_history()

#: the bookkeeping a learner's loop reads on every ply (``agent_iter``, ``last``)
_BOOKKEEPING = (
    "agents",
    "agent_selection",
    "rewards",
    "_cumulative_rewards",
    "terminations",
    "truncations",
    "infos",
)


def _read_through(name: str, holder: str = "_raw") -> property:
    """A wrapper attribute that is the raw env's ``name``, read (in C, by ``attrgetter``)
    from the wrapper's attribute ``holder`` and written to the raw env."""

    def write(self: Any, value: Any) -> None:
        setattr(self._raw, name, value)

    return property(operator.attrgetter(f"{holder}.{name}"), write)


class _ReadThrough:
    """PettingZoo's wrappers find the raw env's attributes through one ``__getattr__`` per
    layer, which costs more than a compiled step; a subclass of one of them mixing this in
    reads the same attributes from the raw env in one step."""

    _raw: Any

    def __init__(self, env: Any, *args: Any, **kwargs: Any) -> None:
        self._raw = env.unwrapped
        super().__init__(env, *args, **kwargs)  # type: ignore[call-arg]


for _name in _BOOKKEEPING:
    setattr(_ReadThrough, _name, _read_through(_name))


class TerminateIllegal(_ReadThrough, wrappers.TerminateIllegalWrapper):
    """PettingZoo's ``TerminateIllegalWrapper``, reading through; a legal move of a running
    game (the mask of the mover's last observation allows it) goes straight to the raw env,
    anything else to PettingZoo's ``step``."""

    def observe(self, agent: Any) -> Any:
        """The raw env's observation; the selected agent's is kept for ``step`` (as
        PettingZoo's)."""
        raw = self._raw
        obs = raw.observe(agent)
        if agent == raw.agent_selection:
            self._prev_obs = obs
            self._prev_info = raw.infos.get(agent, {})
        return obs

    def step(self, action: Any) -> None:
        raw = self._raw
        obs = self._prev_obs
        if type(obs) is dict and not self._terminated:
            agent = raw.agent_selection
            over = raw.terminations[agent] or raw.truncations[agent]
            if (action is None and over) or (
                type(action) in INTEGER_TYPES and not over and obs["action_mask"][action]
            ):  # a legal move, or an ended agent's None
                self._prev_obs = self._prev_info = None
                raw.step(action)
                return
        super().step(action)


class AssertOutOfBounds(_ReadThrough, wrappers.AssertOutOfBoundsWrapper):
    """PettingZoo's ``AssertOutOfBoundsWrapper``, reading through; an integer of a type
    gymnasium's ``Discrete.contains`` accepts, inside the agents' common ``Discrete(n)``,
    passes without calling it, and so does an ended agent's None."""

    def __init__(self, env: Any) -> None:
        super().__init__(env)
        self._actions, self._types = _common_discrete(self._raw)

    def step(self, action: Any) -> None:
        if (type(action) in self._types and 0 <= action < self._actions) or (
            action is None and _is_over(self._raw)
        ):
            self.env.step(action)
        else:
            super().step(action)


def _is_over(raw: Any) -> bool:
    """Whether the selected agent's game has ended (its only step is None)."""
    agent = raw.agent_selection
    return bool(raw.terminations[agent] or raw.truncations[agent])


def _common_discrete(raw: Any) -> tuple[int, frozenset[type]]:
    """``n`` when every agent's action space is the same ``Discrete(n)`` starting at 0, and
    the integer types its ``contains`` accepts (asked, as gymnasium refuses numpy types that
    do not cast safely to the space's dtype, ``np.uint64`` into ``int64``); else 0 and none
    (no action passes without gymnasium's check)."""
    space, *others = map(raw.action_space, raw.possible_agents)
    if type(space) is not spaces.Discrete or space.start != 0 or any(o != space for o in others):
        return 0, frozenset()
    return int(space.n), frozenset(t for t in INTEGER_TYPES if space.contains(t(0)))


class OrderEnforcing(_ReadThrough, wrappers.OrderEnforcingWrapper):
    """PettingZoo's ``OrderEnforcingWrapper``, reading through once ``reset`` has run; before
    it, ``_after_reset`` is missing, so the read falls back to PettingZoo's ``__getattr__``,
    which refuses the bookkeeping (but ``_cumulative_rewards``) as PettingZoo's does."""

    _after_reset: Any

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        super().reset(seed=seed, options=options)
        self._after_reset = self._raw

    def step(self, action: Any) -> None:
        if self._has_reset and self._raw.agents:
            self._has_updated = True
            self.env.step(action)
        else:
            super().step(action)

    def observe(self, agent: Any) -> Any:
        if self._has_reset:
            return self.env.observe(agent)
        return super().observe(agent)

    def agent_iter(self, max_iter: int = 2**63) -> Any:
        """PettingZoo's ``agent_iter``, its iterator's checks made in one call per agent."""
        if not self._has_reset:
            return super().agent_iter(max_iter)  # PettingZoo's error
        return _AgentIterable(self, max_iter)

    def last(self, observe: bool = True) -> tuple[Any, Any, bool, bool, dict[str, Any]]:
        """PettingZoo's ``last``, the bookkeeping read from the raw env."""
        if not self._has_reset:
            return super().last(observe)  # refused as PettingZoo's
        raw = self._raw
        agent = raw.agent_selection
        obs = self.env.observe(agent) if observe else None
        return (obs, raw._cumulative_rewards[agent], raw.terminations[agent],
                raw.truncations[agent], raw.infos[agent])


for _name in set(_BOOKKEEPING) - {"_cumulative_rewards"}:
    setattr(OrderEnforcing, _name, _read_through(_name, holder="_after_reset"))


class _AgentIterable(AECOrderEnforcingIterable):
    def __iter__(self) -> _AgentIterator:
        return _AgentIterator(self.env, self.max_iter)


class _AgentIterator(AECOrderEnforcingIterator):
    """PettingZoo's ``AECOrderEnforcingIterator``, its base class's ``__next__`` and its own
    in one."""

    def __next__(self) -> Any:
        env = self.env
        if not env.agents or self.iters_til_term <= 0:
            raise StopIteration
        self.iters_til_term -= 1
        assert env._has_updated, "need to call step() or reset() in a loop over `agent_iter`"
        env._has_updated = False
        return env.agent_selection


def wrapped(raw: Any) -> Any:
    """PettingZoo's classic ``env()`` chain, OrderEnforcing(AssertOutOfBounds(
    TerminateIllegal(raw, illegal_reward=-1))), of subclasses of PettingZoo's own wrappers
    that behave as theirs and read the raw env's bookkeeping directly."""
    return OrderEnforcing(AssertOutOfBounds(TerminateIllegal(raw, illegal_reward=-1)))
