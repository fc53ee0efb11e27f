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

Dead stones (``final_score``, ``final_status_list``, ``kgs-genmove_cleanup``) come from
ownership statistics: :data:`OWNERSHIP_PLAYOUTS` heuristic playouts from the current board
(:func:`boardzoo.knowledge.go.ownership_estimate_kernel`); a chain is dead when the mean
ownership of its points, from its own colour's view, is below :data:`DEAD_BELOW`.

Time: ``time_settings`` / ``kgs-time_settings`` become a
:class:`~boardzoo.timecontrol.TimeControl` (:func:`gtp_time_control`) run by a
:class:`~boardzoo.timecontrol.GameClock`: ``genmove`` charges its own wall time (from the
moment the command line arrived) to it, ``time_left`` overrides it with the controller's
word, and the agent gets a :class:`~boardzoo.timecontrol.ClockView` of what is left less
:data:`TIME_MARGIN` per move (:func:`move_clock`). Without time settings a spec's own budget
(:data:`BUDGET_OPTIONS`) decides, and an agent without one gets ``move_time`` a move. With
``ponder=True`` the engine searches the opponent's position after its genmove until the
next command line arrives (:func:`serve`).
"""

from __future__ import annotations

import dataclasses
import os
import queue
import stat
import sys
import threading
import time
from collections.abc import Callable, Iterable
from typing import IO, Any

import numpy as np

from boardzoo import __version__
from boardzoo.agents import check_agent_plays, make_agent, parse_agent_spec
from boardzoo.agents.mcts.parallel import available_cores
from boardzoo.envs.aec import AGENTS, BoardGameEnv
from boardzoo.envs.core import ONGOING, OUTCOME, PLY, TO_PLAY
from boardzoo.envs.go import Go
from boardzoo.envs.go_board import KO_RULES, MAX_MOVES, MAX_SIZE, grid, is_eye, to_point
from boardzoo.envs.sgf import SgfRecord, parse_sgf, write_sgf
from boardzoo.errors import BoardzooError, InvalidOptionError, excerpt
from boardzoo.knowledge.go import ownership_estimate_kernel
from boardzoo.options import parse_int
from boardzoo.rng import make_rng
from boardzoo.timecontrol import ClockView, GameClock, TimeControl, call_act

__all__ = ["DEFAULT_MOVE_TIME", "MAX_THREADS", "GtpFailure", "default_agent", "GoGtpEngine",
           "gtp_time_control", "move_clock", "serve"]

MAX_THREADS = 8
"""Trees the default agent searches at most, one per core (root parallelism): each more
tree adds less, and each holds its own nodes."""
DEFAULT_MOVE_TIME = 1.0
"""Seconds a move is given while the controller has set no time (``--move-time``)."""
BUDGET_OPTIONS = frozenset({"time_limit", "simulations", "depth"})
"""Agent spec options that set a move's budget: with one, ``--move-time`` does not cap it
(``mcts:time_limit=2`` searches 2 s a move while the controller sets no time)."""
OWNERSHIP_PLAYOUTS = 400
"""Playouts behind one dead-stone estimate (about 0.1 s on 19x19)."""
DEAD_BELOW = -0.2
"""A chain is dead when its points' mean ownership from its colour's view is below this."""
MAX_SGF_BYTES = 1 << 20
TIME_MARGIN = 0.25
"""Seconds kept back from the clock for every move still to make before time is given again
(one, or a Canadian period's stones): the engine's own work around the search (the position,
the pass and eye checks, the reply) and the controller's lag, so that it never loses on time
through them."""
COLOURS = {"b": 0, "black": 0, "w": 1, "white": 1}
STATUSES = ("alive", "dead", "seki")


def default_agent(cores: int | None = None) -> str:
    """The agent ``boardzoo gtp`` plays unless told otherwise: ``MCTSAgent`` with the Go
    defaults, searching one tree per core (``cores``, by default those this process may run
    on; at most ``MAX_THREADS``), as a Go engine uses the machine it is given."""
    threads = min(MAX_THREADS, max(1, available_cores() if cores is None else cores))
    return "mcts" if threads == 1 else f"mcts:threads={threads}"


class GtpFailure(BoardzooError):
    """A command that cannot be carried out: answered ``? message``, the engine runs on."""


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
        ownership_playouts: int = OWNERSHIP_PLAYOUTS,
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
        self.ko, self.suicide = ko, bool(suicide)
        self.resign_below = resign_below
        self.ownership_playouts = ownership_playouts
        self.rng = make_rng(seed)
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
        self._game = self._make_game(_checked_size(board_size), _checked_komi(komi))
        self._clear()
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
        text = _preprocess(line)
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
            f"area scoring, komi {self._game.komi:g}, ko {self.ko}, suicide "
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
        return self._game.size

    @property
    def state(self) -> np.ndarray:
        """The current state (a copy)."""
        return self._states[-1].copy()

    def _make_game(self, size: int, komi: float) -> Go:
        """The engine's rules on a ``size`` board with ``komi``; InvalidOptionError (the
        old game kept) where the agent cannot play them (a network trained for others)."""
        game = Go(board_size=size, komi=komi, ko=self.ko, suicide=self.suicide)
        check_agent_plays(self.agent, game)
        return game

    def _clear(self, start: SgfRecord | None = None) -> None:
        """An empty board (or the setup of ``start``) with no moves played."""
        self._start = start or SgfRecord(self.size, None, (), (), (), None)
        self._moves: list[tuple[int, int]] = []  # (seat, action)
        self._states = [self._game.parse_position(write_sgf(self._start, game=1))]

    def _apply(self, seat: int, action: int) -> None:
        """Play ``action`` for ``seat`` (whoever is to move: GTP colours need not alternate;
        play may go on after two passes). GtpFailure if it is illegal."""
        state = self._position_for(seat)
        if state[PLY] >= state[MAX_MOVES]:
            raise GtpFailure(
                f"illegal move: the game has reached boardzoo's limit of {state[MAX_MOVES]} plies"
            )
        if not self._game.legal_mask(state)[action]:
            vertex = self._game.action_to_str(action)
            raise GtpFailure(
                f"illegal move: {'BW'[seat]} {vertex} (occupied, suicide or a ko/superko "
                f"repetition under ko={self.ko}, suicide={self.suicide})"
            )
        self._game.kernels.apply(state, action)
        self._moves.append((seat, action))
        self._states.append(state)

    def _rebuild(self, game: Go) -> None:
        """Replay the setup and every move under ``game`` (another komi or board)."""
        moves = self._moves
        self._game = game
        self._clear(self._start)
        for seat, action in moves:
            self._apply(seat, action)

    def _position_for(self, seat: int) -> np.ndarray:
        """The current state with ``seat`` to move and the game open (play may go on)."""
        state = self.state
        state[OUTCOME] = ONGOING
        state[TO_PLAY] = seat
        return state

    def env(self, seat: int) -> BoardGameEnv:
        """A Go env at the current position with ``seat`` to move, for the agent.

        An env's history must be one game, so passes that ended the game before play went on
        are left out (a pass pair changes no position); if the history still cannot be
        replayed under the rules, the agent gets the board as setup stones."""
        env = BoardGameEnv(self._game, illegal_action="raise")
        env.reset()
        snapshot = env.clone_state()
        for state in (self._without_ended_passes(seat), self._board_as_setup(seat)):
            try:
                env.restore_state(snapshot._replace(state=state, agent_selection=AGENTS[seat]))
                return env
            except BoardzooError:
                continue
        raise GtpFailure("the position cannot be given to the agent")  # pragma: no cover

    def _without_ended_passes(self, seat: int) -> np.ndarray:
        """The current position replayed without each pass that ended the game and the pass
        before it, with ``seat`` to move."""
        moves: list[tuple[int, int]] = []
        pass_action = self._game.pass_action
        for move in self._moves:
            if move[1] == pass_action and moves and moves[-1][1] == pass_action:
                moves.pop()
            else:
                moves.append(move)
        state = self._states[0].copy()
        for mover, action in moves:
            state[TO_PLAY] = mover
            self._game.kernels.apply(state, action)
        state[TO_PLAY] = seat
        return state

    def _board_as_setup(self, seat: int) -> np.ndarray:
        """A fresh game whose setup stones are the current board, ``seat`` to move."""
        return self._setup_state(self._game.cells(self.state).ravel(), "BW"[seat])

    def _setup_state(self, cells: np.ndarray, to_play: str | None) -> np.ndarray:
        """A fresh game with ``cells`` (``[N*N]``: 0 empty, 1 Black, 2 White) as setup."""
        record = SgfRecord(
            self.size,
            None,
            tuple(divmod(int(a), self.size) for a in np.flatnonzero(cells == 1)),
            tuple(divmod(int(a), self.size) for a in np.flatnonzero(cells == 2)),
            (),
            to_play,
        )
        return self._game.parse_position(write_sgf(record, game=1))

    # ------------------------------------------------------------------- admin commands
    def _known_command(self, args: list[str]) -> str:
        _arity(args, 1, "known_command COMMAND")
        return "true" if args[0] in self._handlers else "false"

    def _quit(self, args: list[str]) -> str:
        self.finished = True
        return ""

    def _boardsize(self, args: list[str]) -> str:
        _arity(args, 1, "boardsize SIZE")
        size = _integer(args[0], "boardsize SIZE")
        if not 2 <= size <= MAX_SIZE:
            raise GtpFailure(f"unacceptable size: {size} (boardzoo plays 2..{MAX_SIZE})")
        self._game = self._make_game(size, self._game.komi)
        self._new_game()
        return ""

    def _clear_board(self, args: list[str]) -> str:
        _arity(args, 0, "clear_board")
        self._new_game()
        return ""

    def _new_game(self, start: SgfRecord | None = None) -> None:
        """A new game: the board cleared (or ``start``'s setup) and both clocks full."""
        self._clear(start)
        if self.clock is not None:
            self.clock = GameClock(self.clock.control)

    def _komi(self, args: list[str]) -> str:
        _arity(args, 1, "komi KOMI")
        try:
            komi = float(args[0])
        except ValueError:
            raise GtpFailure(f"syntax error: komi {args[0]!r} is not a number") from None
        self._rebuild(self._make_game(self.size, _checked_komi(komi)))
        return ""

    # -------------------------------------------------------------------- moves
    def _colour(self, text: str) -> int:
        seat = COLOURS.get(text.lower())
        if seat is None:
            raise GtpFailure(f"syntax error: {excerpt(text)} is not a colour (black, white, b, w)")
        return seat

    def _action(self, text: str) -> int:
        try:
            return self._game.str_to_action(text)
        except BoardzooError as err:
            raise GtpFailure(f"syntax error: {err}") from None

    def _play_command(self, args: list[str]) -> str:
        _arity(args, 2, "play COLOUR VERTEX")
        self._apply(self._colour(args[0]), self._action(args[1]))
        return ""

    def _genmove(self, args: list[str], cleanup: bool) -> str:
        """Choose, play and answer a move for the colour given (``resign`` if allowed)."""
        _arity(args, 1, "genmove COLOUR")
        seat = self._colour(args[0])
        if self.state[PLY] >= self.state[MAX_MOVES]:
            limit = self.state[MAX_MOVES]
            raise GtpFailure(f"the game has reached boardzoo's limit of {limit} plies")
        if self.clock is not None:
            self.clock.start(seat, now=self._received)
        try:
            action = self._choose(seat, cleanup)
            if action is None:
                return "resign"
            self._apply(seat, action)
        finally:
            if self.clock is not None:
                self.clock.stop()
        self._ponder_state = self._states[-1]
        return self._game.action_to_str(action)

    def _choose(self, seat: int, cleanup: bool) -> int | None:
        """The move for ``seat``: the agent's, unless passing wins outright after the
        opponent's pass, and never a fill of one of its own eyes while anything else is
        searched; cleanup plays on the liberties of the opponent's dead stones first."""
        pass_action = self._game.pass_action
        if not cleanup and self._passing_wins(seat):
            return pass_action
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
        if (self.resign_below is not None and search is not None
                and search.value < self.resign_below):
            return None
        if action != pass_action and self._fills_own_eye(seat, action):
            action = self._best_other(search, seat, pass_action)
        targets = self._cleanup_targets(seat) if cleanup else []
        if targets and action not in targets:
            visits = _root_visits(search, pass_action + 1)
            action = max(targets, key=lambda a: visits[a])  # ties: the first target
        return action

    def ponder(self, stop: threading.Event) -> bool:
        """With ``ponders``, right after this engine's genmove: search the opponent's
        position (the agent's ``ponder``, keeping its tree for the reply) until ``stop`` is
        set. False when there is nothing to ponder or the agent cannot (it just waits)."""
        state, self._ponder_state = self._ponder_state, None
        if not self.ponders or state is None or state is not self._states[-1]:
            return False
        if not hasattr(self.agent, "ponder") or state[OUTCOME] != ONGOING:
            return False
        env = self.env(int(state[TO_PLAY]))
        if env.game.is_terminal(env.state_array):
            return False
        self.agent.ponder(env, stop=stop)
        return True

    def _passing_wins(self, seat: int) -> bool:
        """After the opponent's pass, whether a pass (which ends the game) wins for ``seat``
        both on the board as it stands (Tromp-Taylor) and with the dead stones removed."""
        if not self._moves or self._moves[-1] != (1 - seat, self._game.pass_action):
            return False
        sign = 1.0 if seat == 0 else -1.0
        board_score = sign * self._game.score(self.state)
        return board_score > 0 and sign * self._score_without_dead() > 0

    def _fills_own_eye(self, seat: int, action: int) -> bool:
        state = self.state
        return bool(is_eye(grid(state), self.size + 1, to_point(state, action), seat + 1))

    def _best_other(self, search: Any, seat: int, pass_action: int) -> int:
        """The most visited searched move that fills no own eye, else a pass."""
        visits = _root_visits(search, pass_action + 1)
        for action in np.argsort(-visits, kind="stable"):
            action = int(action)
            if visits[action] <= 0:
                break
            if action == pass_action or not self._fills_own_eye(seat, action):
                return action
        return pass_action

    def _cleanup_targets(self, seat: int) -> list[int]:
        """Legal moves on the liberties of the opponent's dead chains (no own-eye fills)."""
        legal = self._game.legal_mask(self._position_for(seat))
        targets = []
        for chain in self._dead_chains():
            if self._colour_at(chain[0]) == 2 - seat:
                targets += [a for a in self._liberties(chain)
                            if legal[a] and not self._fills_own_eye(seat, a) and a not in targets]
        return targets

    # ------------------------------------------------------------------- history
    def _undo(self, args: list[str]) -> str:
        _arity(args, 0, "undo")
        if not self._moves:
            raise GtpFailure("cannot undo: no move has been played")
        self._moves.pop()
        self._states.pop()
        return ""

    def _loadsgf(self, args: list[str]) -> str:
        """``loadsgf FILE [MOVE_NUMBER]``: the game of the file up to the position before
        move MOVE_NUMBER (1 = the first move; default: all of it)."""
        if len(args) not in (1, 2):
            raise GtpFailure("syntax error: use loadsgf FILE [MOVE_NUMBER]")
        limit = None
        if len(args) == 2:
            limit = _integer(args[1], "loadsgf MOVE_NUMBER") - 1
            if limit < 0:
                raise GtpFailure("syntax error: loadsgf MOVE_NUMBER counts from 1 (the first move)")
        path = args[0]
        try:
            self._load_record(_read_sgf(path), limit)
        except _Unloadable as err:
            shown = path if path.isprintable() else repr(path)
            raise GtpFailure(f"cannot load file: {shown}: {err}") from None
        return ""

    def _load_record(self, record: SgfRecord, limit: int | None) -> None:
        """Set up ``record``'s board, komi and moves (up to ``limit``), or keep the old game
        and raise :class:`_Unloadable` saying what the file holds that cannot be played."""
        if not 2 <= record.size <= MAX_SIZE:
            raise _Unloadable(f"the board is {record.size}x{record.size}; "
                              f"boardzoo plays 2..{MAX_SIZE}")
        try:
            komi = self._game.komi if record.komi is None else _checked_komi(record.komi)
            game = self._make_game(record.size, komi)
        except BoardzooError as err:
            raise _Unloadable(str(err)) from None
        previous = (self._game, self._start, list(self._moves), list(self._states), self.clock)
        self._game = game
        where = ""
        try:
            self._new_game(record._replace(komi=None, moves=()))
            for number, (colour, point) in enumerate(record.moves[:limit], start=1):
                where = f"move {number}: "
                action = self.size**2 if point is None else point[0] * self.size + point[1]
                self._apply("BW".index(colour), action)
        except BoardzooError as err:
            self._game, self._start, self._moves, self._states, self.clock = previous
            raise _Unloadable(f"{where}{err}") from None

    # -------------------------------------------------------------------- scoring
    def ownership(self) -> np.ndarray:
        """Mean final owner of every point (``[N*N]``, action order; +1 Black, -1 White)
        over the engine's ownership playouts from the current board."""
        board = self._board_as_setup(int(self.state[TO_PLAY]))
        out = np.zeros(self.size * self.size)
        ownership_estimate_kernel(board, self.rng, self.ownership_playouts, out)
        return out

    def _chains(self) -> list[list[int]]:
        """The chains of stones on the board, as lists of actions (action order)."""
        cells = self._game.cells(self.state).ravel()
        seen = np.zeros(cells.shape[0], dtype=bool)
        chains = []
        for start in np.flatnonzero(cells):
            if seen[start]:
                continue
            chain, stack = [], [int(start)]
            seen[start] = True
            while stack:
                a = stack.pop()
                chain.append(a)
                for b in self._neighbours(a):
                    if cells[b] == cells[start] and not seen[b]:
                        seen[b] = True
                        stack.append(b)
            chains.append(sorted(chain))
        return chains

    def _neighbours(self, action: int) -> Iterable[int]:
        n = self.size
        row, col = divmod(action, n)
        for r, c in ((row - 1, col), (row + 1, col), (row, col - 1), (row, col + 1)):
            if 0 <= r < n and 0 <= c < n:
                yield r * n + c

    def _liberties(self, chain: list[int]) -> list[int]:
        cells = self._game.cells(self.state).ravel()
        return sorted({b for a in chain for b in self._neighbours(a) if cells[b] == 0})

    def _colour_at(self, action: int) -> int:
        return int(self._game.cells(self.state).ravel()[action])

    def _dead_chains(self) -> list[list[int]]:
        """The chains whose mean ownership from their own colour's view is below DEAD_BELOW."""
        owner = self.ownership()
        dead = []
        for chain in self._chains():
            sign = 1.0 if self._colour_at(chain[0]) == 1 else -1.0
            if sign * float(owner[chain].mean()) < DEAD_BELOW:
                dead.append(chain)
        return dead

    def _score_without_dead(self) -> float:
        """Area score from Black's view, komi included, after removing the dead stones."""
        cells = self._game.cells(self.state).ravel().copy()
        for chain in self._dead_chains():
            cells[chain] = 0
        return self._game.score(self._setup_state(cells, None))

    def _final_score(self) -> str:
        score = self._score_without_dead()
        if score == 0:
            return "0"
        return f"{'B' if score > 0 else 'W'}+{abs(score):g}"

    def _final_status_list(self, args: list[str]) -> str:
        """Chains of the status asked, one per line (seki is not recognised: always none)."""
        _arity(args, 1, "final_status_list alive|dead|seki")
        status = args[0].lower()
        if status not in STATUSES:
            raise GtpFailure(f"syntax error: status {args[0]!r}; use alive, dead or seki")
        if status == "seki":
            return ""
        dead = self._dead_chains()
        chains = dead if status == "dead" else [c for c in self._chains() if c not in dead]
        return "\n".join(" ".join(self._game.action_to_str(a) for a in c) for c in chains)

    def _board_text(self) -> str:
        from boardzoo.envs.render import render_ansi

        state = self.state
        black, white = self._game.captures(state)
        board = render_ansi(self._game, state).rstrip("\n").split("\n")[:-1]  # no status line
        to_move = "black (X)" if state[TO_PLAY] == 0 else "white (O)"
        counts = f"captured by black: {black}, by white: {white}"
        return "\n".join(board) + f"\n{to_move} to move; {counts}"

    # ---------------------------------------------------------------------- time
    def _time_settings(self, args: list[str]) -> str:
        _arity(args, 3, "time_settings MAIN_TIME BYO_YOMI_TIME BYO_YOMI_STONES")
        main, byo = (_seconds(a, "time_settings") for a in args[:2])
        self._set_time_control(gtp_time_control(main, byo, _integer(args[2], "time_settings")))
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
            main = _seconds(values[0], usage)
            byo, count = ((_seconds(values[1], usage), _integer(values[2], usage))
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
            env = BoardGameEnv(self._game, illegal_action="raise")
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
        _arity(args, 3, "time_left COLOUR TIME STONES")
        seat = self._colour(args[0])
        seconds, stones = _seconds(args[1], "time_left"), _integer(args[2], "time_left")
        if self.clock is None:
            control = gtp_time_control(0.0, seconds, stones) if stones else (
                gtp_time_control(seconds, 0.0, 0))
            if control is None:  # time_left b 0 0 without settings: nothing to go by
                return ""
            self._set_time_control(control)
        assert self.clock is not None
        self.clock.set_remaining(seat, seconds, stones)
        return ""


def gtp_time_control(main: float, byo_yomi: float, count: int,
                     japanese: bool = False) -> TimeControl | None:
    """The time control of GTP's ``time_settings MAIN BYO_YOMI COUNT`` (seconds), None for
    no time limits: ``main`` seconds of main time, then Canadian byo-yomi, ``count`` stones
    in every ``byo_yomi`` seconds, or with ``japanese`` (KGS's ``byoyomi``) ``count``
    periods of ``byo_yomi`` seconds. As GTP 2 says, ``byo_yomi`` > 0 with ``count`` 0 means
    no time limits, and ``byo_yomi`` 0 is absolute time; with no main time either there is
    no time to play with, which is taken as no limits too."""
    if byo_yomi > 0 and count > 0:
        if japanese:
            return TimeControl(base=main, periods=count, period_time=byo_yomi)
        return TimeControl(base=main, periods=1, period_time=byo_yomi, period_stones=count)
    if byo_yomi > 0 or main <= 0:
        return None
    return TimeControl(base=main)


def move_clock(clock: GameClock, seat: int, spent: float,
               margin: float = TIME_MARGIN) -> ClockView:
    """What the agent may use for ``seat``'s move now: ``clock``'s view less the ``spent``
    seconds this turn has already taken and ``margin`` for each move still to make before
    time is given again (this one; in a Canadian period each of its stones), taken from the
    main time first, then from the byo-yomi period."""
    view = clock.view(seat)
    in_canadian_period = view.byoyomi_stones > 0 and view.remaining <= 0
    reserve = spent + margin * (view.byoyomi_stones if in_canadian_period else 1)
    from_main = min(view.remaining, reserve)
    return dataclasses.replace(
        view, remaining=view.remaining - from_main,
        byoyomi_time=max(0.0, view.byoyomi_time - (reserve - from_main)))


# ---------------------------------------------------------------------------- helpers
def _preprocess(line: str) -> str:
    """GTP's preprocessing: control characters dropped (tabs become spaces), comments from
    ``#`` on removed, surrounding space stripped."""
    line = line.split("#", 1)[0].replace("\t", " ")
    return "".join(ch for ch in line if ch >= " " and ch != "\x7f").strip()


def _arity(args: list[str], count: int, usage: str) -> None:
    if len(args) != count:
        raise GtpFailure(f"syntax error: use {usage}")


def _integer(text: str, usage: str) -> int:
    value = parse_int(text, signed=True)
    if value is None:
        raise GtpFailure(f"syntax error: {excerpt(text)} is not an integer ({usage})")
    if value < 0:
        raise GtpFailure(f"syntax error: {excerpt(text)} is negative ({usage})")
    return value


def _seconds(text: str, usage: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise GtpFailure(
            f"syntax error: {excerpt(text)} is not a number of seconds ({usage})") from None
    if not 0 <= value < float("inf"):
        raise GtpFailure(
            f"syntax error: {excerpt(text)} is not a number of seconds >= 0 ({usage})")
    return value


def _checked_size(size: int) -> int:
    if not 2 <= size <= MAX_SIZE:
        raise InvalidOptionError(f"board size {size}: boardzoo plays 2..{MAX_SIZE}")
    return size


def _checked_komi(komi: float) -> float:
    if not (abs(komi) < 1000 and float(komi) * 2 == round(float(komi) * 2)):
        raise GtpFailure(f"komi {komi:g} is not supported: use a multiple of 0.5, e.g. 7.5")
    return float(komi)


class _Unloadable(Exception):
    """Why ``loadsgf``'s file cannot be loaded; ``_loadsgf`` answers it as ``cannot load
    file: PATH: <this>``, the one place that prefix is written."""


def _read_sgf(path: str) -> SgfRecord:
    """The SGF file at ``path`` (a regular file of at most MAX_SGF_BYTES), or _Unloadable.
    Never blocks: the file type is checked before opening (opening a FIFO for reading would
    wait for a writer), the file is opened non-blocking and checked again (it may have been
    swapped meanwhile), and at most MAX_SGF_BYTES + 1 bytes are read (a file that grew after
    the check is still refused, not read forever)."""
    text = _read_regular_file(path, MAX_SGF_BYTES)
    try:
        return parse_sgf(text.decode("utf-8", errors="replace"), game=1)
    except BoardzooError as err:
        raise _Unloadable(str(err)) from None


def _read_regular_file(path: str, limit: int) -> bytes:
    """The bytes of the regular file ``path`` if it holds at most ``limit``, or _Unloadable."""
    try:
        _check_regular(os.stat(path).st_mode)
        flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
        fd = os.open(path, flags)
        with os.fdopen(fd, "rb") as file:
            _check_regular(os.fstat(file.fileno()).st_mode)
            data = file.read(limit + 1)
    except OSError as err:
        raise _Unloadable(err.strerror or str(err)) from None
    except ValueError as err:  # a path the system cannot take (a NUL, unencodable characters)
        raise _Unloadable(str(err)) from None
    if len(data) > limit:
        raise _Unloadable(f"it is larger than {limit} bytes")
    return data


def _check_regular(mode: int) -> None:
    if not stat.S_ISREG(mode):
        kind = next((name for test, name in _FILE_KINDS if test(mode)), "something else")
        raise _Unloadable(f"not a regular file (it is {kind})")


_FILE_KINDS: tuple[tuple[Callable[[int], bool], str], ...] = (
    (stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a named pipe"),
    (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


#: the longest input line read (a 19x19 setup command is about 1,500 characters); a longer
#: one is skipped to its end without being held in memory, and answered with a failure
MAX_LINE = 100_000
_TOO_LONG = f"? input line longer than {MAX_LINE:,} characters; ignored\n\n"


class _CommandLines:
    """Input lines read by a thread, each queued with the time it arrived (``time.monotonic``;
    None at the end of input); ``waiting`` is set while one waits to be handled, so that a
    ponder can stop as soon as a command comes. A line longer than :data:`MAX_LINE` is
    queued as None text (see :func:`serve`)."""

    def __init__(self, stream: IO[str]):
        self._queue: queue.Queue[tuple[str | None, float] | None] = queue.Queue()
        self.waiting = threading.Event()
        threading.Thread(target=self._read, args=(stream,), daemon=True,
                         name="boardzoo-gtp-stdin").start()

    def _read(self, stream: IO[str]) -> None:
        while line := stream.readline(MAX_LINE + 1):
            text: str | None = line
            if len(line) > MAX_LINE:
                text = None
                while line and not line.endswith("\n"):  # skip the rest of the line
                    line = stream.readline(MAX_LINE)
            self._queue.put((text, time.monotonic()))
            self.waiting.set()
        self._queue.put(None)
        self.waiting.set()

    def next(self) -> tuple[str | None, float] | None:
        """The next line (None text: too long) and its arrival time (blocks until there is
        one), None at the end."""
        item = self._queue.get()
        if self._queue.empty():
            self.waiting.clear()
            if not self._queue.empty():  # a line came in between
                self.waiting.set()
        return item


def serve(engine: GoGtpEngine, stdin: IO[str] | None = None, stdout: IO[str] | None = None) -> None:
    """Answer GTP commands from ``stdin`` on ``stdout`` until ``quit`` or end of input; with
    ``engine.ponders``, ponder after each genmove until the next line arrives."""
    lines = _CommandLines(stdin or sys.stdin)
    stdout = stdout or sys.stdout
    while not engine.finished:
        engine.ponder(lines.waiting)
        item = lines.next()
        if item is None:
            break
        line, received = item
        reply = _TOO_LONG if line is None else engine.handle(line, received)
        if reply is not None:
            stdout.write(reply)
            stdout.flush()


def _root_visits(search: Any, num_actions: int) -> np.ndarray:
    """The last search's visits per action (zeros when it has none: no search yet, or an
    engine that does not count visits)."""
    visits = getattr(search, "visits", None)
    return np.zeros(num_actions) if visits is None else visits
