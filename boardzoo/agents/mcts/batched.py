"""Batched leaf evaluation: many simulations descend (in one tree with virtual loss, or in many
trees at once), their leaves are valued by one :class:`~boardzoo.wrappers.model.Evaluator`
call, and the results are backed up, all with the same selection, expansion and backup rules
as the compiled loop (:mod:`boardzoo.agents.mcts.rules`).

A round has three steps; on boardzoo's games the first and the last are one compiled call
each over every tree at once, so Python only hands the batch of leaves to the evaluator and
back (a round's fixed cost is what a search of one tree, one leaf per round, pays most):

1. ``descend_trees``: in each tree, up to ``leaves`` descents from the root to a leaf,
   playing the moves on a copy of the root state. A finished game or a proven node is
   backed up at once; a new leaf is marked ``PENDING`` and gets a *virtual loss* on its path
   (one visit and a loss for every mover on it), so the next descent prefers another line;
   its side to move, legal mask and observation planes are written beside its state;
2. the batch of pending leaves is evaluated in one call (positions seen before come from a
   cache keyed by the state's bytes);
3. ``finish_leaves``: the virtual loss is taken back, each leaf expanded with the softmax of
   its logits over the legal moves as priors, and its value (side to move's view, converted
   to seat 0) backed up along the path its parents give.

The trees of a round are one :class:`~boardzoo.agents.mcts.tree.TreeArrays` with a leading
tree axis (``[trees, rows, columns]``): a :class:`Forest` of fresh searches, or a single
tree seen as a forest of one. On other PettingZoo envs (``AECModel``) step 1 runs through the
model in Python, with the same rules.
"""

from __future__ import annotations

import dataclasses
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np
from numba import njit

from boardzoo.agents.mcts.fast import (
    MAX_TREE_DEPTH,
    back_up,
    seat0_value_of_proof,
    settle,
    walk_to_leaf,
)
from boardzoo.agents.mcts.generic import proof_of_returns
from boardzoo.agents.mcts.rules import (
    backup,
    expand,
    mark_terminal,
    propagate_proof,
    select_child,
)
from boardzoo.agents.mcts.tree import (
    ACTION,
    CAPACITY,
    FIRST,
    FLOAT_COLUMNS,
    INT_COLUMNS,
    MOVER,
    PARENT,
    PROVEN,
    SIZE,
    UNKNOWN,
    VALUE,
    VISITS,
    Tree,
    TreeArrays,
    init_root,
)
from boardzoo.envs.core import TO_PLAY
from boardzoo.envs.tags import game_function, game_tag, legal_mask, observe
from boardzoo.timecontrol import monotonic
from boardzoo.wrappers.model import Evaluator, GameModel

__all__ = ["PENDING", "BatchStats", "BatchedSearch", "EvaluationCache", "Forest", "roots_array"]

PENDING = -2  # FIRST of a leaf whose evaluation is in flight


class Leaves(NamedTuple):
    """The pending leaves of a round, row ``k`` for the k-th: its state, tree and node, the
    side to move, the legal mask ``[A]`` and the observation planes (on a game without an
    observation kernel, or through a generic model, the planes are made in Python)."""

    states: np.ndarray
    tree: np.ndarray
    node: np.ndarray
    to_play: np.ndarray
    masks: np.ndarray
    planes: np.ndarray

    @classmethod
    def room_for(cls, count: int, model: Any, roots: np.ndarray) -> Leaves:
        """Rows for ``count`` leaves of ``model``'s game (states shaped like ``roots``')."""
        planes = (model.game.planes_shape if isinstance(model, GameModel)
                      and model.game.kernels.observe is not None else (0,))
        return cls(np.empty((count, *roots.shape[1:]), roots.dtype), np.zeros(count, np.int64),
                   np.zeros(count, np.int64), np.zeros(count, np.int64),
                   np.zeros((count, model.num_actions), np.bool_),
                   np.zeros((count, *planes), np.float32))


class Evaluations(NamedTuple):
    """The evaluator's answers for a round's leaves: logits ``[leaves, A]`` (read where
    legal) and values from each side to move's view."""

    logits: np.ndarray
    values: np.ndarray


class Round(NamedTuple):
    """A round's plan: at most ``leaves`` new leaves per tree, every descent through root
    child row ``forced_child`` when >= 0; ``num_actions`` children at most per node."""

    leaves: int
    forced_child: int
    num_actions: int


# ------------------------------------------------------------------ compiled steps
@njit(cache=True)
def add_virtual_loss(ints, floats, path, length, sign):
    """``sign`` = +1 adds one visit and a loss (-1, mover's view) to every node on the path;
    -1 takes them back."""
    for i in range(length):
        node = path[i]
        ints[node, VISITS] += sign
        floats[node, VALUE] -= sign


@njit(cache=True)
def _root_proven(cfg, ints):
    return cfg.solver and ints[0, PROVEN] != UNKNOWN


@game_function("the batched search")
def descend_trees(tag, trees, cfg, roots, plan, targets, done, full, out):
    """Step 1 on a boardzoo game for every tree ``b`` still short of ``targets[b]``
    simulations (counted in ``done``): its new pending leaves written to ``out``, finished
    games and proven nodes backed up at once; a tree with no room left for an expansion is
    marked ``full``. Returns (leaves, simulations backed
    up without an evaluation)."""
    path = np.empty(MAX_TREE_DEPTH, np.int64)
    no_trace = np.empty((2, 0), np.int64)
    count, settled_count = 0, 0
    for b in range(roots.shape[0]):
        ints, floats, meta = trees.ints[b], trees.floats[b], trees.meta[b]
        if full[b] or done[b] >= targets[b] or _root_proven(cfg, ints):
            continue
        room = (meta[CAPACITY] - meta[SIZE]) // plan.num_actions
        if room < 1:
            full[b] = True
            continue
        wanted = min(plan.leaves, room, targets[b] - done[b])
        new, attempts = 0, 0
        while new < wanted and attempts < 2 * wanted + 2:
            attempts += 1
            state = out.states[count]
            state[:] = roots[b]
            node, length = walk_to_leaf(tag, ints, floats, cfg, state, path, plan.forced_child,
                                        no_trace)
            settled, value0 = settle(ints, floats, cfg, node, state)
            if settled:
                back_up(ints, floats, cfg, path, length, value0, no_trace)
                done[b] += 1
                settled_count += 1
                if new + done[b] >= targets[b] or _root_proven(cfg, ints):
                    break
            elif ints[node, FIRST] != PENDING:  # (PENDING: in this batch already)
                ints[node, FIRST] = PENDING
                add_virtual_loss(ints, floats, path, length, 1)
                _describe_leaf(tag, state, out, count, b, node)
                count += 1
                new += 1
    return count, settled_count


@njit(inline="always")
def _describe_leaf(tag, state, out, k, tree, node):
    """Row ``k`` of ``out`` (whose state is ``state``): the leaf's tree and node, side to
    move, legal mask and observation planes from the side to move's view."""
    to_play = np.int64(state[TO_PLAY])
    out.tree[k], out.node[k], out.to_play[k] = tree, node, to_play
    out.masks[k][:] = False
    legal_mask(tag, state, out.masks[k])
    observe(tag, state, to_play, out.planes[k])


@njit(cache=True)
def path_to(ints, node, path):
    """Write the nodes from the root down to ``node`` into ``path``; returns how many."""
    length = 0
    walker = node
    while walker >= 0:
        path[length] = walker
        length += 1
        walker = ints[walker, PARENT]
    path[:length] = path[:length][::-1].copy()
    return length


@njit(cache=True)
def masked_softmax(logits, mask, out):
    """``out``: the softmax of ``logits`` over the legal actions (``mask``), 0 elsewhere."""
    top = -np.inf
    for a in range(mask.shape[0]):
        if mask[a] and logits[a] > top:
            top = logits[a]
    total = 0.0
    for a in range(mask.shape[0]):
        out[a] = np.exp(logits[a] - top) if mask[a] else 0.0
        total += out[a]
    out /= total


@njit(cache=True)
def finish_leaves(trees, cfg, leaf_tree, leaf_node, to_play, masks, evaluations, done):
    """Step 3 for the leaves ``leaf_node[k]`` of trees ``leaf_tree[k]``, one per row of
    ``evaluations``: priors the softmax of the logits over ``masks[k]``, the value turned
    from ``to_play[k]``'s view to seat 0's."""
    path = np.empty(MAX_TREE_DEPTH, np.int64)
    priors = np.zeros(masks.shape[1])
    no_values = np.zeros(masks.shape[1])
    for k in range(evaluations.values.shape[0]):
        b, node = leaf_tree[k], leaf_node[k]
        ints, floats = trees.ints[b], trees.floats[b]
        length = path_to(ints, node, path)
        add_virtual_loss(ints, floats, path, length, -1)
        ints[node, FIRST] = -1
        masked_softmax(evaluations.logits[k], masks[k], priors)
        expand(ints, floats, trees.meta[b], node, to_play[k], masks[k], priors, no_values, 0.0,
               cfg.tie_salt)
        value = evaluations.values[k]
        backup(ints, floats, path, length, value if to_play[k] == 0 else -value)
        if cfg.solver:
            propagate_proof(ints, path, length)
        done[b] += 1


# --------------------------------------------------------------------- the trees
class Forest:
    """Many trees of one game in ``[tree, row, column]`` arrays, each with its own root,
    growing together (up to ``max_nodes`` rows each)."""

    def __init__(self, count: int, capacity: int, max_nodes: int):
        self.max_nodes = max_nodes
        capacity = min(capacity, max_nodes)
        self.arrays = TreeArrays(np.zeros((count, capacity, INT_COLUMNS), np.int32),
                                 np.zeros((count, capacity, FLOAT_COLUMNS), np.float64),
                                 np.zeros((count, 2), np.int64))
        self.arrays.meta[:, CAPACITY] = capacity
        for b in range(count):
            init_root(self.arrays.ints[b], self.arrays.floats[b], self.arrays.meta[b])

    @property
    def at_cap(self) -> bool:
        return self.arrays.ints.shape[1] >= self.max_nodes

    def tree(self, b: int) -> Tree:
        """Tree ``b`` (its arrays are views into the forest's)."""
        return Tree.over(self.arrays.ints[b], self.arrays.floats[b], self.arrays.meta[b],
                         self.max_nodes)

    def reserve(self, free_rows: int) -> None:
        """Grow every tree (doubling, up to ``max_nodes``) until each has ``free_rows``."""
        ints, floats, meta = self.arrays
        capacity = ints.shape[1]
        needed = int(meta[:, SIZE].max()) + free_rows
        if needed <= capacity or self.at_cap:
            return
        while capacity < needed:
            capacity *= 2
        capacity = min(capacity, self.max_nodes)
        grown = TreeArrays(np.zeros((len(ints), capacity, INT_COLUMNS), np.int32),
                           np.zeros((len(ints), capacity, FLOAT_COLUMNS), np.float64), meta)
        grown.ints[:, :ints.shape[1]] = ints
        grown.floats[:, :ints.shape[1]] = floats
        meta[:, CAPACITY] = capacity
        self.arrays = grown


class _OneTree:
    """A single :class:`Tree` seen as a forest of one (its arrays with a tree axis)."""

    def __init__(self, tree: Tree):
        self.tree = tree

    @property
    def arrays(self) -> TreeArrays:
        tree = self.tree
        return TreeArrays(tree.ints[None], tree.floats[None], tree.meta[None])

    @property
    def at_cap(self) -> bool:
        return self.tree.at_cap

    def reserve(self, free_rows: int) -> None:
        self.tree.reserve(free_rows)


# ----------------------------------------------------------------- evaluations
class EvaluationCache:
    """Least-recently-used map from a position's bytes to its (logits ``[A]``, value from
    the side to move's view). ``hits``/``misses`` count lookups since the last ``clear``."""

    def __init__(self, capacity: int = 1 << 18):
        self.capacity = capacity
        self._entries: OrderedDict[bytes, tuple[np.ndarray, float]] = OrderedDict()
        self.hits = self.misses = 0

    def get(self, key: bytes) -> tuple[np.ndarray, float] | None:
        entry = self._entries.get(key)
        if entry is None:
            self.misses += 1
        else:
            self.hits += 1
            self._entries.move_to_end(key)
        return entry

    def put(self, key: bytes, logits: np.ndarray, value: float) -> None:
        self._entries[key] = (logits, value)
        if len(self._entries) > self.capacity:
            self._entries.popitem(last=False)

    def clear(self) -> None:
        self._entries.clear()
        self.hits = self.misses = 0

    def __len__(self) -> int:
        return len(self._entries)


@dataclass
class BatchStats:
    """What the batched search did: simulations finished, evaluations by the network, cache
    hits, network calls, and the seconds spent in the network call."""

    simulations: int = 0
    evaluations: int = 0
    cache_hits: int = 0
    calls: int = 0
    network_seconds: float = 0.0

    def since(self, earlier: BatchStats) -> BatchStats:
        """What was done after ``earlier`` (a copy of these statistics taken then)."""
        return BatchStats(*(getattr(self, f.name) - getattr(earlier, f.name)
                            for f in dataclasses.fields(self)))


class BatchedSearch:
    """Runs rounds of batched simulations over some trees (module docstring) with one
    ``evaluator``; ``cache_size`` 0 disables the evaluation cache."""

    def __init__(self, evaluator: Evaluator, cache_size: int = 1 << 18):
        self.evaluator = evaluator
        self.cache_size = cache_size
        self.cache = EvaluationCache(cache_size) if cache_size else None
        self.stats = BatchStats()

    def __getstate__(self) -> dict[str, Any]:
        """Pickles (for worker processes) without cached evaluations."""
        return {**self.__dict__, "cache": EvaluationCache(self.cache_size)
                if self.cache_size else None}

    def run_tree(self, tree: Tree, cfg: Any, model: Any, root: Any, simulations: int,
                 leaves: int, deadline: float = 0.0,
                 forced_child: int = -1) -> tuple[int, bool]:
        """Up to ``simulations`` more simulations in one tree, ``leaves`` per evaluator call
        (virtual loss keeps them apart); returns (done, whether the tree is full)."""
        targets = np.array([simulations], np.int64)
        done = np.zeros(1, np.int64)
        full = self.run(_OneTree(tree), cfg, model, roots_array(model, [root]), targets, done,
                        leaves, deadline, forced_child)
        return int(done[0]), bool(full[0])

    def run(self, trees: Forest | _OneTree, cfg: Any, model: Any, roots: np.ndarray,
            targets: np.ndarray, done: np.ndarray, leaves: int,
            deadline: float = 0.0, forced_child: int = -1) -> np.ndarray:
        """Advance every tree ``b`` until it has run ``targets[b]`` simulations (``done``
        counts them), its root is proven, it is full (grown to ``max_nodes``: the returned
        flags), or the ``deadline`` (:func:`~boardzoo.timecontrol.monotonic`; 0 = none)
        passes."""
        full = np.zeros(len(targets), np.bool_)
        plan = Round(int(leaves), int(forced_child), int(model.num_actions))
        out = Leaves.room_for(len(targets) * plan.leaves, model, roots)
        tag = game_tag(model.game) if isinstance(model, GameModel) else None
        before = int(done.sum())
        while not deadline or monotonic() <= deadline:
            trees.reserve(plan.leaves * plan.num_actions + 1)  # as far as max_nodes allows
            arrays = trees.arrays
            if tag is not None:
                count, settled = descend_trees(tag, arrays, cfg, roots, plan, targets, done,
                                               full, out)
            else:
                count, settled = _descend_generic(arrays, cfg, model, roots, plan, targets,
                                                  done, full, out)
            if not count and not settled:  # every tree done, proven or full
                break
            if count:
                evaluations = self._evaluate(tag, model, out, count)
                finish_leaves(arrays, cfg, out.tree, out.node, out.to_play, out.masks,
                              evaluations, done)
        self.stats.simulations += int(done.sum()) - before
        return full

    def _evaluate(self, tag: Any, model: Any, out: Leaves, count: int) -> Evaluations:
        """The first ``count`` leaves' logits and values (from the cache where possible,
        one evaluator call for the rest)."""
        if self.cache is None or tag is None:
            return self._call_evaluator(tag, model, out, np.arange(count))
        logits = np.zeros((count, model.num_actions))
        values = np.zeros(count)
        keys = [out.states[k].tobytes() for k in range(count)]
        missing = []
        for k, key in enumerate(keys):
            hit = self.cache.get(key)
            if hit is None:
                missing.append(k)
            else:
                logits[k], values[k] = hit
                self.stats.cache_hits += 1
        if missing:
            rows = np.asarray(missing, np.int64)
            new = self._call_evaluator(tag, model, out, rows)
            logits[rows], values[rows] = new
            for j, k in enumerate(missing):
                self.cache.put(keys[k], new.logits[j], float(new.values[j]))
        return Evaluations(logits, values)

    def _call_evaluator(self, tag: Any, model: Any, out: Leaves, rows: np.ndarray) -> Evaluations:
        """One evaluator call for the leaves ``rows`` (float64 logits and values, contiguous
        whatever the evaluator returns)."""
        planes = self._observations(tag, model, out, rows)
        start = monotonic()
        logits, values = self.evaluator(planes, out.masks[rows])
        self.stats.network_seconds += monotonic() - start
        self.stats.calls += 1
        self.stats.evaluations += len(rows)
        return Evaluations(np.ascontiguousarray(logits, np.float64),  # one compiled signature
                           np.ascontiguousarray(values, np.float64).reshape(-1))

    @staticmethod
    def _observations(tag: Any, model: Any, out: Leaves, rows: np.ndarray) -> np.ndarray:
        """The network's input planes of the leaves ``rows`` (made by the compiled descent
        where the game has an observation kernel)."""
        if tag is not None and model.game.kernels.observe is not None:
            return out.planes[rows]
        return np.stack([model.observe(out.states[k]) for k in rows])


def _descend_generic(arrays: TreeArrays, cfg: Any, model: Any, roots: np.ndarray, plan: Round,
                     targets: np.ndarray, done: np.ndarray, full: np.ndarray,
                     out: Leaves) -> tuple[int, int]:
    """Step 1 through the model (any PettingZoo env), for one tree: the compiled descent's
    logic, with the model's ``step``, ``returns``, ``to_play`` and ``legal_mask`` in place
    of the kernels."""
    ints, floats, meta = arrays.ints[0], arrays.floats[0], arrays.meta[0]
    if full[0] or done[0] >= targets[0] or _root_proven(cfg, ints):
        return 0, 0
    room = (int(meta[CAPACITY]) - int(meta[SIZE])) // plan.num_actions
    if room < 1:
        full[0] = True
        return 0, 0
    path = np.empty(MAX_TREE_DEPTH, np.int64)
    wanted = min(plan.leaves, room, int(targets[0] - done[0]))
    count, settled, attempts = 0, 0, 0
    while count < wanted and attempts < 2 * wanted + 2:
        attempts += 1
        state, node, length = roots[0], 0, 1
        path[0] = 0
        while not model.is_terminal(state) and ints[node, FIRST] >= 0:
            if cfg.solver and node != 0 and ints[node, PROVEN] != UNKNOWN:
                break
            child = (plan.forced_child if node == 0 and plan.forced_child >= 0
                     else select_child(ints, floats, node, cfg))
            state = model.step(state, int(ints[child, ACTION]))
            node = child
            path[length] = node
            length += 1
        if model.is_terminal(state) or (cfg.solver and ints[node, PROVEN] != UNKNOWN):
            if model.is_terminal(state):
                returns = model.returns(state)
                value0 = float(returns[0] - returns[1]) / 2.0
                if cfg.solver:
                    mark_terminal(ints, node, proof_of_returns(value0, int(ints[node, MOVER])))
            else:
                value0 = seat0_value_of_proof(int(ints[node, PROVEN]), int(ints[node, MOVER]))
            backup(ints, floats, path, length, value0)
            if cfg.solver:
                propagate_proof(ints, path, length)
            done[0] += 1
            settled += 1
            if count + done[0] >= targets[0] or _root_proven(cfg, ints):
                break
        elif ints[node, FIRST] != PENDING:
            ints[node, FIRST] = PENDING
            add_virtual_loss(ints, floats, path, length, 1)
            out.states[count], out.tree[count], out.node[count] = state, 0, node
            out.to_play[count] = model.to_play(state)
            out.masks[count] = model.legal_mask(state)
            count += 1
    return count, settled


def roots_array(model: Any, roots: list[Any]) -> np.ndarray:
    """Root states as one array: ``[trees, state]`` for a boardzoo game, else one object
    (a model state) per tree."""
    if isinstance(model, GameModel):
        return np.stack(roots)
    array = np.empty(len(roots), object)
    array[:] = [None] * len(roots)
    for k, root in enumerate(roots):
        array[k] = root
    return array
