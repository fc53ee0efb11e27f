"""Playing strength of the AlphaZero networks (issue 9's checks), with every exact solver
forbidden to the learned agent: Connect Four against exact answers, Othello 6x6 at equal time.

* **Positions**: on the won or drawn positions among the 200 public positions and in Pons'
  Test_L2_R1 (in a lost position every move preserves the outcome, so those are left out), the
  share of outcome-preserving moves (a win stays a win, a draw a draw) and of strictly optimal
  moves (fastest win), for the agent at ``--simulations`` and for the network alone (the
  argmax of its policy over legal moves). Each move's value comes from boardzoo's solver,
  computed *before* the solver is forbidden.
* **Match**: the agent against ``MCTSAgent(simulations=20_000)`` with its defaults (its own
  exact solver answers from about 14 stones on) over paired games from random 4-ply openings,
  and, on the same openings, a perfect player (the solver's move) against that MCTS: the ceiling.
  ``--endgame`` then says where the agent's games are lost: the solver's value of each game
  once 14 stones are on the board (where MCTS's solver takes over and it plays perfectly),
  the score the agent would make if it kept every such value to the end, and the games in
  which one of its own later moves threw a win or a draw away (or the opponent's: none here).
* **Othello 6x6** (``--game othello_6x6``): the agent at ``--time-limit`` seconds a move against
  ``AlphaBetaAgent(time_limit=...)`` (its endgame solver included) over paired games from
  random 4-ply openings, and on the same openings the default ``MCTSAgent`` at the same time
  against the same opponent: the baseline. ``--endgame`` gives the same account of both
  matches from 20 empty squares on (where the endgame solver's reach begins; alpha-beta's
  own solver takes over when a solve fits its 0.2 s, a few squares later).

While the learned agent moves, the game's exact solver raises :class:`SolverUsed`, so no
solver answer can hide in its moves. Run (from a source checkout)::

    python -m benchmarks.alphazero_strength [--checkpoint connect_four] [--simulations 200]
        [--games 200] [--ceiling-games 0] [--workers 2] [--skip-match] [--skip-positions]
        [--endgame]
    python -m benchmarks.alphazero_strength --game othello_6x6 [--checkpoint othello_6x6]
        [--time-limit 0.2] [--games 100] [--workers 2] [--skip-baseline] [--endgame]

``--agent-options solver=True,c=2.0`` gives the learned agent more options (any of
:class:`~boardzoo.agents.AlphaZeroAgent`'s but ``exact_solver``, which stays off).
"""

from __future__ import annotations

import argparse
import contextlib
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np
import torch
from rich.console import Console
from rich.table import Table

from boardzoo.agents import AlphaBetaAgent, AlphaZeroAgent, MCTSAgent, make_agent
from boardzoo.arena import GameRecord, MatchResult, play_match
from boardzoo.envs import make_env, make_game
from boardzoo.envs.core import Game
from boardzoo.knowledge.connect_four import REACH_STONES, Solver
from boardzoo.knowledge.othello_solver import REACH_EMPTIES
from boardzoo.knowledge.othello_solver import solve as solve_othello

DATA = Path(__file__).resolve().parents[1] / "tests" / "data" / "connect4"
UNLIMITED = 1 << 62  # solver nodes: solve to the end, however long it takes

Row = tuple[str, int, list[int | None]]
"""(position, its Pons score for the side to move, each column's score or None if full)."""


class SolverUsed(AssertionError):
    """Raised when a forbidden exact solver is called."""


def _refuse(*args: Any, **kwargs: Any) -> Any:
    raise SolverUsed("the learned agent consulted an exact solver")


@contextlib.contextmanager
def solvers_forbidden(game: Game) -> Iterator[None]:
    """Make every exact-solver entry point of ``game`` raise for the duration: its knowledge's
    ``solve`` and, for Connect Four, every :class:`Solver` instance's ``solve_position``."""
    knowledge = game.knowledge
    saved = knowledge.solve if knowledge is not None else None
    saved_position = Solver.solve_position
    if knowledge is not None:
        object.__setattr__(knowledge, "solve", _refuse)  # Knowledge is a frozen dataclass
    Solver.solve_position = _refuse  # type: ignore[method-assign]
    try:
        yield
    finally:
        Solver.solve_position = saved_position  # type: ignore[method-assign]
        if knowledge is not None:
            object.__setattr__(knowledge, "solve", saved)


class NoSolverAgent:
    """An agent whose every move is made with the game's exact solvers forbidden; picklable, so
    arena worker processes apply the ban too."""

    def __init__(self, agent: Any, game: str):
        self.agent, self.game = agent, game

    def act(self, env: Any) -> int:
        with solvers_forbidden(make_game(self.game)):
            return self.agent.act(env)

    def reseed(self, seed: int | None) -> None:
        if hasattr(self.agent, "reseed"):
            self.agent.reseed(seed)


class PerfectPlayer:
    """Plays the solver's strictly optimal column (the ceiling of the match)."""

    def __init__(self) -> None:
        self.solver = Solver(reuse_table=True)

    def act(self, env: Any) -> int:
        solution = self.solver.solve(env.unwrapped.state_array, max_nodes=UNLIMITED)
        assert solution is not None, "the perfect player needs a 6x7 game in progress"
        return solution.action


def public_rows() -> list[Row]:
    """The 200 public positions with Pons' score of every column (full columns: None)."""
    rows = []
    for line in (DATA / "generated_public_200_moves.txt").read_text().splitlines():
        sequence, score, _best, *scores = line.split()
        rows.append((sequence, int(score), [_column_score(s) for s in scores]))
    return rows


def _column_score(text: str) -> int | None:
    return None if text == "." else int(text)


def solved_rows(name: str) -> list[Row]:
    """The won and drawn positions of a Pons test set, every column scored by boardzoo's
    solver (children solved)."""
    game, solver = make_game("connect_four"), Solver(reuse_table=True)
    rows = []
    for line in (DATA / name).read_text().splitlines():
        sequence, score = line.split()
        if int(score) < 0:
            continue
        state = game.parse_position(sequence)
        scores: list[int | None] = [None] * game.num_actions
        for action in game.legal_actions(state):
            child = game.step(state, action)
            if game.is_terminal(child):  # a win now: Pons' score of winning with this stone
                scores[action] = (43 - len(sequence)) // 2
                continue
            solution = solver.solve(child, max_nodes=UNLIMITED)
            assert solution is not None
            scores[action] = -solution.value
        rows.append((sequence, int(score), scores))
    return rows


def move_accuracy(rows: list[Row], choose: Callable[[Any], int]) -> tuple[int, float, float]:
    """(positions, share outcome-preserving, share strictly optimal) of ``choose(env)``'s
    moves over the won and drawn positions of ``rows``."""
    env = make_env("connect_four")
    kept = optimal = count = 0
    for sequence, score, scores in rows:
        if score < 0:
            continue
        env.reset(options={"position": sequence})
        played = scores[choose(env)]
        assert played is not None, f"{sequence}: the agent played a full column"
        count += 1
        kept += played > 0 if score > 0 else played == 0
        optimal += played == max(s for s in scores if s is not None)
    return count, kept / count, optimal / count


def network_alone(agent: AlphaZeroAgent) -> Callable[[Any], int]:
    """The argmax of the network's policy over the legal moves (no search)."""

    def choose(env: Any) -> int:
        observation = env.observe(env.agent_selection)
        planes = observation["observation"][None].astype(np.float32)
        mask = observation["action_mask"][None].astype(bool)
        logits = agent.options["evaluator"](planes, mask).logits[0]
        return int(np.argmax(np.where(mask[0], logits, -np.inf)))

    return choose


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", choices=("connect_four", "othello_6x6"), default="connect_four")
    parser.add_argument("--checkpoint", help="a shipped name or a path (default: the game's)")
    parser.add_argument("--simulations", type=int, default=200, help="Connect Four's agent")
    parser.add_argument("--time-limit", type=float, default=0.2, help="seconds a move (Othello)")
    parser.add_argument("--games", type=int, default=None,
                        help="match games (default: 200 Connect Four, 100 Othello)")
    parser.add_argument("--opponent-simulations", type=int, default=20_000)
    parser.add_argument("--ceiling-games", type=int, default=0)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--skip-match", action="store_true")
    parser.add_argument("--skip-positions", action="store_true",
                        help="Connect Four: the match only, not the position shares")
    parser.add_argument("--skip-baseline", action="store_true",
                        help="Othello: the network's match only, not the MCTS baseline's")
    parser.add_argument("--endgame", action="store_true",
                        help="where the match's games are lost, from the solver's reach on "
                        "(Connect Four: 14 stones; Othello 6x6: 20 empty squares)")
    parser.add_argument("--agent-options", default="",
                        help="more options for the learned agent, e.g. solver=True,c=2.0")
    args = parser.parse_args(argv)
    if "exact_solver" in args.agent_options:
        parser.error("--agent-options: exact_solver stays False in these checks")
    torch.set_num_threads(1)  # one search at a time; arena workers are processes
    console = Console(width=max(Console().width, 110))
    if args.game == "othello_6x6":
        othello_checks(args, console)
    else:
        connect_four_checks(args, console)


def connect_four_checks(args: argparse.Namespace, console: Console) -> None:
    """The position shares (a table) and the match against MCTS 20,000 (and its ceiling)."""
    checkpoint = args.checkpoint or "connect_four"
    agent = learned_agent(checkpoint, f"simulations={args.simulations}", args.agent_options)
    if not args.skip_positions:
        console.print(position_shares(agent, f"search, {args.simulations} sims",
                                      f"{checkpoint}: won/drawn positions, solvers forbidden"))
    if args.skip_match:
        return
    opponent = MCTSAgent(simulations=args.opponent_simulations, seed=0)
    games = args.games or 200
    contenders: dict[str, tuple[Any, int]] = {
        f"AlphaZero {args.simulations} sims": (NoSolverAgent(agent, "connect_four"), games)}
    if args.ceiling_games:
        contenders["perfect player (ceiling)"] = (PerfectPlayer(), args.ceiling_games)
    for name, (player, n) in contenders.items():
        result = _report_match(
            console, name, f"MCTSAgent(simulations={args.opponent_simulations:,})",
            lambda player=player, n=n: play_match(
                "connect_four", player, opponent, games=n, seed=0, opening_plies=4,
                workers=args.workers))
        if args.endgame and isinstance(player, NoSolverAgent):
            summary = endgame_summary(result.records, make_game("connect_four"),
                                      connect_four_result())
            console.print(endgame_table(summary, f"{REACH_STONES} stones"))


Solve = Callable[[np.ndarray], int]
"""A position's exact result for the side to move: +1, 0 or -1."""


def connect_four_result() -> Solve:
    """Connect Four's exact results (one solver whose table the positions share)."""
    solver = Solver(reuse_table=True)

    def result(state: np.ndarray) -> int:
        solution = solver.solve(state, max_nodes=UNLIMITED)
        assert solution is not None, "a 6x7 game in progress"
        return int(np.sign(solution.value))

    return result


def othello_result(state: np.ndarray) -> int:
    """Othello's exact result (the endgame solver, within its reach)."""
    solution = solve_othello(state)
    assert solution is not None, "an Othello game in progress within the solver's reach"
    return int(np.sign(solution.value))


def endgame_values(record: GameRecord, game: Game,
                   result: Solve) -> list[tuple[int, int, bool]]:
    """For every move of ``record`` from the first position within reach of the game's solver
    (``game.knowledge.within_reach``: Connect Four from 14 stones, Othello 6x6 from 20
    empty squares): (the exact result before the move, after it, both from the mover's
    view, whether agent_a moved)."""
    state = game.initial_state()
    rows: list[tuple[int, int, bool]] = []
    known = None  # the exact result for the side to move in ``state``, once solved
    for move in [*record.opening, *record.moves]:
        if not rows and not game.knowledge.within_reach(state):
            state = game.step(state, move)
            continue
        mover = game.to_play(state)
        before = result(state) if known is None else known
        state = game.step(state, move)
        if game.is_terminal(state):
            after = int(np.sign(game.returns(state)[mover]))
        else:
            known = result(state)
            after = known if game.to_play(state) == mover else -known
        rows.append((before, after, mover == record.agent_a_seat))
    return rows


class EndgameSummary(NamedTuple):
    """Where a match's games were lost, from agent_a's side (see :func:`endgame_summary`)."""

    games: int
    at_reach: dict[int, int]  # the exact result when the solver's reach begins -> games
    kept_score: float  # the score had the agent kept that result (shorter games as played)
    score: float  # the score as played
    games_thrown: int  # games where one of the agent's own moves made its result worse
    thrown: dict[tuple[int, int], int]  # (before, after) -> games with such a move
    opponent_thrown: int  # games where one of the opponent's moves made its result worse


def endgame_summary(records: list[GameRecord], game: Game, result: Solve) -> EndgameSummary:
    """Where the agent's (agent_a's) games are lost: its exact result where the solver's
    reach begins, the score of keeping it, and the games where its own later move (or the
    opponent's) gave a win or a draw away."""
    at_reach = {1: 0, 0: 0, -1: 0}
    thrown = {(1, -1): 0, (1, 0): 0, (0, -1): 0}
    kept_score, games_thrown, opponent_thrown = 0.0, 0, 0
    for record in records:
        rows = endgame_values(record, game, result)
        if not rows:  # over before the endgame: as played
            kept_score += record.score
            continue
        before, _, agent_moved = rows[0]
        value = before if agent_moved else -before
        at_reach[value] += 1
        kept_score += (value + 1) / 2
        errors = {(b, a) for b, a, mine in rows if mine and a < b}
        games_thrown += bool(errors)
        opponent_thrown += any(a < b for b, a, mine in rows if not mine)
        for error in errors:
            thrown[error] += 1
    score = sum(r.score for r in records) / len(records)
    return EndgameSummary(len(records), at_reach, kept_score / len(records), score,
                          games_thrown, thrown, opponent_thrown)


def endgame_table(summary: EndgameSummary, reach: str) -> Table:
    """The summary as one row of a table; ``reach`` names where the solver's reach begins."""
    table = Table(title=f"where the games are lost: exact results from {reach} on")
    for column in ("games", "the agent's result there: won / drawn / lost",
                   "score if it kept it", "actual",
                   "games it threw away: any / won->lost / won->drawn / drawn->lost",
                   "games the opponent threw away"):
        table.add_column(column, justify="right")
    at, thrown = summary.at_reach, summary.thrown
    table.add_row(str(summary.games), f"{at[1]} / {at[0]} / {at[-1]}",
                  f"{summary.kept_score:.3f}", f"{summary.score:.3f}",
                  f"{summary.games_thrown} / {thrown[1, -1]} / {thrown[1, 0]} / {thrown[0, -1]}",
                  str(summary.opponent_thrown))
    return table


def position_shares(agent: AlphaZeroAgent, search_name: str, title: str) -> Table:
    """The outcome-preserving and strictly optimal shares of the agent's moves and of its
    network alone on the won/drawn public positions and Test_L2_R1's, solvers forbidden."""
    sets = {"public 200": public_rows(), "Test_L2_R1": solved_rows("Test_L2_R1")}
    table = Table(title=title)
    for column in ("set", "player", "positions", "outcome-preserving", "strictly optimal", "s"):
        table.add_column(column, justify="right")
    players = {search_name: agent.act, "network alone": network_alone(agent)}
    with solvers_forbidden(make_game("connect_four")):
        for set_name, rows in sets.items():
            for player, choose in players.items():
                start = time.perf_counter()
                n, kept, optimal = move_accuracy(rows, choose)
                table.add_row(set_name, player, str(n), f"{kept:.1%}", f"{optimal:.1%}",
                              f"{time.perf_counter() - start:.0f}")
    return table


def othello_checks(args: argparse.Namespace, console: Console) -> None:
    """The network at equal time against alpha-beta, and default MCTS as the baseline, over
    the same paired games (Othello 6x6, 4-ply random openings, seed 0)."""
    seconds = args.time_limit
    network = learned_agent(args.checkpoint or "othello_6x6", f"time_limit={seconds}",
                            args.agent_options)
    opponent = AlphaBetaAgent(time_limit=seconds)
    contenders = {f"AlphaZero {seconds} s": NoSolverAgent(network, "othello")}
    if not args.skip_baseline:
        contenders[f"MCTSAgent(time_limit={seconds}) (baseline)"] = MCTSAgent(
            time_limit=seconds, seed=0)
    for name, player in contenders.items():
        result = _report_match(console, name, f"AlphaBetaAgent(time_limit={seconds})",
                               lambda player=player: play_match(
                                   "othello", player, opponent, games=args.games or 100,
                                   seed=0, opening_plies=4, game_options={"board_size": 6},
                                   workers=args.workers))
        if args.endgame:
            summary = endgame_summary(result.records, make_game("othello", board_size=6),
                                      othello_result)
            console.print(endgame_table(summary, f"{REACH_EMPTIES[6]} empty squares"))


def learned_agent(checkpoint: str, budget: str, options: str = "") -> AlphaZeroAgent:
    """The checkpoint's agent at ``budget`` ("simulations=N" or "time_limit=S") with
    ``options`` ("k=v,..."), its exact solver off."""
    spec = ",".join(o for o in (f"alphazero:checkpoint={checkpoint}", budget,
                                "exact_solver=False", options) if o)
    agent = make_agent(spec, seed=0)
    assert isinstance(agent, AlphaZeroAgent)
    return agent


def _report_match(console: Console, name: str, opponent: str,
                  play: Callable[[], MatchResult]) -> MatchResult:
    start = time.perf_counter()
    result = play()
    low, high = result.score_ci
    console.print(f"{name} vs {opponent}: +{result.wins} ={result.draws} -{result.losses}, "
                  f"score {result.score:.3f} [95%: {low:.3f}, {high:.3f}] over "
                  f"{result.games} games ({time.perf_counter() - start:.0f} s)")
    return result


if __name__ == "__main__":
    main()
