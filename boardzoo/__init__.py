"""boardzoo: two-player board games in the PettingZoo/Gymnasium API, and agents that plan.

Importing boardzoo registers its environments: ``gymnasium.make("boardzoo/ConnectFour-v0")``
(single-agent view against an opponent) and ``pettingzoo.make("aec",
"boardzoo/connect_four_v0")`` (the two-player AEC env).
"""

from __future__ import annotations

import gymnasium
import pettingzoo

__version__ = "0.1.0"

#: game name -> Gymnasium id suffix
_GYM_NAMES = {
    "tictactoe": "TicTacToe",
    "nim": "Nim",
    "connect_four": "ConnectFour",
    "othello": "Othello",
    "go": "Go",
    "gomoku": "Gomoku",
}


def _register() -> None:
    for game, gym_name in _GYM_NAMES.items():
        gym_id = f"boardzoo/{gym_name}-v0"
        if gym_id not in gymnasium.registry:
            gymnasium.register(
                gym_id,
                entry_point="boardzoo.wrappers.gymnasium:SingleAgentEnv",
                kwargs={"game": game},
            )
        pz_id = f"boardzoo/{game}_v0"
        if pz_id not in pettingzoo.aec_registry:
            pettingzoo.register("aec", pz_id, entry_point=f"boardzoo.envs.{game}:env")


_register()
