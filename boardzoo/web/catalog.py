"""What the page offers: every registered game with its options, and the opponents.

Game options come from each game class's constructor (names, defaults and type hints), so a
user's registered game appears with its options too; values travel as command-line text and
are converted and checked exactly as ``boardzoo play --option`` does
(:func:`boardzoo.options.check_options`). Opponents are ``make_agent`` specs; AlphaZero and
PPO are offered with the checkpoints shipped in ``boardzoo/checkpoints`` (only those: the
page never loads a file path), each with the game options it was trained for.
"""

from __future__ import annotations

import functools
import inspect
import json
from typing import Any

from boardzoo.agents import make_agent
from boardzoo.agents.base import Agent
from boardzoo.checkpoints import KINDS, shipped_checkpoints
from boardzoo.envs import GAMES, game_class, make_game
from boardzoo.envs.core import Game
from boardzoo.errors import BoardzooError, InvalidOptionError
from boardzoo.options import check_options, did_you_mean

__all__ = ["AGENT_FORMS", "agent_for", "build", "catalog", "checkpoints", "game_from_text",
           "option_text"]

#: the opponents the page offers, each with its main options (name, default text, help)
AGENT_FORMS: dict[str, list[tuple[str, str, str]]] = {
    "random": [],
    "alphabeta": [("time_limit", "1.0", "seconds per move"),
                  ("depth", "", "fixed depth (empty: iterative deepening to the time limit)")],
    "mcts": [("time_limit", "1.0", "seconds per move"),
             ("simulations", "", "simulations per move (empty: the time limit decides)")],
    "alphazero": [("checkpoint", "", "shipped network"),
                  ("simulations", "200", "simulations per move"),
                  ("time_limit", "", "seconds per move (instead of simulations)")],
    "ppo": [("checkpoint", "", "shipped policy")],
}
_NEEDS_CHECKPOINT = ("alphazero", "ppo")


def option_text(value: Any) -> str:
    """A default option value as the text the option parser reads back (``(3, 4)`` -> "3,4")."""
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, tuple):
        return ",".join(option_text(v) for v in value)
    return str(value)


def _game_options(cls: type[Game]) -> list[dict[str, str]]:
    parameters = list(inspect.signature(cls).parameters.values())
    return [{"name": p.name, "default": option_text(p.default),
             "type": str(p.annotation).replace("typing.", "")}
            for p in parameters if p.default is not inspect.Parameter.empty]


def game_from_text(name: Any, options: Any) -> Game:
    """The game ``name`` with ``options`` given as text (``{"board_size": "9"}``), checked."""
    if not isinstance(name, str) or name not in GAMES:
        known = list(GAMES)
        hint = did_you_mean(name, known) if isinstance(name, str) else ""
        raise InvalidOptionError(f"unknown game {name!r}{hint}; games: {', '.join(known)}")
    if not isinstance(options, dict) or not all(
            isinstance(k, str) and isinstance(v, (str, int, float, bool)) for k, v in
            options.items()):
        raise InvalidOptionError("game options must be an object of option name -> text value")
    texts = {k: v if isinstance(v, str) else option_text(v) for k, v in options.items()}
    return make_game(name, **check_options(game_class(name), texts, name, from_text=True))


@functools.cache
def checkpoints() -> tuple[dict[str, Any], ...]:
    """The shipped checkpoints: ``{"agent", "name", "game", "options"}`` each (options as
    text); empty when torch (the ``torch`` extra) is not installed."""
    try:
        from boardzoo.torch_files import safe_torch_load
    except ImportError:
        return ()
    found = [(kind, name, path) for kind in KINDS
             for name, path in shipped_checkpoints(kind).items()]
    listed = []
    for agent, name, path in found:
        header = safe_torch_load(path, f"{agent} checkpoint")
        options = header["game_options"]
        if isinstance(options, str):  # AlphaZero keeps its options as JSON text
            options = json.loads(options)
        listed.append({"agent": agent, "name": name, "game": header["game"],
                       "options": {k: option_text(tuple(v) if isinstance(v, list) else v)
                                   for k, v in options.items()}})
    return tuple(listed)


def catalog() -> dict[str, Any]:
    """The games and opponents, as the page's menus show them."""
    games = []
    for name in GAMES:
        cls = game_class(name)
        game = make_game(name)
        rows, cols = game.cells(game.initial_state()).shape
        games.append({"name": name, "options": _game_options(cls),
                      "position_format": cls.position_format, "rows": rows, "cols": cols})
    agents = [{"name": name, "options": [{"name": o, "default": d, "help": h}
                                         for o, d, h in options]}
              for name, options in AGENT_FORMS.items()]
    return {"games": games, "agents": agents, "checkpoints": list(checkpoints())}


def agent_for(game: Game, name: Any, options: Any) -> str:
    """The ``make_agent`` spec of opponent ``name`` with ``options`` (text values; empty ones
    left out) for ``game``; a checkpoint must be a shipped one trained for exactly this game
    and options. The agent itself is built (and its options checked) in the worker."""
    if not isinstance(name, str) or name not in AGENT_FORMS:
        raise InvalidOptionError(
            f"unknown opponent {name!r}; the page offers: {', '.join(AGENT_FORMS)}")
    if not isinstance(options, dict) or not all(
            isinstance(k, str) and isinstance(v, (str, int, float)) for k, v in options.items()):
        raise InvalidOptionError("opponent options must be an object of option name -> text")
    given = {k: str(v).strip() for k, v in options.items() if str(v).strip()}
    for key, value in given.items():
        if any(ch in value for ch in ",=:") or not key.isidentifier():
            raise InvalidOptionError(f"opponent option {key}={value!r}: no ',', '=' or ':'")
    if name in _NEEDS_CHECKPOINT:
        _check_checkpoint(game, name, given.get("checkpoint"))
    return name + (":" + ",".join(f"{k}={v}" for k, v in given.items()) if given else "")


def build(spec: str, seed: int | None = None) -> Agent:
    """``make_agent(spec)``, with any construction failure as an InvalidOptionError."""
    try:
        return make_agent(spec, seed=seed)
    except BoardzooError:
        raise
    except (ValueError, TypeError, KeyError) as err:
        raise InvalidOptionError(f"opponent {spec!r}: {err}") from None


def _check_checkpoint(game: Game, agent: str, name: str | None) -> None:
    mine = [c for c in checkpoints() if c["agent"] == agent]
    fitting = [c["name"] for c in mine if c["game"] == game.name
               and make_game(c["game"], **check_options(game_class(c["game"]), c["options"],
                                                        c["game"], from_text=True)).key
               == game.key]
    if name is None or name not in fitting:
        raise InvalidOptionError(
            f"{agent} checkpoint {name!r} does not play {game!r}; shipped ones that do: "
            f"{', '.join(fitting) or 'none'} (all shipped: "
            f"{', '.join(c['name'] for c in mine) or 'none'})")
