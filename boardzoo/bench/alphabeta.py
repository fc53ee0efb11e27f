"""Chess alpha-beta speed: the default ``AlphaBetaAgent``'s nodes per second, searching the
positions of :data:`POSITIONS` to a fixed depth, against Stockfish's single-thread nodes per
second on the same positions (Debian's ``stockfish``, driven over UCI, ``Threads 1``,
``Hash 16``, a fixed node budget per position). Both are wall-clock rates measured in turn:
Stockfish runs in a process of its own. Without Stockfish the row says so and has no
reference."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Callable

from boardzoo.bench.common import Benchmark, Row, Settings, interleaved_rates, rate

#: middlegame and endgame test positions (FEN): the start, two book middlegames, Kiwipete
#: (the perft test position), a rook endgame and a king-and-pawn endgame
POSITIONS = (
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "r1bqkb1r/1ppp1ppp/p1n2n2/4p3/B3P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 5",
    "rnbqk2r/pppp1ppp/4pn2/8/1bPP4/2N5/PP2PPPP/R1BQKBNR w KQkq - 2 4",
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "8/5pk1/6p1/R7/5P2/r5P1/6K1/8 w - - 0 1",
    "8/8/4k3/8/2P5/4K3/8/8 w - - 0 1",
)
#: boardzoo's search depth (plies) and Stockfish's node budget, per position
DEPTH = 5
STOCKFISH_NODES = 50_000
_STOCKFISH_FALLBACK = "/usr/games/stockfish"  # Debian's package puts it outside the usual PATH


def find_stockfish() -> str | None:
    """The Stockfish executable: on PATH or Debian's /usr/games/stockfish; None when absent."""
    found = shutil.which("stockfish")
    if found:
        return found
    return _STOCKFISH_FALLBACK if os.access(_STOCKFISH_FALLBACK, os.X_OK) else None


def ours_search(depth: int = DEPTH) -> Callable[[], int]:
    """A depth-``depth`` search from every position per call; its units are the nodes."""
    from boardzoo.agents import AlphaBetaAgent
    from boardzoo.envs import make_env

    envs = []
    for fen in POSITIONS:
        env = make_env("chess")
        env.reset(options={"position": fen})
        envs.append(env)
    agent = AlphaBetaAgent(depth=depth, seed=0, solver=False)
    return lambda: sum(agent.search(env).nodes for env in envs)


class Stockfish:
    """A Stockfish process spoken to over UCI, one thread and a 16 MB table."""

    def __init__(self, path: str):
        self.process = subprocess.Popen([path], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        text=True, bufsize=1)
        self.name = "Stockfish"
        for line in self.ask("uci", "uciok"):
            if line.startswith("id name "):
                self.name = line.removeprefix("id name ")
        self.send("setoption name Threads value 1")
        self.send("setoption name Hash value 16")
        self.ask("isready", "readyok")

    def send(self, command: str) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(command + "\n")

    def ask(self, command: str, last: str) -> list[str]:
        """Send ``command`` and read lines up to the one starting with ``last``."""
        assert self.process.stdout is not None
        self.send(command)
        lines = []
        while True:
            line = self.process.stdout.readline()
            if not line:
                raise RuntimeError(f"Stockfish ended while answering {command!r}")
            lines.append(line.strip())
            if line.startswith(last):
                return lines

    def nodes(self, fen: str, budget: int) -> int:
        """The nodes Stockfish searched from ``fen`` given ``budget`` nodes."""
        self.send(f"position fen {fen}")
        searched = 0
        for line in self.ask(f"go nodes {budget}", "bestmove"):
            words = line.split()
            if words[:1] == ["info"] and "nodes" in words:
                searched = int(words[words.index("nodes") + 1])
        return searched

    def close(self) -> None:
        """Quit, closing both pipes."""
        self.process.communicate("quit\n", timeout=10)


def stockfish_search(engine: Stockfish) -> Callable[[], int]:
    """A :data:`STOCKFISH_NODES` search from every position per call; units are nodes."""
    return lambda: sum(engine.nodes(fen, STOCKFISH_NODES) for fen in POSITIONS)


def bench_alphabeta(game: str, settings: Settings) -> list[Row]:
    figure = f"alpha-beta to depth {DEPTH}, {len(POSITIONS)} positions"
    path = find_stockfish()
    if path is None:
        return [Row(game, figure, "nodes/s", rate(ours_search(), settings), None,
                    "Stockfish not found (Debian: apt-get install stockfish)")]
    engine = Stockfish(path)
    try:
        m = interleaved_rates(ours_search(), stockfish_search(engine), settings)
    finally:
        engine.close()
    return [Row(game, figure, "nodes/s", m.ours, m.theirs,
                f"{engine.name}, 1 thread, {STOCKFISH_NODES:,} nodes a position", None,
                "wall-clock rates, in turn", spread=m.spread)]


BENCHMARKS = [Benchmark(bench_alphabeta, "alpha-beta nodes/s", ("chess",))]
