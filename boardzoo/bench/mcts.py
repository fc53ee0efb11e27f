"""MCTS speed: one 1000-simulation search from the initial position, UCT with c = sqrt(2),
one uniformly random rollout per simulation, no solver, no tree reuse — boardzoo's
``MCTSAgent`` against OpenSpiel's C++ ``MCTSBot`` with ``RandomRolloutEvaluator(1)``.

Each game uses its own standard playout (boardzoo's Go playouts never fill the mover's own
eyes; OpenSpiel's are uniform over legal moves).
"""

from __future__ import annotations

import math
import statistics
import time
from collections.abc import Callable

from boardzoo.agents import MCTSAgent
from boardzoo.bench.common import Benchmark, Row, Settings, interleaved_seconds, paired
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
    ours = ours_search(game, options)
    theirs = openspiel_search(REFERENCES[game].openspiel, spiel_options)
    if theirs is None:
        ours()  # the warm-up
        seconds = statistics.median(_seconds(ours) for _ in range(settings.repeats))
        return Row(name, "MCTS 1000 sims", "sims/s", SIMULATIONS / seconds, None,
                   "OpenSpiel not installed", target, f"{seconds:.4f} s per 1000 simulations")
    a, b = interleaved_seconds(ours, theirs, settings)
    m = paired(a, b, lower_is_better=True)
    return Row(name, "MCTS 1000 sims", "sims/s", SIMULATIONS / m.ours, SIMULATIONS / m.theirs,
               "OpenSpiel C++ MCTSBot", target, f"{m.ours:.4f} s per 1000 simulations",
               spread=m.spread)


def _seconds(work: Callable[[], object]) -> float:
    start = time.perf_counter()
    work()
    return time.perf_counter() - start


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
