"""The Connect Four labeller: positions labelled per second by one search of the solver
(``Solver.optimal_moves``, what ``boardzoo label`` runs) against an exact solve of each
move's position (``solver_label``, the labeller before it), on the same positions from 14
stones on (the late labels of the model card), each method with a fresh reused table."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from boardzoo.bench.common import Benchmark, Row, Settings, interleaved_rates

GAME = "connect_four"
POSITIONS = 150


def _label_all(states: list[np.ndarray], one_search: bool, out: list[dict]) -> Callable[[], int]:
    """A pass labelling ``states`` in order (appending to ``out``); returns the count."""
    from boardzoo.envs import make_game
    from boardzoo.knowledge.connect_four import Solver
    from boardzoo.training.labels import LABEL_MAX_NODES, label_row, solver_label

    game = make_game(GAME)

    def one_pass() -> int:
        solver = Solver(reuse_table=True)
        out.clear()
        for state in states:
            if one_search:
                found = solver.optimal_moves(state, None, LABEL_MAX_NODES)
                assert found is not None  # labelled within this budget before
                moves, score = found
                out.append(label_row(game, state, moves, score))
            else:
                row = solver_label(game, state, solver.solve, None, LABEL_MAX_NODES)
                assert row is not None  # labelled within this budget before
                out.append(row)
        return len(states)

    return one_pass


def bench_labels(game: str, settings: Settings) -> list[Row]:
    from boardzoo.envs import make_game
    from boardzoo.training.labels import label_connect_four

    parse = make_game(GAME).parse_position
    states = [parse(row["position"])
              for row in label_connect_four(POSITIONS, seed=0, min_stones=14)]
    ours_labels: list[dict] = []
    their_labels: list[dict] = []
    m = interleaved_rates(_label_all(states, True, ours_labels),
                          _label_all(states, False, their_labels), settings, seconds=0.0)
    same = "the same labels" if ours_labels == their_labels else "DIFFERENT labels"
    return [Row(GAME, "labeller, positions from 14 stones", "labels/s", m.ours, m.theirs,
                "an exact solve of each move", None,
                f"{POSITIONS} positions of random play; {same}", spread=m.spread)]


BENCHMARKS = [Benchmark(bench_labels, "labeller", (GAME,), in_quick=False)]
