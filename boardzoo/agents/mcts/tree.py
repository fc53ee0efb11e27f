"""The search tree as two preallocated arrays (struct of arrays, one row per node).

Node 0 is the root. A node's children are contiguous rows ``first .. first + count``, created
together when the node is expanded. Edge statistics live on the child row:

* ``VISITS`` (N) and ``VALUE`` (W, the sum of backed-up values) are from the view of
  ``MOVER``, the seat that chooses this edge (the side to move at the parent), so Q = W / N is
  what that seat maximises. Storing the mover instead of flipping signs per ply also handles
  games where a seat moves twice in a row.
* ``PROVEN`` (MCTS-Solver) is the proven result of the edge for its mover: ``WIN``, ``LOSS``,
  ``DRAW`` or ``UNKNOWN``; ``DEPTH`` is the number of plies to the end under perfect play
  (shortest win, longest loss).
* ``PRIOR`` is the selection prior; ``AMAF_N``/``AMAF_W`` the all-moves-as-first statistics
  (RAVE), also from the mover's view; ``MINIMAX`` the implicit minimax value (the heuristic
  evaluations of the leaves backed up by minimax, Lanctot et al. 2014), mover's view.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

# integer columns
PARENT, ACTION, FIRST, COUNT, VISITS, MOVER, PROVEN, DEPTH, TO_MOVE = range(9)
INT_COLUMNS = 9
# float columns
VALUE, PRIOR, AMAF_N, AMAF_W, MINIMAX = range(5)
FLOAT_COLUMNS = 5
# proven results (from the edge mover's view)
UNKNOWN, WIN, LOSS, DRAW = 0, 1, 2, 3
# meta slots
SIZE, CAPACITY = 0, 1

NOT_EXPANDED = -1

#: rows (nodes) a tree may grow to unless told otherwise: 2**25, about 2.5 GB at 76 bytes a
#: row (a 5 s Connect Four search grows ~10 million nodes; without a cap a long search would
#: exhaust the memory)
DEFAULT_MAX_NODES = 1 << 25


class TreeArrays(NamedTuple):
    """A tree's arrays as compiled code takes them (one argument)."""

    ints: np.ndarray
    floats: np.ndarray
    meta: np.ndarray


class Tree:
    """Flat-array search tree; ``ints``/``floats`` rows are nodes, ``meta[SIZE]`` used rows,
    never more than ``max_nodes``."""

    def __init__(self, capacity: int = 1 << 14, max_nodes: int = DEFAULT_MAX_NODES):
        self.max_nodes = max_nodes
        capacity = min(capacity, max_nodes)
        self.ints = np.zeros((capacity, INT_COLUMNS), dtype=np.int32)
        self.floats = np.zeros((capacity, FLOAT_COLUMNS), dtype=np.float64)
        self.meta = np.zeros(2, dtype=np.int64)
        self.meta[CAPACITY] = capacity
        self.clear()

    @classmethod
    def over(cls, ints: np.ndarray, floats: np.ndarray, meta: np.ndarray,
             max_nodes: int) -> Tree:
        """A tree on given arrays (a forest's rows: growing it is the forest's business)."""
        tree = cls.__new__(cls)
        tree.ints, tree.floats, tree.meta, tree.max_nodes = ints, floats, meta, max_nodes
        return tree

    @property
    def arrays(self) -> TreeArrays:
        """The arrays as they are now (growing the tree replaces them)."""
        return TreeArrays(self.ints, self.floats, self.meta)

    @property
    def size(self) -> int:
        return int(self.meta[SIZE])

    @property
    def capacity(self) -> int:
        return int(self.meta[CAPACITY])

    def clear(self) -> None:
        """Keep only an unexpanded root."""
        init_root(self.ints, self.floats, self.meta)

    @property
    def at_cap(self) -> bool:
        """Whether the arrays have grown to ``max_nodes`` rows (they can grow no more)."""
        return self.capacity >= self.max_nodes

    def reserve(self, free_rows: int) -> None:
        """Grow (doubling, never past ``max_nodes`` rows) until at least ``free_rows`` rows
        are free, or as far as the cap allows."""
        needed = self.size + free_rows
        if needed <= self.capacity or self.at_cap:
            return
        capacity = self.capacity
        while capacity < needed:
            capacity *= 2
        capacity = min(capacity, self.max_nodes)
        ints = np.zeros((capacity, INT_COLUMNS), dtype=np.int32)
        floats = np.zeros((capacity, FLOAT_COLUMNS), dtype=np.float64)
        ints[: self.size] = self.ints[: self.size]
        floats[: self.size] = self.floats[: self.size]
        self.ints, self.floats = ints, floats
        self.meta[CAPACITY] = capacity

    def reroot(self, node: int) -> None:
        """Make ``node``'s subtree the whole tree (tree reuse), compacting it to the front of
        fresh arrays: the cost is the subtree's, not the old tree's (a copy of the whole
        arrays took ~0.5-1.5 s after a 5 s search, charged to the clock)."""
        if node == 0:
            return
        ints = np.zeros(self.ints.shape, self.ints.dtype)  # calloc: pages zeroed lazily
        floats = np.zeros(self.floats.shape, self.floats.dtype)
        copy_subtree(self.ints, self.floats, node, ints, floats, self.meta)
        self.ints, self.floats = ints, floats

    def children(self, node: int = 0) -> range:
        first, count = int(self.ints[node, FIRST]), int(self.ints[node, COUNT])
        return range(first, first + count) if first != NOT_EXPANDED else range(0)


@njit(cache=True)
def init_root(ints, floats, meta):
    ints[0, :] = 0
    ints[0, PARENT] = -1
    ints[0, ACTION] = -1
    ints[0, FIRST] = NOT_EXPANDED
    ints[0, MOVER] = -1
    floats[0, :] = 0.0
    meta[SIZE] = 1


@njit(cache=True)
def copy_subtree(src_i, src_f, node, dst_i, dst_f, meta):
    """Breadth-first copy of ``node``'s subtree into rows 0.. of ``dst`` (children stay
    contiguous because each node's children are copied together)."""
    dst_i[0, :] = src_i[node, :]
    dst_f[0, :] = src_f[node, :]
    dst_i[0, PARENT] = -1
    size = 1
    origin = np.empty(src_i.shape[0], np.int32)  # origin[new row] = old row
    origin[0] = node
    head = 0
    while head < size:
        old = origin[head]
        first, count = src_i[old, FIRST], src_i[old, COUNT]
        if first != NOT_EXPANDED:
            dst_i[head, FIRST] = size
            for k in range(count):
                dst_i[size + k, :] = src_i[first + k, :]
                dst_f[size + k, :] = src_f[first + k, :]
                dst_i[size + k, PARENT] = head
                origin[size + k] = first + k
            size += count
        head += 1
    meta[SIZE] = size
