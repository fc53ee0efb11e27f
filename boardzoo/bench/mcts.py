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

from boardzoo.agents import MCTSAgent
from boardzoo.bench.common import Row
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


def ours_seconds(game: str, options: dict, repeats: int) -> float:
    """Median seconds of one search (compilation excluded: the agent warms up first)."""
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
    agent.search(env)
    return statistics.median(agent.search(env).seconds for _ in range(repeats))


def openspiel_seconds(name: str | None, options: dict, repeats: int) -> float | None:
    """Median seconds of OpenSpiel's MCTS move on game ``name``; None without OpenSpiel or a
    game it has."""
    try:
        import pyspiel
    except ImportError:
        return None
    if name is None:
        return None
    game = pyspiel.load_game(name, options)
    evaluator = pyspiel.RandomRolloutEvaluator(1, 0)
    bot = pyspiel.MCTSBot(game, evaluator, math.sqrt(2), SIMULATIONS, 1000, False, 0, False)
    state = game.new_initial_state()
    bot.step(state)
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        bot.step(state)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def bench_mcts(game: str, repeats: int) -> list[Row]:
    ref = REFERENCES[game]
    configs = [(ref.options, ref.openspiel_options, label(game), TARGETS.get(game))]
    if game == "go":  # reported, no target
        configs += [({"board_size": n}, {"board_size": n}, f"go {n}x{n}", None)
                    for n in EXTRA_GO_SIZES]
    rows = []
    for options, spiel_options, name, target in configs:
        ours: list[float] = []
        theirs: list[float] = []
        for _ in range(repeats):  # alternate, so machine noise hits both
            ours.append(ours_seconds(game, options, 1))
            seconds = openspiel_seconds(ref.openspiel, spiel_options, 1)
            if seconds is not None:
                theirs.append(seconds)
        ours_rate = SIMULATIONS / statistics.median(ours)
        theirs_rate = SIMULATIONS / statistics.median(theirs) if theirs else None
        note = f"{statistics.median(ours):.4f} s per 1000 simulations"
        rows.append(
            Row(
                name,
                "MCTS 1000 sims",
                "sims/s",
                ours_rate,
                theirs_rate,
                "OpenSpiel C++ MCTSBot" if theirs_rate else "OpenSpiel not installed",
                target,
                note,
            )
        )
    return rows


BENCHMARKS = [bench_mcts]
