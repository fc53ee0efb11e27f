"""One game on the page: the position and its history, the person's seat, the opponent's
spec, the undo / swap / resign rules and the result. Pure bookkeeping: no I/O, no agent, no
event loop.

``history[k]`` is the env snapshot after ``k`` moves from the start (a loaded position or
the initial one), ``moves[k]`` the action played from ``history[k]``; undo pops back to the
person's last turn, so the agent's reply goes with the person's move.
"""

from __future__ import annotations

import json
import secrets
import time
from dataclasses import asdict
from typing import Any

from boardzoo.arena import GameRecord
from boardzoo.envs.aec import BoardGameEnv
from boardzoo.envs.core import Game
from boardzoo.envs.pgn import write_pgn
from boardzoo.errors import IllegalActionError, InvalidPositionError, excerpt
from boardzoo.timecontrol import GameClock, TimeControl
from boardzoo.web.board import (
    action_targets,
    board_view,
    changed_cells,
    game_view,
    result_detail,
    step_cells,
    winning_line,
)

__all__ = ["GameSession", "StaleMoveError", "load_record"]


class StaleMoveError(IllegalActionError):
    """A move sent for a position that is no longer on the board (a double click, two tabs)."""


class GameSession:
    """A game between a person (``human_seat``) and an agent (``agent_spec``)."""

    def __init__(self, game: Game, agent_spec: str, human_seat: int = 0,
                 start: str | None = None, moves: list[int] | None = None,
                 time_control: TimeControl | None = None) -> None:
        self.id = secrets.token_urlsafe(12)
        self.game = game
        self.agent_spec = agent_spec
        self.human_seat = human_seat
        self.start = start
        self.env = BoardGameEnv(game, illegal_action="raise")
        self.env.reset(options={"position": start} if start is not None else None)
        self.history = [self.env.clone_state()]
        self.moves: list[int] = []
        self.seconds: list[float] = []
        self.captures = [0, 0]  # pieces each seat has taken off the board (Go)
        self.last_active = time.monotonic()
        for action in moves or []:
            self.play(action)
        self.clock = None if time_control is None else GameClock(time_control)
        self.turn_started: float | None = None  # when the running clock was started
        self.resigned: int | None = None  # the seat that resigned

    # ----------------------------------------------------------------------- clocks
    def start_clock(self) -> None:
        """Start the side to move's clock (if the game has one and goes on)."""
        if self.clock is not None and not self.over():
            self.turn_started = time.monotonic()
            self.clock.start(self.game.to_play(self.state))

    def stop_clock(self) -> float:
        """Stop the running clock; the seconds the turn took (0 without a clock)."""
        if self.clock is None or self.clock.running is None:
            return 0.0
        self.turn_started = None
        return self.clock.stop()

    def clock_view(self) -> dict[str, Any] | None:
        """Both clocks as JSON: the control's text, each seat's view (main time left,
        byo-yomi), the running seat and how long its turn has run, the seat out of time."""
        if self.clock is None:
            return None
        running = self.clock.running
        return {"control": str(self.clock.control),
                "seats": [self.clock.view(seat).to_json() for seat in (0, 1)],
                "running": running,
                "running_for": 0.0 if self.turn_started is None
                else time.monotonic() - self.turn_started,
                "flagged": self.clock.flagged}

    # ------------------------------------------------------------------ the position
    @property
    def state(self) -> Any:
        return self.history[-1].state

    @property
    def ply(self) -> int:
        return len(self.moves)

    def over(self) -> bool:
        """The game has ended: by the rules, on time or by resignation."""
        return self.game.is_terminal(self.state) or self.forfeit() is not None

    def flagged(self) -> int | None:
        """The seat that lost on time, or None."""
        return None if self.clock is None else self.clock.flagged

    def forfeit(self) -> tuple[int, str] | None:
        """(the seat that lost, "time" or "resignation") for a game not ended by the rules."""
        late = self.flagged()
        if late is not None:
            return late, "time"
        if self.resigned is not None:
            return self.resigned, "resignation"
        return None

    def returns(self) -> list[float]:
        """Per seat: +1 win, 0 draw, -1 loss (zeros while the game runs)."""
        lost = self.forfeit()
        if lost is None:
            return self.game.returns(self.state).tolist()
        returns = [1.0, 1.0]
        returns[lost[0]] = -1.0
        return returns

    def agent_to_move(self) -> bool:
        return not self.over() and self.game.to_play(self.state) != self.human_seat

    # --------------------------------------------------------------------- changes
    def play(self, action: Any, seconds: float = 0.0) -> None:
        """Play ``action`` (legal in the current position) for the side to move."""
        before = self.state
        mover = self.game.to_play(before)
        index = self.game.check_action(before, action)
        self.env.restore_state(self.history[-1])
        self.env.step(index)
        self.history.append(self.env.clone_state())
        self.moves.append(index)
        self.seconds.append(seconds)
        self.captures[mover] += self._taken(before, self.state, mover)
        self.touch()

    def check_human_move(self, action: Any, ply: Any) -> int:
        """The person's move as an action, sent for position ``ply``: refused if the board
        moved on (StaleMoveError), the game is over, it is the agent's turn or the move is
        illegal."""
        if not isinstance(ply, int) or isinstance(ply, bool) or ply != self.ply:
            raise StaleMoveError(
                f"that move was sent for ply {ply!r}, but the game is at ply {self.ply}; "
                "the board has changed: look again")
        if self.over():
            raise IllegalActionError("the game is over: start a new game" + (
                "" if self.forfeit() is not None else " or undo"))
        if self.agent_to_move():
            raise IllegalActionError("it is the agent's turn: wait for its move or press "
                                     "'move now'")
        return self.game.check_action(self.state, action)

    def undo(self) -> None:
        """Take back moves to the person's previous turn (the agent's reply with them)."""
        if not self.moves:
            raise IllegalActionError("nothing to undo: this is the start of the game")
        lost = self.forfeit()
        if lost is not None:
            raise IllegalActionError(f"a game lost on {lost[1]} cannot be undone: start a new "
                                     "game")
        self._pop()
        while self.moves and self.game.to_play(self.state) != self.human_seat:
            self._pop()
        self.touch()

    def resign(self) -> None:
        """The person gives the game up (the agent wins)."""
        if self.over():
            raise IllegalActionError("the game is over: start a new game")
        self.resigned = self.human_seat
        self.touch()

    def swap(self) -> None:
        """The person takes the other side (the agent then moves if it is its turn)."""
        self.human_seat = 1 - self.human_seat
        self.touch()

    def touch(self) -> None:
        self.last_active = time.monotonic()

    def _pop(self) -> None:
        before, after = self.history[-2].state, self.history[-1].state
        mover = self.game.to_play(before)
        self.captures[mover] -= self._taken(before, after, mover)
        self.history.pop()
        self.moves.pop()
        self.seconds.pop()

    def _taken(self, before: Any, after: Any, mover: int) -> int:
        """The opponent's pieces that ``mover``'s move removed from the board (or, as in
        chess, replaced)."""
        old, new = self.game.cells(before), self.game.cells(after)
        return int(((old == 2 - mover) & (new != old)).sum())

    # ----------------------------------------------------------------------- views
    def view(self) -> dict[str, Any]:
        """Everything the page draws, as JSON."""
        return {
            "id": self.id,
            "game": game_view(self.game),
            **self.position_view(self.ply),
            "human_seat": self.human_seat,
            "agent": self.agent_spec,
            "moves": [self.game.move_label(self.history[k].state, a)
                      for k, a in enumerate(self.moves)],
            "captures": list(self.captures),
            "start": self.start,
            "clock": self.clock_view(),
            "result": self.result(),
        }

    def position_view(self, ply: int) -> dict[str, Any]:
        """The position after ``ply`` moves as JSON: its board, the move that led to it (its
        cell and text), the cells that move captured or flipped, and the winning line of a
        game won on that move."""
        state = self.history[ply].state
        last = changed = line = last_move = None
        if ply:
            previous, action = self.history[ply - 1].state, self.moves[ply - 1]
            last = action_targets(self.game, previous).get(action)
            step = step_cells(self.game, previous, action)
            start = None if step is None else step[0]
            changed = [c for c in changed_cells(self.game, previous, state)
                       if c not in (last, start)]
            line = winning_line(self.game, previous, state, last)
            last_move = {"cell": last, "from": start,
                         "move": self.game.move_label(previous, action)}
        return {
            "ply": ply,
            "board": board_view(self.game, state),
            "last_move": last_move,
            "changed": changed or [],
            "line": line or [],
        }

    def result(self) -> dict[str, Any] | None:
        """How the game ended (None while it runs): ``winner`` (a seat, None for a draw),
        ``reason`` ("rules", "time" or "resignation") and ``detail`` (Go's score such as
        "W+9.5", Othello's discs, else None)."""
        if not self.over():
            return None
        lost = self.forfeit()
        if lost is not None:
            return {"winner": 1 - lost[0], "reason": lost[1], "detail": None}
        returns = self.game.returns(self.state)
        winner = None if returns[0] == returns[1] else int(returns[1] > returns[0])
        return {"winner": winner, "reason": "rules",
                "detail": result_detail(self.game, self.state)}

    def record(self) -> dict[str, Any]:
        """The game as an arena record (:class:`boardzoo.arena.GameRecord`, JSON-ready),
        with the person as agent_a: ``score`` is the person's (1 win, 0.5 draw, 0 loss;
        0.5 while the game runs); a loss on time or by resignation is a loss."""
        returns = self.returns()
        record = GameRecord(index=0, agent_a_seat=self.human_seat, opening=[],
                            moves=list(self.moves), returns=returns,
                            score=(returns[self.human_seat] + 1.0) / 2.0,
                            seconds=list(self.seconds), final_position=self.env.position())
        return {"game": self.game.name, **asdict(record)}

    def pgn(self) -> str | None:
        """The game as PGN (chess), the person and the agent named on their sides, else
        None."""
        if self.game.name != "chess":
            return None
        names = ["you", self.agent_spec]
        white, black = names if self.human_seat == 0 else names[::-1]
        return write_pgn(self.history[0].state, self.moves, self.returns(),
                         {"Event": "boardzoo", "White": white, "Black": black},
                         finished=self.over())

    def sgf(self) -> str | None:
        """The game as SGF (Go and Gomoku, whose position text is SGF), else None."""
        text = self.env.position()
        return text if text.startswith("(;") else None


def load_record(game: Game, text: str) -> tuple[str | None, list[int]]:
    """``(start position or None, moves)`` from what a person loads: an arena record (one
    JSON object, e.g. a line of a match's .jsonl) or a position in the game's notation
    (SGF for Go and Gomoku). A record replays its opening and moves from the start; one that
    started elsewhere is loaded from its final position. A record of another game (its
    ``game``, or a ``final_position`` that is no position of this game) is refused."""
    text = text.strip()
    if not text.startswith("{"):
        game.parse_position(text)  # InvalidPositionError says what is wrong
        return text, []
    try:
        record = json.loads(text)
    except (ValueError, RecursionError) as err:  # bad JSON, too deep, a huge number
        raise InvalidPositionError(f"the record is not valid JSON: {err}"[:200]) from None
    if not isinstance(record, dict):
        raise InvalidPositionError("a record is one JSON object (a line of a .jsonl file)")
    named = record.get("game", game.name)
    if named != game.name:
        raise InvalidPositionError(f"this is a record of {excerpt(named)}, not of "
                                   f"{game.name}: choose that game to load it")
    moves = list(record.get("opening") or []) + list(record.get("moves") or [])
    final = record.get("final_position")
    final = final if isinstance(final, str) and final else None
    try:
        end: str | None = game.position(game.replay(moves))  # checks every move
    except InvalidPositionError:
        if final is None:
            raise
        end = None
    if final is not None and final != end:  # started elsewhere, or not a record of this game
        try:
            game.parse_position(final)
        except InvalidPositionError as err:
            raise InvalidPositionError(f"this record is not one of {game!r}: {err}") from None
        return final, []
    return None, _actions(game, moves)


def _actions(game: Game, moves: list[Any]) -> list[int]:
    """Legal moves from the start (actions or move text, read in the position each is
    played in) as actions."""
    state, actions = game.initial_state(), []
    for move in moves:
        actions.append(game.str_to_move(state, move) if isinstance(move, str) else int(move))
        state = game.step(state, actions[-1])
    return actions
