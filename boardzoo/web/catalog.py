"""What the page offers: every registered game with its options, and the opponents.

Game options come from each game class's constructor (names, defaults and type hints), so a
user's registered game appears with its options too; values travel as command-line text and
are converted and checked exactly as ``boardzoo play --option`` does
(:func:`boardzoo.options.check_options`). Opponents are ``make_agent`` specs built from the
options their form offers (:data:`AGENT_FORMS`), within the form's bounds, which the API
enforces too; AlphaZero and PPO are offered with the checkpoints shipped in
``boardzoo/checkpoints`` (only those: the page never loads a file path), each with the game
options it was trained for. Error messages quote at most :data:`MAX_QUOTED` characters of
what was sent.
"""

from __future__ import annotations

import functools
import inspect
import json
import math
from typing import Any, NamedTuple

from boardzoo.agents import make_agent
from boardzoo.agents.base import Agent
from boardzoo.checkpoints import KINDS, shipped_checkpoints
from boardzoo.envs import GAMES, game_class, make_game
from boardzoo.envs.core import Game
from boardzoo.errors import BoardzooError, InvalidOptionError
from boardzoo.options import check_options, did_you_mean, parse_int

__all__ = ["AGENT_FORMS", "TREE_NODES", "Field", "agent_for", "build", "catalog", "checkpoints",
           "describe_agent", "game_from_text", "option_text"]


class Field(NamedTuple):
    """One option of an opponent's form: its name, default text (empty: the agent's own
    default), help, and kind: "seconds" or "count" (a number from ``low`` to ``high``,
    the bounds the API enforces too) or "checkpoint" (a shipped one)."""

    name: str
    default: str
    help: str
    kind: str
    low: float = 0.0
    high: float = 0.0


MAX_SECONDS = 60.0  # the longest think per move the page offers
#: the opponents the page offers and the options it lets a person (and the API) set
AGENT_FORMS: dict[str, tuple[Field, ...]] = {
    "random": (),
    "alphabeta": (Field("time_limit", "1.0", "seconds per move", "seconds", 0.01, MAX_SECONDS),
                  Field("depth", "", "fixed depth in plies (empty: deepen until the time "
                        "limit)", "count", 1, 40)),
    "mcts": (Field("time_limit", "1.0", "seconds per move", "seconds", 0.01, MAX_SECONDS),
             Field("simulations", "", "simulations per move (empty: the time limit decides)",
                   "count", 1, 2_000_000)),
    "alphazero": (Field("checkpoint", "", "shipped network", "checkpoint"),
                  Field("simulations", "200", "simulations per move", "count", 1, 50_000),
                  Field("time_limit", "", "seconds per move (instead of simulations)",
                        "seconds", 0.01, MAX_SECONDS)),
    "ppo": (Field("checkpoint", "", "shipped policy", "checkpoint"),),
}
AGENT_LABELS = {"random": "Random", "alphabeta": "Alpha-beta", "mcts": "MCTS",
                "alphazero": "AlphaZero", "ppo": "PPO"}
#: what the analysis panel shows of each opponent: MCTS's and AlphaZero's mean results as
#: win rates, alpha-beta's heuristic or exact values as scores, PPO's move probabilities
AGENT_VALUES = {"random": "none", "alphabeta": "score", "mcts": "win_rate",
                "alphazero": "win_rate", "ppo": "policy"}
#: the most nodes an MCTS tree of the page's may hold (76 bytes each: about 640 MB), so a
#: long think cannot take the machine's memory; a search that fills it plays at once
TREE_NODES = 1 << 23
_SERVER_SETTINGS = {"mcts": {"max_nodes": str(TREE_NODES)}}
_NEEDS_CHECKPOINT = ("alphazero", "ppo")
MAX_QUOTED = 40  # characters of a person's input quoted back in an error message


def excerpt(value: Any) -> str:
    """``repr(value)`` cut to at most MAX_QUOTED characters (errors never echo long input)."""
    text = repr(value)
    return text if len(text) <= MAX_QUOTED else text[:MAX_QUOTED - 4] + "...'"


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
        hint = did_you_mean(name, known) if isinstance(name, str) and len(name) < 40 else ""
        raise InvalidOptionError(f"unknown game {excerpt(name)}{hint}; games: "
                                 f"{', '.join(known)}")
    if not isinstance(options, dict) or not all(
            isinstance(k, str) and isinstance(v, (str, int, float, bool)) for k, v in
            options.items()):
        raise InvalidOptionError("game options must be an object of option name -> text value")
    texts = {k: v if isinstance(v, str) else option_text(v) for k, v in options.items()}
    checked = check_options(game_class(name), texts, name, from_text=True)
    try:
        return make_game(name, **checked)
    except BoardzooError:
        raise
    except (ArithmeticError, ValueError, TypeError) as err:  # a value the rules cannot hold
        raise InvalidOptionError(f"{name} options {excerpt(texts)}: {err}"[:200]) from None


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
    agents = [{"name": name, "label": AGENT_LABELS[name], "values": AGENT_VALUES[name],
               "options": [field._asdict() for field in fields]}
              for name, fields in AGENT_FORMS.items()]
    return {"games": games, "agents": agents, "checkpoints": list(checkpoints())}


def agent_for(game: Game, name: Any, options: Any) -> str:
    """The ``make_agent`` spec of opponent ``name`` with ``options`` (text values; empty ones
    left out) for ``game``: only the options its form offers, within the form's bounds; a
    checkpoint must be a shipped one trained for exactly this game and options. The page's
    own limits (:data:`TREE_NODES`) are added."""
    if not isinstance(name, str) or name not in AGENT_FORMS:
        raise InvalidOptionError(
            f"unknown opponent {excerpt(name)}; the page offers: {', '.join(AGENT_FORMS)}")
    if not isinstance(options, dict) or not all(
            isinstance(k, str) and isinstance(v, (str, int, float)) and not isinstance(v, bool)
            for k, v in options.items()):
        raise InvalidOptionError("opponent options must be an object of option name -> text")
    fields = {field.name: field for field in AGENT_FORMS[name]}
    given = {k: str(v).strip() for k, v in options.items() if str(v).strip()}
    for key, value in given.items():
        if key not in fields:
            offered = ", ".join(fields) or "none"
            raise InvalidOptionError(f"unknown option {excerpt(key)} for {name}; the page "
                                     f"offers: {offered}")
        given[key] = _checked_value(fields[key], value, name)
    if name in _NEEDS_CHECKPOINT:
        _check_checkpoint(game, name, given.get("checkpoint"))
    given.update(_SERVER_SETTINGS.get(name, {}))
    return name + (":" + ",".join(f"{k}={v}" for k, v in given.items()) if given else "")


def _checked_value(field: Field, text: str, agent: str) -> str:
    """``text`` for ``field``, checked against its kind and bounds (as the spec text)."""
    if field.kind == "checkpoint":
        return text
    where = f"{agent} {field.name}={excerpt(text)}"
    bounds = f"{field.low:g} to {field.high:g}"
    if field.kind == "count":
        count = parse_int(text, max_digits=9)
        if count is None:
            raise InvalidOptionError(f"{where}: give a whole number from {bounds}")
        value: float = count
    else:
        try:
            value = float(text) if len(text) <= 20 else math.nan
        except ValueError:
            value = math.nan
        if not math.isfinite(value):
            raise InvalidOptionError(f"{where}: give a number of seconds from {bounds}")
    if not field.low <= value <= field.high:
        raise InvalidOptionError(f"{where}: give a value from {bounds}")
    return str(value)


def describe_agent(spec: str, built: str | None = None) -> dict[str, Any]:
    """How the page names an opponent: its name, label, the settings of its spec (the
    options given and the page's limits) and which values its analysis shows
    (:data:`AGENT_VALUES`); ``built``: the agent's repr from its worker, once built."""
    name, _, options = spec.partition(":")
    settings = [item.split("=", 1) for item in options.split(",") if item]
    return {"name": name, "label": AGENT_LABELS.get(name, name), "settings": settings,
            "values": AGENT_VALUES.get(name, "none"), "spec": spec, "built": built}


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
            f"{agent} checkpoint {excerpt(name)} does not play {game!r}; shipped ones that do: "
            f"{', '.join(fitting) or 'none'} (all shipped: "
            f"{', '.join(c['name'] for c in mine) or 'none'})")
