"""Root parallelism (MCTSAgent(threads=N), boardzoo.agents.mcts.parallel): the helper trees'
root statistics join the agent's by action, once each, and the agent still plays well."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

from boardzoo.agents import MCTSAgent
from boardzoo.agents.mcts import fast
from boardzoo.agents.mcts.parallel import RootHelpers
from boardzoo.agents.mcts.tree import ACTION, COUNT, FIRST, SIZE, VALUE, VISITS, Tree
from boardzoo.envs import make_env
from boardzoo.errors import InvalidOptionError
from boardzoo.testing import random_trajectory
from boardzoo.wrappers.model import EnvModel, Evaluation


def tree_with_root_children(stats: dict[int, tuple[int, float]]) -> Tree:
    """A tree whose root has one child per action, in the order given: (visits, value sum)."""
    tree = Tree(capacity=16)
    tree.ints[0, FIRST], tree.ints[0, COUNT] = 1, len(stats)
    for row, (action, (visits, value)) in enumerate(stats.items(), start=1):
        tree.ints[row, ACTION], tree.ints[row, VISITS] = action, visits
        tree.floats[row, VALUE] = value
    tree.ints[0, VISITS] = sum(v for v, _ in stats.values())
    tree.meta[SIZE] = len(stats) + 1
    return tree


def root_stats(tree: Tree) -> dict[int, tuple[int, float]]:
    return {int(tree.ints[c, ACTION]): (int(tree.ints[c, VISITS]), float(tree.floats[c, VALUE]))
            for c in tree.children()}


def test_helper_statistics_join_by_action_and_only_what_is_new():
    helpers = RootHelpers(1, 1 << 16, np.random.default_rng(0))
    main = tree_with_root_children({0: (10, 4.0), 1: (5, -1.0), 2: (1, 0.5)})
    helpers.trees[0] = tree_with_root_children({2: (3, 1.5), 0: (6, 3.0), 1: (2, 0.0)})
    helpers._merge_into(main)
    assert root_stats(main) == {0: (16, 7.0), 1: (7, -1.0), 2: (4, 2.0)}
    assert main.ints[0, VISITS] == 16 + 11
    # the helper searches on: the next merge adds only its new visits and values
    helper = helpers.trees[0]
    helper.ints[1, VISITS] += 2
    helper.floats[1, VALUE] += 1.0
    helpers._merge_into(main)
    assert root_stats(main) == {0: (16, 7.0), 1: (7, -1.0), 2: (6, 3.0)}
    assert main.ints[0, VISITS] == 29
    helpers.start_search(lambda tree: 0)  # pondered into our own position: all kept
    assert helpers.trees[0].size == 4 and helpers._merged[0]
    helpers.start_search(lambda tree: -1)  # a new position: the tree and its ledger start anew
    assert helpers.trees[0].size == 1 and not helpers._merged[0]


def go_position(moves: int = 10):
    env = make_env("go", board_size=9)
    env.reset(seed=0)
    random_trajectory(env, seed=0, plies=moves)
    return env


def test_two_trees_add_their_simulations_to_one_root():
    env = go_position()
    agent = MCTSAgent(simulations=3000, threads=2, seed=0)
    result = agent.search(env)
    assert result.nodes > 3000  # the helper ran beside the agent's own 3,000
    assert result.visits.sum() == pytest.approx(result.nodes, abs=2)
    alone = MCTSAgent(simulations=3000, seed=0).search(env)
    assert alone.nodes <= 3000 < result.nodes


def test_helper_trees_keep_the_subtree_of_the_reply_and_add_it_once():
    env = go_position()
    agent = MCTSAgent(simulations=3000, threads=2, seed=0)
    ours = agent.act(env)
    env.step(ours)
    search = agent.searcher(EnvModel(env))
    helper = search.helpers.trees[0]
    replies = [{int(tree.ints[child, ACTION]): child
                for child in tree.children(fast.root_child_of_action(tree.ints, ours))}
               for tree in (search.tree, helper)]
    reply = max(replies[0].keys() & replies[1].keys(),
                key=lambda action: helper.ints[replies[1][action], VISITS])
    kept = [replies[0][reply], replies[1][reply]]
    env.step(reply)
    # what the two trees had searched below the reply joins the new search's root, once
    before = sum(tree.ints[list(tree.children(node)), VISITS].sum()
                 for tree, node in zip((search.tree, helper), kept, strict=True))
    assert before > 0
    result = agent.search(env)
    assert result.visits.sum() == pytest.approx(result.nodes + before, abs=2)


def test_threads_find_the_capture_and_survive_pickling():
    """Connect Four: the immediate win, by a pickled (arena worker) agent with two trees."""
    env = make_env("connect_four")
    env.reset(options={"position": "445566"})  # X to move wins at column 3 (7 also blocks)
    agent = pickle.loads(pickle.dumps(MCTSAgent(time_limit=0.3, threads=2, exact_solver=False,
                                                seed=1)))
    for _ in range(3):
        assert agent.act(env) in (2, 6)


def test_threads_are_checked():
    with pytest.raises(InvalidOptionError, match="threads=0"):
        MCTSAgent(threads=0)

    def uniform(observations, masks):
        return Evaluation(np.zeros(masks.shape), np.zeros(len(masks)))

    with pytest.raises(InvalidOptionError, match="batches its leaves"):
        MCTSAgent(threads=2, evaluator=uniform)
