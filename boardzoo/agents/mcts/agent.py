"""MCTSAgent: the Monte Carlo tree search family behind one set of arguments.

Selection ``"uct"`` (UCB1 over rollout values), ``"puct"`` (AlphaZero's prior-weighted rule)
or ``"gumbel"`` (Gumbel root search with sequential halving, Danihelka et al. 2022); RAVE,
progressive widening, MCTS-Solver, tree reuse, Dirichlet root noise and a visit-count
temperature are switches on top. On boardzoo's games the whole simulation loop runs compiled;
on any other PettingZoo AEC env (or with a Python evaluator) the same rules run through the
model in Python.

The agent is three parts: its options, resolved per game into a typed
:class:`~boardzoo.agents.mcts.config.MCTSConfig`; the search object
(:class:`~boardzoo.agents.mcts.search.MCTS`) that grows the tree; and the move pipeline every
searching agent shares (:class:`~boardzoo.agents.move.SearchingAgent`: clock, forced moves,
the exact solver, swindles). What is left here is choosing the move from the search's
summary.

Values are from the side to move's view in [-1, 1] (+1 a win).

Budgets: ``simulations`` and/or ``time_limit`` per move, or a clock (``act(env, clock=...)``,
a :class:`~boardzoo.timecontrol.ClockView`) turned into a target and a maximum time for the
move (:func:`~boardzoo.timecontrol.move_budget`). The search runs in rounds of about
:data:`~boardzoo.analysis.PROGRESS_SECONDS` when it is timed or watched; between rounds it
reports progress (``on_progress``), obeys ``stop`` ("move now") and, under a clock, stops
early when the decision can no longer change (one legal move, a proven root, a visit lead
the simulations left cannot overturn) or runs on towards the maximum while it is unstable
(the most visited move changed in the last round, or it is not the best valued one): the
two tests of :mod:`~boardzoo.agents.mcts.stopping`.
"""

from __future__ import annotations

import threading
import time
from typing import Any

import numpy as np

from boardzoo.agents.mcts.config import AUTO, MCTSConfig, config_for, search_options
from boardzoo.agents.mcts.rules import visit_policy
from boardzoo.agents.mcts.search import MCTS, UNLIMITED, Budget, RunResult
from boardzoo.agents.mcts.summary import TreeSummary
from boardzoo.agents.mcts.tree import DEFAULT_MAX_NODES, LOSS, WIN
from boardzoo.agents.move import SearchingAgent, SearchResult, analysis_of, check_time_limit
from boardzoo.analysis import MEAN, Analysis, ProgressFn
from boardzoo.errors import GameOverError, InvalidOptionError, excerpt
from boardzoo.rng import make_rng
from boardzoo.timecontrol import SearchDeadlines
from boardzoo.wrappers.model import EnvModel, Evaluator, GameModel

__all__ = ["MCTSAgent", "SearchResult"]

DEFAULT_SIMULATIONS = 1000
#: most simulations one call of :meth:`MCTSAgent.ponder` runs (bounds the tree's memory)
PONDER_SIMULATIONS = 2_000_000
#: the smallest ``max_nodes``: room for a root with every child of the biggest board
MIN_MAX_NODES = 1 << 12
#: the tree's row indices are 32-bit: a larger tree would wrap them
MAX_MAX_NODES = 1 << 30
MAX_THREADS = 64  # trees searched at once (each a thread holding its own nodes)
_PROOF_VALUES = {"win": 1.0, "loss": -1.0, "draw": 0.0}


class MCTSAgent(SearchingAgent):
    """Monte Carlo tree search (see the module docstring).

    Args:
        simulations: simulations per move (new ones; a reused subtree keeps its visits).
            Default 1000 when ``time_limit`` is not given either.
        time_limit: seconds per move; compile and warm-up time are not charged.
        c: exploration constant of the selection rule (None: 1.0 for UCT, 1.5 for PUCT and
            for the PUCT rule Gumbel search uses below its root); values are on the [-1, 1]
            scale.
        selection: "uct", "puct" or "gumbel" (Gumbel-top-k sampling and sequential halving
            at the root with completed-Q scores, ``c_visit=gumbel_c_visit``,
            ``c_scale=1``; PUCT below the root).
        rollout: how a new leaf is valued when no evaluator does it: "random" (the game's
            own playout: uniform, or for Go eye-respecting) or "heuristic" (the game's
            heuristic playout: Go captures and escapes ataris, Gomoku wins/blocks near
            stones, Othello prefers corners).
        evaluator: None; "heuristic" (the game's evaluation function values leaves instead
            of a playout, and gives priors: a softmax, temperature 0.1, over the evaluations
            of the positions each move leads to); or a batched
            :class:`~boardzoo.wrappers.model.Evaluator` (a network: observations ``[B, ...]``
            and masks ``[B, A]`` in, logits and side-to-move values out), whose leaves are
            evaluated ``batch_size`` at a time with virtual loss (:mod:`.batched`).

            ``selection``, ``rollout``, ``evaluator`` and ``implicit_minimax`` default to
            "auto": left all four alone, they take the setting that measured strongest on
            the game (its knowledge's ``search_defaults``; see docs/agents.md); once
            any is given, the rest mean the plain choice: no evaluator, the game's own
            playout, no implicit minimax, and UCT — or PUCT when an Evaluator gives priors.
        rave: all-moves-as-first statistics blended into Q (Gelly & Silver), weight
            ``sqrt(rave_k / (3 N + rave_k))``; "auto": as the game's ``search_defaults``
            say where they apply (the four above left "auto"; Go: on, with c = 0.1), else
            off. ``c`` left None likewise takes the game's recommended value there.
        rave_k: RAVE's equivalence parameter above; "auto": the game's recommendation where
            ``c`` would take it (Go: 200), else 1000.
        prior_visits: under RAVE, the virtual AMAF visits each new child starts with, at
            the heuristic value the game's move priors give it (Gelly & Silver 2007's prior
            knowledge; Go's: captures, saving moves, 3x3 patterns...); 0: none; "auto": the
            game's recommendation where ``c`` would take it (Go: 20), else 0.
        progressive_widening: consider only the ``ceil(pw_c * N ** pw_alpha)`` children
            with the highest priors.
        pw_c: progressive widening's coefficient above (positive).
        pw_alpha: progressive widening's exponent above, in [0, 1].
        solver: MCTS-Solver: proven wins/losses propagate; proven roots stop the search and
            play the shortest win (longest loss).
        implicit_minimax: alpha of implicit minimax backups (Lanctot et al. 2014): Q is
            mixed as ``(1 - alpha) Q + alpha V`` with V the heuristic evaluations backed up
            by minimax; needs ``evaluator="heuristic"`` (0 turns it off).
        exact_solver: play the game's exact solver's answer when it finds one: with a time
            budget it is tried whenever its estimated cost (the knowledge's ``solve_cost``)
            fits its share of the move's time (:attr:`solver_share`: 0.6),
            and gives up early on a position much harder than estimated (the search gets
            the rest); without a time budget where the
            knowledge says the position is within reach (Connect Four from 14 stones,
            Othello from 18 empties), on the solver's own node budget.
        swindle: on a clock, when the exact solver proves a draw or a loss, search on among
            the moves that keep that outcome (the others are marked as proven losses) and
            play the search's choice (:mod:`boardzoo.agents.swindle`; needs ``solver``).
        reuse_tree: keep the subtree of the position reached after our move and the reply.
        max_nodes: the most nodes the search tree may hold (76 bytes each; the default
            2**25 is about 2.5 GB); a search that fills the tree stops there and plays its
            best move so far (at least 4,096).
        threads: trees searched at once, each in its own thread (root parallelism,
            :mod:`boardzoo.agents.mcts.parallel`; boardzoo games without a network): the
            extra trees' root statistics join this one's, so N threads on N free cores run
            about N times the simulations in the same time (with ``simulations``, each tree
            runs up to that many). Each extra tree may grow to ``max_nodes`` too.
        dirichlet: ``(epsilon, alpha)`` root noise on the priors (self-play).
        temperature: 0 plays the most visited move; T > 0 samples ``N ** (1 / T)``.
        unvisited_q: Q of unvisited children under PUCT/Gumbel: a number, "parent" (the
            parent's Q) or "loss" (-1).
        gumbel_actions: how many root actions Gumbel's sequential halving starts with
            (None: 16 with an evaluator's priors, all legal actions with uniform priors).
        gumbel_c_visit: ``c_visit`` of Gumbel's completed-Q scores (positive; the paper's
            50).
        batch_size: leaves evaluated per Evaluator call in one search (virtual loss keeps
            them apart); 1 is the sequential search.
        cache_size: positions whose Evaluator output is kept (0: no cache).
        seed: seeds every random choice of the agent.
    """

    #: the exact solver may take all of a move's time but this share, which the search
    #: keeps: MCTS's moves improve with time, so it keeps more than alpha-beta. On FFO #40-#47
    #: (solver alone 2-70 s; MCTS alone played a best move on 4, 4 and 5 of 8 at 0.5, 2 and
    #: 8 s) shares of 0.6-0.7 for the solver gave the most best moves over budgets of 5-120 s
    #: (benchmarks/results/solver-share.md)
    search_keeps = 0.4

    def __init__(
        self,
        simulations: int | None = None,
        time_limit: float | None = None,
        c: float | None = None,
        selection: str = AUTO,
        rollout: str = AUTO,
        evaluator: str | Evaluator | None = AUTO,
        rave: bool | str = AUTO,
        progressive_widening: bool = False,
        solver: bool = True,
        reuse_tree: bool = True,
        dirichlet: tuple[float, float] | None = None,
        temperature: float = 0.0,
        seed: int | None = None,
        exact_solver: bool = True,
        implicit_minimax: float | str = AUTO,
        unvisited_q: float | str = "parent",
        rave_k: float | str = AUTO,
        prior_visits: float | str = AUTO,
        pw_c: float = 2.0,
        pw_alpha: float = 0.5,
        gumbel_actions: int | None = None,
        gumbel_c_visit: float = 50.0,
        batch_size: int = 16,
        cache_size: int = 1 << 18,
        max_nodes: int = DEFAULT_MAX_NODES,
        swindle: bool = True,
        threads: int = 1,
    ):
        _check_budget(simulations, time_limit, temperature, batch_size, threads, max_nodes)
        if threads > 1 and isinstance(evaluator, Evaluator):
            raise InvalidOptionError(
                "threads > 1 search more trees of playouts or heuristic evaluations; a "
                "network's search batches its leaves instead (batch_size)")
        #: the options resolved per game into a configuration (``AUTO``: the game decides);
        #: MCTSConfig declares them, their defaults and their checks
        self.options: dict[str, Any] = {**search_options(locals()),
                                        "c": AUTO if c is None else c}
        config_for(None, self.options)  # every option checked now, not at the first move
        self._default_budget = simulations is None and time_limit is None  # yields to a clock
        self.simulations = DEFAULT_SIMULATIONS if self._default_budget else simulations
        self.time_limit = time_limit
        self.exact_solver, self.swindle, self.reuse_tree = exact_solver, swindle, reuse_tree
        self.temperature = temperature
        self.batch_size, self.cache_size = batch_size, cache_size
        self.max_nodes, self.threads = max_nodes, threads
        self._configs: dict[str | None, MCTSConfig] = {}
        self._searches: dict[Any, MCTS] = {}
        self.reseed(seed)

    # ---------------------------------------------------------------------- public API
    def reseed(self, seed: int | None) -> None:
        """Restart every random stream (the arena does this before each game) and forget
        the trees of earlier moves."""
        self.np_rng = np.random.default_rng(seed)
        self.rng = make_rng(self.np_rng)
        self._searches = {}

    def config_for(self, game: Any) -> MCTSConfig:
        """The search configuration on ``game`` (a :class:`~boardzoo.envs.Game`, or None for
        a non-boardzoo env): the options given, the game's recommendation for the rest
        (:func:`~boardzoo.agents.mcts.config.config_for`)."""
        name = None if game is None else game.name
        if name not in self._configs:
            knowledge = None if game is None else game.knowledge
            self._configs[name] = config_for(knowledge, self.options)
        return self._configs[name]

    def searcher(self, model: EnvModel) -> MCTS:
        """The search object for ``model``'s game (one per game and board; it keeps its tree
        between moves for tree reuse)."""
        key = model.game.key if isinstance(model, GameModel) else None
        if key not in self._searches:
            self._searches[key] = MCTS(
                self.config_for(model.game), self.np_rng, self.rng, batch_size=self.batch_size,
                cache_size=self.cache_size, max_nodes=self.max_nodes, threads=self.threads)
        return self._searches[key]

    def policy(self, env: Any) -> np.ndarray:
        """Search and return the root policy over all actions: visit counts with the agent's
        temperature (T = 0 is treated as 1 here), or Gumbel's improved policy."""
        policy = self.search(env).policy
        assert policy is not None
        return policy

    def ponder(self, env: Any, stop: threading.Event, on_progress: ProgressFn | None = None,
               simulations: int = PONDER_SIMULATIONS) -> Analysis:
        """Think while the opponent does: search ``env``'s position (the opponent to move)
        until ``stop`` is set or ``simulations`` have run, keeping the tree, so that the
        next :meth:`search` after the opponent's reply starts from the reply's subtree
        (with ``reuse_tree``). Returns the analysis of the opponent's position (its values
        from the opponent's view)."""
        model = EnvModel(env)
        root = model.root()
        if model.is_terminal(root):
            raise GameOverError("MCTSAgent cannot ponder a finished game")
        search = self.searcher(model)
        start = time.perf_counter()
        run = search.ponder(model, root, simulations, self._reporter(model, start, on_progress),
                            stop)
        if self.reuse_tree:
            search.remember(root, None)
        return analysis_of(model, self._result(model, run, start), final=True)

    # ----------------------------------------------------------- the engine's part
    def _prepare(self, model: EnvModel, root: Any) -> None:
        self.searcher(model).prepare(model)

    def _forget(self) -> None:
        for search in self._searches.values():
            search.forget()

    def _can_swindle(self, model: EnvModel) -> bool:
        """A proven draw or loss may be swindled with MCTS-Solver (the ruled-out moves are
        proofs); Gumbel's root ignores proven children."""
        config = self.config_for(model.game)
        return config.solver and config.selection != "gumbel" and isinstance(model, GameModel)

    def _search(self, model: EnvModel, root: Any, deadlines: SearchDeadlines,
                on_progress: ProgressFn | None, stop: threading.Event | None,
                root_moves: list[int] | None) -> SearchResult:
        search = self.searcher(model)
        start = time.perf_counter()
        run = search.run(model, root, Budget(self._simulation_budget(deadlines), deadlines),
                         self._reporter(model, start, on_progress), stop, root_moves)
        result = self._result(model, run, start)
        if self.reuse_tree:
            search.remember(root, result.action)
        else:
            search.forget()
        return result

    def _simulation_budget(self, deadlines: SearchDeadlines) -> int:
        """Simulations this search may run: ``simulations``, unless it is only the default
        budget and a clock decides instead."""
        if self.simulations is None or (deadlines.from_clock and self._default_budget):
            return UNLIMITED
        return self.simulations

    def _reporter(self, model: EnvModel, start: float, on_progress: ProgressFn | None):
        """The search's ``on_round``: each round's summary as an Analysis for
        ``on_progress``."""
        if on_progress is None:
            return None

        def on_round(summary: TreeSummary, simulations: int) -> None:
            run = RunResult(summary, simulations)
            on_progress(analysis_of(model, self._result(model, run, start), final=False))

        return on_round

    # ------------------------------------------------------------ choosing the move
    def _result(self, model: EnvModel, run: RunResult, start: float) -> SearchResult:
        """The move and the statistics of a finished (or paused) search."""
        summary = run.summary
        config = self.config_for(model.game)
        proven = summary.root_proven
        value = _PROOF_VALUES[proven] if proven is not None else summary.value
        policy = run.gumbel_policy if run.gumbel_policy is not None else \
            summary.policy(self.temperature or 1.0)
        pv = summary.principal_variation()
        return SearchResult(
            action=self._choose(summary, config.solver, run.gumbel_action),
            value=value, unit=MEAN, exact=proven is not None, proven=proven, depth=len(pv),
            nodes=run.simulations, seconds=time.perf_counter() - start, pv=pv, engine="mcts",
            visits=summary.visit_counts(), q=summary.q_values(), prior=summary.priors(),
            policy=policy, lines=summary.lines)

    def _choose(self, summary: TreeSummary, solver: bool, gumbel_action: int | None) -> int:
        """The action to play: a proof decides first (shortest win, longest loss, a draw),
        then Gumbel's choice, then the temperature rule on visits (never a proven loss
        while something else is left; with no child visited, the highest prior)."""
        actions, proofs = summary.actions, summary.proven
        wins = np.flatnonzero(proofs == WIN)
        if wins.size:
            return int(actions[wins[np.argmin(summary.depth[wins])]])
        if solver and (proofs == LOSS).all():
            return int(actions[np.argmax(summary.depth)])
        if gumbel_action is not None:
            return gumbel_action
        candidates = np.flatnonzero(proofs != LOSS)
        visits = summary.visits[candidates].astype(np.float64)
        if self.temperature > 0 and visits.sum() > 0:
            probs = visit_policy(visits, self.temperature)
            return int(actions[candidates[int(self.np_rng.choice(len(candidates), p=probs))]])
        q = summary.values[candidates] / np.maximum(summary.visits[candidates], 1)
        prior = summary.prior[candidates]
        best = np.lexsort((-prior, -q, -visits))[0]  # most visited, then higher Q, then prior
        return int(actions[candidates[best]])


def _check_budget(simulations: Any, time_limit: Any, temperature: Any, batch_size: Any,
                  threads: Any, max_nodes: Any) -> None:
    """InvalidOptionError for a budget or execution option outside its allowed values."""
    if simulations is not None and (not isinstance(simulations, int) or simulations < 1):
        raise InvalidOptionError(f"simulations={excerpt(simulations)}; give a positive integer")
    check_time_limit(time_limit, "MCTSAgent")
    if temperature < 0:
        raise InvalidOptionError(f"temperature={excerpt(temperature)}; give T >= 0")
    if not isinstance(batch_size, int) or batch_size < 1:
        raise InvalidOptionError(f"batch_size={excerpt(batch_size)}; give a positive integer")
    if not isinstance(threads, int) or not 1 <= threads <= MAX_THREADS:
        raise InvalidOptionError(f"threads={excerpt(threads)}; give an integer in 1..{MAX_THREADS}")
    if not isinstance(max_nodes, int) or not MIN_MAX_NODES <= max_nodes <= MAX_MAX_NODES:
        raise InvalidOptionError(
            f"max_nodes={excerpt(max_nodes)}; give an integer in {MIN_MAX_NODES}..{MAX_MAX_NODES} "
            "(a node takes 76 bytes)")
