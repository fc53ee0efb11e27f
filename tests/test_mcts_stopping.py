"""The two early-stopping tests of a timed MCTS search, on hand-made root statistics."""

from __future__ import annotations

import numpy as np

from boardzoo.agents.mcts.stopping import decision_unstable, lead_is_safe


def test_a_lead_is_safe_only_when_the_simulations_left_cannot_overturn_it():
    visits = np.array([10, 3, 1])
    assert lead_is_safe(visits, more_by_time=6.0, more_by_budget=100)  # 7 > 6
    assert not lead_is_safe(visits, more_by_time=7.0, more_by_budget=100)  # 7 = 7: a tie
    assert lead_is_safe(visits, more_by_time=1e9, more_by_budget=6)  # the budget caps it
    assert lead_is_safe(np.array([4]), 1e9, 10**6)  # one child: nothing can overturn it
    assert not lead_is_safe(np.array([], dtype=np.int64), 0.0, 0)


def test_a_decision_is_unstable_when_the_leader_moved_or_is_not_the_best_valued():
    visits = np.array([100, 50, 5])
    # means 0.6, 0.8, 1.0: child 1 is compared (50 >= a tenth of 100) and better valued;
    # child 2's 1.0 over 5 visits is too few to count
    assert decision_unstable(visits, np.array([60.0, 40.0, 5.0]), leader=0) == (True, 0)
    # the leader best valued among the compared ones, and the same as last round: stable
    assert decision_unstable(visits, np.array([90.0, 40.0, 5.0]), leader=0) == (False, 0)
    # ... but it just took the lead: unstable
    assert decision_unstable(visits, np.array([90.0, 40.0, 5.0]), leader=1) == (True, 0)
    # nothing searched yet, or one child: nothing to compare
    assert decision_unstable(np.zeros(3), np.zeros(3), leader=-1) == (False, 0)
    assert decision_unstable(np.array([7]), np.array([3.0]), leader=-1) == (False, 0)
