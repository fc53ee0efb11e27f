"""Typed options: game and agent options checked against the type hints of the constructor
that takes them, and command-line text converted by those hints.

``heaps=3,4,5`` becomes ``(3, 4, 5)`` for a ``tuple[int, ...]`` option, ``misere=false`` (or
``0``, ``no``) ``False`` for a ``bool``, ``max_take=none`` ``None`` for an ``int | None``.
A Python value of the wrong type (``misere="False"``) is an
:class:`~boardzoo.errors.InvalidOptionError`; an unknown name is an
:class:`~boardzoo.errors.UnknownOptionError` (also a ``TypeError``, worded as Python's own)
that lists what is allowed, with a "did you mean" for a near miss. Ranges stay with the
constructors, which know them and check them with :func:`require`. :class:`KeywordChecked`
gives a class's constructors the same error for an unknown keyword argument.
"""

from __future__ import annotations

import ast
import difflib
import functools
import inspect
import math
import types
import typing
from collections.abc import Callable, Iterable, Mapping
from typing import Any, TypeVar

import numpy as np

from boardzoo.errors import InvalidOptionError, UnknownOptionError, excerpt

__all__ = [
    "KeywordChecked",
    "check_options",
    "did_you_mean",
    "keyword_names",
    "parse_int",
    "require",
    "split_assignment",
    "strict_keywords",
    "unique_assignments",
    "unknown_option",
]

_F = TypeVar("_F", bound=Callable[..., Any])

_TRUE, _FALSE = ("true", "1", "yes", "on"), ("false", "0", "no", "off")
_ASCII_DIGITS = frozenset("0123456789")
_UNCHECKED = object()  # a hint this module does not understand: any value passes


def require(condition: bool | np.bool_, message: str) -> None:
    """Raise InvalidOptionError(message) unless ``condition``: for a constructor's checks of
    its options' ranges."""
    if not condition:
        raise InvalidOptionError(message)


def parse_int(text: str | None, max_digits: int = 20, signed: bool = False) -> int | None:
    """A number a person typed: ``text`` (spaces around it allowed) as an int if it is
    1..``max_digits`` ASCII digits (after a ``-`` if ``signed``), else None. Every number
    read from user text goes through here: ``str.isdigit()`` takes ``"²"``, which ``int()``
    refuses, and ``int()`` takes ``"1_000"`` and other scripts' digits such as ``"١٢"``."""
    if not isinstance(text, str):
        return None
    stripped = text.strip()
    digits = stripped[1:] if signed and stripped.startswith("-") else stripped
    if not 0 < len(digits) <= max_digits or not _ASCII_DIGITS.issuperset(digits):
        return None
    return int(stripped)


def split_assignment(text: str) -> tuple[str, str]:
    """``"key=value"`` -> ``("key", "value")``, or InvalidOptionError."""
    key, sep, value = text.partition("=")
    if not sep or not key.strip().isidentifier():
        raise InvalidOptionError(
            f"{excerpt(text)}: an option looks like key=value, e.g. board_size=9")
    return key.strip(), value.strip()


def unique_assignments(pairs: list[tuple[str, str]], what: str) -> dict[str, str]:
    """``(key, value)`` pairs as a dict; InvalidOptionError naming ``what`` if a key comes
    twice (``simulations=50,simulations=60``: which one was meant cannot be guessed)."""
    options: dict[str, str] = {}
    for key, value in pairs:
        if key in options:
            raise InvalidOptionError(
                f"{what} sets {key} twice ({key}={excerpt(options[key], 20)} and "
                f"{key}={excerpt(value, 20)}); give each option once")
        options[key] = value
    return options


def check_options(
    target: Callable, options: Mapping[str, Any], what: str, from_text: bool = False,
    also: Iterable[str] = (),
) -> dict[str, Any]:
    """``options`` for calling ``target`` (a class or function), each value checked against
    its parameter's type hint; with ``from_text`` string values are command-line text and are
    converted by the hint first. ``what`` names the target in messages ("game 'nim'",
    "agent 'mcts'"); ``also`` names the caller's own keywords, listed as valid too."""
    parameters = _parameters(target)
    hints = _hints(target)
    open_ended = any(p.kind is p.VAR_KEYWORD for p in parameters.values())
    checked = {}
    for name, value in options.items():
        if name not in parameters:
            if open_ended:  # passed on through **kwargs: text as a Python literal
                checked[name] = _from_text(value, _UNCHECKED, name, what) if (
                    from_text and isinstance(value, str)) else value
                continue
            raise unknown_option(what, name, [*keyword_names(target), *also])
        hint = hints.get(name, _UNCHECKED)
        if from_text and isinstance(value, str):
            value = _from_text(value, hint, name, what)
        if not _matches(value, hint):
            raise InvalidOptionError(
                f"{what}: {name}={excerpt(value)} is not allowed: expected {_describe(hint)}"
            )
        checked[name] = value
    return checked


def unknown_option(what: str, name: str, valid: Iterable[str]) -> UnknownOptionError:
    """The error for keyword ``name`` that ``what`` does not take, worded as Python's own
    and followed by the ``valid`` names and the nearest one."""
    valid = list(dict.fromkeys(valid))
    close = nearest(name, valid)
    return UnknownOptionError(
        f"{what} got an unexpected keyword argument {name!r}; valid options: "
        f"{', '.join(valid) or 'none'}" + (f"; did you mean {close!r}?" if close else "")
    )


def keyword_names(target: Callable) -> list[str]:
    """The names ``target`` (a class or function) takes as keyword arguments."""
    return [n for n, p in _parameters(target).items()
            if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]


def strict_keywords(what: str | None = None) -> Callable[[_F], _F]:
    """A decorator: the function raises :class:`UnknownOptionError` (naming it ``what``,
    default its name with "()") for a keyword argument it does not take, instead of a bare
    ``TypeError``; a function with ``**kwargs`` is left as it is."""

    def decorate(function: _F) -> _F:
        parameters = _parameters(function)
        if any(p.kind is p.VAR_KEYWORD for p in parameters.values()):
            return function
        names = keyword_names(function)
        accepted = frozenset(names)
        label = what or f"{function.__qualname__}()"

        @functools.wraps(function)
        def checked(*args: Any, **kwargs: Any) -> Any:
            if not accepted.issuperset(kwargs):
                name = next(k for k in kwargs if k not in accepted)
                raise unknown_option(label, name, names)
            return function(*args, **kwargs)

        return typing.cast(_F, checked)

    return decorate


class KeywordChecked:
    """A base class whose subclasses' constructors refuse an unknown keyword argument with
    :class:`UnknownOptionError` (``MCTSAgent(simulation=100)``: "MCTSAgent() got an
    unexpected keyword argument 'simulation'; valid options: simulations, ...; did you mean
    'simulations'?"), each ``__init__`` wrapped once when its class is defined."""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "__init__" in cls.__dict__:
            check = strict_keywords(f"{cls.__qualname__}()")
            cls.__init__ = check(cls.__init__)  # type: ignore[method-assign]


def _parameters(target: Callable) -> Mapping[str, inspect.Parameter]:
    params = dict(inspect.signature(target).parameters)
    params.pop("self", None)
    return params


def did_you_mean(name: str, names: list[str]) -> str:
    """" (did you mean 'x'?)" for the closest of ``names``, or "" if none is close."""
    close = nearest(name, names)
    return f" (did you mean {close!r}?)" if close else ""


def nearest(name: str, names: list[str]) -> str | None:
    """The closest of ``names`` to ``name`` (a near miss or one containing it), or None."""
    close = difflib.get_close_matches(name, names, n=1, cutoff=0.6) or [
        n for n in names if name.lower() in n.lower()
    ]
    return close[0] if close else None


def _hints(target: Callable) -> dict[str, Any]:
    """The constructor's type hints; none (nothing checked) if they cannot be resolved."""
    function = typing.cast(Any, target).__init__ if isinstance(target, type) else target
    try:
        return typing.get_type_hints(function)
    except Exception:  # a name imported only for type checking
        return {}


def _members(hint: Any) -> tuple:
    if isinstance(hint, types.UnionType) or typing.get_origin(hint) is typing.Union:
        return typing.get_args(hint)
    return (hint,)


def _understood(hint: Any) -> bool:
    if hint in (bool, int, float, str, type(None)):
        return True
    if typing.get_origin(hint) is tuple:
        return all(_understood(arg) for arg in typing.get_args(hint) if arg is not Ellipsis)
    return False


def _matches(value: Any, hint: Any) -> bool:
    members = _members(hint)
    if hint is _UNCHECKED or not all(_understood(m) for m in members):
        return True
    return any(_matches_one(value, member) for member in members)


def _matches_one(value: Any, hint: Any) -> bool:
    is_bool = isinstance(value, (bool, np.bool_))
    if hint is type(None):
        return value is None
    if hint is bool:
        return is_bool
    if hint is int:
        return isinstance(value, (int, np.integer)) and not is_bool
    if hint is float:
        return isinstance(value, (int, float, np.integer, np.floating)) and not is_bool
    if hint is str:
        return isinstance(value, str)
    args = [a for a in typing.get_args(hint) if a is not Ellipsis]
    return isinstance(value, (tuple, list)) and all(
        any(_matches_one(item, a) for a in args) for item in value
    )


def _describe(hint: Any) -> str:
    names = {bool: "true or false", int: "an integer", float: "a number", str: "text",
             type(None): "None"}
    parts = []
    for member in _members(hint):
        if member in names:
            parts.append(names[member])
        elif typing.get_origin(member) is tuple:
            parts.append("a tuple such as 3,4,5")
        else:
            parts.append(getattr(member, "__name__", str(member)))
    return " or ".join(parts)


def _from_text(text: str, hint: Any, name: str, what: str) -> Any:
    """Command-line text converted by the hint (the first union member that accepts it);
    without a usable hint, a Python literal or else the text itself."""
    members = _members(hint)
    if hint is _UNCHECKED or not all(_understood(m) for m in members):
        try:
            return ast.literal_eval(text)
        except (ValueError, SyntaxError):
            return text
    order = (type(None), bool, int, float)
    for member in sorted(members, key=lambda m: order.index(m) if m in order else len(order)):
        converted = _convert(text, member)
        if converted is not _UNCHECKED:
            return converted
    raise InvalidOptionError(
        f"{what}: {name}={excerpt(text)} is not allowed: expected {_describe(hint)}"
        + (" (true/false/1/0)" if bool in members else "")
    )


def _unquoted(text: str) -> str:
    """Text as given, or the string inside a quoted Python string literal ('path', "a b")."""
    stripped = text.strip()
    if len(stripped) >= 2 and stripped[0] == stripped[-1] and stripped[0] in "'\"":
        try:
            value = ast.literal_eval(stripped)
        except (ValueError, SyntaxError):
            return text
        return value if isinstance(value, str) else text
    return text


def _convert(text: str, hint: Any) -> Any:
    """``text`` as a value of ``hint``, or _UNCHECKED if it is not one."""
    lowered = text.strip().lower()
    if hint is type(None):
        return None if lowered == "none" else _UNCHECKED
    if hint is bool:
        return True if lowered in _TRUE else False if lowered in _FALSE else _UNCHECKED
    if hint is str:
        return _unquoted(text)
    if hint is int:
        whole = parse_int(lowered, signed=True)
        return _UNCHECKED if whole is None else whole
    if hint is float:
        try:
            number = float(lowered)
        except ValueError:
            return _UNCHECKED
        return number if math.isfinite(number) else _UNCHECKED
    item = next(a for a in typing.get_args(hint) if a is not Ellipsis)
    items = [_convert(part, item) for part in text.split(",") if part.strip()]
    return tuple(items) if items and _UNCHECKED not in items else _UNCHECKED
