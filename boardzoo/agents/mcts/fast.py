"""The compiled simulation loop for boardzoo's own games: select, expand, evaluate (random or
heuristic playout, or a compiled evaluation), back up, prove — all inside numba over the
flat-array tree.

The game and the search's variant (its leaf evaluation and move priors) come as a tag
(:mod:`boardzoo.envs.tags`, :func:`~boardzoo.agents.mcts.kernels.search_tag`), so the loop
is compiled once per game and variant and cached on disk; the tree's arrays and the run's
budget come as named bundles (:class:`~.tree.TreeArrays`, :class:`Run`).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from boardzoo.agents.mcts.kernels import SEAT0_RETURN, leaf_value, move_priors
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
from boardzoo.envs.core import OUTCOME, TO_PLAY
from boardzoo.envs.tags import apply, game_function, legal_mask
from boardzoo.timecontrol import monotonic

# run status
RAN_ALL, NEED_SPACE, ROOT_PROVEN, OUT_OF_TIME = 0, 1, 2, 3
MAX_TREE_DEPTH = 4096


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


class Run(NamedTuple):
    """One call of the loop: at most ``simulations``, until ``deadline`` on the monotonic
    clock (0: none), every one through root child row ``forced_child`` when >= 0 (Gumbel's
    sequential halving); ``num_actions`` sizes the scratch arrays."""

    simulations: int
    deadline: float
    forced_child: int
    num_actions: int


class Scratch(NamedTuple):
    """Work arrays of one simulation: the legal mask, the priors and heuristic values per
    action, the path of nodes, a playout's trace and RAVE's last plays per seat."""

    mask: np.ndarray
    priors: np.ndarray
    path: np.ndarray
    trace: np.ndarray
    last_play: np.ndarray


@game_function("the MCTS search", nogil=True)  # root parallelism: searches in threads
def run_simulations(tag, tree, cfg, root_state, run, rng):
    """Run up to ``run.simulations`` simulations from ``root_state`` on ``tree`` (a
    :class:`~.tree.TreeArrays`) with settings ``cfg``, stopping at ``run.deadline`` or when the
    root is proven. Returns (done, status)."""
    scratch = Scratch(
        np.zeros(run.num_actions, np.bool_),
        np.zeros((2, run.num_actions)),  # priors and heuristic values per action
        np.empty(MAX_TREE_DEPTH, np.int64),
        np.zeros(65536 if cfg.rave else 0, np.int64),  # zeroed: playouts may keep tables in it
        np.full((2, run.num_actions if cfg.rave else 0), -1, np.int64),
    )
    state = np.empty_like(root_state)
    done = 0
    while done < run.simulations:
        if run.deadline > 0.0 and monotonic() > run.deadline:
            return done, OUT_OF_TIME
        if cfg.solver and tree.ints[0, PROVEN] != UNKNOWN:
            return done, ROOT_PROVEN
        state[:] = root_state
        status = simulate(tag, tree, cfg, state, rng, scratch, run.forced_child)
        if status != RAN_ALL:
            return done, status
        done += 1
    return done, RAN_ALL


@njit
def walk_to_leaf(tag, ints, floats, cfg, state, path, forced_child, last_play):
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
        apply(tag, state, ints[child, ACTION])
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
def simulate(tag, tree, cfg, state, rng, scratch, forced_child):
    """One simulation from the root, whose state ``state`` holds (and which is played on in
    place); RAN_ALL, or NEED_SPACE (the tree unchanged) when the tree is full."""
    ints, floats, last_play = tree.ints, tree.floats, scratch.last_play
    if cfg.rave:
        last_play[:, :] = -1
    node, length = walk_to_leaf(tag, ints, floats, cfg, state, scratch.path, forced_child,
                                last_play)
    settled, value0 = settle(ints, floats, cfg, node, state)
    if not settled:
        to_move = np.int64(state[TO_PLAY])
        mask, priors = scratch.mask, scratch.priors
        legal_mask(tag, state, mask)
        move_priors(tag, state, mask, priors[0], priors[1])
        if not expand(ints, floats, tree.meta, node, to_move, mask, priors[0], priors[1],
                      cfg.prior_visits if cfg.rave else 0.0, cfg.tie_salt):
            return NEED_SPACE
        value0, count = leaf_value(tag, state, rng, scratch.trace)
        if cfg.rave:
            for j in range(count):
                seat = to_move if j % 2 == 0 else 1 - to_move
                last_play[seat, scratch.trace[j]] = length - 1 + j
    back_up(ints, floats, cfg, scratch.path, length, value0, last_play)
    return RAN_ALL


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
    "Run",
    "Scratch",
    "root_child_of_action",
    "run_simulations",
]
