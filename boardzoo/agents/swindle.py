"""Swindles: what a clocked agent does with its time once its solver proves it cannot win.

On a clock, a proven draw or loss leaves time that perfect play has no use for: against a
perfect opponent every move that keeps the outcome is as good as the solver's. Against a
fallible one they differ, so :class:`~boardzoo.agents.alphabeta.AlphaBetaAgent` and
:class:`~boardzoo.agents.mcts.MCTSAgent` spend the move's time searching as usual, but only
among the moves that keep the proven outcome (a draw stays a draw; in a lost position every
move does), and play the one their search likes best: the move a bounded opponent is
likelier to get wrong. The outcome the solver proved is never given away. A proven win is
played at once (the solver's move wins fastest; a swindle could only risk it).
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from boardzoo.knowledge import Knowledge
from boardzoo.timecontrol import ClockView, SearchDeadlines, monotonic

__all__ = ["CHILD_SOLVE_SHARE", "Swindle", "outcome_keeping_moves", "plan_swindle"]

#: share of the move's time that proving which moves keep a draw may take (the rest is the
#: swindle's search); a move the solver cannot settle in it is left out
CHILD_SOLVE_SHARE = 0.5


class Swindle(NamedTuple):
    """The root moves a swindle searches, and the move's deadlines for that search."""

    moves: list[int]
    deadlines: SearchDeadlines


def plan_swindle(game: Any, state: np.ndarray, value: int, solver_move: int, entered: float,
                 clock: ClockView, cap: float | None = None,
                 stop: Any = None) -> Swindle | None:
    """The swindle of a move entered at ``entered`` whose position the solver proved worth
    ``value`` (side to move's view), or None (play the solver's move): its deadlines count
    every move the proven game still lasts (the solver saves none of them now), and
    :data:`CHILD_SOLVE_SHARE` of its target may go to proving which moves keep a draw
    (``stop``, a ``threading.Event``, set: no more proving)."""
    if value > 0:
        return None
    deadlines = SearchDeadlines.for_move(entered, clock, game, state, cap, proven_value=value)
    seconds = max(0.0, deadlines.target - monotonic()) * CHILD_SOLVE_SHARE
    moves = outcome_keeping_moves(game, game.knowledge, state, value, solver_move, seconds,
                                  stop)
    return None if moves is None else Swindle(moves, deadlines)


def outcome_keeping_moves(game: Any, knowledge: Knowledge, state: np.ndarray,
                          value: int, solver_move: int, seconds: float,
                          stop: Any = None) -> list[int] | None:
    """The moves of ``state`` a swindle may choose from, given its exact ``value`` (side to
    move's view) and the solver's move; None when there is nothing to swindle: a won
    position, or a single such move.

    Lost: every legal move. Drawn: the solver's move and the moves after which the solver
    proves a draw within ``seconds`` in all (moves it cannot settle in time, or once
    ``stop`` is set, are left out).
    """
    if value > 0:
        return None
    legal = game.legal_actions(state)
    if value < 0:
        return legal if len(legal) > 1 else None
    mover = game.to_play(state)
    deadline = monotonic() + seconds
    keeping = [solver_move]
    for move in legal:
        if move != solver_move and _keeps_draw(game, knowledge, state, move, mover, deadline,
                                               stop):
            keeping.append(move)
    return sorted(keeping) if len(keeping) > 1 else None


def _keeps_draw(game: Any, knowledge: Knowledge, state: np.ndarray, move: int,
                mover: int, deadline: float, stop: Any) -> bool:
    """Whether playing ``move`` in a drawn position provably keeps the draw for ``mover``."""
    child = game.step(state, move)
    if game.is_terminal(child):
        return bool(game.returns(child)[mover] == 0)
    left = deadline - monotonic()
    if left <= 0 or knowledge.solve is None or (stop is not None and stop.is_set()):
        return False
    solution = knowledge.solve(child, left, stop=stop)
    if solution is None:
        return False
    same_side = game.to_play(child) == mover  # a pass (Othello) gives the mover another turn
    return (solution.value if same_side else -solution.value) == 0
