"""AlphaZero training: safe loaders, atomic checkpoints, reproducible and resumable runs, and
tic-tac-toe learned from scratch (slow)."""

from __future__ import annotations

import json
import os
import pickle
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
import torch

from boardzoo.agents.alphazero import AlphaZeroAgent, AlphaZeroNet, NetworkConfig
from boardzoo.agents.alphazero import checkpoint as ckpt
from boardzoo.cli import main as cli_main
from boardzoo.envs import make_game
from boardzoo.errors import CheckpointError, InvalidOptionError
from boardzoo.executor import LocalExecutor, WorkerDiedError
from boardzoo.torch_files import safe_torch_load
from boardzoo.training import TrainConfig, run_games, train
from boardzoo.training.learner import ActorLearner, LearnerInActor
from boardzoo.training.replay import ReplayBuffer, positions_of
from tests.tictactoe_truth import (
    network_choices,
    ongoing_positions,
    search_choices,
    share_preserving,
)

TINY = dict(minutes=None, iterations=2, blocks=1, channels=8, games_per_iteration=6,
            parallel_games=4, simulations=12, fast_simulations=4, full_search_prob=0.5,
            batch_size=16, replay_window=500, eval_every=0, train_steps_per_iteration=3)


class _CreatesAFile:
    """A pickle payload that would create ``path`` when unpickled."""

    def __init__(self, path):
        self.path = str(path)

    def __reduce__(self):
        return (open, (self.path, "w"))


def _weights(path: Path) -> dict:
    return safe_torch_load(path)["weights"]


# ------------------------------------------------------------------------------ loaders
def test_every_loader_refuses_a_pickle_that_would_create_a_file(tmp_path):
    target = tmp_path / "pwned"
    evil = tmp_path / "evil.pt"
    torch.save({"format": ckpt.FORMAT, "weights": _CreatesAFile(target)}, evil)
    with pytest.raises(CheckpointError, match="refuses to load code"):
        ckpt.load_checkpoint(evil)
    with pytest.raises(CheckpointError, match="refuses to load code"):
        AlphaZeroAgent.from_checkpoint(evil)
    # a resume directory whose training state carries the payload
    run = tmp_path / "run"
    train("tictactoe", TrainConfig(**{**TINY, "iterations": 1}), out=run, progress=False)
    torch.save({"weights": _CreatesAFile(target)}, run / "state.pt")
    with pytest.raises(CheckpointError, match="refuses to load code"):
        train("tictactoe", out=run, resume=True, progress=False)
    # config files, the run's own included, are JSON/TOML: a pickle there is refused as
    # malformed
    (run / "config.json").write_bytes(pickle.dumps(_CreatesAFile(target)))
    with pytest.raises(CheckpointError, match="not valid"):
        train("tictactoe", out=run, resume=True, progress=False)
    config_file = tmp_path / "config.json"
    config_file.write_bytes(pickle.dumps(_CreatesAFile(target)))
    with pytest.raises(CheckpointError, match="not valid"):
        TrainConfig.from_file(config_file)
    assert not target.exists()


def test_truncated_foreign_and_future_checkpoints_are_refused(tmp_path):
    game = make_game("tictactoe")
    net = AlphaZeroNet.for_game(game, NetworkConfig(1, 8))
    good = tmp_path / "good.pt"
    ckpt.save_checkpoint(good, game, net, step=7)
    loaded = ckpt.load_checkpoint(good, game)
    assert loaded.step == 7 and loaded.game.key == game.key
    truncated = tmp_path / "truncated.pt"
    truncated.write_bytes(good.read_bytes()[: len(good.read_bytes()) // 2])
    with pytest.raises(CheckpointError, match="truncated"):
        ckpt.load_checkpoint(truncated)
    with pytest.raises(CheckpointError, match="not TicTacToe|is for"):
        ckpt.load_checkpoint(good, make_game("connect_four"))
    c4 = tmp_path / "c4.pt"
    ckpt.save_checkpoint(c4, make_game("connect_four", rows=5, columns=6),
                         AlphaZeroNet.for_game(make_game("connect_four", rows=5, columns=6),
                                               NetworkConfig(1, 8)), step=1)
    with pytest.raises(CheckpointError, match="is for"):
        ckpt.load_checkpoint(c4, make_game("connect_four"))  # another board size
    payload = safe_torch_load(good)
    torch.save({**payload, "version": 99}, tmp_path / "future.pt")
    with pytest.raises(CheckpointError, match="version 99"):
        ckpt.load_checkpoint(tmp_path / "future.pt")
    torch.save({**payload, "weights": {"nonsense": torch.zeros(3)}}, tmp_path / "bad.pt")
    with pytest.raises(CheckpointError, match="do not fit"):
        ckpt.load_checkpoint(tmp_path / "bad.pt")
    with pytest.raises(CheckpointError, match="does not exist"):
        ckpt.load_checkpoint(tmp_path / "missing.pt")


def test_a_failed_write_never_replaces_a_good_checkpoint(tmp_path, monkeypatch):
    game = make_game("tictactoe")
    path = tmp_path / "net.pt"
    ckpt.save_checkpoint(path, game, AlphaZeroNet.for_game(game, NetworkConfig(1, 8)), step=1)
    before = path.read_bytes()

    def crash(fd):
        raise OSError("disk full")

    monkeypatch.setattr(os, "fsync", crash)
    with pytest.raises(OSError, match="disk full"):
        ckpt.save_checkpoint(path, game, AlphaZeroNet.for_game(game, NetworkConfig(1, 8)), 2)
    assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["net.pt"]  # no temporary left


def test_config_files_with_unknown_keys_are_clear_errors(tmp_path, capsys):
    config = tmp_path / "c.json"
    config.write_text(json.dumps({"simulatons": 10}))
    with pytest.raises(InvalidOptionError, match="did you mean 'simulations'"):
        TrainConfig.from_file(config)
    assert cli_main(["train", "tictactoe", "--config", str(config)]) == 2
    assert "did you mean 'simulations'" in capsys.readouterr().err
    with pytest.raises(InvalidOptionError, match="budget"):
        TrainConfig(minutes=None, iterations=None)


def test_replay_rebuilds_targets_and_refuses_inconsistent_records():
    game = make_game("tictactoe")
    record = {"id": "x", "moves": [4, 0, 8], "returns": [1.0, -1.0],
              "targets": [{"ply": 1, "actions": [0, 1], "probs": [0.25, 0.75]}]}
    [(planes, mask, pi, z)] = positions_of(game, record)
    assert planes[1, 1, 1] == 1.0  # O to move: X's centre is the opponent plane
    assert pi[1] == 0.75 and z == -1.0 and not mask[4]
    with pytest.raises(CheckpointError, match="illegal"):
        positions_of(game, {**record, "targets": [{"ply": 1, "actions": [4], "probs": [1.0]}]})
    buffer = ReplayBuffer(game, window=10)
    buffer.add_game(record)
    planes, masks, pis, zs = buffer.sample(64, np.random.default_rng(0))
    assert np.allclose(pis.sum(axis=1), 1.0) and (masks[pis > 0]).all()
    assert len({p.tobytes() for p in pis}) > 1  # augmented under several symmetries


def test_anchored_labels_are_a_fixed_share_of_every_batch_and_never_pushed_out(tmp_path):
    game = make_game("tictactoe")
    plain = {"id": "g", "moves": [4, 0, 8], "returns": [0.0, 0.0],
             "targets": [{"ply": 0, "actions": [4], "probs": [1.0]}]}
    label = (game.observe(game.initial_state(), 0), game.legal_mask(game.initial_state()),
             np.full(9, 1 / 9, np.float32), 1.0)  # z = 1: only labels have it
    buffer = ReplayBuffer(game, window=3)
    buffer.anchor([label] * 5, share=0.25)
    assert (buffer.sample(16, np.random.default_rng(0))[3] == 1.0).all()  # empty window
    for _ in range(10):  # far more than the window holds
        buffer.add_game(plain)
    for seed in range(5):
        zs = buffer.sample(16, np.random.default_rng(seed))[3]
        assert (zs == 1.0).sum() == 4 and (zs == 0.0).sum() == 12
    with pytest.raises(InvalidOptionError, match="label_share needs labelled positions"):
        TrainConfig(label_share=0.25)
    with pytest.raises(InvalidOptionError, match="label_share=1.0"):
        TrainConfig(label_share=1.0, from_records="labels.jsonl")
    # in a run: the labels stay in the replay as the window fills
    from boardzoo.training.loop import _replay_with_labels

    config = TrainConfig(**{**TINY, "from_records": "x", "label_share": 0.5})
    replay = _replay_with_labels(game, config, [label] * 3)
    for _ in range(200):
        replay.add_game(plain)
    assert (replay.sample(16, np.random.default_rng(0))[3] == 1.0).sum() == 8
    seeded = _replay_with_labels(game, TrainConfig(**{**TINY, "from_records": "x"}), [label] * 3)
    for _ in range(200):
        seeded.add_game(plain)
    assert (seeded.sample(16, np.random.default_rng(0))[3] == 1.0).sum() == 0  # pushed out


# ---------------------------------------------------------------- reproducible, resumable
def test_one_seed_gives_identical_games_and_weights(tmp_path):
    config = TrainConfig(**TINY)
    first = train("tictactoe", config, out=tmp_path / "a", progress=False)
    second = train("tictactoe", config, out=tmp_path / "b", progress=False)
    assert first.step == second.step == 6 and first.games == second.games == 12
    with run_games(tmp_path / "a") as a, run_games(tmp_path / "b") as b:
        assert len(a.game_ids()) == 12 and a.game_ids() == b.game_ids()
        assert all(a.get_game(name) == b.get_game(name) for name in a.game_ids())
    wa, wb = _weights(first.checkpoint), _weights(second.checkpoint)
    assert all(torch.equal(wa[k], wb[k]) for k in wa)
    third = train("tictactoe", TrainConfig(**{**TINY, "seed": 1}), out=tmp_path / "c",
                  progress=False)
    wc = _weights(third.checkpoint)
    assert not all(torch.equal(wa[k], wc[k]) for k in wa)
    with pytest.raises(InvalidOptionError, match="already holds a training run"):
        train("tictactoe", config, out=tmp_path / "a", progress=False)


class _DyingActor:
    """In-process stand-in for a learner actor: a LearnerInActor whose process "dies"
    (WorkerDiedError) on the ``dies_on``-th call of the run, counted in ``calls``."""

    def __init__(self, held: LearnerInActor, calls: list, dies_on: int):
        self.held, self.calls, self.dies_on = held, calls, dies_on

    def call(self, method: str, item):
        self.calls.append(item[0] is not None)  # whether this call carried a state
        if len(self.calls) == self.dies_on:
            raise WorkerDiedError("killed")
        return getattr(self.held, method)(pickle.loads(pickle.dumps(item)))

    def close(self) -> None:
        pass


class _ActorExecutor(LocalExecutor):
    def __init__(self, dies_on: int):
        super().__init__(1)
        self.calls: list[bool] = []
        self.started = 0
        self.dies_on = dies_on

    def actor(self, factory, gpus=0):
        assert gpus == 0  # no GPU here
        self.started += 1
        return _DyingActor(factory(), self.calls, self.dies_on)


def test_a_learner_actor_that_dies_trains_the_driver_learners_weights(tmp_path, monkeypatch):
    """Gradient steps in an actor (ActorLearner): batches drawn on the driver in chunks, the
    state sent to a fresh actor only; a death mid-run restarts the actor from the last state
    and repeats that chunk, so the weights are the driver learner's, bit for bit."""
    monkeypatch.setattr(ActorLearner, "CHUNK", 2)  # 3 steps per iteration: 2 calls each
    reference = train("tictactoe", TrainConfig(**TINY), out=tmp_path / "a", progress=False)
    executor = _ActorExecutor(dies_on=3)  # iteration 2's first call
    run = train("tictactoe", TrainConfig(**TINY, learner="actor"), out=tmp_path / "b",
                progress=False, backend=executor)
    assert executor.started == 2 and executor.calls == [True, False, False, True, False]
    assert run.step == reference.step == 6
    wa, wb = _weights(reference.checkpoint), _weights(run.checkpoint)
    assert all(torch.equal(wa[k], wb[k]) for k in wa)
    with pytest.raises(InvalidOptionError, match="needs --backend ray"):
        train("tictactoe", TrainConfig(**TINY, learner="actor"), out=tmp_path / "c",
              progress=False)
    # a refused run is no run: nothing to resume, and the same --out serves a new one
    assert not (tmp_path / "c" / "config.json").exists()
    with pytest.raises(CheckpointError, match="no training run there"):
        train("tictactoe", out=tmp_path / "c", resume=True, progress=False)
    train("tictactoe", TrainConfig(**TINY), out=tmp_path / "c", progress=False)
    with pytest.raises(InvalidOptionError, match="learner='gpu'"):
        TrainConfig(learner="gpu")


class _CrashingSink:
    """Stores ``limit`` games in ``sink``, then dies like a killed process would."""

    def __init__(self, sink, limit):
        self.sink, self.limit, self.stored = sink, limit, 0
        self.game_ids, self.get_game = sink.game_ids, sink.get_game

    def put_game(self, game_id, record):
        if self.stored == self.limit:
            raise KeyboardInterrupt
        self.stored += 1
        return self.sink.put_game(game_id, record)


def test_resume_after_a_crash_mid_iteration_loses_and_doubles_nothing(tmp_path):
    config = TrainConfig(**{**TINY, "iterations": 3})
    whole = train("tictactoe", config, out=tmp_path / "whole", progress=False)
    crashed = tmp_path / "crashed"
    with run_games(crashed) as games, pytest.raises(KeyboardInterrupt):
        train("tictactoe", config, out=crashed, sink=_CrashingSink(games, 8), progress=False)
    with run_games(crashed) as games:
        assert len(games.game_ids()) == 8  # 6 + 2 of iteration 2
    log = []
    resumed = train("tictactoe", out=crashed, resume=True, progress=False,
                    on_iteration=log.append)
    assert [row["iteration"] for row in log] == [2, 3]
    assert [row["played"] for row in log] == [4, 6]  # only the 4 missing games were played
    assert resumed.step == whole.step == 9 and resumed.iteration == 3
    assert [row["replay"] for row in log] == [r["replay"] for r in whole.log[1:]]
    with run_games(crashed) as games, run_games(tmp_path / "whole") as uninterrupted:
        ids = games.game_ids()
        assert ids == uninterrupted.game_ids() and len(ids) == 18
        # every game, also those stored before the crash, is the uninterrupted run's game
        assert all(games.get_game(name) == uninterrupted.get_game(name) for name in ids)


def test_a_game_object_brings_its_options_and_refuses_others(tmp_path):
    """train(game) with a Game runs that game's options; a config naming other options is
    refused before any folder is made."""
    from boardzoo.training.loop import _rules_of_run, _with_options_of

    nim = make_game("nim", heaps=(3, 4))
    config = _with_options_of(nim, TrainConfig(**TINY))
    assert config.game_options == {"heaps": (3, 4), "max_take": 3, "misere": False}
    assert _rules_of_run(nim, TrainConfig.from_dict(json.loads(json.dumps(config.to_dict()))
                                                    )).key == nim.key  # as saved and resumed
    with pytest.raises(InvalidOptionError, match="are not those of Nim"):
        train(nim, TrainConfig(**{**TINY, "game_options": {"heaps": [5]}}),
              out=tmp_path / "run", progress=False)
    assert not (tmp_path / "run").exists()


def test_a_resumed_run_takes_changed_options_but_not_a_new_network(tmp_path, capsys):
    """A supervised-then-self-play recipe in two commands: the second resumes the first with
    a new learning rate and budget from a config file; the change is saved for later resumes,
    and changing the network's shape is refused in one clear line."""
    out = tmp_path / "run"
    train("tictactoe", TrainConfig(**{**TINY, "iterations": 1}), out=out, progress=False)
    stage2 = tmp_path / "stage2.json"
    stage2.write_text(json.dumps({"iterations": 2, "learning_rate": 3e-4,
                                  "lr_schedule": "constant"}))
    assert cli_main(["train", "tictactoe", "--resume", str(out), "--config", str(stage2)]) == 0
    saved = json.loads((out / "config.json").read_text())
    assert (saved["iterations"], saved["learning_rate"], saved["lr_schedule"]) == (2, 3e-4,
                                                                                 "constant")
    assert saved["blocks"] == TINY["blocks"]  # what the file does not name is kept
    header, *rows = (out / "log.csv").read_text().splitlines()
    lrs = [float(r.split(",")[header.split(",").index("lr")]) for r in rows]
    assert len(rows) == 2 and lrs[1] == pytest.approx(3e-4) != lrs[0]
    capsys.readouterr()
    assert cli_main(["train", "tictactoe", "--resume", str(out), "--config", str(stage2),
                     "--seed", "5"]) == 2
    assert "cannot change seed" in capsys.readouterr().err
    with pytest.raises(InvalidOptionError, match="cannot change blocks, channels"):
        train("tictactoe", out=out, resume=True, progress=False,
              changes={"blocks": 3, "channels": 16, "iterations": 3})
    with pytest.raises(InvalidOptionError, match="unknown training option 'learning_rat'"):
        train("tictactoe", out=out, resume=True, progress=False, changes={"learning_rat": 1})
    assert json.loads((out / "config.json").read_text()) == saved  # refused: unchanged


def test_a_new_run_can_start_from_a_trained_networks_weights(tmp_path):
    """--init-from: the new run's weights are the checkpoint's (a learning rate of 1e-12 keeps
    them there through one iteration; batch-norm statistics still move), not fresh ones; a
    checkpoint of another shape or game is refused before anything is written, and a resumed
    run cannot change it."""
    first = tmp_path / "first"
    train("tictactoe", TrainConfig(**{**TINY, "iterations": 1, "seed": 1}), out=first,
          progress=False)
    start = _weights(first / "latest.pt")
    still = {**TINY, "iterations": 1, "learning_rate": 1e-12}
    assert cli_main(["train", "tictactoe", "--init-from", str(first / "latest.pt"), "--config",
                     _json_file(tmp_path / "still.json", still), "--out",
                     str(tmp_path / "cont")]) == 0
    train("tictactoe", TrainConfig(**still), out=tmp_path / "fresh", progress=False)
    continued, fresh = _weights(tmp_path / "cont" / "latest.pt"), _weights(tmp_path / "fresh"
                                                                           / "latest.pt")
    learned = [name for name, _ in AlphaZeroNet.for_game(
        make_game("tictactoe"), NetworkConfig(1, 8)).named_parameters()]  # (not batch stats)
    for name in learned:
        assert torch.allclose(continued[name], start[name], atol=1e-6), name
    assert not all(torch.allclose(fresh[name], start[name], atol=1e-3) for name in learned)
    saved = json.loads((tmp_path / "cont" / "config.json").read_text())
    assert saved["init_from"] == str(first / "latest.pt")
    with pytest.raises(CheckpointError, match="1x8 network .*this run's is 2x8"):
        train("tictactoe", TrainConfig(**{**still, "blocks": 2,
                                          "init_from": str(first / "latest.pt")}),
              out=tmp_path / "wider", progress=False)
    assert not (tmp_path / "wider" / "config.json").exists()
    with pytest.raises(CheckpointError, match=r"is for TicTacToe\(\), not ConnectFour"):
        train("connect_four", TrainConfig(**{**still, "init_from": str(first / "latest.pt")}),
              out=tmp_path / "c4", progress=False)
    with pytest.raises(CheckpointError, match="no AlphaZero checkpoint 'nope'.*shipped ones"):
        train("tictactoe", TrainConfig(**{**still, "init_from": "nope"}),
              out=tmp_path / "nope", progress=False)
    with pytest.raises(InvalidOptionError, match="cannot change init_from"):
        train("tictactoe", out=tmp_path / "cont", resume=True, progress=False,
              changes={"init_from": "tictactoe"})


def _json_file(path: Path, values: dict) -> str:
    path.write_text(json.dumps(values))
    return str(path)


@pytest.mark.slow
def test_kill_9_mid_iteration_then_resume(tmp_path):
    """A real ``boardzoo train`` process killed with SIGKILL while it plays, then resumed."""
    config = tmp_path / "c.json"
    config.write_text(json.dumps({**TINY, "iterations": 4, "games_per_iteration": 16}))
    out = tmp_path / "run"
    command = [sys.executable, "-m", "boardzoo.cli", "train", "tictactoe", "--config",
               str(config), "--out", str(out)]
    proc = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def stored() -> set[str]:
        if not (out / "results.sqlite").exists():
            return set()
        with run_games(out) as games:
            return games.game_ids()

    deadline = time.monotonic() + 240
    while time.monotonic() < deadline and sum(i.startswith("00002-") for i in stored()) < 5:
        time.sleep(0.05)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    before = stored()
    assert 16 < len(before) < 64, len(before)
    subprocess.run([*command[:4], "tictactoe", "--resume", str(out)], check=True,
                   capture_output=True)
    after = stored()
    assert len(after) == 64 and before <= after
    state = torch.load(out / "state.pt", weights_only=True)
    assert state["iteration"] == 4 and state["step"] == 12
    rows = (out / "log.csv").read_text().splitlines()
    assert len(rows) == 1 + 4  # one log row per iteration, none repeated


# ------------------------------------------------------------------- learning tic-tac-toe
def _perfect_player(game, rng):
    truth = {}
    states, good = ongoing_positions(game)
    for state, moves in zip(states, good, strict=True):
        truth[state.tobytes()] = sorted(moves)

    def act(state):
        return int(rng.choice(truth[state.tobytes()]))

    return act


def _losses_against_perfect_play(agent, game, games=100, seed=0) -> int:
    from boardzoo.envs import make_env

    rng = np.random.default_rng(seed)
    perfect = _perfect_player(game, rng)
    losses = 0
    for k in range(games):
        env = make_env("tictactoe")
        env.reset(seed=k)
        our_seat = k % 2
        raw = env.unwrapped
        while not game.is_terminal(raw.state_array):
            state = raw.state_array
            move = agent.act(env) if game.to_play(state) == our_seat else perfect(state)
            env.step(move)
        losses += game.returns(raw.state_array)[our_seat] < 0
    return int(losses)


def _check_tictactoe_bars(net, game) -> dict:
    states, good = ongoing_positions(game)
    assert len(states) == 4520
    alone = share_preserving(network_choices(net, game, states), good)
    agent = AlphaZeroAgent(net, game, simulations=50, seed=0)
    searched = share_preserving(search_choices(agent, states, 50), good)
    losses = _losses_against_perfect_play(AlphaZeroAgent(net, game, simulations=50, seed=1),
                                          game)
    return {"network alone": alone, "search 50": searched, "losses": losses}


@pytest.mark.slow
def test_tictactoe_from_scratch_in_ci(tmp_path):
    """``boardzoo train tictactoe`` with the shipped config, 3 minutes on CI's 2 cores."""
    values = json.loads(Path("boardzoo/training/configs/tictactoe.json").read_text())
    config = TrainConfig.from_dict({**values, "minutes": 3, "eval_every": 0})
    run = train("tictactoe", config, out=tmp_path / "ttt", progress=False)
    game = make_game("tictactoe")
    figures = _check_tictactoe_bars(ckpt.load_checkpoint(run.checkpoint).net, game)
    assert figures["network alone"] >= 0.95, figures
    assert figures["search 50"] >= 0.99, figures
    assert figures["losses"] == 0, figures


@pytest.mark.slow
def test_the_shipped_tictactoe_checkpoint_meets_the_same_bar():
    checkpoint = ckpt.load_checkpoint(ckpt.resolve_checkpoint("tictactoe"))
    figures = _check_tictactoe_bars(checkpoint.net, checkpoint.game)
    assert figures["network alone"] >= 0.95, figures
    assert figures["search 50"] >= 0.99, figures
    assert figures["losses"] == 0, figures


def test_gating_keeps_self_play_on_the_best_network(tmp_path):
    """With a gate the learner's network does not pass, iteration 2's games are exactly the
    games the initial network plays (the seeds are the run's)."""
    from boardzoo.training.agents import training_agent
    from boardzoo.training.loop import _tasks
    from boardzoo.training.selfplay import play_games

    config = TrainConfig(**{**TINY, "gating_games": 4, "gating_threshold": 1.0})
    log = []
    train("tictactoe", config, out=tmp_path / "gated", progress=False, on_iteration=log.append)
    assert [row["promoted"] for row in log] == [0, 0], log
    assert all(0.0 <= row["gate_score"] <= 1.0 for row in log)
    torch.manual_seed(config.seed)
    game = make_game("tictactoe")
    initial = AlphaZeroNet.for_game(game, NetworkConfig(config.blocks, config.channels)).eval()
    # the initial network (version 0) played them, though the learner was at step 3
    agent = training_agent(initial, game, config, config.seed, self_play=True)
    expected = play_games(agent, config, _tasks(config, 2), network_step=0)
    with run_games(tmp_path / "gated") as games:
        assert [games.get_game(r["id"]) for r in expected] == expected
    assert not (tmp_path / "gated" / "best.pt").exists()


def test_self_play_gating_and_measurement_search_alike(tmp_path, monkeypatch):
    """Every agent a run plays with comes from one factory fed by the config: with a
    non-default c, the self-play, gating and measurement agents' search configurations are
    equal (self-play adds only its root noise)."""
    import boardzoo.arena
    from boardzoo.training import selfplay

    played: dict[str, list] = {"self-play": [], "matches": []}
    real_play_games, real_play_match = selfplay.play_games, boardzoo.arena.play_match

    def play_games(agent, *args, **kwargs):
        played["self-play"].append(agent)
        return real_play_games(agent, *args, **kwargs)

    def play_match(game, first, second, **kwargs):
        played["matches"].append((first, second))
        return real_play_match(game, first, second, **kwargs)

    monkeypatch.setattr(selfplay, "play_games", play_games)
    monkeypatch.setattr(boardzoo.arena, "play_match", play_match)
    config = TrainConfig(**{**TINY, "iterations": 1, "c": 0.7, "gating_games": 2,
                            "eval_every": 1, "eval_games": 2, "eval_references": ("random",)})
    train("tictactoe", config, out=tmp_path / "run", progress=False)
    (gate_new, gate_old), (measured, _random) = played["matches"]
    agents = [*played["self-play"], gate_new, gate_old, measured]
    game = make_game("tictactoe")
    configs = [agent.config_for(game) for agent in agents]
    assert played["self-play"] and all(c.dirichlet is not None for c in configs[:-3])
    assert configs[-1].c == 0.7 and configs[-1].dirichlet is None
    assert {c.replace(dirichlet=None, evaluator=None) for c in configs} == {
        configs[-1].replace(evaluator=None)}
    assert {(a.simulations, a.inference, a.temperature) for a in agents} == {
        (config.simulations, measured.inference, 0.0)}


def test_the_curve_is_redrawn_after_each_evaluation_not_only_at_the_end(tmp_path):
    """A run stopped by a signal never reaches its end: its curve must already show the
    evaluations made so far."""
    config = TrainConfig(**{**TINY, "iterations": 3, "eval_every": 2, "eval_games": 2,
                            "eval_references": ["random"]})
    curve = tmp_path / "run" / "curve.png"
    seen = []

    def look(row):
        seen.append((row["iteration"], curve.exists() and curve.stat().st_mtime_ns))

    train("tictactoe", config, out=tmp_path / "run", progress=False, on_iteration=look)
    assert seen[0] == (1, False)  # no evaluation yet: nothing drawn
    assert seen[1][0] == 2 and seen[1][1]  # drawn right after the first evaluation
    assert seen[2][0] == 3 and seen[2][1] > seen[1][1]  # the last evaluation redraws it


def test_two_worker_processes_store_every_game_once_with_logs(tmp_path):
    """Self-play in two spawned processes; TensorBoard and CSV logs and the curve written."""
    pytest.importorskip("tensorboard")
    config = TrainConfig(**{**TINY, "iterations": 1, "workers": 2, "games_per_iteration": 8})
    run = train("tictactoe", config, out=tmp_path / "w2", progress=False)
    assert run.games == 8 and run.step == 3
    with run_games(tmp_path / "w2") as games:
        assert games.game_ids() == {f"00001-{k:04d}" for k in range(8)}
    assert list((tmp_path / "w2" / "tensorboard").glob("events.out.tfevents.*"))
    assert (tmp_path / "w2" / "curve.png").stat().st_size > 1000
    header = (tmp_path / "w2" / "log.csv").read_text().splitlines()[0].split(",")
    assert {"iteration", "step", "loss", "policy_loss", "value_loss", "lr"} <= set(header)


@pytest.mark.parametrize(("reference", "message"), [
    ("wizard", "eval_references 'wizard': unknown agent 'wizard'"),
    ("alphazero:checkpoint=connect_four", "plays ConnectFour.*not TicTacToe"),
])
def test_a_reference_that_cannot_be_measured_is_refused_before_the_run(tmp_path, reference,
                                                                       message):
    """Not at the first measurement, minutes in: before any folder or game."""
    config = TrainConfig(**{**TINY, "iterations": 1, "eval_references": (reference,)})
    with pytest.raises(InvalidOptionError, match=message):
        train("tictactoe", config, out=tmp_path / "run", progress=False)
    assert not (tmp_path / "run").exists()
