"""AlphaZeroAgent: PUCT (or Gumbel) search guided by a policy-value network.

It is :class:`~boardzoo.agents.MCTSAgent` with a :class:`NetworkEvaluator` as its batched
evaluator, so every search option means the same thing in both; what differs are the
defaults: PUCT, no MCTS-Solver backups and no exact solver (the network's search is what is
measured and what self-play learns from), ``batch_size`` leaves per network call.
Values are from the side to move's view in [-1, 1].
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

import numpy as np

from boardzoo.agents.alphazero.checkpoint import load_checkpoint, resolve_checkpoint
from boardzoo.agents.alphazero.network import AlphaZeroNet, NetworkEvaluator, pick_device
from boardzoo.agents.mcts.agent import MCTSAgent
from boardzoo.agents.mcts.batched import BatchStats
from boardzoo.agents.mcts.summary import TreeSummary
from boardzoo.agents.move import SearchResult
from boardzoo.analysis import Analysis
from boardzoo.checkpoints import checkpoint_name, shipped_checkpoints
from boardzoo.envs.aec import BoardGameEnv
from boardzoo.envs.core import Game
from boardzoo.errors import InvalidOptionError, excerpt
from boardzoo.options import keyword_names
from boardzoo.wrappers.model import EnvModel, GameModel, boardzoo_env

__all__ = ["AlphaZeroAgent", "ShippedAlphaZero", "agent_from_spec"]

#: the keywords AlphaZeroAgent hands on to MCTSAgent (those of its own that MCTSAgent takes)
_MCTS_KEYWORDS = frozenset(keyword_names(MCTSAgent))


class AlphaZeroAgent(MCTSAgent):
    """AlphaZero's search with ``net`` as evaluator (see the module docstring).

    Args:
        net: an :class:`AlphaZeroNet` for ``game``.
        game: the rules the network was trained for; searching another game or options
            raises InvalidOptionError.
        symmetric: average the network over the game's symmetries at every evaluation.
        inference: what runs the network: "torch", "onnxruntime" (the ``onnx`` extra: a
            graph exported in memory from the network's weights as they are now; several
            times faster on the small batches of one game's search) or "auto" (ONNX Runtime
            when it is installed and the network is on the CPU, else torch).

    The other arguments are as for :class:`MCTSAgent` (``selection`` "puct" or "gumbel");
    its ``rollout``, ``evaluator`` (the network) and ``implicit_minimax`` (0) are fixed.
    """

    def __init__(
        self,
        net: AlphaZeroNet,
        game: Game,
        simulations: int | None = None,
        time_limit: float | None = None,
        c: float | None = None,
        selection: str = "puct",
        dirichlet: tuple[float, float] | None = None,
        temperature: float = 0.0,
        reuse_tree: bool = True,
        solver: bool = False,
        exact_solver: bool = False,
        unvisited_q: float | str = "parent",
        gumbel_actions: int | None = None,
        batch_size: int = 16,
        cache_size: int = 1 << 18,
        symmetric: bool = False,
        inference: str = "auto",
        seed: int | None = None,
    ):
        # every argument MCTSAgent takes goes on to it as given
        options = {name: value for name, value in locals().items() if name in _MCTS_KEYWORDS}
        if selection not in ("puct", "gumbel"):
            raise InvalidOptionError(
                f"selection={excerpt(selection)}; AlphaZero uses 'puct' or 'gumbel'")
        self.net = net
        self.game = game
        self.symmetric = symmetric
        evaluator = NetworkEvaluator(net, game, symmetric=symmetric, inference=inference)
        #: what runs the network: "torch" or "onnxruntime" ("auto" resolved)
        self.inference = evaluator.inference
        super().__init__(**options, rollout="random", evaluator=evaluator,
                         implicit_minimax=0.0)
        self._game_model: EnvModel | None = None

    @classmethod
    def from_checkpoint(
        cls, name_or_path: str | os.PathLike, device: str | None = None, **search_options: Any
    ) -> AlphaZeroAgent:
        """An agent from a shipped checkpoint's name ("tictactoe", ...) or a checkpoint file;
        ``device`` None picks CUDA when available; ``search_options`` (``inference``
        included) as for the class."""
        checkpoint = load_checkpoint(resolve_checkpoint(name_or_path), device=pick_device(device))
        return cls(checkpoint.net, checkpoint.game, **search_options)

    def check_plays(self, game: Game) -> None:
        """Refuse (InvalidOptionError) any game but the network's, options included."""
        if game.key != self.game.key:
            raise InvalidOptionError(f"this AlphaZero network plays {self.game!r}, not {game!r}")

    def _check_model(self, model: EnvModel) -> None:
        """Search only the network's game (its options included)."""
        if isinstance(model, GameModel):
            self.check_plays(model.game)

    def search_many(self, states: Sequence[np.ndarray], simulations: int | Sequence[int],
                    noise: Sequence[np.random.Generator | None] | None = None,
                    ) -> list[TreeSummary]:
        """Fresh searches of many positions of the network's game at once, one tree each
        and one network call per round for all of them (no reuse; the search is the same
        as :meth:`search` with ``batch_size=1``): ``simulations`` per position (one number
        or one per position); ``noise[i]`` draws position ``i``'s Dirichlet root noise
        (the agent's ``dirichlet``), None for none. One summary per position, in order:
        the search's own visits (self-play's training targets); a move chosen from one is
        played through :func:`~boardzoo.agents.move.by_rules_of_play`, as :meth:`search`'s
        move goes through the game's rules of play."""
        model = self._model()
        return self.searcher(model).run_many(model, states, simulations, noise)

    def root_visits(self, states: Sequence[np.ndarray], simulations: int | None = None,
                    ) -> np.ndarray:
        """Root visit counts of :meth:`search_many` without noise (``simulations`` default:
        the agent's), shape ``[len(states), num_actions]``."""
        budget = simulations or self.simulations
        if not budget:
            raise InvalidOptionError("root_visits needs a simulation budget")
        return np.stack([s.visit_counts() for s in self.search_many(states, budget)])

    @property
    def statistics(self) -> BatchStats:
        """What the network evaluations did so far (simulations, evaluations, cache hits,
        calls, the network's seconds)."""
        batcher = self.searcher(self._model()).batcher
        assert batcher is not None
        return batcher.stats

    def clear_cache(self) -> None:
        """Forget cached network evaluations (benchmarks; after changing the weights under
        torch: ONNX Runtime runs the weights the agent was made with, so make a new one)."""
        batcher = self.searcher(self._model()).batcher
        assert batcher is not None
        if batcher.cache is not None:
            batcher.cache.clear()

    def _model(self) -> EnvModel:
        if self._game_model is None:
            self._game_model = EnvModel(BoardGameEnv(self.game))
        return self._game_model


class ShippedAlphaZero:
    """``make_agent("alphazero")`` without a checkpoint (the gym view's ``opponent=
    "alphazero"``): plays each env with the shipped network for its game and board size,
    loaded on first use; a game without one is an InvalidOptionError naming those that
    exist. ``last_search`` and ``last_analysis`` are those of the network that played last,
    so that front-ends read its search as any searching agent's (GTP's resignation, UCI's
    final ``info``)."""

    def __init__(self, seed: int | None = None, **search_options: Any):
        self.seed = seed
        self.search_options = search_options
        self._agents: dict[tuple, AlphaZeroAgent] = {}
        self._last: AlphaZeroAgent | None = None  # the agent of the last env asked about

    def agent_for(self, env: Any) -> AlphaZeroAgent:
        raw = boardzoo_env(env)
        if raw is None:
            raise InvalidOptionError("the shipped AlphaZero networks play boardzoo envs only")
        if raw.game.key not in self._agents:
            self._agents[raw.game.key] = AlphaZeroAgent.from_checkpoint(
                self._checkpoint_for(raw.game), seed=self.seed, **self.search_options)
        self._last = self._agents[raw.game.key]
        return self._last

    @property
    def last_search(self) -> SearchResult | None:
        """The last search's result (None before the first)."""
        return None if self._last is None else self._last.last_search

    @property
    def last_analysis(self) -> Analysis | None:
        """The last search as an Analysis (None before the first)."""
        return None if self._last is None else self._last.last_analysis

    def check_plays(self, game: Game) -> None:
        """Refuse (InvalidOptionError) a game with no shipped network."""
        self._checkpoint_for(game)

    @staticmethod
    def _checkpoint_for(game: Game) -> str:
        """The shipped checkpoint's name for ``game``; InvalidOptionError naming those that
        exist where there is none."""
        name = checkpoint_name(game)
        shipped = shipped_checkpoints("alphazero")
        if name not in shipped:
            raise InvalidOptionError(
                f"no shipped AlphaZero network for {game!r} (it would be named {name!r}); "
                f"shipped: {', '.join(sorted(shipped)) or 'none'}; or give checkpoint=PATH"
            )
        return name

    def reseed(self, seed: int | None) -> None:
        self.seed = seed
        for agent in self._agents.values():
            agent.reseed(seed)

    def act(self, env: Any, **hooks: Any) -> int:
        """The move (``hooks``: ``clock``, ``on_progress``, ``stop`` as for MCTSAgent)."""
        return self.agent_for(env).act(env, **hooks)

    def policy(self, env: Any) -> np.ndarray:
        return self.agent_for(env).policy(env)

    def search(self, env: Any, **hooks: Any):
        return self.agent_for(env).search(env, **hooks)

    def analyse(self, env: Any, **hooks: Any):
        return self.agent_for(env).analyse(env, **hooks)


def agent_from_spec(checkpoint: str | None = None, seed: int | None = None,
                    **search_options: Any) -> AlphaZeroAgent | ShippedAlphaZero:
    """``make_agent("alphazero:checkpoint=NAME,...")``: a shipped checkpoint by name, or a
    path; without one, the shipped network of whatever game it is asked to play."""
    if checkpoint is None:
        return ShippedAlphaZero(seed=seed, **search_options)
    return AlphaZeroAgent.from_checkpoint(checkpoint, seed=seed, **search_options)
