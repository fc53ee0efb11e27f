"""boardzoo: two-player board games in the PettingZoo/Gymnasium API, and agents that plan.

Importing boardzoo registers its environments: ``gymnasium.make("boardzoo/ConnectFour-v0")``
(single-agent view against an opponent) and ``pettingzoo.make("aec",
"boardzoo/connect_four_v0")`` (the two-player AEC env).
"""

from __future__ import annotations

from boardzoo import compile_progress, numba_cache

numba_cache.install()  # before any compiled function is defined
compile_progress.install()

from boardzoo import envs  # noqa: E402, F401 - importing the games registers them everywhere

numba_cache.seed()  # a wheel's compiled cache, once (its tags name the games just registered)

__version__ = "0.1.0"
