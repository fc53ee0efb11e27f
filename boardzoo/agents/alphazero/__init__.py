"""AlphaZero: a policy-value network (PyTorch) guiding batched PUCT/Gumbel search.

:class:`AlphaZeroAgent` plays; :mod:`boardzoo.training` trains the networks by self-play;
:mod:`.checkpoint` stores them as data (never code).
"""

from boardzoo.agents.alphazero.agent import AlphaZeroAgent
from boardzoo.agents.alphazero.checkpoint import load_checkpoint, save_checkpoint
from boardzoo.agents.alphazero.network import AlphaZeroNet, NetworkConfig, NetworkEvaluator

__all__ = [
    "AlphaZeroAgent",
    "AlphaZeroNet",
    "NetworkConfig",
    "NetworkEvaluator",
    "load_checkpoint",
    "save_checkpoint",
]
