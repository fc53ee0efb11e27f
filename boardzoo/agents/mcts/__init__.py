"""Monte Carlo tree search: :class:`MCTSAgent` and its flat-array tree, rules and loops."""

from boardzoo.agents.mcts.agent import MCTSAgent, SearchResult

__all__ = ["MCTSAgent", "SearchResult"]
