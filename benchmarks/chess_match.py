"""Chess alpha-beta against itself with one piece of knowledge changed: paired games at equal
move time, to see whether a change to the search or the evaluation pays in play.

Variant ``a`` and variant ``b`` (names of :func:`benchmarks.chess_search.variant`: ``default``,
``see``, ``null``, ...) play every opening of :data:`benchmarks.chess_ladder.BOOK` once with
each colour, both as ``AlphaBetaAgent(time_limit=--move-time, seed=0)`` in one process,
moving in turn (so the machine's other load hits both alike). Each side searches its own
env of its own game class; the two envs get the same moves. Prints every game and ``a``'s
score with its 95% Wilson interval (:func:`boardzoo.ratings.score_interval`) and the
Elo difference it implies.

Run (nice'd)::

    nice python -m benchmarks.chess_match default see --move-time 0.2
"""

from __future__ import annotations

import argparse
import math

from benchmarks.chess_ladder import BOOK
from benchmarks.chess_search import variant
from boardzoo.agents import AlphaBetaAgent
from boardzoo.envs import BoardGameEnv
from boardzoo.ratings import score_interval


def play(names: tuple[str, str], opening: int, a_is_white: bool, move_time: float,
         max_plies: int) -> tuple[float, int]:
    """``names[0]``'s score in one game from ``BOOK[opening]`` and the plies played after the
    book (a draw when ``max_plies`` is reached)."""
    envs = [BoardGameEnv(variant(name)(), illegal_action="raise") for name in names]
    agents = [AlphaBetaAgent(time_limit=move_time, seed=opening) for _ in names]
    for env, agent in zip(envs, agents, strict=True):
        env.reset()
        for text in BOOK[opening][1].split():
            env.step(env.str_to_action(text))
        agent.prepare(env)
    game, state = envs[0].game, lambda: envs[0].state_array
    a_seat = 0 if a_is_white else 1
    plies = 0
    while not game.is_terminal(state()) and plies < max_plies:
        mover = 0 if game.to_play(state()) == a_seat else 1
        text = envs[mover].action_to_str(agents[mover].act(envs[mover]))
        for env in envs:
            env.step(env.str_to_action(text))
        plies += 1
    if not game.is_terminal(state()):
        return 0.5, plies
    return (float(game.returns(state())[a_seat]) + 1) / 2, plies


def elo(score: float) -> float:
    """The Elo difference whose expected score is ``score`` (logistic model)."""
    if score <= 0.0 or score >= 1.0:
        return math.copysign(math.inf, score - 0.5)
    return 400.0 * math.log10(score / (1.0 - score))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("a")
    parser.add_argument("b")
    parser.add_argument("--move-time", type=float, default=0.2)
    parser.add_argument("--openings", type=int, default=len(BOOK))
    parser.add_argument("--max-plies", type=int, default=300,
                        help="a draw after this many plies beyond the book")
    args = parser.parse_args(argv)
    for name in (args.a, args.b):
        variant(name)  # an unknown name fails before any game
    points, games = 0.0, 0
    for opening in range(args.openings):
        for a_is_white in (True, False):
            score, plies = play((args.a, args.b), opening, a_is_white, args.move_time,
                                args.max_plies)
            points, games = points + score, games + 1
            print(f"{BOOK[opening][0]}, {args.a} {'white' if a_is_white else 'black'}: "
                  f"{score:g} ({plies} plies)", flush=True)
    low, high = score_interval(points / games, games)
    print(f"{args.a} against {args.b}, {args.move_time:g} s a move: {points:g}/{games} = "
          f"{points / games:.3f} [{low:.3f}, {high:.3f}], Elo {elo(points / games):+.0f} "
          f"[{elo(low):+.0f}, {elo(high):+.0f}]")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
