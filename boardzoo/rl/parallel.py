"""PettingZoo's parallel API over boardzoo's turn-based games.

``pettingzoo.make("parallel", "boardzoo/connect_four_v0")`` gives PettingZoo's own turn-based
conversion of the AEC env: at each step both agents are asked for an action, and only the
agent to move (the one whose ``action_mask`` is not all zeros) has its action played.
"""

from __future__ import annotations

from typing import Any

from pettingzoo.utils.conversions import turn_based_aec_to_parallel

from boardzoo.envs import make_env

__all__ = ["parallel_env"]


def parallel_env(name: str, render_mode: str | None = None, **options: Any):
    """A PettingZoo ParallelEnv of game ``name`` (options as for its AEC env)."""
    return turn_based_aec_to_parallel(make_env(name, render_mode=render_mode, **options))
