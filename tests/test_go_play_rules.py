"""Go is one game in every front-end: the rules of play of boardzoo.knowledge.go.move_rules
in every searching agent's moves (the arena's, ``boardzoo play``'s, the page's, GTP's), in
batched self-play's, in the random agent's and in GTP's agents without a search, and one
final score (boardzoo.knowledge.go.scoring) for the arena, the page and GTP."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import numpy as np

from boardzoo.agents import make_agent
from boardzoo.agents.random import RandomAgent
from boardzoo.arena import play_timed_game
from boardzoo.cli import main
from boardzoo.envs import BoardGameEnv, go_v0
from boardzoo.envs.go import Go
from boardzoo.gtp.engine import GoGtpEngine
from boardzoo.knowledge.go import fills_own_eye
from boardzoo.web.search_view import go_end

DATA = Path(__file__).resolve().parent / "data"


def finished_games(count: int) -> list[dict]:
    """GNU Go self-play games ended by two passes, most with dead stones left on the board,
    with GNU Go's dead stones and score (benchmarks/go_dead_stones.py)."""
    lines = (DATA / "go_dead_stones.jsonl").read_text().splitlines()[:count]
    return [json.loads(line) for line in lines]


def test_the_arena_the_page_and_gtp_score_finished_games_alike():
    rows = finished_games(8)
    assert sum(bool(row["gnugo_dead"]) for row in rows) >= 5
    same_as_gnugo = 0
    for row in rows:
        game = Go(board_size=row["size"], komi=7.5)
        actions = [game.str_to_action(move.split()[1]) for move in row["moves"]]
        arena = play_timed_game(game, [RandomAgent(), RandomAgent()], actions)
        assert arena.moves == []  # the opening ended the game: the arena only scored it
        env = BoardGameEnv(game)
        env.reset(options={"moves": actions})
        page_dead, page_score = go_end(env)
        engine = GoGtpEngine(agent="random", board_size=row["size"], komi=7.5)
        for move in row["moves"]:
            assert engine.handle(f"play {move}") == "=\n\n"
        gtp_score = engine.handle("final_score")[2:].strip()
        gtp_dead = sorted(game.str_to_action(vertex) for vertex in
                          engine.handle("final_status_list dead")[2:].split())
        assert arena.result == page_score == gtp_score, row
        assert page_dead == gtp_dead
        same_as_gnugo += gtp_score == row["gnugo_score"]
    assert same_as_gnugo >= 6  # and the score is GNU Go's on most


class Recorder:
    """An agent's moves with the position and search behind each."""

    def __init__(self, agent: Any):
        self.agent = agent
        self.moves: list[tuple[np.ndarray, int, Any]] = []

    def act(self, env: Any) -> int:
        state = env.state_array.copy()
        action = int(self.agent.act(env))
        self.moves.append((state, action, self.agent.last_search))
        return action


def test_default_agents_never_fill_their_own_eye_in_the_arena():
    """The round robin's MCTS agents (Go's smaller budget) play a 5x5 game in the arena: no
    move fills the mover's own eye while the search visited another move; eyes were there
    to fill, and the game ended by passes."""
    game = Go(board_size=5, komi=0.5)
    agents = [Recorder(make_agent("mcts:simulations=100", seed=seed)) for seed in (1, 2)]
    played = play_timed_game(game, agents)
    n = game.size * game.size
    eye_fills_possible = 0
    for state, action, search in (move for agent in agents for move in agent.moves):
        legal = game.legal_mask(state)
        eye_fills_possible += any(legal[a] and fills_own_eye(state, a) for a in range(n))
        if action != game.pass_action and fills_own_eye(state, action):
            others = np.delete(search.visits, action)
            assert not others.any(), f"{game.action_to_str(action)} filled an own eye"
    assert eye_fills_possible > 0
    assert played.moves[-2:] == [game.pass_action] * 2 and len(played.moves) < 3 * n


def test_a_winning_pass_after_the_opponents_pass_is_played_without_a_search():
    agent = make_agent("mcts:simulations=50", seed=0)
    env = go_v0.env(board_size=5, komi=0.5)
    env.reset(options={"moves": [12, 25]})  # Black C3, White passes: Black owns the board
    result = agent.search(env)
    assert (result.action, result.engine) == (25, "rule")
    assert [move.move for move in agent.last_analysis.moves] == ["pass"]
    env = go_v0.env(board_size=5, komi=30.5)  # the same pass would lose by 5.5: searched
    env.reset(options={"moves": [12, 25]})
    result = agent.search(env)
    assert result.engine == "mcts" and result.action != 25
    assert agent.last_analysis.moves[0].action == result.action  # the move played first


def test_play_go_names_black_and_white_and_writes_the_result(monkeypatch, capsys):
    monkeypatch.setattr("builtins.input", lambda prompt="": "pass")
    args = ["play", "go", "--seat", "1", "--opponent", "mcts:simulations=50", "--seed", "1",
            "--option", "board_size=5", "--option", "komi=0.5"]
    assert main(args) == 0
    printed = capsys.readouterr().out
    assert "You are White (O)" in printed and re.search(r"Black plays [A-E][1-5]", printed)
    assert "player_" not in printed
    # one Black stone owns the 5x5 board: 25 points against White's komi
    assert ("Result: B+24.5 (area scoring, komi 0.5: Black 25, White 0.5; dead stones "
            "removed: none)") in printed
    monkeypatch.setattr("builtins.input", lambda prompt="": "resign")
    assert main(args[:3] + ["0"] + args[4:]) == 0
    assert "Black resigns. Result: W+R" in capsys.readouterr().out


# ------------------------------------------------------- batched self-play and GTP agents
def _self_play_move(game: Go, moves: list[int], summary: Any = None) -> tuple[int, Any, Any]:
    """The move batched self-play plays after ``moves`` (greedy, a full search), from the
    tiny network's batched search or from ``summary`` given; with the summary and the
    training target recorded."""
    import torch

    from boardzoo.agents.alphazero import AlphaZeroNet, NetworkConfig
    from boardzoo.training.agents import training_agent
    from boardzoo.training.config import TrainConfig
    from boardzoo.training.selfplay import GameTask, _Game, _play_move

    config = TrainConfig(blocks=1, channels=8, simulations=24, temperature_moves=0)
    state = game.initial_state()
    for action in moves:
        state = game.step(state, action)
    if summary is None:
        torch.manual_seed(0)
        net = AlphaZeroNet.for_game(game, NetworkConfig(1, 8)).eval()
        agent = training_agent(net, game, config, 0, self_play=True)
        summary = agent.search_many([state], config.simulations, noise=[None])[0]
    played = _Game(GameTask("g", 0), np.random.default_rng(0), state, True, list(moves), [],
                   full=True)
    _play_move(played, summary, game, config)
    return played.moves[-1], summary, played.targets[-1]


def _searched(game: Go, visits: dict[int, int]) -> Any:
    """A root summary with these visits per action, as a batched search returns it."""
    from boardzoo.agents.mcts.summary import TreeSummary

    actions = np.array(sorted(visits))
    counts = np.array([visits[a] for a in actions])
    return TreeSummary(game.num_actions, actions, counts, np.zeros(len(actions)),
                       np.full(len(actions), 1 / len(actions)), np.zeros(len(actions), int),
                       np.zeros(len(actions), int), 0.0, None, int(counts.sum()), {})


def test_batched_self_play_passes_when_passing_wins_after_the_opponents_pass():
    game = Go(board_size=5, komi=0.5)
    # Black C3, White passes: Black's pass ends the game and wins by 24.5, even where the
    # search preferred another move; the training target stays the search's visits
    action, _, target = _self_play_move(game, [12, 25], _searched(game, {7: 20, 25: 4}))
    assert action == game.pass_action
    assert target == {"ply": 2, "actions": [7, 25], "probs": [0.833333, 0.166667]}
    action, summary, _ = _self_play_move(game, [12, 25])  # the network's batched search
    assert action == game.pass_action and summary.visits.sum() > 0
    # the same pass would lose by 5.5: the search's move is played
    losing = Go(board_size=5, komi=30.5)
    assert _self_play_move(losing, [12, 25], _searched(losing, {7: 20, 25: 4}))[0] == 7
    action, summary, _ = _self_play_move(losing, [12, 25])
    assert action == int(summary.actions[np.argmax(summary.visits)])


def _own_eye_position() -> tuple[Go, list[int]]:
    """Black to move with an own eye at A5 (action 0), White's stones far off."""
    return Go(board_size=5, komi=0.5), [1, 24, 5, 23, 6, 18]


def test_batched_self_play_never_fills_an_own_eye_while_another_move_was_searched():
    game, moves = _own_eye_position()
    state = game.initial_state()
    for move in moves:
        state = game.step(state, move)
    assert fills_own_eye(state, 0) and not fills_own_eye(state, 12)
    action, _, target = _self_play_move(game, moves, _searched(game, {0: 10, 12: 5, 25: 1}))
    assert action == 12  # the most visited move that fills no own eye
    assert target["probs"] == [0.625, 0.3125, 0.0625]  # the search's visits, the eye fill's too
    action, _, _ = _self_play_move(game, moves, _searched(game, {0: 10, 25: 0}))
    assert action == game.pass_action  # nothing else searched: a pass, never the eye
    # from the network's own batched search: whatever it visits most, never the eye
    action, summary, _ = _self_play_move(game, moves)
    assert summary.visits.sum() > 0 and not fills_own_eye(state, action)


def _gtp_self_play(agent: str, size: int, seed: int) -> tuple[list[str], int]:
    """A scripted GTP session: ``genmove b``, ``genmove w``, ... until two passes in a row;
    every genmove checked not to fill the mover's own eye. Returns the moves and how many
    positions offered an own-eye fill."""
    engine = GoGtpEngine(agent=agent, board_size=size, komi=0.5, seed=seed)
    game, moves, eye_fills_offered = engine.game, [], 0
    while moves[-2:] != ["pass", "pass"]:
        state = engine.state
        legal = game.legal_mask(state)
        eye_fills_offered += any(legal[a] and fills_own_eye(state, a)
                                 for a in range(game.pass_action))
        reply = engine.handle(f"genmove {'bw'[len(moves) % 2]}")
        assert reply.startswith("= "), reply
        move = reply[2:].strip().lower()
        action = game.str_to_action(move)
        assert move == "pass" or not fills_own_eye(state, action), (moves, move)
        moves.append(move)
    assert engine.handle("quit") == "=\n\n"
    return moves, eye_fills_offered


def test_gtp_applies_the_rules_of_play_to_agents_without_a_search():
    """The uniformly random agent (``random``) plays by the rules of play through GTP, as
    ``random:rules_of_play=true`` does by itself: its games end by passes, before the move
    limit, and no move fills the mover's own eye."""
    for agent in ("random", "random:rules_of_play=true"):
        moves, eye_fills_offered = _gtp_self_play(agent, size=5, seed=0)
        assert eye_fills_offered > 0 and len(moves) < 3 * 25, (agent, moves)
    # the winning pass after the opponent's pass, which the agent alone would not play
    engine = GoGtpEngine(agent="random", board_size=5, komi=0.5, seed=0)
    assert engine.handle("play b C3") == engine.handle("play w pass") == "=\n\n"
    assert engine.handle("genmove b") == "= pass\n\n"


def test_a_random_agent_plays_by_the_rules_of_play_and_its_policy_says_so():
    game, moves = _own_eye_position()
    env = BoardGameEnv(game)
    env.reset(options={"moves": moves})
    state = env.state_array
    agent, free = RandomAgent(0, rules_of_play=True), RandomAgent(0)
    legal = np.flatnonzero(game.legal_mask(state))
    policy, uniform = agent.policy(env), free.policy(env)
    assert np.allclose(uniform[legal], 1 / len(legal)) and uniform[0] > 0
    assert policy[0] == 0 and np.isclose(policy[game.pass_action], 2 / len(legal))
    assert np.isclose(policy.sum(), 1.0)
    assert not any(agent.act(env) == 0 for _ in range(200))
    assert any(free.act(env) == 0 for _ in range(200))
    env.reset(options={"moves": [12, 25]})  # the winning pass after the opponent's pass
    assert agent.act(env) == game.pass_action and agent.policy(env)[game.pass_action] == 1.0
