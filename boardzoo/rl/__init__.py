"""The model-free side: boardzoo games for learners (a floor above agents).

* :class:`SingleAgentEnv`: ``gymnasium.make("boardzoo/<Game>-v0", opponent=..., seat=...)``;
* :class:`BoardVectorEnv`: ``gymnasium.make_vec(..., vectorization_mode="vector_entry_point")``,
  N games stepped by the compiled kernels;
* :class:`TwoPlayerVectorEnv`: N games in which the caller plays both seats (self-play);
* :func:`resolve_opponent`, :class:`CompiledOpponent`: what ``opponent=`` accepts.

The stable-baselines3 pieces (:mod:`boardzoo.rl.sb3`, :mod:`boardzoo.rl.selfplay`) import
SB3 and torch, so they are imported from their modules.
"""

from boardzoo.rl.opponents import CompiledOpponent, resolve_opponent
from boardzoo.rl.single import SingleAgentEnv
from boardzoo.rl.two_player import TwoPlayerVectorEnv
from boardzoo.rl.vector import BoardVectorEnv

__all__ = [
    "BoardVectorEnv",
    "CompiledOpponent",
    "SingleAgentEnv",
    "TwoPlayerVectorEnv",
    "resolve_opponent",
]
