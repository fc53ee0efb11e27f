"""The search as one object (MCTS: run, run_many, summaries), the move pipeline every
searching agent shares, and the game tags that let compiled searches be cached."""

from __future__ import annotations

import pickle
import subprocess
import sys

import numpy as np
import pytest

from boardzoo.agents import AlphaBetaAgent, MCTSAgent
from boardzoo.agents.mcts.config import MCTSConfig, config_for
from boardzoo.agents.mcts.rules import expand
from boardzoo.agents.mcts.search import MCTS, Budget
from boardzoo.agents.mcts.summary import summarize
from boardzoo.agents.mcts.tree import LOSS, PROVEN, WIN, Tree
from boardzoo.agents.move import SearchResult, analysis_of
from boardzoo.analysis import EXACT, MEAN
from boardzoo.envs import make_env, make_game, register_game, unregister_game
from boardzoo.envs.tags import game_tag, tag_game, tag_variant
from boardzoo.errors import InvalidOptionError
from boardzoo.rng import make_rng
from boardzoo.timecontrol import ClockView
from boardzoo.wrappers.model import EnvModel, Evaluation
from tests.connect_three import ConnectThree


class Uniform:
    """Uniform priors over the legal moves, value 0."""

    def __call__(self, observations, masks):
        return Evaluation(np.where(masks, 0.0, -np.inf), np.zeros(len(observations)))


def _search(evaluator=None, **settings) -> MCTS:
    rng = np.random.default_rng(0)
    config = MCTSConfig(selection="puct", evaluator=evaluator or Uniform(), solver=False,
                        **settings)
    return MCTS(config, rng, make_rng(rng), batch_size=1)


def test_run_many_searches_each_root_as_a_single_run_does():
    """One evaluator call per round for all trees gives each tree the search it would get
    alone (one leaf per call): the same visits, root by root."""
    env = make_env("connect_four")
    env.reset(options={"position": "4453"})
    model = EnvModel(env)
    game = model.game
    roots = [model.root(), game.step(model.root(), 3), game.initial_state()]
    together = _search().run_many(model, roots, 60)
    for root, summary in zip(roots, together, strict=True):
        alone = _search().run(model, root, Budget.of(60)).summary
        assert summary.visits.sum() == 59 and alone.visits.sum() == 59  # (root's own visit)
        assert summary.visit_counts().tolist() == alone.visit_counts().tolist()


def test_run_many_takes_a_budget_per_root_and_noise_only_where_asked():
    env = make_env("tictactoe")
    env.reset()
    model = EnvModel(env)
    roots = [model.root()] * 3
    plain = _search(dirichlet=(0.5, 0.3)).run_many(model, roots, [10, 30, 30])
    assert [int(s.visits.sum()) for s in plain] == [9, 29, 29]
    assert plain[1].visit_counts().tolist() == plain[2].visit_counts().tolist()
    noisy = _search(dirichlet=(0.5, 0.3)).run_many(
        model, roots, 30, noise=[None, np.random.default_rng(1), np.random.default_rng(1)])
    assert noisy[0].visit_counts().tolist() == plain[1].visit_counts().tolist()
    assert noisy[1].visit_counts().tolist() == noisy[2].visit_counts().tolist()
    assert noisy[1].priors().tolist() != plain[1].priors().tolist()  # the noise is there


def test_run_many_needs_a_network():
    env = make_env("tictactoe")
    env.reset()
    model = EnvModel(env)
    rng = np.random.default_rng(0)
    with pytest.raises(TypeError, match="network"):
        MCTS(MCTSConfig(), rng, make_rng(rng)).run_many(model, [model.root()], 4)


def test_the_summary_reads_the_root_for_the_side_to_move():
    """A hand-built root: three children (actions 0, 1, 2) with visits and values."""
    tree = Tree(16)
    expand(tree.ints, tree.floats, tree.meta, 0, 0, np.ones(3, bool), np.array([0.5, 0.3, 0.2]),
           np.zeros(3), 0.0, 0)  # (children in prior order: actions 0, 1, 2)
    tree.ints[[1, 2, 3], 4] = [6, 3, 0]  # VISITS
    tree.floats[[1, 2, 3], 0] = [3.0, -3.0, 0.0]  # VALUE (summed, mover's view)
    tree.ints[0, 4] = 10
    tree.floats[0, 0] = -2.0  # the root's mover is the other seat
    tree.ints[3, PROVEN] = WIN
    summary = summarize(tree, 3, solver=True)
    assert summary.visit_counts().tolist() == [6, 3, 0]
    assert summary.q_values()[:2].tolist() == [0.5, -1.0] and np.isnan(summary.q_values()[2])
    assert summary.value == pytest.approx(0.2) and summary.root_proven is None
    assert summary.policy(1.0).tolist() == pytest.approx([6 / 9, 3 / 9, 0])
    assert summary.proven.tolist() == [0, 0, WIN]
    assert MCTSAgent()._choose(summary, True, None) == 2  # a proven win comes first
    tree.ints[3, PROVEN] = LOSS
    assert MCTSAgent()._choose(summarize(tree, 3, solver=True), True, None) == 0


def test_config_takes_the_game_s_bundle_only_when_none_of_it_is_given():
    go = make_game("go").knowledge
    assert config_for(go, {}).rollout == "heuristic" and config_for(go, {}).rave
    assert config_for(go, {"selection": "uct"}).rollout == "random"  # the bundle is gone
    assert config_for(go, {"c": 0.3}).rave and config_for(go, {"c": 0.3}).c == 0.3
    assert config_for(go, {"rave": False}).c == 1.0  # RAVE's tuning goes with RAVE
    assert config_for(None, {"evaluator": Uniform()}).selection == "puct"
    with pytest.raises(InvalidOptionError, match="selection='ucb'"):
        config_for(None, {"selection": "ucb"})


def test_both_engines_give_one_result_type_with_their_units():
    env = make_env("connect_four")
    env.reset(options={"position": "4444"})
    mcts = MCTSAgent(simulations=200, seed=0, exact_solver=False).search(env)
    ab = AlphaBetaAgent(depth=3, seed=0).search(env)
    assert isinstance(mcts, SearchResult) and isinstance(ab, SearchResult)
    assert (mcts.unit, mcts.engine, mcts.nodes) == (MEAN, "mcts", 200)
    assert mcts.visits.shape == (7,) and ab.visits is None
    assert analysis_of(EnvModel(env), ab, final=True).engine == "alphabeta"


def test_both_engines_give_an_exact_answer_in_the_game_s_unit():
    """Connect Four with a win in one: the solver answers for either agent, in Pons'
    score (22 - the 4th stone = 18)."""
    env = make_env("connect_four")
    env.reset(options={"moves": [3, 3, 4, 4, 5, 5]})
    answers = [agent.search(env) for agent in (MCTSAgent(time_limit=5.0, seed=0),
                                               AlphaBetaAgent(time_limit=5.0, seed=0))]
    assert {(r.engine, r.unit, r.exact, r.value) for r in answers} == {
        ("solver", EXACT, True, 18)}
    assert {r.action for r in answers} <= {2, 6}


def test_one_rule_gives_the_solver_its_share_of_the_move(monkeypatch):
    """The solver gets all of the time limit (no clock), or of the time to the clock's
    maximum, but the share the engine keeps: nearly all for alpha-beta, less for MCTS."""
    asked = []

    def spy(knowledge, state, seconds, stop=None):
        asked.append(seconds)
        return None

    monkeypatch.setattr("boardzoo.agents.move.solve_if_affordable", spy)
    env = make_env("connect_four")
    env.reset(options={"position": "4455"})
    agents = (MCTSAgent(time_limit=0.2, seed=0), AlphaBetaAgent(time_limit=0.2, seed=0))
    for agent in agents:
        agent.search(env)
    assert asked == pytest.approx([0.2 * 0.6, 0.2 * 0.95])
    assert [agent.solver_share for agent in agents] == pytest.approx([0.6, 0.95])
    asked.clear()
    clock = ClockView(remaining=10.0)
    for agent in (MCTSAgent(seed=0), AlphaBetaAgent(seed=0)):
        agent.search(env, clock=clock)
    assert len(asked) == 2 and 0 < asked[0] < 10.0 * 0.6 and 0 < asked[1] < 10.0 * 0.95


def test_boardzoo_games_have_cacheable_tags_that_other_processes_find():
    tag = game_tag(make_game("connect_four"), leaf="random", priors="uniform")
    assert type(tag).cacheable and tag_game(tag).name == "connect_four"
    assert tag_variant(tag, "leaf") == "random" and tag_variant(tag, "missing", 3) == 3
    assert pickle.loads(pickle.dumps(tag)) == tag and type(pickle.loads(pickle.dumps(tag))) \
        is type(tag)
    code = (f"import pickle, boardzoo; t = pickle.loads({pickle.dumps(tag)!r}); "
            "print(type(t).__name__, type(t).game.name)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.split()
    assert out == [type(tag).__name__, "connect_four"]


def test_a_user_s_game_is_searched_by_code_compiled_in_its_process():
    register_game(ConnectThree)
    try:
        tag = game_tag(ConnectThree)
        assert not type(tag).cacheable
        assert not type(game_tag(make_game("nim"), evaluation=len)).cacheable  # a function
        env = make_env("connect_three")
        env.reset(options={"position": "1122"})
        result = MCTSAgent(simulations=300, seed=0).search(env)
        assert result.action == 2 and result.proven == "win"  # three in a row at once
    finally:
        unregister_game("connect_three")


def test_a_game_whose_knowledge_is_replaced_gets_a_tag_that_is_never_cached(monkeypatch):
    """Compiled code reads the game's knowledge when it compiles: code built while a test
    or a notebook has replaced it must not be cached under the game's name, where every
    later process would load it (an alpha-beta without Gomoku's evaluation did, once)."""
    from boardzoo.envs.gomoku import Gomoku

    shipped = game_tag(Gomoku)
    assert type(shipped).cacheable
    monkeypatch.setattr(Gomoku, "knowledge", None)
    replaced = game_tag(Gomoku)
    assert not type(replaced).cacheable and type(replaced) is not type(shipped)
    monkeypatch.undo()
    assert type(game_tag(Gomoku)) is type(shipped)
