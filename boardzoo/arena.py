"""Matches and tournaments between agents, with ratings and saved game records.

A match plays pairs of games from random openings, each opening once with each colour, so
deterministic agents do not replay the same game. Every finished game is appended to a JSONL
file as it ends; running the same match again with the same file resumes where it stopped.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass, field
from itertools import combinations
from pathlib import Path
from typing import Any

import numpy as np

from boardzoo.agents.base import Agent
from boardzoo.envs import make_env, make_game
from boardzoo.envs.aec import AGENTS
from boardzoo.errors import InvalidOptionError
from boardzoo.ratings import elo_ratings, score_interval

__all__ = [
    "GameRecord",
    "MatchResult",
    "TournamentResult",
    "play_game",
    "play_match",
    "tournament",
    "random_openings",
]


@dataclass
class GameRecord:
    """One finished game, from agent_a's side: ``score`` 1 win, 0.5 draw, 0 loss."""

    index: int
    agent_a_seat: int
    opening: list[int]
    moves: list[int]
    returns: list[float]
    score: float
    seconds: list[float] = field(default_factory=list)
    final_position: str = ""


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
    game: str, count: int, plies: int, seed: int, game_options: Mapping[str, Any] | None = None
) -> list[list[int]]:
    """``count`` distinct-if-possible random move sequences of ``plies`` moves that do not end
    the game (fewer plies where the game would otherwise end)."""
    rules = make_game(game, **dict(game_options or {}))
    rng = np.random.default_rng(seed)
    openings, seen = [], set()
    for attempt in range(count * 20):
        state, moves = rules.initial_state(), []
        for _ in range(plies):
            legal = [
                a for a in rules.legal_actions(state) if not rules.is_terminal(rules.step(state, a))
            ]
            if not legal:
                break
            moves.append(int(rng.choice(legal)))
            state = rules.step(state, moves[-1])
        if tuple(moves) not in seen or attempt >= count * 10:
            seen.add(tuple(moves))
            openings.append(moves)
        if len(openings) == count:
            break
    return openings


def play_game(
    game: str,
    agents: Sequence[Agent],
    opening: Sequence[int] = (),
    game_options: Mapping[str, Any] | None = None,
) -> tuple[list[int], list[float], list[float], str]:
    """Play one game, ``agents[0]`` as player_0, from ``opening``. Returns the moves after the
    opening, per-seat returns, seconds per move, and the final position text."""
    env = make_env(game, **dict(game_options or {}))
    env.reset(options={"moves": list(opening)})
    moves, seconds = [], []
    for agent_name in env.agent_iter():
        _, _, termination, truncation, _ = env.last(observe=False)
        if termination or truncation:
            env.step(None)
            continue
        start = time.perf_counter()
        action = agents[AGENTS.index(agent_name)].act(env)
        seconds.append(time.perf_counter() - start)
        moves.append(int(action))
        env.step(action)
    returns = env.game.returns(env.state_array).tolist()
    return moves, returns, seconds, env.position()


def _play_indexed(args: tuple) -> GameRecord:
    game, agent_a, agent_b, index, opening, game_options, seed = args
    a_seat = index % 2
    seats = [agent_a, agent_b] if a_seat == 0 else [agent_b, agent_a]
    for side, agent in enumerate((agent_a, agent_b)):  # each game's randomness is its own
        if hasattr(agent, "reseed"):
            agent.reseed(int(np.random.SeedSequence([seed, index, side]).generate_state(1)[0]))
    moves, returns, seconds, final = play_game(game, seats, opening, game_options)
    score = (returns[a_seat] + 1.0) / 2.0
    return GameRecord(index, a_seat, list(opening), moves, returns, score, seconds, final)


def _load_records(path: Path) -> dict[int, GameRecord]:
    """Records saved so far; a torn last line (a crash mid-write) is dropped."""
    records: dict[int, GameRecord] = {}
    if not path.exists():
        return records
    good_bytes = 0
    with path.open("rb") as fh:
        for line in fh:
            try:
                record = GameRecord(**json.loads(line))
            except (json.JSONDecodeError, TypeError, UnicodeDecodeError):
                break
            records[record.index] = record
            good_bytes += len(line)
    if good_bytes != path.stat().st_size:
        with path.open("r+b") as fh:
            fh.truncate(good_bytes)
    return records


def _save_sgf(path: Path, record: GameRecord) -> None:
    folder = path.with_suffix("")
    folder.mkdir(parents=True, exist_ok=True)
    _atomic_write(folder / f"game_{record.index:04d}.sgf", record.final_position + "\n")


def _append_record(path: Path, record: GameRecord) -> None:
    with path.open("a", encoding="utf-8") as fh:
        fh.write(json.dumps(asdict(record)) + "\n")
        fh.flush()
        os.fsync(fh.fileno())


def play_match(
    game: str,
    agent_a: Agent,
    agent_b: Agent,
    games: int = 100,
    seed: int = 0,
    opening_plies: int = 4,
    game_options: Mapping[str, Any] | None = None,
    out: str | os.PathLike | None = None,
    workers: int = 1,
    progress: Callable[[int], None] | None = None,
    time_limit: float | None = None,
) -> MatchResult:
    """Play ``games`` games; agent_a takes player_0 in even-indexed games and player_1 in odd
    ones, and games 2k and 2k+1 start from the same random opening of ``opening_plies`` moves.

    With ``out`` (a .jsonl path) each finished game is appended as it ends (Go and Gomoku
    games also as SGF files in a folder of the same name) and games already in the file are
    not replayed, so an interrupted match resumes with the same totals: agents with a
    ``reseed(seed)`` method are reseeded from (seed, game index) before every game.
    ``time_limit`` (seconds per move) is given to agents that have a ``time_limit``
    attribute; every record keeps the seconds each move took.
    ``workers > 1`` plays games in parallel processes (agents must be picklable).
    ``progress(n)`` is called with the number of games just finished.
    """
    if games < 1:
        raise InvalidOptionError(f"games={games}: play at least one game")
    if time_limit is not None:
        for agent in (agent_a, agent_b):
            if hasattr(agent, "time_limit"):
                agent.time_limit = time_limit
    openings = random_openings(game, (games + 1) // 2, opening_plies, seed, game_options)
    path = Path(out) if out is not None else None
    if path:
        path.parent.mkdir(parents=True, exist_ok=True)
    records = _load_records(path) if path else {}
    todo = [
        (game, agent_a, agent_b, i, openings[(i // 2) % len(openings)], game_options, seed)
        for i in range(games)
        if i not in records
    ]
    if progress and records:
        progress(len(records))
    for record in _run(todo, workers):
        records[record.index] = record
        if path:
            _append_record(path, record)
            if record.final_position.startswith("(;"):  # Go and Gomoku: an SGF file per game
                _save_sgf(path, record)
        if progress:
            progress(1)
    ordered = [records[i] for i in range(games)]
    wins = sum(r.score == 1.0 for r in ordered)
    losses = sum(r.score == 0.0 for r in ordered)
    return MatchResult(wins, games - wins - losses, losses, ordered)


def _run(todo: list[tuple], workers: int) -> Iterator[GameRecord]:
    if workers <= 1 or len(todo) <= 1:
        yield from map(_play_indexed, todo)
        return
    with ProcessPoolExecutor(max_workers=workers) as pool:
        yield from pool.map(_play_indexed, todo)


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
        """Print the ratings table with rich."""
        from rich.console import Console
        from rich.table import Table

        table = Table(title=f"{self.game}: Elo by maximum likelihood (95% interval)")
        for column in ("rank", "agent", "Elo", "95% interval", "games", "score"):
            table.add_column(column, justify="left" if column == "agent" else "right")
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
        csv_lines = ["agent,elo,low,high,games,score"] + [
            f"{r['agent']},{r['elo']:.1f},{r['low']:.1f},{r['high']:.1f},{r['games']},{r['score']:.4f}"
            for r in rows
        ]
        paths = [out / "ratings.csv", out / "ratings.json", out / "ratings.png"]
        _atomic_write(paths[0], "\n".join(csv_lines) + "\n")
        matches = {
            f"{a} vs {b}": {"wins": m.wins, "draws": m.draws, "losses": m.losses}
            for (a, b), m in self.matches.items()
        }
        _atomic_write(
            paths[1], json.dumps({"game": self.game, "ratings": rows, "matches": matches}, indent=2)
        )
        _plot_ratings(rows, self.game, paths[2])
        return paths


def _slug(name: str) -> str:
    """An agent name made safe for a file name."""
    return "".join(ch if ch.isalnum() or ch in "-_.=" else "_" for ch in name)


def _atomic_write(path: Path, text: str) -> None:
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


def _plot_ratings(rows: list[dict[str, Any]], game: str, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 0.5 * len(rows) + 1.5))
    names = [r["agent"] for r in rows][::-1]
    elos = np.array([r["elo"] for r in rows][::-1])
    errors = np.array([[r["elo"] - r["low"], r["high"] - r["elo"]] for r in rows][::-1]).T
    ax.errorbar(elos, range(len(rows)), xerr=errors, fmt="o", capsize=4)
    ax.set_yticks(range(len(rows)), names)
    ax.set_xlabel("Elo (95% interval)")
    ax.set_title(f"{game} tournament")
    ax.grid(axis="x", alpha=0.3)
    fig.tight_layout()
    tmp = path.with_suffix(".tmp.png")
    fig.savefig(tmp, dpi=100)
    plt.close(fig)
    os.replace(tmp, path)


def tournament(
    game: str,
    agents: Mapping[str, Agent],
    games_per_pair: int = 50,
    seed: int = 0,
    opening_plies: int = 4,
    game_options: Mapping[str, Any] | None = None,
    out: str | os.PathLike | None = None,
    workers: int = 1,
    progress: Callable[[int], None] | None = None,
    anchor: str | None = None,
    time_limit: float | None = None,
) -> TournamentResult:
    """Round robin: every pair plays ``games_per_pair`` games (see :func:`play_match`); Elo
    by maximum likelihood, anchored at ``anchor`` (default "random" if present, else the mean).
    With ``out`` each match's games go to ``out/<a>__vs__<b>.jsonl`` and the run resumes;
    ``time_limit`` is passed on to every match."""
    names = list(agents)
    if len(names) < 2:
        raise InvalidOptionError("a tournament needs at least two agents")
    matches = {}
    for pair_index, (a, b) in enumerate(combinations(names, 2)):
        path = Path(out) / f"{_slug(a)}__vs__{_slug(b)}.jsonl" if out is not None else None
        matches[(a, b)] = play_match(
            game,
            agents[a],
            agents[b],
            games_per_pair,
            seed + 7919 * pair_index,
            opening_plies,
            game_options,
            path,
            workers,
            progress,
            time_limit,
        )
    results = [
        (names.index(a), names.index(b), r.score)
        for (a, b), m in matches.items()
        for r in m.records
    ]
    if anchor is None and "random" in names:
        anchor = "random"
    return TournamentResult(game, names, matches, elo_ratings(names, results, anchor=anchor))
