"""Wrappers: the planning model over an env and the batched evaluator seam (the single-agent
gym view is in boardzoo.rl)."""

from boardzoo.wrappers.model import EnvModel, Evaluation, Evaluator, legal_mask

__all__ = ["EnvModel", "Evaluation", "Evaluator", "legal_mask"]
