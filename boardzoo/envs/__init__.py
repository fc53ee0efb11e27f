"""boardzoo's games as PettingZoo AEC environments.

``from boardzoo.envs import connect_four_v0; env = connect_four_v0.env()``. Each game module
holds its rules (pure functions and compiled kernels) and a small ``env()`` factory; the one
environment class they all use is :class:`~boardzoo.envs.aec.BoardGameEnv`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from boardzoo.envs import chess as chess_v0
from boardzoo.envs import connect_four as connect_four_v0
from boardzoo.envs import go as go_v0
from boardzoo.envs import gomoku as gomoku_v0
from boardzoo.envs import nim as nim_v0
from boardzoo.envs import othello as othello_v0
from boardzoo.envs import tictactoe as tictactoe_v0
from boardzoo.envs.aec import BoardGameEnv, EnvSnapshot
from boardzoo.envs.core import DeclaredKnowledge, Game
from boardzoo.envs.registry import (
    GAMES,
    game_class,
    gym_id,
    pettingzoo_id,
    register_game,
    unregister_game,
)
from boardzoo.errors import InvalidOptionError

__all__ = [
    "GAMES",
    "BoardGameEnv",
    "EnvSnapshot",
    "Game",
    "as_game",
    "chess_v0",
    "connect_four_v0",
    "game_class",
    "go_v0",
    "gomoku_v0",
    "gym_id",
    "checked_game",
    "make_env",
    "make_game",
    "nim_v0",
    "othello_v0",
    "pettingzoo_id",
    "register_game",
    "tictactoe_v0",
    "unregister_game",
]

# boardzoo's own games, registered like any other (this order is the order of listings)
register_game(tictactoe_v0.TicTacToe)
register_game(nim_v0.Nim)
register_game(connect_four_v0.ConnectFour)
register_game(othello_v0.Othello)
register_game(go_v0.Go)
register_game(gomoku_v0.Gomoku)
# chess's search knowledge, declared here while envs/chess.py does not declare it itself
chess_v0.Chess.knowledge = DeclaredKnowledge("boardzoo.knowledge.chess:KNOWLEDGE")
register_game(chess_v0.Chess)


def make_game(name: str, /, **options: Any) -> Game:
    """The rules of game ``name`` with ``options``: an unknown option is an
    UnknownOptionError and a value of the wrong type an InvalidOptionError, each listing
    what is allowed."""
    return checked_game(name, options, f"game {name!r}")


def checked_game(
    name: str, options: Mapping[str, Any], what: str, also: Iterable[str] = ()
) -> Game:
    """:func:`make_game` for a constructor that takes game options among its own keywords
    ``also``: an unknown option's error names ``what`` and lists ``also`` as valid too."""
    from boardzoo.options import check_options

    cls = game_class(name)
    return cls(**check_options(cls, options, what, also=also))


def make_env(
    name: str, render_mode: str | None = None, illegal_action: str = "terminate", **options: Any
) -> BoardGameEnv:
    """A PettingZoo AEC env of game ``name`` (the same as ``<name>_v0.env(**options)``;
    ``pettingzoo.make("aec", "boardzoo/<name>_v0", ...)`` builds it). boardzoo's own players
    pass ``illegal_action="raise"``."""
    game = checked_game(name, options, f"{name}_v0.env()", also=("render_mode", "illegal_action"))
    return BoardGameEnv(game, render_mode, illegal_action)


def as_game(game: str | Game, options: Mapping[str, Any] | None = None) -> Game:
    """The rules a caller named: ``game`` itself when it is a :class:`Game` (its options are
    its own, so ``options`` too is an InvalidOptionError), else ``make_game(game,
    **options)``. Where boardzoo takes a game by name or as an object, this is the one
    place a name becomes the rules."""
    if isinstance(game, Game):
        if options:
            raise InvalidOptionError(
                f"game options {dict(options)!r} were given with {game!r}, which has its own; "
                "give options with a game's name only")
        return game
    return make_game(game, **dict(options or {}))
