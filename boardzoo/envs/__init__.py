"""boardzoo's games as PettingZoo AEC environments.

``from boardzoo.envs import connect_four_v0; env = connect_four_v0.env()``. Each game module
holds its rules (pure functions and compiled kernels) and a small ``env()`` factory; the one
environment class they all use is :class:`~boardzoo.envs.aec.BoardGameEnv`.
"""

from __future__ import annotations

import importlib
from typing import Any

from boardzoo.envs import connect_four as connect_four_v0
from boardzoo.envs import go as go_v0
from boardzoo.envs import gomoku as gomoku_v0
from boardzoo.envs import nim as nim_v0
from boardzoo.envs import othello as othello_v0
from boardzoo.envs import tictactoe as tictactoe_v0
from boardzoo.envs.aec import BoardGameEnv, EnvSnapshot
from boardzoo.envs.core import Game
from boardzoo.errors import InvalidOptionError, UnknownGameError

__all__ = [
    "GAMES",
    "BoardGameEnv",
    "EnvSnapshot",
    "Game",
    "make_env",
    "connect_four_v0",
    "go_v0",
    "gomoku_v0",
    "make_game",
    "nim_v0",
    "othello_v0",
    "tictactoe_v0",
]

#: game name -> "module:Game class"; names are the module names without version
GAMES: dict[str, str] = {
    "tictactoe": "boardzoo.envs.tictactoe:TicTacToe",
    "nim": "boardzoo.envs.nim:Nim",
    "connect_four": "boardzoo.envs.connect_four:ConnectFour",
    "othello": "boardzoo.envs.othello:Othello",
    "go": "boardzoo.envs.go:Go",
    "gomoku": "boardzoo.envs.gomoku:Gomoku",
}


def game_class(name: str) -> type[Game]:
    """The Game class of a game name, or UnknownGameError listing the known names."""
    if name not in GAMES:
        raise UnknownGameError(f"unknown game {name!r}; boardzoo has: {', '.join(GAMES)}")
    module, cls = GAMES[name].split(":")
    return getattr(importlib.import_module(module), cls)


def make_game(name: str, **options: Any) -> Game:
    """The rules of game ``name`` with ``options`` (unknown options: InvalidOptionError)."""
    cls = game_class(name)
    try:
        return cls(**options)
    except TypeError as err:
        raise InvalidOptionError(f"{name}: {err}") from None


def make_env(
    name: str, render_mode: str | None = None, illegal_action: str = "raise", **options: Any
) -> BoardGameEnv:
    """A PettingZoo AEC env of game ``name`` (the same as ``<name>_v0.env(**options)``)."""
    return BoardGameEnv(make_game(name, **options), render_mode, illegal_action)
