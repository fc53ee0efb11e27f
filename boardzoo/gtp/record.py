"""The game a GTP engine keeps (:mod:`boardzoo.gtp.engine`): the rules, the setup, every move
played (for ``undo``) and the position after each, the position given to the agent, and
``loadsgf``'s files, read without ever blocking.

GTP's colours need not alternate and play may go on after two passes, so a move is played
for the colour given on the position with the game reopened.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable

import numpy as np

from boardzoo.envs.aec import AGENTS, BoardGameEnv
from boardzoo.envs.core import ONGOING, OUTCOME, PLY, TO_PLAY
from boardzoo.envs.go import Go
from boardzoo.envs.go_board import MAX_MOVES, MAX_SIZE
from boardzoo.envs.sgf import SgfRecord, parse_sgf, write_sgf
from boardzoo.errors import BoardzooError, IllegalActionError

__all__ = ["MAX_SGF_BYTES", "GtpRecord", "Unloadable", "load_record", "read_sgf"]

MAX_SGF_BYTES = 1 << 20


class GtpRecord:
    """One game under ``game``'s rules from ``start``'s setup (default: an empty board)."""

    def __init__(self, game: Go, start: SgfRecord | None = None):
        self.game = game
        self.start = start or SgfRecord(game.size, None, (), (), (), None)
        self.moves: list[tuple[int, int]] = []  # (seat, action)
        self.states = [game.parse_position(write_sgf(self.start, game=1))]

    @property
    def state(self) -> np.ndarray:
        """The current state (a copy)."""
        return self.states[-1].copy()

    def play(self, seat: int, action: int) -> None:
        """Play ``action`` for ``seat``; IllegalActionError ("illegal move: ...") if it is
        illegal."""
        state = self.position_for(seat)
        if state[PLY] >= state[MAX_MOVES]:
            raise IllegalActionError(
                f"illegal move: the game has reached boardzoo's limit of {state[MAX_MOVES]} plies")
        if not self.game.legal_mask(state)[action]:
            game = self.game
            raise IllegalActionError(
                f"illegal move: {'BW'[seat]} {game.action_to_str(action)} (occupied, suicide "
                f"or a ko/superko repetition under ko={game.ko}, suicide={game.suicide})")
        self.game.kernels.apply(state, action)
        self.moves.append((seat, action))
        self.states.append(state)

    def undo(self) -> bool:
        """Take back the last move; False when there is none."""
        if not self.moves:
            return False
        self.moves.pop()
        self.states.pop()
        return True

    def replayed(self, game: Go) -> GtpRecord:
        """The setup and every move replayed under ``game`` (another komi)."""
        record = GtpRecord(game, self.start)
        for seat, action in self.moves:
            record.play(seat, action)
        return record

    def position_for(self, seat: int) -> np.ndarray:
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
        env = BoardGameEnv(self.game, illegal_action="raise")
        env.reset()
        snapshot = env.clone_state()
        board = self.game.board_position(self.game.cells(self.state).ravel(), seat)
        for state in (self._without_ended_passes(seat), board):
            try:
                env.restore_state(snapshot._replace(state=state, agent_selection=AGENTS[seat]))
                return env
            except BoardzooError:
                continue
        raise IllegalActionError("the position cannot be given to the agent")  # pragma: no cover

    def _without_ended_passes(self, seat: int) -> np.ndarray:
        """The current position replayed without each pass that ended the game and the pass
        before it, with ``seat`` to move."""
        moves: list[tuple[int, int]] = []
        pass_action = self.game.pass_action
        for move in self.moves:
            if move[1] == pass_action and moves and moves[-1][1] == pass_action:
                moves.pop()
            else:
                moves.append(move)
        state = self.states[0].copy()
        for mover, action in moves:
            state[TO_PLAY] = mover
            self.game.kernels.apply(state, action)
        state[TO_PLAY] = seat
        return state


class Unloadable(Exception):
    """Why ``loadsgf``'s file cannot be loaded; the engine answers it as ``cannot load
    file: PATH: <this>``, the one place that prefix is written."""


def load_record(path: str, limit: int | None,
                make_game: Callable[[int, float | None], Go]) -> GtpRecord:
    """The game of the SGF file at ``path`` up to move ``limit`` (None: all of it), under
    ``make_game(size, komi)`` (``komi`` None: the file has none), or Unloadable saying what
    the file holds that cannot be played."""
    sgf = read_sgf(path)
    if not 2 <= sgf.size <= MAX_SIZE:
        raise Unloadable(f"the board is {sgf.size}x{sgf.size}; boardzoo plays 2..{MAX_SIZE}")
    where = ""
    try:
        record = GtpRecord(make_game(sgf.size, sgf.komi), sgf._replace(komi=None, moves=()))
        for number, (colour, point) in enumerate(sgf.moves[:limit], start=1):
            where = f"move {number}: "
            action = sgf.size**2 if point is None else point[0] * sgf.size + point[1]
            record.play("BW".index(colour), action)
    except BoardzooError as err:
        raise Unloadable(f"{where}{err}") from None
    return record


def read_sgf(path: str) -> SgfRecord:
    """The SGF file at ``path`` (a regular file of at most MAX_SGF_BYTES), or Unloadable.
    Never blocks: the file type is checked before opening (opening a FIFO for reading would
    wait for a writer), the file is opened non-blocking and checked again (it may have been
    swapped meanwhile), and at most MAX_SGF_BYTES + 1 bytes are read (a file that grew after
    the check is still refused, not read forever)."""
    text = _read_regular_file(path, MAX_SGF_BYTES)
    try:
        return parse_sgf(text.decode("utf-8", errors="replace"), game=1)
    except BoardzooError as err:
        raise Unloadable(str(err)) from None


def _read_regular_file(path: str, limit: int) -> bytes:
    """The bytes of the regular file ``path`` if it holds at most ``limit``, or Unloadable."""
    try:
        _check_regular(os.stat(path).st_mode)
        flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
        fd = os.open(path, flags)
        with os.fdopen(fd, "rb") as file:
            _check_regular(os.fstat(file.fileno()).st_mode)
            data = file.read(limit + 1)
    except OSError as err:
        raise Unloadable(err.strerror or str(err)) from None
    except ValueError as err:  # a path the system cannot take (a NUL, unencodable characters)
        raise Unloadable(str(err)) from None
    if len(data) > limit:
        raise Unloadable(f"it is larger than {limit} bytes")
    return data


def _check_regular(mode: int) -> None:
    if not stat.S_ISREG(mode):
        kind = next((name for test, name in _FILE_KINDS if test(mode)), "something else")
        raise Unloadable(f"not a regular file (it is {kind})")


_FILE_KINDS: tuple[tuple[Callable[[int], bool], str], ...] = (
    (stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a named pipe"),
    (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)
