"""The ``boardzoo`` command: arena, play, train, label, bench, serve.

Run ``boardzoo --help`` or ``boardzoo COMMAND --help``.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import sys
import tempfile
import threading
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any, NamedTuple

from boardzoo.errors import BoardzooError, excerpt, missing_extra, os_reason
from boardzoo.executor import WorkerDiedError

DEFAULT_GAME = "connect_four"
#: what Ctrl-C (or SIGTERM) leaves behind, per command
INTERRUPTED = {
    "arena": "finished games are saved in the results store and a rerun resumes",
    "train": "the games and iterations finished are saved: --resume with the run folder "
    "continues",
    "label": "nothing was written (the labels are written at the end)",
    "play": "the game was abandoned",
    "bench": "no figures were written",
    "gtp": "the engine stopped",
    "uci": "the engine stopped",
    "serve": "the server stopped",
    "compile": "what finished compiling is cached and a rerun compiles the rest",
}


def _option_value(text: str) -> tuple[str, str]:
    """``--option KEY=VALUE``: the text is converted later by the game option's type."""
    from boardzoo.options import split_assignment

    try:
        return split_assignment(text)
    except BoardzooError as err:
        raise argparse.ArgumentTypeError(str(err)) from None


def _seed(text: str) -> int:
    """``--seed``: an integer >= 0 (numpy's generators take no negative seed)."""
    from boardzoo.options import parse_int

    seed = parse_int(text)
    if seed is None or not seed < 2**63:
        raise argparse.ArgumentTypeError(f"{excerpt(text)} is not a seed: use an integer >= 0")
    return seed


def _chosen_game(game: str, pairs: list[tuple[str, str]]) -> Any:
    """The Game named on the command line with its ``--option`` texts as typed game options
    (``heaps=3,4,5``, ``misere=false``), checked."""
    from boardzoo.envs import game_class, make_game
    from boardzoo.options import check_options, unique_assignments

    options = check_options(game_class(game), unique_assignments(pairs, "--option"), game,
                            from_text=True)
    return make_game(game, **options)  # ranges and combinations


def _add_game_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--option",
        action="append",
        type=_option_value,
        default=[],
        metavar="KEY=VALUE",
        help="game option, repeatable, e.g. --option board_size=7, --option heaps=3,4,5, "
        "--option misere=true",
    )


def _add_backend_options(parser: argparse.ArgumentParser, what: str) -> None:
    parser.add_argument(
        "--backend", choices=["local", "ray"], default="local",
        help=f"where {what} run: local processes (default) or Ray (pip install "
        "'boardzoo[ray]'; see docs/ray.md)",
    )
    parser.add_argument(
        "--ray-address", default=None, metavar="ADDR",
        help="the Ray cluster to use (e.g. 10.0.0.5:6379 or auto); default with --backend "
        "ray: a local Ray instance on loopback, shut down at the end",
    )


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="boardzoo",
        description="Two-player board games with planning agents: run tournaments, play "
        "against an agent in the terminal, measure speed.",
    )
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    arena = commands.add_parser(
        "arena",
        help="round-robin tournament with Elo ratings (default: the game's planners vs learners)",
        description="Round-robin tournament: every pair of agents plays --games games from "
        "random openings with both colours. Prints an Elo table (95 percent intervals) "
        "and saves ratings.csv/.json/.png and every game under --out.",
    )
    arena.add_argument(
        "game",
        nargs="?",
        default=None,
        help="game name (tictactoe, nim, connect_four, othello, go, gomoku, chess); "
        f"default: {DEFAULT_GAME}",
    )
    arena.add_argument(
        "--agents",
        default=None,
        help='space-separated agent specs, e.g. "random mcts:simulations=200 '
        'alphabeta:time_limit=0.1" (default: the game\'s round robin: random, its shipped '
        "PPO policy and AlphaZero network where it has them, alpha-beta at 0.05 s a move and "
        "MCTS at two budgets)",
    )
    arena.add_argument("--games", type=int, default=20, help="games per pair (default: 20)")
    arena.add_argument("--seed", type=_seed, default=0)
    arena.add_argument("--opening-plies", type=int, default=2)
    arena.add_argument(
        "--workers",
        type=int,
        default=min(2, os.cpu_count() or 1),
        help="parallel game processes (default: %(default)s)",
    )
    _add_backend_options(arena, "games")
    arena.add_argument(
        "--out",
        default="arena_results",
        help="directory for the results store (results.sqlite: a rerun resumes, several "
        "processes share it) and the ratings files (default: %(default)s)",
    )
    arena.add_argument(
        "--store",
        default=None,
        help="results store file (default: OUT/results.sqlite)",
    )
    arena.add_argument(
        "--tc",
        default=None,
        metavar="TIME_CONTROL",
        help='a clock for every game: "10+0.1" (base + increment, seconds), "40/300", '
        '"300+5x30" (byo-yomi), "5/move"; running out loses the game (see --on-time)',
    )
    arena.add_argument(
        "--on-time",
        choices=["lose", "warn"],
        default="lose",
        help="when a clock runs out: the player loses, or the record only says so "
        "(default: %(default)s)",
    )
    arena.add_argument(
        "--export",
        default="",
        metavar="FORMATS",
        help="also write the game records from the store, comma-separated formats: jsonl "
        "(one record per line), sgf (Go and Gomoku games), csv (one row per game), pgn "
        "(chess games)",
    )
    _add_game_options(arena)

    play = commands.add_parser(
        "play",
        help="play a game against an agent in the terminal",
        description="Play against an agent in the terminal. Enter moves in the game's "
        "notation (shown with the board), 'help' for the legal moves, 'quit' to stop.",
    )
    play.add_argument("game", help="game name")
    play.add_argument(
        "--opponent",
        default=None,
        help="agent spec, e.g. random or mcts:simulations=800 (default: the game's shipped "
        "AlphaZero network where it has one and torch is installed, else MCTS)",
    )
    play.add_argument(
        "--seat",
        type=int,
        choices=[0, 1],
        default=0,
        help="your seat: 0 moves first (default), 1 second",
    )
    play.add_argument("--seed", type=_seed, default=None)
    _add_game_options(play)

    training = commands.add_parser(
        "train",
        help="train an AlphaZero network by self-play (resumable)",
        description="AlphaZero self-play training. Writes checkpoints (latest.pt), the stored "
        "games, a CSV log, TensorBoard logs (if installed) and a training-curve plot under "
        "--out. Ctrl-C or a crash loses at most the games being played: --resume DIR "
        "continues. See docs/alphazero.md for every option of --config.",
    )
    training.add_argument("game", help="game name (tictactoe, nim, connect_four, othello, ...)")
    training.add_argument("--minutes", type=float, default=None, help="wall-time budget")
    training.add_argument("--iterations", type=int, default=None, help="iteration budget")
    training.add_argument("--out", default=None, help="run folder (default: runs/GAME)")
    training.add_argument("--config", default=None, help="JSON or TOML file of TrainConfig options")
    training.add_argument(
        "--resume", default=None, metavar="DIR",
        help="continue the run in DIR with its saved options; those this command names "
        "(--config's included) change them, except the network's shape, game options and seed",
    )
    training.add_argument("--workers", type=int, default=None, help="self-play processes")
    training.add_argument("--seed", type=_seed, default=None)
    training.add_argument(
        "--from-records", default=None, metavar="FILE",
        help="labelled positions (JSON Lines, see boardzoo label) to train on before self-play",
    )
    training.add_argument("--supervised-steps", type=int, default=None,
                          help="gradient steps of that warm start (default: ~4 passes)")
    training.add_argument(
        "--init-from", default=None, metavar="CHECKPOINT",
        help="a new run's network starts from this checkpoint (a file or a shipped name, e.g. "
        "connect_four); its game, options and blocks x channels must be the run's",
    )
    training.add_argument(
        "--learner", choices=["auto", "driver", "actor"], default=None,
        help="where the gradient steps run: this process, or a Ray actor (on a GPU node of "
        "the cluster when it has one); auto (default): that actor only when the cluster has "
        "a GPU and this machine has none",
    )
    _add_backend_options(training, "self-play")
    _add_game_options(training)

    label = commands.add_parser(
        "label",
        help="write solver-labelled positions for a supervised warm start",
        description="Positions from boardzoo's own random games, each move solved exactly: the "
        "labels are every strictly optimal move and the result. Connect Four (6x7) from "
        "--min-stones on; Othello (--board-size) from --max-empties empty squares on, by the "
        "endgame solver. Positions in --exclude files (Pons' format, e.g. "
        "tests/data/connect4/*, or OBF, e.g. tests/data/othello/*.obf) are skipped, "
        "symmetric images included.",
    )
    label.add_argument("game", choices=["connect_four", "othello"],
                       help="the game (its exact solver labels)")
    label.add_argument("--positions", type=int, default=1000)
    label.add_argument("--out", required=True, help="the JSON Lines file to write")
    label.add_argument("--seed", type=_seed, default=0)
    label.add_argument("--min-stones", type=int, default=None,
                       help="Connect Four: random moves before the first labelled position "
                       "(default 8)")
    label.add_argument("--board-size", type=int, default=None,
                       help="Othello: 6 (default) or 8")
    label.add_argument("--max-empties", type=int, default=None,
                       help="Othello: random moves until this many empty squares are left, "
                       "then every position labelled (default 14)")
    label.add_argument("--best-move-prob", type=float, default=0.5,
                       help="chance of an optimal move (else random) after that")
    label.add_argument("--exclude", action="append", default=[], metavar="FILE")
    label.add_argument("--max-nodes", type=int, default=None,
                       help="Connect Four: solver nodes per move before a position is skipped "
                       "(default 20,000,000, about 2 s: the same labels on any machine)")
    label.add_argument("--time-limit", type=float, default=None,
                       help="Connect Four: seconds per move instead of a node budget "
                       "(machine-dependent)")
    label.add_argument("--agent", default=None, metavar="SPEC",
                       help="Connect Four: positions from this agent's self-play (e.g. "
                       "alphazero:checkpoint=connect_four,simulations=200,exact_solver=False) "
                       "after --opening-plies random moves, its move where a random one "
                       "would be: the positions a strong player meets")
    label.add_argument("--opening-plies", type=int, default=4,
                       help="with --agent: random moves before its self-play (default 4)")

    gtp = commands.add_parser(
        "gtp",
        help="play Go as a GTP 2 engine on stdin/stdout (Sabaki, GoGui, twogtp)",
        description="A GTP version 2 engine on stdin/stdout: attach it to Sabaki or GoGui as "
        "'boardzoo gtp --size 9'. time_settings/kgs-time_settings/time_left run the "
        "engine's own clock (without them the agent's own budget per move applies). See "
        "docs/gtp.md for the commands, the rules, the clock and pondering.",
    )
    gtp.add_argument("--game", choices=["go"], default="go", help="the game (GTP is Go's)")
    gtp.add_argument("--agent", default=None,
                     help="agent spec (default: MCTS with the Go defaults, one tree per core)")
    gtp.add_argument("--size", type=int, default=19, help="board size at start (default 19)")
    gtp.add_argument("--komi", type=float, default=7.5)
    gtp.add_argument("--ko", default="positional",
                     choices=["positional", "situational", "simple", "none"])
    gtp.add_argument("--suicide", action="store_true", help="allow suicide (default: illegal)")
    gtp.add_argument("--resign-below", type=float, default=None, metavar="VALUE",
                     help="resign when the search value is below VALUE in [-1, 1] "
                     "(default: never resign)")
    gtp.add_argument("--ponder", action="store_true",
                     help="after its genmove, search the opponent's position until the next "
                     "command arrives (MCTS and AlphaZero agents; default: off)")
    gtp.add_argument("--move-time", type=float, default=None, metavar="SECONDS",
                     help="seconds per move while the controller sets no time, for an "
                     "agent spec without its own time_limit/simulations/depth (default 1; "
                     "0: the agent's own budget)")
    gtp.add_argument("--time-margin", type=float, default=None, metavar="SECONDS",
                     help="seconds kept back from the clock per move for the engine's own "
                     "work and the controller's lag (default 0.25)")
    gtp.add_argument("--seed", type=_seed, default=None)

    uci = commands.add_parser(
        "uci",
        help="play chess as a UCI engine on stdin/stdout (chess GUIs, cutechess-cli)",
        description="A UCI engine on stdin/stdout: add it to a chess GUI as the command "
        "'boardzoo uci'. go takes movetime, wtime/btime/winc/binc/movestogo, depth, nodes and "
        "infinite; see docs/uci.md.",
    )
    uci.add_argument("--agent", default=None,
                     help="agent spec (default: alphabeta, with chess's evaluation)")
    uci.add_argument("--seed", type=_seed, default=None)

    bench = commands.add_parser(
        "bench",
        help="speed figures as ratios against references measured in the same run",
        description="Runs the speed benchmarks (boardzoo.bench) and prints each "
        "figure next to its reference (PettingZoo, OpenSpiel, SB3, mctx) as a ratio, "
        "measured in turn after a warm-up, one row at a time under a progress line. The "
        "full run of every game takes about 90 minutes on a 2-core machine; "
        "--quick about one minute.",
    )
    bench.add_argument("game", nargs="?", default=None, help="only this game")
    bench.add_argument("--quick", action="store_true",
                       help="one repetition, shorter timings, without the heaviest "
                       "benchmarks (the table says which)")
    bench.add_argument("--repeats", type=int, default=None,
                       help="repetitions per figure, their median reported (default: 3; "
                       "--quick: 1)")
    bench.add_argument("--only", default=None, metavar="SUITE[,SUITE]",
                       help="only these benchmarks: envs, rl, two_player, mcts, alphazero, "
                       "labels, batched, startup (default: all)")
    bench.add_argument("--out", default=None, help="also write the table as JSON here")

    compiling = commands.add_parser(
        "compile",
        help="compile every kernel ahead, once per installation",
        description="Compile what the games' envs, agents and learners run and cache it on "
        "disk, so that no later process waits for numba before its first move. Once per "
        "installation (or after an upgrade); a filled cache makes it quick.",
    )
    compiling.add_argument("games", nargs="*", metavar="GAME",
                           help="the games to compile (default: every registered game)")
    compiling.add_argument("--for-this-cpu", action="store_true",
                           help="drop the compiled code the wheel shipped (built for any "
                           "x86-64-v2 CPU) and compile everything for this machine's CPU")

    serve = commands.add_parser(
        "serve",
        help="play any game against any agent in the browser (the web extra)",
        description="Serve the boardzoo page: pick a game and an opponent, play by clicking, "
        "watch the agent's search live. Binds to loopback; see docs/web.md.",
    )
    serve.add_argument("--host", default="127.0.0.1",
                       help="address to bind (default: %(default)s, this machine only)")
    serve.add_argument("--port", type=int, default=8000, help="default: %(default)s")
    serve.add_argument("--open", action="store_true", help="open the page in a browser")
    serve.add_argument("--allow-remote", action="append", default=[], metavar="NAME",
                       help="serve beyond this machine on purpose (with --host 0.0.0.0 or an "
                       "external address): NAME is the host name or address browsers will use; "
                       "repeatable")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    commands = {"arena": run_arena, "play": run_play, "train": run_train, "label": run_label,
                "serve": run_serve, "gtp": run_gtp, "uci": run_uci, "compile": run_compile,
                "bench": run_bench}
    in_main_thread = threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGTERM, _interrupt) if in_main_thread else None
    try:
        return commands[args.command](args)
    except ModuleNotFoundError as err:  # an optional dependency: name the extra
        missing = missing_extra(err, "this command")
        if missing is None:
            raise
        print(f"boardzoo {args.command}: error: {missing}", file=sys.stderr)
        return 2
    except BoardzooError as err:
        print(f"boardzoo {args.command}: error: {err}", file=sys.stderr)
        return 2
    except WorkerDiedError as err:
        print(f"boardzoo {args.command}: error: {err}; {INTERRUPTED[args.command]}",
              file=sys.stderr)
        return 1
    except OSError as err:  # the machine's, not the input's: a full disk, a lost connection
        where = f" ({err.filename})" if err.filename else ""
        print(f"boardzoo {args.command}: error: {os_reason(err)}{where}; "
              f"{INTERRUPTED[args.command]}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(f"\ninterrupted; {INTERRUPTED[args.command]}", file=sys.stderr)
        return 130
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)


def _interrupt(signum: int, frame: Any) -> None:
    """SIGTERM stops like Ctrl-C: finished games are stored, open claims given back."""
    raise KeyboardInterrupt


def run_compile(args: argparse.Namespace) -> int:
    from rich.console import Console

    from boardzoo.compiling import compile_games
    from boardzoo.envs import GAMES, game_class
    from boardzoo.numba_cache import cache_dir, unseed

    names = args.games or list(GAMES)
    for name in names:
        game_class(name)  # an unknown name: one line listing the games
    console = Console(stderr=True)
    if args.for_this_cpu:
        unseed()
    console.print(f"compiling {', '.join(names)} into {cache_dir()} (once per installation)")

    def done(name: str, seconds: float) -> None:
        console.print(f"  {name}: {seconds:.1f} s")

    with _compile_status(console, "compiling..."):
        seconds = compile_games(names, done)
    console.print(f"done in {seconds:.0f} s")
    return 0


@contextlib.contextmanager
def _compile_status(console: Any, text: str) -> Iterator[None]:
    """A status line showing ``text``, then what compiles (boardzoo.compile_progress) in
    place of the plain stderr lines; each finished unit printed above it (and, where the
    console is no terminal to show a status line, each unit as it starts too)."""
    from boardzoo import compile_progress

    with console.status(text) as status, compile_progress.quiet():

        def show(step: Any) -> None:
            if step.seconds is None:
                status.update(step.text())
            if step.seconds is not None or not console.is_terminal:
                console.print(f"  {step.text()}")

        with compile_progress.listening(show):
            yield


def run_arena(args: argparse.Namespace) -> int:
    from rich.console import Console
    from rich.progress import BarColumn, Progress, TextColumn, TimeRemainingColumn

    from boardzoo.arena import tournament
    from boardzoo.executor import make_executor
    from boardzoo.store import ResultsStore

    game, agents, formats, control = _checked_arena_arguments(args)
    _check_output(args.out, "--out", directory=True)
    if args.store:
        _check_output(args.store, "--store")
    out = Path(args.out) / game.name
    store_path = Path(args.store) if args.store else Path(args.out) / "results.sqlite"
    console = Console()
    pairs = len(agents) * (len(agents) - 1) // 2
    workers = min(args.workers, pairs * args.games)  # no process without a game to play
    with make_executor(args.backend, workers, args.ray_address) as executor, ResultsStore(
        store_path
    ) as store:  # (a cluster that cannot be reached leaves no store behind)
        clock = "" if control is None else f", clock {control} (on time: {args.on_time})"
        console.print(
            f"[bold]{game.name}[/]: {len(agents)} agents, {args.games} games per pair{clock}, "
            f"{workers} {args.backend} worker(s); games stored in {store_path} "
            "(a rerun resumes)"
        )
        with _compile_status(console, "preparing the agents (compiled once per installation)..."):
            _warm_up(game, agents.values())
        columns = (
            TextColumn("{task.description}"),
            BarColumn(),
            TextColumn("{task.completed}/{task.total} games"),
            TimeRemainingColumn(),
        )
        with Progress(*columns, console=console) as progress:
            task = progress.add_task(game.name, total=pairs * args.games)
            result = tournament(
                game,
                agents,
                games_per_pair=args.games,
                seed=args.seed,
                opening_plies=args.opening_plies,
                store=store,
                progress=lambda n: progress.advance(task, n),
                executor=executor,
                time_control=control,
                on_time=args.on_time,
            )
    result.table(console)
    if control is not None:
        _print_clock_use(console, result)
    paths = result.save(out) + result.export(out, formats)
    more = f" and {len(paths) - 6} more" if len(paths) > 6 else ""
    shown = ", ".join(str(p) for p in paths[:6]) + more
    console.print(f"saved {shown}")
    return 0


def _print_clock_use(console: Any, result: Any) -> None:
    """Per agent under a clock: losses on time and the share of its clock it used."""
    from boardzoo.arena import clock_use

    for name, use in clock_use(result).items():
        console.print(f"{name}: {use['time_losses']} loss(es) on time, "
                      f"{use['used_share']:.0%} of its clock used, "
                      f"{use['mean_move_seconds']:.3f} s per move")


class _ArenaRun(NamedTuple):
    game: Any
    agents: dict[str, Any]
    formats: list[str]
    control: Any


def _checked_arena_arguments(args: argparse.Namespace) -> _ArenaRun:
    """Every arena argument checked before anything is printed: the game and its options,
    the counts, the agents (built here) and the export formats."""
    from boardzoo.agents import make_agent
    from boardzoo.agents.defaults import default_agents
    from boardzoo.arena import MAX_GAMES, check_export_formats
    from boardzoo.errors import InvalidOptionError, MissingExtraError
    from boardzoo.executor import MAX_LOCAL_WORKERS, MAX_RAY_WORKERS
    from boardzoo.timecontrol import TimeControl

    game = _chosen_game(args.game or DEFAULT_GAME, args.option)
    workers = MAX_RAY_WORKERS if args.backend == "ray" else MAX_LOCAL_WORKERS
    for flag, value, least, most in (("--games", args.games, 1, MAX_GAMES),
                                     ("--workers", args.workers, 1, workers),
                                     ("--opening-plies", args.opening_plies, 0, 1000)):
        if not least <= value <= most:
            raise InvalidOptionError(f"{flag} {value}: use an integer in {least}..{most}")
    _check_backend(args)
    formats = [f.strip() for f in args.export.split(",") if f.strip()]
    try:
        check_export_formats(formats, game.name)
    except InvalidOptionError as err:
        raise InvalidOptionError(f"--export {args.export}: {err}") from None
    control = None if args.tc is None else TimeControl.parse(args.tc)
    specs = args.agents.split() if args.agents is not None else default_agents(game)
    names = _unique_names(specs)
    try:
        agents = {
            name: make_agent(spec, seed=args.seed + k)
            for k, (name, spec) in enumerate(zip(names, specs, strict=True))
        }
    except MissingExtraError as err:
        if args.agents is not None:
            raise
        raise MissingExtraError(f"{err} (the default --agents need pip install "
                                "'boardzoo[arena]')") from None
    if len(agents) < 2:
        raise InvalidOptionError(f"--agents {excerpt(args.agents)}: a tournament needs two or more")
    _check_agents_play(game, agents)
    return _ArenaRun(game, agents, formats, control)


def _check_agents_play(game: Any, agents: dict[str, Any]) -> None:
    """InvalidOptionError naming the agent, before anything runs, where one cannot play
    ``game`` (a network trained for other rules)."""
    from boardzoo.agents import check_agent_plays
    from boardzoo.errors import InvalidOptionError

    for name, agent in agents.items():
        try:
            check_agent_plays(agent, game)
        except InvalidOptionError as err:
            raise InvalidOptionError(f"agent {name}: {err}") from None


def _warm_up(game: Any, agents: Any) -> None:
    """One move by a copy of every agent, so the compiled kernels are built (and cached on
    disk for the worker processes) while the status line says so, not under the bar."""
    import copy

    from boardzoo.envs import BoardGameEnv

    for agent in agents:
        env = BoardGameEnv(game, illegal_action="raise")
        env.reset()
        copy.deepcopy(agent).act(env)


def _check_backend(args: argparse.Namespace) -> None:
    from boardzoo.errors import InvalidOptionError

    if args.ray_address is not None and args.backend != "ray":
        raise InvalidOptionError(f"--ray-address {args.ray_address}: use it with --backend ray")


def run_train(args: argparse.Namespace) -> int:
    import torch

    from boardzoo.options import unique_assignments
    from boardzoo.training import TrainConfig, train

    torch.set_num_threads(1)
    _check_backend(args)
    values = TrainConfig.read_options(args.config) if args.config else {}
    flags = {"minutes": args.minutes, "iterations": args.iterations, "workers": args.workers,
             "seed": args.seed, "from_records": args.from_records,
             "supervised_steps": args.supervised_steps, "init_from": args.init_from,
             "learner": args.learner}
    values.update({k: v for k, v in flags.items() if v is not None})
    if args.iterations is not None and args.minutes is None:
        values["minutes"] = None  # an iteration budget alone
    if args.option:
        values["game_options"] = {**values.get("game_options", {}),
                                  **unique_assignments(args.option, "--option")}
    common = {"backend": args.backend, "ray_address": args.ray_address}
    if args.resume is not None:  # the run's saved config, with what this command names changed
        run = train(args.game, None, out=args.resume, resume=True, changes=values, **common)
    else:
        out = args.out or f"runs/{args.game}"
        _check_output(out, "--out", directory=True)
        run = train(args.game, TrainConfig.from_dict(values), out=out, **common)
    print(f"{run.iteration} iterations, {run.step} training steps, {run.games} games stored; "
          f"checkpoint {run.checkpoint}, curve {run.out / 'curve.png'}")
    return 0


def run_label(args: argparse.Namespace) -> int:
    from rich.progress import track

    from boardzoo.errors import InvalidOptionError
    from boardzoo.training.labels import position_keys, write_labels

    if args.positions < 1 or not 0 <= args.best_move_prob <= 1:
        raise InvalidOptionError("--positions must be >= 1 and --best-move-prob in 0..1")
    _check_output(args.out, "--out")  # before the solving, not after it
    if args.game == "othello":
        labels, game = _othello_labels(args)
    else:
        labels, game = _connect_four_labels(args)
    exclude = position_keys(game, args.exclude)
    count = write_labels(track(labels(exclude), total=args.positions, description="solving"),
                         args.out)
    noun = "position" if count == 1 else "positions"
    print(f"{count} labelled {noun} in {args.out}; none of the {len(exclude)} positions "
          "of --exclude among them (symmetric images included)")
    return 0


def _check_output(path: str, option: str, directory: bool = False) -> None:
    """Make ``path`` ready before the long work, not after it: its folder (for a file) or
    itself (``directory``) created and writable; an InvalidOptionError naming ``option``
    when it cannot be: a directory where a file goes or the other way round, a path under
    a file, or a folder that cannot be written."""
    from boardzoo.errors import InvalidOptionError

    target = Path(path)
    if target.exists() and target.is_dir() != directory:
        found, wanted = ("a file", "a directory") if directory else (
            "a directory", "a file name in it")
        raise InvalidOptionError(f"{option} {path!r} is {found}; give {wanted}")
    blocking = [parent for parent in target.parents if parent.exists() and not parent.is_dir()]
    if blocking:
        raise InvalidOptionError(f"{option} {path!r}: {str(blocking[0])!r} is a file, not a "
                                 "directory")
    folder = target if directory else target.parent
    missing = [part for part in (folder, *folder.parents) if not part.exists()]
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=folder):
            pass
    except OSError as err:
        raise InvalidOptionError(f"{option} {path!r} cannot be written "
                                 f"({os_reason(err)})") from None
    finally:  # no trace of the check: the work makes its folders when it has output
        for made in missing:
            with contextlib.suppress(OSError):
                made.rmdir()


def _connect_four_labels(args: argparse.Namespace) -> tuple[Callable, Any]:
    """(exclude -> the labels, the game) for `boardzoo label connect_four`, options checked."""
    from boardzoo.agents import make_agent
    from boardzoo.envs import make_game
    from boardzoo.errors import InvalidOptionError
    from boardzoo.training.labels import LABEL_MAX_NODES, label_connect_four

    if args.board_size is not None or args.max_empties is not None:
        raise InvalidOptionError(
            "--board-size and --max-empties are Othello's; Connect Four takes --min-stones, "
            "--max-nodes or --time-limit")
    min_stones = 8 if args.min_stones is None else args.min_stones
    if not 4 <= min_stones <= 40:
        raise InvalidOptionError("--min-stones must be in 4..40")
    if (args.max_nodes is not None and args.max_nodes < 1) or (
            args.time_limit is not None and args.time_limit <= 0):
        raise InvalidOptionError("--max-nodes must be >= 1 and --time-limit > 0")
    if args.max_nodes is not None and args.time_limit is not None:
        raise InvalidOptionError("give --max-nodes or --time-limit, not both")
    budget = ({"time_limit": args.time_limit, "max_nodes": None} if args.time_limit
              else {"max_nodes": args.max_nodes or LABEL_MAX_NODES})
    if not 0 <= args.opening_plies <= min_stones:
        raise InvalidOptionError(f"--opening-plies must be in 0..{min_stones} (--min-stones)")
    agent = None
    if args.agent is not None:
        import torch

        torch.set_num_threads(1)  # one search at a time: a second thread only contends (2-10x)
        agent = make_agent(args.agent, seed=args.seed)

    def labels(exclude: set[bytes]) -> Iterator[dict]:
        return label_connect_four(args.positions, args.seed, min_stones, exclude,
                                  best_move_prob=args.best_move_prob, agent=agent,
                                  opening_plies=args.opening_plies, **budget)

    return labels, make_game("connect_four")


def _othello_labels(args: argparse.Namespace) -> tuple[Callable, Any]:
    """(exclude -> the labels, the game) for `boardzoo label othello`, options checked."""
    from boardzoo.envs import make_game
    from boardzoo.errors import InvalidOptionError
    from boardzoo.training.labels import label_othello

    if (args.min_stones is not None or args.max_nodes is not None
            or args.time_limit is not None or args.agent is not None):
        raise InvalidOptionError(
            "--min-stones, --max-nodes, --time-limit and --agent are Connect Four's; Othello "
            "takes --board-size and --max-empties (its solver always finishes)")
    size = 6 if args.board_size is None else args.board_size
    max_empties = 14 if args.max_empties is None else args.max_empties
    if size not in (6, 8):
        raise InvalidOptionError(
            f"--board-size {size}: Othello labels are for board size 6 or 8")
    if not 1 <= max_empties <= 20:
        raise InvalidOptionError(
            f"--max-empties {max_empties}: give 1..20 (an exact solve at 20 empties takes "
            "about a second on 6x6, far longer on 8x8)")

    def labels(exclude: set[bytes]) -> Iterator[dict]:
        return label_othello(args.positions, args.seed, size, max_empties, exclude,
                             args.best_move_prob)

    return labels, make_game("othello", board_size=size)


def _unique_names(specs: list[str]) -> list[str]:
    """Agent names for the table: the spec itself, numbered when a spec repeats."""
    names = []
    for spec in specs:
        name = spec
        k = 2
        while name in names:
            name, k = f"{spec}#{k}", k + 1
        names.append(name)
    return names


#: what :func:`_ask_move` returns when the person resigns a Go game
RESIGN = -1


def run_play(args: argparse.Namespace) -> int:
    from boardzoo.agents import make_agent
    from boardzoo.agents.defaults import default_opponent
    from boardzoo.envs import BoardGameEnv
    from boardzoo.envs.aec import AGENTS

    game = _chosen_game(args.game, args.option)
    env = BoardGameEnv(game, render_mode="ansi", illegal_action="raise")
    spec = args.opponent or default_opponent(game)
    opponent = make_agent(spec, seed=args.seed)
    _check_agents_play(game, {spec: opponent})
    _warm_up(game, [opponent])  # compiled before the human's first move
    env.reset(seed=args.seed)
    human, names = f"player_{args.seat}", game.seat_names
    print(
        f"You are {names[args.seat]} ({env.game.piece_symbols[args.seat + 1]}), against "
        f"{spec}. Type a move, 'help' for legal moves, 'quit' to stop"
        + (", 'resign' to resign." if game.name == "go" else ".")
    )
    for agent in env.agent_iter():
        _, _, termination, truncation, _ = env.last(observe=False)
        if termination or truncation:
            env.step(None)
            continue
        if agent == human:
            print(env.render())
            action = _ask_move(env)
            if action == RESIGN:
                from boardzoo.knowledge.go.scoring import winner_text

                print(f"{names[args.seat]} resigns. Result: {winner_text(1 - args.seat, 'R')}")
                return 0
            if action is None:
                return 0
        else:
            action = opponent.act(env)
            label = env.game.move_label(env.state_array, action)
            print(f"{names[AGENTS.index(agent)]} plays {label}")
        env.step(action)
    print(env.render())
    if game.name == "go":
        from boardzoo.knowledge.go.scoring import score_report

        print(f"Result: {score_report(game, env.state_array)}")
    return 0


def _ask_move(env: Any) -> int | None:
    from boardzoo.errors import IllegalActionError

    while True:
        try:
            text = input("your move> ").strip()
        except EOFError:
            return None
        if text in ("quit", "exit", "q"):
            return None
        if text == "resign" and env.game.name == "go":
            return RESIGN
        legal = [env.game.move_label(env.state_array, a) for a in env.legal_mask().nonzero()[0]]
        if text in ("help", "?", ""):
            print("legal moves:", " ".join(legal))
            continue
        try:
            action = env.str_to_action(text)
            env.game.check_action(env.state_array, action)
            return action
        except IllegalActionError as err:
            print(f"{err} ('help' lists every legal move)")


def run_serve(args: argparse.Namespace) -> int:
    from boardzoo.errors import InvalidOptionError

    if not 0 < args.port < 65536:
        raise InvalidOptionError(f"--port {args.port}: use 1..65535")
    try:
        import starlette  # noqa: F401 - the web extra's libraries
        import uvicorn  # noqa: F401
    except ImportError as err:
        raise InvalidOptionError(
            f"boardzoo serve needs the web extra: pip install 'boardzoo[web]' ({err})") from None
    from boardzoo.web import serve

    serve(args.host, args.port, open_browser=args.open, allow_remote=args.allow_remote)
    return 0


def run_gtp(args: argparse.Namespace) -> int:
    from boardzoo.gtp.clock import TIME_MARGIN
    from boardzoo.gtp.engine import DEFAULT_MOVE_TIME, GoGtpEngine
    from boardzoo.gtp.serve import serve

    engine = GoGtpEngine(
        agent=args.agent,
        board_size=args.size,
        komi=args.komi,
        ko=args.ko,
        suicide=args.suicide,
        seed=args.seed,
        resign_below=args.resign_below,
        ponder=args.ponder,
        time_margin=TIME_MARGIN if args.time_margin is None else args.time_margin,
        move_time=DEFAULT_MOVE_TIME if args.move_time is None else (args.move_time or None),
    )
    serve(engine)
    return 0


def run_uci(args: argparse.Namespace) -> int:
    from boardzoo.uci import UciEngine, serve

    serve(UciEngine(agent=args.agent, seed=args.seed))
    return 0


def run_bench(args: argparse.Namespace) -> int:
    from boardzoo.bench.run import main as bench_main
    from boardzoo.errors import InvalidOptionError

    if args.repeats is not None and not 1 <= args.repeats <= 1000:
        raise InvalidOptionError(f"--repeats {args.repeats}: use an integer in 1..1000")
    if args.out is not None:
        _check_output(args.out, "--out")
    only = [name.strip() for name in args.only.split(",")] if args.only else None
    return bench_main(game=args.game, quick=args.quick, repeats=args.repeats, out=args.out,
                      only=only)


if __name__ == "__main__":
    sys.exit(main())
