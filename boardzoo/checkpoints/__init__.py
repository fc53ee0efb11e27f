"""The networks shipped with boardzoo (package data), listed for both kinds in one place.

A file ``<name>.pt`` here is an AlphaZero network, ``ppo_<name>.pt`` a PPO policy; ``<name>``
is the game's name, with the board's size where its options are not the defaults
(:func:`checkpoint_name`: "connect_four", "othello_6x6"). Model cards are in docs/. Loaded by
name, e.g. ``AlphaZeroAgent.from_checkpoint("tictactoe")`` or
``make_agent("ppo:checkpoint=connect_four")``. Listing needs no torch; loading does.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from boardzoo.envs import make_game
from boardzoo.envs.core import Game
from boardzoo.errors import InvalidOptionError

__all__ = ["KINDS", "checkpoint_name", "shipped_checkpoints", "shipped_for"]

#: the kinds of shipped network -> the prefix of their file names
KINDS = {"alphazero": "", "ppo": "ppo_"}


def shipped_checkpoints(kind: str) -> dict[str, Path]:
    """Name -> file of every shipped checkpoint of ``kind`` ("alphazero" or "ppo"), sorted
    by name."""
    if kind not in KINDS:
        raise InvalidOptionError(f"unknown checkpoint kind {kind!r}; kinds: {', '.join(KINDS)}")
    prefix = KINDS[kind]
    others = [p for p in KINDS.values() if p != prefix and p.startswith(prefix)]
    found = {}
    for entry in resources.files(__name__).iterdir():
        name = entry.name
        if (name.endswith(".pt") and name.startswith(prefix)
                and not any(name.startswith(p) for p in others)):
            found[name[len(prefix):-len(".pt")]] = Path(str(entry))
    return dict(sorted(found.items()))


def checkpoint_name(game: Game) -> str:
    """The name a shipped checkpoint for ``game`` (its rules and options) has: the game's
    name with its default options, else with the board's size ("othello_6x6",
    "connect_four_5x6") or, for other options, each option and value."""
    if game.key == make_game(game.name).key:
        return game.name
    options = game.options
    if "board_size" in options:
        return f"{game.name}_{options['board_size']}x{options['board_size']}"
    if "rows" in options and "columns" in options:
        return f"{game.name}_{options['rows']}x{options['columns']}"
    return f"{game.name}_" + "_".join(f"{k}{v}" for k, v in sorted(options.items()))


def shipped_for(game: Game, kind: str) -> str | None:
    """The name of the shipped checkpoint of ``kind`` that plays ``game``, or None."""
    name = checkpoint_name(game)
    return name if name in shipped_checkpoints(kind) else None
