"""Chess alpha-beta: which pruning pays, measured as nodes and seconds to a fixed depth.

Each variant is chess with the default knowledge less one entry (``null`` without null-move
pruning, ``lmr`` without late-move reductions, ``plain`` without both, ``see`` with every
capture tactical, losing ones by the static exchange evaluation too, ``mask`` with the moves
read off the legal mask instead of the knowledge's move list; ``see+mask``: both), searched to
``--depth`` plies from every position of ``boardzoo bench chess``'s alpha-beta row
(:data:`boardzoo.bench.alphabeta.POSITIONS`); the table gives total nodes, CPU seconds, nodes
per CPU second and how often the variant chose the same move as the default. A variant is a new
game class, so its search compiles once in the run (not counted).

Run::

    nice python -m benchmarks.chess_search --depth 7
"""

from __future__ import annotations

import argparse
import dataclasses
import functools
import time

from boardzoo.agents import AlphaBetaAgent
from boardzoo.bench.alphabeta import POSITIONS
from boardzoo.envs import BoardGameEnv
from boardzoo.envs.chess import Chess
from boardzoo.knowledge.chess import KNOWLEDGE, mvv_lva_kernel

#: what each variant takes out of the default knowledge
CHANGES: dict[str, dict] = {
    "default": {}, "null": {"null_move_kernel": None}, "lmr": {"late_move_reductions": False},
    "plain": {"null_move_kernel": None, "late_move_reductions": False},
    "see": {"tactical_kernel": mvv_lva_kernel}, "mask": {"moves_kernel": None},
}


@functools.cache
def variant(name: str) -> type[Chess]:
    """Chess whose knowledge lacks what ``name`` says (``default``: nothing; ``see+mask``:
    both); one class a name, so that its search compiles once in a process."""
    changes = {key: value for part in name.split("+") for key, value in CHANGES[part].items()}
    return type(f"Chess_{name.replace('+', '_')}", (Chess,),
                {"knowledge": dataclasses.replace(KNOWLEDGE, **changes)})


def measure(game_class: type[Chess], depth: int) -> tuple[int, float, list[int]]:
    """Total nodes, CPU seconds and the moves chosen searching every position to ``depth``."""
    game = game_class()
    nodes, seconds, moves = 0, 0.0, []
    for fen in POSITIONS:
        env = BoardGameEnv(game, illegal_action="raise")
        env.reset(options={"position": fen})
        agent = AlphaBetaAgent(depth=depth, seed=0, solver=False)
        agent.prepare(env)
        started = time.process_time()
        result = agent.search(env)
        seconds += time.process_time() - started
        nodes += result.nodes
        moves.append(result.action)
    return nodes, seconds, moves


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--depth", type=int, default=7)
    parser.add_argument("--variants", nargs="*", default=["default", "null", "lmr", "plain"])
    args = parser.parse_args(argv)
    print(f"| variant | nodes to depth {args.depth} | seconds | nodes/s | same move as default |")
    print("|---|---:|---:|---:|---:|")
    reference: list[int] | None = None
    for name in args.variants:
        nodes, seconds, moves = measure(variant(name), args.depth)
        reference = reference or moves
        same = sum(a == b for a, b in zip(moves, reference, strict=True))
        print(f"| {name} | {nodes:,} | {seconds:.2f} | {nodes / seconds:,.0f} | "
              f"{same}/{len(moves)} |", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
