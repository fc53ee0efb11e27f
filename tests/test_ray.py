"""The Ray backend against the local one: the same games, every game stored once, a dying
self-play actor and a dying tournament worker survived. One local Ray instance (2 CPUs, a
small object store) for the whole module."""

from __future__ import annotations

import importlib.util
import os
import signal
from dataclasses import replace
from functools import partial
from pathlib import Path

import pytest
import torch

from boardzoo.agents import make_agent
from boardzoo.arena import agent_spec, tournament
from boardzoo.cli import main as cli_main
from boardzoo.executor import LocalExecutor, RayExecutor
from boardzoo.store import ResultsStore
from boardzoo.training import TrainConfig, run_games, train

pytestmark = pytest.mark.skipif(importlib.util.find_spec("ray") is None,
                                reason="Ray is not installed (pip install 'boardzoo[ray]')")

TINY = dict(minutes=None, iterations=2, blocks=1, channels=8, games_per_iteration=6,
            parallel_games=3, simulations=12, fast_simulations=4, full_search_prob=0.5,
            batch_size=16, replay_window=500, eval_every=0, train_steps_per_iteration=3)
AGENTS = ("mcts:simulations=16", "random")


@pytest.fixture(scope="module")
def cluster():
    """A loopback-only Ray instance started by the executor itself (2 CPUs, 128 MiB store),
    reused by every executor of the module."""
    with RayExecutor(workers=2, object_store_bytes=128 * 2**20) as executor:
        yield executor


@pytest.fixture(scope="module")
def local_run(tmp_path_factory):
    """The reference: TINY trained with the local backend in this process."""
    out = tmp_path_factory.mktemp("local") / "run"
    run = train("tictactoe", TrainConfig(**TINY), out=out, progress=False)
    return run, _games(out)


def _games(out: Path) -> dict[str, dict]:
    with run_games(out) as games:
        return {name: games.get_game(name) for name in games.game_ids()}


def _weights(path: Path) -> dict:
    from boardzoo.torch_files import safe_torch_load

    return safe_torch_load(path)["weights"]


def _same_weights(a: Path, b: Path) -> bool:
    wa, wb = _weights(a), _weights(b)
    return wa.keys() == wb.keys() and all(torch.equal(wa[k], wb[k]) for k in wa)


def test_the_local_instance_is_private_and_on_loopback(cluster):
    import ray

    context = ray.get_runtime_context()
    assert context.gcs_address.startswith("127.0.0.1:"), context.gcs_address
    assert {node["NodeManagerAddress"] for node in ray.nodes()} == {"127.0.0.1"}
    assert ray.cluster_resources()["CPU"] == 2
    assert cluster._temp_dir is not None and cluster._temp_dir.startswith("/tmp/bzray-")
    assert Path(cluster._temp_dir, "session_latest").exists()  # its files in its own folder


def test_training_on_ray_gives_the_local_games_and_weights(cluster, local_run, tmp_path):
    """Two self-play actors: the same game ids, records (network versions included) and
    weights as one local worker; each game stored once, by the driver."""
    reference, reference_games = local_run
    out = tmp_path / "ray"
    with RayExecutor(workers=2) as executor:
        run = train("tictactoe", TrainConfig(**TINY), out=out, progress=False,
                    backend=executor)
    games = _games(out)
    assert sorted(games) == sorted(reference_games) == [
        f"{it:05d}-{k:04d}" for it in (1, 2) for k in range(6)]
    assert games == reference_games
    assert {r["network_step"] for r in games.values()} == {0, 3}  # the version that played
    assert run.games == 12 and run.step == reference.step == 6
    assert _same_weights(run.checkpoint, reference.checkpoint)


class _DiesMidGame:
    """A self-play worker whose process exits after ``moves`` moves of its first chunk, once
    per ``marker`` file (Ray restarts the actor and retries the chunk)."""

    def __init__(self, factory, marker: str, moves: int = 5):
        self.worker = factory()
        if not os.path.exists(marker):
            step, played = self.worker.game.step, []

            def dying_step(state, action):
                played.append(action)
                if len(played) == moves:
                    Path(marker).write_text(str(os.getpid()))
                    os._exit(1)
                return step(state, action)

            self.worker.game.step = dying_step

    def load(self, *args):
        self.worker.load(*args)

    def play(self, tasks):
        return self.worker.play(tasks)


class _OneActorDies(RayExecutor):
    def __init__(self, marker: Path):
        super().__init__(workers=2)
        self.marker = str(marker)

    def worker_pool(self, factory):
        return super().worker_pool(partial(_DiesMidGame, factory, self.marker))


def test_a_self_play_actor_killed_mid_game_loses_and_doubles_nothing(cluster, local_run,
                                                                      tmp_path):
    reference, reference_games = local_run
    marker = tmp_path / "died"
    with _OneActorDies(marker) as executor:
        run = train("tictactoe", TrainConfig(**TINY), out=tmp_path / "run", progress=False,
                    backend=executor)
    assert marker.exists() and int(marker.read_text()) != os.getpid()  # an actor died
    assert _games(tmp_path / "run") == reference_games  # replayed once, identically
    assert run.iteration == 2 and _same_weights(run.checkpoint, reference.checkpoint)


class _RecordsLearnerActors(RayExecutor):
    """One self-play actor; keeps every learner actor it starts."""

    def __init__(self):
        super().__init__(workers=1)
        self.learners: list = []

    def actor(self, factory, gpus=0):
        self.learners.append(super().actor(factory, gpus))
        return self.learners[-1]


def test_a_learner_actor_trains_the_local_weights_and_is_replaced_when_killed(
        cluster, local_run, tmp_path):
    """learner="actor": the gradient steps run in a Ray actor (on a GPU node where the
    cluster has one; here on a CPU); its process is killed after iteration 1, a new actor
    takes the last state and the run ends with the local run's games and weights."""
    import ray

    reference, reference_games = local_run
    killed: list[int] = []
    with _RecordsLearnerActors() as executor:
        assert executor.gpus() == 0

        def kill_the_learner(row: dict) -> None:
            if row["iteration"] == 1:
                killed.append(ray.get(executor.learners[-1].handle.pid.remote()))
                os.kill(killed[-1], signal.SIGKILL)

        run = train("tictactoe", TrainConfig(**TINY, learner="actor"), out=tmp_path / "run",
                    progress=False, backend=executor, on_iteration=kill_the_learner)
        assert len(executor.learners) == 2 and killed and killed[0] != os.getpid()
    assert _games(tmp_path / "run") == reference_games
    assert run.step == reference.step and _same_weights(run.checkpoint, reference.checkpoint)


class _DiesInAGame:
    """An agent whose process exits on its 3rd move, once per ``marker`` file."""

    def __init__(self, agent, marker: str):
        self.agent, self.marker, self.moves = agent, marker, 0
        self.spec = agent_spec(agent)

    def reseed(self, seed: int) -> None:
        self.agent.reseed(seed)

    def act(self, env):
        self.moves += 1
        if self.moves == 3 and not os.path.exists(self.marker):
            Path(self.marker).write_text(str(os.getpid()))
            os._exit(1)
        return self.agent.act(env)


def _agents() -> dict:
    return {spec.split(":")[0]: make_agent(spec, seed=k) for k, spec in enumerate(AGENTS)}


def _untimed(records: list) -> list:
    return [replace(record, seconds=[]) for record in records]


def test_a_tournament_on_ray_matches_the_local_one_and_survives_a_dying_worker(
        cluster, tmp_path):
    kwargs = dict(games_per_pair=6, seed=3, opening_plies=2)
    local = tournament("tictactoe", _agents(), **kwargs, executor=LocalExecutor(1))
    agents = _agents()
    marker = tmp_path / "died"
    agents["mcts"] = _DiesInAGame(agents["mcts"], str(marker))
    store = tmp_path / "results.sqlite"
    with RayExecutor(workers=2) as executor:
        on_ray = tournament("tictactoe", agents, **kwargs, store=store, executor=executor)
    assert marker.exists() and int(marker.read_text()) != os.getpid()  # a worker died
    assert on_ray.matches.keys() == local.matches.keys()
    for pair, match in local.matches.items():  # seeded agents: the same games
        assert _untimed(on_ray.matches[pair].records) == _untimed(match.records)
    with ResultsStore(store) as results:
        counts = [results.count(match_id) for match_id, _ in results.matches()]
    assert counts == [6]  # every game stored exactly once


def test_the_cli_runs_on_ray(cluster, tmp_path, capsys):
    code = cli_main(["arena", "tictactoe", "--agents", "random alphabeta:depth=1", "--games",
                     "2", "--backend", "ray", "--workers", "2", "--out", str(tmp_path)])
    assert code == 0
    assert "2 ray worker(s)" in capsys.readouterr().out
    with ResultsStore(tmp_path / "results.sqlite") as results:
        assert [results.count(m) for m, _ in results.matches()] == [2]
    assert cli_main(["arena", "tictactoe", "--ray-address", "auto"]) == 2
    assert "use it with --backend ray" in capsys.readouterr().err
