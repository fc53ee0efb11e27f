"""Gumbel AlphaZero's root (Danihelka et al. 2022): sequential halving over the top-m root
actions by Gumbel noise plus log prior, each phase giving the survivors equal simulations,
and the improved policy from the completed Q-values
(:func:`~boardzoo.agents.mcts.rules.completed_q`: each child's value for the side to move at
the root, scaled by ``sigma``).
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from boardzoo.agents.mcts.rules import SearchConfig, completed_q
from boardzoo.agents.mcts.tree import PRIOR, Tree
from boardzoo.timecontrol import monotonic

__all__ = ["sequential_halving"]


def sequential_halving(
    tree: Tree,
    cfg: SearchConfig,
    width: int,
    budget: int,
    deadline: float,
    np_rng: np.random.Generator,
    run_forced: Callable[[int, int], int],
) -> tuple[int, int, np.ndarray]:
    """Sequential halving over the ``width`` best root children by Gumbel noise + log prior
    within ``budget`` simulations (and ``deadline``, 0 for none); ``run_forced(n, child)``
    runs n simulations through that root child and returns how many ran. Returns
    (simulations run, the chosen child's row, the improved policy over the root children)."""
    children = np.array(tree.children())
    logits = np.log(np.maximum(tree.floats[children, PRIOR], 1e-12))
    gumbel = np_rng.gumbel(size=children.size)
    m = min(width, children.size)
    remaining = list(np.argsort(-(gumbel + logits), kind="stable")[:m])
    phases = max(1, math.ceil(math.log2(m))) if m > 1 else 1
    done = 0
    for _phase in range(phases):
        per_action = max(1, (budget - 1) // (phases * len(remaining)))
        for k in remaining:
            done += run_forced(per_action, int(children[k]))
        sigma = completed_q(tree.ints, tree.floats, 0, cfg, children.size)
        scores = gumbel + logits + sigma
        remaining = sorted(remaining, key=lambda k: -scores[k])[: max(1, len(remaining) // 2)]
        if len(remaining) == 1 or (deadline and monotonic() > deadline):
            break
    choice = int(children[max(remaining, key=lambda k: scores[k])])
    improved = np.exp(logits + sigma - (logits + sigma).max())
    return done, choice, improved / improved.sum()

