"""The typed configuration of one Monte Carlo tree search, and how a game's recommended
settings fill in what a user left to the game.

:class:`MCTSConfig` is frozen and complete: every setting has its value, checked when it is
made. :func:`config_for` builds one from the options a user gave (``MCTSAgent``'s keyword
arguments) and the game's own recommendation (its knowledge's
:class:`~boardzoo.knowledge.base.SearchDefaults`). The compiled rules read
:meth:`MCTSConfig.compiled`, a numba-friendly :class:`~boardzoo.agents.mcts.rules.SearchConfig`.

Values are on the [-1, 1] scale from the side to move's view (+1 a win).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from boardzoo.agents.mcts.rules import (
    FPU_CONSTANT,
    FPU_PARENT,
    GUMBEL,
    PUCT,
    UCT,
    SearchConfig,
)
from boardzoo.errors import InvalidOptionError, excerpt
from boardzoo.wrappers.model import Evaluator

__all__ = ["AUTO", "MCTSConfig", "SEARCH_OPTIONS", "STRATEGY", "config_for", "search_options"]

#: an option left to the game's recommendation
AUTO = "auto"
SELECTIONS = {"uct": UCT, "puct": PUCT, "gumbel": GUMBEL}
#: the exploration constant of each selection rule where neither the user nor the game sets one
DEFAULT_C = {"uct": 1.0, "puct": 1.5, "gumbel": 1.5}
#: the options a game recommends as one bundle: give any of them and the rest take their plain
#: values (a recommended playout tuned alongside a recommended evaluator is no longer tuned)
STRATEGY = ("selection", "rollout", "evaluator", "implicit_minimax")
#: settings a game recommends for its RAVE: they apply only while RAVE is as it recommends
RAVE_TUNING = ("c", "prior_visits", "rave_k")
GUMBEL_C_SCALE = 1.0  # Danihelka et al.'s c_scale


@dataclass(frozen=True)
class MCTSConfig:
    """Every setting of one search (see :class:`~boardzoo.agents.MCTSAgent` for each).

    ``evaluator`` is None, "heuristic" (the game's evaluation values leaves and gives
    priors) or a batched :class:`~boardzoo.wrappers.model.Evaluator`; ``c`` None means the
    selection's usual constant (:data:`DEFAULT_C`) and reads as that; ``dirichlet`` is
    ``(epsilon, alpha)`` root noise or None.
    """

    selection: str = "uct"
    rollout: str = "random"
    evaluator: Any = None
    implicit_minimax: float = 0.0
    rave: bool = False
    c: float = None  # type: ignore[assignment]  # None: the selection's usual constant
    rave_k: float = 1000.0
    prior_visits: float = 0.0
    progressive_widening: bool = False
    pw_c: float = 2.0
    pw_alpha: float = 0.5
    solver: bool = True
    unvisited_q: float | str = "parent"
    gumbel_actions: int | None = None
    gumbel_c_visit: float = 50.0
    dirichlet: tuple[float, float] | None = None

    def __post_init__(self) -> None:
        _check(self)
        if self.c is None:
            object.__setattr__(self, "c", DEFAULT_C[self.selection])

    @property
    def network(self) -> Evaluator | None:
        """The batched evaluator (a network) whose leaves the search batches, or None."""
        return self.evaluator if isinstance(self.evaluator, Evaluator) else None

    @property
    def gumbel_width(self) -> int:
        """Root actions Gumbel's sequential halving starts with: ``gumbel_actions``, or 16
        when an evaluator gives informative priors and every legal action when priors are
        uniform (the top 16 of uniform priors would be a random subset)."""
        if self.gumbel_actions is not None:
            return self.gumbel_actions
        return 16 if self.evaluator is not None else 1 << 30

    @property
    def reads_priors(self) -> bool:
        """Whether the search reads the game's move priors (or the heuristic values that come
        with them): PUCT and Gumbel, progressive widening, RAVE's prior visits, implicit
        minimax, and a search with the knowledge's playouts, whose first tries at a node
        follow the priors (Gomoku's blocks and wins first). Plain UCT with the game's own
        random playouts uses no knowledge: its priors are uniform (children tried in random
        order), and no game's prior kernel is computed (Go's reads ladders)."""
        return (self.selection != "uct" or self.progressive_widening or self.rollout != "random"
                or (self.rave and self.prior_visits > 0) or self.implicit_minimax > 0)

    def replace(self, **changes: Any) -> MCTSConfig:
        return dataclasses.replace(self, **changes)

    def compiled(self) -> SearchConfig:
        """The settings the compiled rules read, with exact types (one numba specialisation)."""
        constant = self.unvisited_q != "parent"
        fpu_value = (-1.0 if self.unvisited_q == "loss" else float(self.unvisited_q)) \
            if constant else 0.0
        return SearchConfig(
            kind=SELECTIONS[self.selection],
            c=float(self.c),
            fpu_mode=FPU_CONSTANT if constant else FPU_PARENT,
            fpu_value=fpu_value,
            rave=bool(self.rave),
            rave_k=float(self.rave_k),
            progressive_widening=bool(self.progressive_widening),
            pw_c=float(self.pw_c),
            pw_alpha=float(self.pw_alpha),
            solver=bool(self.solver),
            gumbel_c_visit=float(self.gumbel_c_visit),
            gumbel_c_scale=GUMBEL_C_SCALE,
            implicit_minimax=float(self.implicit_minimax),
            prior_visits=float(self.prior_visits),
        ).typed()


#: the search options, MCTSConfig's fields: the keywords of the same names of
#: :class:`~boardzoo.agents.MCTSAgent` (and of AlphaZeroAgent, those it lets users set)
SEARCH_OPTIONS = tuple(field.name for field in dataclasses.fields(MCTSConfig))


def search_options(arguments: Mapping[str, Any]) -> dict[str, Any]:
    """The search options among a call's ``arguments`` (an agent's ``locals()`` in its
    ``__init__``), as given: what :func:`config_for` resolves per game."""
    return {name: arguments[name] for name in SEARCH_OPTIONS}


def config_for(knowledge: Any, options: Mapping[str, Any]) -> MCTSConfig:
    """The configuration of a search on a game with ``knowledge`` (None: no recommendation)
    given the user's ``options`` (an option set to :data:`AUTO` counts as not given).

    The game's recommendation (``knowledge.search_defaults``) applies to the options not
    given, with two rules: the :data:`STRATEGY` options come as one bundle (any one given,
    none of them is recommended), and the :data:`RAVE_TUNING` settings only while RAVE is as
    recommended. A network evaluator with no selection given searches with PUCT, which is
    what its priors are for.
    """
    given = {key: value for key, value in options.items() if not _is_auto(value)}
    recommended = _recommended(knowledge)
    if given.keys() & set(STRATEGY):
        recommended = {}
    if given.get("rave", recommended.get("rave", False)) != recommended.get("rave", False):
        recommended = {k: v for k, v in recommended.items() if k not in RAVE_TUNING}
    settings = {**recommended, **given}
    if isinstance(settings.get("evaluator"), Evaluator) and "selection" not in given:
        settings["selection"] = "puct"
    return MCTSConfig(**settings)


def _recommended(knowledge: Any) -> dict[str, Any]:
    defaults = getattr(knowledge, "search_defaults", None)
    return {} if defaults is None else defaults.recommended()


def _is_auto(value: Any) -> bool:
    return isinstance(value, str) and value == AUTO


def _check(config: MCTSConfig) -> None:
    """InvalidOptionError for a setting outside its allowed values."""
    problems = [problem for problem in (
        _choice("selection", config.selection, SELECTIONS),
        _choice("rollout", config.rollout, ("random", "heuristic")),
        _evaluator_problem(config.evaluator),
        _number("implicit_minimax", config.implicit_minimax, 0.0, 1.0, "alpha in [0, 1]"),
        _flag("rave", config.rave),
        None if config.c is None else _number("c", config.c, 0.0, math.inf, "c >= 0"),
        _positive("rave_k", config.rave_k),
        _number("prior_visits", config.prior_visits, 0.0, math.inf,
                "a number of virtual visits, 0 or more"),
        _flag("progressive_widening", config.progressive_widening),
        _positive("pw_c", config.pw_c),
        _number("pw_alpha", config.pw_alpha, 0.0, 1.0, "alpha in [0, 1]"),
        _flag("solver", config.solver),
        _unvisited_q_problem(config.unvisited_q),
        _gumbel_actions_problem(config.gumbel_actions),
        _positive("gumbel_c_visit", config.gumbel_c_visit),
        _dirichlet_problem(config.dirichlet),
    ) if problem]
    if problems:
        raise InvalidOptionError(problems[0])


def _choice(name: str, value: Any, allowed: Any) -> str | None:
    if value in allowed:
        return None
    return f"{name}={excerpt(value)}; use 'auto' or one of {sorted(allowed)}"


def _flag(name: str, value: Any) -> str | None:
    if isinstance(value, bool) or type(value).__name__ == "bool_":
        return None
    return f"{name}={excerpt(value)}; use True, False or 'auto'"


def _number(name: str, value: Any, low: float, high: float, allowed: str) -> str | None:
    if isinstance(value, (int, float)) and not isinstance(value, bool) and low <= value <= high:
        return None
    return f"{name}={excerpt(value)}; give 'auto' or {allowed}"


def _positive(name: str, value: Any) -> str | None:
    if isinstance(value, (int, float)) and not isinstance(value, bool) and 0 < value < math.inf:
        return None
    return f"{name}={excerpt(value)}; give 'auto' or a positive number"


def _evaluator_problem(evaluator: Any) -> str | None:
    if evaluator in (None, "heuristic") or isinstance(evaluator, Evaluator):
        return None
    return ("evaluator must be 'auto', None, 'heuristic' or a batched Evaluator "
            "(observations [B, ...], masks [B, A]) -> (logits [B, A], values [B])")


def _unvisited_q_problem(value: Any) -> str | None:
    if isinstance(value, (int, float)) or value in ("parent", "loss"):
        return None
    return f"unvisited_q={excerpt(value)}; give a number, 'parent' or 'loss'"


def _gumbel_actions_problem(value: Any) -> str | None:
    if value is None or (isinstance(value, int) and not isinstance(value, bool) and value >= 1):
        return None
    return f"gumbel_actions={value!r}; give None or a positive integer"


def _dirichlet_problem(value: Any) -> str | None:
    if value is None:
        return None
    try:
        epsilon, alpha = value
        if 0 <= epsilon <= 1 and alpha > 0:
            return None
    except (TypeError, ValueError):
        pass
    return f"dirichlet={excerpt(value)}; give (epsilon in [0, 1], alpha > 0)"
