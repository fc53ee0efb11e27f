"""The agents a training run plays with, all from :func:`training_agent`: self-play, the
gate's two networks and the measurement against fixed references search as the config says
(its simulations, exploration constant ``c`` and ``inference``), so the search that makes
the training targets is the search that is gated and measured. Only self-play adds
Dirichlet root noise.
"""

from __future__ import annotations

from boardzoo.agents.alphazero.agent import AlphaZeroAgent
from boardzoo.agents.alphazero.network import AlphaZeroNet
from boardzoo.envs.core import Game
from boardzoo.training.config import TrainConfig

__all__ = ["training_agent"]


def training_agent(net: AlphaZeroNet, game: Game, config: TrainConfig, seed: int,
                   self_play: bool = False) -> AlphaZeroAgent:
    """AlphaZero's own search (PUCT, no solver) with ``net`` as ``config`` sets it; with
    ``self_play`` the config's Dirichlet root noise too. A new agent starts with an empty
    evaluation cache and runs ``net``'s weights as they are now (they may have changed)."""
    noise = (config.dirichlet_epsilon, config.alpha_for(game.name))
    return AlphaZeroAgent(net, game, simulations=config.simulations, c=config.c,
                          dirichlet=noise if self_play and config.dirichlet_epsilon > 0 else None,
                          inference=config.inference, seed=seed)
