"""Differential play against OpenSpiel: the same random games in both implementations."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from boardzoo.envs.core import Game


def assert_same_as_openspiel(
    game: Game, spiel_game, to_spiel: Callable[[int], int], games: int, seed: int = 0
) -> int:
    """Play ``games`` random games move for move in boardzoo and OpenSpiel; at every ply the
    legal sets (boardzoo actions mapped by ``to_spiel``), terminal flags and returns agree.
    Returns the number of plies compared."""
    rng = np.random.default_rng(seed)
    plies = 0
    for _ in range(games):
        state, spiel = game.initial_state(), spiel_game.new_initial_state()
        while True:
            ours = sorted(to_spiel(a) for a in game.legal_actions(state))
            theirs = sorted(spiel.legal_actions()) if not spiel.is_terminal() else []
            assert ours == theirs, f"legal sets differ after {game.position(state)!r}"
            assert game.is_terminal(state) == spiel.is_terminal()
            if spiel.is_terminal():
                np.testing.assert_array_equal(game.returns(state), spiel.returns())
                break
            assert game.to_play(state) == spiel.current_player()
            action = int(rng.choice(game.legal_actions(state)))
            state = game.step(state, action)
            spiel.apply_action(to_spiel(action))
            plies += 1
    return plies
