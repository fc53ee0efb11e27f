"""One JSON-ready shape for what a search found, whichever agent ran it (MCTS, AlphaZero,
alpha-beta, an exact solver), and the hooks to watch a search live and to stop it.

An :class:`Analysis` is what GUIs, the GTP engine and the web page show: the move chosen, its
value from the side to move's view with the unit stated (``unit``), whether it is exact, how
much was searched, and per-move statistics (:class:`MoveStat`) with principal variations
in the game's move notation. ``to_json()`` gives plain JSON values.

Live hooks, taken by ``MCTSAgent`` / ``AlphaBetaAgent`` ``.search`` / ``.analyse`` /
``.act``: ``on_progress(analysis)`` (a :data:`ProgressFn`) is called between rounds of the
search (about every :data:`PROGRESS_SECONDS`, and after each alpha-beta iteration) with
``final=False``; ``stop`` (a ``threading.Event``) set from another thread means "move now":
the search returns its best move so far.

>>> a = Analysis(action=3, move="4", value=0.25, unit=MEAN, exact=False, nodes=1000, depth=7,
...              elapsed=0.5, pv=("4", "4"), moves=(MoveStat(3, "4", 600, 0.25, 0.2, ("4",)),))
>>> a.to_json()["moves"][0]["visits"]
600
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, fields
from typing import Any

import numpy as np

__all__ = [
    "EXACT",
    "HEURISTIC",
    "MEAN",
    "PROGRESS_SECONDS",
    "Analysis",
    "MoveStat",
    "ProgressFn",
    "line_texts",
    "move_texts",
]

#: ``Analysis.unit``: MCTS's mean result in [-1, 1] (+1 a win for the side to move)
MEAN = "mean result [-1, 1]"
#: alpha-beta's heuristic scale (-1, 1), with exactly +1 / -1 for a proven win / loss
HEURISTIC = "heuristic (-1, 1)"
#: the game's exact unit (Connect Four: Pons' score; Othello: final disc difference; other
#: games: +1 / 0 / -1), for an exact result
EXACT = "exact"
#: seconds between two progress reports of a running search
PROGRESS_SECONDS = 0.1


@dataclass(frozen=True)
class MoveStat:
    """Statistics of one root move: ``visits`` (MCTS; 0 for alpha-beta), ``value`` from the
    side to move's view at the root in the analysis' unit (None: not searched), ``prior``
    (None: the search has none), ``pv`` the line that starts with this move (move texts)."""

    action: int
    move: str
    visits: int
    value: float | None
    prior: float | None
    pv: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {
            "action": int(self.action),
            "move": self.move,
            "visits": int(self.visits),
            "value": _plain(self.value),
            "prior": _plain(self.prior),
            "pv": list(self.pv),
        }


@dataclass(frozen=True)
class Analysis:
    """What one search found (see the module docstring).

    ``value``: from the side to move's view, in ``unit`` (:data:`MEAN`, :data:`HEURISTIC`
    or :data:`EXACT`); ``proven``: "win"/"loss"/"draw" for the side to move when the result
    is proven, else None; ``nodes``: MCTS simulations or alpha-beta/solver nodes;
    ``depth``: alpha-beta's last completed iteration, MCTS's principal variation length;
    ``elapsed``: seconds so far; ``moves``: root moves, most searched first; ``final``:
    False for a progress report of a search still running; ``engine``: "mcts",
    "alphabeta", "solver", "forced" (the only legal move) or "rule" (the game's rules of
    play chose it before any search: Go's winning pass).
    """

    action: int
    move: str
    value: float
    unit: str
    exact: bool
    nodes: int
    depth: int
    elapsed: float
    pv: tuple[str, ...]
    moves: tuple[MoveStat, ...] = ()
    proven: str | None = None
    engine: str = "mcts"
    final: bool = True
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def nodes_per_second(self) -> float:
        return self.nodes / self.elapsed if self.elapsed > 0 else 0.0

    def to_json(self) -> dict[str, Any]:
        """Plain JSON values (NaN becomes None)."""
        out: dict[str, Any] = {}
        for f in fields(self):
            value = getattr(self, f.name)
            if f.name == "moves":
                out[f.name] = [move.to_json() for move in value]
            elif f.name == "pv":
                out[f.name] = list(value)
            elif f.name == "extra":
                out[f.name] = {k: _plain(v) for k, v in value.items()}
            else:
                out[f.name] = _plain(value)
        return out


#: the live hook ``on_progress(analysis)`` a running search calls between rounds
ProgressFn = Callable[[Analysis], None]


def move_texts(env_or_model: Any) -> Callable[[int], str]:
    """The function that writes an action of the current position's side to move in the
    game's notation (``str(action)`` for envs that have none)."""
    game = _game_of(env_or_model)
    writer = getattr(game, "action_to_str", None)
    if not callable(writer):
        return str
    if not _names_moves_by_position(game):
        return writer
    root = _root_of(env_or_model)
    return lambda action: game.move_to_str(root, action)


def line_texts(env_or_model: Any) -> Callable[[Sequence[int]], tuple[str, ...]]:
    """The function that writes a line of moves from the current position (a principal
    variation), each in the position it is played in where the game's notation depends on
    it (chess numbers its actions from the mover's side); the text stops before a move that
    is not legal where it stands."""
    game = _game_of(env_or_model)
    text = move_texts(env_or_model)
    if not _names_moves_by_position(game):
        return lambda actions: tuple(text(a) for a in actions)
    root = _root_of(env_or_model)

    def write(actions: Sequence[int]) -> tuple[str, ...]:
        state, texts = root, []
        for action in actions:
            if not game.legal_mask(state)[action]:
                break
            texts.append(game.move_to_str(state, action))
            state = game.step(state, action)
        return tuple(texts)

    return write


def _game_of(env_or_model: Any) -> Any:
    game = getattr(env_or_model, "game", None)
    return game if game is not None else getattr(
        getattr(env_or_model, "unwrapped", None), "game", None)


def _names_moves_by_position(game: Any) -> bool:
    """Whether the game writes a move differently by position (overrides move_to_str)."""
    from boardzoo.envs.core import Game

    return isinstance(game, Game) and type(game).move_to_str is not Game.move_to_str


def _root_of(env_or_model: Any) -> np.ndarray:
    """The current position's state array of a model (``root()``) or a boardzoo env."""
    root = getattr(env_or_model, "root", None)
    return root() if callable(root) else env_or_model.unwrapped.state_array


def _plain(value: Any) -> Any:
    """A JSON value: numpy scalars as Python numbers, NaN/inf as None."""
    if isinstance(value, (np.integer, np.bool_)):
        return value.item()
    if isinstance(value, (float, np.floating)):
        value = float(value)
        return value if math.isfinite(value) else None
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value
