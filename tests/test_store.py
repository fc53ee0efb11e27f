"""The results store: every game exactly once, across processes, crashes and reruns.

The match processes are ``tests/arena_driver.py`` (reproducible games: agents reseeded
from the match seed and game index), so a run that was killed and resumed can be compared
move for move with an uninterrupted one.
"""

from __future__ import annotations

import contextlib
import random
import signal
import socket
import sqlite3
import subprocess
import sys
import threading
import time
from collections import Counter
from pathlib import Path

import pytest

from boardzoo.agents import RandomAgent
from boardzoo.arena import play_match
from boardzoo.cli import main
from boardzoo.errors import StoreError
from boardzoo.store import ResultsStore
from boardzoo.training.sink import GameSink as TrainingSink
from tests.arena_driver import GAMES, play

ROOT = Path(__file__).resolve().parents[1]


def _driver(store: Path, *args: str) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "tests.arena_driver", str(store), *args], cwd=ROOT,
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )


def _games(store: Path) -> dict[str, tuple[str, list[int]]]:
    """game id -> (owner, opening + moves) of the store's only match."""
    with ResultsStore(store) as results:
        (match_id, _), = results.matches()
        rows = results._db.execute(
            "SELECT game_id, owner FROM games WHERE match_id = ?", (match_id,)
        ).fetchall()
        records = results.records(match_id)
    owners = dict(rows)
    return {k: (owners[k], r["opening"] + r["moves"]) for k, r in records.items()}


@pytest.fixture(scope="module")
def uninterrupted(tmp_path_factory):
    """The driver's match played in one go, in this process: index -> moves."""
    result = play(tmp_path_factory.mktemp("full") / "results.sqlite")
    return {str(r.index): r.opening + r.moves for r in result.records}


def test_two_processes_on_one_store_split_the_games_exactly_once(tmp_path, uninterrupted):
    store = tmp_path / "results.sqlite"
    ready = [tmp_path / "a", tmp_path / "b"]
    procs = [
        _driver(store, "--ready", str(ready[i]), "--wait-for", *map(str, ready))
        for i in range(2)
    ]
    for proc in procs:
        assert proc.wait(timeout=300) == 0
    games = _games(store)
    assert sorted(games, key=int) == [str(i) for i in range(GAMES)]
    owners = {owner for owner, _ in games.values()}
    assert len(owners) == 2  # both stored games while they ran
    assert {k: moves for k, (_, moves) in games.items()} == uninterrupted


def test_a_killed_process_leaves_its_claimed_game_to_the_other(tmp_path, uninterrupted):
    store = tmp_path / "results.sqlite"
    ready = [tmp_path / "a", tmp_path / "b"]
    dying = _driver(store, "--ready", str(ready[0]), "--wait-for", *map(str, ready),
                    "--die-in-game", "3")
    survivor = _driver(store, "--ready", str(ready[1]), "--wait-for", *map(str, ready))
    assert dying.wait(timeout=300) == -signal.SIGKILL
    assert survivor.wait(timeout=300) == 0
    games = _games(store)
    assert {k: moves for k, (_, moves) in games.items()} == uninterrupted
    per_owner = sorted(Counter(owner for owner, _ in games.values()).values())
    assert per_owner == [2, GAMES - 2]  # the dead one stored 2; its 3rd claim was taken over
    with ResultsStore(store) as results:
        assert results._db.execute("SELECT COUNT(*) FROM claims").fetchone()[0] == 0


def test_kill_9_at_random_moments_then_resume_gives_the_uninterrupted_games(
    tmp_path, uninterrupted
):
    store = tmp_path / "results.sqlite"
    rng = random.Random(0)
    for _ in range(3):  # each kill lands at a random moment after one more game is stored
        before = _stored(store)
        proc = _driver(store, "--workers", "2")
        deadline = time.time() + 120
        while _stored(store) == before and time.time() < deadline:
            time.sleep(0.02)
        time.sleep(rng.uniform(0.0, 0.4))
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=60)
    assert 0 < _stored(store) < GAMES  # the kills did interrupt the match
    result = play(store)
    assert {str(r.index): r.opening + r.moves for r in result.records} == uninterrupted
    assert {k: moves for k, (_, moves) in _games(store).items()} == uninterrupted


def test_workers_end_when_the_arena_process_is_killed(tmp_path):
    proc = _driver(tmp_path / "results.sqlite", "--workers", "2")
    workers: list[int] = []
    deadline = time.time() + 60
    while len(workers) < 2 and time.time() < deadline:
        time.sleep(0.2)
        workers = _children(proc.pid)
    assert len(workers) >= 2
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=60)
    deadline = time.time() + 10
    while any(_exists(pid) for pid in workers) and time.time() < deadline:
        time.sleep(0.1)
    assert not [pid for pid in workers if _exists(pid)]


def _stored(store: Path) -> int:
    """Games stored so far, read without writing to the store."""
    try:
        with sqlite3.connect(f"file:{store}?mode=ro", uri=True) as db:
            return db.execute("SELECT COUNT(*) FROM games").fetchone()[0]
    except sqlite3.Error:
        return 0


def _children(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid:
                found.append(int(entry.name))
    return found


def _exists(pid: int) -> bool:
    try:
        state = (Path("/proc") / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def test_other_game_options_are_a_separate_match(tmp_path):
    store = tmp_path / "results.sqlite"
    normal = play_match("nim", RandomAgent(0), RandomAgent(1), games=4, store=store,
                        game_options={"heaps": (3, 4)})
    misere = play_match("nim", RandomAgent(0), RandomAgent(1), games=6, store=store,
                        game_options={"heaps": (3, 4), "misere": True})
    again = play_match("nim", RandomAgent(0), RandomAgent(1), games=4, store=store,
                       game_options={"heaps": [3, 4], "misere": False, "max_take": 3})
    assert len(normal.records) == 4 and len(misere.records) == 6
    assert [r.moves for r in again.records] == [r.moves for r in normal.records]
    for size in (5, 7):
        play_match("go", RandomAgent(0), RandomAgent(1), games=2, store=store,
                   game_options={"board_size": size})
    with ResultsStore(store) as results:
        definitions = [d for _, d in results.matches()]
        counts = [results.count(match_id) for match_id, _ in results.matches()]
    assert [d["options"].get("misere") for d in definitions[:2]] == [False, True]
    assert [d["options"].get("board_size") for d in definitions[2:]] == [5, 7]
    assert counts == [4, 6, 2, 2]


def test_more_games_extend_the_match_and_keep_the_stored_ones(tmp_path):
    store = tmp_path / "results.sqlite"
    short = play_match("tictactoe", RandomAgent(0), RandomAgent(1), games=4, store=store)
    with ResultsStore(store) as results:
        first = results._db.execute("SELECT game_id, stored_at FROM games").fetchall()
    longer = play_match("tictactoe", RandomAgent(0), RandomAgent(1), games=10, store=store)
    assert [r.moves for r in longer.records[:4]] == [r.moves for r in short.records]
    with ResultsStore(store) as results:
        (match_id, _), = results.matches()
        again = results._db.execute("SELECT game_id, stored_at FROM games").fetchall()
        assert set(first) <= set(again) and results.count(match_id) == 10


def test_a_read_only_store_reads_the_games_and_leaves_the_file_byte_for_byte(tmp_path):
    store = tmp_path / "results.sqlite"
    played = play_match("tictactoe", RandomAgent(0), RandomAgent(1), games=4, store=store)
    with sqlite3.connect(store) as db:  # as a committed store is kept: no WAL
        db.execute("PRAGMA journal_mode=DELETE")
    before = store.read_bytes()
    with ResultsStore(store, read_only=True) as results:
        (match_id, definition), = results.matches()
        records = results.records(match_id)
        with pytest.raises(StoreError, match="read-only"):
            results.put(match_id, "99", {"moves": []})
        with pytest.raises(StoreError, match="read-only"):
            results.match({"another": "match"})
    assert definition["game"] == "tictactoe"
    assert [records[str(r.index)]["moves"] for r in played.records] == [
        r.moves for r in played.records]
    assert store.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["results.sqlite"]
    with pytest.raises(StoreError, match="no such results store"):
        ResultsStore(tmp_path / "missing.sqlite", read_only=True)
    assert not (tmp_path / "missing.sqlite").exists()
    foreign = tmp_path / "empty.sqlite"
    foreign.write_bytes(b"")
    with pytest.raises(StoreError, match="not a readable boardzoo results store"):
        ResultsStore(foreign, read_only=True)


@pytest.mark.parametrize("damage", ["garbage", "truncated", "foreign sqlite"])
def test_a_damaged_store_is_a_one_line_error_and_is_left_as_it_was(tmp_path, capsys, damage):
    out = tmp_path / "out"
    store = out / "results.sqlite"
    args = ["arena", "tictactoe", "--agents", "random random", "--games", "2", "--workers",
            "1", "--out", str(out)]
    assert main(args) == 0
    capsys.readouterr()
    data = store.read_bytes()
    if damage == "garbage":
        store.write_bytes(b"\x13 not a database \x00" * 300)
    elif damage == "truncated":
        store.write_bytes(data[: len(data) // 2])
    else:
        store.unlink()
        with sqlite3.connect(store) as other:
            other.execute("CREATE TABLE notes (text TEXT)")
    before = store.read_bytes()
    assert main(args) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1
    assert "not a readable boardzoo results store" in err and "left untouched" in err
    assert store.read_bytes() == before
    with pytest.raises(StoreError):
        ResultsStore(store)


SINK_WRITER = """
import sys
from boardzoo.store import ResultsStore
store = ResultsStore(sys.argv[1])
sink = store.sink("selfplay")
start = int(sys.argv[2])
ids = range(start, start + 300)
new = sum(sink.put_game(f"g{i}", {"moves": [i], "writer": start}) for i in ids)
print(new)
"""


def test_game_sink_loses_no_game_and_counts_none_twice(tmp_path):
    """Three processes write overlapping ids at once: every id is stored once, and exactly
    one put_game of each id returned True."""
    store = tmp_path / "results.sqlite"
    procs = [
        subprocess.Popen([sys.executable, "-c", SINK_WRITER, str(store), str(start)],
                         cwd=ROOT, stdout=subprocess.PIPE, text=True)
        for start in (0, 100, 200)
    ]
    accepted = [int(proc.communicate(timeout=120)[0]) for proc in procs]
    assert all(proc.returncode == 0 for proc in procs)
    with ResultsStore(store) as results:
        sink = results.sink("selfplay")
        ids = sink.game_ids()
        assert ids == {f"g{i}" for i in range(500)}
        assert sum(accepted) == 500
        assert sink.put_game("g7", {"moves": []}) is False
        assert sink.get_game("g7")["moves"] == [7]
        assert isinstance(sink, TrainingSink)  # training's protocol
        with pytest.raises(KeyError):
            sink.get_game("g999")
        assert results.sink("another").game_ids() == set()


def _claim_held_by(path, owner: str, expires_in: float) -> tuple[ResultsStore, int]:
    """A store whose game "0" of a new match is claimed by ``owner``, its lease ending in
    ``expires_in`` seconds (negative: already ran out)."""
    results = ResultsStore(path)
    match_id = results.match({"game": "tictactoe", "test": "claims"})
    with results._write() as db:
        db.execute("INSERT INTO claims VALUES (?, ?, ?, ?)",
                   (match_id, "0", owner, time.time() + expires_in))
    return results, match_id


def test_a_live_local_process_keeps_its_claim_after_the_lease_runs_out(tmp_path):
    """A 19x19 game outlasts the lease: a second worker must not play it again."""
    with subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"]) as other:
        try:
            owner = f"{socket.gethostname()}:{other.pid}:abcd"
            results, match_id = _claim_held_by(tmp_path / "s.sqlite", owner, expires_in=-3600)
            with results:
                assert results.pending_elsewhere(match_id, ["0", "1"])
                assert results.claim(match_id, ["0", "1"]) == "1"
        finally:
            other.kill()


def test_a_dead_local_process_s_claim_is_taken_over_whatever_its_lease(tmp_path):
    with subprocess.Popen([sys.executable, "-c", "pass"]) as gone:
        gone.wait()
    owner = f"{socket.gethostname()}:{gone.pid}:abcd"
    results, match_id = _claim_held_by(tmp_path / "s.sqlite", owner, expires_in=3600)
    with results:
        assert not results.pending_elsewhere(match_id, ["0"])
        assert results.claim(match_id, ["0", "1"]) == "0"


@pytest.mark.parametrize(("expires_in", "taken_over"), [(3600, False), (-1, True)])
def test_another_host_s_claim_is_trusted_until_its_lease_runs_out(tmp_path, expires_in,
                                                                  taken_over):
    owner = "some-other-host:12345:abcd"
    results, match_id = _claim_held_by(tmp_path / "s.sqlite", owner, expires_in)
    with results:
        assert results.pending_elsewhere(match_id, ["0"]) is not taken_over
        assert results.claim(match_id, ["0", "1"]) == ("0" if taken_over else "1")


class _SlowRandom(RandomAgent):
    """A random player that thinks 0.5 s a move: a game longer than a short lease."""

    def act(self, env, *args, **kwargs):
        time.sleep(0.5)
        return super().act(env, *args, **kwargs)


def test_a_game_longer_than_the_lease_keeps_its_claim_for_other_hosts(tmp_path):
    """Another host cannot see whether a claim's process lives, only its lease: the player
    renews its leases while it plays, so the claim never runs out during a game that takes
    several leases (here 1 s leases, and games of 0.5 s moves played in-process). The game's
    kernels are compiled first: compiling holds the interpreter's lock for longer than such
    a lease (the default lease is 600 s)."""
    play_match("tictactoe", RandomAgent(0), RandomAgent(1), games=1)
    path = tmp_path / "s.sqlite"
    remaining: list[float] = []
    stop = threading.Event()

    def watch() -> None:  # what another host would read: the claims' time left
        db = sqlite3.connect(path, timeout=30)
        while not stop.wait(0.05):
            with contextlib.suppress(sqlite3.Error):
                remaining.extend(expires - time.time() for (expires,) in
                                 db.execute("SELECT expires FROM claims"))
        db.close()

    with ResultsStore(path, lease_seconds=1.0) as results:
        watcher = threading.Thread(target=watch)
        watcher.start()
        try:
            result = play_match("tictactoe", _SlowRandom(0), _SlowRandom(1), games=2,
                                store=results)
        finally:
            stop.set()
            watcher.join()
    assert result.games == 2 and all(sum(r.seconds) > 1.2 for r in result.records)
    assert len(remaining) > 20 and min(remaining) > 0
