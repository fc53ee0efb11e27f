"""Tree reuse: which node of the last search's tree is the position now to be searched, and
whether copying its subtree to the root is worth the time it takes.

Only boardzoo states can be compared (equal arrays are equal positions); any other model
starts a new tree every move.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from boardzoo.agents.mcts import fast
from boardzoo.agents.mcts.tree import ACTION, VISITS, Tree
from boardzoo.timecontrol import monotonic
from boardzoo.wrappers.model import EnvModel, GameModel

__all__ = [
    "REROOT_SECONDS_PER_NODE", "REROOT_SHARE", "kept_node", "matching_node", "reroot_seconds",
]

#: seconds to copy one node when a subtree is reused (measured ~150 ns, pages included)
REROOT_SECONDS_PER_NODE = 2e-7
#: the most of the time to the target a reused subtree's copy may take (else: a new tree)
REROOT_SHARE = 0.25


def kept_node(model: EnvModel, tree: Tree, reuse_from: tuple[Any, int | None] | None,
              root: Any, deadline: float) -> int:
    """The node of ``tree`` to keep as the new root (0: the root itself), or -1 for a new
    tree: none matches ``root``, or copying its subtree would take more than
    :data:`REROOT_SHARE` of the time left until ``deadline``. ``reuse_from``: (the last
    search's root, our move from it, or None after pondering), or None for no reuse."""
    node = matching_node(model, tree, reuse_from, root) if reuse_from is not None else -1
    if node > 0 and reroot_seconds(tree, node) > REROOT_SHARE * (deadline - monotonic()):
        return -1
    return node


def matching_node(model: EnvModel, tree: Tree, reuse_from: tuple[Any, int | None],
                  root: Any) -> int:
    """The node of ``tree`` (within two plies of the old root, through our last move;
    after pondering, the old root itself or its children) whose state equals ``root``,
    or -1."""
    old_root, our_action = reuse_from
    if not isinstance(model, GameModel) or len(old_root) != len(root):
        return -1
    if our_action is None:  # pondered: the old root is the opponent's position
        if np.array_equal(old_root, root):  # we move there ourselves (playing both sides)
            return 0
        return _child_reaching(model, tree, 0, old_root, root)
    ours = fast.root_child_of_action(tree.ints, our_action)
    if ours < 0:
        return -1
    after_ours = model.step(old_root, our_action)
    if np.array_equal(after_ours, root):
        return ours
    return _child_reaching(model, tree, ours, after_ours, root)


def _child_reaching(model: EnvModel, tree: Tree, node: int, state: Any, root: Any) -> int:
    """The child of ``node`` (whose state is ``state``) whose move leads to ``root``, or -1."""
    for child in tree.children(node):
        if np.array_equal(model.step(state, int(tree.ints[child, ACTION])), root):
            return child
    return -1


def reroot_seconds(tree: Tree, node: int) -> float:
    """Expected seconds to copy ``node``'s subtree: the tree's nodes in the share of the
    root's visits that went through ``node``."""
    through_root = int(tree.ints[list(tree.children()), VISITS].sum())
    share = tree.ints[node, VISITS] / through_root if through_root else 1.0
    return tree.size * min(1.0, share) * REROOT_SECONDS_PER_NODE
