"""benchmarks.go_strength's feature comparisons: each pits the feature against the same
default agent without it (the games themselves are the benchmark, not a test)."""

from __future__ import annotations

import numpy as np
import pytest

from benchmarks import go_strength
from benchmarks.go_strength import (
    GoWithLibertyPriors,
    GoWithLowLiberties,
    GoWithNakade,
    GoWithoutLadderPriors,
    GoWithoutLadders,
    GoWithoutPatterns,
    GoWithReplies,
    GoWithScore,
    OnOtherPlayouts,
    default_go_agent,
    feature_agents,
    tuned_agents,
)
from boardzoo.agents import MCTSAgent
from boardzoo.agents.mcts.kernels import leaf_value, search_tag
from boardzoo.envs import make_env, make_game
from boardzoo.envs.core import OUTCOME
from boardzoo.gtp import find_gnugo
from boardzoo.knowledge import go as knowledge
from boardzoo.rng import make_rng
from boardzoo.store import ResultsStore

needs_gnugo = pytest.mark.skipif(find_gnugo() is None,
                                 reason="GNU Go not installed (apt-get install gnugo)")


def resolved(agent: MCTSAgent, option: str):
    """The setting the agent plays Go with ("auto" resolved by the game's defaults)."""
    return getattr(agent.config_for(make_game("go")), option)


@pytest.mark.parametrize(("feature", "option", "value"), [
    ("rave", "rave", True),
    ("prior_visits", "prior_visits", 20.0),
    ("priors", "selection", "puct"),
    ("widening", "progressive_widening", True),
])
def test_each_feature_is_switched_on_one_side_only(feature, option, value):
    with_it, without = feature_agents(feature, 0.25, seed=3)
    assert isinstance(with_it, MCTSAgent) and isinstance(without, MCTSAgent)
    assert resolved(with_it, option) == value and resolved(without, option) != value
    assert with_it.time_limit == without.time_limit == 0.25


def test_patterns_compare_the_default_against_playouts_without_them():
    with_it, without = feature_agents("patterns", 0.25, seed=3, extra="c=0.5")
    assert isinstance(without, OnOtherPlayouts) and without.game_class is GoWithoutPatterns
    assert isinstance(with_it, MCTSAgent) and with_it.options["c"] == 0.5
    with pytest.raises(SystemExit, match="unknown feature 'semeai'"):
        feature_agents("semeai", 0.25, seed=3)



def test_tune_differs_from_the_default_in_the_options_tried_only():
    tried, default = tuned_agents("prior_visits=50,rave_k=300", 0.25, seed=3)
    assert resolved(tried, "prior_visits") == 50.0 and resolved(default, "prior_visits") == 20.0
    assert resolved(tried, "rave_k") == 300.0 and resolved(default, "rave_k") == 200.0
    assert resolved(tried, "c") == resolved(default, "c") == 0.1
    with pytest.raises(SystemExit, match="tune needs the options"):
        tuned_agents("", 0.25, seed=3)


def assert_plays_a_legal_move(agent) -> None:
    """The agent plays a legal move in the position of the env it is given."""
    env = make_env("go", board_size=7)
    env.reset(seed=0)
    action = agent.act(env)
    assert env.observe(env.agent_selection)["action_mask"][action]


@pytest.mark.parametrize(("feature", "game_class", "kernels"), [
    ("low_liberties", GoWithLowLiberties,
     (knowledge.low_liberty_playout_kernel, knowledge.low_liberty_playout_trace_kernel)),
    ("nakade", GoWithNakade,
     (knowledge.nakade_playout_kernel, knowledge.nakade_playout_trace_kernel)),
])
def test_playout_steps_compare_playouts_with_the_step_against_the_default(feature, game_class,
                                                                         kernels):
    with_it, without = feature_agents(feature, 0.05, seed=3)
    assert isinstance(without, MCTSAgent)
    assert isinstance(with_it, OnOtherPlayouts) and with_it.game_class is game_class
    assert (game_class.knowledge.playout_kernel,
            game_class.knowledge.playout_trace_kernel) == kernels
    assert_plays_a_legal_move(with_it)


def test_the_default_knowledge_reads_ladders_in_its_priors_and_playouts():
    assert knowledge.KNOWLEDGE.prior_kernel is knowledge.ladder_prior_kernel
    assert knowledge.KNOWLEDGE.playout_kernel is knowledge.ladder_playout_kernel
    assert knowledge.KNOWLEDGE.playout_trace_kernel is knowledge.ladder_playout_trace_kernel


@pytest.mark.parametrize(("feature", "game_class", "playouts"), [
    ("ladder_priors", GoWithoutLadderPriors, knowledge.ladder_playout_kernel),
    ("ladders", GoWithoutLadders, knowledge.pattern_playout_kernel),
])
def test_the_ladder_features_compare_the_default_against_knowledge_without_them(
        feature, game_class, playouts):
    with_it, without = feature_agents(feature, 0.05, seed=3)
    assert isinstance(with_it, MCTSAgent)
    assert isinstance(without, OnOtherPlayouts) and without.game_class is game_class
    assert game_class.knowledge.prior_kernel is knowledge.prior_kernel
    assert game_class.knowledge.playout_kernel is playouts


def test_replies_play_the_reply_playouts_under_rave_on_one_side_only():
    with_it, without = feature_agents("replies", 0.05, seed=3)
    assert isinstance(without, MCTSAgent)
    assert isinstance(with_it, OnOtherPlayouts) and with_it.game_class is GoWithReplies
    assert GoWithReplies.knowledge.playout_trace_kernel is knowledge.reply_playout_trace_kernel
    assert knowledge.KNOWLEDGE.playout_trace_kernel is knowledge.ladder_playout_trace_kernel
    assert_plays_a_legal_move(with_it)


def test_liberty_priors_add_the_two_liberty_terms_to_the_default_priors_on_one_side_only():
    with_it, without = feature_agents("liberty_priors", 0.05, seed=3)
    assert isinstance(without, MCTSAgent)
    assert isinstance(with_it, OnOtherPlayouts) and with_it.game_class is GoWithLibertyPriors
    assert GoWithLibertyPriors.knowledge.prior_kernel is knowledge.liberty_prior_kernel
    assert GoWithLibertyPriors.knowledge.playout_kernel is knowledge.KNOWLEDGE.playout_kernel
    assert_plays_a_legal_move(with_it)


def test_score_values_the_playouts_of_one_side_by_their_margin():
    with_it, without = feature_agents("score", 0.05, seed=3)
    assert isinstance(without, MCTSAgent)
    assert isinstance(with_it, OnOtherPlayouts) and with_it.game_class is GoWithScore
    assert GoWithScore.knowledge.playout_value_kernel is knowledge.score_playout_value
    assert knowledge.KNOWLEDGE.playout_value_kernel is None
    assert_plays_a_legal_move(with_it)


@pytest.mark.parametrize("rave", [True, False])
def test_the_search_s_playout_leaves_take_their_value_from_the_game_s_value_kernel(rave):
    """The seam: a leaf's value is the knowledge's playout value of the playout's end (the
    margin-shaded value for GoWithScore, the bare result for Go)."""
    for game, shaded in ((GoWithScore(board_size=5), True), (make_game("go", board_size=5),
                                                             False)):
        tag = search_tag(game, "heuristic", None, rave)
        trace = np.empty(3 * 25 + 2, np.int64)
        values, results = [], []
        for seed in range(5):
            state = game.initial_state()
            value, _ = leaf_value(tag, state, make_rng(seed), trace)
            results.append(1.0 if state[OUTCOME] == 1 else -1.0)
            expected = (knowledge.score_playout_value(state, state[OUTCOME]) if shaded
                        else results[-1])
            assert value == pytest.approx(expected)
            values.append(value)
        assert (values != results) == shaded


def test_the_default_agent_searches_one_tree_per_core_its_games_share(monkeypatch):
    """boardzoo gtp's agent: one tree per available core, the cores split between the games
    played at once, at most MAX_THREADS trees; the feature comparisons play it too."""
    monkeypatch.setattr(go_strength, "available_cores", lambda: 4)
    assert default_go_agent(1.0) == "mcts:threads=4,time_limit=1.0"
    assert default_go_agent(1.0, workers=2) == "mcts:threads=2,time_limit=1.0"
    assert default_go_agent(0.5, workers=4) == default_go_agent(0.5, workers=8) == (
        "mcts:time_limit=0.5")
    monkeypatch.setattr(go_strength, "available_cores", lambda: 64)
    assert default_go_agent(1.0) == "mcts:threads=8,time_limit=1.0"
    tried, default = tuned_agents("c=0.2", 0.25, seed=3, workers=2)
    assert tried.threads == default.threads == 8 and tried.options["c"] == 0.2
    with_it, without = feature_agents("rave", 0.25, seed=3, workers=16)
    assert with_it.threads == without.threads == 4


@needs_gnugo
@pytest.mark.slow
def test_a_ten_game_7x7_match_against_gnugo_is_played_stored_and_resumed(tmp_path, capsys):
    """Issue 15's CI smoke match: the default Go agent at 0.2 s a move against GNU Go level
    10 on 7x7 (komi 7.5). Every game is legal and ends, colours alternate in pairs on one
    opening, each game is stored once, and a second run plays none again."""
    store = tmp_path / "go7.sqlite"
    argv = ["gnugo", "--size", "7", "--games", "10", "--time", "0.2", "--store", str(store)]
    assert go_strength.main(argv) == 0
    played = capsys.readouterr().out
    assert played.count("/10 games") == 10
    with ResultsStore(store) as results:
        [(match_id, definition)] = results.matches()
        records = sorted(results.records(match_id).values(), key=lambda r: r["index"])
    assert definition["options"]["board_size"] == 7 and definition["options"]["komi"] == 7.5
    assert [r["index"] for r in records] == list(range(10))
    assert [r["agent_a_seat"] for r in records] == [0, 1] * 5
    for first, second in zip(records[::2], records[1::2], strict=True):
        assert first["opening"] == second["opening"]
    game = make_game("go", board_size=7, komi=7.5)
    for record in records:  # Game.replay checks each move's legality
        final = game.replay(record["opening"] + record["moves"])
        assert game.is_terminal(final) and list(game.returns(final)) == record["returns"]
    assert go_strength.main(argv) == 0
    again = capsys.readouterr().out
    assert [line for line in again.splitlines() if "/10 games" in line] == ["  10/10 games"]
    assert again.splitlines()[-1] == played.splitlines()[-1]  # the same score
