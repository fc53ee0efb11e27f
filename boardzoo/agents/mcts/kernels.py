"""What a compiled search of one of boardzoo's games evaluates: the leaf (a playout of the
game's own or its knowledge's policy, traced for RAVE, or the knowledge's compiled
evaluation) and the move priors (uniform, the knowledge's, or a softmax over evaluations).

A search's choice is its variant, named in its tag (:func:`search_tag`): ``leaf`` is
"random", "heuristic", "random_traced", "heuristic_traced" or "evaluation"; ``priors`` is
"uniform", "game" or "evaluation". :func:`leaf_value` and :func:`move_priors` are numba
overloads that pick the functions for the tag when the loop compiles, so each game and
variant compiles once and is cached on disk (:mod:`boardzoo.envs.tags`).

Leaf values are seat 0's (+1 a win for ``player_0``), as every leaf of the compiled loop.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import numpy as np
from numba import njit
from numba.extending import overload

from boardzoo.envs.core import OUTCOME, TO_PLAY
from boardzoo.envs.tags import game_tag, tag_game, tag_variant
from boardzoo.errors import InvalidOptionError

__all__ = ["PRIOR_TEMPERATURE", "SEAT0_RETURN", "leaf_value", "move_priors", "search_tag"]

SEAT0_RETURN = np.array([0.0, 1.0, -1.0, 0.0])  # by outcome code
PRIOR_TEMPERATURE = 0.1  # on the [-1, 1] value scale; 0.05-0.5 tried on Othello


def search_tag(game: Any, rollout: str, evaluator: Any, rave: bool,
               reads_priors: bool = True) -> tuple:
    """The tag of a search of ``game`` whose leaves are the heuristic evaluation
    (``evaluator == "heuristic"``) or playouts (``rollout``: "random", the game's own, or
    "heuristic", the knowledge's policy; traced under ``rave``), and whose priors are the
    evaluation's softmax, the knowledge's move priors where the game has them and the
    search ``reads_priors`` (:attr:`~boardzoo.agents.mcts.config.MCTSConfig.reads_priors`),
    or uniform: a node's children are tried in prior order, equal priors shuffled
    (:func:`~boardzoo.agents.mcts.rules.expand`), so a search that reads nothing else of
    them (plain UCT) pays for no prior kernel. InvalidOptionError where the game lacks what
    the variant needs."""
    knowledge = game.knowledge
    if evaluator == "heuristic":
        if knowledge is None or knowledge.evaluate_kernel is None:
            raise InvalidOptionError(f"{game.name} has no heuristic evaluation; use evaluator=None")
        leaf, priors = "evaluation", "evaluation"
    else:
        leaf = rollout + ("_traced" if rave else "")
        has_priors = knowledge is not None and knowledge.prior_kernel is not None
        priors = "game" if has_priors and reads_priors else "uniform"
        if rave and _traced_playout(type(game), rollout) is None:
            raise InvalidOptionError(f"rave=True needs move traces from {game.name}'s playouts")
    return game_tag(game, leaf=leaf, priors=priors)


# ------------------------------------------------------------------------- leaves
def leaf_value(tag, state, rng, trace):
    """(seat 0's value of the leaf ``state``, moves written to ``trace``): the tag's leaf."""
    return _leaf_function(type(tag))(state, rng, trace)


@overload(leaf_value)
def _leaf_value(tag, state, rng, trace):
    leaf = _leaf_function(tag.instance_class)
    return lambda tag, state, rng, trace: leaf(state, rng, trace)


@cache
def _leaf_function(tag_class: type) -> Any:
    """The compiled ``leaf(state, rng, trace) -> (value0, plies traced)`` of a tag."""
    game, kind = tag_game(tag_class), tag_variant(tag_class, "leaf")
    knowledge = game.knowledge
    if kind == "evaluation":
        return _evaluation_leaf(knowledge.evaluate_kernel)
    value = getattr(knowledge, "playout_value_kernel", None) or outcome_value
    rollout, _, traced = kind.partition("_")
    if traced:
        return _traced_rollout_leaf(_traced_playout(game, rollout), value)
    policy = getattr(knowledge, "playout_kernel", None) if rollout == "heuristic" else None
    return _rollout_leaf(policy or game.kernels.playout, value)


def _traced_playout(game_class: Any, rollout: str) -> Any:
    """The playout with a trace of the rollout's policy (None: the game has none)."""
    knowledge = game_class.knowledge if rollout == "heuristic" else None
    return getattr(knowledge, "playout_trace_kernel", None) or game_class.kernels.playout_trace


@njit(cache=True)
def outcome_value(state, outcome):
    """Seat 0's value of a finished playout: its outcome, +1 / 0 / -1 (the games' default;
    a game's ``knowledge.playout_value_kernel`` may shade it)."""
    return SEAT0_RETURN[outcome]


def _rollout_leaf(playout_fn, value_fn):
    """Leaf value = seat 0's value (``value_fn``) of one playout's end; no trace."""

    @njit
    def leaf(state, rng, trace):
        outcome = playout_fn(state, rng)
        return value_fn(state, outcome), 0

    return leaf


def _traced_rollout_leaf(trace_fn, value_fn):
    """Leaf value (``value_fn``) of one playout that also records its moves in ``trace``
    (for RAVE)."""

    @njit
    def leaf(state, rng, trace):
        count = trace_fn(state, rng, trace)
        return value_fn(state, np.int64(state[OUTCOME])), count

    return leaf


def _evaluation_leaf(evaluate_fn):
    """Leaf value = a compiled evaluation (side to move's view), converted to seat 0."""

    @njit
    def leaf(state, rng, trace):
        value = evaluate_fn(state)
        return (value if state[TO_PLAY] == 0 else -value), 0

    return leaf


# ------------------------------------------------------------------------- priors
def move_priors(tag, state, mask, out, values):
    """Fill ``out`` with the tag's move priors over the legal actions of ``mask`` and
    ``values`` with the moves' heuristic values (mover's view; zeros where none)."""
    _priors_function(type(tag))(state, mask, out, values)


@overload(move_priors)
def _move_priors(tag, state, mask, out, values):
    priors = _priors_function(tag.instance_class)

    def impl(tag, state, mask, out, values):
        priors(state, mask, out, values)

    return impl


@cache
def _priors_function(tag_class: type) -> Any:
    game, kind = tag_game(tag_class), tag_variant(tag_class, "priors")
    if kind == "evaluation":
        return _evaluation_priors(game.kernels.apply, game.knowledge.evaluate_kernel)
    if kind == "game":
        return game.knowledge.prior_kernel
    return uniform_priors


@njit(cache=True)
def uniform_priors(state, mask, out, values):
    """Equal priors over the legal actions (and no heuristic values: zeros)."""
    count = 0
    for a in range(mask.shape[0]):
        count += mask[a]
    for a in range(mask.shape[0]):
        out[a] = 1.0 / count if mask[a] else 0.0
        values[a] = 0.0


def _evaluation_priors(apply_fn, evaluate_fn):
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
