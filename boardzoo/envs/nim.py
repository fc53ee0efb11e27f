"""Nim: heaps of stones; a move takes 1..max_take stones from one heap.

=================  =============================================================
Options            ``heaps=(11,)`` starting heap sizes (1..64 heaps of 1..10,000 stones);
                   ``max_take=3`` (``None``: take any number); ``misere=False`` (``True``:
                   whoever takes the last stone loses)
Actions            ``heap_index * K + (take - 1)`` with ``K = max_take``, or ``max(heaps)``
                   when ``max_take`` is None
Move notation      "heap:take" with 1-based heap, e.g. "2:3"; with one heap just "3"
Observation        float32 (num_heaps, max(heaps), 2): plane 0 has a 1 for every stone left
                   (row = heap), plane 1 is all ones when the observer is to move
Rewards            normal play: +1 for taking the last stone; misère: -1 for it
Position text      heap sizes comma-separated, a space, the seat to move: "3,4,5 0"
Version history    v0: first release
=================  =============================================================

State: int64 ``[to_play, outcome, ply, num_heaps, K, misere, h0, h1, ...]``.
"""

from __future__ import annotations

import re

import numpy as np
from numba import njit

from boardzoo.envs.aec import BoardGameEnv
from boardzoo.envs.core import (
    HEADER,
    ONGOING,
    OUTCOME,
    P0_WINS,
    PLY,
    TO_PLAY,
    DeclaredKnowledge,
    Game,
    make_random_playout,
)
from boardzoo.envs.kernels import Kernels
from boardzoo.errors import IllegalActionError, InvalidPositionError, excerpt
from boardzoo.options import parse_int, require, strict_keywords

__all__ = ["Nim", "env", "raw_env"]

NUM_HEAPS, TAKE_LIMIT, MISERE = HEADER, HEADER + 1, HEADER + 2
HEAPS = HEADER + 3
#: option limits: observations are (heaps, max heap, 2) and there are heaps * K actions
MAX_HEAPS, MAX_HEAP_SIZE = 64, 10_000
_POSITION = re.compile(r"^\s*(\d+(?:\s*,\s*\d+)*)\s+([01])\s*$")


@njit(cache=True)
def legal_mask_kernel(state, out):
    out[:] = False
    if state[OUTCOME] != ONGOING:
        return 0
    count = 0
    k = state[TAKE_LIMIT]
    for heap in range(state[NUM_HEAPS]):
        for take in range(1, min(k, state[HEAPS + heap]) + 1):
            out[heap * k + take - 1] = True
            count += 1
    return count


@njit(cache=True)
def apply_kernel(state, action):
    k = state[TAKE_LIMIT]
    state[HEAPS + action // k] -= action % k + 1
    state[PLY] += 1
    state[TO_PLAY] = 1 - state[TO_PLAY]
    state[OUTCOME] = _outcome(state)


@njit(cache=True)
def _outcome(state):
    """ONGOING while stones remain; else the win goes by who took the last stone."""
    for heap in range(state[NUM_HEAPS]):
        if state[HEAPS + heap] > 0:
            return ONGOING
    last_mover = 1 - state[TO_PLAY]
    winner = 1 - last_mover if state[MISERE] else last_mover
    return P0_WINS + winner


@njit(cache=True)
def _num_actions(state):
    return state[NUM_HEAPS] * state[TAKE_LIMIT]


playout_kernel, playout_trace_kernel = make_random_playout(
    legal_mask_kernel, apply_kernel, _num_actions
)


class Nim(Game):
    """Nim with any number of heaps, a take limit or none, normal or misère play."""

    name = "nim"
    knowledge = DeclaredKnowledge("boardzoo.knowledge.nim:KNOWLEDGE")
    kernels = Kernels(legal_mask=legal_mask_kernel, apply=apply_kernel, playout=playout_kernel,
                      playout_trace=playout_trace_kernel)
    piece_symbols = (".", "o", "o")
    position_format = 'heap sizes comma-separated, a space, the seat to move, e.g. "3,4,5 0"'
    unrecorded_slots = (PLY,)

    def __init__(
        self, heaps: tuple[int, ...] = (11,), max_take: int | None = 3, misere: bool = False
    ):
        require(
            isinstance(heaps, (tuple, list)),
            f"heaps={heaps!r}: give a tuple of heap sizes, e.g. heaps=(3, 4, 5)",
        )
        heaps = tuple(heaps)
        require(
            1 <= len(heaps) <= MAX_HEAPS
            and all(_is_count(h) and 1 <= h <= MAX_HEAP_SIZE for h in heaps),
            f"heaps={heaps!r}: give 1..{MAX_HEAPS} heap sizes, each an integer "
            f"1..{MAX_HEAP_SIZE}",
        )
        require(
            max_take is None or (_is_count(max_take) and 1 <= max_take <= MAX_HEAP_SIZE),
            f"max_take={max_take!r}: give an integer 1..{MAX_HEAP_SIZE}, or None for "
            "unlimited takes",
        )
        require(
            isinstance(misere, (bool, np.bool_)),
            f"misere={misere!r}: give True (whoever takes the last stone loses) or False",
        )
        heaps = tuple(int(h) for h in heaps)
        max_take = None if max_take is None else int(max_take)
        self.take_limit = max(heaps) if max_take is None else max_take
        super().__init__(
            num_actions=len(heaps) * self.take_limit,
            planes_shape=(len(heaps), max(heaps), 2),
            heaps=heaps,
            max_take=max_take,
            misere=bool(misere),
        )
        self.heaps = heaps

    def initial_state(self) -> np.ndarray:
        return self._state_for(self.heaps, seat=0)

    def check_state(self, state: np.ndarray) -> None:
        """Heaps, take limit, misère flag and result as the text round trip checks them; the
        ply count (not in the text) plus the stones left at most the stones a start position
        can hold, since every move takes at least one: a state that passes has successors
        that pass."""
        super().check_state(state)
        most = len(self.heaps) * max(self.heaps)
        ply, left = int(state[PLY]), int(state[HEAPS:].sum())
        if ply + left > most:
            raise InvalidPositionError(
                f"ply={ply} is impossible with {left} stones left: {len(self.heaps)} heap(s) of "
                f"at most {max(self.heaps)} stones allow at most {most - left} moves before "
                "this position"
            )

    def _state_for(self, heaps: tuple[int, ...], seat: int) -> np.ndarray:
        state = np.zeros(HEAPS + len(heaps), dtype=np.int64)
        state[NUM_HEAPS] = len(heaps)
        state[TAKE_LIMIT] = self.take_limit
        state[MISERE] = self.options["misere"]
        state[HEAPS:] = heaps
        state[TO_PLAY] = seat
        state[OUTCOME] = _outcome(state) if sum(heaps) == 0 else ONGOING
        return state

    def observe(self, state: np.ndarray, seat: int) -> np.ndarray:
        planes = np.zeros(self.planes_shape, dtype=np.float32)
        planes[..., 0] = np.arange(self.planes_shape[1]) < state[HEAPS:, None]
        planes[..., 1] = float(state[TO_PLAY] == seat)
        return planes

    def cells(self, state: np.ndarray) -> np.ndarray:
        return (np.arange(self.planes_shape[1]) < state[HEAPS:, None]).astype(np.int8)

    def coordinate_labels(self) -> tuple[list[str], list[str]]:
        rows, cols = self.planes_shape[:2]
        return [str(h + 1) for h in range(rows)], [str(c + 1) for c in range(cols)]

    def action_to_str(self, action: int) -> str:
        heap, take = divmod(action, self.take_limit)
        return f"{heap + 1}:{take + 1}"

    def str_to_action(self, text: str) -> int:
        parts = text.strip().split(":")
        if len(parts) == 1 and len(self.heaps) == 1:
            parts = ["1", *parts]
        heap, take = [parse_int(p, max_digits=9) for p in parts] if len(parts) == 2 else [0, 0]
        if heap is not None and take is not None:
            if 1 <= heap <= len(self.heaps) and 1 <= take <= self.take_limit:
                return (heap - 1) * self.take_limit + take - 1
        raise IllegalActionError(
            f"{excerpt(text)} is not a Nim move here: write heap:take with heap "
            f"1..{len(self.heaps)} "
            f"and take 1..{self.take_limit}"
            + (', or just the take, e.g. "3"' if len(self.heaps) == 1 else "")
        )

    def position(self, state: np.ndarray) -> str:
        return ",".join(str(int(h)) for h in state[HEAPS:]) + f" {int(state[TO_PLAY])}"

    def parse_position(self, text: str) -> np.ndarray:
        match = _POSITION.match(text)
        if not match:
            raise InvalidPositionError(
                f"Nim position {excerpt(text)} is malformed: expected {self.position_format}"
            )
        heaps = tuple(int(h) for h in match.group(1).split(","))
        if len(heaps) != len(self.heaps) or max(heaps) > max(self.heaps):
            raise InvalidPositionError(
                f"Nim position {excerpt(text)} does not fit this env (heaps={self.heaps}): it "
                f"needs {len(self.heaps)} heap(s) of at most {max(self.heaps)} stones; create the "
                f"env with nim_v0.env(heaps={heaps!r}) to play it"
            )
        return self._state_for(heaps, seat=int(match.group(2)))


def _is_count(value: object) -> bool:
    return isinstance(value, (int, np.integer)) and not isinstance(value, bool)


@strict_keywords("nim_v0.env()")
def env(
    heaps: tuple[int, ...] = (11,),
    max_take: int | None = 3,
    misere: bool = False,
    render_mode: str | None = None,
    illegal_action: str = "terminate",
) -> BoardGameEnv:
    """Nim as a PettingZoo AEC env (player_0 moves first)."""
    game = Nim(heaps=heaps, max_take=max_take, misere=misere)
    return BoardGameEnv(game, render_mode=render_mode, illegal_action=illegal_action)


raw_env = env
