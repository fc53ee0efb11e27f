"""Every example runs end to end with a tiny budget."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest
import torch

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def load(name: str):
    spec = importlib.util.spec_from_file_location(name, EXAMPLES / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def test_play_vs_mcts_plays_a_whole_game(capsys):
    example = load("play_vs_mcts")
    moves = iter(
        [
            "help",
            "9",
            "4",
            "4",
            "4",
            "4",
            "4",
            "4",
            "3",
            "3",
            "3",
            "3",
            "3",
            "3",
            "5",
            "5",
            "5",
            "5",
            "5",
            "5",
            "2",
            "2",
            "2",
            "2",
            "2",
            "2",
            "6",
            "6",
            "6",
            "6",
            "6",
            "6",
            "1",
            "1",
            "1",
            "1",
            "1",
            "1",
            "7",
            "7",
            "7",
            "7",
            "7",
            "7",
        ]
    )

    def read(prompt: str) -> str:
        return next(moves)

    example.main(example.Args(simulations=50), read=read)
    out = capsys.readouterr().out
    assert "legal moves:" in out and "not legal" in out and "MCTS plays" in out
    assert "wins" in out or "draw" in out


def test_ppo_tictactoe_example_trains_evaluates_and_saves(tmp_path, capsys):
    from boardzoo.agents import make_agent

    example = load("ppo_tictactoe")
    path = tmp_path / "ppo_ttt.pt"
    scores = example.main(example.Args(total_timesteps=512, eval_episodes=10, save=str(path)))
    assert abs(sum(scores.values()) - 1.0) < 1e-9
    assert "against random over 10 games" in capsys.readouterr().out
    assert make_agent(f"ppo:checkpoint={str(path)!r}").config["observation"] == "flat"


def test_ppo_selfplay_example_trains_saves_and_resumes(tmp_path):
    example = load("ppo_selfplay_connect_four")
    args = example.Args(
        total_timesteps=512,
        num_envs=8,
        scripted_envs=4,
        n_steps=16,
        batch_size=64,
        n_epochs=1,
        snapshot_every=128,
        save_every=256,
        eval_games=2,
        out=str(tmp_path),
        features="flatten",
        net_arch=(32,),
    )
    checkpoint = example.main(args)
    assert checkpoint.exists()
    lines = (tmp_path / "progress.txt").read_text().splitlines()
    resumed = example.main(example.Args(**{**vars(args), "total_timesteps": 1024}))
    assert resumed == checkpoint
    more = (tmp_path / "progress.txt").read_text().splitlines()
    assert len(more) > len(lines) and int(more[-1].split()[0]) >= 1024
    assert (tmp_path / f"ppo_connect_four_{more[-1].split()[0]}.pt").exists()  # kept copies


def test_ppo_selfplay_example_warm_starts_and_trains_against_an_agent(tmp_path):
    example = load("ppo_selfplay_connect_four")
    small = {"num_envs": 4, "scripted_envs": 0, "n_steps": 16, "batch_size": 32, "n_epochs": 1,
             "snapshot_every": 64, "save_every": 128, "eval_games": 2, "features": "flatten",
             "net_arch": (16,)}
    first = example.main(example.Args(total_timesteps=128, out=str(tmp_path / "a"), **small))
    copied = example.main(example.Args(total_timesteps=0, out=str(tmp_path / "w"),
                                       init=str(first), **small))
    weights = [torch.load(path, weights_only=True)["state_dict"] for path in (first, copied)]
    assert all(torch.equal(weights[0][k], weights[1][k]) for k in weights[0])
    mcts = "mcts:simulations=5,exact_solver=false"
    args = example.Args(total_timesteps=128, out=str(tmp_path / "b"), init=str(first),
                        agent_envs=2, agent_opponent=mcts, eval_agent=mcts, **small)
    example.main(args)
    line = (tmp_path / "b" / "progress.txt").read_text().splitlines()[-1]
    assert f"score vs {mcts}" in line
    with pytest.raises(SystemExit, match="net_arch"):
        example.main(example.Args(**{**vars(args), "out": str(tmp_path / "c"), "net_arch": (8,)}))


@pytest.mark.slow  # about a minute of CPU: a PPO run and a 5-player round robin
def test_compare_baselines_trains_ppo_then_rates_every_kind_of_player(tmp_path):
    example = load("compare_baselines")
    args = example.Args(ppo_timesteps=512, num_envs=8, scripted_envs=4, n_steps=16,
                        batch_size=64, snapshot_every=128, eval_every=256, eval_games=2,
                        references=("random",), alphazero="", mcts_simulations=(10, 40),
                        alphabeta_time=0.01, games_per_pair=2, out=str(tmp_path))
    example.main(args)
    curve = (tmp_path / "learning_curve.csv").read_text().splitlines()
    assert curve[0] == "steps,seconds,random" and len(curve) >= 3  # two points + the final one
    assert int(curve[-1].split(",")[0]) >= 512
    ratings = (tmp_path / "ratings.csv").read_text().splitlines()
    players = {line.split(",")[0] for line in ratings[1:]}
    assert players == {"random", "ppo", "alphabeta:time_limit=0.01", "mcts:simulations=10",
                       "mcts:simulations=40"}
    # every pair played its games once, all stored
    assert all(int(line.split(",")[4]) == 2 * 4 for line in ratings[1:])
    assert (tmp_path / "ratings.png").exists() and (tmp_path / "learning_curve.png").exists()


def test_negamax_gae_flips_the_sign_at_every_ply():
    """A hand-worked game: three plies, the third wins for its mover (who also made ply 0)."""
    gae = load("cleanrl_ppo_two_player").negamax_gae
    values = torch.tensor([[0.2], [-0.1], [0.4]])
    rewards, dones = torch.tensor([[0.0], [0.0], [1.0]]), torch.tensor([[0.0], [0.0], [1.0]])
    advantages = gae(rewards, values, torch.tensor([0.3]), dones, gamma=1.0, lam=1.0)
    returns = (advantages + values).flatten().tolist()
    assert returns == pytest.approx([1.0, -1.0, 1.0])  # the winner's plies +1, the loser's -1
    discounted = gae(rewards, values, torch.tensor([0.3]), dones, gamma=0.9, lam=1.0)
    assert (discounted + values).flatten().tolist() == pytest.approx([0.81, -0.9, 1.0])
    # no end in the rollout: the last ply bootstraps from the next position, negated
    open_game = gae(torch.zeros(1, 1), torch.tensor([[0.2]]), torch.tensor([0.5]),
                    torch.zeros(1, 1), gamma=1.0, lam=0.95)
    assert open_game.item() == pytest.approx(-0.5 - 0.2)


def test_cleanrl_two_player_example_trains_saves_and_resumes(tmp_path, capsys):
    example = load("cleanrl_ppo_two_player")
    args = example.Args(total_timesteps=256, num_envs=8, num_steps=16, num_minibatches=2,
                        update_epochs=1, channels=4, hidden=16, save_every=128, eval_games=2,
                        eval_opponent="alphabeta:depth=1",
                        out=str(tmp_path))
    example.main(args)
    lines = (tmp_path / "progress.txt").read_text().splitlines()
    assert [line.split()[0] for line in lines] == ["128", "256", "256"]
    assert "score vs random" in lines[-1] and "score vs alphabeta:depth=1" in lines[-1]
    state = torch.load(tmp_path / "state.pt", weights_only=True)
    assert state["step"] == 256
    example.main(example.Args(**{**vars(args), "total_timesteps": 384, "eval_games": 0}))
    assert (tmp_path / "progress.txt").read_text().splitlines()[-1].split()[0] == "384"
    capsys.readouterr()
    example.main(example.Args(**{**vars(args), "eval_only": True, "eval_seed": 5}))
    printed = capsys.readouterr().out.splitlines()[-1]
    assert printed.startswith("384 plies, 2 games, openings of seed 5: score vs random")
