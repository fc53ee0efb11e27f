"""What a finished (or paused) search knows about its root, read from the tree in one place.

Everything outside the search itself — choosing the move, the analysis a GUI shows, the
training targets of self-play — reads a :class:`TreeSummary`, never the tree's columns.

Per-child arrays are in child order (the tree's row order: action order, or prior order
under progressive widening), which is the order ties are broken in. Values and proofs are
from the view of the side to move at the root.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from boardzoo.agents.mcts.rules import visit_policy
from boardzoo.agents.mcts.tree import (
    ACTION,
    DEPTH,
    DRAW,
    LOSS,
    PRIOR,
    PROVEN,
    UNKNOWN,
    VALUE,
    VISITS,
    WIN,
    Tree,
)

__all__ = ["OUTCOME_NAMES", "TreeSummary", "summarize"]

#: a proof's name for the side it is proven for
OUTCOME_NAMES = {WIN: "win", LOSS: "loss", DRAW: "draw"}
#: longest principal variation read from a tree
MAX_LINE = 32


class TreeSummary(NamedTuple):
    """The root of a search tree.

    ``actions``, ``visits``, ``values`` (summed), ``prior``, ``proven`` (WIN/LOSS/DRAW/
    UNKNOWN for the side to move when it plays that child) and ``depth`` (plies to the end
    of a proven child under perfect play) are per root child, in child order; ``value`` is
    the root's mean value and ``root_proven`` its proof name ("win"/"loss"/"draw" or None),
    both for the side to move; ``lines`` the principal variation starting with each child
    (most visited children onward); ``simulations`` how many simulations the root has seen.
    """

    num_actions: int
    actions: np.ndarray
    visits: np.ndarray
    values: np.ndarray
    prior: np.ndarray
    proven: np.ndarray
    depth: np.ndarray
    value: float
    root_proven: str | None
    simulations: int
    lines: dict[int, list[int]]

    @property
    def expanded(self) -> bool:
        return self.actions.size > 0

    def visit_counts(self) -> np.ndarray:
        """Visits per action, shape ``[num_actions]``."""
        out = np.zeros(self.num_actions)
        out[self.actions] = self.visits
        return out

    def q_values(self) -> np.ndarray:
        """Mean value per action for the side to move, NaN where unvisited or illegal."""
        out = np.full(self.num_actions, np.nan)
        seen = self.visits > 0
        out[self.actions[seen]] = self.values[seen] / self.visits[seen]
        return out

    def priors(self) -> np.ndarray:
        """Selection prior per action, shape ``[num_actions]``."""
        out = np.zeros(self.num_actions)
        out[self.actions] = self.prior
        return out

    def policy(self, temperature: float = 1.0) -> np.ndarray:
        """Move probabilities over all actions: visits with ``temperature`` (0: the most
        visited); with no child visited yet, the priors (uniform where they are none)."""
        if self.visits.sum() > 0:
            out = np.zeros(self.num_actions)
            out[self.actions] = visit_policy(self.visits, temperature)
            return out
        out = self.priors()
        if out.sum() <= 0:
            out[self.actions] = 1.0
        return out / out.sum()

    def principal_variation(self) -> list[int]:
        """Actions along the most visited children from the root (empty when unvisited)."""
        if not self.expanded or self.visits.max() == 0:
            return []
        return list(self.lines[int(self.actions[int(np.argmax(self.visits))])])


def summarize(tree: Tree, num_actions: int, solver: bool, lines: bool = True) -> TreeSummary:
    """The summary of ``tree``'s root (``solver``: read MCTS-Solver's proofs; ``lines``: the
    principal variation of every child, else only of the most visited one)."""
    ints, floats = tree.ints, tree.floats
    children = np.asarray(tree.children(), dtype=np.int64)
    visits = ints[children, VISITS].astype(np.int64)
    proven = ints[children, PROVEN] if solver else np.zeros(children.size, np.int32)
    root_visits = max(int(ints[0, VISITS]), 1)
    root_proof = int(ints[0, PROVEN]) if solver else UNKNOWN
    # the root's proof is for the seat that moved into it: the other side's result
    root_proven = {WIN: "loss", LOSS: "win", DRAW: "draw"}.get(root_proof)
    read = children if lines or children.size == 0 else children[[int(np.argmax(visits))]]
    return TreeSummary(
        num_actions=num_actions,
        actions=ints[children, ACTION].astype(np.int64),
        visits=visits,
        values=floats[children, VALUE].copy(),
        prior=floats[children, PRIOR].copy(),
        proven=proven.astype(np.int64),
        depth=ints[children, DEPTH].astype(np.int64),
        value=-float(floats[0, VALUE]) / root_visits,
        root_proven=root_proven,
        simulations=int(ints[0, VISITS]),
        lines={int(ints[child, ACTION]): _line(tree, int(child)) for child in read},
    )


def _line(tree: Tree, start: int) -> list[int]:
    """Actions from root child ``start`` down the most visited children."""
    ints = tree.ints
    line, node = [int(ints[start, ACTION])], start
    while len(line) < MAX_LINE:
        children = tree.children(node)
        if not children:
            break
        node = max(children, key=lambda c: ints[c, VISITS])
        if ints[node, VISITS] == 0:
            break
        line.append(int(ints[node, ACTION]))
    return line
