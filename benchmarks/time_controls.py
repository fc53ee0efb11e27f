"""Time controls: the checks of issue 14 as benchmarks (minutes to hours; not run by the tests).

    python -m benchmarks.time_controls ffo [--time-limit 120] [--numbers 40-47]
            [--agent alphabeta|mcts] [--no-exact-solver] [--with-solver]
        AlphaBetaAgent (or MCTSAgent) at time_limit=T on FFO positions: move, value, exact,
        seconds, and the solver alone for reference; with --no-exact-solver the agent's own
        search alone ("right": a best move).
    python -m benchmarks.time_controls clocks GAME [--tc 10+0.1] [--games 100]
        alpha-beta against MCTS under a clock: score, losses on time, share of the clock used.
    python -m benchmarks.time_controls allocation GAME [--tc 10+0.1] [--games 200]
        MCTS with its clock (allocation, early stopping) against the same MCTS at a fixed
        time per move with the same total time per game (base / moves + increment).
    python -m benchmarks.time_controls proofs GAME [--tc 10+0.1] [--games 100] [--seed 0]
        the clocks match one game at a time with every move logged: the clock still left
        when each agent's own result became exact, and the clock used until then.
    python -m benchmarks.time_controls reach [--tc 10+0.1] [--games 20]
        Connect Four: from which stone count alpha-beta's moves are exact under the clock.

Every command prints a table (rich) and can write it as JSON (--out FILE); the match
commands print each game as it ends, and clocks and allocation with --store FILE (a results
store) resume an interrupted run where it stopped.
"""

from __future__ import annotations

import argparse
import json
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from boardzoo.agents import AlphaBetaAgent, MCTSAgent
from boardzoo.arena import agent_spec, clock_use, play_match, tournament
from boardzoo.envs import make_env
from boardzoo.knowledge.othello_solver import solve as othello_solve
from boardzoo.timecontrol import TimeControl, estimated_moves_left

FFO = Path(__file__).resolve().parents[1] / "tests" / "data" / "othello" / "ffo_endgame_suite.json"


def _table(title: str, columns: list[str], rows: list[list[Any]]) -> None:
    from rich.console import Console
    from rich.table import Table

    table = Table(title=title)
    for column in columns:
        table.add_column(column, justify="right")
    for row in rows:
        table.add_row(*[f"{v:.3f}" if isinstance(v, float) else str(v) for v in row])
    Console().print(table)


def _progress(total: int) -> Callable[[int], None]:
    """A ``progress(n)`` callback for a match that prints the games ended so far."""
    ended, start = [0], time.monotonic()

    def report(n: int) -> None:
        ended[0] += n
        print(f"{ended[0]}/{total} games, {time.monotonic() - start:.0f} s", flush=True)

    return report


def _numbers(text: str) -> list[int]:
    low, _, high = text.partition("-")
    return list(range(int(low), int(high or low) + 1))


def run_ffo(args: argparse.Namespace) -> dict[str, Any]:
    """The agent on FFO positions at ``time_limit``; the solver alone as the reference."""
    suite = {p["ffo"]: p for p in json.loads(FFO.read_text())}
    rows, out = [], []
    for number in _numbers(args.numbers):
        entry = suite[number]
        env = make_env("othello")
        side = "X" if entry["to_move"] == "black" else "O"
        env.reset(options={"position": f"{entry['board']} {side}"})
        solver = not args.no_exact_solver
        agent: AlphaBetaAgent | MCTSAgent = (
            AlphaBetaAgent(time_limit=args.time_limit, solver=solver, seed=0)
            if args.agent == "alphabeta"
            else MCTSAgent(time_limit=args.time_limit, exact_solver=solver, seed=0))
        agent.prepare(env)
        start = time.monotonic()
        result = agent.search(env)
        seconds = time.monotonic() - start
        move = env.unwrapped.action_to_str(result.action).upper()
        solver_seconds = float("nan")
        if args.with_solver:
            start = time.monotonic()
            othello_solve(env.unwrapped.state_array, None, 64)
            solver_seconds = time.monotonic() - start
        right = move in entry["best_moves"] and (args.no_exact_solver or (
            result.exact and result.value == entry["best_score"]))
        row = [number, entry["empties"], move, "/".join(entry["best_moves"]), result.value,
               entry["best_score"], result.exact, right, seconds, seconds / args.time_limit,
               solver_seconds]
        rows.append(row)
        out.append(dict(zip(["ffo", "empties", "move", "best", "value", "best_score", "exact",
                             "solved", "seconds", "budget_share", "solver_seconds"], row,
                            strict=True)))
        print(row, flush=True)
    _table(f"{type(agent).__name__}(time_limit={args.time_limit}) on FFO",
           ["#", "empties", "move", "best", "value", "best", "exact", "right", "s",
            "s / budget", "solver alone s"], rows)
    return {"time_limit": args.time_limit, "positions": out}


def run_clocks(args: argparse.Namespace) -> dict[str, Any]:
    """alpha-beta and MCTS (their defaults) under one clock."""
    agents = {"alphabeta": AlphaBetaAgent(seed=1), "mcts": MCTSAgent(seed=2)}
    result = tournament(args.game, agents, games_per_pair=args.games, seed=args.seed,
                        time_control=args.tc, workers=args.workers, opening_plies=4,
                        store=args.store, progress=_progress(args.games))
    use = clock_use(result)
    match = result.matches[("alphabeta", "mcts")]
    rows = [[name, use[name]["time_losses"], use[name]["flagged"], use[name]["used_share"],
             use[name]["mean_move_seconds"]] for name in agents]
    _table(f"{args.game} under {args.tc}: alpha-beta {match!r}",
           ["agent", "losses on time", "flagged", "clock used", "s per move"], rows)
    split = _clock_use_by_result(match)
    _table("clock used by the agent's result, and without the games over within "
           f"{SHORT_GAME_MOVES} moves of each side after the opening",
           ["agent", "won", "drawn", "lost", "short games", "their share", "without them"],
           [[name, *split[name].values()] for name in agents])
    return {"game": args.game, "tc": args.tc, "games": match.games,
            "alphabeta_score": match.score, "interval": match.score_ci, "clock_use": use,
            "clock_use_by_result": split}


#: a game over within this many moves of each side after the opening was decided by it
SHORT_GAME_MOVES = 3


def _clock_use_by_result(match: Any) -> dict[str, dict[str, float]]:
    """Per agent of the alpha-beta vs MCTS match: the share of the clock used in the games
    it won, drew and lost, how many games ended within :data:`SHORT_GAME_MOVES` moves of
    each side after the opening, their share of the clock, and the share used without them."""
    out = {}
    for name, seat_of in (("alphabeta", lambda r: r.agent_a_seat),
                          ("mcts", lambda r: 1 - r.agent_a_seat)):
        used: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0])
        for record in match.records:
            seat = seat_of(record)
            spent = sum(record.clock_seconds[seat])
            had = spent + max(0.0, record.clock_left[seat])
            short = len(record.moves) - len(record.opening) <= 2 * SHORT_GAME_MOVES
            result = {1.0: "won", 0.0: "drawn", -1.0: "lost"}[float(record.returns[seat])]
            for key in (result, "all", *(["short"] if short else [])):
                used[key][0] += spent
                used[key][1] += had
        share = {key: u / h if h else float("nan") for key, (u, h) in used.items()}
        short_count = sum(len(r.moves) - len(r.opening) <= 2 * SHORT_GAME_MOVES
                          for r in match.records)
        rest = [used["all"][i] - used["short"][i] for i in (0, 1)]
        out[name] = {"won": share.get("won", float("nan")),
                     "drawn": share.get("drawn", float("nan")),
                     "lost": share.get("lost", float("nan")), "short_games": short_count,
                     "short_share_of_clock": used["short"][1] / used["all"][1],
                     "without_short": rest[0] / rest[1]}
    return out


def run_allocation(args: argparse.Namespace) -> dict[str, Any]:
    """Clock-managed MCTS against MCTS at the fixed per-move time that spends the same
    total per game (main time over the moves it expects at the start, plus the increment)."""
    control = TimeControl.parse(args.tc)
    env = make_env(args.game)
    env.reset()
    moves = estimated_moves_left(env.unwrapped.game, env.unwrapped.state_array)
    per_move = control.base / moves + control.increment
    clocked, fixed = MCTSAgent(seed=1), _Unclocked(MCTSAgent(seed=2, time_limit=per_move))
    # both play on the clock (their time is recorded), but the fixed side never sees it and
    # a game longer than expected must not make it lose on time: flags only warn
    match = play_match(args.game, clocked, fixed, games=args.games, seed=args.seed,
                       time_control=args.tc, workers=args.workers, on_time="warn",
                       store=args.store, progress=_progress(args.games))
    low, high = match.score_ci
    _table(f"{args.game}: MCTS on a {args.tc} clock vs MCTS at {per_move:.3f} s per move",
           ["games", "score", "95% low", "95% high"], [[match.games, match.score, low, high]])
    return {"game": args.game, "tc": args.tc, "fixed_seconds": per_move, "games": match.games,
            "score": match.score, "interval": [low, high]}


class _Unclocked:
    """An agent that is never shown the clock: it searches its own fixed ``time_limit``."""

    def __init__(self, agent: MCTSAgent):
        self.agent = agent
        self.spec = {"unclocked": agent_spec(agent)}  # what a results store knows it by

    def reseed(self, seed: int | None) -> None:
        self.agent.reseed(seed)

    def prepare(self, env: Any) -> None:
        self.agent.prepare(env)

    def act(self, env: Any) -> int:
        return self.agent.act(env)


class _Recorder:
    """Wraps an agent; logs each of its moves to ``log``: the game (counted by the arena's
    reseeds, one before every game), the stones or discs on the board, the legal moves, the
    main time left before it, and whether its result was exact."""

    def __init__(self, name: str, agent: Any, log: list[dict[str, Any]]):
        self.name, self.agent, self.log, self.game = name, agent, log, -1

    def reseed(self, seed: int | None) -> None:
        self.game += 1
        self.agent.reseed(seed)

    def prepare(self, env: Any) -> None:
        self.agent.prepare(env)

    def act(self, env: Any, clock: Any = None) -> int:
        state = env.unwrapped.state_array
        entry = {"agent": self.name, "game": self.game,
                 "stones": int((env.unwrapped.game.cells(state) != 0).sum()),
                 "legal": int(env.unwrapped.legal_mask().sum()),
                 "remaining": None if clock is None else clock.remaining}
        action = self.agent.act(env, clock=clock)
        analysis = self.agent.last_analysis
        entry["exact"] = bool(analysis is not None and analysis.exact)
        self.log.append(entry)
        return action


def run_reach(args: argparse.Namespace) -> dict[str, Any]:
    """Connect Four alpha-beta self-play under the clock: the share of exact moves by stones
    (of the moves with a choice: a single legal move is played unsearched, never exact)."""
    log: list[dict[str, Any]] = []
    a = _Recorder("a", AlphaBetaAgent(seed=1), log)
    b = _Recorder("b", AlphaBetaAgent(seed=2), log)
    play_match("connect_four", a, b, games=args.games, seed=args.seed, time_control=args.tc,
               opening_plies=2, progress=_progress(args.games))
    by_stones: dict[int, list[bool]] = defaultdict(list)
    for entry in log:
        if entry["legal"] > 1:
            by_stones[entry["stones"]].append(entry["exact"])
    shares = {s: float(np.mean(v)) for s, v in sorted(by_stones.items())}
    always = [s for s in shares if all(shares[t] == 1.0 for t in shares if t >= s)]
    rows = [[s, len(by_stones[s]), share] for s, share in shares.items()]
    _table(f"Connect Four alpha-beta under {args.tc}: exact moves by stones on the board",
           ["stones", "moves", "exact share"], rows)
    reach = min(always) if always else None
    print(f"every move exact from {reach} stones on")
    return {"tc": args.tc, "games": args.games, "exact_share_by_stones": shares,
            "exact_from_stones": reach}


def run_proofs(args: argparse.Namespace) -> dict[str, Any]:
    """The clocks match, one game at a time, with every move logged: how much of each
    agent's unused clock was still on it when its own result became exact (a proven game:
    no thinking after that can change a move), and the clock used over the time that
    could (the time it had less what was left at the proof)."""
    log: list[dict[str, Any]] = []
    agents = {"alphabeta": _Recorder("alphabeta", AlphaBetaAgent(seed=1), log),
              "mcts": _Recorder("mcts", MCTSAgent(seed=2), log)}
    match = play_match(args.game, agents["alphabeta"], agents["mcts"], games=args.games,
                       seed=args.seed, time_control=args.tc, opening_plies=4,
                       progress=_progress(args.games))
    moves_by_game: dict[tuple[str, int], list[dict[str, Any]]] = defaultdict(list)
    for entry in log:
        moves_by_game[entry["agent"], entry["game"]].append(entry)
    rows, out = [], {}
    for name, seat_of in (("alphabeta", lambda r: r.agent_a_seat),
                          ("mcts", lambda r: 1 - r.agent_a_seat)):
        used = had = left_at_proof = 0.0
        proven_early = 0
        for index, record in enumerate(match.records):
            seat = seat_of(record)
            spent = sum(record.clock_seconds[seat])
            used += spent
            had += spent + max(0.0, record.clock_left[seat])
            moves = moves_by_game[name, index]
            proof = next((k for k, e in enumerate(moves) if e["exact"]), None)
            if proof is not None:
                left_at_proof += max(0.0, moves[proof]["remaining"]
                                     - record.clock_seconds[seat][proof])
                proven_early += proof <= 1
        figures = {"used_share": used / had, "left_at_proof_share": left_at_proof / had,
                   "used_share_until_proof": used / (had - left_at_proof),
                   "proven_at_first_or_second_move": proven_early / len(match.records)}
        out[name] = figures
        rows.append([name, *figures.values()])
    _table(f"{args.game} under {args.tc}, {match.games} games: where the clock goes",
           ["agent", "clock used", "left when proven", "used until proven",
            "proven by 2nd move"], rows)
    return {"game": args.game, "tc": args.tc, "games": match.games, "seed": args.seed,
            "agents": out}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    ffo = commands.add_parser("ffo")
    ffo.add_argument("--time-limit", type=float, default=120.0)
    ffo.add_argument("--numbers", default="40-47")
    ffo.add_argument("--with-solver", action="store_true", help="also time the solver alone")
    ffo.add_argument("--agent", choices=("alphabeta", "mcts"), default="alphabeta")
    ffo.add_argument("--no-exact-solver", action="store_true",
                     help="the agent's own search alone (exact_solver=False)")
    for name in ("clocks", "allocation", "proofs"):
        sub = commands.add_parser(name)
        sub.add_argument("game", choices=["connect_four", "othello", "go"])
        sub.add_argument("--tc", default="10+0.1")
        sub.add_argument("--games", type=int, default=200 if name == "allocation" else 100)
        sub.add_argument("--seed", type=int, default=0)
        if name != "proofs":  # proofs logs every move in this process: one game at a time,
            sub.add_argument("--workers", type=int, default=1)  # all of them played here
            sub.add_argument("--store", default=None,
                             help="a results store: games are kept there and a rerun resumes")
    reach = commands.add_parser("reach")
    reach.add_argument("--tc", default="10+0.1")
    reach.add_argument("--games", type=int, default=20)
    reach.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", default=None, help="write the figures as JSON")
    args = parser.parse_args(argv)
    runners = {"ffo": run_ffo, "clocks": run_clocks, "allocation": run_allocation,
               "proofs": run_proofs, "reach": run_reach}
    figures = runners[args.command](args)
    if args.out:
        Path(args.out).write_text(json.dumps(figures, indent=2, default=float) + "\n")


if __name__ == "__main__":
    main()
