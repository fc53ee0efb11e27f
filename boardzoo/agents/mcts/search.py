"""One Monte Carlo tree search as an object: a configuration, a tree, and the simulations
that grow it.

:class:`MCTS` is what :class:`~boardzoo.agents.MCTSAgent`, :class:`~boardzoo.agents.
AlphaZeroAgent` and self-play all search with. ``run(model, root, budget)`` grows the tree
from one position (reusing the subtree of the last move when it can) and returns its
:class:`~boardzoo.agents.mcts.summary.TreeSummary`; ``run_many(model, roots, simulations)``
grows one tree per position with their leaves evaluated together, one network call per
round for all of them (the batched search of self-play). Nothing outside reads the tree:
results come as summaries.

How a simulation runs depends on the game and the evaluator (:class:`Simulations`): on
boardzoo's games the whole loop is compiled (:mod:`.fast`); with a batched network
evaluator the leaves of many simulations are evaluated at once (:mod:`.batched`); on any
other PettingZoo env the same rules run through the model in Python (:mod:`.generic`).

Values are from the side to move's view in [-1, 1] (+1 a win).
"""

from __future__ import annotations

import math
import threading
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

import numpy as np

from boardzoo.agents.mcts import fast
from boardzoo.agents.mcts.batched import BatchedSearch, Forest, roots_array
from boardzoo.agents.mcts.config import MCTSConfig
from boardzoo.agents.mcts.generic import run_generic
from boardzoo.agents.mcts.gumbel import sequential_halving
from boardzoo.agents.mcts.kernels import search_tag
from boardzoo.agents.mcts.parallel import RootHelpers
from boardzoo.agents.mcts.reuse import kept_node
from boardzoo.agents.mcts.rules import SearchConfig, add_root_noise
from boardzoo.agents.mcts.stopping import decision_unstable, lead_is_safe
from boardzoo.agents.mcts.summary import TreeSummary, summarize
from boardzoo.agents.mcts.tree import (
    ACTION,
    DEFAULT_MAX_NODES,
    FIRST,
    LOSS,
    NOT_EXPANDED,
    PROVEN,
    UNKNOWN,
    VALUE,
    VISITS,
    Tree,
)
from boardzoo.analysis import PROGRESS_SECONDS
from boardzoo.rng import make_rng
from boardzoo.timecontrol import SearchDeadlines, monotonic
from boardzoo.wrappers.model import EnvModel, GameModel

__all__ = ["UNLIMITED", "Budget", "MCTS", "RunResult"]

#: simulations of a budget bounded only by time
UNLIMITED = 1 << 60
#: a tree's first rows: its arrays grow by doubling from here, up to ``max_nodes``
INITIAL_ROWS = 1 << 14
#: room for this many expansions in each tree of a new forest (it grows by doubling)
FOREST_EXPANSIONS = 16

Simulate = Callable[..., tuple[int, int]]
"""``simulate(n, deadline, forced_child=-1) -> (done, status)`` on the search's tree."""
ProgressCallback = Callable[[TreeSummary, int], None]
"""``on_round(summary, simulations)``, called between the rounds of a watched search."""


class Budget(NamedTuple):
    """How long one search runs: at most ``simulations`` and until its ``deadlines``."""

    simulations: int
    deadlines: SearchDeadlines

    @classmethod
    def of(cls, simulations: int | None) -> Budget:
        """A budget of ``simulations`` (None: unlimited) with no deadline."""
        return cls(UNLIMITED if simulations is None else simulations, SearchDeadlines.none())


class RunResult(NamedTuple):
    """A finished search: its root's summary, the simulations this run added, and Gumbel
    search's choice (the action, and its improved policy over all actions) or None."""

    summary: TreeSummary
    simulations: int
    gumbel_action: int | None = None
    gumbel_policy: np.ndarray | None = None


class MCTS:
    """A Monte Carlo tree search with ``config`` (see the module docstring).

    ``batch_size``: leaves evaluated per network call in one tree (virtual loss keeps them
    apart); ``cache_size``: positions whose network output is kept; ``max_nodes``: the most
    nodes a tree may hold; ``threads``: trees searched at once (root parallelism; not with a
    network); ``np_rng``/``rng``: the random streams (a numpy Generator, and the compiled
    loops' xorshift state drawn from it, :func:`boardzoo.rng.make_rng`).
    """

    def __init__(self, config: MCTSConfig, np_rng: np.random.Generator, rng: np.ndarray, *,
                 batch_size: int = 16, cache_size: int = 1 << 18,
                 max_nodes: int = DEFAULT_MAX_NODES, threads: int = 1):
        self.config = config
        salt = int(np_rng.integers(0, 1 << 62))  # the order of equal priors: see rules.expand
        self.compiled_config: SearchConfig = config.compiled()._replace(tie_salt=salt)
        self.np_rng, self.rng = np_rng, rng
        self.batch_size = batch_size
        self.max_nodes = max_nodes
        network = config.network
        self.batcher = BatchedSearch(network, cache_size) if network is not None else None
        self.tree = Tree(INITIAL_ROWS, max_nodes=max_nodes)
        self.helpers = RootHelpers(threads - 1, max_nodes, np_rng) if threads > 1 else None
        self.full = False  # the last run filled the tree to max_nodes
        self._reuse_from: tuple[Any, int | None] | None = None

    # ----------------------------------------------------------------- public API
    def prepare(self, model: EnvModel) -> None:
        """Compile what searching ``model``'s game needs (no time budget pays for it)."""
        self._simulations(model, model.root())

    def run(self, model: EnvModel, root: Any, budget: Budget,
            on_round: ProgressCallback | None = None, stop: threading.Event | None = None,
            root_moves: Sequence[int] | None = None) -> RunResult:
        """Search ``root`` within ``budget``: the subtree of the last move is kept where it
        matches; every root child gets a visit; rounds of about
        :data:`~boardzoo.analysis.PROGRESS_SECONDS` call ``on_round`` and obey ``stop``
        when watched, and under a clock's deadlines stop early once the decision cannot
        change (or run on to the maximum while it is unstable). ``root_moves``: search only
        these root moves (the others are ruled out as proven losses)."""
        simulate = self._simulations(model, root)
        self._keep_subtree(model, root, budget.deadlines.target)
        done = 0
        if self.tree.ints[0, FIRST] == NOT_EXPANDED:
            done = self._grow(simulate, 1, 0.0)  # the root is always expanded
        if root_moves is not None:
            self._rule_out_root_moves(root_moves)
        if self.config.dirichlet is not None:
            add_root_noise(self.tree, *self.config.dirichlet, self.np_rng)
        if self.config.selection == "gumbel":
            return self._run_gumbel(model, simulate, budget, done)
        watched = on_round is not None or stop is not None
        more = self._rounds(simulate, model, budget.simulations - done, budget.deadlines,
                            on_round, stop, watched)
        return RunResult(self.summary(model), done + more)

    def ponder(self, model: EnvModel, root: Any, simulations: int,
               on_round: ProgressCallback | None, stop: threading.Event) -> RunResult:
        """Think on the opponent's position ``root`` until ``stop`` is set or ``simulations``
        have run (no root noise, no Gumbel root: pondering only grows the tree the next
        search starts from)."""
        simulate = self._simulations(model, root)
        self._keep_subtree(model, root, math.inf)
        done = self._grow(simulate, 1, 0.0) if self.tree.ints[0, FIRST] == NOT_EXPANDED else 0
        done += self._rounds(simulate, model, simulations - done, SearchDeadlines.none(),
                             on_round, stop, watched=True)
        return RunResult(self.summary(model), done)

    def run_many(self, model: EnvModel, roots: Sequence[Any],
                 simulations: int | Sequence[int],
                 noise: Sequence[np.random.Generator | None] | None = None,
                 ) -> list[TreeSummary]:
        """Fresh searches of many positions at once, one tree each, their leaves evaluated
        together (one network call per round for all trees; needs a network evaluator):
        ``simulations`` per root (a number, or one per root). ``noise[i]``: the generator
        that draws root ``i``'s Dirichlet noise (the config's ``dirichlet``), or None for
        none. Returns one summary per root, in order (the search's; choosing a move from
        one is the caller's, by the game's rules of play as in
        :func:`~boardzoo.agents.move.by_rules_of_play`)."""
        if self.batcher is None:
            raise TypeError("run_many batches a network's evaluations: give the search one")
        count = len(roots)
        targets = np.ones(count, np.int64)  # every root expanded first, as run() does
        forest = Forest(count, 1 + model.num_actions * FOREST_EXPANSIONS, self.max_nodes)
        states, done = roots_array(model, list(roots)), np.zeros(count, np.int64)
        self.batcher.run(forest, self.compiled_config, model, states, targets, done, 1)
        for k in range(count):
            generator = None if noise is None else noise[k]
            if generator is not None and self.config.dirichlet:
                add_root_noise(forest.tree(k), *self.config.dirichlet, generator)
        targets[:] = simulations
        self.batcher.run(forest, self.compiled_config, model, states, targets, done, 1)
        return [summarize(forest.tree(k), model.num_actions, self.config.solver, lines=False)
                for k in range(count)]

    def summary(self, model: EnvModel, lines: bool = True) -> TreeSummary:
        """The summary of the tree's root (see :func:`~.summary.summarize`)."""
        return summarize(self.tree, model.num_actions, self.config.solver, lines)

    def remember(self, root: Any, action: int | None) -> None:
        """Keep the tree for the next search: it searched ``root`` and ``action`` was played
        from it (None: nothing yet, after pondering the opponent's position)."""
        self._reuse_from = (root, action)

    def forget(self) -> None:
        """Start the next search from a new tree."""
        self._reuse_from = None
        self.tree.clear()

    # ---------------------------------------------------------------- the simulations
    def _simulations(self, model: EnvModel, root: Any) -> Simulate:
        """The function that runs simulations on this tree for ``model`` (compiled on first
        use), with the root helpers' trees beside it when there are any."""
        if self.batcher is not None:
            return self._batched(model, root)
        if not isinstance(model, GameModel):
            return self._generic(model, root)
        config, num_actions = self.config, model.num_actions
        tag = search_tag(model.game, config.rollout, config.evaluator, config.rave,
                         config.reads_priors)
        _warm_up(tag, self.compiled_config, model.game.initial_state(), num_actions)

        def compiled_over(tree: Tree, rng: np.ndarray) -> Simulate:
            def simulate(n: int, deadline: float, forced: int = -1) -> tuple[int, int]:
                run = fast.Run(int(n), float(deadline), int(forced), num_actions)
                return fast.run_simulations(tag, tree.arrays, self.compiled_config, root, run,
                                            rng)

            return simulate

        own = compiled_over(self.tree, self.rng)
        if self.helpers is None:
            return own
        return self.helpers.wrap(own, compiled_over, self.tree)

    def _generic(self, model: EnvModel, root: Any) -> Simulate:
        def simulate(n: int, deadline: float, forced: int = -1) -> tuple[int, int]:
            return run_generic(self.tree, self.compiled_config, model, root, n, deadline,
                               self.np_rng, forced)

        return simulate

    def _batched(self, model: EnvModel, root: Any) -> Simulate:
        """``batch_size`` leaves of the one tree per network call."""
        batcher = self.batcher
        assert batcher is not None
        if isinstance(model, GameModel) and type(model.game) not in _WARM:  # compile it now
            batcher.run_tree(Tree(1 << 12), self.compiled_config, model,
                             model.game.initial_state(), 2, 2)
            _WARM.add(type(model.game))

        def simulate(n: int, deadline: float, forced: int = -1) -> tuple[int, int]:
            done, full = batcher.run_tree(self.tree, self.compiled_config, model, root, n,
                                          self.batch_size, deadline, forced)
            if self.config.solver and self.tree.ints[0, PROVEN] != UNKNOWN:
                return done, fast.ROOT_PROVEN
            if full:
                return done, fast.NEED_SPACE
            return done, fast.RAN_ALL if done >= n else fast.OUT_OF_TIME

        return simulate

    def _grow(self, simulate: Simulate, simulations: int, deadline: float,
              forced: int = -1) -> int:
        """Run ``simulations``, growing the tree as needed up to ``max_nodes`` (a full tree
        sets ``full`` and ends the run); returns how many ran."""
        total = 0
        while total < simulations:
            self.tree.reserve(1024)  # as far as the cap allows: the loop says if too few
            done, status = simulate(simulations - total, deadline, forced)
            total += done
            if status == fast.NEED_SPACE:
                if self.tree.at_cap:
                    self.full = True
                    break
                self.tree.reserve(2 * self.tree.capacity)  # up to the cap
            elif status != fast.RAN_ALL:
                break
        return total

    # ------------------------------------------------------------------- a search
    def _keep_subtree(self, model: EnvModel, root: Any, deadline: float) -> None:
        """Reuse the subtree reached by our last move and the reply, if it matches and
        copying it is expected to take at most :data:`~.reuse.REROOT_SHARE` of the time
        left until ``deadline``; the helper trees keep theirs by the same rule."""
        self.full = False
        node = kept_node(model, self.tree, self._reuse_from, root, deadline)
        if node < 0:
            self.tree.clear()
        elif node > 0:  # (node 0: the tree's own root, kept as it is)
            self.tree.reroot(node)
        if self.helpers is not None:
            reuse_from = self._reuse_from
            self.helpers.start_search(
                lambda tree: kept_node(model, tree, reuse_from, root, deadline))

    def _rule_out_root_moves(self, keeping: Sequence[int]) -> None:
        """Mark the root's children outside ``keeping`` as proven losses for the mover:
        MCTS-Solver then never selects or plays them."""
        ints = self.tree.ints
        for child in self.tree.children():
            if int(ints[child, ACTION]) not in keeping:
                ints[child, PROVEN] = LOSS

    def _run_gumbel(self, model: EnvModel, simulate: Simulate, budget: Budget,
                    done: int) -> RunResult:
        deadline = _as_deadline(budget.deadlines.target)
        more, child, improved = sequential_halving(
            self.tree, self.compiled_config, self.config.gumbel_width,
            budget.simulations - done, deadline, self.np_rng,
            lambda n, forced: self._grow(simulate, n, deadline, forced))
        summary = self.summary(model)
        policy = np.zeros(model.num_actions)
        policy[summary.actions] = improved
        return RunResult(summary, done + more, int(self.tree.ints[child, ACTION]), policy)

    def _rounds(self, simulate: Simulate, model: EnvModel, budget: int,
                deadlines: SearchDeadlines, on_round: ProgressCallback | None,
                stop: threading.Event | None, watched: bool) -> int:
        """Run up to ``budget`` simulations in rounds until a deadline (the maximum while the
        decision is unstable, under a clock), ``stop``, a proven root, a full tree, or (under
        a clock) a decision that can no longer change; returns how many ran. An unwatched
        search without a clock runs in one go."""
        if not watched and not deadlines.from_clock:
            return self._grow(simulate, budget, _as_deadline(deadlines.target))
        done, leader, began = 0, -1, monotonic()
        if not self._root_visits()[0].any():  # however late, every root child gets a visit
            done = self._grow(simulate, min(budget, len(self.tree.children())), 0.0)
        end = deadlines.target
        while done < budget:
            now = monotonic()
            if now >= end or (stop is not None and stop.is_set()):
                break
            done += self._grow(simulate, budget - done, min(end, now + PROGRESS_SECONDS))
            if self.full or (self.config.solver and self.tree.ints[0, PROVEN] != UNKNOWN):
                break
            if on_round is not None:
                on_round(self.summary(model), done)
            if deadlines.from_clock:
                visits, values = self._root_visits()
                rate = done / max(monotonic() - began, 1e-9)
                if lead_is_safe(visits, rate * max(0.0, end - monotonic()), budget - done):
                    break
                unstable, leader = decision_unstable(visits, values, leader)
                end = deadlines.maximum if unstable else deadlines.target
        return done

    def _root_visits(self) -> tuple[np.ndarray, np.ndarray]:
        """The root children's visits and summed values (the root player's view)."""
        children = list(self.tree.children())
        return self.tree.ints[children, VISITS], self.tree.floats[children, VALUE]

    def __getstate__(self) -> dict[str, Any]:
        """Pickles (for arena worker processes) without the tree (nor, through the batched
        search's own, cached evaluations)."""
        state = dict(self.__dict__)
        state["tree"] = Tree(INITIAL_ROWS, max_nodes=self.max_nodes)
        state["_reuse_from"] = None
        return state


_WARM: set[type] = set()  # the search tags and games whose loops are compiled here


def _warm_up(tag: tuple, config: Any, state: np.ndarray, num_actions: int) -> None:
    """Compile (or load from the cache) the loop of a search variant before any time budget
    starts, once per process."""
    if type(tag) in _WARM:
        return
    scratch = Tree(1 << 12)
    fast.run_simulations(tag, scratch.arrays, config, state, fast.Run(2, 0.0, -1, num_actions),
                         make_rng(0))
    _WARM.add(type(tag))


def _as_deadline(when: float) -> float:
    """A deadline for the compiled loops: 0.0 means none."""
    return when if math.isfinite(when) else 0.0
