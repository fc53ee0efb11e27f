"""Go is one game in every front-end: the rules of play of boardzoo.knowledge.go.move_rules
in every searching agent's moves (the arena's, ``boardzoo play``'s, the page's, GTP's), and
one final score (boardzoo.knowledge.go.scoring) for the arena, the page and GTP."""

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
