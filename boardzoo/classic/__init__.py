"""Drop-ins for PettingZoo's classic board games, on boardzoo's compiled rules.

``from boardzoo.classic import connect_four_v3`` (or ``tictactoe_v3``, ``go_v5``,
``chess_v6``) in place of ``from pettingzoo.classic import ...``: each module has
PettingZoo's ``env()`` and ``raw_env()`` with the same agents, spaces, observations, masks,
rewards and wrapper chain, and keeps boardzoo's snapshots, planning model and agents. Where
the installed PettingZoo has a registry, they are registered as ``boardzoo.classic/<name>``
(PettingZoo's own are ``classic/<name>``; an id has one namespace).
"""

from __future__ import annotations

import pettingzoo

from boardzoo.classic import chess_v6, connect_four_v3, go_v5, tictactoe_v3
from boardzoo.envs.registry import HAS_PETTINGZOO_REGISTRY

__all__ = ["DROP_INS", "MODULES", "chess_v6", "connect_four_v3", "go_v5", "register",
           "tictactoe_v3"]

#: the drop-ins by PettingZoo's module name
MODULES = {
    "connect_four_v3": connect_four_v3,
    "tictactoe_v3": tictactoe_v3,
    "go_v5": go_v5,
    "chess_v6": chess_v6,
}

#: boardzoo's game -> the name of its drop-in
DROP_INS = {
    "connect_four": "connect_four_v3",
    "tictactoe": "tictactoe_v3",
    "go": "go_v5",
    "chess": "chess_v6",
}


def register() -> None:
    """Register each drop-in with PettingZoo's registry as ``boardzoo.classic/<name>``
    (``pettingzoo.make("aec", "boardzoo.classic/go_v5")``); nothing where the installed
    PettingZoo has no registry."""
    if not HAS_PETTINGZOO_REGISTRY:
        return
    for name in MODULES:
        pettingzoo.register(
            "aec", f"boardzoo.classic/{name}", entry_point=f"boardzoo.classic.{name}:env"
        )


register()
