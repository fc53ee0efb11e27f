"""Wrappers: the planning model over an env, and the single-agent Gymnasium view."""

from boardzoo.wrappers.model import EnvModel, legal_mask

__all__ = ["EnvModel", "legal_mask"]
