"""MCTS speed: one 1000-simulation search from the initial position, UCT with c = sqrt(2),
one uniformly random rollout per simulation, no solver, no tree reuse — boardzoo's
``MCTSAgent`` against OpenSpiel's C++ ``MCTSBot`` with ``RandomRolloutEvaluator(1)``.

Each game uses its own standard playout (boardzoo's Go playouts never fill the mover's own
eyes; OpenSpiel's are uniform over legal moves).
"""

from __future__ import annotations

import math
from collections.abc import Callable

from boardzoo.agents import MCTSAgent
from boardzoo.bench.common import Benchmark, Row, Settings, interleaved_rates, rate
from boardzoo.bench.envs import REFERENCES, label
from boardzoo.envs import make_env

SIMULATIONS = 1000
#: per game (target ratio vs OpenSpiel's C++ MCTSBot; Go 9x9's is issue 15's)
TARGETS = {
    "tictactoe": 0.5,
    "nim": 0.5,
    "connect_four": 2.0,
    "othello": 10.0,
    "go": 5.0,
    "gomoku": 2.0,
}
EXTRA_GO_SIZES = (7, 13, 19)


def ours_search(game: str, options: dict) -> Callable[[], object]:
    """One 1000-simulation search from the initial position per call."""
    env = make_env(game, **options)
    env.reset()
    agent = MCTSAgent(
        simulations=SIMULATIONS,
        c=math.sqrt(2),
        selection="uct",
        rollout="random",
        solver=False,
        reuse_tree=False,
        seed=0,
    )
    return lambda: agent.search(env)


def openspiel_search(name: str | None, options: dict) -> Callable[[], object] | None:
    """OpenSpiel's C++ bot's 1000-simulation search per call (None: not installed)."""
    if name is None:
        return None
    try:
        import pyspiel
    except ImportError:
        return None
    game = pyspiel.load_game(name, options)
    evaluator = pyspiel.RandomRolloutEvaluator(1, 0)
    bot = pyspiel.MCTSBot(game, evaluator, math.sqrt(2), SIMULATIONS, 1000, False, 0, False)
    state = game.new_initial_state()
    return lambda: bot.step(state)


def _row(game: str, options: dict, spiel_options: dict, name: str, target: float | None,
         settings: Settings) -> Row:
    ours = _units(ours_search(game, options))
    theirs = openspiel_search(REFERENCES[game].openspiel, spiel_options)
    if theirs is None:
        sims = rate(ours, settings)
        return Row(name, "MCTS 1000 sims", "sims/s", sims, None, "OpenSpiel not installed",
                   target, f"{SIMULATIONS / sims:.4f} s per 1000 simulations")
    m = interleaved_rates(ours, _units(theirs), settings)
    return Row(name, "MCTS 1000 sims", "sims/s", m.ours, m.theirs, "OpenSpiel C++ MCTSBot",
               target, f"{SIMULATIONS / m.ours:.4f} s per 1000 simulations", spread=m.spread)


def _units(search: Callable[[], object]) -> Callable[[], int]:
    """A search as a timed workload: its simulations are its units."""
    return lambda: (search(), SIMULATIONS)[1]


def bench_mcts(game: str, settings: Settings) -> list[Row]:
    ref = REFERENCES[game]
    return [_row(game, ref.options, ref.openspiel_options, label(game), TARGETS.get(game),
                 settings)]


def bench_mcts_go_sizes(game: str, settings: Settings) -> list[Row]:
    """Go on other boards than 9x9 (reported, no target)."""
    return [_row(game, {"board_size": n}, {"board_size": n}, f"go {n}x{n}", None, settings)
            for n in EXTRA_GO_SIZES]


BENCHMARKS = [
    Benchmark(bench_mcts, "MCTS 1000 sims"),
    Benchmark(bench_mcts_go_sizes, "MCTS 1000 sims, Go 7x7, 13x13, 19x19", ("go",),
              in_quick=False),
]
