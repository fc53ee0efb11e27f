"""Go's rules of play around a search: what a Go player does whatever its search says, applied
by every searching agent's move pipeline (:mod:`boardzoo.agents.move`) and, by
:func:`~boardzoo.agents.move.by_rules_of_play`, to moves chosen without it (batched
self-play, the random agent, GTP's agents without a search), so that the arena, ``boardzoo
play``, the browser page, GTP and self-play all play the same Go.

- **Pass when passing wins**: right after the opponent's pass, a pass ends the game; when it
  wins both on the board as it stands (Tromp-Taylor) and with the dead stones removed
  (:mod:`.scoring`), the agent passes without searching.
- **Never fill an own eye** while another move was searched: the most visited searched move
  that fills none is played instead (a pass when there is none).
- **Clean-up** (GTP's ``kgs-genmove_cleanup``, asked for by a controller when the players
  disagree on dead stones): play on the liberties of the opponent's dead chains first.

Moves are actions of :class:`boardzoo.envs.go.Go`; ``visits`` are a search's root visits per
action (None for a search that does not count them).
"""

from __future__ import annotations

import numpy as np

from boardzoo.envs.core import PLY, TO_PLAY
from boardzoo.envs.go import Go
from boardzoo.envs.go_board import history_start
from boardzoo.knowledge.go.patterns import fills_own_eye
from boardzoo.knowledge.go.scoring import dead_chains, final_score, liberties

__all__ = ["MOVE_RULES", "GoMoveRules", "best_other", "cleanup_move", "cleanup_targets",
           "opponent_passed", "passing_wins"]


class GoMoveRules:
    """The :class:`boardzoo.knowledge.base.MoveRules` of Go (module docstring)."""

    def before_search(self, game: Go, state: np.ndarray) -> int | None:
        """A pass when passing wins after the opponent's pass, else None (search)."""
        return game.pass_action if passing_wins(game, state) else None

    def after_search(self, game: Go, state: np.ndarray, action: int,
                     visits: np.ndarray | None) -> int:
        """The searched ``action``, unless it fills an own eye: then :func:`best_other`."""
        if action != game.pass_action and fills_own_eye(state, action):
            return best_other(game, state, visits)
        return action


MOVE_RULES = GoMoveRules()


def opponent_passed(game: Go, state: np.ndarray) -> bool:
    """Whether the last move of ``state``'s history is a pass by the side not to move."""
    ply = int(state[PLY])
    if ply == 0:
        return False
    last = int(state[history_start(state) + ply - 1])  # action * 2 + (colour - 1)
    return last == game.pass_action * 2 + (1 - int(state[TO_PLAY]))


def passing_wins(game: Go, state: np.ndarray) -> bool:
    """After the opponent's pass, whether a pass (which ends the game) wins for the side to
    move both on the board as it stands and with the dead stones removed."""
    if not opponent_passed(game, state):
        return False
    sign = 1.0 if int(state[TO_PLAY]) == 0 else -1.0
    return sign * game.score(state) > 0 and sign * final_score(game, state).agreed > 0


def best_other(game: Go, state: np.ndarray, visits: np.ndarray | None) -> int:
    """The most visited searched move that fills no own eye of the side to move, else a
    pass."""
    if visits is None:
        return game.pass_action
    for action in np.argsort(-visits, kind="stable"):
        action = int(action)
        if visits[action] <= 0:
            break
        if action == game.pass_action or not fills_own_eye(state, action):
            return action
    return game.pass_action


def cleanup_targets(game: Go, state: np.ndarray) -> list[int]:
    """Legal moves on the liberties of the opponent's dead chains that fill no own eye, in
    the order of the chains, then of the liberties."""
    legal = game.legal_mask(state)
    cells = game.cells(state).ravel()
    opponent = 2 - int(state[TO_PLAY])
    targets: list[int] = []
    for chain in dead_chains(game, state):
        if cells[chain[0]] == opponent:
            targets += [a for a in liberties(cells, game.size, chain)
                        if legal[a] and not fills_own_eye(state, a) and a not in targets]
    return targets


def cleanup_move(game: Go, state: np.ndarray, action: int, visits: np.ndarray | None) -> int:
    """The clean-up phase's move: ``action`` if it is a target (or there is none), else the
    most visited target (ties, and without visits: the first)."""
    targets = cleanup_targets(game, state)
    if not targets or action in targets:
        return action
    if visits is None:
        return targets[0]
    return max(targets, key=lambda a: visits[a])
