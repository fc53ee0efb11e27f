"""Shipped network checkpoints (package data): ``<game>.pt`` for AlphaZero, ``ppo_<game>.pt``
for PPO policies; model cards in docs/. Loaded by name, e.g.
``AlphaZeroAgent.from_checkpoint("tictactoe")``."""
