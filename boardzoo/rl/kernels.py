"""Compiled batch kernels for learners: N games stepped, reset and observed in one call.

:func:`batch_kernels` builds them for one game class from its kernels (``legal_mask``,
``apply``, optionally ``observe``). Each env ``i`` has a state row ``states[i]``, the
learner's seat ``seats[i]`` and its own xorshift generator ``rngs[i]`` (shape ``[1]``, see
:mod:`boardzoo.rng`), so a vector env and N single envs seeded alike draw the same numbers.
The arrays travel in named bundles, as the MCTS loop's do: :class:`Games` (states, seats,
generators), :class:`Opponent` (the compiled opponent and its work arrays),
:class:`SelfPlayRows`, :class:`Restart` and :class:`StepResults` for self-play batches.
The functions called from Python take their bundles as plain tuples, in the bundle's field
order, and name them inside: numba types a plain tuple of arrays in C at each call, a named
tuple in Python, about 1 us more a bundle (a two-seat step of 64 games takes about 20).

Compiled opponents (``kind``):

* :data:`RANDOM`: a uniformly random legal move;
* :data:`WIN_OR_BLOCK`: a winning move if there is one, otherwise a random move after which
  the learner has no immediate win (that blocks a one-move threat and never sets one up),
  otherwise a random move. It needs only the rules' kernels, so every game has it.
* :data:`EXTERNAL`: no compiled opponent; the caller plays the opponent's replies.

Self-play batches (:class:`boardzoo.rl.TwoPlayerVectorEnv`) have no learner seat: the caller
plays both seats, so ``selfplay_step`` plays every env's action for its side to move, scores
both seats, restarts finished games at once and observes the new side to move.

Each function takes the game's tag (:mod:`boardzoo.envs.tags`) as its first argument, so it
is compiled once per game and cached on disk; :func:`batch_kernels` binds one game's tag.
"""

from __future__ import annotations

from functools import partial
from typing import Any, NamedTuple

import numpy as np
from numba import njit

from boardzoo.envs.core import DRAW, ONGOING, OUTCOME, P0_WINS, TO_PLAY
from boardzoo.envs.tags import apply, game_function, game_tag, legal_mask
from boardzoo.envs.tags import observe as observe_one
from boardzoo.rng import below, choose_true

__all__ = ["EXTERNAL", "RANDOM", "WIN_OR_BLOCK", "OPPONENT_KINDS", "BatchKernels", "Games",
           "Opponent", "Restart", "SelfPlayRows", "StepResults", "batch_kernels"]

EXTERNAL, RANDOM, WIN_OR_BLOCK = -1, 0, 1
#: opponent names that have a compiled form
OPPONENT_KINDS = {"random": RANDOM, "win_or_block": WIN_OR_BLOCK}


class BatchKernels(NamedTuple):
    """The batch functions of one game, its tag bound (see :func:`batch_kernels`);
    ``observe`` is None for a game without a compiled ``observe`` kernel."""

    opponent_action: Any
    random_opening: Any
    step: Any
    reset: Any
    rewards: Any
    masks: Any
    observe: Any
    selfplay_step: Any
    selfplay_restart: Any


class Games(NamedTuple):
    """A vector env's games: the state rows, the learner's seats and each game's
    generator."""

    states: np.ndarray
    seats: np.ndarray
    rngs: np.ndarray


class Opponent(NamedTuple):
    """The compiled opponent (``kind``) and its work arrays: a legal mask, a move order, the
    position after a move and a scratch state."""

    kind: int
    mask: np.ndarray
    order: np.ndarray
    after: np.ndarray
    scratch: np.ndarray


class SelfPlayRows(NamedTuple):
    """A two-seat env's games and what it shows of each: the state rows, the generators,
    and the side to move's legal mask, planes and seat."""

    states: np.ndarray
    rngs: np.ndarray
    legal: np.ndarray
    planes: np.ndarray
    to_play: np.ndarray


class Restart(NamedTuple):
    """How a game starts again: from ``initial`` after a random opening of up to
    ``opening_plies`` moves (``scratch`` and ``moves`` its work arrays)."""

    initial: np.ndarray
    opening_plies: int
    scratch: np.ndarray
    moves: np.ndarray


class StepResults(NamedTuple):
    """What a two-seat step reports per game: both seats' rewards, the end, an illegal
    action."""

    rewards: np.ndarray
    terminated: np.ndarray
    illegal: np.ndarray


@njit(cache=True)
def learner_reward(outcome, seat):
    """The learner's reward for an outcome code: +1 win, -1 loss, 0 draw or ongoing."""
    if outcome == ONGOING or outcome == DRAW:
        return 0.0
    return 1.0 if outcome == P0_WINS + seat else -1.0


def batch_kernels(game: Any) -> BatchKernels:
    """The batch functions of ``game`` (a Game or its class), compiled once per game (and
    cached on disk for boardzoo's own games)."""
    tag = game_tag(game)
    observe = None if game.kernels.observe is None else partial(observe_batch, tag)
    return BatchKernels(partial(opponent_action, tag), partial(random_opening, tag),
                        partial(step, tag), partial(reset, tag), rewards, partial(masks, tag),
                        observe, partial(selfplay_step, tag), partial(selfplay_restart, tag))


@njit
def shuffled_legal(tag, state, rng, mask, order):
    """The legal actions of ``state`` in a random order: fills ``order``, returns count."""
    count = legal_mask(tag, state, mask)
    k = 0
    for a in range(mask.shape[0]):
        if mask[a]:
            order[k] = a
            k += 1
    for j in range(count - 1, 0, -1):
        swap = below(rng, j + 1)
        order[j], order[swap] = order[swap], order[j]
    return count


@njit
def loses_at_once(tag, state, mover, mask, scratch):
    """Whether the side to move in ``state`` (the mover's opponent) can win in one move."""
    winning = P0_WINS + 1 - mover
    legal_mask(tag, state, mask)
    for b in range(mask.shape[0]):
        if mask[b]:
            scratch[:] = state
            apply(tag, scratch, b)
            if scratch[OUTCOME] == winning:
                return True
    return False


@njit
def win_or_block(tag, state, rng, mask, order, after, scratch):
    mover = np.int64(state[TO_PLAY])
    count = shuffled_legal(tag, state, rng, mask, order)
    for k in range(count):
        after[:] = state
        apply(tag, after, order[k])
        if after[OUTCOME] == P0_WINS + mover:
            return order[k]
    for k in range(count):
        after[:] = state
        apply(tag, after, order[k])
        if after[OUTCOME] != ONGOING or not loses_at_once(tag, after, mover, mask, scratch):
            return order[k]
    return order[0]


@njit
def _random_opening(tag, state, max_plies, rng, mask, after, moves):
    """Play a uniformly drawn number (0 to ``max_plies``) of uniformly random legal moves
    on ``state`` in place, stopping short of any move that would end the game; the moves
    go to ``moves``, their count is returned."""
    plies = below(rng, max_plies + 1) if max_plies > 0 else 0
    for k in range(plies):
        after[:] = state
        move = choose_true(rng, mask, legal_mask(tag, state, mask))
        apply(tag, after, move)
        if after[OUTCOME] != ONGOING:
            return k
        state[:] = after
        moves[k] = move
    return plies


@njit
def _opponent_tables(kind, num_actions, state):
    return Opponent(kind, np.empty(num_actions, np.bool_), np.empty(num_actions, np.int64),
                    np.empty_like(state), np.empty_like(state))


@njit
def _opponent_action(tag, state, rng, opponent):
    """The compiled opponent's move in ``state`` (``opponent.kind`` RANDOM or WIN_OR_BLOCK)."""
    if opponent.kind == RANDOM:
        return choose_true(rng, opponent.mask, legal_mask(tag, state, opponent.mask))
    return win_or_block(tag, state, rng, opponent.mask, opponent.order, opponent.after,
                        opponent.scratch)


@njit
def reply(tag, games, i, opponent):
    """The opponent's moves in game ``i`` until the learner is to move or the game ends."""
    state = games.states[i]
    while state[OUTCOME] == ONGOING and np.int64(state[TO_PLAY]) != games.seats[i]:
        apply(tag, state, _opponent_action(tag, state, games.rngs[i], opponent))


@game_function("the vector env's step")
def step(tag, game_fields, actions, active, kind, illegal, num_actions):
    """Play ``actions[i]`` for the learner in every game with ``active[i]``, then the
    compiled opponent's replies (unless ``kind`` is EXTERNAL). An illegal action leaves the
    state as it was and sets ``illegal[i]``. ``game_fields``: :class:`Games`' fields as a
    plain tuple (see the module docstring)."""
    games = Games(*game_fields)
    opponent = _opponent_tables(kind, num_actions, games.states[0])
    mask = opponent.mask
    for i in range(games.states.shape[0]):
        illegal[i] = False
        if not active[i]:
            continue
        legal_mask(tag, games.states[i], mask)
        a = actions[i]
        illegal[i] = a < 0 or a >= num_actions or not mask[a]
        if illegal[i]:
            continue
        apply(tag, games.states[i], a)
        if kind != EXTERNAL:
            reply(tag, games, i, opponent)


@game_function("the vector env's reset")
def reset(tag, game_fields, initial, which, random_seat, opening_plies, kind, num_actions):
    """Restart the games with ``which[i]`` (``game_fields`` as for :func:`step`): the
    initial state, a seat drawn when ``random_seat``, a random opening of up to
    ``opening_plies`` moves, and the compiled opponent's first moves when it is to move
    (from the initial position instead, if its reply to the opening ends the game)."""
    games = Games(*game_fields)
    opponent = _opponent_tables(kind, num_actions, initial)
    moves = np.empty(max(opening_plies, 1), np.int64)
    states = games.states
    for i in range(states.shape[0]):
        if not which[i]:
            continue
        states[i] = initial
        if random_seat:
            games.seats[i] = below(games.rngs[i], 2)
        _random_opening(tag, states[i], opening_plies, games.rngs[i], opponent.mask,
                        opponent.after, moves)
        if kind != EXTERNAL:
            reply(tag, games, i, opponent)
            if states[i][OUTCOME] != ONGOING:  # the reply to the opening ended the game
                states[i] = initial
                reply(tag, games, i, opponent)


@njit(cache=True)
def rewards(states, seats, illegal, out_rewards, out_terminated):
    """The learner's rewards and end flags (an illegal action: -1 and the end)."""
    for i in range(states.shape[0]):
        if illegal[i]:
            out_rewards[i], out_terminated[i] = -1.0, True
        else:
            outcome = states[i][OUTCOME]
            out_rewards[i] = learner_reward(outcome, seats[i])
            out_terminated[i] = outcome != ONGOING


@game_function("the vector env's masks")
def masks(tag, states, done, out):
    """The learner's legal masks ``out`` (bool ``[N, num_actions]``); zeros where done."""
    for i in range(states.shape[0]):
        if done[i]:
            out[i] = False
        else:
            legal_mask(tag, states[i], out[i])


@game_function("the vector env's observations")
def observe_batch(tag, states, seats, out):
    """The learner's planes of every env into ``out`` (float32 ``[N, H, W, C]``)."""
    for i in range(states.shape[0]):
        observe_one(tag, states[i], seats[i], out[i])



@njit
def selfplay_observe_row(tag, rows, i):
    """Game ``i``'s side to move, its legal mask and its planes into ``rows``."""
    state = rows.states[i]
    rows.to_play[i] = np.int64(state[TO_PLAY])
    legal_mask(tag, state, rows.legal[i])
    observe_one(tag, state, rows.to_play[i], rows.planes[i])


@njit
def _restart_tables(initial, opening_plies):
    return Restart(initial, opening_plies, np.empty_like(initial),
                   np.empty(max(opening_plies, 1), np.int64))


@njit
def selfplay_restart_row(tag, rows, i, restart):
    """Start game ``i`` again (after a random opening) and observe it from the mover."""
    rows.states[i] = restart.initial
    _random_opening(tag, rows.states[i], restart.opening_plies, rows.rngs[i], rows.legal[i],
                    restart.scratch, restart.moves)
    selfplay_observe_row(tag, rows, i)


@game_function("the two-seat env's reset")
def selfplay_restart(tag, row_fields, initial, opening_plies):
    """Start every game (see ``selfplay_restart_row``); ``row_fields``:
    :class:`SelfPlayRows`' fields as a plain tuple (see the module docstring)."""
    rows = SelfPlayRows(*row_fields)
    restart = _restart_tables(initial, opening_plies)
    for i in range(rows.states.shape[0]):
        selfplay_restart_row(tag, rows, i, restart)


@game_function("the two-seat env's step")
def selfplay_step(tag, row_fields, actions, zero_sum, initial, opening_plies, out_fields):
    """Play ``actions[i]`` for the side to move in every game (``row_fields`` as for
    :func:`selfplay_restart`; its ``legal`` holds the masks of the current positions); into
    ``out_fields`` (:class:`StepResults`' fields as a plain tuple) ``rewards[i]`` (shape
    [2], per seat) and ``terminated[i]`` of that move; a finished game starts again at once,
    and ``legal``, ``planes`` and ``to_play`` become those of the positions after the step.
    An illegal action (``illegal[i]``) ends the game with -1 for its mover and 0 for the
    other seat (+1 if ``zero_sum``)."""
    rows, out = SelfPlayRows(*row_fields), StepResults(*out_fields)
    restart = _restart_tables(initial, opening_plies)
    num_actions = rows.legal.shape[1]
    rewards, terminated, illegal = out.rewards, out.terminated, out.illegal
    for i in range(rows.states.shape[0]):
        a, mover = actions[i], rows.to_play[i]
        illegal[i] = a < 0 or a >= num_actions or not rows.legal[i, a]
        if illegal[i]:
            rewards[i, mover] = -1.0
            rewards[i, 1 - mover] = 1.0 if zero_sum else 0.0
            terminated[i] = True
        else:
            apply(tag, rows.states[i], a)
            outcome = rows.states[i][OUTCOME]
            rewards[i, 0] = learner_reward(outcome, 0)
            rewards[i, 1] = learner_reward(outcome, 1)
            terminated[i] = outcome != ONGOING
        if terminated[i]:
            selfplay_restart_row(tag, rows, i, restart)
        else:
            selfplay_observe_row(tag, rows, i)


@game_function("the compiled opponent")
def opponent_action(tag, state, kind, rng, mask, order, after, scratch):
    """The compiled opponent's move in ``state`` (``kind`` RANDOM or WIN_OR_BLOCK), called
    from Python with its work arrays."""
    return _opponent_action(tag, state, rng, Opponent(kind, mask, order, after, scratch))


@game_function("the random openings")
def random_opening(tag, state, max_plies, rng, mask, after, moves):
    """:func:`_random_opening`, called from Python."""
    return _random_opening(tag, state, max_plies, rng, mask, after, moves)
