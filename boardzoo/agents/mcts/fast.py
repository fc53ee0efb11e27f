"""The compiled simulation loop for boardzoo's own games: select, expand, evaluate (random or
heuristic playout, or a compiled evaluation), back up, prove — all inside numba over the
flat-array tree, with the game's kernels passed in as arguments.

Functions here take other compiled functions as arguments, so numba compiles them once per
process and game (they cannot be cached on disk); :meth:`MCTSAgent` warms them up before
any time budget starts.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from boardzoo.agents.mcts.rules import (
    backup,
    backup_amaf,
    backup_minimax,
    expand,
    mark_terminal,
    propagate_proof,
    select_child,
)
from boardzoo.agents.mcts.tree import (
    ACTION,
    COUNT,
    DRAW,
    FIRST,
    LOSS,
    MINIMAX,
    MOVER,
    NOT_EXPANDED,
    PROVEN,
    TO_MOVE,
    UNKNOWN,
    WIN,
)
from boardzoo.clock import monotonic
from boardzoo.envs.core import OUTCOME, TO_PLAY

# run status
RAN_ALL, NEED_SPACE, ROOT_PROVEN, OUT_OF_TIME = 0, 1, 2, 3
MAX_TREE_DEPTH = 4096
SEAT0_RETURN = np.array([0.0, 1.0, -1.0, 0.0])  # by outcome code


@njit(cache=True)
def proven_for_mover(outcome, mover):
    """The PROVEN code of a finished game's outcome for ``mover``."""
    if outcome == 3:
        return DRAW
    return WIN if outcome - 1 == mover else LOSS


@njit(cache=True)
def seat0_value_of_proof(proven, mover):
    if proven == DRAW:
        return 0.0
    value = 1.0 if proven == WIN else -1.0
    return value if mover == 0 else -value


@njit(cache=True)
def outcome_value(state, outcome):
    """Seat 0's value of a finished playout: its outcome, +1 / 0 / -1 (the games' default;
    a game's ``knowledge.playout_value_kernel`` may shade it)."""
    return SEAT0_RETURN[outcome]


def make_rollout_leaf(playout_fn, value_fn):
    """Leaf value = seat 0's value (``value_fn``) of one playout's end; no trace."""

    @njit
    def leaf(state, rng, trace):
        outcome = playout_fn(state, rng)
        return value_fn(state, outcome), 0

    return leaf


def make_traced_rollout_leaf(trace_fn, value_fn):
    """Leaf value (``value_fn``) of one playout that also records its moves in ``trace``
    (for RAVE)."""

    @njit
    def leaf(state, rng, trace):
        count = trace_fn(state, rng, trace)
        return value_fn(state, np.int64(state[OUTCOME])), count

    return leaf


def make_evaluation_leaf(evaluate_fn):
    """Leaf value = a compiled evaluation (side to move's view), converted to seat 0."""

    @njit
    def leaf(state, rng, trace):
        value = evaluate_fn(state)
        return (value if state[TO_PLAY] == 0 else -value), 0

    return leaf


@njit(nogil=True)  # root parallelism runs several searches in threads
def run_simulations(
    ints,
    floats,
    meta,
    cfg,
    root_state,
    simulations,
    deadline,
    rng,
    legal_fn,
    apply_fn,
    leaf_fn,
    priors_fn,
    num_actions,
    forced_child,
):
    """Run up to ``simulations`` simulations (stopping at ``deadline`` on the monotonic clock
    if it is > 0, or when the root is proven). ``forced_child`` >= 0 makes every simulation
    start with that root child (Gumbel's sequential halving). Returns (done, status)."""
    mask = np.zeros(num_actions, np.bool_)
    priors = np.zeros((2, num_actions))  # priors and heuristic values per action
    state = np.empty_like(root_state)
    path = np.empty(MAX_TREE_DEPTH, np.int64)
    trace = np.zeros(65536 if cfg.rave else 0, np.int64)  # zeroed: playouts may keep tables in it
    last_play = np.full((2, num_actions if cfg.rave else 0), -1, np.int64)
    solver = cfg.solver
    done = 0
    while done < simulations:
        if deadline > 0.0 and monotonic() > deadline:
            return done, OUT_OF_TIME
        if solver and ints[0, PROVEN] != UNKNOWN:
            return done, ROOT_PROVEN
        state[:] = root_state
        status = simulate(
            ints,
            floats,
            meta,
            cfg,
            state,
            rng,
            legal_fn,
            apply_fn,
            leaf_fn,
            priors_fn,
            mask,
            priors,
            path,
            trace,
            last_play,
            forced_child,
        )
        if status != RAN_ALL:
            return done, status
        done += 1
    return done, RAN_ALL


@njit
def walk_to_leaf(ints, floats, cfg, state, path, apply_fn, forced_child, last_play):
    """Selection from the root down to a leaf — a node not expanded yet (or pending), a
    finished game, or under MCTS-Solver a proven node — playing each move on ``state`` in
    place and recording the nodes in ``path``. Under RAVE ``last_play[seat, action]`` gets
    the step (0 = the root's move) of each tree move. Returns (leaf, length of the path)."""
    node, length = 0, 1
    path[0] = 0
    while state[OUTCOME] == 0 and ints[node, FIRST] >= 0 and length < MAX_TREE_DEPTH:
        if cfg.solver and ints[node, PROVEN] != UNKNOWN and node != 0:
            break
        if node == 0 and forced_child >= 0:
            child = forced_child
        else:
            child = select_child(ints, floats, node, cfg)
        if cfg.rave:
            last_play[ints[node, TO_MOVE], ints[child, ACTION]] = length - 1
        apply_fn(state, ints[child, ACTION])
        node = child
        path[length] = node
        length += 1
    return node, length


@njit
def settle(ints, floats, cfg, node, state):
    """(True, seat 0's value) for a leaf that needs no evaluation: a finished game (then
    proven under MCTS-Solver, and its implicit minimax value set) or a proven node; else
    (False, 0.0)."""
    outcome = np.int64(state[OUTCOME])
    if outcome != 0:
        value0 = SEAT0_RETURN[outcome]
        floats[node, MINIMAX] = value0 if ints[node, MOVER] == 0 else -value0
        if cfg.solver:
            mark_terminal(ints, node, proven_for_mover(outcome, ints[node, MOVER]))
        return True, value0
    if cfg.solver and ints[node, PROVEN] != UNKNOWN:
        return True, seat0_value_of_proof(ints[node, PROVEN], ints[node, MOVER])
    return False, 0.0


@njit
def back_up(ints, floats, cfg, path, length, value0, last_play):
    """Every backup a simulation ends with: values, RAVE, implicit minimax, proofs."""
    backup(ints, floats, path, length, value0)
    if cfg.rave:
        backup_amaf(ints, floats, path, length, last_play, value0)
    if cfg.implicit_minimax != 0.0:
        backup_minimax(ints, floats, path, length)
    if cfg.solver:
        propagate_proof(ints, path, length)


@njit
def simulate(
    ints,
    floats,
    meta,
    cfg,
    state,
    rng,
    legal_fn,
    apply_fn,
    leaf_fn,
    priors_fn,
    mask,
    priors,
    path,
    trace,
    last_play,
    forced_child,
):
    """One simulation from the root, whose state ``state`` holds (and which is played on in
    place); RAN_ALL, or NEED_SPACE (the tree unchanged) when the tree is full."""
    if cfg.rave:
        last_play[:, :] = -1
    node, length = walk_to_leaf(ints, floats, cfg, state, path, apply_fn, forced_child,
                                last_play)
    settled, value0 = settle(ints, floats, cfg, node, state)
    if not settled:
        to_move = np.int64(state[TO_PLAY])
        legal_fn(state, mask)
        priors_fn(state, mask, priors[0], priors[1])
        if not expand(ints, floats, meta, node, to_move, mask, priors[0], priors[1],
                      cfg.prior_visits if cfg.rave else 0.0, rng):
            return NEED_SPACE
        value0, count = leaf_fn(state, rng, trace)
        if cfg.rave:
            for j in range(count):
                seat = to_move if j % 2 == 0 else 1 - to_move
                last_play[seat, trace[j]] = length - 1 + j
    back_up(ints, floats, cfg, path, length, value0, last_play)
    return RAN_ALL


@njit(cache=True)
def uniform_priors(state, mask, out, values):
    """Equal priors over the legal actions (and no heuristic values: zeros)."""
    count = 0
    for a in range(mask.shape[0]):
        count += mask[a]
    for a in range(mask.shape[0]):
        out[a] = 1.0 / count if mask[a] else 0.0
        values[a] = 0.0


PRIOR_TEMPERATURE = 0.1  # on the [-1, 1] value scale; 0.05-0.5 tried on Othello


def make_evaluation_priors(apply_fn, evaluate_fn):
    """Priors from a compiled evaluation: ``softmax(v(a) / T)`` with ``v(a)`` the mover's
    value of the position after ``a`` (exact for finished games), ``T = PRIOR_TEMPERATURE``;
    ``values`` receives ``v(a)`` (the children's first implicit minimax values)."""

    @njit
    def priors(state, mask, out, values):
        mover = state[TO_PLAY]
        best = -np.inf
        child = np.empty_like(state)
        for a in range(mask.shape[0]):
            values[a] = 0.0
            if not mask[a]:
                continue
            child[:] = state
            apply_fn(child, a)
            if child[OUTCOME] != 0:
                value = SEAT0_RETURN[child[OUTCOME]]
                values[a] = value if mover == 0 else -value
            else:
                value = evaluate_fn(child)
                values[a] = value if child[TO_PLAY] == mover else -value
            best = max(best, values[a])
        total = 0.0
        for a in range(mask.shape[0]):
            out[a] = np.exp((values[a] - best) / PRIOR_TEMPERATURE) if mask[a] else 0.0
            total += out[a]
        for a in range(mask.shape[0]):
            out[a] /= total

    return priors


def root_child_of_action(ints, action: int) -> int:
    """The root's child row for ``action`` (-1 if the root is unexpanded or lacks it)."""
    first = int(ints[0, FIRST])
    if first == NOT_EXPANDED:
        return -1
    for child in range(first, first + int(ints[0, COUNT])):
        if ints[child, ACTION] == action:
            return child
    return -1


__all__ = [
    "RAN_ALL",
    "NEED_SPACE",
    "ROOT_PROVEN",
    "OUT_OF_TIME",
    "make_evaluation_leaf",
    "make_evaluation_priors",
    "make_rollout_leaf",
    "make_traced_rollout_leaf",
    "outcome_value",
    "root_child_of_action",
    "run_simulations",
    "uniform_priors",
]
