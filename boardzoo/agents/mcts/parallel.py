"""Root parallelism: more trees of the same position searched in threads beside the agent's
own, their root statistics added to its root (Chaslot, Winands & van den Herik 2008).

Each helper tree has its own random stream and runs the same compiled simulations, which
release the GIL, so N threads run about N times the simulations on N free cores. After every
call of the agent's runner the helpers' new root-child visits and value sums (from the
mover's view, as every edge's) are added to the agent's root children with the same action,
and the root's own count with them; the agent's choice, its analysis and its stopping rules
then read the merged statistics. Like the agent's own tree, each helper keeps the subtree
of the position reached between moves (tree reuse).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable

import numpy as np

from boardzoo.agents.mcts import fast
from boardzoo.agents.mcts.tree import ACTION, VALUE, VISITS, Tree
from boardzoo.rng import make_rng

Runner = Callable[..., tuple[int, int]]
"""``run(n, deadline, forced=-1) -> (done, status)`` over one tree (see MCTSAgent)."""

HELPER_CHUNK = 64
"""Simulations a helper runs between looks at whether the agent's own run has ended."""
MIN_PARALLEL_SIMULATIONS = 256
"""Runs asking for fewer simulations (the root's expansion, a visit for each child) are
left to the agent's tree alone: starting threads would cost more than they add."""


def available_cores() -> int:
    """CPU cores this process may run on (its affinity mask where the system has one)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # (macOS, Windows)
        return os.cpu_count() or 1


class RootHelpers:
    """``count`` helper trees and their random streams, for one agent."""

    def __init__(self, count: int, max_nodes: int, np_rng: np.random.Generator):
        self.trees = [Tree(max_nodes=max_nodes) for _ in range(count)]
        self.reseed(np_rng)
        self._merged: list[dict[int, tuple[int, float]]] = [{} for _ in self.trees]

    def __getstate__(self) -> dict:
        """Pickles (for arena worker processes) with empty trees."""
        state = dict(self.__dict__)
        state["trees"] = [Tree(max_nodes=tree.max_nodes) for tree in self.trees]
        state["_merged"] = [{} for _ in self.trees]
        return state

    def reseed(self, np_rng: np.random.Generator) -> None:
        """New random streams, drawn from the agent's."""
        self.rngs = [make_rng(np_rng) for _ in self.trees]

    def start_search(self, kept_node: Callable[[Tree], int]) -> None:
        """Prepare the helper trees for a new position: each keeps the subtree
        ``kept_node(tree)`` names (0: the root itself, -1: none, a new tree), as the agent's
        own tree does. A kept subtree's root-child statistics are new to the agent's root
        and are merged on the next run; a kept root's were merged already."""
        for tree, merged in zip(self.trees, self._merged, strict=True):
            node = kept_node(tree)
            if node != 0:
                merged.clear()
            if node < 0:
                tree.clear()
            elif node > 0:
                tree.reroot(node)

    def wrap(self, main: Runner, make_runner: Callable[[Tree, np.ndarray], Runner],
             into: Tree) -> Runner:
        """The agent's runner ``main`` (over ``into``) with the helpers running beside it;
        ``make_runner(tree, rng)`` builds a helper's. Returns simulations done by all."""
        helpers = [make_runner(tree, rng) for tree, rng in zip(self.trees, self.rngs, strict=True)]

        def run(n: int, deadline: float, forced: int = -1) -> tuple[int, int]:
            if forced >= 0 or n < MIN_PARALLEL_SIMULATIONS:
                return main(n, deadline, forced)
            stop = threading.Event()
            counts = [0] * len(helpers)
            threads = [threading.Thread(target=self._help, args=(i, helper, n, deadline, stop,
                                                                counts), daemon=True)
                       for i, helper in enumerate(helpers)]
            for thread in threads:
                thread.start()
            try:
                done, status = main(n, deadline, forced)
            finally:
                stop.set()
                for thread in threads:
                    thread.join()
            self._merge_into(into)
            return done + sum(counts), status

        return run

    def _help(self, index: int, run: Runner, n: int, deadline: float, stop: threading.Event,
              counts: list[int]) -> None:
        """Run helper ``index`` in chunks until ``stop``, its own share ``n``, the deadline,
        a proven root or a full tree."""
        tree = self.trees[index]
        while not stop.is_set() and counts[index] < n:
            tree.reserve(1024)
            done, status = run(min(HELPER_CHUNK, n - counts[index]), deadline)
            counts[index] += done
            if status not in (fast.RAN_ALL, fast.NEED_SPACE) or (
                    status == fast.NEED_SPACE and tree.at_cap):
                return

    def _merge_into(self, tree: Tree) -> None:
        """Add each helper's root-child statistics gained since the last merge to ``tree``'s
        root children of the same action (and their visits to its root)."""
        mine = {int(tree.ints[child, ACTION]): child for child in tree.children()}
        for helper, merged in zip(self.trees, self._merged, strict=True):
            for child in helper.children():
                action = int(helper.ints[child, ACTION])
                visits, value = int(helper.ints[child, VISITS]), float(helper.floats[child, VALUE])
                before_visits, before_value = merged.get(action, (0, 0.0))
                merged[action] = (visits, value)
                if action in mine and visits > before_visits:
                    tree.ints[mine[action], VISITS] += visits - before_visits
                    tree.floats[mine[action], VALUE] += value - before_value
                    tree.ints[0, VISITS] += visits - before_visits
