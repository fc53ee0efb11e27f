"""Playing strength on positions with known answers (not speed): MCTS on the 200 public
Connect Four positions whose every column is scored by Pascal Pons' solver.

A move is *outcome-preserving* when it keeps the game-theoretic result (a win stays a win, a
draw stays a draw; in a lost position every move is), and *strictly optimal* when it is one
of the position's best columns (fastest win, slowest loss).

Run: ``python -m benchmarks.strength [SIMULATIONS ...]`` (default 1000 10000 100000).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from boardzoo.agents import MCTSAgent
from boardzoo.envs import make_env

DATA = Path(__file__).resolve().parents[1] / "tests" / "data" / "connect4"
POSITIONS = DATA / "generated_public_200_moves.txt"
BUCKETS = ("8-14", "15-25", "26-38")


def bucket_of(stones: int) -> str:
    return "8-14" if stones <= 14 else "15-25" if stones <= 25 else "26-38"


def connect_four_accuracy(
    simulations: int, buckets: tuple[str, ...] = BUCKETS, **agent_options: Any
) -> dict[str, tuple[int, float, float]]:
    """Per bucket: (positions, share outcome-preserving, share strictly optimal) of the moves
    ``MCTSAgent(simulations=..., **agent_options)`` plays, one fresh search per position."""
    env = make_env("connect_four")
    counts = {b: [0, 0, 0] for b in buckets}
    for line in POSITIONS.read_text().splitlines():
        sequence, score, best, *column_scores = line.split()
        bucket = bucket_of(len(sequence))
        if bucket not in counts:
            continue
        env.reset(options={"position": sequence})
        agent = MCTSAgent(simulations=simulations, seed=0, **agent_options)
        action = agent.act(env)
        played, value = int(column_scores[action]), int(score)
        preserving = value < 0 or (played > 0 if value > 0 else played == 0)
        tally = counts[bucket]
        tally[0] += 1
        tally[1] += preserving
        tally[2] += str(action + 1) in best.split(",")
    return {b: (n, kept / n, optimal / n) for b, (n, kept, optimal) in counts.items()}


VARIANTS = {
    "defaults": {},
    "defaults, exact_solver=False": {"exact_solver": False},
}


def main(simulation_counts: list[int]) -> None:
    """MCTSAgent's defaults (which play the exact solver's move from 14 stones on) and the
    same search without the exact solver (MCTS alone)."""
    console = Console(width=max(Console().width, 120))
    table = Table(title="MCTSAgent on 200 solved Connect Four positions")
    for column in (
        "agent",
        "simulations",
        "stones",
        "positions",
        "outcome-preserving",
        "strictly optimal",
        "seconds",
    ):
        table.add_column(column, justify="right")
    for variant, options in VARIANTS.items():
        for simulations in simulation_counts:
            start = time.perf_counter()
            result = connect_four_accuracy(simulations, **options)
            seconds = time.perf_counter() - start
            for bucket, (n, kept, optimal) in result.items():
                table.add_row(
                    variant,
                    f"{simulations:,}",
                    bucket,
                    str(n),
                    f"{kept:.1%}",
                    f"{optimal:.1%}",
                    f"{seconds:.0f}",
                )
    console.print(table)


if __name__ == "__main__":
    main([int(a) for a in sys.argv[1:]] or [1000, 10_000, 100_000])
