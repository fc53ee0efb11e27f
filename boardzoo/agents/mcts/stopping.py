"""When a timed search may stop before its deadline, or should run on to its maximum: the
decisions of MCTS's rounds under a clock (the deadlines themselves come from
:mod:`boardzoo.timecontrol`).

Both read the root's children only: their visits (what the move is chosen by) and their mean
values (each child's own, from the root player's view).
"""

from __future__ import annotations

import numpy as np

__all__ = ["decision_unstable", "lead_is_safe"]


def lead_is_safe(visits: np.ndarray, more_by_time: float, more_by_budget: int) -> bool:
    """Whether the most visited child stays ahead whatever the simulations still to come
    (at most ``min(more_by_time, more_by_budget)``) do."""
    if visits.size < 2:
        return visits.size == 1
    second, first = np.sort(visits)[-2:]
    return first - second > min(more_by_time, more_by_budget)


def decision_unstable(visits: np.ndarray, values: np.ndarray, leader: int) -> tuple[bool, int]:
    """(whether the decision is unstable, the most visited child's index now): unstable when
    the most visited child is not ``leader`` (the last round's) or is not the best valued of
    the children searched enough to compare (at least a tenth of its visits). ``values``:
    the children's summed values, in the order of ``visits``."""
    now = int(np.argmax(visits)) if visits.size else -1
    if visits.size < 2 or visits[now] == 0:
        return False, now
    means = values / np.maximum(visits, 1)
    compared = visits >= 0.1 * visits[now]
    best_valued = int(np.flatnonzero(compared)[np.argmax(means[compared])])
    return now != leader or best_valued != now, now
