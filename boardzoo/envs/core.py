"""The game core: what every boardzoo game provides, and the generic pure functions over it.

A game is a :class:`Game` object (its rules with fixed options) plus a *state*: one flat
1-D numpy array whose dtype the game chooses (``uint64`` for bitboards, small ints for cells).
Every state starts with the same three-slot header, so the env shell and compiled search read
the side to move and the result without calling into the game:

====================  ===========================================================
``state[TO_PLAY]``    seat to move, 0 (``player_0``, moves first) or 1
``state[OUTCOME]``    ``ONGOING`` (0), ``P0_WINS`` (1), ``P1_WINS`` (2) or ``DRAW`` (3)
``state[PLY]``        plies played so far (a pass is a ply)
====================  ===========================================================

The rest of the array is the game's own. Compiled kernels do the hot work and are what
search calls in its inner loop; a game lists them in one
:class:`~boardzoo.envs.kernels.Kernels` record, ``Game.kernels``. The public pure
functions (:meth:`Game.step`, :meth:`Game.legal_mask`, :meth:`Game.returns`, ...) wrap these
kernels and never mutate their input.
"""

from __future__ import annotations

import abc
import functools
import importlib
from typing import Any, ClassVar

import numpy as np
from numba import njit

from boardzoo.envs.kernels import Kernels
from boardzoo.errors import IllegalActionError, InvalidPositionError, excerpt
from boardzoo.rng import choose_true

__all__ = [
    "TO_PLAY",
    "OUTCOME",
    "PLY",
    "HEADER",
    "INTEGER_TYPES",
    "ONGOING",
    "P0_WINS",
    "P1_WINS",
    "DRAW",
    "DeclaredKnowledge",
    "Game",
    "outcome_returns",
    "make_random_playout",
]

TO_PLAY, OUTCOME, PLY = 0, 1, 2
HEADER = 3
ONGOING, P0_WINS, P1_WINS, DRAW = 0, 1, 2, 3
#: the integer types an action may have: Python's int and numpy's integer scalars (an RL
#: library's ``np.int64``); bool, though an int, is not an action
INTEGER_TYPES = frozenset({int, *(np.dtype(code).type for code in np.typecodes["AllInteger"])})

_RETURNS = np.array([[0.0, 0.0], [1.0, -1.0], [-1.0, 1.0], [0.0, 0.0]])


def outcome_returns(outcome: int) -> np.ndarray:
    """Returns per seat (shape ``[2]``: +1 win, 0 draw, -1 loss) for an outcome code."""
    return _RETURNS[outcome].copy()


class DeclaredKnowledge:
    """A game's knowledge named as ``"module:NAME"`` and imported on first use, so that a
    game declares its knowledge without the rules importing search code (the layers point
    one way: knowledge depends on rules). ``Game.knowledge`` then reads as the object."""

    def __init__(self, target: str) -> None:
        self.target = target
        self._loaded: Any = None

    def __get__(self, game: Any, owner: type | None = None) -> Any:
        if self._loaded is None:
            module, _, name = self.target.partition(":")
            self._loaded = getattr(importlib.import_module(module), name)
        return self._loaded

    def __repr__(self) -> str:
        return f"DeclaredKnowledge({self.target!r})"


class Game(abc.ABC):
    """The rules of one game with fixed options, as pure functions over flat state arrays.

    Subclasses set the class attributes and implement the abstract methods; everything else
    (validation, returns, the generic pure API) lives here once for every game.
    """

    #: module name without version: "tictactoe", "nim", "connect_four", ...
    name: ClassVar[str]
    #: the compiled kernels (:class:`~boardzoo.envs.kernels.Kernels`)
    kernels: ClassVar[Kernels]
    #: what search knows about the game (:class:`boardzoo.knowledge.base.Knowledge`), or
    #: None: an object, or ``DeclaredKnowledge("module:NAME")`` to import it on first use
    knowledge: ClassVar[Any] = None
    #: renders draw pieces on the grid lines' crossings (Go, Gomoku) instead of in cells
    pieces_on_intersections: ClassVar[bool] = False
    #: what players call the two seats, player_0's first (Go: Black, White)
    seat_names: ClassVar[tuple[str, str]] = ("player_0", "player_1")
    #: characters for an empty cell and the pieces of player_0 and player_1 (ansi render)
    piece_symbols: ClassVar[tuple[str, str, str]] = (".", "X", "O")
    #: renders write each piece's letter (:meth:`symbols`) on its disc (chess)
    lettered_pieces: ClassVar[bool] = False
    #: board background in rgb_array renders, and the two piece colours
    board_rgb: ClassVar[tuple[int, int, int]] = (222, 184, 135)
    piece_rgb: ClassVar[tuple[tuple[int, int, int], tuple[int, int, int]]] = (
        (20, 20, 20),
        (240, 240, 240),
    )
    #: what ``position()`` returns and ``reset(options={"position": ...})`` accepts
    position_format: ClassVar[str]
    #: state slots the position text does not record (e.g. a ply count that passes or a
    #: parsed start leave open); the round trip in :meth:`check_state` skips them, so a game
    #: that lists any checks them in its own ``check_state``
    unrecorded_slots: ClassVar[tuple[int, ...]] = ()
    #: the board's symmetry group (:mod:`boardzoo.envs.symmetry`): "dihedral", "mirror", "none"
    symmetry: ClassVar[str] = "none"
    #: the action that passes (Go: by choice; Othello: only when nothing else is legal)
    pass_action: int | None = None

    def __init__(self, num_actions: int, planes_shape: tuple[int, int, int], **options: Any):
        self.num_actions = num_actions
        self.planes_shape = planes_shape
        self.options = options

    # ----------------------------------------------------------------- game-specific hooks
    @abc.abstractmethod
    def initial_state(self) -> np.ndarray:
        """A new state array of the starting position."""

    def observe(self, state: np.ndarray, seat: int) -> np.ndarray:
        """Observation planes, float32 of shape ``planes_shape`` (H, W, C), from ``seat``'s view.

        Games with an ``observe`` kernel get this for free; the others override it.
        """
        if self.kernels.observe is None:
            raise NotImplementedError(
                f"{type(self).__name__} defines neither observe nor an observe kernel"
            )
        out = np.empty(self.planes_shape, dtype=np.float32)
        self.kernels.observe(state, seat, out)
        return out

    @abc.abstractmethod
    def cells(self, state: np.ndarray) -> np.ndarray:
        """The board as int8 (rows, cols): 0 empty, 1 a piece of player_0, 2 of player_1."""

    def symbols(self, state: np.ndarray) -> np.ndarray:
        """The board as text, one symbol per cell (shape as :meth:`cells`): the default is
        ``piece_symbols`` by seat; games with several kinds of piece name each (chess)."""
        return np.array(self.piece_symbols)[self.cells(state)]

    @abc.abstractmethod
    def coordinate_labels(self) -> tuple[list[str], list[str]]:
        """Row labels (top to bottom) and column labels (left to right) for renders."""

    @abc.abstractmethod
    def action_to_str(self, action: int) -> str:
        """The game's usual notation for an action (e.g. "d3", "4", "pass")."""

    @abc.abstractmethod
    def str_to_action(self, text: str) -> int:
        """Parse a move in the game's notation; a malformed move raises IllegalActionError."""

    def move_to_str(self, state: np.ndarray, action: int) -> str:
        """The action as a move in ``state``, in the game's notation: for games whose actions
        are relative to the side to move (chess), the text depends on the state; the
        default is :meth:`action_to_str`."""
        return self.action_to_str(action)

    def str_to_move(self, state: np.ndarray, text: str) -> int:
        """Parse a move in ``state`` (the inverse of :meth:`move_to_str`); the default is
        :meth:`str_to_action`."""
        return self.str_to_action(text)

    def move_label(self, state: np.ndarray, action: int) -> str:
        """The legal ``action`` in ``state`` as people write it in records and move lists
        (SAN for chess); the default is :meth:`move_to_str`."""
        return self.move_to_str(state, action)

    @abc.abstractmethod
    def position(self, state: np.ndarray) -> str:
        """The state as text in the game's standard notation (``position_format``)."""

    @abc.abstractmethod
    def parse_position(self, text: str) -> np.ndarray:
        """A state from position text; malformed or unreachable text raises InvalidPositionError."""

    def check_state(self, state: np.ndarray) -> None:
        """Hook: InvalidPositionError unless ``state`` (of the right dtype, length and header,
        see :meth:`validate_state`) is a position of this game with these options.

        The default rebuilds the state from its position text (``parse_position`` checks
        cell values, piece counts, side to move, result and legality of every recorded move)
        and requires every slot but ``unrecorded_slots`` to match, so derived data (bitboards,
        chains, hashes) cannot disagree with the position either. It never runs a kernel on
        ``state`` itself. Games whose text leaves slots open extend it.
        """
        try:
            rebuilt = self.parse_position(self.position(state))
        except InvalidPositionError as err:
            raise InvalidPositionError(f"its position is not one of {self!r}: {err}") from None
        except (IndexError, KeyError, ValueError, OverflowError, TypeError):
            raise InvalidPositionError(f"it does not decode as a position of {self!r}") from None
        differs = rebuilt != state
        differs[list(self.unrecorded_slots)] = False
        if differs.any():
            slots = np.flatnonzero(differs)[:5].tolist()
            raise InvalidPositionError(
                f"slot(s) {slots} disagree with the position they describe, "
                f"{self.position(state)!r}"
            )

    # ------------------------------------------------------------------ generic pure API
    @functools.cached_property
    def _template(self) -> np.ndarray:
        return self.initial_state()

    def validate_state(self, state: Any) -> None:
        """InvalidPositionError unless ``state`` is a state array of this game and options:
        a 1-D array of the game's dtype and length, a header with the seat to move 0 or 1,
        an outcome code 0..3 and a ply count >= 0, and the game's own invariants
        (:meth:`check_state`). Run on every restored snapshot, so no foreign or corrupted
        array reaches the compiled kernels."""
        template = self._template
        if not isinstance(state, np.ndarray):
            raise InvalidPositionError(
                f"the state must be a numpy array, got {type(state).__name__}"
            )
        if state.dtype != template.dtype or state.shape != template.shape:
            raise InvalidPositionError(
                f"the state is a {state.dtype} array of shape {state.shape}; {self!r} uses "
                f"{template.dtype} of shape {template.shape}"
            )
        to_play, outcome, ply = (int(state[slot]) for slot in (TO_PLAY, OUTCOME, PLY))
        if to_play not in (0, 1) or outcome not in (ONGOING, P0_WINS, P1_WINS, DRAW) or ply < 0:
            raise InvalidPositionError(
                f"its header (to_play={to_play}, outcome={outcome}, ply={ply}) is not one of "
                "to_play 0 or 1, outcome 0..3 (ongoing, player_0 won, player_1 won, draw), ply >= 0"
            )
        self.check_state(state)

    @functools.cached_property
    def key(self) -> tuple:
        """Identifies the game and its options (snapshots of other keys are rejected)."""
        return (self.name, tuple(sorted((k, repr(v)) for k, v in self.options.items())))

    def legal_mask(self, state: np.ndarray) -> np.ndarray:
        """Bool array of shape ``[num_actions]``, True = legal; all False at the end."""
        out = np.zeros(self.num_actions, dtype=np.bool_)
        self.kernels.legal_mask(state, out)
        return out

    def legal_actions(self, state: np.ndarray) -> list[int]:
        """The legal actions in increasing order."""
        return np.flatnonzero(self.legal_mask(state)).tolist()

    def to_play(self, state: np.ndarray) -> int:
        """Seat to move: 0 (player_0) or 1 (player_1)."""
        return int(state[TO_PLAY])

    def outcome(self, state: np.ndarray) -> int:
        """ONGOING, P0_WINS, P1_WINS or DRAW."""
        return int(state[OUTCOME])

    def is_terminal(self, state: np.ndarray) -> bool:
        return int(state[OUTCOME]) != ONGOING

    def returns(self, state: np.ndarray) -> np.ndarray:
        """Per-seat returns, float shape ``[2]``: +1 win, 0 draw, -1 loss; zeros before the end."""
        return outcome_returns(int(state[OUTCOME]))

    def step(self, state: np.ndarray, action: int) -> np.ndarray:
        """The state after ``action``; ``state`` itself is never mutated.

        An out-of-range or illegal action, or any action at the end of the game, raises
        :class:`~boardzoo.errors.IllegalActionError`.
        """
        self.check_action(state, action)
        new_state = state.copy()
        self.kernels.apply(new_state, action)
        return new_state

    def check_action(self, state: np.ndarray, action: Any, mask: np.ndarray | None = None) -> int:
        """``action`` as an int if it is legal in ``state``; otherwise IllegalActionError."""
        index = self.action_index(action)
        legal = self.legal_mask(state) if mask is None else mask
        if not legal[index]:
            if not legal.any():
                raise IllegalActionError(
                    f"action {index} ({self.move_to_str(state, index)}) is not legal: the game "
                    "is over"
                )
            raise IllegalActionError(
                f"{self.illegal_reason(state, index)}; {self._legal_summary(state, legal)}"
            )
        return index

    def illegal_reason(self, state: np.ndarray, action: int) -> str:
        """Hook: why the in-range ``action`` is not legal in ``state`` (while the game runs),
        in the game's own words; the default names the move."""
        return f"{self.action_to_str(action)} (action {action}) is not legal here"

    def _legal_summary(self, state: np.ndarray, legal: np.ndarray, shown: int = 12) -> str:
        """The legal actions, at most ``shown`` of them (big boards), and the same as moves
        in the game's notation where that is not the action numbers (Connect Four counts
        its columns from 1, Go names points), so neither is taken for the other."""
        actions = np.flatnonzero(legal).tolist()
        more = f", ... ({len(actions)} in all)" if len(actions) > shown else ""
        numbers = ", ".join(str(a) for a in actions[:shown])
        moves = ", ".join(self.move_to_str(state, a) for a in actions[:shown])
        named = "" if moves == numbers else f" (as moves: {moves}{', ...' if more else ''})"
        return f"legal actions: {numbers}{more}{named}"

    def action_index(self, action: Any) -> int:
        """``action`` as a Python int in ``[0, num_actions)``, or IllegalActionError."""
        if action is None:
            raise IllegalActionError(
                "action None is only for an agent whose game has ended; the side to move must "
                f"play an integer in [0, {self.num_actions})"
            )
        if isinstance(action, np.ndarray) and action.size == 1:
            action = action.reshape(()).item()
        if isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer)):
            raise IllegalActionError(
                f"action must be an integer in [0, {self.num_actions}), got {action!r}"
            )
        index = int(action)
        if not 0 <= index < self.num_actions:
            raise IllegalActionError(
                f"action {index} is out of range: {self.name} has actions 0..{self.num_actions - 1}"
            )
        return index

    def replay(self, moves: Any) -> np.ndarray:
        """The state after playing ``moves`` (actions or move strings) from the start."""
        if isinstance(moves, (str, bytes)) or not hasattr(moves, "__iter__"):
            raise InvalidPositionError(
                f"options['moves'] must be a list of actions or move strings, got {excerpt(moves)}"
            )
        state = self.initial_state()
        for ply, move in enumerate(moves):
            action = self.str_to_move(state, move) if isinstance(move, str) else move
            try:
                self.check_action(state, action)
            except IllegalActionError as err:
                raise InvalidPositionError(f"move {ply + 1} of options['moves']: {err}") from None
            self.kernels.apply(state, int(action))
        return state

    def __repr__(self) -> str:
        opts = ", ".join(f"{k}={v!r}" for k, v in self.options.items())
        return f"{type(self).__name__}({opts})"


def make_random_playout(legal_mask_kernel, apply_kernel, num_actions_kernel):
    """Compiled uniformly random playouts for games with no faster specialised one:
    ``(playout(state, rng) -> outcome, playout_trace(state, rng, trace) -> plies)``.

    The traced version also writes the actions played into ``trace`` (as many as fit) and
    returns how many plies it played (RAVE needs them). ``num_actions_kernel(state)`` sizes
    the legal-mask scratch array. Both are compiled per process (they close over the game's
    kernels, which numba cannot cache).
    """

    @njit
    def playout_trace(state, rng, trace):
        scratch = np.empty(num_actions_kernel(state), np.bool_)  # the kernel fills it all
        plies = 0
        while state[OUTCOME] == ONGOING:
            action = choose_true(rng, scratch, legal_mask_kernel(state, scratch))
            if plies < trace.shape[0]:
                trace[plies] = action
            plies += 1
            apply_kernel(state, action)
        return plies

    @njit
    def playout(state, rng):
        playout_trace(state, rng, np.empty(0, np.int64))
        return state[OUTCOME]

    return playout, playout_trace
