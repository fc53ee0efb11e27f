"""MCTSAgent: the Monte Carlo tree search family behind one set of arguments.

Selection ``"uct"`` (UCB1 over rollout values), ``"puct"`` (AlphaZero's prior-weighted rule)
or ``"gumbel"`` (Gumbel root search with sequential halving, Danihelka et al. 2022); RAVE,
progressive widening, MCTS-Solver, tree reuse, Dirichlet root noise and a visit-count
temperature are switches on top. On boardzoo's games the whole simulation loop runs compiled;
on any other PettingZoo AEC env (or with a Python evaluator) the same rules run through the
model in Python.

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

import math
import threading
import time
from typing import Any, NamedTuple

import numpy as np

from boardzoo.agents.base import SearchingAgent
from boardzoo.agents.mcts import fast
from boardzoo.agents.mcts.batched import LeafBatcher, SearchJob
from boardzoo.agents.mcts.generic import run_generic
from boardzoo.agents.mcts.gumbel import sequential_halving
from boardzoo.agents.mcts.kernels import compiled_kernels, warm_up
from boardzoo.agents.mcts.parallel import RootHelpers
from boardzoo.agents.mcts.reuse import kept_node
from boardzoo.agents.mcts.rules import (
    FPU_CONSTANT,
    FPU_PARENT,
    GUMBEL,
    PUCT,
    UCT,
    SearchConfig,
    add_root_noise,
    visit_policy,
)
from boardzoo.agents.mcts.stopping import decision_unstable, lead_is_safe
from boardzoo.agents.mcts.tree import (
    ACTION,
    DEFAULT_MAX_NODES,
    DEPTH,
    DRAW,
    FIRST,
    LOSS,
    NOT_EXPANDED,
    PRIOR,
    PROVEN,
    UNKNOWN,
    VALUE,
    VISITS,
    WIN,
    Tree,
)
from boardzoo.agents.swindle import plan_swindle
from boardzoo.analysis import MEAN, PROGRESS_SECONDS, Analysis, ProgressFn, mcts_moves, move_texts
from boardzoo.clock import monotonic
from boardzoo.envs.registry import GAMES
from boardzoo.errors import GameOverError, InvalidOptionError
from boardzoo.knowledge.base import Solution, load_solver, solve_if_affordable, solver_horizon
from boardzoo.rng import make_rng
from boardzoo.timecontrol import (
    ClockView,
    SearchDeadlines,
)
from boardzoo.wrappers.model import EnvModel, Evaluator, GameModel

__all__ = ["MCTSAgent", "SearchResult"]

AUTO = "auto"
SELECTIONS = {"uct": UCT, "puct": PUCT, "gumbel": GUMBEL}
FALLBACK = {"selection": "uct", "rollout": "random", "evaluator": None, "implicit_minimax": 0.0,
            "rave": False}
EXACT_SOLVER_SHARE = 0.5  # of time_limit, for the game's exact solver at the root
DEFAULT_C = {"uct": 1.0, "puct": 1.5, "gumbel": 1.5}
#: RAVE's equivalence parameter where a game recommends none: the search rules' own default
DEFAULT_RAVE_K: float = SearchConfig._field_defaults["rave_k"]
GUMBEL_C_SCALE = 1.0  # Danihelka et al.'s c_scale
DEFAULT_SIMULATIONS = 1000
#: most simulations one call of :meth:`MCTSAgent.ponder` runs (bounds the tree's memory)
PONDER_SIMULATIONS = 2_000_000
#: the smallest ``max_nodes``: room for a root with every child of the biggest board
MIN_MAX_NODES = 1 << 12
_PROVEN_NAMES = {WIN: "win", LOSS: "loss", DRAW: "draw"}


class Settings(NamedTuple):
    """The settings of a search on one game, with "auto" arguments resolved."""

    selection: str
    rollout: str
    evaluator: Any
    c: float
    rave: bool
    cfg: SearchConfig


class SearchResult(NamedTuple):
    """Root statistics of one search; arrays have shape ``[num_actions]``.

    ``q`` and ``value`` are from the side to move's view (NaN for unvisited or illegal
    actions); ``proven`` is "win"/"loss"/"draw" for the side to move when MCTS-Solver proved
    the root, else None; ``pv`` follows the most visited children.
    """

    action: int
    visits: np.ndarray
    q: np.ndarray
    prior: np.ndarray
    policy: np.ndarray
    pv: list[int]
    value: float
    proven: str | None
    simulations: int
    seconds: float


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
        solver: MCTS-Solver: proven wins/losses propagate; proven roots stop the search and
            play the shortest win (longest loss).
        implicit_minimax: alpha of implicit minimax backups (Lanctot et al. 2014): Q is
            mixed as ``(1 - alpha) Q + alpha V`` with V the heuristic evaluations backed up
            by minimax; needs ``evaluator="heuristic"`` (0 turns it off).
        exact_solver: play the game's exact solver's answer when it finds one: with a time
            budget it is tried whenever its estimated cost (the knowledge's ``solve_cost``)
            fits half the move's time, and gives up early on a position much harder than
            estimated (the search gets the rest); without a time budget where the
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
        batch_size: leaves evaluated per Evaluator call in one search (virtual loss keeps
            them apart); 1 is the sequential search.
        cache_size: positions whose Evaluator output is kept (0: no cache).
        seed: seeds every random choice of the agent.
    """

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
        _check_options(
            simulations,
            time_limit,
            selection,
            rollout,
            evaluator,
            dirichlet,
            temperature,
            unvisited_q,
        )
        if rave != AUTO and not isinstance(rave, (bool, np.bool_)):
            raise InvalidOptionError(f"rave={rave!r}; use True, False or 'auto'")
        if implicit_minimax != AUTO and not (
            isinstance(implicit_minimax, (int, float)) and 0 <= implicit_minimax <= 1
        ):
            raise InvalidOptionError(
                f"implicit_minimax={implicit_minimax!r}; give 'auto' or alpha in [0, 1]"
            )
        if rave_k != AUTO and not (isinstance(rave_k, (int, float)) and 0 < rave_k < math.inf):
            raise InvalidOptionError(f"rave_k={rave_k!r}; give 'auto' or a positive number")
        if prior_visits != AUTO and not (
            isinstance(prior_visits, (int, float)) and 0 <= prior_visits < math.inf
        ):
            raise InvalidOptionError(
                f"prior_visits={prior_visits!r}; give 'auto' or a number of virtual visits, "
                "0 or more")
        if not isinstance(batch_size, int) or batch_size < 1:
            raise InvalidOptionError(f"batch_size={batch_size!r}; give a positive integer")
        if not isinstance(threads, int) or threads < 1:
            raise InvalidOptionError(f"threads={threads!r}; give a positive integer")
        if threads > 1 and isinstance(evaluator, Evaluator):
            raise InvalidOptionError(
                "threads > 1 search more trees of playouts or heuristic evaluations; a "
                "network's search batches its leaves instead (batch_size)")
        if not isinstance(max_nodes, int) or max_nodes < MIN_MAX_NODES:
            raise InvalidOptionError(
                f"max_nodes={max_nodes!r}; give an integer of at least {MIN_MAX_NODES}")
        self._default_budget = simulations is None and time_limit is None  # yields to a clock
        if self._default_budget:
            simulations = DEFAULT_SIMULATIONS
        self.simulations = simulations
        self.time_limit = time_limit
        self.requested = {"selection": selection, "rollout": rollout, "evaluator": evaluator,
                          "implicit_minimax": implicit_minimax}
        self.c = c
        self.rave = rave
        self.progressive_widening = progressive_widening
        self.solver = solver
        self.exact_solver = exact_solver
        self.swindle = swindle
        self.reuse_tree = reuse_tree
        self.dirichlet = dirichlet
        self.temperature = temperature
        self.unvisited_q = unvisited_q
        self.gumbel_actions = gumbel_actions
        self.batch_size = batch_size
        self.batcher = (
            LeafBatcher(evaluator, cache_size) if isinstance(evaluator, Evaluator) else None
        )
        self.prior_visits = prior_visits
        self.rave_k = rave_k
        self._tuning = (pw_c, pw_alpha, gumbel_c_visit)
        self._settings: dict[str | None, Settings] = {}
        self.settings = self.settings_for(None)
        self.max_nodes = max_nodes
        self.tree = Tree(max_nodes=max_nodes)
        self.threads = threads
        self._helpers: RootHelpers | None = None
        self._tree_full = False  # this search filled the tree: it stops
        self.last_search: SearchResult | None = None
        self.last_analysis: Analysis | None = None
        self._reuse_from: tuple[Any, int | None] | None = None  # (root, our action or None)
        self._solver_seconds = 0.0
        self.reseed(seed)

    def __getstate__(self) -> dict[str, Any]:
        """Pickles (for arena worker processes) without the search tree or cached evaluations."""
        state = dict(self.__dict__)
        state["tree"], state["last_search"], state["_reuse_from"] = (
            Tree(max_nodes=self.max_nodes), None, None)
        state["last_analysis"] = None
        if self.batcher is not None:
            state["batcher"] = LeafBatcher(self.batcher.evaluator, self.batcher.cache_size)
        return state

    # ---------------------------------------------------------------------- public API
    def reseed(self, seed: int | None) -> None:
        """Restart every random stream (the arena does this before each game)."""
        self.np_rng = np.random.default_rng(seed)
        self.rng = make_rng(self.np_rng)
        self._reuse_from = None
        if self.threads > 1:
            self._helpers = RootHelpers(self.threads - 1, self.max_nodes, self.np_rng)

    def ponder(
        self,
        env: Any,
        stop: threading.Event,
        on_progress: ProgressFn | None = None,
        simulations: int = PONDER_SIMULATIONS,
    ) -> Analysis:
        """Think while the opponent does: search ``env``'s position (the opponent to move)
        until ``stop`` is set or ``simulations`` have run, keeping the tree, so that the
        next :meth:`search` after the opponent's reply starts from the reply's subtree
        (with ``reuse_tree``). Returns the analysis of the opponent's position (its values
        from the opponent's view)."""
        model = EnvModel(env)
        root = model.root()
        if model.is_terminal(root):
            raise GameOverError("MCTSAgent cannot ponder a finished game")
        self.settings = self._settings_on(model)
        runner = self._runner(model, root)
        self._prepare_tree(model, root)
        start = time.perf_counter()
        done = self._run(runner, 1, 0.0) if self.tree.ints[0, FIRST] == NOT_EXPANDED else 0
        done += self._rounds(runner, model, simulations - done, SearchDeadlines.none(), start,
                             on_progress, stop, watched=True)
        result = self._result(model, None, None, done, start)
        self._reuse_from = (root, None) if self.reuse_tree else None
        return self._analysis(model, result, final=True)

    def policy(self, env: Any) -> np.ndarray:
        """Search and return the root policy over all actions: visit counts with the agent's
        temperature (T = 0 is treated as 1 here), or Gumbel's improved policy."""
        return self.search(env).policy

    def prepare(self, env: Any) -> None:
        """Compile what searching ``env``'s game needs, so that no clock pays for it (the
        arena calls this before a timed game)."""
        model = EnvModel(env)
        self.settings = self._settings_on(model)
        root = model.root()
        self._runner(model, root)
        if self.exact_solver and isinstance(model, GameModel):
            load_solver(model.game.knowledge, root)

    def search(
        self,
        env: Any,
        clock: ClockView | None = None,
        on_progress: ProgressFn | None = None,
        stop: threading.Event | None = None,
    ) -> SearchResult:
        """Run one search from ``env``'s current position and return its root statistics.

        ``clock``: the agent's clock (then the move's time comes from it, capped by
        ``time_limit`` and ``simulations`` when those were given; compilation is charged,
        as the clock charges it); ``on_progress(analysis)`` is called between rounds;
        ``stop`` set: return the best move so far. The result is also kept as
        ``last_search`` and, as an :class:`Analysis`, ``last_analysis``.
        """
        entered = monotonic()
        model = EnvModel(env)
        root = model.root()
        if model.is_terminal(root):
            raise GameOverError("MCTSAgent cannot search a finished game")
        self.settings = self._settings_on(model)
        game = model.game if isinstance(model, GameModel) else None
        horizon = (solver_horizon(game.knowledge, root)
                   if self.exact_solver and game is not None else None)
        deadlines = None if clock is None else SearchDeadlines.for_move(
            entered, clock, game, root, self.time_limit, horizon)
        if deadlines is not None and _single_legal_move(model, root):
            return self._finish(model, root, self._forced_result(model, root))
        solution = self._exact_solution(model, root, deadlines, stop)
        swindle = None
        if solution is not None and clock is not None and self._may_swindle(model):
            swindle = plan_swindle(game, root, solution.value, solution.action, entered, clock,
                                   self.time_limit, stop)
        if solution is not None and swindle is None:
            return self._finish(model, root, self._solved_result(model, solution), reuse=False)
        if swindle is not None:
            deadlines = swindle.deadlines
        runner = self._runner(model, root)  # compiles on first use: not charged to time_limit
        self._prepare_tree(model, root, math.inf if deadlines is None else deadlines.target)
        start = time.perf_counter() - self._solver_seconds
        if deadlines is None:
            deadlines = (SearchDeadlines.fixed(monotonic() - self._solver_seconds, self.time_limit)
                         if self.time_limit else SearchDeadlines.none())
        done = 0
        if self.tree.ints[0, FIRST] == NOT_EXPANDED:
            done = self._run(runner, 1, 0.0)  # the root is always expanded
        if swindle is not None:
            self._rule_out_root_moves(swindle.moves)
        if self.dirichlet is not None:
            add_root_noise(self.tree, *self.dirichlet, self.np_rng)
        budget = self._simulation_budget(clock)
        if self.settings.selection == "gumbel":
            deadline = _as_deadline(deadlines.target)
            more, gumbel_choice, improved = sequential_halving(
                self.tree, self.settings.cfg, self._gumbel_width(), budget - done, deadline,
                self.np_rng, lambda n, child: self._run(runner, n, deadline, child))
        else:
            watched = on_progress is not None or stop is not None
            more = self._rounds(runner, model, budget - done, deadlines, start, on_progress,
                                stop, watched)
            gumbel_choice, improved = None, None
        result = self._result(model, gumbel_choice, improved, done + more, start)
        if solution is not None:  # a swindle: the outcome is the solver's
            result = result._replace(value=float(np.sign(solution.value)),
                                     proven=_outcome_name(solution.value))
        return self._finish(model, root, result)

    # ----------------------------------------------------------------------- internals
    def settings_for(self, game_name: str | None) -> Settings:
        """The settings used on ``game_name`` (None: a non-boardzoo env). When none of
        ``selection``, ``rollout``, ``evaluator`` and ``implicit_minimax`` is given, they take
        the game's ``knowledge.search_defaults`` as one bundle, with its ``rave`` where left
        "auto" and its ``c``, ``prior_visits`` and ``rave_k`` where left unset (if RAVE is as
        it recommends); once any of the four is given, the others that are left "auto" take
        the plain choice (UCT, the game's own playout, no evaluator, no implicit minimax, no
        RAVE, the selection's usual c, no prior visits, rave_k 1000)."""
        if game_name not in self._settings:
            recommended = FALLBACK
            if all(value == AUTO for value in self.requested.values()) and game_name:
                knowledge = getattr(GAMES.get(game_name), "knowledge", None)
                if knowledge is not None:
                    recommended = {**FALLBACK, **knowledge.search_defaults.recommended()}
            chosen = {key: recommended[key] if value == AUTO else value
                      for key, value in self.requested.items()}
            if isinstance(chosen["evaluator"], Evaluator) and self.requested["selection"] == AUTO:
                chosen["selection"] = "puct"  # a network's priors are what PUCT is for
            rave = bool(recommended["rave"] if self.rave == AUTO else self.rave)
            tuned = recommended if rave == recommended["rave"] else {}
            tuned_c = tuned.get("c")
            c = float(self.c if self.c is not None else
                      tuned_c if tuned_c is not None else DEFAULT_C[chosen["selection"]])
            prior_visits = float((tuned.get("prior_visits") or 0.0) if self.prior_visits == AUTO
                                 else self.prior_visits)
            rave_k = float((tuned.get("rave_k") or DEFAULT_RAVE_K) if self.rave_k == AUTO
                           else self.rave_k)
            cfg = self._config(chosen["selection"], c, chosen["implicit_minimax"], rave,
                               prior_visits, rave_k)
            self._settings[game_name] = Settings(chosen["selection"], chosen["rollout"],
                                                 chosen["evaluator"], c, rave, cfg)
        return self._settings[game_name]

    def _settings_on(self, model: EnvModel) -> Settings:
        """The settings on ``model``'s game."""
        return self.settings_for(model.game.name if model.game else None)

    def _simulation_budget(self, clock: ClockView | None) -> int:
        """Simulations this search may run: ``simulations``, unless it is only the default
        budget and a clock decides instead."""
        if self.simulations is None or (clock is not None and self._default_budget):
            return 1 << 60
        return self.simulations

    def _rounds(
        self,
        runner,
        model: EnvModel,
        budget: int,
        deadlines: SearchDeadlines,
        start: float,
        on_progress: ProgressFn | None,
        stop: threading.Event | None,
        watched: bool,
    ) -> int:
        """Run up to ``budget`` simulations in rounds until a deadline (the maximum while the
        decision is unstable, under a clock), ``stop``, a proven root, or (under a clock) a
        decision that can no longer change; returns how many ran. An unwatched search
        without a clock runs in one go, as fast as before."""
        if not watched and not deadlines.from_clock:
            return self._run(runner, budget, _as_deadline(deadlines.target))
        done, leader, began = 0, -1, monotonic()
        if not self._root_statistics()[0].any():  # however late, every root child gets a visit
            done = self._run(runner, min(budget, len(self.tree.children())), 0.0)
        end = deadlines.target
        while done < budget:
            now = monotonic()
            if now >= end or (stop is not None and stop.is_set()):
                break
            round_end = min(end, now + PROGRESS_SECONDS)
            done += self._run(runner, budget - done, round_end)
            if self._tree_full or (self.solver and self.tree.ints[0, PROVEN] != UNKNOWN):
                break
            if on_progress is not None:
                on_progress(self._analysis(model, self._result(model, None, None, done, start),
                                           final=False))
            if deadlines.from_clock:
                visits, values = self._root_statistics()
                rate = done / max(monotonic() - began, 1e-9)
                if lead_is_safe(visits, rate * max(0.0, end - monotonic()), budget - done):
                    break
                unstable, leader = decision_unstable(visits, values, leader)
                end = deadlines.maximum if unstable else deadlines.target
        return done

    def _root_statistics(self) -> tuple[np.ndarray, np.ndarray]:
        """The root's children's visits and summed values (the root player's view), in
        child order."""
        children = list(self.tree.children())
        return self.tree.ints[children, VISITS], self.tree.floats[children, VALUE]

    def _finish(self, model: EnvModel, root: Any, result: SearchResult,
                reuse: bool = True) -> SearchResult:
        """Keep the result (``last_search``, ``last_analysis``) and what tree reuse needs."""
        self._reuse_from = (root, result.action) if self.reuse_tree and reuse else None
        self.last_search = result
        self.last_analysis = self._analysis(model, result, final=True)
        return result

    def _forced_result(self, model: EnvModel, root: Any) -> SearchResult:
        """The result for a position with one legal move: played at once (clock only)."""
        action = int(np.flatnonzero(model.legal_mask(root))[0])
        one_hot = np.zeros(model.num_actions)
        one_hot[action] = 1.0
        self.tree.clear()
        return SearchResult(action, np.zeros(model.num_actions), np.full(model.num_actions, np.nan),
                            one_hot.copy(), one_hot, [action], float("nan"), None, 0, 0.0)

    def _analysis(self, model: EnvModel, result: SearchResult, final: bool) -> Analysis:
        """``result`` as an :class:`Analysis` (values from the side to move's view, MEAN
        unit; +1/0/-1 when proven), each root move with its own principal variation."""
        text = move_texts(model)
        pvs = {int(self.tree.ints[c, ACTION]): _principal_variation(self.tree, start=c)
               for c in self.tree.children()} if self.tree.size > 1 else {}
        value = result.value
        if result.proven is not None:
            value = {"win": 1.0, "loss": -1.0, "draw": 0.0}[result.proven]
        return Analysis(
            action=result.action,
            move=text(result.action),
            value=value,
            unit=MEAN,
            exact=result.proven is not None,
            nodes=result.simulations,
            depth=len(result.pv),
            elapsed=result.seconds,
            pv=tuple(text(a) for a in result.pv),
            moves=mcts_moves(result.visits, result.q, result.prior, pvs, text),
            proven=result.proven,
            engine="mcts" if result.simulations or not result.proven else "solver",
            final=final,
        )

    def _config(self, selection: str, c: float, implicit_minimax: float, rave: bool,
                prior_visits: float, rave_k: float) -> SearchConfig:
        pw_c, pw_alpha, c_visit = self._tuning
        constant = self.unvisited_q != "parent"
        return SearchConfig(
            kind=SELECTIONS[selection],
            c=c,
            fpu_mode=FPU_CONSTANT if constant else FPU_PARENT,
            fpu_value=(-1.0 if self.unvisited_q == "loss" else float(self.unvisited_q))
            if constant else 0.0,
            rave=rave,
            rave_k=rave_k,
            progressive_widening=self.progressive_widening,
            pw_c=pw_c,
            pw_alpha=pw_alpha,
            solver=self.solver,
            gumbel_c_visit=c_visit,
            gumbel_c_scale=GUMBEL_C_SCALE,
            implicit_minimax=implicit_minimax,
            prior_visits=prior_visits,
        ).typed()

    def _exact_solution(
        self,
        model: EnvModel,
        root: Any,
        deadlines: SearchDeadlines | None = None,
        stop: threading.Event | None = None,
    ) -> Solution | None:
        """The game's exact solver's answer when the position is within its reach (half the
        move's time: the time limit, or the clock's target; without either, the solver's own
        budget). The time it took (a failed attempt's: at most its share) is charged to the
        search (``_solver_seconds``); ``stop`` set ends the attempt at once."""
        self._solver_seconds = 0.0
        if not (self.exact_solver and isinstance(model, GameModel)):
            return None
        if deadlines is not None:
            budget = max(0.0, deadlines.target - monotonic()) * EXACT_SOLVER_SHARE
        else:
            budget = None if self.time_limit is None else self.time_limit * EXACT_SOLVER_SHARE
        start = time.perf_counter()
        solution = solve_if_affordable(model.game.knowledge, root, budget, stop)
        spent = time.perf_counter() - start
        if solution is None:
            self._solver_seconds = spent if budget is None else min(spent, budget)
            return None
        self._solver_seconds = spent
        self.tree.clear()
        self._reuse_from = None
        return solution

    def _solved_result(self, model: EnvModel, solution: Solution) -> SearchResult:
        """The exact solver's answer as a search result (its value as a sign: MCTS's unit)."""
        one_hot = np.zeros(model.num_actions)
        one_hot[solution.action] = 1.0
        value = float(np.sign(solution.value))
        q = np.full(model.num_actions, np.nan)
        q[solution.action] = value
        result = SearchResult(
            action=solution.action,
            visits=np.zeros(model.num_actions),
            q=q,
            prior=one_hot.copy(),
            policy=one_hot,
            pv=[solution.action],
            value=value,
            proven=_outcome_name(solution.value),
            simulations=0,
            seconds=self._solver_seconds,
        )
        return result

    def _may_swindle(self, model: EnvModel) -> bool:
        """Whether a proven draw or loss may be swindled: it needs MCTS-Solver (the ruled-out
        moves are proofs), and Gumbel's root ignores proven children."""
        return (self.swindle and self.solver and isinstance(model, GameModel)
                and self.settings.selection != "gumbel")

    def _rule_out_root_moves(self, keeping: list[int]) -> None:
        """Mark the root's children outside ``keeping`` as proven losses for the mover:
        MCTS-Solver then never selects or plays them."""
        ints = self.tree.ints
        for child in self.tree.children():
            if int(ints[child, ACTION]) not in keeping:
                ints[child, PROVEN] = LOSS

    def _runner(self, model: EnvModel, root: Any):
        """A function ``run(n, deadline, forced_child) -> (done, status)`` for this model."""
        settings = self.settings
        if self.batcher is not None:
            return self._batched_runner(model, root)
        if isinstance(model, GameModel):
            kernels = compiled_kernels(model.game, settings.rollout, settings.evaluator,
                                       settings.rave)

            def runner_over(tree: Tree, rng: np.ndarray):
                def run(n: int, deadline: float, forced: int = -1) -> tuple[int, int]:
                    return fast.run_simulations(
                        tree.ints,
                        tree.floats,
                        tree.meta,
                        settings.cfg,
                        root,
                        n,
                        deadline,
                        rng,
                        kernels[0],
                        kernels[1],
                        kernels[2],
                        kernels[3],
                        model.num_actions,
                        forced,
                    )

                return run

            warm_up(model.game, kernels, settings.cfg)
            own = runner_over(self.tree, self.rng)
            if self._helpers is None:
                return own
            return self._helpers.wrap(own, runner_over, self.tree)
        def run(n: int, deadline: float, forced: int = -1) -> tuple[int, int]:
            return run_generic(
                self.tree, settings.cfg, model, root, n, deadline, self.rng, self.np_rng, forced
            )

        return run

    def _batched_runner(self, model: EnvModel, root: Any):
        """The runner of an Evaluator: ``batch_size`` leaves per network call (one tree)."""

        def run(n: int, deadline: float, forced: int = -1) -> tuple[int, int]:
            job = SearchJob(self.tree, self.settings.cfg, model, root, n, self.batch_size, forced)
            self.batcher.run([job], self.rng, deadline)
            if self.solver and self.tree.ints[0, PROVEN] != UNKNOWN:
                return job.done, fast.ROOT_PROVEN
            if job.full:
                return job.done, fast.NEED_SPACE
            return job.done, fast.RAN_ALL if job.done >= n else fast.OUT_OF_TIME

        return run

    def _run(self, runner, simulations: int, deadline: float, forced: int = -1) -> int:
        """Run ``simulations`` (growing the tree as needed, up to ``max_nodes``: a full tree
        sets ``_tree_full`` and ends the run); returns how many ran."""
        total = 0
        while total < simulations:
            self.tree.reserve(1024)  # as far as the cap allows: the runner says if too few
            done, status = runner(simulations - total, deadline, forced)
            total += done
            if status == fast.NEED_SPACE:
                if self.tree.at_cap:
                    self._tree_full = True
                    break
                self.tree.reserve(2 * self.tree.capacity)  # up to the cap
            elif status != fast.RAN_ALL:
                break
        return total

    def _prepare_tree(self, model: EnvModel, root: Any, deadline: float = math.inf) -> None:
        """Reuse the subtree reached by our last move and the reply, if it matches and
        copying it is expected to take at most :data:`~.reuse.REROOT_SHARE` of the time
        left until ``deadline`` (a subtree of millions of nodes after a long think takes
        ~0.5 s, which a short move under a clock cannot pay); the helper trees
        (``threads``) keep theirs by the same rule."""
        self._tree_full = False
        node = kept_node(model, self.tree, self._reuse_from, root, deadline)
        if node < 0:
            self.tree.clear()
        elif node > 0:  # (node 0: the tree's own root, kept as it is)
            self.tree.reroot(node)
        if self._helpers is not None:
            self._helpers.start_search(
                lambda tree: kept_node(model, tree, self._reuse_from, root, deadline))

    def _gumbel_width(self) -> int:
        """Actions Gumbel's root considers: ``gumbel_actions``, or by default 16 when an
        evaluator gives informative priors and every legal action when priors are uniform
        (the top 16 of uniform priors would be a random subset)."""
        if self.gumbel_actions is not None:
            return self.gumbel_actions
        return 16 if self.settings.evaluator is not None else 1 << 30

    def _result(
        self,
        model: EnvModel,
        gumbel_choice: int | None,
        improved: np.ndarray | None,
        simulations: int,
        start: float,
    ) -> SearchResult:
        ints, floats = self.tree.ints, self.tree.floats
        children = list(self.tree.children())
        actions = ints[children, ACTION]
        visits = np.zeros(model.num_actions)
        q = np.full(model.num_actions, np.nan)
        prior = np.zeros(model.num_actions)
        visits[actions] = ints[children, VISITS]
        seen = ints[children, VISITS] > 0
        q[actions[seen]] = floats[children, VALUE][seen] / ints[children, VISITS][seen]
        prior[actions] = floats[children, PRIOR]
        if improved is not None:
            policy = np.zeros(model.num_actions)
            policy[actions] = improved
        elif visits.sum() > 0:
            policy = visit_policy(visits, self.temperature or 1.0)
        else:  # a budget too small to visit a child (1 simulation): the priors are all it knows
            policy = _prior_policy(prior, actions, model.num_actions)
        child = self._choose(children, gumbel_choice)
        root_proof = int(ints[0, PROVEN])
        proven = None
        if self.solver and root_proof != UNKNOWN:  # the root's proof is for its mover
            proven = {WIN: "loss", LOSS: "win", DRAW: "draw"}[root_proof]
        root_n = max(int(ints[0, VISITS]), 1)
        return SearchResult(
            action=int(ints[child, ACTION]),
            visits=visits,
            q=q,
            prior=prior,
            policy=policy,
            pv=_principal_variation(self.tree),
            value=-float(floats[0, VALUE]) / root_n,
            proven=proven,
            simulations=simulations,
            seconds=time.perf_counter() - start,
        )

    def _choose(self, children: list[int], gumbel_choice: int | None) -> int:
        """The child to play: a proof decides first (shortest win, longest loss, a draw),
        then Gumbel's choice, then the temperature rule on visits (never a proven loss
        while something else is left; with no child visited, the highest prior)."""
        ints = self.tree.ints
        proofs = ints[children, PROVEN] if self.solver else np.zeros(len(children), int)
        depths = ints[children, DEPTH]
        wins = [c for c, p in zip(children, proofs, strict=True) if p == WIN]
        if wins:
            return min(wins, key=lambda c: ints[c, DEPTH])
        if self.solver and all(p == LOSS for p in proofs):
            return children[int(np.argmax(depths))]
        if gumbel_choice is not None:
            return gumbel_choice
        candidates = [c for c, p in zip(children, proofs, strict=True) if p != LOSS]
        visits = ints[candidates, VISITS].astype(np.float64)
        if self.temperature > 0 and visits.sum() > 0:
            probs = visit_policy(visits, self.temperature)
            return candidates[int(self.np_rng.choice(len(candidates), p=probs))]
        q = np.array([self.tree.floats[c, VALUE] / max(ints[c, VISITS], 1) for c in candidates])
        prior = self.tree.floats[candidates, PRIOR]
        best = np.lexsort((-prior, -q, -visits))[0]  # most visited, then higher Q, then prior
        return candidates[int(best)]


def _outcome_name(value: float) -> str:
    """"win", "loss" or "draw" for an exact value from the side to move's view."""
    return "win" if value > 0 else ("loss" if value < 0 else "draw")


def _prior_policy(prior: np.ndarray, actions: np.ndarray, num_actions: int) -> np.ndarray:
    """The root's priors as move probabilities (uniform over its children when they carry
    none): the policy of a search that visited no child."""
    policy = prior.copy() if prior[actions].sum() > 0 else np.zeros(num_actions)
    if policy.sum() <= 0:
        policy[actions] = 1.0
    return policy / policy.sum()


def _principal_variation(tree: Tree, max_length: int = 32, start: int = 0) -> list[int]:
    """Actions along the most visited children from the root (or from node ``start``,
    whose own action comes first)."""
    ints = tree.ints
    pv, node = ([] if start == 0 else [int(ints[start, ACTION])]), start
    while len(pv) < max_length:
        children = tree.children(node)
        if not children:
            break
        node = max(children, key=lambda c: ints[c, VISITS])
        if ints[node, VISITS] == 0:
            break
        pv.append(int(ints[node, ACTION]))
    return pv


def _single_legal_move(model: EnvModel, root: Any) -> bool:
    return int(np.count_nonzero(model.legal_mask(root))) == 1


def _as_deadline(when: float) -> float:
    """A deadline for the compiled loops: 0.0 means none."""
    return when if math.isfinite(when) else 0.0


def _check_options(
    simulations, time_limit, selection, rollout, evaluator, dirichlet, temperature, unvisited_q
) -> None:
    if selection != AUTO and selection not in SELECTIONS:
        raise InvalidOptionError(
            f"selection={selection!r}; use 'auto' or one of {sorted(SELECTIONS)}"
        )
    if rollout not in (AUTO, "random", "heuristic"):
        raise InvalidOptionError(f"rollout={rollout!r}; use 'auto', 'random' or 'heuristic'")
    if evaluator not in (AUTO, None, "heuristic") and not isinstance(evaluator, Evaluator):
        raise InvalidOptionError(
            "evaluator must be 'auto', None, 'heuristic' or a batched Evaluator "
            "(observations [B, ...], masks [B, A]) -> (logits [B, A], values [B])"
        )
    if simulations is not None and (not isinstance(simulations, int) or simulations < 1):
        raise InvalidOptionError(f"simulations={simulations!r}; give a positive integer")
    if time_limit is not None and not time_limit > 0:
        raise InvalidOptionError(f"time_limit={time_limit!r}; give a positive number of seconds")
    if dirichlet is not None and (
        len(dirichlet) != 2 or not 0 <= dirichlet[0] <= 1 or dirichlet[1] <= 0
    ):
        raise InvalidOptionError(f"dirichlet={dirichlet!r}; give (epsilon in [0, 1], alpha > 0)")
    if temperature < 0:
        raise InvalidOptionError(f"temperature={temperature!r}; give T >= 0")
    if not (isinstance(unvisited_q, (int, float)) or unvisited_q in ("parent", "loss")):
        raise InvalidOptionError(f"unvisited_q={unvisited_q!r}; give a number, 'parent' or 'loss'")
