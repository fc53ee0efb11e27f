"""Time controls, game clocks and what an agent sees of its clock.

A :class:`TimeControl` says how much time a player has: a fixed time per move, or main time
(``base``) with a Fischer ``increment`` added after every move, main time given again every
``moves_per_period`` moves (``40/300``), and after main time byo-yomi: Japanese (``periods``
periods of ``period_time`` seconds; a move that ends within its period keeps it whole) or
Canadian (``period_stones`` moves in each period of ``period_time`` seconds, as GTP's
``time_settings``). A :class:`GameClock` runs one game's clocks for both seats; at its turn
an agent gets a :class:`ClockView`, frozen, and turns it into a budget for the move
(:func:`move_budget`). Every time is in seconds of wall time (``time.monotonic``), which
compiled searches read through :func:`monotonic`: numba has no ``time`` module, so it calls
libc's ``clock_gettime(CLOCK_MONOTONIC)`` as an external C function (a direct call, ~50 ns,
cached on disk; under ``NUMBA_DISABLE_JIT=1`` through ctypes, so searches behave the same
in plain Python).

Text notation (:meth:`TimeControl.parse`; times in seconds, or with a unit ``s``/``m``/``h``)::

    60          sudden death: 60 s for the whole game
    60+1        60 s, plus 1 s (Fischer increment) after each move
    40/300      300 s for every 40 moves (repeating), 40/300+2 with an increment
    300+5x30    300 s main time, then 5 byo-yomi periods of 30 s (Japanese)
    0+1x5       no main time, 1 period of 5 s: 5 s per move, a period that is never lost
    600+25/300  600 s main time, then 25 moves in every 300 s (Canadian)
    5/move      a fixed 5 s per move (what an agent's time_limit means)

>>> TimeControl.parse("10+0.1")
TimeControl(base=10.0, increment=0.1)
>>> clock = GameClock(TimeControl.parse("10+0.1"))
>>> clock.start(0, now=0.0); clock.stop(now=2.5)
2.5
>>> clock.remaining(0)
7.6
"""

from __future__ import annotations

import ctypes
import ctypes.util
import functools
import inspect
import math
import re
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, fields
from typing import Any

import numpy as np
from numba import config, njit, types

from boardzoo.errors import InvalidOptionError, excerpt

__all__ = [
    "ClockView",
    "GameClock",
    "MoveBudget",
    "TimeControl",
    "TimeControlError",
    "SearchDeadlines",
    "accepts_clock",
    "call_act",
    "estimated_moves_left",
    "monotonic",
    "move_budget",
    "thinking_moves_left",
    "watch_stop",
]

_CLOCK_MONOTONIC = 1 if sys.platform.startswith("linux") else 6  # 6 on macOS
#: how often (seconds) :func:`watch_stop` looks at its ``stop`` event
STOP_POLL = 0.02

if config.DISABLE_JIT:
    _clock_gettime = ctypes.CDLL(ctypes.util.find_library("c")).clock_gettime
    _clock_gettime.restype = ctypes.c_int
    _clock_gettime.argtypes = [ctypes.c_int, ctypes.c_void_p]
else:
    _clock_gettime = types.ExternalFunction(
        "clock_gettime", types.int32(types.int32, types.voidptr)
    )


@njit(cache=True)
def monotonic() -> float:
    """Seconds on a monotonic clock (the same clock as ``time.monotonic()`` on Linux)."""
    timespec = np.zeros(2, np.int64)
    _clock_gettime(_CLOCK_MONOTONIC, timespec.ctypes)
    return timespec[0] + timespec[1] * 1e-9

#: seconds kept back from every hard limit for the time between the agent's answer and the
#: clock being stopped (returning, the env's step, a GTP line)
SAFETY_MARGIN = 0.02


@contextmanager
def watch_stop(stop: Any, flags: np.ndarray, slot: int) -> Iterator[None]:
    """While the block runs, a thread sets ``flags[slot] = 1`` once ``stop`` (a
    ``threading.Event``, or anything with its ``wait``) is set: a compiled search running
    without the GIL (``nogil=True``) reads that slot and stops. Without a ``stop``, no
    thread."""
    if stop is None:
        yield
        return
    finished = threading.Event()

    def watch() -> None:
        while not finished.is_set():
            if stop.wait(STOP_POLL):
                flags[slot] = 1
                return

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    try:
        yield
    finally:
        finished.set()
        watcher.join()


class TimeControlError(InvalidOptionError):
    """A time control that cannot be parsed or does not make sense (says what is allowed)."""


_GRAMMAR = (
    "use BASE, BASE+INC, MOVES/BASE[+INC], BASE+PERIODSxTIME (Japanese byo-yomi), "
    "BASE+STONES/TIME (Canadian) or SECONDS/move; times in seconds or with s/m/h "
    '(e.g. "60+1", "40/300", "300+5x30", "600+25/300", "5/move")'
)


@dataclass(frozen=True)
class TimeControl:
    """How much time each player has (both the same; seconds).

    ``per_move`` set: a fixed budget per move, nothing carried over (every other field 0).
    Otherwise ``base`` main time, ``increment`` added after each move (Fischer),
    ``moves_per_period`` (None: sudden death) moves after which ``base`` is added again;
    then byo-yomi of ``periods`` periods of ``period_time`` seconds, Japanese when
    ``period_stones == 0`` (one move per period, a period is lost only when a move overruns
    it) and Canadian when ``period_stones > 0`` (that many moves in each period; ``periods``
    is 1).
    """

    base: float = 0.0
    increment: float = 0.0
    moves_per_period: int | None = None
    periods: int = 0
    period_time: float = 0.0
    period_stones: int = 0
    per_move: float | None = None

    def __post_init__(self) -> None:
        for name in ("base", "increment", "period_time"):
            value = getattr(self, name)
            if not (isinstance(value, (int, float)) and math.isfinite(value) and value >= 0):
                raise TimeControlError(f"TimeControl {name}={value!r}: give seconds >= 0")
            object.__setattr__(self, name, float(value))
        for name in ("periods", "period_stones"):
            value = getattr(self, name)
            if not (isinstance(value, int) and value >= 0):
                raise TimeControlError(f"TimeControl {name}={value!r}: give an integer >= 0")
        if self.moves_per_period is not None and not (
            isinstance(self.moves_per_period, int) and self.moves_per_period >= 1
        ):
            raise TimeControlError(
                f"TimeControl moves_per_period={self.moves_per_period!r}: give an integer >= 1"
            )
        if self.per_move is not None:
            self._check_per_move()
        elif self.periods and self.period_time <= 0:
            raise TimeControlError("byo-yomi periods need a period_time > 0")
        elif self.period_stones and self.periods != 1:
            raise TimeControlError("Canadian byo-yomi (period_stones > 0) has periods=1")
        elif self.base <= 0 and not self.periods:
            raise TimeControlError(
                "a time control needs main time (base > 0), byo-yomi or per_move"
            )

    def _check_per_move(self) -> None:
        value = self.per_move
        if not (isinstance(value, (int, float)) and math.isfinite(value) and value > 0):
            raise TimeControlError(f"TimeControl per_move={value!r}: give seconds > 0")
        object.__setattr__(self, "per_move", float(value))
        others = [f.name for f in fields(self) if f.name != "per_move"
                  and getattr(self, f.name) != f.default]
        if others:
            raise TimeControlError(
                f"TimeControl per_move={value} is a fixed time per move; it cannot be "
                f"combined with {', '.join(others)}"
            )

    @classmethod
    def fixed(cls, seconds: float) -> TimeControl:
        """A fixed ``seconds`` per move (an agent's ``time_limit``)."""
        return cls(per_move=seconds)

    @classmethod
    def parse(cls, text: str) -> TimeControl:
        """A time control from its text (grammar in the module docstring); TimeControlError
        naming what is allowed for anything else."""
        if not isinstance(text, str):
            raise TimeControlError(f"time control {excerpt(text)}: {_GRAMMAR}")
        compact = text.strip().lower().replace(" ", "")
        try:
            control = _parse(compact)
        except TimeControlError as error:
            raise TimeControlError(f"time control {excerpt(text)}: {error}") from None
        if control is None:
            raise TimeControlError(f"time control {excerpt(text)}: {_GRAMMAR}")
        return control

    def __str__(self) -> str:
        """The text notation (``TimeControl.parse(str(tc)) == tc``)."""
        if self.per_move is not None:
            return f"{_num(self.per_move)}/move"
        text = _num(self.base)
        if self.moves_per_period is not None:
            text = f"{self.moves_per_period}/{text}"
        if self.increment:
            text += f"+{_num(self.increment)}"
        if self.period_stones:
            text += f"+{self.period_stones}/{_num(self.period_time)}"
        elif self.periods:
            text += f"+{self.periods}x{_num(self.period_time)}"
        return text

    def __repr__(self) -> str:
        given = [f"{f.name}={getattr(self, f.name)!r}" for f in fields(self)
                 if getattr(self, f.name) != f.default]
        return f"TimeControl({', '.join(given)})"


_TIME = r"(\d+(?:\.\d*)?|\.\d+)([smh]?)"
_UNITS = {"": 1.0, "s": 1.0, "m": 60.0, "h": 3600.0}


def _seconds(match: re.Match, group: int) -> float:
    return float(match.group(group)) * _UNITS[match.group(group + 1)]


def _num(value: float) -> str:
    return f"{value:g}"


def _parse(text: str) -> TimeControl | None:
    """The control written ``text`` (lower case, no spaces), or None when it fits no form."""
    per_move = re.fullmatch(_TIME + r"/move", text)
    if per_move:
        return TimeControl(per_move=_seconds(per_move, 1))
    main = re.fullmatch(r"(?:(\d+)/)?" + _TIME + r"(.*)", text)
    if not main:
        return None
    moves = None if main.group(1) is None else int(main.group(1))
    if moves == 0:
        raise TimeControlError("a period needs at least 1 move (MOVES/BASE)")
    options: dict[str, Any] = {"base": _seconds(main, 2), "moves_per_period": moves}
    rest = main.group(4)
    if rest and not rest.startswith("+"):
        return None
    for part in rest.split("+")[1:]:
        if not _parse_extra(part, options):
            return None
    return TimeControl(**options)


def _parse_extra(part: str, options: dict[str, Any]) -> bool:
    """Adds one ``+PART`` (increment, Japanese or Canadian byo-yomi) to ``options``; False
    when it is none of them or repeats one already given."""
    japanese = re.fullmatch(r"(\d+)x" + _TIME, part)
    canadian = re.fullmatch(r"(\d+)/" + _TIME, part)
    increment = re.fullmatch(_TIME, part)
    found = japanese or canadian
    if found and "periods" not in options:
        count = int(found.group(1))
        if count < 1:
            raise TimeControlError("byo-yomi needs at least 1 period (or 1 stone)")
        options.update(periods=count if japanese else 1, period_time=_seconds(found, 2),
                       period_stones=0 if japanese else count)
        return True
    if increment and "increment" not in options and "periods" not in options:
        options["increment"] = _seconds(increment, 1)
        return True
    return False


@dataclass(frozen=True)
class ClockView:
    """What an agent sees of its clock at its turn (seconds; frozen).

    ``remaining``: main time left (with ``per_move``: that fixed time); ``increment`` is added
    after this move; ``moves_to_go``: moves until main time is given again (``40/300``) or
    until the Canadian period resets, else None; ``byoyomi_periods`` / ``byoyomi_time``:
    byo-yomi periods left and their length (Canadian: 1 and the period's time left, with
    ``byoyomi_stones`` moves to make in it); ``opponent_remaining``: the other seat's main
    time (None if unknown); ``moves_played``: moves this seat has made in the game.
    """

    remaining: float
    increment: float = 0.0
    moves_to_go: int | None = None
    byoyomi_periods: int = 0
    byoyomi_time: float = 0.0
    byoyomi_stones: int = 0
    opponent_remaining: float | None = None
    per_move: float | None = None
    moves_played: int = 0

    @classmethod
    def fixed(cls, seconds: float) -> ClockView:
        """A view of a fixed ``seconds`` per move (what ``time_limit`` means)."""
        return cls(remaining=float(seconds), per_move=float(seconds))

    @property
    def hard_limit(self) -> float:
        """The most seconds this move may take without losing on time (less a safety
        margin, at least 0): main time, plus a Japanese period (a move may end inside the
        last one) or the Canadian period's time."""
        if self.per_move is not None:
            limit = self.per_move
        elif self.byoyomi_stones:
            limit = self.remaining + self.byoyomi_time
        else:
            limit = self.remaining + (self.byoyomi_time if self.byoyomi_periods else 0.0)
        return max(0.0, limit - SAFETY_MARGIN)

    def to_json(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in fields(self)}


@dataclass(frozen=True)
class MoveBudget:
    """Seconds for one move: ``target`` the time the search normally stops at, ``maximum``
    the most it may stretch to when the decision is unstable (never past the clock's hard
    limit)."""

    target: float
    maximum: float


#: share of the hard limit a single move may stretch to (the rest is kept for later moves)
MAX_SHARE = 0.3
#: how many times its target an unstable decision may take
STRETCH = 3.0
#: seconds of main time no budget touches: room for a move that overruns (a stalled
#: process, a solver attempt giving up), so that spending the clock never flags
RESERVE = 0.2
#: what a move costs beyond its budget (answering, the env's step): paid from the
#: increment, and kept back for every move still to make as far as the increment is smaller
MOVE_OVERHEAD = 0.02


def move_budget(view: ClockView, moves_left: float,
                moves_in_game: float | None = None) -> MoveBudget:
    """Turn a clock into a budget for this move, ``moves_left``: the agent's estimate of the
    moves it still has to think about in this game (its per-game model; at least 1), of
    ``moves_in_game`` it still has to make at all (default: ``moves_left``).

    Fixed time per move: the whole of it. Otherwise the main time less a reserve
    (:data:`RESERVE`, and :data:`MOVE_OVERHEAD` for each move in the game beyond the
    increment; none before byo-yomi) is spread over the moves left (or ``moves_to_go``
    when the period ends sooner), with the increments that the moves in the game not
    thought about will bring back unused, plus the increment less the overhead (it comes
    back after the move; without one, never less than the time beyond the overheads over twice the
    moves in the game); in
    byo-yomi, a period's time is used (Japanese: the period; Canadian: the period's time
    over its stones). A move may stretch to its maximum only outside the reserve, and never
    past the hard limit.
    """
    hard = view.hard_limit
    if view.per_move is not None:
        return MoveBudget(hard, hard)
    moves = max(1.0, float(moves_left))
    in_game = max(moves, float(moves_in_game or moves))
    if view.moves_to_go is not None and not view.byoyomi_stones:
        moves = min(moves, float(view.moves_to_go))
        in_game = min(in_game, max(1.0, float(view.moves_to_go)))
    reserve = 0.0 if view.byoyomi_periods else (  # byo-yomi periods are the reserve
        RESERVE + max(0.0, MOVE_OVERHEAD - view.increment) * in_game)
    if view.byoyomi_stones and view.remaining <= 0:
        share = view.byoyomi_time / max(1, view.byoyomi_stones)
    else:
        spendable = max(0.0, view.remaining - reserve)
        thinking_increment = max(0.0, view.increment - MOVE_OVERHEAD)
        # the moves not thought about give their increments back almost unused: spend them
        borrowed = (in_game - moves) * thinking_increment  # now, though never the reserve
        spread = min(spendable, (spendable + borrowed) / moves)
        if view.increment <= MOVE_OVERHEAD:  # nothing else to live on: eat into the
            beyond_overheads = view.remaining - MOVE_OVERHEAD * in_game  # reserve, slowly
            spread = max(spread, beyond_overheads / (2 * in_game))
        share = spread + thinking_increment
        if view.byoyomi_periods and not view.byoyomi_stones:
            share = max(share, 0.9 * view.byoyomi_time)  # a period is free to use
    target = min(share, hard)
    outside_reserve = max(0.0, hard - reserve)
    maximum = min(max(target, STRETCH * target), max(target, MAX_SHARE * outside_reserve),
                  max(target, outside_reserve))
    if view.byoyomi_periods and not view.byoyomi_stones and view.remaining <= 0:
        maximum = min(hard, 0.95 * view.byoyomi_time)  # never lose a period on purpose
        target = min(target, maximum)
    return MoveBudget(max(0.0, target), max(0.0, maximum))


#: own moves assumed left when a game cannot say (a generic PettingZoo env)
DEFAULT_MOVES_LEFT = 30.0
#: fewest own moves assumed left, so that no single move takes a large share of the clock
MIN_MOVES_LEFT = 3.0
#: own moves still counted once the exact solver is expected to take over: its first
#: solve there may still take a good share of a move, or fail
MOVES_AT_REACH = 1.0
#: fewest own moves to think about: this one and one more (the reserve guards the rest);
#: a game's knowledge may count fewer (``min_thinking_moves``: Connect Four's solvers prove
#: most games from the opening within a move or two)
MIN_THINKING_MOVES = 2.0


def estimated_moves_left(game: Any, state: Any, proven_value: int | None = None) -> float:
    """The per-game model of the moves the side to move still has to make: the game's
    knowledge's own model where it has one (``moves_left``: chess counts by the game phase),
    else half the empty cells of the board (board-filling games end by then; in Go captures
    and passes roughly balance), at least :data:`MIN_MOVES_LEFT`; :data:`DEFAULT_MOVES_LEFT`
    without a board. Given the position's exact ``proven_value``, the knowledge may count them
    under perfect play instead (``proven_moves_left``: Connect Four knows when a proven game
    ends)."""
    knowledge = getattr(game, "knowledge", None)
    counted = getattr(knowledge, "proven_moves_left", None)
    if proven_value is not None and counted is not None:
        return max(MIN_MOVES_LEFT, float(counted(state, proven_value)))
    modelled = getattr(knowledge, "moves_left", None)
    if modelled is not None:
        return max(MIN_MOVES_LEFT, float(modelled(state)))
    cells = getattr(game, "cells", None)
    if cells is None:
        return DEFAULT_MOVES_LEFT
    empties = int((cells(state) == 0).sum())
    return max(MIN_MOVES_LEFT, empties / 2.0)


#: ``plies_until_solver(seconds)``: plies from the position until an exact solver is
#: expected to be tried with ``seconds`` a move (inf: never)
SolverHorizon = Callable[[float], float]


def thinking_moves_left(view: ClockView, moves_left: float,
                        plies_until_solver: SolverHorizon | None,
                        fewest: float = MIN_THINKING_MOVES) -> float:
    """Of ``moves_left`` (:func:`estimated_moves_left`), the moves the clock has to pay a
    search for: those until the exact solver is expected to take over at the share per
    move that this very count gives (a fixed point, found in a few rounds), plus
    :data:`MOVES_AT_REACH`, at least ``fewest``; all of them without a solver horizon.
    Fewer moves to think about means more time for each: the solvers end a game's last
    moves almost at once."""
    if plies_until_solver is None:
        return moves_left
    moves = moves_left
    for _ in range(4):
        share = move_budget(view, moves, moves_left).target
        plies = plies_until_solver(share)
        moves = max(fewest, min(moves_left, plies / 2.0 + MOVES_AT_REACH))
    return moves


@dataclass(frozen=True)
class SearchDeadlines:
    """When a search stops, on :func:`boardzoo.timecontrol.monotonic`: at ``target`` normally, at
    ``maximum`` at the latest while its decision is unstable (both ``inf``: no time limit);
    ``from_clock`` when a clock (not a fixed ``time_limit``) set them, which turns on early
    stopping."""

    target: float
    maximum: float
    from_clock: bool = False

    @classmethod
    def none(cls) -> SearchDeadlines:
        return cls(math.inf, math.inf)

    @classmethod
    def fixed(cls, start: float, seconds: float) -> SearchDeadlines:
        return cls(start + seconds, start + seconds)

    @classmethod
    def for_clock(cls, start: float, view: ClockView, moves_left: float,
                  moves_in_game: float | None = None) -> SearchDeadlines:
        budget = move_budget(view, moves_left, moves_in_game)
        return cls(start + budget.target, start + budget.maximum, True)

    @classmethod
    def for_move(cls, start: float, view: ClockView, game: Any, state: Any,
                 cap: float | None = None,
                 plies_until_solver: SolverHorizon | None = None,
                 proven_value: int | None = None) -> SearchDeadlines:
        """A move's deadlines from the clock and the per-game model of the moves left
        (:func:`estimated_moves_left`, of which only those before the exact solver is
        expected to take over are thought about, at least the knowledge's
        ``min_thinking_moves``: :func:`thinking_moves_left`; all of them in a position
        already proven to be worth ``proven_value``), none later than ``cap`` seconds after
        ``start`` (an explicit per-move limit) when given."""
        in_game = estimated_moves_left(game, state, proven_value)
        fewest = getattr(getattr(game, "knowledge", None), "min_thinking_moves", None)
        thinking = thinking_moves_left(view, in_game, plies_until_solver,
                                       fewest or MIN_THINKING_MOVES)
        deadlines = cls.for_clock(start, view, thinking, in_game)
        return deadlines if cap is None else deadlines.capped(start + cap)

    @property
    def timed(self) -> bool:
        return math.isfinite(self.maximum)

    def capped(self, latest: float) -> SearchDeadlines:
        """The same deadlines, none later than ``latest``."""
        return SearchDeadlines(min(self.target, latest), min(self.maximum, latest),
                               self.from_clock)


@dataclass
class _Seat:
    """One seat's clock: main time left, byo-yomi periods left, and the current Canadian
    period (time and stones left)."""

    main: float
    periods: int
    period_left: float
    stones_left: int
    moves: int = 0
    used: list[float] = field(default_factory=list)


class GameClock:
    """Both seats' clocks of one game under one :class:`TimeControl`.

    ``start(seat)`` starts a seat's turn, ``stop()`` ends it: the time used is recorded
    (``used[seat]``), then main time, byo-yomi periods and the increment are settled.
    A seat whose time ran out is ``flagged`` (the first to do so; it has lost on time).
    ``now`` arguments (seconds, monotonic) exist for tests and replays.
    """

    def __init__(self, control: TimeControl, seats: int = 2):
        self.control = control
        self.seats = [self._fresh_seat() for _ in range(seats)]
        self.flagged: int | None = None
        self._running: tuple[int, float] | None = None

    def _fresh_seat(self) -> _Seat:
        tc = self.control
        return _Seat(tc.base, tc.periods, tc.period_time, tc.period_stones)

    @property
    def used(self) -> list[list[float]]:
        """Seconds each seat's moves took, per seat, in order."""
        return [list(seat.used) for seat in self.seats]

    @property
    def running(self) -> int | None:
        """The seat whose turn is being timed, or None."""
        return None if self._running is None else self._running[0]

    def remaining(self, seat: int) -> float:
        """Main time the seat has left (with per_move: the fixed time), not counting a turn
        in progress."""
        if self.control.per_move is not None:
            return self.control.per_move
        return self.seats[seat].main

    def view(self, seat: int) -> ClockView:
        """What ``seat`` sees at the start of its turn."""
        tc, s = self.control, self.seats[seat]
        if tc.per_move is not None:
            return ClockView.fixed(tc.per_move)
        other = [self.remaining(i) for i in range(len(self.seats)) if i != seat]
        if tc.period_stones and s.main <= 0:
            moves_to_go: int | None = s.stones_left
        elif tc.moves_per_period:
            moves_to_go = tc.moves_per_period - s.moves % tc.moves_per_period
        else:
            moves_to_go = None
        return ClockView(
            remaining=s.main,
            increment=tc.increment,
            moves_to_go=moves_to_go,
            byoyomi_periods=s.periods,
            byoyomi_time=s.period_left if tc.period_stones else tc.period_time,
            byoyomi_stones=s.stones_left if tc.period_stones else 0,
            opponent_remaining=other[0] if other else None,
            moves_played=s.moves,
        )

    def start(self, seat: int, now: float | None = None) -> None:
        """Start ``seat``'s turn (a turn already running is stopped first)."""
        if self._running is not None:
            self.stop(now)
        self._running = (seat, time.monotonic() if now is None else now)

    def stop(self, now: float | None = None) -> float:
        """End the running turn; returns the seconds it took (0 when none was running)."""
        if self._running is None:
            return 0.0
        seat, started = self._running
        self._running = None
        spent = max(0.0, (time.monotonic() if now is None else now) - started)
        state = self.seats[seat]
        state.used.append(spent)
        state.moves += 1
        if not self._settle(state, spent) and self.flagged is None:
            self.flagged = seat
        return spent

    def set_remaining(self, seat: int, seconds: float, stones: int | None = None) -> None:
        """Set a seat's clock from outside (GTP ``time_left``): main time left, or with
        ``stones`` > 0 in byo-yomi: Canadian, the period's time and the stones left in it;
        Japanese, ``stones`` is the periods left (as KGS sends it; each move starts with a
        whole period, so ``seconds`` is not kept)."""
        state = self.seats[seat]
        if stones and self.control.period_stones:
            state.main, state.period_left, state.stones_left = 0.0, float(seconds), int(stones)
        elif stones:
            state.main, state.periods = 0.0, int(stones)
        else:
            state.main = float(seconds)

    def _settle(self, s: _Seat, spent: float) -> bool:
        """Charge ``spent`` seconds to a seat; False when its time ran out."""
        tc = self.control
        if tc.per_move is not None:
            return spent <= tc.per_move
        over = spent - s.main
        s.main = max(0.0, s.main - spent)
        if over > 0 and not self._byoyomi(s, over):
            return False
        s.main += tc.increment
        if tc.moves_per_period and s.moves % tc.moves_per_period == 0:
            s.main += tc.base
        return True

    def _byoyomi(self, s: _Seat, over: float) -> bool:
        """Charge ``over`` seconds past main time to byo-yomi; False when it ran out."""
        tc = self.control
        if not tc.periods:
            return False
        if tc.period_stones:
            s.period_left -= over
            if s.period_left < 0:
                return False
            s.stones_left -= 1
            if s.stones_left == 0:
                s.period_left, s.stones_left = tc.period_time, tc.period_stones
            return True
        lost = int(over // tc.period_time)  # periods a move overran, each one used up
        if over == lost * tc.period_time:
            lost -= 1  # ending exactly at a period's end keeps it
        s.periods -= lost
        return s.periods > 0


def accepts_clock(agent: Any) -> bool:
    """Whether ``agent.act`` takes a ``clock=`` keyword (agents without one, random or a GTP
    engine keeping its own time, are called as ``act(env)``)."""
    act = getattr(agent, "act", None)
    return act is not None and _takes_clock(getattr(act, "__func__", act))


@functools.lru_cache(maxsize=256)
def _takes_clock(function: Callable) -> bool:
    try:
        parameters = inspect.signature(function).parameters.values()
    except (TypeError, ValueError):
        return False
    return any((p.name == "clock" and p.kind is not p.POSITIONAL_ONLY)
               or p.kind is p.VAR_KEYWORD for p in parameters)


def call_act(agent: Any, env: Any, clock: ClockView | None) -> int:
    """``agent.act(env, clock=clock)`` when it takes a clock and one is given, else
    ``agent.act(env)``."""
    if clock is not None and accepts_clock(agent):
        return agent.act(env, clock=clock)
    return agent.act(env)
