"""boardzoo as a GTP 2 engine: ``boardzoo gtp`` plays Go on stdin/stdout for Sabaki, GoGui,
KGS clients or any GTP controller (the client side, to drive other engines, is
:mod:`boardzoo.gtp.client`).

The engine keeps its own game (board, move history for ``undo``, superko history), asks its
agent (an ``MCTSAgent`` by default, or any agent spec such as ``alphazero:...``) for
``genmove`` and never asks another engine. Rules come from the command line (area scoring
with ``komi``, the ``ko`` rule, ``suicide``) and are shown by ``version`` and
``boardzoo-rules``.

Replies follow GTP 2: ``=[id] result`` or ``?[id] message``, each ended by a blank line; a
failing command leaves the engine running and the position unchanged. The messages start
with the specification's phrases (``unknown command``, ``illegal move``, ``syntax error``,
``unacceptable size``, ``cannot undo``, ``cannot load file``) and then say what was wrong.

Go is the knowledge's, as in every front-end: every agent (``random``, ``gnugo`` too) plays
by Go's rules of play (:mod:`boardzoo.knowledge.go.move_rules`, ``kgs-genmove_cleanup`` their
clean-up move), the scores are :func:`boardzoo.knowledge.go.final_score`'s.

Time: ``time_settings`` / ``kgs-time_settings`` become a
:class:`~boardzoo.timecontrol.TimeControl` (:func:`gtp_time_control`) run by a
:class:`~boardzoo.timecontrol.GameClock`: ``genmove`` charges its own wall time (from the
moment the command line arrived) to it, ``time_left`` overrides it with the controller's
word, and the agent gets a :class:`~boardzoo.timecontrol.ClockView` of what is left less
:data:`TIME_MARGIN` per move (:func:`move_clock`). Without time settings a spec's own budget
(:data:`BUDGET_OPTIONS`) decides, and an agent without one gets ``move_time`` a move. With
``ponder=True`` it searches the opponent's position until the next command line arrives.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

import numpy as np

from boardzoo import __version__
from boardzoo.agents import check_agent_plays, make_agent, parse_agent_spec
from boardzoo.agents.mcts.parallel import available_cores
from boardzoo.agents.move import by_rules_of_play
from boardzoo.envs.aec import BoardGameEnv
from boardzoo.envs.core import ONGOING, OUTCOME, PLY, TO_PLAY
from boardzoo.envs.go import Go
from boardzoo.envs.go_board import KO_RULES, MAX_MOVES, MAX_SIZE
from boardzoo.errors import BoardzooError, InvalidOptionError, excerpt
from boardzoo.gtp import syntax
from boardzoo.gtp.clock import TIME_MARGIN, gtp_time_control, move_clock
from boardzoo.gtp.record import GtpRecord, Unloadable, load_record
from boardzoo.gtp.syntax import GtpFailure, arity, checked_komi, colour, integer, seconds
from boardzoo.knowledge.go.move_rules import cleanup_move
from boardzoo.knowledge.go.scoring import chains, final_score
from boardzoo.options import parse_int
from boardzoo.timecontrol import ClockView, GameClock, TimeControl, call_act

__all__ = ["DEFAULT_MOVE_TIME", "MAX_THREADS", "GoGtpEngine", "default_agent"]

MAX_THREADS = 8
"""Trees the default agent searches at most, one per core (root parallelism): each more
tree adds less, and each holds its own nodes."""
DEFAULT_MOVE_TIME = 1.0
"""Seconds a move is given while the controller has set no time (``--move-time``)."""
BUDGET_OPTIONS = frozenset({"time_limit", "simulations", "depth"})
"""Agent spec options that set a move's budget: with one, ``--move-time`` does not cap it
(``mcts:time_limit=2`` searches 2 s a move while the controller sets no time)."""
STATUSES = ("alive", "dead", "seki")


def default_agent(cores: int | None = None) -> str:
    """The agent ``boardzoo gtp`` plays unless told otherwise: ``MCTSAgent`` with the Go
    defaults, searching one tree per core (``cores``, by default those this process may run
    on; at most ``MAX_THREADS``), as a Go engine uses the machine it is given."""
    threads = min(MAX_THREADS, max(1, available_cores() if cores is None else cores))
    return "mcts" if threads == 1 else f"mcts:threads={threads}"


class GoGtpEngine:
    """The GTP 2 command handlers over one Go game (see the module docstring).

    ``handle(line)`` answers one command line with the full reply text (``"= ...\\n\\n"``);
    ``finished`` turns True after ``quit``.
    """

    def __init__(
        self,
        agent: str | None = None,
        board_size: int = 19,
        komi: float = 7.5,
        ko: str = "positional",
        suicide: bool = False,
        seed: int | None = None,
        resign_below: float | None = None,
        ponder: bool = False,
        time_margin: float = TIME_MARGIN,
        move_time: float | None = DEFAULT_MOVE_TIME,
    ):
        if ko not in KO_RULES:
            raise InvalidOptionError(f"ko={excerpt(ko)} is not allowed: use one of {KO_RULES}")
        if resign_below is not None and not -1.0 <= resign_below <= 1.0:
            raise InvalidOptionError(
                f"resign_below={excerpt(resign_below)}: use a value in [-1, 1]")
        if not 0 <= time_margin < 60:
            raise InvalidOptionError(f"time_margin={time_margin!r}: give seconds in [0, 60)")
        if move_time is not None and not 0 < move_time <= 3600:
            raise InvalidOptionError(
                f"move_time={move_time!r}: give seconds in (0, 3600], or None for the agent's "
                "own budget")
        self.agent_spec = agent or default_agent()
        self.agent = make_agent(self.agent_spec, seed=seed)
        if resign_below is not None and not hasattr(self.agent, "last_search"):
            raise InvalidOptionError(
                f"resign_below: agent {excerpt(self.agent_spec)} does not search, so it has "
                "no value to resign by; the searching agents (alphabeta, mcts, alphazero) can")
        self.ko, self.suicide = ko, bool(suicide)
        self.resign_below = resign_below
        self.ponders, self.time_margin = bool(ponder), float(time_margin)
        self.clock: GameClock | None = None  # None: no time limits
        # without time settings each move gets move_time, as a guide (no deadline, no
        # margin), unless the spec names the agent's own budget: that one decides alone
        own_budget = not BUDGET_OPTIONS.isdisjoint(parse_agent_spec(self.agent_spec)[1])
        self.free_clock = None if move_time is None or own_budget else GameClock(
            TimeControl(per_move=move_time))
        self.last_clock: ClockView | None = None  # what the last genmove's agent was given
        self._received = time.monotonic()  # when the command being handled arrived
        self._ponder_state: np.ndarray | None = None  # the position after our last genmove
        self.finished = False
        size = syntax.checked_size(board_size)
        self.record = GtpRecord(self._make_game(size, checked_komi(komi)))
        self._handlers: dict[str, Callable[[list[str]], str]] = {
            "protocol_version": lambda args: "2",
            "name": lambda args: "boardzoo",
            "version": lambda args: f"{__version__} ({self.rules_text()}; {self.clock_text()})",
            "known_command": self._known_command,
            "list_commands": lambda args: "\n".join(self._handlers),
            "quit": self._quit,
            "boardsize": self._boardsize,
            "clear_board": self._clear_board,
            "komi": self._komi,
            "play": self._play_command,
            "genmove": lambda args: self._genmove(args, cleanup=False),
            "kgs-genmove_cleanup": lambda args: self._genmove(args, cleanup=True),
            "undo": self._undo,
            "showboard": lambda args: "\n" + self._board_text(),
            "final_score": lambda args: self._final_score(),
            "final_status_list": self._final_status_list,
            "time_settings": self._time_settings,
            "kgs-time_settings": self._kgs_time_settings,
            "time_left": self._time_left,
            "loadsgf": self._loadsgf,
            "boardzoo-rules": lambda args: self.rules_text(),
        }
        # the agent's search compiles while the controller sets up; genmove waits for it
        self._warm_up = threading.Thread(target=self._prepare_agent, daemon=True,
                                         name="boardzoo-gtp-warm-up")
        self._warm_up.start()

    # -------------------------------------------------------------------------- protocol
    def handle(self, line: str, received: float | None = None) -> str | None:
        """The reply to one input line (None for an empty or comment-only line);
        ``received``: when it arrived (``time.monotonic``; default now), from which a genmove
        is charged to the clock."""
        self._received = time.monotonic() if received is None else received
        text = syntax.preprocess(line)
        if not text:
            return None
        words = text.split()
        ident = ""
        if parse_int(words[0], max_digits=18) is not None:
            ident, words = words[0], words[1:]
            if not words:
                return f"?{ident} syntax error: a command is needed after the id\n\n"
        name, args = words[0], words[1:]
        handler = self._handlers.get(name)
        try:
            if handler is None:
                raise GtpFailure(f"unknown command: {excerpt(name)} (list_commands lists them)")
            result = handler(args)
        except GtpFailure as err:
            return f"?{ident} {err}\n\n"
        except BoardzooError as err:  # bad input deeper down: still a GTP failure
            return f"?{ident} {err}\n\n"
        return f"={ident} {result}".rstrip(" ") + "\n\n"

    def rules_text(self) -> str:
        """One line: the rules this engine plays by and its agent."""
        return (
            f"area scoring, komi {self.game.komi:g}, ko {self.ko}, suicide "
            f"{'allowed' if self.suicide else 'forbidden'}; agent {self.agent_spec}"
        )

    def clock_text(self) -> str:
        """One line: the time control in force and whether the engine ponders."""
        ponders = "ponders on the opponent's time" if self.ponders else "no pondering"
        if self.clock is not None:
            return (f"time control {self.clock.control}, {self.time_margin:g} s kept back per "
                    f"move; {ponders}")
        if self.free_clock is not None:
            return (f"no time limits set: {self.free_clock.control.per_move:g} s per move; "
                    f"{ponders}")
        return f"no time limits (the agent's own budget per move); {ponders}"

    # ---------------------------------------------------------------------- the position
    @property
    def size(self) -> int:
        return self.game.size

    @property
    def game(self) -> Go:
        """The rules of the game being played."""
        return self.record.game

    @property
    def state(self) -> np.ndarray:
        """The current state (a copy)."""
        return self.record.state

    def _make_game(self, size: int, komi: float) -> Go:
        """The engine's rules on a ``size`` board with ``komi``; InvalidOptionError (the
        old game kept) where the agent cannot play them (a network trained for others)."""
        game = Go(board_size=size, komi=komi, ko=self.ko, suicide=self.suicide)
        check_agent_plays(self.agent, game)
        return game

    def env(self, seat: int) -> BoardGameEnv:
        """A Go env at the current position with ``seat`` to move, for the agent."""
        return self.record.env(seat)

    # ------------------------------------------------------------------- admin commands
    def _known_command(self, args: list[str]) -> str:
        arity(args, 1, "known_command COMMAND")
        return "true" if args[0] in self._handlers else "false"

    def _quit(self, args: list[str]) -> str:
        self.finished = True
        return ""

    def _boardsize(self, args: list[str]) -> str:
        arity(args, 1, "boardsize SIZE")
        size = integer(args[0], "boardsize SIZE")
        if not 2 <= size <= MAX_SIZE:
            raise GtpFailure(f"unacceptable size: {size} (boardzoo plays 2..{MAX_SIZE})")
        self._new_game(GtpRecord(self._make_game(size, self.game.komi)))
        return ""

    def _clear_board(self, args: list[str]) -> str:
        arity(args, 0, "clear_board")
        self._new_game(GtpRecord(self.game))
        return ""

    def _new_game(self, record: GtpRecord) -> None:
        """A new game, ``record``, and both clocks full."""
        self.record = record
        if self.clock is not None:
            self.clock = GameClock(self.clock.control)

    def _komi(self, args: list[str]) -> str:
        arity(args, 1, "komi KOMI")
        try:
            komi = float(args[0])
        except ValueError:
            raise GtpFailure(f"syntax error: komi {args[0]!r} is not a number") from None
        self.record = self.record.replayed(self._make_game(self.size, checked_komi(komi)))
        return ""

    # -------------------------------------------------------------------- moves
    def _action(self, text: str) -> int:
        try:
            return self.game.str_to_action(text)
        except BoardzooError as err:
            raise GtpFailure(f"syntax error: {err}") from None

    def _play_command(self, args: list[str]) -> str:
        arity(args, 2, "play COLOUR VERTEX")
        self.record.play(colour(args[0]), self._action(args[1]))
        return ""

    def _genmove(self, args: list[str], cleanup: bool) -> str:
        """Choose, play and answer a move for the colour given (``resign`` if allowed)."""
        arity(args, 1, "genmove COLOUR")
        seat = colour(args[0])
        if self.state[PLY] >= self.state[MAX_MOVES]:
            limit = self.state[MAX_MOVES]
            raise GtpFailure(f"the game has reached boardzoo's limit of {limit} plies")
        if self.clock is not None:
            self.clock.start(seat, now=self._received)
        try:
            action = self._choose(seat, cleanup)
            if action is None:
                return "resign"
            self.record.play(seat, action)
        finally:
            if self.clock is not None:
                self.clock.stop()
        self._ponder_state = self.record.states[-1]
        return self.game.action_to_str(action)

    def _choose(self, seat: int, cleanup: bool) -> int | None:
        """The agent's move for ``seat`` (None: resign) by Go's rules of play, an agent's
        without a search too; with ``cleanup``, the clean-up phase's move."""
        env = self.env(seat)
        waited = self._await_warm_up()
        spent = time.monotonic() - self._received
        if self.clock is not None:  # the controller's clock counts the wait
            self.last_clock = move_clock(self.clock, seat, spent, self.time_margin)
        else:
            self.last_clock = None if self.free_clock is None else move_clock(
                self.free_clock, seat, spent - waited, 0.0)
        action = int(call_act(self.agent, env, self.last_clock))
        search = getattr(self.agent, "last_search", None)
        if search is None:  # no searching agent's pipeline applied Go's rules of play
            action = by_rules_of_play(self.game, env.state_array, action, None)
        elif self.resign_below is not None and search.value < self.resign_below:
            return None
        visits = None if search is None else search.visits
        return cleanup_move(self.game, env.state_array, action, visits) if cleanup else action

    def ponder(self, stop: threading.Event) -> bool:
        """With ``ponders``, right after this engine's genmove: search the opponent's
        position (the agent's ``ponder``, keeping its tree for the reply) until ``stop`` is
        set. False when there is nothing to ponder or the agent cannot (it just waits)."""
        state, self._ponder_state = self._ponder_state, None
        if not self.ponders or state is None or state is not self.record.states[-1]:
            return False
        if not hasattr(self.agent, "ponder") or state[OUTCOME] != ONGOING:
            return False
        env = self.env(int(state[TO_PLAY]))
        if env.game.is_terminal(env.state_array):
            return False
        self.agent.ponder(env, stop=stop)
        return True

    # ------------------------------------------------------------------- history
    def _undo(self, args: list[str]) -> str:
        arity(args, 0, "undo")
        if not self.record.undo():
            raise GtpFailure("cannot undo: no move has been played")
        return ""

    def _loadsgf(self, args: list[str]) -> str:
        """``loadsgf FILE [MOVE_NUMBER]``: the game of the file up to the position before
        move MOVE_NUMBER (1 = the first move; default: all of it); the old game is kept when
        the file cannot be played."""
        if len(args) not in (1, 2):
            raise GtpFailure("syntax error: use loadsgf FILE [MOVE_NUMBER]")
        limit = None
        if len(args) == 2:
            limit = integer(args[1], "loadsgf MOVE_NUMBER") - 1
            if limit < 0:
                raise GtpFailure("syntax error: loadsgf MOVE_NUMBER counts from 1 (the first move)")
        path = args[0]
        try:
            record = load_record(path, limit, lambda size, komi: self._make_game(
                size, self.game.komi if komi is None else checked_komi(komi)))
        except Unloadable as err:
            shown = path if path.isprintable() else repr(path)
            raise GtpFailure(f"cannot load file: {shown}: {err}") from None
        self._new_game(record)
        return ""

    # -------------------------------------------------------------------- scoring
    def _final_score(self) -> str:
        return final_score(self.game, self.state).text

    def _final_status_list(self, args: list[str]) -> str:
        """Chains of the status asked, one per line (seki is not recognised: always none)."""
        arity(args, 1, "final_status_list alive|dead|seki")
        status = args[0].lower()
        if status not in STATUSES:
            raise GtpFailure(f"syntax error: status {args[0]!r}; use alive, dead or seki")
        if status == "seki":
            return ""
        dead = final_score(self.game, self.state).dead
        listed = dead if status == "dead" else [
            c for c in chains(self.game.cells(self.state).ravel(), self.size) if c not in dead]
        return "\n".join(" ".join(self.game.action_to_str(a) for a in c) for c in listed)

    def _board_text(self) -> str:
        from boardzoo.envs.render import render_ansi

        state = self.state
        black, white = self.game.captures(state)
        board = render_ansi(self.game, state).rstrip("\n").split("\n")[:-1]  # no status line
        to_move = "black (X)" if state[TO_PLAY] == 0 else "white (O)"
        counts = f"captured by black: {black}, by white: {white}"
        return "\n".join(board) + f"\n{to_move} to move; {counts}"

    # ---------------------------------------------------------------------- time
    def _time_settings(self, args: list[str]) -> str:
        arity(args, 3, "time_settings MAIN_TIME BYO_YOMI_TIME BYO_YOMI_STONES")
        main, byo = (seconds(a, "time_settings") for a in args[:2])
        self._set_time_control(gtp_time_control(main, byo, integer(args[2], "time_settings")))
        return ""

    def _kgs_time_settings(self, args: list[str]) -> str:
        """``none``, ``absolute MAIN``, ``byoyomi MAIN PERIOD_TIME PERIODS`` (Japanese) or
        ``canadian MAIN BYO_YOMI_TIME STONES``."""
        usage = ("kgs-time_settings none|absolute MAIN|byoyomi MAIN TIME PERIODS|"
                 "canadian MAIN TIME STONES")
        if not args:
            raise GtpFailure(f"syntax error: use {usage}")
        kind, values = args[0].lower(), args[1:]
        counts = {"none": 0, "absolute": 1, "byoyomi": 3, "canadian": 3}
        if kind not in counts or len(values) != counts[kind]:
            raise GtpFailure(f"syntax error: use {usage}")
        control = None
        if kind != "none":
            main = seconds(values[0], usage)
            byo, count = ((seconds(values[1], usage), integer(values[2], usage))
                          if kind != "absolute" else (0.0, 0))
            control = gtp_time_control(main, byo, count, japanese=kind == "byoyomi")
        self._set_time_control(control)
        return ""

    def _set_time_control(self, control: TimeControl | None) -> None:
        """Both clocks full under ``control`` (None: no time limits); the agent's search is
        compiled (the start-up warm-up finished) before this answers, so no move pays for it."""
        self.clock = None if control is None else GameClock(control)
        if control is not None:
            self._await_warm_up()  # the start-up compilation, not charged to any move

    def _prepare_agent(self) -> None:
        """Compile the agent's search on an empty board of the engine's game: the live
        position is not this thread's to read (commands change it meanwhile; a loadsgf
        half-applied once made the position unplayable here)."""
        if hasattr(self.agent, "prepare"):
            env = BoardGameEnv(self.game, illegal_action="raise")
            env.reset()
            self.agent.prepare(env)

    def _await_warm_up(self) -> float:
        """Wait for the start-up compilation of the agent's search; the seconds waited."""
        start = time.monotonic()
        self._warm_up.join()
        return time.monotonic() - start

    def _time_left(self, args: list[str]) -> str:
        """``time_left COLOUR TIME STONES``: the controller's word on that colour's clock
        (STONES 0: main time; else in byo-yomi: Canadian, the period's time and stones
        left; Japanese, the periods left, as KGS sends it). Without time settings it is
        taken as absolute time (or a Canadian period of TIME for STONES stones)."""
        arity(args, 3, "time_left COLOUR TIME STONES")
        seat = colour(args[0])
        left, stones = seconds(args[1], "time_left"), integer(args[2], "time_left")
        if self.clock is None:
            control = gtp_time_control(0.0, left, stones) if stones else (
                gtp_time_control(left, 0.0, 0))
            if control is None:  # time_left b 0 0 without settings: nothing to go by
                return ""
            self._set_time_control(control)
        assert self.clock is not None
        self.clock.set_remaining(seat, left, stones)
        return ""


