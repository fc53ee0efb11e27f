"""Labelled positions: the data of AlphaGo-style supervised warm starts, and the Connect Four
and Othello endgame solvers as labellers.

A labelled-position file is JSON Lines, one position per line (gzip-compressed when its name
ends in ``.gz``)::

    {"position": "4453", "policy": {"2": 0.5, "4": 0.5}, "value": 1.0}

``position`` is the game's position text (``env.unwrapped.position()``), ``policy`` maps legal
actions to target probabilities (normalised on loading), ``value`` is the result for the side
to move in [-1, 1]. Nothing in such a file is executed; a malformed line is an error that names
the line.

Test positions must never become training data: :func:`canonical_key` identifies a position
up to the game's symmetries (the augmentation would otherwise bring a mirrored test position
back in), and the labeller skips every key it is given to exclude.
"""

from __future__ import annotations

import gzip
import json
import math
import zlib
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

import numpy as np

from boardzoo.envs.core import Game
from boardzoo.envs.symmetry import symmetries
from boardzoo.errors import CheckpointError, InvalidPositionError, excerpt, os_reason
from boardzoo.training.config import json_kind

__all__ = [
    "agent_player",
    "canonical_key",
    "label_connect_four",
    "label_othello",
    "label_row",
    "load_labelled",
    "position_keys",
    "solver_label",
    "write_labels",
]


def canonical_key(game: Game, state: np.ndarray) -> bytes:
    """The same bytes for a position and each of its symmetric images (board and side to
    move; move order does not matter)."""
    cells = game.cells(state)[:, :, None]
    boards = [sym.planes(cells).tobytes() for sym in symmetries(game)]
    return bytes([game.to_play(state)]) + min(boards)


LINE_FORMAT = '{"position": ..., "policy": {action: p}, "value": v}'
"""One line of a labelled-position file, as error messages show it."""


def load_labelled(path: str | Path, game: Game) -> list[tuple]:
    """The training positions (planes, mask, pi, z) of a labelled-position file (at least
    one: a file without any is an error)."""
    out = []
    for number, line in enumerate(_label_lines(path), start=1):
        if not line.strip():
            continue
        try:
            out.append(_position(game, json.loads(line)))
        except json.JSONDecodeError as err:
            raise CheckpointError(f"{str(path)!r} line {number} is not JSON ({err.msg}, column "
                                  f"{err.colno}); each line is {LINE_FORMAT}") from None
        except (ValueError, TypeError, RecursionError) as err:
            raise CheckpointError(f"{str(path)!r} line {number}: {err}") from None
    if not out:
        raise CheckpointError(f"{str(path)!r} holds no labelled positions; each line is "
                              f"{LINE_FORMAT}")
    return out


def _label_lines(path: str | Path) -> list[str]:
    """The lines of a labelled-position file, gzip-compressed when its name ends in .gz."""
    try:
        data = Path(path).read_bytes()
        if str(path).endswith(".gz"):
            data = gzip.decompress(data)
        return data.decode("utf-8").splitlines()
    except FileNotFoundError:
        raise CheckpointError(f"labelled positions {str(path)!r} do not exist") from None
    except (UnicodeDecodeError, gzip.BadGzipFile, EOFError, zlib.error):  # before OSError,
        raise CheckpointError(                                            # BadGzipFile's base
            f"{str(path)!r} is not a labelled-position (JSON Lines) file"
        ) from None
    except OSError as err:
        raise CheckpointError(
            f"labelled positions {str(path)!r} cannot be read ({os_reason(err)})") from None


def _position(game: Game, entry: Any) -> tuple:
    """The training position of one decoded line; a ValueError says what is wrong with it."""
    text, policy, value = _fields(entry)
    state = game.parse_position(text)
    if game.is_terminal(state):
        raise ValueError("the position is finished; label positions with a move to play")
    mask = game.legal_mask(state)
    pi = np.zeros(game.num_actions, np.float32)
    for action, prob in policy.items():
        index = game.check_action(state, _action(action), mask)
        if _number(prob, f"the policy's probability of {excerpt(action)}") < 0:
            raise ValueError(f"policy probability {excerpt(prob)} is negative")
        pi[index] = float(prob)
    if pi.sum() <= 0:
        raise ValueError("the policy puts no weight on any move")
    if not -1.0 <= _number(value, '"value"') <= 1.0:
        raise ValueError(f"value {excerpt(value)} is outside [-1, 1]")
    seat = game.to_play(state)
    return game.observe(state, seat), mask, pi / pi.sum(), float(value)


def _fields(entry: Any) -> tuple[str, dict[str, Any], Any]:
    """(position, policy, value) of a decoded line, each of the right kind (the numbers are
    checked where they are used)."""
    if not isinstance(entry, dict):
        raise ValueError(f"not a JSON object but {json_kind(entry)}; each line is {LINE_FORMAT}")
    missing = [key for key in ("position", "policy", "value") if key not in entry]
    if missing:
        names = ", ".join(f'"{key}"' for key in missing)
        raise ValueError(f"missing {names}; each line is {LINE_FORMAT}")
    if not isinstance(entry["position"], str):
        raise ValueError(f'"position" must be the position text (a string), not '
                         f"{json_kind(entry['position'])}")
    if not isinstance(entry["policy"], dict):
        raise ValueError(f'"policy" must be an object {{action: probability}}, not '
                         f"{json_kind(entry['policy'])}")
    return entry["position"], entry["policy"], entry["value"]


def _action(key: str) -> int:
    """The action a policy key names (JSON object keys are strings: ``"4"``)."""
    try:
        return int(key)
    except ValueError:
        raise ValueError(f"policy key {key!r} is not an action number") from None


def _number(value: Any, what: str) -> float:
    """``value`` if it is a finite number, else a ValueError naming ``what``."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise ValueError(f"{what} must be a number, not {excerpt(value)}")
    return float(value)


def solver_label(game: Game, state: np.ndarray, solve, time_limit: float | None = None,
                 max_nodes: int | None = None) -> dict | None:
    """The label of one position by an exact solver ``solve(state, time_limit, max_nodes)``
    (a :class:`~boardzoo.knowledge.Solution` or None) of each move's position: every
    strictly optimal move equally likely, and the sign of the exact value; None when a solve
    runs out of budget. A move that ends the game scores the game's ``exact_value`` (the
    solver's unit: Pons' score, the final disc difference)."""
    exact_value = game.knowledge.exact_value
    scores = {}
    for action in game.legal_actions(state):
        child = game.step(state, action)
        if game.is_terminal(child):
            value = exact_value(child)  # for the side to move in the finished game
        else:
            solution = solve(child, time_limit, max_nodes)
            if solution is None:
                return None
            value = solution.value
        same_mover = game.to_play(child) == game.to_play(state)
        scores[action] = value if same_mover else -value
    best = max(scores.values())
    return label_row(game, state, [a for a, s in scores.items() if s == best], best)


def label_row(game: Game, state: np.ndarray, moves: list[int], best: float) -> dict:
    """A label as the files hold it: the position, its strictly optimal ``moves`` equally
    likely (in the order given), and the sign of its exact score ``best`` (side to move)."""
    return {"position": game.position(state), "policy": {str(a): 1 / len(moves) for a in moves},
            "value": float(np.sign(best))}


def position_keys(game: Game, paths: Iterable[str | Path]) -> set[bytes]:
    """Canonical keys of every position in test-set files: Pons' format (``moves score ...``
    lines, Connect Four) or OBF (``board side; ...`` lines, Othello's FFO sets)."""
    keys = set()
    for path in paths:
        try:
            lines = Path(path).read_text(encoding="utf-8").splitlines()
        except OSError as err:
            raise InvalidPositionError(
                f"test-set file {str(path)!r} cannot be read ({os_reason(err)})") from None
        except UnicodeDecodeError:
            raise InvalidPositionError(
                f"test-set file {str(path)!r} is not UTF-8 text (a position file is one "
                "position a line)") from None
        for number, line in enumerate(lines, 1):
            if line.strip() and not line.startswith("#"):
                text = line.split(";")[0] if ";" in line else line.split()[0]
                try:
                    keys.add(canonical_key(game, game.parse_position(text)))
                except InvalidPositionError as err:
                    raise InvalidPositionError(f"{path}, line {number}: {err}") from None
    return keys


LABEL_MAX_NODES = 20_000_000
"""The Connect Four labeller's default budget per position: about 2 s on one core here. A
node budget, not a time limit, so that a seed gives the same labels on any machine under any
load."""


def label_connect_four(count: int, seed: int = 0, min_stones: int = 8,
                       exclude: set[bytes] | None = None, time_limit: float | None = None,
                       best_move_prob: float = 0.5,
                       max_nodes: int | None = LABEL_MAX_NODES,
                       agent: Any = None, opening_plies: int = 4) -> Iterator[dict]:
    """``count`` labelled 6x7 Connect Four positions from boardzoo's own games (see
    :func:`label_games`; with an ``agent``, its self-play from ``opening_plies`` random
    moves), labelled from ``min_stones`` stones on, each by one search of the solver
    (:meth:`~boardzoo.knowledge.connect_four.Solver.optimal_moves`: the same labels as
    :func:`solver_label`, 2-3 times faster). Positions the solver cannot settle within its
    budget (``max_nodes``, or ``time_limit`` seconds, which makes the labels depend on the
    machine's speed) are played through unlabelled."""
    from boardzoo.envs import make_game
    from boardzoo.knowledge.connect_four import Solver

    solver = Solver(reuse_table=True)  # one game's positions share most of their trees
    game = make_game("connect_four")

    def label(state: np.ndarray) -> dict | None:
        found = solver.optimal_moves(state, time_limit, max_nodes)
        return None if found is None else label_row(game, state, *found)

    player = None if agent is None else agent_player(game, agent)
    return label_games(game, label, count, seed, min_stones, exclude, best_move_prob,
                       player, opening_plies)


def label_othello(count: int, seed: int = 0, board_size: int = 6, max_empties: int = 14,
                  exclude: set[bytes] | None = None,
                  best_move_prob: float = 0.5) -> Iterator[dict]:
    """``count`` labelled Othello positions from boardzoo's own games (see
    :func:`label_games`), labelled from ``max_empties`` empty squares on: the endgame
    solver settles every one (no budget, so a seed gives the same labels everywhere;
    6x6 at 14 empties takes milliseconds a move, at 20 about a second)."""
    from boardzoo.envs import make_game
    from boardzoo.knowledge.othello_solver import solve as solve_othello

    def solve(state: np.ndarray, time_limit: float | None, max_nodes: int | None):
        return solve_othello(state, time_limit, max_empties=max_empties)

    game = make_game("othello", board_size=board_size)
    return label_games(game, lambda state: solver_label(game, state, solve), count, seed,
                       board_size * board_size - max_empties, exclude, best_move_prob)


def label_games(game: Game, label: Callable[[np.ndarray], dict | None], count: int, seed: int,
                min_pieces: int, exclude: set[bytes] | None = None,
                best_move_prob: float = 0.5,
                player: Callable[[np.ndarray], int] | None = None,
                opening_plies: int = 4) -> Iterator[dict]:
    """``count`` positions of ``game`` labelled by ``label`` (a state's label as
    :func:`label_row` makes it, or None when its solver gives up) from
    boardzoo's own games: random moves until ``min_pieces`` pieces are on the board, then a
    strictly optimal move with probability ``best_move_prob`` (a random move otherwise), so
    the positions are those of strong and of weak play alike. With a ``player`` (a state's
    move, e.g. :func:`agent_player`) the games are its self-play from ``opening_plies``
    random moves, and its move replaces the random one: the positions a strong player meets.
    Every position from ``min_pieces`` on is labelled, except positions (or their symmetric
    images) in ``exclude``, positions seen before and those ``label`` gives up on: those are
    played through with a random move (the player's)."""
    rng = np.random.default_rng(seed)
    seen = set(exclude or ())
    made = 0

    def random_move(state: np.ndarray) -> int:
        return int(rng.choice(game.legal_actions(state)))

    def unlabelled_move(state: np.ndarray) -> int:
        return player(state) if player else random_move(state)

    def pieces(state: np.ndarray) -> int:
        return int(np.count_nonzero(game.cells(state)))

    while made < count:
        state = game.initial_state()
        while not game.is_terminal(state) and pieces(state) < min_pieces:
            state = game.step(state, random_move(state) if pieces(state) < opening_plies
                              else unlabelled_move(state))
        while made < count and not game.is_terminal(state):
            key = canonical_key(game, state)
            row = None if key in seen else label(state)
            if row is None:
                state = game.step(state, unlabelled_move(state))
                continue
            seen.add(key)
            made += 1
            yield row
            if rng.random() < best_move_prob:
                move = int(rng.choice([int(a) for a in row["policy"]]))
            else:
                move = unlabelled_move(state)
            state = game.step(state, move)


def agent_player(game: Game, agent: Any) -> Callable[[np.ndarray], int]:
    """A state's move by ``agent`` (anything with ``act(env)``), through an env of ``game``
    (default options) set to the state's position: the labeller's self-play player."""
    from boardzoo.envs import make_env

    env = make_env(game.name, illegal_action="raise")

    def move(state: np.ndarray) -> int:
        env.reset(options={"position": game.position(state)})
        return int(agent.act(env))

    return move


def write_labels(labels: Iterable[dict], path: str | Path) -> int:
    """Write labels as JSON Lines (atomically; gzip-compressed if ``path`` ends in .gz);
    returns how many."""
    from boardzoo.files import atomic_write_bytes

    rows = [json.dumps(label, sort_keys=True) for label in labels]
    data = ("\n".join(rows) + "\n").encode()
    atomic_write_bytes(path, gzip.compress(data, mtime=0) if str(path).endswith(".gz") else data)
    return len(rows)

