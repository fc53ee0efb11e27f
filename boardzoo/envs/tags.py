"""Game tags: how compiled code that works for every game reaches one game's kernels and is
still cached on disk.

Numba caches a function only when what it calls is known when it compiles: a search that
took the game's kernels as arguments was compiled again in every process, seconds to a
minute before its first move. So a search, a batch kernel or a playout takes a *tag*
instead: an empty named tuple whose *class* names the game (and, where it matters, a
variant: the leaf evaluation and move priors of an MCTS search, say). The accessors here
(:func:`legal_mask`, :func:`apply`, :func:`playout`, :func:`playout_trace`,
:func:`observe`) are numba overloads that look at the tag's class when their caller
compiles and call that game's kernel directly, so the caller compiles once per game and
variant and is cached (:mod:`boardzoo.numba_cache`); other modules add accessors of their
own with :func:`tag_game` and :func:`tag_variant`.

Functions called from Python with a tag as first argument are made with
:func:`game_function`: cached on disk for boardzoo's own games, compiled once per process for
a user's game or a variant holding a user's function (their code may change without
boardzoo's source changing, so a cached copy could be stale).

Under ``NUMBA_DISABLE_JIT=1`` the accessors are plain Python calls of the same kernels.
"""

from __future__ import annotations

import itertools
from collections import namedtuple
from collections.abc import Callable
from typing import Any, cast

from numba import njit
from numba.extending import overload

from boardzoo import compile_progress

__all__ = [
    "GameFunction",
    "apply",
    "game_function",
    "game_tag",
    "legal_mask",
    "observe",
    "playout",
    "playout_trace",
    "tag_game",
    "tag_variant",
]

_CACHED_TAGS: dict[str, type] = {}  # cacheable tag classes by name
_TAGS: dict[tuple, type] = {}  # every tag class by (game class, its parts, *variant items)
_counter = itertools.count()


def game_tag(game: Any, **variant: Any) -> tuple:
    """The tag of ``game`` (a Game or its class) with ``variant`` (options of the code that
    takes it, e.g. ``leaf="random"``). Tags of boardzoo's games whose variant values are
    all identifiers are cacheable: their classes are named after the game and variant and
    can be found again in another process."""
    from boardzoo.envs.registry import compiled_parts

    game_class = game if isinstance(game, type) else type(game)
    # the class's kernels and knowledge are part of the key: replacing them makes a new tag
    key = (game_class, *map(id, compiled_parts(game_class)),
           *sorted(variant.items(), key=lambda item: item[0]))
    if key not in _TAGS:
        _TAGS[key] = _new_tag_class(game_class, variant)
    return _TAGS[key]()


def _new_tag_class(game_class: Any, variant: dict[str, Any]) -> type:
    if not _cacheable(game_class, variant):
        name = f"{game_class.__name__}_{next(_counter)}"
        return _tag_class(name, game_class, variant, cacheable=False)
    name = _tag_name(game_class.name, variant)
    if name not in _CACHED_TAGS:
        _CACHED_TAGS[name] = _tag_class(name, game_class, variant, cacheable=True)
    return _CACHED_TAGS[name]


def tag_game(tag: Any) -> Any:
    """The Game class a tag names: from a tag, its class, or (in an overload) its numba
    type."""
    return _tag_class_of(tag).game


def tag_variant(tag: Any, option: str, default: Any = None) -> Any:
    """The value of ``option`` in a tag's variant (``default`` where it has none)."""
    return _tag_class_of(tag).variant.get(option, default)


def __getattr__(name: str) -> type:
    """A cacheable tag class by name (numba's cache finds the classes of cached signatures
    here, in a process that has not made them yet)."""
    game_name, sep, rest = name.partition("__")
    if name.startswith("_") or not sep:
        raise AttributeError(name)
    from boardzoo.envs import GAMES

    if game_name not in GAMES:
        raise AttributeError(name)
    variant = dict(entry.split("_", 1) for entry in rest.split("__")) if rest else {}
    game_tag(GAMES[game_name], **variant)
    if name not in _CACHED_TAGS:  # the game's kernels or knowledge were replaced
        raise AttributeError(name)
    return _CACHED_TAGS[name]


def _cacheable(game_class: type, variant: dict[str, Any]) -> bool:
    """boardzoo's own registered games as registered, with variants of names only."""
    from boardzoo.envs.registry import registered_as_is

    return (game_class.__module__.startswith("boardzoo.")
            and registered_as_is(game_class)
            and all(key.isalnum() and isinstance(value, str) and value.isidentifier()
                    and "__" not in value for key, value in variant.items()))


def _tag_name(game_name: str, variant: dict[str, str]) -> str:
    entries = [f"{key}_{variant[key]}" for key in sorted(variant)]
    return "__".join([game_name, *entries]) if entries else f"{game_name}__"


def _tag_class(name: str, game_class: type, variant: dict[str, Any], cacheable: bool) -> type:
    tag_class: Any = cast(type, namedtuple(name, [], module=__name__))
    tag_class.game = game_class
    tag_class.variant = dict(variant)
    tag_class.cacheable = cacheable
    return tag_class


def _tag_class_of(tag: Any) -> Any:
    if isinstance(tag, type):
        return tag
    return getattr(tag, "instance_class", None) or type(tag)


class GameFunction:
    """A compiled function whose first argument is a game tag: called with a cacheable tag
    it runs the copy cached on disk, with any other the copy compiled in this process.

    The first call with a tag is a compile unit named ``what`` for the tag's game
    (:mod:`boardzoo.compile_progress`): if it compiles, a line says so.
    """

    def __init__(self, py_func: Callable, what: str, **options: Any) -> None:
        self.py_func = py_func
        self.what = what
        self.cached = njit(cache=True, **options)(py_func)
        self.plain = njit(**options)(py_func)
        self._called: set[type] = set()  # tag classes called with in this process

    def __call__(self, tag: Any, *args: Any) -> Any:
        dispatcher = self.cached if type(tag).cacheable else self.plain
        if type(tag) in self._called:
            return dispatcher(tag, *args)
        with compile_progress.unit(tag_game(tag).name, self.what):
            result = dispatcher(tag, *args)
        self._called.add(type(tag))
        return result

    def __getstate__(self) -> dict[str, Any]:
        return {**self.__dict__, "_called": set()}

    def __repr__(self) -> str:
        return f"GameFunction({self.py_func.__module__}.{self.py_func.__qualname__})"


def game_function(what: str, **options: Any) -> Callable[[Callable], GameFunction]:
    """Decorator: ``@game_function("the MCTS search", nogil=True)`` makes a
    :class:`GameFunction` (``options`` as for ``numba.njit``)."""
    return lambda py_func: GameFunction(py_func, what, **options)


# ----------------------------------------------------------------- the rules' kernels
def legal_mask(tag, state, out):
    """The tag's game's ``legal_mask`` kernel: fills ``out``, returns the count."""
    return tag_game(tag).kernels.legal_mask(state, out)


def apply(tag, state, action):
    """The tag's game's ``apply`` kernel: plays ``action`` on ``state`` in place."""
    tag_game(tag).kernels.apply(state, action)


def playout(tag, state, rng):
    """The tag's game's ``playout`` kernel: random moves to the end; the outcome code."""
    return tag_game(tag).kernels.playout(state, rng)


def playout_trace(tag, state, rng, trace):
    """The tag's game's ``playout_trace`` kernel: a playout that records its moves."""
    return tag_game(tag).kernels.playout_trace(state, rng, trace)


def observe(tag, state, seat, out):
    """The tag's game's ``observe`` kernel: fills ``out`` from ``seat``'s view (nothing for
    a game without one: its envs observe in Python)."""
    kernel = tag_game(tag).kernels.observe
    if kernel is not None:
        kernel(state, seat, out)


@overload(legal_mask)
def _legal_mask(tag, state, out):
    kernel = tag_game(tag).kernels.legal_mask
    return lambda tag, state, out: kernel(state, out)


@overload(apply)
def _apply(tag, state, action):
    kernel = tag_game(tag).kernels.apply

    def impl(tag, state, action):
        kernel(state, action)

    return impl


@overload(playout)
def _playout(tag, state, rng):
    kernel = tag_game(tag).kernels.playout
    return lambda tag, state, rng: kernel(state, rng)


@overload(playout_trace)
def _playout_trace(tag, state, rng, trace):
    kernel = tag_game(tag).kernels.playout_trace
    return lambda tag, state, rng, trace: kernel(state, rng, trace)


@overload(observe)
def _observe(tag, state, seat, out):
    kernel = tag_game(tag).kernels.observe
    if kernel is None:
        return lambda tag, state, seat, out: None

    def impl(tag, state, seat, out):
        kernel(state, seat, out)

    return impl
