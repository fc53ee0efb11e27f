"""Environment speed: the AEC loop, clone+restore, and compiled random playouts.

References: PettingZoo's classic envs (the same AEC loop code; the state-keeping clone of
``boardzoo.wrappers.model.clone_aec_env``) and OpenSpiel driven from Python (random play
through ``legal_actions``/``apply_action``). PettingZoo's go_v5 keeps its board size in module
globals, so it is measured in a process of its own.
"""

from __future__ import annotations

import importlib
import json
import random
import subprocess
import sys
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from boardzoo.bench.common import (
    Benchmark,
    Paired,
    Row,
    Settings,
    interleaved_rates,
    paired,
    rate,
    timed_rate,
)
from boardzoo.envs import make_env
from boardzoo.envs.tags import game_function, game_tag, playout
from boardzoo.rng import make_rng
from boardzoo.wrappers.model import clone_aec_env


@dataclass(frozen=True)
class Reference:
    """What boardzoo's game is compared with, and the targets from the issues."""

    options: dict = field(default_factory=dict)  # boardzoo game options
    pettingzoo: str | None = None  # classic module name
    pettingzoo_options: dict = field(default_factory=dict)
    own_process: bool = False  # PettingZoo env with module-global configuration
    openspiel: str | None = None
    openspiel_options: dict = field(default_factory=dict)
    aec_target: float | None = None
    clone_target: float | None = None
    playout_target: float | None = None


REFERENCES = {
    "tictactoe": Reference(
        pettingzoo="tictactoe_v3", openspiel="tic_tac_toe", aec_target=3.0, clone_target=20.0
    ),
    "nim": Reference(
        options={"heaps": (1, 3, 5, 7), "max_take": None, "misere": True}, openspiel="nim"
    ),
    "connect_four": Reference(
        pettingzoo="connect_four_v3",
        openspiel="connect_four",
        aec_target=3.0,
        clone_target=20.0,
        playout_target=5.0,
    ),
    "othello": Reference(openspiel="othello", playout_target=10.0),
    "go": Reference(
        options={"board_size": 9},
        pettingzoo="go_v5",
        pettingzoo_options={"board_size": 9},
        own_process=True,
        openspiel="go",
        openspiel_options={"board_size": 9},
        aec_target=4.0,
        clone_target=20.0,
        playout_target=2.0,
    ),
    "gomoku": Reference(openspiel="gomoku", playout_target=2.0),
    "chess": Reference(pettingzoo="chess_v6", openspiel="chess", aec_target=10.0),
}
#: perft depths: ours from the start position (the issue's figure: perft(5) in at most 2 s,
#: 2.4 M leaves/s), python-chess's shallower (its perft(5) takes about 15 s)
PERFT_DEPTH, PYTHON_CHESS_PERFT_DEPTH, PERFT_TARGET = 5, 3, 7.5


def label(game: str) -> str:
    options = REFERENCES[game].options
    size = options.get("board_size")
    return f"{game} {size}x{size}" if size else game


#: a random legal action from an action mask
Draw = Callable[[np.ndarray], int]


def generator_draw(rng: np.random.Generator) -> Draw:
    """``Generator.choice`` over the mask's legal actions (the env rows' draw)."""
    return lambda mask: int(rng.choice(np.flatnonzero(mask)))


def list_draw(rng: random.Random) -> Draw:
    """``random.choice`` over the mask's legal actions as a list: the draw of PettingZoo's
    ``performance_benchmark``, about a quarter of the cost of :func:`generator_draw`."""
    return lambda mask: rng.choice(np.flatnonzero(mask).tolist())


def aec_loop(env, draw: Draw, games: int = 5) -> int:
    """Plies of masked random play through reset/last/step (the loop a learner runs)."""
    plies = 0
    for _ in range(games):
        env.reset()
        for _agent in env.agent_iter():
            obs, _, termination, truncation, _ = env.last()
            if termination or truncation:
                env.step(None)
                continue
            env.step(draw(obs["action_mask"]))
            plies += 1
    return plies


def pettingzoo_env(name: str, **options):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return importlib.import_module(f"pettingzoo.classic.{name}").env(**options)


def _play_some(env, plies: int) -> None:
    draw = generator_draw(np.random.default_rng(1))
    env.reset(seed=0)
    for _ in range(plies):
        obs, _, termination, _, _ = env.last()
        if termination:
            break
        env.step(draw(obs["action_mask"]))


def aec_work(env, draw: Draw) -> Callable[[], int]:
    """Two games of :func:`aec_loop` on ``env`` per call."""
    return lambda: aec_loop(env, draw, 2)


def pettingzoo_clone_work(env) -> Callable[[], int]:
    """Ten state-keeping clones of a PettingZoo env four plies into a game per call."""
    _play_some(env, 4)

    def ten() -> int:
        for _ in range(10):
            clone_aec_env(env)
        return 10

    return ten


def ours_clone_work(game: str) -> Callable[[], int]:
    """200 ``clone_state`` + ``restore_state`` of our env four plies into a game per call."""
    env = make_env(game, **REFERENCES[game].options)
    _play_some(env, 4)

    def two_hundred() -> int:
        for _ in range(200):
            env.restore_state(env.clone_state())
        return 200

    return two_hundred


def pettingzoo_rates(name: str, options: dict, seconds: float) -> dict[str, float]:
    """AEC-loop plies/s and state-keeping clones/s of a PettingZoo classic env, each warmed
    up first (what a process of its own measures)."""
    loop = aec_work(pettingzoo_env(name, **options), generator_draw(np.random.default_rng(0)))
    clone = pettingzoo_clone_work(pettingzoo_env(name, **options))
    loop(), clone()
    return {"aec": timed_rate(loop, seconds), "clone": timed_rate(clone, seconds)}


def pettingzoo_rates_in_own_process(name: str, options: dict, seconds: float
                                    ) -> dict[str, float]:
    code = (
        "import json, sys; from boardzoo.bench.envs import pettingzoo_rates; "
        f"print(json.dumps(pettingzoo_rates({name!r}, {options!r}, {seconds!r})))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def bench_pettingzoo(game: str, settings: Settings) -> list[Row]:
    """The AEC loop and clone+restore against PettingZoo, alternating measurements."""
    ref = REFERENCES[game]
    draw = generator_draw(np.random.default_rng(0))
    ours_aec = aec_work(make_env(game, **ref.options), draw)
    ours_clone = ours_clone_work(game)
    if ref.pettingzoo is None:
        return [
            Row(label(game), "AEC loop", "plies/s", rate(ours_aec, settings), None,
                "no PettingZoo version"),
            Row(label(game), "clone+restore", "/s", rate(ours_clone, settings), None,
                "no PettingZoo version"),
        ]
    if ref.own_process:
        aec, clone = _versus_own_process(ours_aec, ours_clone, ref, settings)
    else:
        aec = interleaved_rates(ours_aec, aec_work(_pettingzoo(ref), draw), settings)
        clone = interleaved_rates(ours_clone, pettingzoo_clone_work(_pettingzoo(ref)),
                                  settings)
    where = " (own process)" if ref.own_process else ""
    return [
        Row(label(game), "AEC loop", "plies/s", aec.ours, aec.theirs,
            f"PettingZoo {ref.pettingzoo}{where}", ref.aec_target, spread=aec.spread),
        Row(label(game), "clone+restore", "/s", clone.ours, clone.theirs,
            f"PettingZoo {ref.pettingzoo} state-keeping clone", ref.clone_target,
            spread=clone.spread),
    ]


def _pettingzoo(ref: Reference):
    assert ref.pettingzoo is not None
    return pettingzoo_env(ref.pettingzoo, **ref.pettingzoo_options)


def _versus_own_process(ours_aec: Callable[[], int], ours_clone: Callable[[], int],
                        ref: Reference, settings: Settings) -> tuple[Paired, Paired]:
    """Ours warmed up here, then in turn with a process of the reference's own per
    repetition (which warms up its env itself)."""
    assert ref.pettingzoo is not None
    ours_aec(), ours_clone()
    a_aec, a_clone, b_aec, b_clone = [], [], [], []
    for _ in range(settings.repeats):
        a_aec.append(timed_rate(ours_aec, settings.seconds))
        a_clone.append(timed_rate(ours_clone, settings.seconds))
        theirs = pettingzoo_rates_in_own_process(ref.pettingzoo, ref.pettingzoo_options,
                                                 settings.seconds)
        b_aec.append(theirs["aec"])
        b_clone.append(theirs["clone"])
    return paired(a_aec, b_aec), paired(a_clone, b_clone)


def openspiel_random_plies(game, rng: random.Random, games: int = 5) -> int:
    plies = 0
    for _ in range(games):
        state = game.new_initial_state()
        while not state.is_terminal():
            state.apply_action(rng.choice(state.legal_actions()))
            plies += 1
    return plies


@game_function("the random-playout benchmark")
def compiled_playouts(tag, initial, rng, games):
    """Random games from ``initial`` in a compiled loop (as search runs them); total plies."""
    plies = 0
    for _ in range(games):
        state = initial.copy()
        playout(tag, state, rng)
        plies += state[2] - initial[2]
    return plies


def bench_playouts(game: str, settings: Settings) -> list[Row]:
    ref = REFERENCES[game]
    rules = make_env(game, **ref.options).game
    initial, tag = rules.initial_state(), game_tag(rules)
    rng = make_rng(0)
    ours = lambda: int(compiled_playouts(tag, initial, rng, 50))  # noqa: E731
    spiel = _openspiel_game(ref.openspiel, ref.openspiel_options)
    if spiel is None:
        return [Row(label(game), "random playouts", "plies/s", rate(ours, settings), None,
                    "OpenSpiel not installed")]
    py_rng = random.Random(0)
    m = interleaved_rates(ours, lambda: openspiel_random_plies(spiel, py_rng), settings)
    return [Row(label(game), "random playouts", "plies/s", m.ours, m.theirs,
                "OpenSpiel, Python-driven", ref.playout_target, spread=m.spread)]


def _openspiel_game(name: str | None, options: dict):
    try:
        import pyspiel
    except ImportError:
        return None
    return pyspiel.load_game(name, options) if name else None


def python_chess_perft(board, depth: int) -> int:
    """Leaves of python-chess's legal move tree, the last ply counted, not played (as
    :func:`boardzoo.envs.chess_moves.perft` counts)."""
    if depth == 1:
        return board.legal_moves.count()
    total = 0
    for move in board.legal_moves:
        board.push(move)
        total += python_chess_perft(board, depth - 1)
        board.pop()
    return total


def bench_perft(game: str, settings: Settings) -> list[Row]:
    """Chess perft leaves/s from the start position, against python-chess's move generator
    (the one PettingZoo's chess_v6 runs on), measured in turn."""
    import chess

    from boardzoo.envs.chess_moves import perft

    start = make_env(game).game.initial_state()
    ours = lambda: int(perft(start, PERFT_DEPTH))  # noqa: E731
    board = chess.Board()
    theirs = lambda: python_chess_perft(board, PYTHON_CHESS_PERFT_DEPTH)  # noqa: E731
    m = interleaved_rates(ours, theirs, settings)
    return [Row(label(game), f"perft({PERFT_DEPTH}) from the start", "leaves/s", m.ours,
                m.theirs, f"python-chess perft({PYTHON_CHESS_PERFT_DEPTH})", PERFT_TARGET,
                spread=m.spread)]


BENCHMARKS = [Benchmark(bench_pettingzoo, "AEC loop and clone+restore"),
              Benchmark(bench_playouts, "random playouts"),
              Benchmark(bench_perft, "perft", ("chess",))]
