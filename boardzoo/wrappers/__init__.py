"""Wrappers: the planning model over an env (the single-agent gym view is in boardzoo.rl)."""

from boardzoo.wrappers.model import EnvModel, legal_mask

__all__ = ["EnvModel", "legal_mask"]
