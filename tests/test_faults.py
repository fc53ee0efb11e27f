"""The faults a reliability probe found, each replayed as a hostile or careless user would:
every one ends in a clean one-line error that says what was wrong (or in the right result),
with a non-zero exit status from the command line, and nothing stored is lost or overwritten.

Cases that could crash or exhaust the process (a forged snapshot, a memory-bomb checkpoint
header, a killed worker) run in child processes, under a memory limit where allocation is
the fault. Damaged snapshots in bulk are fuzzed in ``test_snapshots.py``.
"""

from __future__ import annotations

import csv
import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from boardzoo.agents import RandomAgent, make_agent
from boardzoo.arena import GameRecord, MatchResult, TournamentResult, play_match, tournament
from boardzoo.cli import main as cli_main
from boardzoo.envs import GAMES, make_env
from boardzoo.errors import (
    MAX_MESSAGE,
    BoardzooError,
    CheckpointError,
    IllegalActionError,
    InvalidOptionError,
    InvalidPositionError,
    ResetNeededError,
    StoreError,
)
from boardzoo.store import ResultsStore

ROOT = Path(__file__).resolve().parents[1]
MEGABYTE = "X" * 1_000_000


def _child(code: str, *args: str, timeout: float = 300) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code), *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=timeout)


def _one_line(message: str) -> str:
    assert "\n" not in message.strip() and "Traceback" not in message, message[-2000:]
    assert len(message) <= MAX_MESSAGE + 100, len(message)
    return message


def _cli_error(capsys, argv: list[str], status: int = 2) -> str:
    """The one line ``boardzoo ARGV`` writes to stderr, after checking its exit status."""
    assert cli_main(argv) == status
    return _one_line(capsys.readouterr().err.strip())


# ------------------------------------------------------------------- forged snapshots
FORGED_KEYS = """
    import json
    import numpy as np
    from boardzoo.envs import make_env
    from boardzoo.errors import IncompatibleSnapshotError
    from tests.snapshot_fuzz import FUZZ_GAMES

    games = [*FUZZ_GAMES, ("go", {"board_size": 19}), ("othello", {"board_size": 8}),
             ("othello", {"board_size": 4}), ("connect_four", {"rows": 7, "columns": 6})]
    envs = [make_env(name, **options) for name, options in games]
    rng = np.random.default_rng(0)
    for env in envs:
        env.reset()
        for _ in range(4):
            legal = np.flatnonzero(env.legal_mask())
            if legal.size:
                env.step(int(rng.choice(legal)))
    counts = {"pairs": 0, "refused": 0, "accepted": []}
    for i, source in enumerate(envs):
        snapshot = source.clone_state()  # this process's own, sealed for its own game
        for j, target in enumerate(envs):
            if i == j:
                continue
            counts["pairs"] += 1
            before = target.position()
            try:
                target.restore_state(snapshot._replace(game_key=target.game.key))
            except IncompatibleSnapshotError:
                counts["refused"] += target.position() == before
                continue
            counts["accepted"].append([games[i], games[j]])
            for _ in range(3):  # what segfaulted: a few steps on the foreign array
                legal = np.flatnonzero(target.legal_mask())
                if legal.size:
                    target.step(int(legal[0]))
    print(json.dumps(counts))
"""


def test_a_snapshot_relabelled_as_another_game_is_refused_for_every_pair():
    """A sealed array of one game restored under another game's key (Go 19x19 into 5x5
    segfaulted; Othello 4x4 into 8x8 and Connect Four into Othello played on)."""
    child = _child(FORGED_KEYS)
    assert child.returncode == 0, child.stderr[-2000:]
    counts = json.loads(child.stdout)
    assert counts["pairs"] == 12 * 11 and not counts["accepted"], counts
    assert counts["refused"] == counts["pairs"]  # and each target env is as it was


# -------------------------------------------------------------------- checkpoint files
@pytest.fixture(scope="module")
def forged_checkpoints(tmp_path_factory) -> dict[str, Path]:
    """The shipped tic-tac-toe network's file with one header field forged per case."""
    torch = pytest.importorskip("torch")
    from boardzoo.agents.alphazero.checkpoint import resolve_checkpoint
    from boardzoo.torch_files import safe_torch_load

    good = safe_torch_load(resolve_checkpoint("tictactoe"))
    network = json.loads(good["network"])
    cases = {
        "declared 100000 blocks": {"network": json.dumps({**network, "blocks": 100_000,
                                                          "channels": 512})},
        "declared 40 x 512 within bounds": {"network": json.dumps({**network, "blocks": 40,
                                                                   "channels": 512})},
        "10**7 channels": {"network": json.dumps({**network, "channels": 10**7})},
        "step 'abc'": {"step": "abc"},
        "meta 100k deep": {"meta": "[" * 100_000 + "]" * 100_000},
        "meta 40 deep": {"meta": '{"a": ' + "[" * 40 + "]" * 40 + "}"},
        "weights a list": {"weights": [1, 2]},
    }
    folder = tmp_path_factory.mktemp("forged")
    paths = {}
    for number, (name, change) in enumerate(cases.items()):
        paths[name] = folder / f"forged{number}.pt"
        torch.save({**good, **change}, paths[name])
    paths["good"] = resolve_checkpoint("tictactoe")
    return paths


LOAD_UNDER_A_MEMORY_LIMIT = """
    import json, resource, sys
    import torch
    torch.set_num_threads(1)
    from boardzoo.agents import make_agent
    from boardzoo.agents.alphazero.checkpoint import load_checkpoint
    from boardzoo.errors import BoardzooError

    def virtual_bytes():
        with open("/proc/self/status") as fh:
            line = next(line for line in fh if line.startswith("VmSize:"))
        return int(line.split()[1]) * 1024

    good = sys.argv[-1]
    load_checkpoint(good), make_agent(f"alphazero:checkpoint={good!r}")  # imports, compiles
    # 300 MB to spare: the shipped network needs a few, the forged 40 x 512 one 750
    _, hard = resource.getrlimit(resource.RLIMIT_AS)
    resource.setrlimit(resource.RLIMIT_AS, (virtual_bytes() + 300 * 2**20, hard))
    results = []
    for path in sys.argv[1:]:
        for load in (load_checkpoint, lambda p: make_agent(f"alphazero:checkpoint={p!r}")):
            try:
                load(path)
                results.append("loaded")
            except BoardzooError as err:
                results.append(f"refused: {err}")
            except MemoryError:
                results.append("MemoryError")
    print(json.dumps(results))
"""


def test_forged_checkpoint_headers_are_refused_before_any_allocation(forged_checkpoints):
    """Under a memory limit 300 MB above the loader's needs, every forged header is a
    one-line CheckpointError (directly and through an agent spec), and the real file loads."""
    names = list(forged_checkpoints)  # "good" last
    child = _child(LOAD_UNDER_A_MEMORY_LIMIT, *(str(forged_checkpoints[n]) for n in names))
    assert child.returncode == 0, child.stderr[-2000:]
    results = json.loads(child.stdout)
    outcome = dict(zip(names, zip(results[::2], results[1::2], strict=True), strict=True))
    assert outcome.pop("good") == ("loaded", "loaded")
    expected = {
        "declared 100000 blocks": "network blocks=100000; give an integer in 0..40",
        "declared 40 x 512 within bounds": "stem.0.weight is [32, 3, 3, 3] in the file, "
                                           "[512, 3, 3, 3] in that network",
        "10**7 channels": "network channels=10000000; give an integer in 1..512",
        "step 'abc'": "'step' is 'abc', not an integer",
        "meta 100k deep": "'meta' is not JSON (it nests too deep)",
        "meta 40 deep": "'meta' nests deeper than 32 levels",
        "weights a list": "'weights' is [1, 2], not a table",
    }
    for name, (direct, through_agent) in outcome.items():
        for result in (direct, through_agent):
            assert result.startswith("refused: ") and expected[name] in result, (name, result)
            _one_line(result)


def test_a_ppo_checkpoint_with_unknown_fields_is_refused(tmp_path):
    torch = pytest.importorskip("torch")
    pytest.importorskip("sb3_contrib")
    from boardzoo.agents.ppo import checkpoint_path
    from boardzoo.torch_files import safe_torch_load

    good = safe_torch_load(checkpoint_path("tictactoe"))
    for field, value, words in (("observation", "bogus", "observation is 'bogus'"),
                                ("net_arch", [10**6, 10**6], "net_arch is [1000000, 1000000]"),
                                ("features_dim", 10**9, "features_dim is 1000000000")):
        path = tmp_path / f"{field}.pt"
        torch.save({**good, field: value}, path)
        with pytest.raises(CheckpointError, match="malformed boardzoo PPO checkpoint") as err:
            make_agent(f"ppo:checkpoint={str(path)!r}")
        assert words in _one_line(str(err.value))


# --------------------------------------------------------------------- training runs
TINY = dict(minutes=None, iterations=1, blocks=1, channels=8, games_per_iteration=2,
            parallel_games=2, simulations=4, fast_simulations=2, batch_size=4,
            replay_window=100, eval_every=0, train_steps_per_iteration=1)


@pytest.fixture(scope="module")
def trained_run(tmp_path_factory) -> Path:
    """A finished one-iteration tic-tac-toe run folder (copied by each test that damages it)."""
    pytest.importorskip("torch")
    from boardzoo.training import TrainConfig, train

    out = tmp_path_factory.mktemp("runs") / "ttt"
    train("tictactoe", TrainConfig(**TINY), out=out, progress=False)
    return out


def _copy(run: Path, tmp_path: Path) -> Path:
    copy = tmp_path / "run"
    shutil.copytree(run, copy)
    return copy


def _files(run: Path) -> dict[str, bytes]:
    """Every file of a run folder and its bytes (the store through its games)."""
    found = {p.name: p.read_bytes() for p in run.iterdir()
             if p.is_file() and not p.name.startswith("results.sqlite")}
    if (run / "results.sqlite").exists():
        with ResultsStore(run / "results.sqlite", read_only=True) as store:
            found["games"] = json.dumps(
                {m: store.records(m) for m, _ in store.matches()}, sort_keys=True).encode()
    return found


def test_resuming_a_run_without_its_state_is_refused_and_overwrites_nothing(
        trained_run, tmp_path, capsys):
    """``train --resume`` on a folder that lost state.pt started a fresh network, relabelled
    the old games as its own and overwrote the trained latest.pt."""
    run = _copy(trained_run, tmp_path)
    (run / "state.pt").unlink()
    before = _files(run)
    error = _cli_error(capsys, ["train", "tictactoe", "--resume", str(run)])
    assert "state.pt is missing, but latest.pt, log.csv are there" in error
    assert "--out NEW_FOLDER" in error and "--init-from" in error
    assert _files(run) == before
    # a new run over it is refused too: a trained network is overwritten only by its own run
    error = _cli_error(capsys, ["train", "tictactoe", "--iterations", "1", "--out", str(run)])
    assert "already holds a training run (config.json, latest.pt, log.csv)" in error
    assert _files(run) == before


def _state(run: Path) -> dict:
    from boardzoo.torch_files import safe_torch_load

    return safe_torch_load(run / "state.pt")


@pytest.mark.parametrize("damage, words", [
    ("game connect_four", "is the training state of a run of 'connect_four', not of "
                          "'tictactoe'"),
    ("iteration 'x'", "is damaged: its iteration is 'x', not a number >= 0"),
    ("wrong-shape weights", "does not fit this run's network: Error(s) in loading state_dict"),
    ("no results.sqlite", "the run's games (results.sqlite) are missing"),
    ("garbage log.csv", "is not a readable CSV log (UnicodeDecodeError)"),
    ("foreign log.csv", "is not a log this training wrote"),
])
def test_a_damaged_run_folder_is_refused_in_one_line(trained_run, tmp_path, capsys, damage,
                                                      words):
    import torch

    run = _copy(trained_run, tmp_path)
    state = _state(run)
    if damage == "game connect_four":
        torch.save({**state, "game": "connect_four"}, run / "state.pt")
    elif damage == "iteration 'x'":
        torch.save({**state, "iteration": "x"}, run / "state.pt")
    elif damage == "wrong-shape weights":
        weights = {k: torch.zeros(*v.shape[:-1], v.shape[-1] + 1) if v.dim() else v
                   for k, v in state["weights"].items()}
        torch.save({**state, "weights": weights}, run / "state.pt")
    elif damage == "no results.sqlite":
        for path in run.glob("results.sqlite*"):
            path.unlink()
    elif damage == "garbage log.csv":
        (run / "log.csv").write_bytes(np.random.default_rng(0).bytes(300))
    else:
        (run / "log.csv").write_text("a,b\n1,2,3\n")
    before = _files(run)
    error = _cli_error(capsys, ["train", "tictactoe", "--resume", str(run)])
    assert words in error, error
    assert _files(run) == before  # nothing written, no store made where there was none
    assert (run / "results.sqlite").exists() == (damage != "no results.sqlite")


# ------------------------------------------------------------------------------ arena
@pytest.mark.parametrize("argv, words", [
    (["--games", "1000000000"], "--games 1000000000: use an integer in 1..10000"),
    (["--workers", "10000"], "--workers 10000: use an integer in 1..256"),
    (["--agents", "mcts:simulations=50,simulations=60 random"],
     "sets simulations twice (simulations='50' and simulations='60')"),
    (["--agents", f"random {MEGABYTE}"], "unknown agent 'XXXXXXXX"),
    (["--backend", "ray", "--ray-address", "127.0.0.1:9"],
     "Ray address 127.0.0.1:9: nothing answers there (Connection refused)"),
])
def test_arena_arguments_out_of_bounds_are_one_line_errors(tmp_path, capsys, argv, words):
    if "ray" in argv:
        pytest.importorskip("ray")
    args = ["arena", "tictactoe", "--agents", "random random", "--out", str(tmp_path / "o")]
    assert words in _cli_error(capsys, args + argv)
    assert not (tmp_path / "o").exists()  # refused before anything was built or written


@pytest.mark.parametrize("command", [["arena", "tictactoe"], ["gtp"], ["play", "nim"]])
def test_a_negative_seed_is_a_usage_error(capsys, command):
    with pytest.raises(SystemExit) as stop:
        cli_main([*command, "--seed", "-1"])
    assert stop.value.code == 2
    assert "argument --seed: '-1' is not a seed: use an integer >= 0" in capsys.readouterr().err
    with pytest.raises(InvalidOptionError, match="seed=-1: use an integer >= 0"):
        play_match("nim", RandomAgent(), RandomAgent(), games=2, seed=-1)
    with pytest.raises(InvalidOptionError, match="seed=-1; use an integer >= 0"):
        make_agent("random:seed=-1")


def _match(store, games: int, **kwargs) -> MatchResult:
    return play_match("tictactoe", RandomAgent(), RandomAgent(), games=games, seed=3,
                      store=store, **kwargs)


@pytest.mark.parametrize("record, words", [
    ("{not json", "is damaged (not a JSON object)"),
    ('{"index": 0}', "is not a game record (it lacks agent_a_seat, moves, opening, returns, "
                     "score)"),
])
def test_a_damaged_store_record_is_refused_before_any_game_is_played(tmp_path, record, words):
    path = tmp_path / "results.sqlite"
    _match(path, 4)
    with sqlite3.connect(path) as db:
        db.execute("UPDATE games SET record = ? WHERE game_id = '1'", (record,))
    db.close()
    with pytest.raises(StoreError, match="left as it is") as err:
        _match(path, 6)  # two more games asked for: none may be played before the refusal
    assert words in _one_line(str(err.value))
    with ResultsStore(path, read_only=True) as store:
        assert [store.count(m) for m, _ in store.matches()] == [4]


class _DiesOnce(RandomAgent):
    """A random agent whose process is killed (SIGKILL) at its first move while the file
    named by $BOARDZOO_KILL_MARKER does not exist yet (it creates it first)."""

    def act(self, env):
        marker = Path(os.environ["BOARDZOO_KILL_MARKER"])
        if not marker.exists():
            marker.touch()
            os.kill(os.getpid(), signal.SIGKILL)
        return super().act(env)


def test_a_killed_local_worker_is_retried_and_every_game_stored_once(tmp_path, monkeypatch):
    """One killed arena worker aborted the whole run with BrokenProcessPool."""
    marker = tmp_path / "killed"
    monkeypatch.setenv("BOARDZOO_KILL_MARKER", str(marker))
    agents = {"a": _DiesOnce(), "b": RandomAgent()}
    killed = tournament("tictactoe", agents, games_per_pair=8, seed=5, workers=2,
                        store=tmp_path / "killed.sqlite")
    assert marker.exists()  # a worker was killed ...
    whole = tournament("tictactoe", agents, games_per_pair=8, seed=5, workers=2,
                       store=tmp_path / "whole.sqlite")  # (the marker exists: no kill)
    records = [r for m in killed.matches.values() for r in m.records]
    assert [r.index for r in records] == list(range(8))  # ... and every game stored once,
    same = [r for m in whole.matches.values() for r in m.records]  # as an unkilled run's
    assert [(r.opening, r.moves, r.returns) for r in records] == [
        (r.opening, r.moves, r.returns) for r in same]
    with ResultsStore(tmp_path / "killed.sqlite", read_only=True) as store:
        assert [store.count(m) for m, _ in store.matches()] == [8]


class _FullDisk:
    """A store connection whose disk fills after ``room`` more games."""

    def __init__(self, db: sqlite3.Connection, room: int):
        self.db, self.room = db, room

    def execute(self, sql: str, *args):
        if sql.startswith("INSERT OR IGNORE INTO games"):
            if self.room == 0:
                raise sqlite3.OperationalError("database or disk is full")
            self.room -= 1
        return self.db.execute(sql, *args)

    def close(self) -> None:
        self.db.close()


def test_a_full_disk_is_one_line_and_a_rerun_resumes(tmp_path, capsys, monkeypatch):
    path = tmp_path / "results.sqlite"
    store = ResultsStore(path)
    store._db = _FullDisk(store._db, room=3)
    with pytest.raises(StoreError, match="database or disk is full; every game stored "
                                         "before is kept") as err:
        _match(store, 6)
    _one_line(str(err.value))
    store.close()
    assert _match(path, 6).games == 6  # the 3 stored games kept, the other 3 played now

    # the ratings files of a finished tournament: the games are in the store already
    def full(path, text):
        raise OSError(28, "No space left on device", str(path))

    monkeypatch.setattr("boardzoo.arena.atomic_write_text", full)
    out = tmp_path / "arena"
    args = ["arena", "nim", "--agents", "random random", "--games", "4", "--out", str(out)]
    error = _cli_error(capsys, args, status=1)
    assert error.startswith("boardzoo arena: error: No space left on device (")
    assert "ratings.csv" in error and "a rerun resumes" in error
    with ResultsStore(out / "results.sqlite", read_only=True) as results:
        assert [results.count(m) for m, _ in results.matches()] == [4]


def test_a_damaged_store_file_is_one_line(tmp_path):
    path = tmp_path / "results.sqlite"
    with ResultsStore(path) as store:
        match = store.match({"a": 1})
        for game in range(300):
            store.put(match, str(game), {"x": "y" * 200})
    with sqlite3.connect(path) as db:
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    db.close()
    with open(path, "r+b") as fh:  # garbage over the middle of a b-tree page
        fh.seek(10 * 4096 + 8)
        fh.write(b"\xff" * 64)
    # sqlite finds the damage when it opens the file or in the integrity check, depending on
    # where the page falls: one line either way, the file left as it was
    reason = "integrity check failed: On tree page|database disk image is malformed"
    with pytest.raises(StoreError, match=rf"is not a readable boardzoo results store "
                                         rf"\(({reason}).*\); it was left untouched") as err:
        ResultsStore(path)
    _one_line(str(err.value))


def test_ratings_csv_quotes_agent_names_with_commas(tmp_path):
    """The default AlphaZero agent's name holds commas: hand-joined rows shifted columns."""
    names = ["alphazero:checkpoint=connect_four,simulations=200", 'say "hi"', "random"]
    record = GameRecord(0, 0, [], [0], [1.0, -1.0], 1.0)
    matches = {(a, b): MatchResult(1, 0, 0, [record]) for a, b in
               [(names[0], names[1]), (names[0], names[2]), (names[1], names[2])]}
    ratings = {name: (float(k), k - 1.0, k + 1.0) for k, name in enumerate(names)}
    result = TournamentResult("connect_four", names, matches, ratings)
    paths = result.save(tmp_path) + result.export(tmp_path, ["csv"])
    with paths[0].open(newline="") as fh:
        rows = list(csv.reader(fh))
    assert rows[0] == ["agent", "elo", "low", "high", "games", "score"]
    assert sorted(row[0] for row in rows[1:]) == sorted(names)
    assert all(len(row) == 6 for row in rows)
    for exported in paths[3:]:
        with exported.open(newline="") as fh:
            assert [len(row) for row in csv.reader(fh)] == [5, 5]


# ---------------------------------------------------------------------- env and input
@pytest.mark.parametrize("name", sorted(GAMES))
def test_step_before_reset_is_an_error(name):
    env = make_env(name)
    with pytest.raises(ResetNeededError, match=r"step\(\) before reset\(\)"):
        env.step(0)
    other = make_env(name)
    other.restore_state(env.clone_state())  # restoring a snapshot starts a game too
    env.reset()
    for started in (env, other):
        started.step(int(np.flatnonzero(started.legal_mask())[0]))


def test_the_full_column_message_names_actions_and_columns_apart():
    env = make_env("connect_four", illegal_action="raise")
    env.reset(options={"position": "444444"})
    with pytest.raises(IllegalActionError) as err:
        env.step(3)
    assert str(err.value) == ("action 3 (column 4) is full; legal actions: 0, 1, 2, 4, 5, 6 "
                              "(as moves: 1, 2, 3, 5, 6, 7)")
    env.step(6)  # the hint taken literally is a legal action, not an out-of-range one


@pytest.mark.parametrize("name", sorted(GAMES))
def test_over_long_input_is_quoted_as_a_short_excerpt(name):
    env = make_env(name)
    for call, error in ((lambda: env.reset(options={"position": MEGABYTE}), InvalidPositionError),
                        (lambda: env.str_to_action(MEGABYTE), IllegalActionError),
                        (lambda: env.reset(options={"moves": [MEGABYTE]}), BoardzooError)):
        with pytest.raises(error) as err:
            call()
        assert "XXXX" * 100 not in _one_line(str(err.value))


def test_go_komi_too_large_for_the_board_is_one_line(capsys):
    with pytest.raises(InvalidOptionError, match=r"komi=1e\+300 is not allowed: use a multiple "
                                                 r"of 0.5 in -1000..1000"):
        make_env("go", komi=1e300)
    from boardzoo.gtp.engine import GoGtpEngine

    engine = GoGtpEngine(agent="random", board_size=5)
    assert engine.handle("komi 1e300").startswith("? ")
    assert engine.handle("boardsize " + "9" * 5000).startswith("? ")
    reply = engine.handle(MEGABYTE * 10)  # a 10 MB unknown command is not echoed back
    assert reply.startswith("? unknown command: 'XXXX") and len(reply) < 300
    assert engine.handle("komi 6.5") == "=\n\n"
    assert "komi" in _cli_error(capsys, ["gtp", "--komi", "1e300"])


# ---------------------------------------------------------------- missing extras, Ctrl-C
WITHOUT = """
    import json, sys
    blocked = set(sys.argv[1].split(","))

    class Block:
        def find_spec(self, name, path=None, target=None):
            if name.partition(".")[0] in blocked:
                raise ModuleNotFoundError(f"No module named {name!r}", name=name)

    sys.meta_path.insert(0, Block())
    from boardzoo.cli import main
    from boardzoo.errors import MissingExtraError

    if sys.argv[2] == "import":
        try:
            from boardzoo.agents import AlphaZeroAgent  # noqa: F401
        except MissingExtraError as err:
            print(f"{isinstance(err, ModuleNotFoundError)}: {err}")
    else:
        sys.exit(main(sys.argv[2:]))
"""


@pytest.mark.parametrize("blocked, argv, words", [
    ("torch,stable_baselines3", ["arena", "--out", "{tmp}"],
     "agent 'ppo' needs torch, which is not installed: pip install 'boardzoo[torch]' (the "
     "default --agents need pip install 'boardzoo[arena]')"),
    ("torch", ["train", "tictactoe", "--out", "{tmp}"],
     "this command needs torch, which is not installed: pip install 'boardzoo[torch]'"),
    ("stable_baselines3", ["play", "tictactoe", "--opponent", "ppo:checkpoint=tictactoe"],
     "agent 'ppo' needs stable_baselines3, which is not installed: pip install "
     "'boardzoo[sb3]'"),
    ("torch", ["import"], "True: AlphaZeroAgent needs torch, which is not installed: pip "
                          "install 'boardzoo[torch]'"),
])
def test_a_missing_optional_dependency_names_its_extra(tmp_path, blocked, argv, words):
    argv = [arg.replace("{tmp}", str(tmp_path / "out")) for arg in argv]
    child = _child(WITHOUT, blocked, *argv)
    said = (child.stdout + child.stderr).strip()
    assert words in _one_line(said), said[-2000:]
    assert child.returncode == (0 if argv == ["import"] else 2)


@pytest.mark.parametrize("command, words", [
    ("arena", "finished games are saved in the results store and a rerun resumes"),
    ("bench", "no figures were written"),
    ("gtp", "the engine stopped"),
])
def test_ctrl_c_says_what_each_command_leaves_behind(monkeypatch, capsys, command, words):
    def interrupted(args):
        raise KeyboardInterrupt

    monkeypatch.setattr(f"boardzoo.cli.run_{command}", interrupted)
    assert cli_main([command] + (["tictactoe"] if command == "arena" else [])) == 130
    said = capsys.readouterr().err.strip()
    assert said == f"interrupted; {words}"
