"""Chess playing strength: boardzoo's default ``AlphaBetaAgent(time_limit=0.5)`` against
Stockfish (Debian's ``stockfish``, 15.1) limited to ``UCI_Elo`` levels, a ladder up from 1350.

Each level plays paired games from a small fixed book of balanced openings (:data:`BOOK`,
well-known main lines a few moves deep): every opening once with boardzoo as White and once
as Black. Both sides get the same time per move (``--move-time``, default 0.5 s); Stockfish
runs with ``Threads 1``, ``Hash 16``, ``UCI_LimitStrength true``. The ladder climbs
(1350, 1500, 1750, 2000, then +250) until boardzoo scores under 50% at a level
(``--levels`` names them instead). The rules are boardzoo's: the game ends as ``chess_v0``
ends it (checkmate, stalemate, insufficient material, threefold repetition, fifty moves).

Every finished game is appended to ``--results`` (JSON lines, one line written and
``fsync``-ed at a time; a partial last line from a killed run is ignored), so a rerun
resumes with the games not yet played. The table (score and its 95% Wilson interval from
:func:`boardzoo.ratings.score_interval`, and the performance rating those imply) is printed
and written as Markdown next to the results (``--table``).

Run (nice'd, one game at a time)::

    nice python -m benchmarks.chess_ladder --results benchmarks/results/chess_ladder.jsonl
    python -m benchmarks.chess_ladder --levels 1350 --openings 1 --max-plies 20 --move-time 0.05
"""

from __future__ import annotations

import argparse
import json
import math
import os
from collections.abc import Iterator
from pathlib import Path
from typing import NamedTuple

import chess
import chess.engine

from boardzoo.agents import AlphaBetaAgent
from boardzoo.bench.alphabeta import find_stockfish
from boardzoo.envs import make_env
from boardzoo.files import atomic_write_text
from boardzoo.ratings import score_interval

#: balanced openings (UCI moves from the start): main lines that theory rates about equal
BOOK: tuple[tuple[str, str], ...] = (
    ("Ruy Lopez, Morphy defence", "e2e4 e7e5 g1f3 b8c6 f1b5 a7a6 b5a4 g8f6"),
    ("Italian, Giuoco Piano", "e2e4 e7e5 g1f3 b8c6 f1c4 f8c5 c2c3 g8f6"),
    ("Sicilian, Najdorf", "e2e4 c7c5 g1f3 d7d6 d2d4 c5d4 f3d4 g8f6 b1c3 a7a6"),
    ("French, classical", "e2e4 e7e6 d2d4 d7d5 b1c3 g8f6 c1g5 f8e7"),
    ("Caro-Kann, classical", "e2e4 c7c6 d2d4 d7d5 b1c3 d5e4 c3e4 c8f5"),
    ("Queen's Gambit Declined", "d2d4 d7d5 c2c4 e7e6 b1c3 g8f6 c1g5 f8e7"),
    ("Slav", "d2d4 d7d5 c2c4 c7c6 g1f3 g8f6 b1c3 d5c4"),
    ("Nimzo-Indian", "d2d4 g8f6 c2c4 e7e6 b1c3 f8b4 e2e3 e8g8"),
    ("King's Indian", "d2d4 g8f6 c2c4 g7g6 b1c3 f8g7 e2e4 d7d6 g1f3 e8g8"),
    ("English, symmetrical", "c2c4 c7c5 b1c3 b8c6 g2g3 g7g6 f1g2 f8g7"),
)
#: the ladder's first rungs; then +250 until the score falls under 50%
FIRST_LEVELS = (1350, 1500, 1750, 2000)
STEP = 250
TOP_LEVEL = 2850  # Stockfish 15.1's highest UCI_Elo
AGENT = "alphabeta:time_limit=0.5"


class Game(NamedTuple):
    """One finished game: the level, the opening's index, boardzoo's colour ("white" or
    "black"), boardzoo's score (1, 1/2, 0), how it ended and the moves after the book."""

    level: int
    opening: int
    colour: str
    score: float
    end: str
    moves: list[str]


def play_game(agent: AlphaBetaAgent, engine: chess.engine.SimpleEngine, level: int,
              opening: int, colour: str, move_time: float, max_plies: int | None = None) -> Game:
    """One game from ``BOOK[opening]``, boardzoo playing ``colour``; ended by boardzoo's rules
    (or drawn, adjudicated, after ``max_plies`` plies beyond the book when given)."""
    engine.configure({"UCI_LimitStrength": True, "UCI_Elo": level})
    env = make_env("chess", illegal_action="raise")
    env.reset()
    game = env.game
    board = chess.Board()
    for text in BOOK[opening][1].split():
        env.step(env.str_to_action(text))
        board.push_uci(text)
    boardzoo_seat = 0 if colour == "white" else 1
    agent.reseed(opening)
    played: list[str] = []
    while not game.is_terminal(env.state_array):
        if max_plies is not None and len(played) >= max_plies:
            return Game(level, opening, colour, 0.5, "adjudicated", played)
        if game.to_play(env.state_array) == boardzoo_seat:
            text = env.action_to_str(agent.act(env))
        else:
            move = engine.play(board, chess.engine.Limit(time=move_time)).move
            if move is None:
                raise RuntimeError(f"Stockfish gave no move in {board.fen()}")
            text = move.uci()
        env.step(env.str_to_action(text))
        board.push_uci(text)
        played.append(text)
    returns = game.returns(env.state_array)
    return Game(level, opening, colour, (float(returns[boardzoo_seat]) + 1) / 2,
                _ending(board), played)


def _ending(board: chess.Board) -> str:
    """How a finished game ended, in python-chess's words (its own view of the position)."""
    outcome = board.outcome(claim_draw=True)
    return outcome.termination.name.lower() if outcome is not None else "other"


def load_games(path: Path) -> list[Game]:
    """The games stored in ``path`` (none if it does not exist; a partial last line, from a
    run killed while writing, is skipped)."""
    if not path.exists():
        return []
    games = []
    for line in path.read_text().splitlines():
        try:
            games.append(Game(**json.loads(line)))
        except (json.JSONDecodeError, TypeError):
            continue
    return games


def append_game(path: Path, game: Game) -> None:
    """Append one game as one JSON line, flushed to disk before returning."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a", encoding="utf-8") as out:
        out.write(json.dumps(game._asdict()) + "\n")
        out.flush()
        os.fsync(out.fileno())


class LevelScore(NamedTuple):
    """boardzoo's result at one level: games, points, score and its 95% interval."""

    level: int
    games: int
    points: float
    low: float
    high: float

    @property
    def score(self) -> float:
        return self.points / self.games if self.games else 0.0


def level_score(games: list[Game], level: int) -> LevelScore:
    """Points at ``level`` with the Wilson 95% interval of the mean score."""
    mine = [g for g in games if g.level == level]
    points = sum(g.score for g in mine)
    low, high = score_interval(points / len(mine), len(mine)) if mine else (0.0, 1.0)
    return LevelScore(level, len(mine), points, low, high)


def performance(level: int, score: float) -> float:
    """The Elo whose expected score against ``level`` is ``score`` (logistic model;
    +-inf at 1 and 0)."""
    if score <= 0.0:
        return -math.inf
    if score >= 1.0:
        return math.inf
    return level + 400.0 * math.log10(score / (1.0 - score))


def levels(given: list[int] | None) -> Iterator[int]:
    """The ladder's levels in order: those given, else 1350, 1500, 1750, 2000, 2250, ..."""
    if given:
        yield from given
        return
    yield from FIRST_LEVELS
    level = FIRST_LEVELS[-1] + STEP
    while level <= TOP_LEVEL:
        yield level
        level += STEP


def table(scores: list[LevelScore], move_time: float, openings: int) -> str:
    """The ladder as a Markdown table."""
    lines = [
        f"boardzoo `{AGENT}` against Stockfish 15.1 (Threads 1, Hash 16, UCI_LimitStrength), "
        f"{move_time:g} s a move each, {openings} book openings played with both colours.",
        "",
        "| UCI_Elo | games | boardzoo's points | score | 95% interval | performance (95%) |",
        "|---:|---:|---:|---:|---|---|",
    ]
    for s in scores:
        perf = (f"{_elo(performance(s.level, s.score))} "
                f"({_elo(performance(s.level, s.low))} .. {_elo(performance(s.level, s.high))})")
        lines.append(f"| {s.level} | {s.games} | {s.points:g} | {s.score:.1%} | "
                     f"{s.low:.1%} .. {s.high:.1%} | {perf} |")
    return "\n".join(lines) + "\n"


def _elo(value: float) -> str:
    return ("+inf" if value > 0 else "-inf") if math.isinf(value) else f"{value:.0f}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--results", type=Path,
                        default=Path("benchmarks/results/chess_ladder.jsonl"))
    parser.add_argument("--table", type=Path, default=None,
                        help="Markdown table (default: the results path with .md)")
    parser.add_argument("--levels", type=int, nargs="*", default=None)
    parser.add_argument("--openings", type=int, default=len(BOOK),
                        help=f"the first N book openings (1..{len(BOOK)})")
    parser.add_argument("--move-time", type=float, default=0.5)
    parser.add_argument("--max-plies", type=int, default=None,
                        help="adjudicate a draw after this many plies beyond the book")
    parser.add_argument("--stockfish", default=None, help="path (default: found on PATH)")
    args = parser.parse_args(argv)
    binary = args.stockfish or find_stockfish()
    if binary is None:
        raise SystemExit("Stockfish not found on PATH or at /usr/games/stockfish "
                         "(apt-get install stockfish)")
    if not 1 <= args.openings <= len(BOOK):
        raise SystemExit(f"--openings {args.openings}: use 1..{len(BOOK)}")
    agent = AlphaBetaAgent(time_limit=args.move_time, seed=0)
    games = load_games(args.results)
    scores: list[LevelScore] = []
    engine = chess.engine.SimpleEngine.popen_uci([binary])
    try:
        engine.configure({"Threads": 1, "Hash": 16})
        for level in levels(args.levels):
            done = {(g.opening, g.colour) for g in games if g.level == level}
            for opening in range(args.openings):
                for colour in ("white", "black"):
                    if (opening, colour) in done:
                        continue
                    played = play_game(agent, engine, level, opening, colour, args.move_time,
                                       args.max_plies)
                    append_game(args.results, played)
                    games.append(played)
                    print(f"UCI_Elo {level}: {BOOK[opening][0]}, boardzoo {colour}: "
                          f"{played.score:g} ({played.end}, {len(played.moves)} plies)",
                          flush=True)
            scores.append(level_score(games, level))
            if not args.levels and scores[-1].score < 0.5:
                break
    finally:
        engine.quit()
    text = table(scores, args.move_time, args.openings)
    atomic_write_text(args.table or args.results.with_suffix(".md"), text)
    print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
