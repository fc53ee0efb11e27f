"""Matches and tournaments between agents, with ratings, on top of the results store.

A match plays pairs of games from random openings, each opening once with each colour, so
deterministic agents do not replay the same game. With a store
(:class:`boardzoo.store.ResultsStore`) every game is claimed before it is played and stored
once when it ends: rerunning the same match resumes it (asking for more games extends it),
several processes on one store share its games, and a match with any other definition
(game, normalised game options, every agent's full spec, opening plies, seed) is a separate
match. JSONL, SGF and CSV files are exports of the records.

Time controls (``time_control=``, a :class:`~boardzoo.timecontrol.TimeControl` or its text
such as ``"10+0.1"``): each game runs a :class:`~boardzoo.timecontrol.GameClock`; agents
whose ``act`` takes ``clock=`` get their :class:`~boardzoo.timecontrol.ClockView` at every
turn, others are only timed. A player whose clock runs out loses on time (``on_time="lose"``,
the record says ``time_loss``), or with ``on_time="warn"`` the game goes on and the record
only names the seat that ran out (``flagged``).
"""

from __future__ import annotations

import contextlib
import copy
import csv
import inspect
import io
import json
import os
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, wait
from dataclasses import MISSING, asdict, dataclass, field, fields
from itertools import combinations
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

from boardzoo.agents.base import Agent
from boardzoo.envs import BoardGameEnv, as_game
from boardzoo.envs.aec import AGENTS
from boardzoo.envs.core import Game
from boardzoo.errors import InvalidOptionError, StoreError, excerpt
from boardzoo.executor import Executor, LocalExecutor
from boardzoo.files import atomic_write_text, save_figure
from boardzoo.ratings import elo_ratings, score_interval
from boardzoo.store import ResultsStore
from boardzoo.timecontrol import GameClock, TimeControl, call_act

__all__ = [
    "EXPORT_FORMATS",
    "MAX_GAMES",
    "GameRecord",
    "MatchResult",
    "ON_TIME",
    "PlayedGame",
    "TournamentResult",
    "agent_spec",
    "check_export_formats",
    "clock_use",
    "export_match",
    "play_game",
    "play_match",
    "play_timed_game",
    "tournament",
    "random_openings",
]

#: the most games one match (one pair of agents) plays: its openings are drawn before the
#: first game, and 10,000 games already measure a score to about +-1%
MAX_GAMES = 10_000
#: file formats of :func:`export_match`: one JSON record per line, an SGF file per game
#: (Go and Gomoku), one CSV row per game, one PGN file of every game (chess)
EXPORT_FORMATS = ("jsonl", "sgf", "csv", "pgn")
#: the games whose records a game-specific format can hold
_FORMAT_GAMES = {"sgf": ("go", "gomoku"), "pgn": ("chess",)}
_POLL_SECONDS = 0.2  # how often a process with nothing to claim looks at others' progress
#: what happens when a clock runs out: the player loses on time, or a warning is recorded
ON_TIME = ("lose", "warn")


@dataclass
class GameRecord:
    """One finished game, from agent_a's side: ``score`` 1 win, 0.5 draw, 0 loss.

    ``seconds``: every move's time, in order; under a time control ``clock_seconds[seat]``
    each seat's, ``clock_left[seat]`` its main time left at the end, ``flagged`` the seat
    whose clock ran out first (None: neither) and ``time_loss`` whether that decided the
    game (``on_time="lose"``). ``result``: the result as the game's players write it, where
    its knowledge writes one (Go: ``B+3.5``, the score with the dead stones removed, as GTP's
    final_score and the page's); empty for a loss on time.
    """

    index: int
    agent_a_seat: int
    opening: list[int]
    moves: list[int]
    returns: list[float]
    score: float
    seconds: list[float] = field(default_factory=list)
    final_position: str = ""
    clock_seconds: list[list[float]] = field(default_factory=list)
    flagged: int | None = None
    time_loss: bool = False
    clock_left: list[float] = field(default_factory=list)
    result: str = ""


@dataclass
class MatchResult:
    """Totals for agent_a over a match; ``score_ci`` is a 95% interval for ``score``."""

    wins: int
    draws: int
    losses: int
    records: list[GameRecord]

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses

    @property
    def score(self) -> float:
        return (self.wins + 0.5 * self.draws) / self.games if self.games else float("nan")

    @property
    def score_ci(self) -> tuple[float, float]:
        return score_interval(self.score, self.games)

    def __repr__(self) -> str:
        low, high = self.score_ci
        return (
            f"MatchResult(+{self.wins} ={self.draws} -{self.losses}, "
            f"score {self.score:.3f} [{low:.3f}, {high:.3f}])"
        )


def random_openings(
    game: str | Game, count: int, plies: int, seed: int,
    game_options: Mapping[str, Any] | None = None,
) -> list[list[int]]:
    """``count`` distinct-if-possible random move sequences of ``plies`` moves that do not end
    the game (fewer plies where the game would otherwise end) and do not pass by choice (a
    random pass hands the game to whoever passes next). The list for ``count`` is a
    prefix of the list for any larger count, so a match extended with more games keeps the
    openings (and the stored games) it had. ``game``: a Game, or a name with
    ``game_options``."""
    rules = as_game(game, game_options)
    rng = np.random.default_rng(seed)
    openings: list[list[int]] = []
    seen: set[tuple[int, ...]] = set()
    repeats = 0
    while len(openings) < count:
        moves = _random_opening(rules, plies, rng)
        if tuple(moves) in seen and repeats < 10:  # retry a repeat; after 10, accept it
            repeats += 1
            continue
        seen.add(tuple(moves))
        openings.append(moves)
        repeats = 0
    return openings


def _random_opening(rules: Game, plies: int, rng: np.random.Generator) -> list[int]:
    state, moves = rules.initial_state(), []
    for _ in range(plies):
        legal = [
            a for a in rules.legal_actions(state) if not rules.is_terminal(rules.step(state, a))
        ]
        legal = [a for a in legal if a != rules.pass_action] or legal
        if not legal:
            break
        moves.append(int(rng.choice(legal)))
        state = rules.step(state, moves[-1])
    return moves


class PlayedGame(NamedTuple):
    """One game as :func:`play_timed_game` played it: moves after the opening, per-seat
    returns (+1 / 0 / -1; a loss on time is -1 for the flagged seat), seconds per move,
    the final position text, each seat's clock times, the seat whose clock ran out first
    (None: neither), whether that lost it the game, each seat's main time left, and the
    result as the game's players write it (see :class:`GameRecord`)."""

    moves: list[int]
    returns: list[float]
    seconds: list[float]
    final_position: str
    clock_seconds: list[list[float]]
    flagged: int | None
    time_loss: bool
    clock_left: list[float]
    result: str = ""


def play_game(
    game: str | Game,
    agents: Sequence[Agent],
    opening: Sequence[int] = (),
    game_options: Mapping[str, Any] | None = None,
) -> tuple[list[int], list[float], list[float], str]:
    """Play one game of ``game`` (a Game, or a name with ``game_options``), ``agents[0]`` as
    player_0, from ``opening``. Returns the moves after the opening, per-seat returns,
    seconds per move, and the final position text."""
    return play_timed_game(game, agents, opening, game_options)[:4]


def play_timed_game(
    game: str | Game,
    agents: Sequence[Agent],
    opening: Sequence[int] = (),
    game_options: Mapping[str, Any] | None = None,
    time_control: TimeControl | str | None = None,
    on_time: str = "lose",
) -> PlayedGame:
    """Play one game as :func:`play_game`, under ``time_control`` when given (see the module
    docstring; ``on_time``: "lose" or "warn")."""
    control = _time_control(time_control, on_time)
    env = BoardGameEnv(as_game(game, game_options), illegal_action="raise")
    env.reset(options={"moves": list(opening)})
    clock = None if control is None else GameClock(control)
    if clock is not None:  # compilation is not the players' time: the agents' kernels,
        env.unwrapped.legal_mask()  # and the rules' own, which every agent's first move calls
        for agent in agents:
            if hasattr(agent, "prepare"):
                agent.prepare(env)
    moves, seconds = [], []
    lost_on_time = None  # the seat that lost on time
    for agent_name in env.agent_iter():
        _, _, termination, truncation, _ = env.last(observe=False)
        if termination or truncation:
            env.step(None)
            continue
        seat = AGENTS.index(agent_name)
        start = time.perf_counter()
        if clock is None:
            action = agents[seat].act(env)
        else:
            view = clock.view(seat)
            clock.start(seat)
            action = call_act(agents[seat], env, view)
            clock.stop()
        seconds.append(time.perf_counter() - start)
        moves.append(int(action))
        if clock is not None and clock.flagged == seat and on_time == "lose":
            lost_on_time = seat
            break
        env.step(action)
    returns = env.game.returns(env.state_array).tolist()
    result = "" if lost_on_time is not None else _result_text(env.game, env.state_array)
    if lost_on_time is not None:
        returns = [1.0, 1.0]
        returns[lost_on_time] = -1.0
        moves.pop()  # the move came too late: it is not played
    if clock is None:
        return PlayedGame(moves, returns, seconds, env.position(), [], None, False, [], result)
    left = [clock.remaining(seat) for seat in range(len(agents))]
    return PlayedGame(moves, returns, seconds, env.position(), clock.used, clock.flagged,
                      lost_on_time is not None, left, result)


def _result_text(game: Game, state: np.ndarray) -> str:
    """The finished game's result as its players write it (its knowledge's ``result_text``),
    or empty where the game has none."""
    knowledge = game.knowledge
    writer = None if knowledge is None else getattr(knowledge, "result_text", None)
    return "" if writer is None else str(writer(game, state))


def _time_control(time_control: TimeControl | str | None, on_time: str) -> TimeControl | None:
    """The time control given as an object or its text; InvalidOptionError for a bad
    ``on_time``."""
    if on_time not in ON_TIME:
        raise InvalidOptionError(f"on_time={on_time!r}: use one of {', '.join(ON_TIME)}")
    if time_control is None or isinstance(time_control, TimeControl):
        return time_control
    return TimeControl.parse(time_control)


def _play_indexed(args: tuple) -> GameRecord:
    rules, agent_a, agent_b, index, opening, seed, control, on_time = args
    a_seat = index % 2
    seats = [agent_a, agent_b] if a_seat == 0 else [agent_b, agent_a]
    for side, agent in enumerate((agent_a, agent_b)):  # each game's randomness is its own
        if hasattr(agent, "reseed"):
            agent.reseed(int(np.random.SeedSequence([seed, index, side]).generate_state(1)[0]))
    played = play_timed_game(rules, seats, opening, None, control, on_time)
    score = (played.returns[a_seat] + 1.0) / 2.0
    return GameRecord(index, a_seat, list(opening), played.moves, played.returns, score,
                      played.seconds, played.final_position, played.clock_seconds,
                      played.flagged, played.time_loss, played.clock_left, played.result)


def agent_spec(agent: Agent) -> dict[str, Any]:
    """What identifies an agent in a match definition: the full spec ``make_agent`` records
    (name and every constructor argument, defaults included), or for other agents their
    class and the attributes named like its constructor's arguments, where plain values."""
    spec = getattr(agent, "spec", None)
    if isinstance(spec, dict):
        return dict(spec)
    plain = (int, float, str, bool, type(None))
    parameters: Mapping[str, Any]
    try:
        parameters = inspect.signature(type(agent)).parameters
    except (TypeError, ValueError):
        parameters = {}
    settings = {
        key: getattr(agent, key)
        for key in sorted(parameters)
        if isinstance(getattr(agent, key, None), plain) and hasattr(agent, key)
    }
    return {"class": f"{type(agent).__module__}.{type(agent).__qualname__}", **settings}


def _with_time_limit(agent: Agent, time_limit: float | None) -> Agent:
    """A copy of ``agent`` with ``time_limit`` (the caller's agent is left as it was)."""
    if time_limit is None or not hasattr(agent, "time_limit"):
        return agent
    timed: Any = copy.copy(agent)
    timed.time_limit = time_limit
    timed.spec = {**agent_spec(agent), "time_limit": time_limit}
    return timed


def play_match(
    game: str | Game,
    agent_a: Agent,
    agent_b: Agent,
    games: int = 100,
    seed: int = 0,
    opening_plies: int = 4,
    game_options: Mapping[str, Any] | None = None,
    store: str | os.PathLike | ResultsStore | None = None,
    workers: int = 1,
    progress: Callable[[int], None] | None = None,
    time_limit: float | None = None,
    executor: Executor | None = None,
    time_control: TimeControl | str | None = None,
    on_time: str = "lose",
) -> MatchResult:
    """Play ``games`` games of ``game`` (a Game, or a name with ``game_options``); agent_a
    takes player_0 in even-indexed games and player_1 in odd ones, and games 2k and 2k+1
    start from the same random opening of ``opening_plies`` moves.

    With ``store`` (a :class:`~boardzoo.store.ResultsStore` or its path) games already stored
    for this match are not replayed, the others are claimed one at a time before they are
    played (so other processes on the store take the rest) and stored as they end; the
    result holds every game of the match, whoever played it. Agents with a ``reseed(seed)``
    method are reseeded from (seed, game index) before every game, so a resumed match gives
    the games of an uninterrupted one. ``time_limit`` (seconds per move) is given to copies
    of the agents that have a ``time_limit`` attribute (the agents passed in keep theirs);
    every record keeps the seconds each move took. ``time_control`` (an object or its text,
    e.g. ``"10+0.1"``) runs a clock in every game (see the module docstring; ``on_time``
    "lose" or "warn"); it is part of the match's definition. ``workers > 1`` plays games in
    parallel processes (agents must be picklable), which end if this process dies; an
    ``executor`` (:mod:`boardzoo.executor`, e.g. Ray) plays them instead, ``executor.workers``
    at a time, while this process alone stores them. ``progress(n)`` is called with the
    number of games just finished (here or by another process).
    """
    if type(games) is not int or not 1 <= games <= MAX_GAMES:
        raise InvalidOptionError(f"games={excerpt(games)}: play 1..{MAX_GAMES} games a match")
    if type(seed) is not int or not 0 <= seed < 2**63:
        raise InvalidOptionError(f"seed={excerpt(seed)}: use an integer >= 0")
    control = _time_control(time_control, on_time)
    agent_a, agent_b = (_with_time_limit(agent, time_limit) for agent in (agent_a, agent_b))
    rules = as_game(game, game_options)
    openings = random_openings(rules, (games + 1) // 2, opening_plies, seed)
    tasks = {
        i: (rules, agent_a, agent_b, i, openings[i // 2], seed, control, on_time)
        for i in range(games)
    }
    definition = {
        "game": rules.name,
        "options": _plain(rules.options),
        "agents": [agent_spec(agent_a), agent_spec(agent_b)],
        "opening_plies": opening_plies,
        "seed": seed,
    }
    if control is not None:  # matches without a clock keep their stored definitions
        definition["time_control"] = str(control)
        definition["on_time"] = on_time
    with _executing(executor, workers) as runner, _opened(store) as results:
        records = _play_stored(results, definition, tasks, runner, progress)
    ordered = [records[i] for i in range(games)]
    wins = sum(r.score == 1.0 for r in ordered)
    losses = sum(r.score == 0.0 for r in ordered)
    return MatchResult(wins, games - wins - losses, losses, ordered)


def _plain(options: Mapping[str, Any]) -> dict[str, Any]:
    """Game options as JSON values (tuples become lists), for a match definition."""
    return json.loads(json.dumps(dict(options), default=repr))


@contextlib.contextmanager
def _opened(store: str | os.PathLike | ResultsStore | None) -> Iterator[ResultsStore]:
    """The store itself, or one opened at a path (in memory for None) for the duration of a
    match."""
    if isinstance(store, ResultsStore):
        yield store
        return
    results = ResultsStore(":memory:" if store is None else store)
    try:
        yield results
    finally:
        results.close()


def _play_stored(
    results: ResultsStore,
    definition: dict[str, Any],
    tasks: dict[int, tuple],
    runner: Executor,
    progress: Callable[[int], None] | None,
) -> dict[int, GameRecord]:
    """Claim, play and store the match's games until every one is stored (waiting for games
    other live processes hold); on any exit this process's open claims are given back."""
    match = results.match(definition)
    ids = [str(i) for i in tasks]
    _stored_records(results, match)  # a damaged store is refused before any game is played
    seen = results.count(match)
    if progress and seen:
        progress(seen)
    running: dict[Future, str] = {}
    try:
        with results.claims_kept():  # (a game may outlast the lease)
            while (_claim_free_games(results, match, ids, tasks, runner, running)
                   or results.pending_elsewhere(match, ids)):
                _store_finished(results, match, running)
                stored = results.count(match)
                if progress and stored > seen:
                    progress(stored - seen)
                seen = stored
    finally:
        with contextlib.suppress(Exception):
            results.release()
    return _stored_records(results, match)


_RECORD_FIELDS = {f.name for f in fields(GameRecord)}


def _stored_records(results: ResultsStore, match: int) -> dict[int, GameRecord]:
    """The match's stored games as records; StoreError naming the game if one is not the
    record of a game (damaged or written by something else)."""
    records = {}
    for game_id, record in results.records(match).items():
        try:
            records[int(game_id)] = GameRecord(**record)
        except (TypeError, ValueError):
            missing = sorted({f.name for f in fields(GameRecord) if f.default is MISSING
                              and f.default_factory is MISSING} - set(record))
            why = f"it lacks {', '.join(missing)}" if missing else "its fields are not a game's"
            raise StoreError(
                f"results store {results.path}: game {excerpt(game_id)} of this match is not "
                f"a game record ({why}); the store was left as it is: delete that row or use "
                "another --store") from None
    return records


def _claim_free_games(results: ResultsStore, match: int, ids: list[str],
                      tasks: dict[int, tuple], runner: Executor,
                      running: dict[Future, str]) -> bool:
    """Claim games for the runner's free workers and start them; whether any is running."""
    while len(running) < runner.workers:
        game_id = results.claim(match, ids)
        if game_id is None:
            break
        running[runner.submit(_play_indexed, tasks[int(game_id)])] = game_id
    return bool(running)


def _store_finished(results: ResultsStore, match: int, running: dict[Future, str]) -> None:
    """Store the games that finish within a poll interval (none may)."""
    finished, _ = wait(running, timeout=_POLL_SECONDS, return_when=FIRST_COMPLETED)
    for future in finished:
        results.put(match, running.pop(future), asdict(future.result()))


@contextlib.contextmanager
def _executing(executor: Executor | None, workers: int) -> Iterator[Executor]:
    """The executor itself, or local processes (``workers``) for the duration of a match."""
    if executor is not None:
        yield executor
        return
    with LocalExecutor(max(1, workers)) as local:
        yield local


def check_export_formats(formats: Sequence[str], game: str = "") -> None:
    """Raise a one-line :class:`InvalidOptionError` for a format that is not one of
    :data:`EXPORT_FORMATS`, or (when ``game`` is named) one that cannot hold its games."""
    unknown = sorted(set(formats) - set(EXPORT_FORMATS))
    if unknown:
        raise InvalidOptionError(
            f"unknown export format(s) {unknown}; use {', '.join(EXPORT_FORMATS)}"
        )
    unsuited = sorted(f for f in formats if game and game not in _FORMAT_GAMES.get(f, (game,)))
    if unsuited:
        suited = [f for f in EXPORT_FORMATS if game in _FORMAT_GAMES.get(f, (game,))]
        holds = "; ".join(f"{f} holds {' and '.join(_FORMAT_GAMES[f])} games" for f in unsuited)
        raise InvalidOptionError(f"{holds}; {game} exports {', '.join(suited)}")


def export_match(
    result: MatchResult, stem: str | os.PathLike, formats: Sequence[str],
    game: str | Game = "", names: tuple[str, str] = ("agent_a", "agent_b"),
) -> list[Path]:
    """Write a match's records as ``stem.jsonl`` (one JSON record per line), ``stem/`` with
    an SGF file per game (Go and Gomoku), ``stem.csv`` (one row per game) and, for
    ``game`` chess, ``stem.pgn`` (every game, the players ``names`` of agent_a and
    agent_b); returns the paths. Each file is written whole and renamed into place."""
    check_export_formats(formats, game if isinstance(game, str) else game.name)
    stem = Path(stem)
    stem.parent.mkdir(parents=True, exist_ok=True)
    paths = []
    if "jsonl" in formats:
        paths.append(stem.with_name(stem.name + ".jsonl"))
        atomic_write_text(paths[-1], "".join(json.dumps(asdict(r)) + "\n" for r in result.records))
    if "csv" in formats:
        paths.append(stem.with_name(stem.name + ".csv"))
        rows = [[r.index, r.agent_a_seat, r.score, len(r.opening) + len(r.moves),
                 f"{sum(r.seconds):.3f}"] for r in result.records]
        atomic_write_text(paths[-1], csv_text(["index", "agent_a_seat", "score", "plies",
                                               "seconds"], rows))
    if "sgf" in formats:
        for record in result.records:
            if record.final_position.startswith("(;"):  # Go and Gomoku positions are SGF
                stem.mkdir(exist_ok=True)
                paths.append(stem / f"game_{record.index:04d}.sgf")
                atomic_write_text(paths[-1], record.final_position + "\n")
    if "pgn" in formats:
        paths.append(stem.with_name(stem.name + ".pgn"))
        atomic_write_text(paths[-1], "\n".join(_pgn(r, names) for r in result.records))
    return paths


def _pgn(record: GameRecord, names: tuple[str, str]) -> str:
    """A chess game's record as PGN, agent_a's name on its seat's side."""
    from boardzoo.envs.chess import Chess
    from boardzoo.envs.pgn import write_pgn

    white, black = names if record.agent_a_seat == 0 else names[::-1]
    tags = {"Event": "boardzoo arena", "Round": str(record.index + 1), "White": white,
            "Black": black}
    return write_pgn(Chess().initial_state(), record.opening + record.moves, record.returns,
                     tags, finished=True)


@dataclass
class TournamentResult:
    """Round-robin results: ``ratings[name] = (elo, low, high)`` with a 95% interval."""

    game: str
    names: list[str]
    matches: dict[tuple[str, str], MatchResult]
    ratings: dict[str, tuple[float, float, float]]

    def rows(self) -> list[dict[str, Any]]:
        """One row per player, best first: name, elo, interval, games, score."""
        rows = []
        for name in self.names:
            points, played = 0.0, 0
            for (a, b), match in self.matches.items():
                if name in (a, b):
                    played += match.games
                    points += (
                        match.score * match.games if name == a else (1 - match.score) * match.games
                    )
            elo, low, high = self.ratings[name]
            rows.append(
                {
                    "agent": name,
                    "elo": elo,
                    "low": low,
                    "high": high,
                    "games": played,
                    "score": points / played if played else float("nan"),
                }
            )
        return sorted(rows, key=lambda row: -row["elo"])

    def table(self, console: Any | None = None) -> None:
        """Print the ratings table with rich; an agent name too long for the console's
        width folds onto more lines, never cut (a name is a spec to copy)."""
        from rich.console import Console
        from rich.table import Table

        table = Table(title=f"{self.game}: Elo by maximum likelihood (95% interval)")
        for column in ("rank", "agent", "Elo", "95% interval", "games", "score"):
            if column == "agent":
                table.add_column(column, justify="left", overflow="fold")
            else:
                table.add_column(column, justify="right", no_wrap=True)
        for rank, row in enumerate(self.rows(), 1):
            table.add_row(
                str(rank),
                row["agent"],
                f"{row['elo']:+.0f}",
                f"[{row['low']:+.0f}, {row['high']:+.0f}]",
                str(row["games"]),
                f"{row['score']:.3f}",
            )
        (console or Console()).print(table)

    def save(self, directory: str | os.PathLike) -> list[Path]:
        """Write ratings.csv, ratings.json and ratings.png (error bars); returns the paths."""
        out = Path(directory)
        out.mkdir(parents=True, exist_ok=True)
        rows = self.rows()
        table = [[r["agent"], f"{r['elo']:.1f}", f"{r['low']:.1f}", f"{r['high']:.1f}",
                  r["games"], f"{r['score']:.4f}"] for r in rows]
        paths = [out / "ratings.csv", out / "ratings.json", out / "ratings.png"]
        atomic_write_text(paths[0], csv_text(["agent", "elo", "low", "high", "games", "score"],
                                             table))
        matches = {
            f"{a} vs {b}": {"wins": m.wins, "draws": m.draws, "losses": m.losses}
            for (a, b), m in self.matches.items()
        }
        atomic_write_text(
            paths[1], json.dumps({"game": self.game, "ratings": rows, "matches": matches}, indent=2)
        )
        _plot_ratings(rows, self.game, paths[2])
        return paths

    def export(self, directory: str | os.PathLike, formats: Sequence[str]) -> list[Path]:
        """Every match's records as ``directory/<a>__vs__<b>.<format>`` (see
        :func:`export_match`); returns the paths."""
        return [
            path
            for (a, b), match in self.matches.items()
            for path in export_match(match, Path(directory) / f"{_slug(a)}__vs__{_slug(b)}",
                                     formats, self.game, (a, b))
        ]


def clock_use(result: TournamentResult) -> dict[str, dict[str, float]]:
    """Per agent of a tournament played under a clock: ``time_losses``, ``flagged`` (clocks
    run out, also with on_time="warn"), ``used_share`` (seconds used over the seconds its
    clocks gave it: used plus main time left at the end, summed over its games) and
    ``mean_move_seconds``."""
    totals = {name: {"time_losses": 0, "flagged": 0, "used": 0.0, "had": 0.0, "moves": 0}
              for name in result.names}
    for (a, b), match in result.matches.items():
        for record in match.records:
            if not record.clock_seconds:
                continue
            for name, seat in ((a, record.agent_a_seat), (b, 1 - record.agent_a_seat)):
                used = sum(record.clock_seconds[seat])
                entry = totals[name]
                entry["used"] += used
                entry["had"] += used + max(0.0, record.clock_left[seat])
                entry["moves"] += len(record.clock_seconds[seat])
                entry["flagged"] += record.flagged == seat
                entry["time_losses"] += record.flagged == seat and record.time_loss
    return {
        name: {
            "time_losses": t["time_losses"],
            "flagged": t["flagged"],
            "used_share": t["used"] / t["had"] if t["had"] else float("nan"),
            "mean_move_seconds": t["used"] / t["moves"] if t["moves"] else float("nan"),
        }
        for name, t in totals.items()
    }


def csv_text(header: list[str], rows: list[list[Any]]) -> str:
    """A CSV file's text through the csv module, which quotes what needs it (an agent spec
    such as ``alphazero:checkpoint=x,simulations=200`` holds commas)."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(header)
    writer.writerows(rows)
    return buffer.getvalue()


def _slug(name: str) -> str:
    """An agent name made safe for a file name."""
    return "".join(ch if ch.isalnum() or ch in "-_.=" else "_" for ch in name)


def _plot_ratings(rows: list[dict[str, Any]], game: str, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = [r["agent"] for r in rows][::-1]
    label_inches = 0.08 * max(len(name) for name in names)  # long specs need the room
    fig, ax = plt.subplots(figsize=(4 + label_inches, 0.5 * len(rows) + 1.5))
    elos = np.array([r["elo"] for r in rows][::-1])
    errors = np.array([[r["elo"] - r["low"], r["high"] - r["elo"]] for r in rows][::-1]).T
    ax.errorbar(elos, range(len(rows)), xerr=errors, fmt="o", capsize=4)
    ax.set_yticks(range(len(rows)), names)
    ax.set_xlabel("Elo (95% interval)")
    ax.set_title(f"{game} tournament")
    ax.grid(axis="x", alpha=0.3)
    fig.tight_layout()
    save_figure(fig, path, dpi=100)
    plt.close(fig)


def tournament(
    game: str | Game,
    agents: Mapping[str, Agent],
    games_per_pair: int = 50,
    seed: int = 0,
    anchor: str | None = None,
    **match: Any,
) -> TournamentResult:
    """Round robin of ``game`` (a Game, or a name with ``game_options``): every pair plays
    ``games_per_pair`` games (:func:`play_match`, with ``match``: its other keyword
    arguments, ``game_options``, ``opening_plies``, ``store``, ``workers``, ``progress``,
    ``time_limit``, ``executor``, ``time_control`` and ``on_time``); Elo by maximum
    likelihood, anchored at ``anchor`` (default "random" if present, else the mean). With
    ``store`` every match is stored there and the run resumes (or is shared by several
    processes); a loss on time counts in the ratings as any loss; every match runs on
    ``executor`` (default: ``workers`` local processes, started once for the whole
    tournament)."""
    names = list(agents)
    if len(names) < 2:
        raise InvalidOptionError("a tournament needs at least two agents")
    rules = as_game(game, match.pop("game_options", None))
    matches = {}
    with contextlib.ExitStack() as stack:
        if match.get("store") is not None:
            match["store"] = stack.enter_context(_opened(match["store"]))
        match["executor"] = stack.enter_context(
            _executing(match.get("executor"), match.get("workers", 1)))
        for pair_index, (a, b) in enumerate(combinations(names, 2)):
            matches[(a, b)] = play_match(rules, agents[a], agents[b], games_per_pair,
                                         seed + 7919 * pair_index, **match)
    scores = [
        (names.index(a), names.index(b), r.score)
        for (a, b), m in matches.items()
        for r in m.records
    ]
    if anchor is None and "random" in names:
        anchor = "random"
    return TournamentResult(rules.name, names, matches,
                            elo_ratings(names, scores, anchor=anchor))
