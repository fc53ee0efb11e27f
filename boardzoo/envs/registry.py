"""The one registry of games: :func:`register_game` makes a :class:`~boardzoo.envs.core.Game`
class known everywhere at once.

One call puts the class in :data:`GAMES` (so ``make_env``, the arena, the CLI and the agents
find it by name), in PettingZoo's registries as ``"boardzoo/<name>_v0"`` (AEC, and parallel
through PettingZoo's turn-based conversion; PettingZoo has registries from 1.27 on) and in
Gymnasium's as ``"boardzoo/<Name>-v0"`` (the single-agent view against an opponent, with the
compiled vector env as its vector entry point). boardzoo's own games are registered this way
in :mod:`boardzoo.envs`; a user's game does the same. Every registry gets lazy string entry
points: nothing is built until an env is.
"""

from __future__ import annotations

import inspect
from typing import Any

import gymnasium
import pettingzoo

from boardzoo.envs.core import Game
from boardzoo.errors import InvalidOptionError, UnknownGameError

__all__ = [
    "GAMES",
    "GYM_ENTRY_POINT",
    "GYM_VECTOR_ENTRY_POINT",
    "HAS_PETTINGZOO_REGISTRY",
    "compiled_parts",
    "game_class",
    "gym_id",
    "pettingzoo_id",
    "register_game",
    "registered_as_is",
    "unregister_game",
]

#: game name -> its Game class, in registration order; names are module names without version
GAMES: dict[str, type[Game]] = {}
#: what ``gymnasium.make("boardzoo/<Name>-v0", ...)`` builds (``game=<name>`` is passed)
GYM_ENTRY_POINT = "boardzoo.rl.single:SingleAgentEnv"
#: what ``gymnasium.make_vec("boardzoo/<Name>-v0", num_envs=N, ...)`` builds
GYM_VECTOR_ENTRY_POINT = "boardzoo.rl.vector:BoardVectorEnv"
PETTINGZOO_ENTRY_POINT = "boardzoo.envs:make_env"
PETTINGZOO_PARALLEL_ENTRY_POINT = "boardzoo.rl.parallel:parallel_env"
#: whether the installed PettingZoo has a registry (``pettingzoo.register``/``make``, 1.27 on)
HAS_PETTINGZOO_REGISTRY = hasattr(pettingzoo, "register")
_GYM_NAMES: dict[str, str] = {}
_PARTS: dict[str, tuple[Any, Any]] = {}  # each game's compiled_parts when it was registered


def register_game(game_class: type[Game], gym_name: str | None = None) -> type[Game]:
    """Register ``game_class`` under its ``name`` in :data:`GAMES`, PettingZoo and Gymnasium.

    ``gym_name`` is the CamelCase part of the Gymnasium id (default: the class name, e.g.
    ``ConnectFour`` -> ``"boardzoo/ConnectFour-v0"``). Registering the same class again
    replaces the entry; another class under a taken name raises InvalidOptionError. Returns
    the class, so it can be used as a class decorator.
    """
    name = _checked_name(game_class)
    gym_name = gym_name or game_class.__name__
    if not gym_name.isidentifier():
        raise InvalidOptionError(f"gym_name={gym_name!r} must be a CamelCase identifier")
    registered = GAMES.get(name)
    if registered is not None:
        # the same class, or its module imported again (importlib.reload, a notebook cell run
        # twice): the new definition replaces the old; another class may not take the name
        if _qualified(registered) != _qualified(game_class):
            raise InvalidOptionError(
                f"game name {name!r} is taken by {_qualified(registered)}; give "
                f"{_qualified(game_class)} another name, or unregister_game({name!r}) first"
            )
        unregister_game(name)
    GAMES[name] = game_class
    _GYM_NAMES[name] = gym_name
    _PARTS[name] = compiled_parts(game_class)
    if HAS_PETTINGZOO_REGISTRY:
        pettingzoo.register(
            "aec", pettingzoo_id(name), entry_point=PETTINGZOO_ENTRY_POINT, kwargs={"name": name}
        )
        pettingzoo.register(
            "parallel",
            pettingzoo_id(name),
            entry_point=PETTINGZOO_PARALLEL_ENTRY_POINT,
            kwargs={"name": name},
        )
    gymnasium.register(
        gym_id(name),
        entry_point=GYM_ENTRY_POINT,
        vector_entry_point=GYM_VECTOR_ENTRY_POINT,
        kwargs={"game": name},
    )
    return game_class


def unregister_game(name: str) -> None:
    """Remove a registered game from :data:`GAMES` and both registries (tests, notebooks)."""
    gymnasium.registry.pop(gym_id(name), None)  # gym_id: UnknownGameError for unknown names
    if HAS_PETTINGZOO_REGISTRY:  # it files "boardzoo/x_v0" under "boardzoo/x-v0"
        pettingzoo.aec_registry.pop(pettingzoo.spec("aec", pettingzoo_id(name)).id, None)
        pettingzoo.parallel_registry.pop(
            pettingzoo.spec("parallel", pettingzoo_id(name)).id, None
        )
    del GAMES[name], _GYM_NAMES[name], _PARTS[name]


def compiled_parts(game_class: type[Game]) -> tuple[Any, Any]:
    """What compiled code reads from a game class when it compiles: its ``kernels`` and its
    ``knowledge`` as the class holds them (unresolved)."""
    return (inspect.getattr_static(game_class, "kernels", None),
            inspect.getattr_static(game_class, "knowledge", None))


def registered_as_is(game_class: type[Game]) -> bool:
    """Whether ``game_class`` is the registered class of its name and still has the kernels
    and knowledge it was registered with (a test or a notebook may replace them later:
    code compiled from a replacement must not be cached under the game's name)."""
    name = getattr(game_class, "name", "")
    return GAMES.get(name) is game_class and all(
        now is then for now, then in zip(compiled_parts(game_class), _PARTS[name], strict=True))


def game_class(name: str) -> type[Game]:
    """The Game class of a game name, or UnknownGameError listing the known names."""
    if name not in GAMES:
        raise UnknownGameError(f"unknown game {name!r}; boardzoo has: {', '.join(GAMES)}")
    return GAMES[name]


def gym_id(name: str) -> str:
    """The Gymnasium id of a registered game, e.g. ``"boardzoo/ConnectFour-v0"``."""
    game_class(name)
    return f"boardzoo/{_GYM_NAMES[name]}-v0"


def pettingzoo_id(name: str) -> str:
    """The PettingZoo id of a game, e.g. ``"boardzoo/connect_four_v0"``."""
    return f"boardzoo/{name}_v0"


def _checked_name(game_class: type[Game]) -> str:
    if not (isinstance(game_class, type) and issubclass(game_class, Game)):
        raise InvalidOptionError(
            f"register_game takes a subclass of boardzoo.envs.Game, got {game_class!r}"
        )
    name = getattr(game_class, "name", None)
    if not isinstance(name, str) or not name.isidentifier() or not name.islower():
        raise InvalidOptionError(
            f"{_qualified(game_class)}.name must be a lower-case identifier such as "
            f"'connect_four' (the module name without version), got {name!r}"
        )
    return name


def _qualified(cls: type) -> str:
    return f"{cls.__module__}.{cls.__qualname__}"
