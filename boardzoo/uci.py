"""boardzoo as a UCI chess engine: ``boardzoo uci`` plays chess on stdin/stdout for chess GUIs
(Cute Chess, Arena, Banksia), cutechess-cli and python-chess's ``chess.engine``.

The engine keeps the position the GUI sent (``position startpos|fen FEN [moves ...]``, the
moves replayed so that repetitions count) and asks its agent (``AlphaBetaAgent`` by default,
or any agent spec) for the move; it only speaks the protocol and runs the clock, the agent
does the thinking. Supported: ``uci``, ``isready``, ``ucinewgame``, ``position``, ``go``
with ``movetime``, ``wtime``/``btime``/``winc``/``binc``/``movestogo``, ``depth``,
``nodes`` and ``infinite``, ``stop``, ``setoption name Move Overhead value MS``, ``quit``.

A ``go`` searches in a thread, so that ``stop``, ``isready`` and ``quit`` are answered while
it runs; ``stop`` sets the search's stop event (the agent returns its best move so far).
After each completed iteration the engine writes ``info depth D score cp X|mate N nodes N nps N
time MS pv ...`` and at the end ``bestmove``; under ``go infinite`` the ``bestmove`` waits for
``stop``, as the protocol asks. A ``go`` without any limit gives the agent its own budget
per move (alpha-beta: one second).

Time: ``movetime`` is a fixed time per move; ``wtime``/``btime`` (with increments and
``movestogo``) become a :class:`~boardzoo.timecontrol.ClockView` of the side to move, from
which the agent's :func:`~boardzoo.timecontrol.move_budget` decides the move's time. Both are
less the move overhead (:data:`MOVE_OVERHEAD_MS`): the GUI's and the engine's own lag.
``depth`` limits an alpha-beta agent's iterations; ``nodes`` stops the search after the
iteration (alpha-beta) or round (MCTS) in which the count is reached.

Bad input (an unknown command, an illegal move, a broken FEN, a bad number) is answered by one
``info string`` line saying what was wrong and what is allowed; the engine goes on with the
position it had.
"""

from __future__ import annotations

import math
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import IO, Any

from boardzoo import __version__, compile_progress
from boardzoo.agents import check_agent_plays, make_agent
from boardzoo.analysis import EXACT, Analysis
from boardzoo.envs import make_env
from boardzoo.envs.aec import BoardGameEnv
from boardzoo.errors import BoardzooError, excerpt
from boardzoo.knowledge.chess import centipawns
from boardzoo.timecontrol import ClockView, call_act

__all__ = ["DEFAULT_AGENT", "MOVE_OVERHEAD_MS", "UciEngine", "UciError", "serve"]

DEFAULT_AGENT = "alphabeta"
"""The agent ``boardzoo uci`` plays unless told otherwise (alpha-beta with chess's knowledge)."""
MOVE_OVERHEAD_MS = 50
"""Milliseconds kept back from every move's time for the GUI's lag and the engine's own work
(UCI option ``Move Overhead``)."""
MAX_OVERHEAD_MS = 5000
START_FEN = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
#: seconds an "unlimited" search is given (``go infinite``, or ``depth``/``nodes`` alone)
UNLIMITED = 1e7
#: what ``go`` accepts: keyword -> whether a number follows
GO_WORDS = {"movetime": True, "wtime": True, "btime": True, "winc": True, "binc": True,
            "movestogo": True, "depth": True, "nodes": True, "mate": True, "infinite": False}


class UciError(BoardzooError):
    """Input the engine cannot act on: answered ``info string <message>``, the engine runs on."""


@dataclass(frozen=True)
class GoLimits:
    """What one ``go`` asked for (times in milliseconds; None: not given)."""

    movetime: int | None = None
    wtime: int | None = None
    btime: int | None = None
    winc: int = 0
    binc: int = 0
    movestogo: int | None = None
    depth: int | None = None
    nodes: int | None = None
    infinite: bool = False

    def clock(self, seat: int, overhead_ms: int) -> ClockView | None:
        """The clock of ``seat`` (0 white, 1 black) less the overhead; None: the agent's own
        budget, or no time limit at all when depth, nodes or infinite were given."""
        if self.movetime is not None:
            return ClockView.fixed(max(1, self.movetime - overhead_ms) / 1000)
        remaining = (self.wtime, self.btime)[seat]
        if remaining is not None:
            other = (self.btime, self.wtime)[seat]
            return ClockView(remaining=max(1, remaining - overhead_ms) / 1000,
                             increment=(self.winc, self.binc)[seat] / 1000,
                             moves_to_go=self.movestogo,
                             opponent_remaining=None if other is None else other / 1000)
        if self.infinite or self.depth is not None or self.nodes is not None:
            return ClockView.fixed(UNLIMITED)
        return None


def parse_go(words: list[str]) -> GoLimits:
    """The limits of ``go`` from its words; UciError for an unknown word or a bad number."""
    values: dict[str, Any] = {}
    i = 0
    while i < len(words):
        word = words[i]
        if word not in GO_WORDS:
            raise UciError(f"go: unknown word {excerpt(word)}; use {', '.join(GO_WORDS)}")
        if not GO_WORDS[word]:
            values[word] = True
            i += 1
            continue
        if i + 1 >= len(words):
            raise UciError(f"go {word}: a number is needed after it")
        try:
            number = int(words[i + 1])
        except ValueError:
            raise UciError(f"go {word} {excerpt(words[i + 1])}: give a whole number") from None
        least = 1 if word in ("depth", "nodes", "movestogo", "mate") else 0
        if word in ("wtime", "btime"):
            least = -(10**9)  # a GUI may report a clock that has run a little over
        if number < least:
            raise UciError(f"go {word} {number}: give a number >= {least}")
        values[word] = number
        i += 2
    if "mate" in values:
        values["depth"] = 2 * values.pop("mate") - 1  # a mate in N lies within 2N-1 plies
    return GoLimits(**values)


class UciEngine:
    """The UCI command handlers over one chess position (see the module docstring).

    ``handle(line)`` acts on one input line, writing replies through ``write`` (a function
    taking one line, thread-safe here); ``finished`` turns True after ``quit``.
    """

    def __init__(self, agent: str | None = None, seed: int | None = None,
                 write: Callable[[str], None] | None = None):
        self.agent_spec = agent or DEFAULT_AGENT
        self.agent = make_agent(self.agent_spec, seed=seed)
        self.seed = seed
        self._write_line = write or _stdout_writer()
        self._lock = threading.Lock()
        self.move_overhead_ms = MOVE_OVERHEAD_MS
        self.env = self._position_env(START_FEN, [])
        check_agent_plays(self.agent, self.env.game)
        self.finished = False
        self._search: threading.Thread | None = None
        self._infinite = False
        self._stop = threading.Event()
        self._handlers: dict[str, Callable[[list[str]], None]] = {
            "uci": self._uci, "isready": self._isready, "ucinewgame": self._ucinewgame,
            "position": self._position, "go": self._go, "stop": lambda args: self._halt(),
            "quit": self._quit, "setoption": self._setoption, "debug": lambda args: None,
        }
        # the agent's search compiles while the GUI sets up; isready and go wait for it
        self._warm_up = threading.Thread(target=self._prepare_agent, daemon=True,
                                         name="boardzoo-uci-warm-up")
        self._warm_up.start()

    # -------------------------------------------------------------------------- protocol
    def handle(self, line: str) -> None:
        """Act on one input line (empty lines are ignored)."""
        words = line.split()
        if not words:
            return
        name, args = words[0], words[1:]
        handler = self._handlers.get(name)
        try:
            if handler is None:
                raise UciError(f"unknown command {excerpt(name)}; use one of "
                               f"{', '.join(self._handlers)}")
            handler(args)
        except BoardzooError as err:
            self.say(f"info string {_one_line(str(err))}")

    def say(self, line: str) -> None:
        """Write one line to the GUI (from any thread)."""
        with self._lock:
            self._write_line(line)

    # -------------------------------------------------------------------------- commands
    def _uci(self, args: list[str]) -> None:
        self.say(f"id name boardzoo {__version__} ({self.agent_spec})")
        self.say("id author the boardzoo authors")
        self.say(f"option name Move Overhead type spin default {MOVE_OVERHEAD_MS} min 0 "
                 f"max {MAX_OVERHEAD_MS}")
        self.say("uciok")

    def _isready(self, args: list[str]) -> None:
        self._warm_up.join()
        self.say("readyok")

    def _ucinewgame(self, args: list[str]) -> None:
        self._halt()
        self.env = self._position_env(START_FEN, [])
        reseed = getattr(self.agent, "reseed", None)
        if reseed is not None:
            reseed(self.seed)

    def _setoption(self, args: list[str]) -> None:
        text = " ".join(args)
        name, _, value = text.partition(" value ")
        if name.removeprefix("name ").strip().lower() != "move overhead":
            raise UciError(f"setoption: unknown option {excerpt(text)}; the option is "
                           "'Move Overhead' (milliseconds)")
        try:
            overhead = int(value)
        except ValueError:
            overhead = -1
        if not 0 <= overhead <= MAX_OVERHEAD_MS:
            raise UciError(f"setoption Move Overhead {excerpt(value)}: give whole "
                           f"milliseconds 0..{MAX_OVERHEAD_MS}")
        self.move_overhead_ms = overhead

    def _position(self, args: list[str]) -> None:
        self._halt()
        if not args or args[0] not in ("startpos", "fen"):
            raise UciError("position: use 'position startpos [moves ...]' or "
                           "'position fen FEN [moves ...]'")
        rest = args[1:]
        moves: list[str] = []
        if "moves" in rest:
            at = rest.index("moves")
            rest, moves = rest[:at], rest[at + 1:]
        if args[0] == "startpos":
            if rest:
                raise UciError(f"position startpos: unexpected {excerpt(' '.join(rest))} "
                               "before 'moves'")
            fen = START_FEN
        else:
            fen = " ".join(rest)
        self.env = self._position_env(fen, moves)

    def _go(self, args: list[str]) -> None:
        self._halt()
        limits = parse_go(args)
        if self.env.game.is_terminal(self.env.state_array):
            raise UciError("go: the game is over in this position (no legal move)")
        self._warm_up.join()
        self._infinite = limits.infinite
        self._stop = threading.Event()
        self._search = threading.Thread(target=self._think, args=(limits, self._stop),
                                        daemon=True, name="boardzoo-uci-search")
        self._search.start()

    def _quit(self, args: list[str]) -> None:
        self._halt()
        self.finished = True

    def end_of_input(self) -> None:
        """The input has ended: a search with a limit finishes and answers ``bestmove``
        (an infinite one is stopped), then the engine quits."""
        if self._search is not None and not self._infinite:
            self._search.join()
        self._quit([])

    # ---------------------------------------------------------------------- the search
    def _halt(self) -> None:
        """Stop a running search and wait for its ``bestmove``."""
        if self._search is not None:
            self._stop.set()
            self._search.join()
            self._search = None

    def _think(self, limits: GoLimits, stop: threading.Event) -> None:
        """One ``go``: search, report, and answer ``bestmove`` (after ``stop`` when
        infinite)."""
        env = self.env
        clock = limits.clock(env.game.to_play(env.state_array), self.move_overhead_ms)
        try:
            action = self._best_action(env, clock, limits, stop)
        except BoardzooError as err:
            self.say(f"info string {_one_line(str(err))}")
            action = env.game.legal_actions(env.state_array)[0]
        if limits.infinite:
            stop.wait()
        self.say(f"bestmove {env.action_to_str(action)}")

    def _best_action(self, env: BoardGameEnv, clock: ClockView | None, limits: GoLimits,
                     stop: threading.Event) -> int:
        """The agent's move, with ``info`` lines from its search when it reports any."""
        search = getattr(self.agent, "search", None)
        if search is None:
            return call_act(self.agent, env, clock)

        def progress(analysis: Analysis) -> None:
            self.say(info_line(analysis))
            if limits.nodes is not None and analysis.nodes >= limits.nodes:
                stop.set()

        with _depth_limit(self.agent, limits.depth):
            result = search(env, clock=clock, on_progress=progress, stop=stop)
        final = getattr(self.agent, "last_analysis", None)
        if final is not None and result.engine != "alphabeta":
            self.say(info_line(final))  # alpha-beta reported each depth
        return int(result.action)

    def _prepare_agent(self) -> None:
        prepare = getattr(self.agent, "prepare", None)
        if prepare is not None:
            prepare(self._position_env(START_FEN, []))

    def _position_env(self, fen: str, moves: list[str]) -> BoardGameEnv:
        """A chess env at ``fen`` after ``moves`` (UCI text); UciError for a bad FEN or an
        illegal move, naming it."""
        env = make_env("chess", illegal_action="raise")
        try:
            env.reset(options={"position": fen})
        except BoardzooError as err:
            raise UciError(f"position fen {excerpt(fen)}: {_one_line(str(err))}") from None
        for ply, text in enumerate(moves):
            game, state = env.game, env.state_array
            try:
                action = env.str_to_action(text)
                legal = not game.is_terminal(state) and bool(game.legal_mask(state)[action])
            except BoardzooError:
                legal = False
            if not legal or not _is_uci(text):
                raise UciError(f"position: move {ply + 1} {excerpt(text)} is not legal in "
                               f"{env.position()}; moves are UCI text such as e2e4, e7e8q")
            env.step(action)
        return env


def info_line(analysis: Analysis) -> str:
    """A UCI ``info`` line for a search report: depth, score, nodes, nps, time and pv."""
    millis = max(1, round(analysis.elapsed * 1000))
    parts = [f"info depth {max(1, analysis.depth)}", f"score {uci_score(analysis)}",
             f"nodes {analysis.nodes}", f"nps {round(analysis.nodes * 1000 / millis)}",
             f"time {millis}"]
    if analysis.pv:
        parts.append("pv " + " ".join(analysis.pv))
    return " ".join(parts)


def uci_score(analysis: Analysis) -> str:
    """``mate N`` for a proven win (N > 0) or loss (N < 0) counted in moves along the
    principal variation, ``cp 0`` for a proven draw, else ``cp X`` from the side to move's
    view."""
    if analysis.proven in ("win", "loss"):
        plies = max(1, len(analysis.pv))
        return f"mate {(plies + 1) // 2}" if analysis.proven == "win" else f"mate -{plies // 2}"
    if analysis.unit == EXACT or not math.isfinite(analysis.value):
        return "cp 0"
    return f"cp {centipawns(analysis.value)}"


@contextmanager
def _depth_limit(agent: Any, depth: int | None) -> Iterator[None]:
    """The agent's ``depth`` set to ``depth`` for one search (agents that have one)."""
    if depth is None or not hasattr(agent, "depth"):
        yield
        return
    before = agent.depth
    agent.depth = depth
    try:
        yield
    finally:
        agent.depth = before


def _is_uci(text: str) -> bool:
    """Whether ``text`` looks like a UCI move (the env also reads SAN, which UCI does not
    allow)."""
    return len(text) in (4, 5) and text[:4].isalnum() and text[1].isdigit() and text[3].isdigit()


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _stdout_writer() -> Callable[[str], None]:
    def write(line: str) -> None:
        sys.stdout.write(line + "\n")
        sys.stdout.flush()
    return write


def serve(engine: UciEngine, stdin: IO[str] | None = None) -> None:
    """Act on UCI commands from ``stdin`` until ``quit`` or the end of input (after which a
    search with a limit still answers its ``bestmove``)."""
    stream = stdin or sys.stdin
    # a search compiling on first use (once per installation) is shown to the GUI as it goes
    with compile_progress.listening(lambda step: engine.say(f"info string {step.text()}")):
        while not engine.finished:
            line = stream.readline()
            if not line:
                engine.end_of_input()
                break
            engine.handle(line)
