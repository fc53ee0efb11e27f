"""The search rules, compiled once and shared by the compiled loop and the generic loop:
selection (UCT, PUCT, RAVE, progressive widening; Gumbel search uses PUCT below its root),
expansion, backup, MCTS-Solver proof propagation, and turning root visits into a policy.

Values are per seat and zero-sum: a backed-up leaf value is ``value0``, the return of seat 0
(+1 win, 0 draw, -1 loss, or an evaluator's estimate in between); an edge whose mover is seat
``m`` adds ``value0`` if ``m == 0`` and ``-value0`` otherwise.

Speed: the rules that take the tree's arrays are compiled with ``inline="always"``, as the
board kernels of :mod:`boardzoo.envs.go_board` are: a compiled call that passes arrays pays
an atomic reference-count update per array, and selection calls :func:`child_q` once per
child. Inlined (with the Go playout and prior helpers of :mod:`boardzoo.knowledge.go`), the
default Go agent runs about 1.3x the simulations per second on a 9x9 middle game (one core,
2026-12-04); compiling the search takes about 3 s longer.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
from numba import njit

from boardzoo.agents.mcts.tree import (
    ACTION,
    AMAF_N,
    AMAF_W,
    CAPACITY,
    COUNT,
    DEPTH,
    DRAW,
    FIRST,
    LOSS,
    MINIMAX,
    MOVER,
    NOT_EXPANDED,
    PARENT,
    PRIOR,
    PROVEN,
    SIZE,
    TO_MOVE,
    UNKNOWN,
    VALUE,
    VISITS,
    WIN,
)
from boardzoo.rng import scramble

# selection kinds
UCT, PUCT, GUMBEL = 0, 1, 2
# first-play urgency modes for PUCT: Q of an unvisited child is a constant, or its parent's Q
FPU_CONSTANT, FPU_PARENT = 0, 1


class SearchConfig(NamedTuple):
    """Every setting the compiled search rules read, as one typed value (numba compiles a
    NamedTuple as a struct, so the loops take it as one argument).

    ``kind`` is UCT, PUCT or GUMBEL; ``c`` the exploration constant ([-1, 1] value scale);
    ``fpu_mode``/``fpu_value`` the Q of unvisited children under PUCT (FPU_PARENT: the
    parent's Q; FPU_CONSTANT: ``fpu_value``); ``rave``/``rave_k`` RAVE and its equal-weight
    visit count; ``progressive_widening`` with ``pw_c * N ** pw_alpha`` children;
    ``solver`` MCTS-Solver; ``gumbel_c_visit``/``gumbel_c_scale`` Gumbel's sigma;
    ``implicit_minimax`` the alpha of implicit minimax backups (0: off); ``prior_visits``
    the virtual AMAF visits a new child starts with under RAVE, at its heuristic value
    (Gelly & Silver's prior knowledge; 0: off); ``tie_salt`` keys the order of children of
    equal prior (:func:`expand`): one number per search.
    """

    kind: int = UCT
    c: float = 1.0
    fpu_mode: int = FPU_PARENT
    fpu_value: float = 0.0
    rave: bool = False
    rave_k: float = 1000.0
    progressive_widening: bool = False
    pw_c: float = 2.0
    pw_alpha: float = 0.5
    solver: bool = True
    gumbel_c_visit: float = 50.0
    gumbel_c_scale: float = 1.0
    implicit_minimax: float = 0.0
    prior_visits: float = 0.0
    tie_salt: int = 0

    def typed(self) -> SearchConfig:
        """The same settings with exact Python types (one numba specialisation for all)."""
        return SearchConfig(
            int(self.kind), float(self.c), int(self.fpu_mode), float(self.fpu_value),
            bool(self.rave), float(self.rave_k), bool(self.progressive_widening),
            float(self.pw_c), float(self.pw_alpha), bool(self.solver),
            float(self.gumbel_c_visit), float(self.gumbel_c_scale),
            float(self.implicit_minimax), float(self.prior_visits), int(self.tie_salt),
        )


PROVEN_VALUE = np.array([0.0, 1.0, -1.0, 0.0])  # by PROVEN code, mover's view


@njit(cache=True)
def rave_q(q, n, amaf_q, amaf_n, k):
    """Blend of Q and the AMAF value with Gelly & Silver's schedule
    ``beta = sqrt(k / (3 N + k))`` (k = the visits at which both weigh the same)."""
    if amaf_n == 0:
        return q
    beta = math.sqrt(k / (3.0 * n + k))
    return (1.0 - beta) * q + beta * amaf_q


@njit(cache=True)
def widened_count(count, parent_n, cfg):
    """How many children (in prior order) progressive widening lets selection consider:
    ``ceil(pw_c * N_parent ** pw_alpha)``, at least 1, at most all."""
    if not cfg.progressive_widening:
        return count
    allowed = int(math.ceil(cfg.pw_c * max(parent_n, 1.0) ** cfg.pw_alpha))
    return max(1, min(count, allowed))


@njit(cache=True, inline="always")
def node_q(ints, floats, node):
    """Mean value of ``node`` for its mover (0 when unvisited)."""
    n = ints[node, VISITS]
    return floats[node, VALUE] / n if n > 0 else 0.0


@njit(cache=True, inline="always")
def child_q(ints, floats, child, cfg, fpu_q):
    """Q of a child for its mover: the proven value if solved; else the mean value (``fpu_q``
    if unvisited), RAVE-blended if enabled, and mixed with the implicit minimax value as
    ``(1 - alpha) Q + alpha V_minimax`` when ``alpha = cfg.implicit_minimax > 0``."""
    if cfg.solver and ints[child, PROVEN] != UNKNOWN:
        return PROVEN_VALUE[ints[child, PROVEN]]
    n = ints[child, VISITS]
    if n == 0:
        q = fpu_q
        if cfg.rave and floats[child, AMAF_N] > 0:
            q = floats[child, AMAF_W] / floats[child, AMAF_N]
    else:
        q = floats[child, VALUE] / n
        if cfg.rave:
            amaf_n = floats[child, AMAF_N]
            amaf_q = floats[child, AMAF_W] / amaf_n if amaf_n > 0 else 0.0
            q = rave_q(q, n, amaf_q, amaf_n, cfg.rave_k)
    alpha = cfg.implicit_minimax
    return q if alpha == 0.0 else (1.0 - alpha) * q + alpha * floats[child, MINIMAX]


@njit(cache=True, inline="always")
def first_play_q(ints, floats, node, cfg):
    """Q given to unvisited children under PUCT/Gumbel: a constant or the parent's Q (the
    parent's value for the side to move there, i.e. minus its own edge Q when seats alternate)."""
    if cfg.fpu_mode == FPU_PARENT:
        if ints[node, VISITS] == 0:
            return 0.0
        q = node_q(ints, floats, node)
        return q if ints[node, MOVER] == ints[node, TO_MOVE] else -q
    return cfg.fpu_value


@njit(cache=True, inline="always")
def select_child(ints, floats, node, cfg):
    """The child row to descend into, maximising (Q from the child's mover's view)

    * UCT (UCB1): ``Q + c * sqrt(ln N_parent / N)``, an unvisited child first (with RAVE,
      ``Q_rave + c * sqrt(ln N_parent / (N + 1))`` so that AMAF values rank unvisited ones);
    * PUCT: ``Q + c * P * sqrt(N_parent) / (1 + N)``, unvisited Q = first-play urgency.

    ``N_parent`` counts the visits that went on to a child: all of the node's visits but the
    one that expanded it. Ties go to the earlier child (prior order, random among equal
    priors: see :func:`expand`); proven losses are skipped while anything else is left.
    """
    first = ints[node, FIRST]
    parent_n = max(ints[node, VISITS] - 1, 0)
    count = widened_count(ints[node, COUNT], parent_n + 1.0, cfg)
    c = cfg.c
    solver, rave = cfg.solver, cfg.rave
    uct = cfg.kind == UCT
    log_n = math.log(max(parent_n, 1))
    sqrt_n = math.sqrt(parent_n)
    fpu_q = 0.0 if uct else first_play_q(ints, floats, node, cfg)
    best, best_score = -1, -np.inf
    for k in range(count):
        child = first + k
        if solver and ints[child, PROVEN] == LOSS:
            continue
        n = ints[child, VISITS]
        if uct:
            if n == 0 and not rave:
                return child  # UCB1: an unvisited child scores +infinity
            q = child_q(ints, floats, child, cfg, fpu_q)
            score = q + c * math.sqrt(log_n / (n + rave))
        else:
            q = child_q(ints, floats, child, cfg, fpu_q)
            score = q + c * floats[child, PRIOR] * sqrt_n / (1.0 + n)
        if score > best_score:
            best, best_score = child, score
    return first if best == -1 else best


@njit(cache=True)
def completed_q(ints, floats, node, cfg, count):
    """Gumbel MuZero's completed Q per root child, already transformed by ``sigma``: Q for
    visited children, the prior-weighted mix of visited Qs (or the node's own value) for
    unvisited ones; ``sigma(q) = (c_visit + max N) * c_scale * q`` on a [0, 1] value scale."""
    first = ints[node, FIRST]
    visited_p, visited_pq, max_n = 0.0, 0.0, 0
    for k in range(count):
        child = first + k
        n = ints[child, VISITS]
        if n > 0:
            visited_p += floats[child, PRIOR]
            visited_pq += floats[child, PRIOR] * child_q(ints, floats, child, cfg, 0.0)
            max_n = max(max_n, n)
    mixed = visited_pq / visited_p if visited_p > 0 else first_play_q(ints, floats, node, cfg)
    scale = (cfg.gumbel_c_visit + max_n) * cfg.gumbel_c_scale
    out = np.empty(count)
    for k in range(count):
        child = first + k
        q = child_q(ints, floats, child, cfg, 0.0) if ints[child, VISITS] > 0 else mixed
        out[k] = scale * (q + 1.0) / 2.0
    return out


@njit(cache=True, inline="always")
def expand(ints, floats, meta, node, to_move, mask, priors, values, amaf_visits, salt):
    """Create one child per legal action of ``node`` (``mask``), with ``priors`` and heuristic
    ``values`` (mover's view, the children's first implicit minimax values, and their
    ``amaf_visits`` virtual AMAF visits; per action, ignored where illegal), in the order
    of :func:`_order_children`: selection tries unvisited children in that order, so no
    action is favoured for its number (in action order, UCT's replies below a node with
    fewer visits than children were always the first actions: a Gomoku search only ever
    answered on the top rows). Returns False when the tree has no room."""
    count = 0
    for a in range(mask.shape[0]):
        count += mask[a]
    first = meta[SIZE]
    if first + count > meta[CAPACITY]:
        return False
    ints[node, TO_MOVE] = to_move
    if ints[node, MOVER] < 0:  # the root: track its value as if the other seat moved into it
        ints[node, MOVER] = 1 - to_move
    ints[node, FIRST] = first
    ints[node, COUNT] = count
    _order_children(ints, floats, first, mask, priors, np.uint64(node), salt)
    for row in range(first, first + count):
        a = ints[row, ACTION]
        ints[row, :] = 0
        floats[row, :] = 0.0
        ints[row, PARENT] = node
        ints[row, ACTION] = a
        ints[row, FIRST] = NOT_EXPANDED
        ints[row, MOVER] = to_move
        floats[row, PRIOR] = priors[a]
        floats[row, MINIMAX] = values[a]
        floats[row, AMAF_N] = amaf_visits
        floats[row, AMAF_W] = amaf_visits * values[a]
    meta[SIZE] = first + count
    return True


@njit(cache=True, inline="always")
def _order_children(ints, floats, first, mask, priors, node, salt):
    """Write the legal actions (``mask``) into the ACTION column of rows ``first``.. by prior,
    descending, equal priors in a pseudo-random order keyed by the search's ``salt``, the
    parent row ``node`` and nothing else, so that a tree searched alone or among many (a
    batched search) orders them alike. Equal priors throughout (uniform: UCT, a uniform
    evaluator) are shuffled; otherwise the actions are insertion-sorted by prior, ties by
    :func:`_tie_break` (the expansions are the search's hottest path: nothing is allocated,
    and the sort, the slow part at 81 children, runs only where priors differ)."""
    count = 0
    equal = True
    for a in range(mask.shape[0]):
        if mask[a]:
            ints[first + count, ACTION] = a
            equal = equal and priors[a] == priors[ints[first, ACTION]]
            count += 1
    if equal:
        _shuffle(ints, first, count, _tie_hash(salt, node, np.uint64(0)))
    else:
        _sort_by_prior(ints, floats, first, count, priors, node, salt)


@njit(cache=True, inline="always")
def _shuffle(ints, first, count, x):
    """Fisher-Yates shuffle of the ACTION column of rows ``first .. first + count``, drawing
    from a xorshift stream seeded with ``x`` (non-zero)."""
    for i in range(count - 1, 0, -1):
        x ^= x << np.uint64(13)
        x ^= x >> np.uint64(7)
        x ^= x << np.uint64(17)
        j = first + np.int64(((x >> np.uint64(32)) * np.uint64(i + 1)) >> np.uint64(32))
        row = first + i
        ints[row, ACTION], ints[j, ACTION] = ints[j, ACTION], ints[row, ACTION]


@njit(cache=True, inline="always")
def _sort_by_prior(ints, floats, first, count, priors, node, salt):
    """Insertion sort of the ACTION column of rows ``first .. first + count`` by prior,
    descending, equal priors by :func:`_tie_break` (the PRIOR column holds the keys)."""
    for k in range(count):
        a = ints[first + k, ACTION]
        key = priors[a] + 1e-9 * _tie_break(salt, node, a)
        j = first + k
        while j > first and floats[j - 1, PRIOR] < key:
            floats[j, PRIOR] = floats[j - 1, PRIOR]
            ints[j, ACTION] = ints[j - 1, ACTION]
            j -= 1
        floats[j, PRIOR] = key
        ints[j, ACTION] = a


@njit(cache=True, inline="always")
def _tie_hash(salt, node, action):
    """A hash of the search's ``salt``, the parent row and an action (never zero)."""
    mixed = scramble(np.uint64(salt) ^ scramble(node * np.uint64(0x9E3779B97F4A7C15)
                                                ^ np.uint64(action)))
    return mixed | np.uint64(1)


@njit(cache=True, inline="always")
def _tie_break(salt, node, action):
    """A pseudo-random number in [0, 1) for a child (:func:`_tie_hash`). Unlike a draw from
    a random stream it depends on nothing else, so a tree searched alone or among many
    breaks ties alike."""
    return np.float64(_tie_hash(salt, node, action) >> np.uint64(11)) * (
        1.0 / 9007199254740992.0)


@njit(cache=True, inline="always")
def backup(ints, floats, path, length, value0):
    """Add one visit and the leaf value (seat 0's return) to every node on ``path[:length]``,
    each from its own mover's view (the root has no mover and only counts visits)."""
    for i in range(length):
        node = path[i]
        ints[node, VISITS] += 1
        mover = ints[node, MOVER]
        if mover == 0:
            floats[node, VALUE] += value0
        elif mover == 1:
            floats[node, VALUE] -= value0


@njit(cache=True, inline="always")
def backup_amaf(ints, floats, path, length, last_play, value0):
    """RAVE: for each node on the path, credit every child whose action its mover played at
    or after that node in this simulation (tree part, then the playout), as if played first.
    ``last_play[seat, action]`` is the last simulation step (0 = the root's move) at which
    ``seat`` played ``action``, or -1."""
    for i in range(length - 1):
        node = path[i]
        first, n_children = ints[node, FIRST], ints[node, COUNT]
        mover = ints[node, TO_MOVE]
        value = value0 if mover == 0 else -value0
        for k in range(n_children):
            child = first + k
            if last_play[mover, ints[child, ACTION]] >= i:
                floats[child, AMAF_N] += 1.0
                floats[child, AMAF_W] += value


@njit(cache=True, inline="always")
def backup_minimax(ints, floats, path, length):
    """Implicit minimax backups: from the leaf's parent up, each node's MINIMAX becomes the
    best of its children's (converted to the node's own mover)."""
    for i in range(length - 2, -1, -1):
        node = path[i]
        first, count = ints[node, FIRST], ints[node, COUNT]
        best = -np.inf
        for k in range(count):
            best = max(best, floats[first + k, MINIMAX])
        same_seat = ints[node, MOVER] == ints[node, TO_MOVE]
        floats[node, MINIMAX] = best if same_seat else -best


@njit(cache=True, inline="always")
def mark_terminal(ints, node, outcome_for_mover):
    """MCTS-Solver: a terminal node is proven with its own result (0 plies left)."""
    ints[node, PROVEN] = outcome_for_mover
    ints[node, DEPTH] = 0


@njit(cache=True, inline="always")
def propagate_proof(ints, path, length):
    """MCTS-Solver (Winands et al.): walk up from the leaf; a node whose side to move has a
    proven win among its children is a proven loss for the node's own mover; a node whose
    children are all proven is proven with the best of them. Depths prefer the shortest win
    and the longest loss."""
    for i in range(length - 2, -1, -1):
        node = path[i]
        result, depth = _proof_from_children(ints, node)
        if result == UNKNOWN:
            return
        ints[node, PROVEN] = result
        ints[node, DEPTH] = depth


@njit(cache=True, inline="always")
def _proof_from_children(ints, node):
    """(PROVEN code for the node's mover, depth) implied by the children, or (UNKNOWN, 0)."""
    first, count = ints[node, FIRST], ints[node, COUNT]
    if first == NOT_EXPANDED or count == 0:
        return UNKNOWN, 0
    win_depth, loss_depth, draw_depth = 1 << 30, -1, 1 << 30
    unknown = False
    for k in range(count):
        child = first + k
        proven = ints[child, PROVEN]
        d = ints[child, DEPTH]
        if proven == WIN:
            win_depth = min(win_depth, d)
        elif proven == LOSS:
            loss_depth = max(loss_depth, d)
        elif proven == DRAW:
            draw_depth = min(draw_depth, d)
        else:
            unknown = True
    # results for the side to move at ``node``, converted to the node's mover below
    if win_depth < (1 << 30):
        side_result, depth = WIN, win_depth + 1
    elif unknown:
        return UNKNOWN, 0
    elif draw_depth < (1 << 30):
        side_result, depth = DRAW, draw_depth + 1
    else:
        side_result, depth = LOSS, loss_depth + 1
    same_seat = ints[node, MOVER] == ints[node, TO_MOVE]
    if side_result == DRAW or same_seat:
        return side_result, depth
    return (LOSS if side_result == WIN else WIN), depth


def visit_policy(visits: np.ndarray, temperature: float) -> np.ndarray:
    """Visit counts to move probabilities: ``N ** (1 / T)`` normalised; T = 0 puts all the
    mass on the most visited moves (split evenly among ties). Computed in log space, so small
    temperatures do not overflow."""
    visits = np.asarray(visits, dtype=np.float64)
    if visits.sum() <= 0:
        raise ValueError("visit_policy needs at least one visit")
    if temperature <= 0:
        best = visits == visits.max()
        return best / best.sum()
    logs = np.full(visits.shape, -np.inf)
    positive = visits > 0
    logs[positive] = np.log(visits[positive]) / temperature
    logs -= logs.max()
    probs = np.exp(logs)
    return probs / probs.sum()


def mix_dirichlet(
    priors: np.ndarray, mask: np.ndarray, epsilon: float, alpha: float, rng: np.random.Generator
) -> np.ndarray:
    """AlphaZero root noise: ``(1 - eps) * P + eps * Dir(alpha)`` over the legal actions."""
    legal = np.flatnonzero(mask)
    noise = rng.dirichlet(np.full(legal.size, alpha))
    mixed = priors.astype(np.float64).copy()
    mixed[legal] = (1.0 - epsilon) * mixed[legal] + epsilon * noise
    return mixed


def add_root_noise(tree, epsilon: float, alpha: float, rng: np.random.Generator) -> None:
    """Mix Dirichlet noise into the priors of an expanded root's children (in place), drawn
    over the children in action order."""
    children = list(tree.children())
    actions = tree.ints[children, ACTION]
    size = int(actions.max()) + 1
    priors = np.zeros(size)
    mask = np.zeros(size, dtype=bool)
    priors[actions] = tree.floats[children, PRIOR]
    mask[actions] = True
    tree.floats[children, PRIOR] = mix_dirichlet(priors, mask, epsilon, alpha, rng)[actions]
