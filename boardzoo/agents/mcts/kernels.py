"""Which compiled functions a search of one of boardzoo's games runs: the game's legal-move and
move kernels, the leaf (a playout, traced for RAVE, or a compiled evaluation) and the move
priors, chosen from the game's knowledge once per game class and leaf kind, and compiled
(warmed up) before any time budget starts, since :mod:`.fast` cannot cache them on disk.
"""

from __future__ import annotations

from typing import Any

from boardzoo.agents.mcts import fast
from boardzoo.agents.mcts.rules import SearchConfig
from boardzoo.agents.mcts.tree import Tree
from boardzoo.errors import InvalidOptionError
from boardzoo.rng import make_rng

__all__ = ["compiled_kernels", "leaf_function", "warm_up"]

_KERNEL_CACHE: dict[tuple, tuple] = {}
_WARM: set[tuple] = set()


def compiled_kernels(game: Any, rollout: str, evaluator: Any, rave: bool) -> tuple:
    """(legal, apply, leaf, priors) compiled functions for the fast loop, built once per
    game class and leaf kind."""
    key = (type(game), rollout, evaluator, rave)
    if key not in _KERNEL_CACHE:
        _KERNEL_CACHE[key] = (
            game.legal_mask_kernel,
            game.apply_kernel,
            leaf_function(game, rollout, evaluator, rave),
            _priors_function(game, evaluator),
        )
    return _KERNEL_CACHE[key]


def _heuristic_evaluation(game: Any):
    knowledge = game.knowledge
    if knowledge is None or knowledge.evaluate_kernel is None:
        raise InvalidOptionError(f"{game.name} has no heuristic evaluation; use evaluator=None")
    return knowledge.evaluate_kernel


def _priors_function(game: Any, evaluator: Any):
    """With the heuristic evaluator a softmax over the evaluations of the positions each
    legal move leads to; else the game's own move priors (``knowledge.prior_kernel``) where
    it has them; else uniform priors. Every selection reads them: the children are tried in
    prior order (:func:`~boardzoo.agents.mcts.rules.expand`)."""
    if evaluator == "heuristic":
        return fast.make_evaluation_priors(game.apply_kernel, _heuristic_evaluation(game))
    knowledge = game.knowledge
    if knowledge is not None and knowledge.prior_kernel is not None:
        return knowledge.prior_kernel
    return fast.uniform_priors


def leaf_function(game: Any, rollout: str, evaluator: Any, rave: bool):
    """The leaf value: the compiled heuristic evaluation, else a playout (the knowledge's
    policy with ``rollout="heuristic"``, traced for RAVE) scored by the game's playout
    value (seat 0's view, as every leaf of the compiled loop)."""
    if evaluator == "heuristic":
        return fast.make_evaluation_leaf(_heuristic_evaluation(game))
    value = getattr(game.knowledge, "playout_value_kernel", None) or fast.outcome_value
    knowledge = game.knowledge if rollout == "heuristic" else None
    if rave:
        trace = getattr(knowledge, "playout_trace_kernel", None) or game.playout_trace_kernel
        if trace is None:
            raise InvalidOptionError(f"rave=True needs move traces from {game.name}'s playouts")
        return fast.make_traced_rollout_leaf(trace, value)
    return fast.make_rollout_leaf(
        getattr(knowledge, "playout_kernel", None) or game.playout_kernel, value
    )


def warm_up(game: Any, kernels: tuple, cfg: SearchConfig) -> None:
    """Compile the fast loop for this game before any time budget starts."""
    key = (type(game), kernels, cfg.rave)
    if key in _WARM:
        return
    scratch = Tree(1 << 12)
    fast.run_simulations(
        scratch.ints,
        scratch.floats,
        scratch.meta,
        cfg,
        game.initial_state(),
        2,
        0.0,
        make_rng(0),
        kernels[0],
        kernels[1],
        kernels[2],
        kernels[3],
        game.num_actions,
        -1,
    )
    _WARM.add(key)
