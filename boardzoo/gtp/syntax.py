"""GTP 2's syntax as :mod:`boardzoo.gtp.engine` reads it: preprocessing a line, and the
arguments of its commands; a bad one raises :class:`GtpFailure`, answered ``? message`` (the
engine runs on)."""

from __future__ import annotations

from boardzoo.envs.go_board import MAX_SIZE
from boardzoo.errors import BoardzooError, InvalidOptionError, excerpt
from boardzoo.options import parse_int

__all__ = ["COLOURS", "GtpFailure", "arity", "checked_komi", "checked_size", "colour",
           "integer", "preprocess", "seconds"]

COLOURS = {"b": 0, "black": 0, "w": 1, "white": 1}


class GtpFailure(BoardzooError):
    """A command that cannot be carried out: answered ``? message``, the engine runs on."""


def colour(text: str) -> int:
    """The seat of a GTP colour (0 black, 1 white)."""
    seat = COLOURS.get(text.lower())
    if seat is None:
        raise GtpFailure(f"syntax error: {excerpt(text)} is not a colour (black, white, b, w)")
    return seat


def preprocess(line: str) -> str:
    """GTP's preprocessing: control characters dropped (tabs become spaces), comments from
    ``#`` on removed, surrounding space stripped."""
    line = line.split("#", 1)[0].replace("\t", " ")
    return "".join(ch for ch in line if ch >= " " and ch != "\x7f").strip()


def arity(args: list[str], count: int, usage: str) -> None:
    if len(args) != count:
        raise GtpFailure(f"syntax error: use {usage}")


def integer(text: str, usage: str) -> int:
    value = parse_int(text, signed=True)
    if value is None:
        raise GtpFailure(f"syntax error: {excerpt(text)} is not an integer ({usage})")
    if value < 0:
        raise GtpFailure(f"syntax error: {excerpt(text)} is negative ({usage})")
    return value


def seconds(text: str, usage: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise GtpFailure(
            f"syntax error: {excerpt(text)} is not a number of seconds ({usage})") from None
    if not 0 <= value < float("inf"):
        raise GtpFailure(
            f"syntax error: {excerpt(text)} is not a number of seconds >= 0 ({usage})")
    return value


def checked_size(size: int) -> int:
    if not 2 <= size <= MAX_SIZE:
        raise InvalidOptionError(f"board size {size}: boardzoo plays 2..{MAX_SIZE}")
    return size


def checked_komi(komi: float) -> float:
    if not (abs(komi) < 1000 and float(komi) * 2 == round(float(komi) * 2)):
        raise GtpFailure(f"komi {komi:g} is not supported: use a multiple of 0.5, e.g. 7.5")
    return float(komi)
