"""The rollout simulation loop in Python, over any :class:`~boardzoo.wrappers.EnvModel`: for
PettingZoo envs that are not boardzoo's (a batched Evaluator on any env goes through
:mod:`boardzoo.agents.mcts.batched` instead).

It applies the very same compiled rules as the fast loop (``select_child``, ``expand``,
``backup``, ``backup_amaf``, ``propagate_proof``); only state handling and leaf evaluation go
through the model. RAVE here credits the moves of the tree part of a simulation only (a
model's playout does not report its moves).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from boardzoo.agents.mcts.fast import (
    NEED_SPACE,
    OUT_OF_TIME,
    RAN_ALL,
    ROOT_PROVEN,
    seat0_value_of_proof,
)
from boardzoo.agents.mcts.rules import (
    backup,
    backup_amaf,
    expand,
    mark_terminal,
    propagate_proof,
    select_child,
)
from boardzoo.agents.mcts.tree import (
    ACTION,
    DRAW,
    FIRST,
    LOSS,
    MOVER,
    NOT_EXPANDED,
    PROVEN,
    TO_MOVE,
    UNKNOWN,
    WIN,
    Tree,
)
from boardzoo.timecontrol import monotonic


def run_generic(
    tree: Tree,
    cfg: Any,
    model: Any,
    root: Any,
    simulations: int,
    deadline: float,
    np_rng: np.random.Generator,
    forced_child: int = -1,
) -> tuple[int, int]:
    """Up to ``simulations`` simulations from ``root``; returns (done, status) like the
    compiled loop (``deadline`` is on :func:`boardzoo.timecontrol.monotonic`; 0 = none)."""
    for done in range(simulations):
        if deadline > 0 and monotonic() > deadline:
            return done, OUT_OF_TIME
        if cfg.solver and tree.ints[0, PROVEN] != UNKNOWN:
            return done, ROOT_PROVEN
        if _simulate(tree, cfg, model, root, np_rng, forced_child) == NEED_SPACE:
            return done, NEED_SPACE
    return simulations, RAN_ALL


def _simulate(tree, cfg, model, root, np_rng, forced_child) -> int:
    ints, floats = tree.ints, tree.floats
    solver, rave = cfg.solver, cfg.rave
    last_play = np.full((2, model.num_actions), -1, np.int64) if rave else None
    state, node, path = root, 0, [0]
    while not model.is_terminal(state) and ints[node, FIRST] != NOT_EXPANDED:
        if solver and node != 0 and ints[node, PROVEN] != UNKNOWN:
            break
        child = (
            forced_child
            if node == 0 and forced_child >= 0
            else select_child(ints, floats, node, cfg)
        )
        if rave:
            last_play[ints[node, TO_MOVE], ints[child, ACTION]] = len(path) - 1
        state = model.step(state, int(ints[child, ACTION]))
        node = child
        path.append(node)
    if model.is_terminal(state):
        value0 = _seat0_value(model.returns(state))
        if solver:
            mark_terminal(ints, node, proof_of_returns(value0, int(ints[node, MOVER])))
    elif solver and ints[node, PROVEN] != UNKNOWN:
        value0 = seat0_value_of_proof(int(ints[node, PROVEN]), int(ints[node, MOVER]))
    else:
        to_move = model.to_play(state)
        mask = model.legal_mask(state)
        priors = mask / mask.sum()
        value0 = _seat0_value(model.playout(state, np_rng))
        values = np.zeros(model.num_actions)  # no heuristic values through a model
        if not expand(ints, floats, tree.meta, node, to_move, mask, priors, values, 0.0,
                      cfg.tie_salt):
            return NEED_SPACE
    path_array = np.asarray(path, dtype=np.int64)
    backup(ints, floats, path_array, len(path), value0)
    if rave:
        backup_amaf(ints, floats, path_array, len(path), last_play, value0)
    if solver:
        propagate_proof(ints, path_array, len(path))
    return RAN_ALL


def _seat0_value(returns: np.ndarray) -> float:
    """Seat 0's value of per-seat returns (zero-sum: (r0 - r1) / 2)."""
    return float(returns[0] - returns[1]) / 2.0


def proof_of_returns(value0: float, mover: int) -> int:
    value = value0 if mover == 0 else -value0
    return WIN if value > 0 else LOSS if value < 0 else DRAW
