"""Batched leaf evaluation: many simulations descend (in one tree with virtual loss, or in many
trees at once), their leaves are valued by one :class:`~boardzoo.wrappers.model.Evaluator`
call, and the results are backed up, all with the same selection, expansion and backup rules
as the compiled loop (:mod:`boardzoo.agents.mcts.rules`).

A simulation is three steps, each compiled on boardzoo's games:

1. ``descend``: select from the root to a leaf, playing the moves on a copy of the root state.
   A finished game or a proven node is backed up at once; a new leaf is marked ``PENDING`` and
   gets a *virtual loss* on its path (one visit and a loss for every mover on it), so the
   next descent in the same round prefers another line;
2. the batch of pending leaves is evaluated in one call (positions seen before come from a
   cache keyed by the state's bytes);
3. ``finish``: the virtual loss is taken back, the leaf expanded with the softmax of its
   logits over the legal moves as priors, and its value (side to move's view, converted to
   seat 0) backed up.

On other PettingZoo envs (``AECModel``) steps 1 and 3 run through the model in Python with
the same compiled rules.
"""

from __future__ import annotations

import functools
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

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
    FIRST,
    MOVER,
    PROVEN,
    UNKNOWN,
    VALUE,
    VISITS,
    Tree,
)
from boardzoo.clock import monotonic
from boardzoo.wrappers.model import Evaluator, GameModel

__all__ = ["PENDING", "EvaluationCache", "LeafBatcher", "SearchJob"]

PENDING = -2  # FIRST of a leaf whose evaluation is in flight
# descend results
NEW_LEAF, BACKED_UP, COLLISION = 0, 1, 2


@njit(cache=True)
def add_virtual_loss(ints, floats, path, length, sign):
    """``sign`` = +1 adds one visit and a loss (-1, mover's view) to every node on the path;
    -1 takes them back."""
    for i in range(length):
        node = path[i]
        ints[node, VISITS] += sign
        floats[node, VALUE] -= sign


@njit
def descend(ints, floats, cfg, state, path, forced_child, apply_fn):
    """Step 1 on a boardzoo game: ``(code, leaf, length of path)``, ``state`` (a copy of the
    root's) played on to the leaf (see the module docstring for the codes)."""
    no_trace = np.empty((2, 0), np.int64)
    node, length = walk_to_leaf(ints, floats, cfg, state, path, apply_fn, forced_child,
                                no_trace)
    settled, value0 = settle(ints, floats, cfg, node, state)
    if settled:
        back_up(ints, floats, cfg, path, length, value0, no_trace)
        return BACKED_UP, node, length
    if ints[node, FIRST] == PENDING:
        return COLLISION, node, length
    ints[node, FIRST] = PENDING
    add_virtual_loss(ints, floats, path, length, 1)
    return NEW_LEAF, node, length


@functools.cache
def descender(apply_fn: Any) -> Any:
    """``descend`` for one game's apply kernel, compiled with the kernel as a constant:
    ``descend(..., apply_fn)`` called from Python types its function argument on every call
    (the tree's work doubled where the network's answers come from the evaluation cache;
    within noise where the network dominates), this does not."""

    @njit
    def descend_in_game(ints, floats, cfg, state, path, forced_child):
        return descend(ints, floats, cfg, state, path, forced_child, apply_fn)

    return descend_in_game


@njit(cache=True)
def finish(ints, floats, meta, cfg, node, path, length, to_move, mask, priors, value0, rng):
    """Step 3 for one leaf (the tree must have room for its children: the caller reserves)."""
    add_virtual_loss(ints, floats, path, length, -1)
    ints[node, FIRST] = -1
    expand(ints, floats, meta, node, to_move, mask, priors, np.zeros(mask.shape[0]), 0.0, rng)
    backup(ints, floats, path, length, value0)
    if cfg.solver:
        propagate_proof(ints, path, length)


def masked_softmax(logits: np.ndarray, masks: np.ndarray) -> np.ndarray:
    """Row-wise softmax over the legal actions (float64 ``[B, A]``, zeros where illegal)."""
    z = np.where(masks, logits.astype(np.float64), -np.inf)
    z -= z.max(axis=-1, keepdims=True)
    p = np.exp(z)
    return p / p.sum(axis=-1, keepdims=True)


class EvaluationCache:
    """Least-recently-used map from a position's bytes to its (priors ``[A]``, value from
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

    def put(self, key: bytes, priors: np.ndarray, value: float) -> None:
        self._entries[key] = (priors, value)
        if len(self._entries) > self.capacity:
            self._entries.popitem(last=False)

    def clear(self) -> None:
        self._entries.clear()
        self.hits = self.misses = 0

    def __len__(self) -> int:
        return len(self._entries)


@dataclass
class SearchJob:
    """One tree to grow: ``simulations`` more simulations from ``root`` with settings ``cfg``,
    at most ``leaves`` pending per round (1 when many trees share a batch), optionally all
    through root child row ``forced_child``. ``done`` counts finished simulations; ``full``:
    the tree reached its ``max_nodes`` and the job stopped."""

    tree: Tree
    cfg: Any
    model: Any
    root: Any
    simulations: int
    leaves: int = 1
    forced_child: int = -1
    done: int = 0
    full: bool = False
    stalled: int = field(default=0, repr=False)


@dataclass
class _Leaf:
    job: SearchJob
    node: int
    path: np.ndarray
    length: int
    state: Any


@dataclass
class BatchStats:
    """What the batcher did: simulations finished, evaluations by the network, cache hits,
    network calls, and the seconds spent in the network call."""

    simulations: int = 0
    evaluations: int = 0
    cache_hits: int = 0
    calls: int = 0
    network_seconds: float = 0.0


class LeafBatcher:
    """Runs :class:`SearchJob` s to completion with batched leaf evaluation (module docstring).

    ``evaluator`` is a batched :class:`Evaluator`; ``cache_size`` 0 disables the cache.
    """

    def __init__(self, evaluator: Evaluator, cache_size: int = 1 << 18):
        self.evaluator = evaluator
        self.cache_size = cache_size
        self.cache = EvaluationCache(cache_size) if cache_size else None
        self.stats = BatchStats()
        self._path = np.empty(MAX_TREE_DEPTH, np.int64)

    def run(self, jobs: list[SearchJob], rng: np.ndarray, deadline: float = 0.0) -> None:
        """Advance every job until it has run its simulations, its root is proven, its tree
        is full, or the ``deadline`` (:func:`boardzoo.clock.monotonic`; 0 = none) passes."""
        active = [job for job in jobs if job.done < job.simulations]
        while active:
            if deadline and monotonic() > deadline:
                return
            leaves = []
            for job in active:
                leaves.extend(self._descend_job(job))
            self._evaluate_and_finish(leaves, rng)
            active = [job for job in active if job.done < job.simulations
                      and not _root_proven(job)]

    # ------------------------------------------------------------------ step 1: descend
    def _descend_job(self, job: SearchJob) -> list[_Leaf]:
        """Up to ``job.leaves`` new leaves of one tree (terminal ones are backed up at once;
        fewer when the tree, near its ``max_nodes``, has room for fewer expansions)."""
        model = job.model
        job.tree.reserve(job.leaves * model.num_actions + 1)
        room = (job.tree.capacity - job.tree.size) // model.num_actions
        if room < 1:
            job.full, job.simulations = True, job.done  # no room to expand: the job ends
            return []
        leaves: list[_Leaf] = []
        attempts = 0
        wanted = min(job.leaves, room, job.simulations - job.done)
        descend_in_game = (descender(model.game.apply_kernel)
                           if isinstance(model, GameModel) else None)
        while len(leaves) < wanted and attempts < 2 * wanted + 2:
            attempts += 1
            if descend_in_game is not None:
                state = job.root.copy()
                code, node, length = descend_in_game(job.tree.ints, job.tree.floats, job.cfg,
                                                     state, self._path, job.forced_child)
            else:
                code, node, length, state = _descend_generic(job, self._path)
            if code == BACKED_UP:
                job.done += 1
                self.stats.simulations += 1
                if len(leaves) + job.done >= job.simulations or _root_proven(job):
                    break
            elif code == NEW_LEAF:
                leaves.append(_Leaf(job, node, self._path[:length].copy(), length, state))
            # COLLISION: that leaf is already in this batch; descend again (bounded attempts)
        return leaves

    # ---------------------------------------------------------- steps 2 and 3: evaluate
    def _evaluate_and_finish(self, leaves: list[_Leaf], rng: np.ndarray) -> None:
        if not leaves:
            return
        priors, values, masks = self._evaluate([leaf.job.model for leaf in leaves],
                                               [leaf.state for leaf in leaves])
        for k, leaf in enumerate(leaves):
            to_move = leaf.job.model.to_play(leaf.state)
            value0 = values[k] if to_move == 0 else -values[k]
            tree = leaf.job.tree
            finish(tree.ints, tree.floats, tree.meta, leaf.job.cfg, leaf.node, leaf.path,
                   leaf.length, to_move, masks[k], priors[k], value0, rng)
            leaf.job.done += 1
        self.stats.simulations += len(leaves)

    def _evaluate(self, models: list[Any], states: list[Any]):
        """Priors ``[B, A]``, values ``[B]`` (side to move's view) and masks of the states,
        from the cache where possible and one evaluator call for the rest."""
        count = len(states)
        masks = np.stack([model.legal_mask(s) for model, s in zip(models, states, strict=True)])
        priors = np.zeros(masks.shape)
        values = np.zeros(count)
        keys: list[bytes | None] = [None] * count
        missing = []
        for k, (model, state) in enumerate(zip(models, states, strict=True)):
            if self.cache is not None and isinstance(model, GameModel):
                key = keys[k] = state.tobytes()
                hit = self.cache.get(key)
                if hit is not None:
                    priors[k], values[k] = hit
                    self.stats.cache_hits += 1
                    continue
            missing.append(k)
        if missing:
            observations = np.stack([models[k].observe(states[k]) for k in missing])
            start = monotonic()
            logits, raw_values = self.evaluator(observations, masks[missing])
            self.stats.network_seconds += monotonic() - start
            self.stats.calls += 1
            self.stats.evaluations += len(missing)
            new_priors = masked_softmax(np.asarray(logits), masks[missing])
            raw_values = np.asarray(raw_values, dtype=np.float64).reshape(-1)
            for j, k in enumerate(missing):
                priors[k], values[k] = new_priors[j], raw_values[j]
                key = keys[k]
                if key is not None and self.cache is not None:
                    self.cache.put(key, new_priors[j], float(raw_values[j]))
        return priors, values, masks


def _root_proven(job: SearchJob) -> bool:
    return job.cfg.solver and job.tree.ints[0, PROVEN] != UNKNOWN


def _descend_generic(job: SearchJob, path: np.ndarray):
    """Step 1 through the model (any PettingZoo env): the compiled descent's logic, with
    the model's ``step`` and ``returns`` in place of the kernels."""
    ints, floats, cfg, model = job.tree.ints, job.tree.floats, job.cfg, job.model
    solver = cfg.solver
    state, node, length = job.root, 0, 1
    path[0] = 0
    while not model.is_terminal(state) and ints[node, FIRST] >= 0:
        if solver and node != 0 and ints[node, PROVEN] != UNKNOWN:
            break
        child = (job.forced_child if node == 0 and job.forced_child >= 0
                 else select_child(ints, floats, node, cfg))
        state = model.step(state, int(ints[child, ACTION]))
        node = child
        path[length] = node
        length += 1
    if model.is_terminal(state) or (solver and ints[node, PROVEN] != UNKNOWN):
        if model.is_terminal(state):
            returns = model.returns(state)
            value0 = float(returns[0] - returns[1]) / 2.0
            if solver:
                mark_terminal(ints, node, proof_of_returns(value0, int(ints[node, MOVER])))
        else:
            value0 = seat0_value_of_proof(int(ints[node, PROVEN]), int(ints[node, MOVER]))
        backup(ints, floats, path, length, value0)
        if solver:
            propagate_proof(ints, path, length)
        return BACKED_UP, node, length, state
    if ints[node, FIRST] == PENDING:
        return COLLISION, node, length, state
    ints[node, FIRST] = PENDING
    add_virtual_loss(ints, floats, path, length, 1)
    return NEW_LEAF, node, length, state
