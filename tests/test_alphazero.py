"""AlphaZero's engine: the loss by hand, symmetries, the batched search against OpenSpiel's
MCTS and against itself, the evaluator seam, and the agent's options."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from boardzoo.agents import MCTSAgent, make_agent
from boardzoo.agents.alphazero import AlphaZeroAgent, AlphaZeroNet, NetworkConfig
from boardzoo.agents.alphazero.network import NetworkEvaluator, alphazero_loss
from boardzoo.envs import connect_four_v0, make_env, make_game, tictactoe_v0
from boardzoo.envs.symmetry import symmetries
from boardzoo.errors import CheckpointError, InvalidOptionError
from boardzoo.wrappers.model import EnvModel, Evaluation


class UniformEvaluator:
    """Uniform priors (equal logits) and value 0: search alone decides."""

    def __init__(self):
        self.calls, self.batch_sizes = 0, []

    def __call__(self, observations, masks):
        self.calls += 1
        self.batch_sizes.append(len(observations))
        return Evaluation(np.where(masks, 0.0, -np.inf), np.zeros(len(observations)))


def small_net(game, seed=0):
    torch.manual_seed(seed)
    return AlphaZeroNet.for_game(game, NetworkConfig(blocks=1, channels=8)).eval()


# ------------------------------------------------------------------------------ the loss
class _FixedNet(torch.nn.Module):
    """Logits and values fixed by hand; two weights whose squares sum to 5."""

    def __init__(self):
        super().__init__()
        self.w = torch.nn.Parameter(torch.tensor([1.0, 2.0]))

    def forward(self, planes):
        logits = torch.tensor([[0.0, math.log(3.0), 7.0], [0.0, 0.0, 0.0]]) + 0 * self.w.sum()
        return logits, torch.tensor([0.5, -0.5])


def test_loss_matches_the_formula_on_a_hand_computed_batch():
    # position 1: action 2 illegal -> p = (1/4, 3/4); pi = (1/2, 1/2); v = 0.5, z = 1
    #   policy term -(0.5 ln 0.25 + 0.5 ln 0.75) = 0.836988..., value term 0.25
    # position 2: all legal -> p = 1/3 each; pi = (1, 0, 0); v = -0.5, z = -1
    #   policy term ln 3 = 1.098612..., value term 0.25
    # mean: policy 0.967800..., value 0.25; l2 term 0.1 * (1 + 4) = 0.5
    masks = torch.tensor([[True, True, False], [True, True, True]])
    pi = torch.tensor([[0.5, 0.5, 0.0], [1.0, 0.0, 0.0]])
    z = torch.tensor([1.0, -1.0])
    loss, parts = alphazero_loss(_FixedNet(), torch.zeros(2, 1, 1, 1), masks, pi, z, l2=0.1)
    policy = (-(0.5 * math.log(0.25) + 0.5 * math.log(0.75)) + math.log(3.0)) / 2
    assert parts["policy_loss"] == pytest.approx(policy, abs=1e-6)
    assert parts["value_loss"] == pytest.approx(0.25, abs=1e-6)
    assert parts["l2"] == pytest.approx(5.0)
    assert loss.item() == pytest.approx(policy + 0.25 + 0.5, abs=1e-6)


def test_loss_gradients_are_finite_with_illegal_actions():
    game = make_game("connect_four")
    net = small_net(game)
    masks = torch.ones(4, 7, dtype=torch.bool)
    masks[:, 3] = False
    pi = torch.where(masks, 1.0 / 6, 0.0)
    loss, _ = alphazero_loss(net, torch.zeros(4, 6, 7, 2), masks, pi, torch.zeros(4), l2=1e-4)
    loss.backward()
    assert all(torch.isfinite(p.grad).all() for p in net.parameters() if p.grad is not None)


# --------------------------------------------------------------------------- symmetries
@pytest.mark.parametrize(
    "name, options, count",
    [("tictactoe", {}, 8), ("go", {"board_size": 5}, 8), ("gomoku", {"board_size": 7}, 8),
     ("othello", {"board_size": 6}, 8), ("connect_four", {}, 2), ("nim", {}, 1)],
)
def test_a_move_and_its_transformed_square_agree(name, options, count):
    """From a start position that a symmetry leaves unchanged, the transformed planes after
    move a are the planes after move action_map[a]; policies move with the same map."""
    game = make_game(name, **options)
    syms = symmetries(game)
    assert len(syms) == count and syms[0].name == "identity"
    start = game.initial_state()
    planes = game.observe(start, 0)
    invariant = [s for s in syms if np.array_equal(s.planes(planes), planes)]
    assert len(invariant) >= min(count, 4 if name == "othello" else count)
    checked = 0
    for sym in invariant:
        assert sorted(sym.action_map.tolist()) == list(range(game.num_actions))
        for action in game.legal_actions(start):
            mapped = int(sym.action_map[action])
            after = game.observe(game.step(start, action), 0)
            after_mapped = game.observe(game.step(start, mapped), 0)
            assert np.array_equal(sym.planes(after), after_mapped), (sym.name, action)
            one_hot = np.eye(game.num_actions)[action]
            assert sym.policy(one_hot)[mapped] == 1.0
            checked += 1
    assert checked > 0


def test_dihedral_maps_are_the_eight_distinct_permutations_and_keep_pass():
    game = make_game("go", board_size=5)
    maps = {tuple(s.action_map.tolist()) for s in symmetries(game)}
    assert len(maps) == 8
    assert all(m[-1] == 25 for m in maps)  # pass is pass on every board


# ------------------------------------------------------------ search vs OpenSpiel's MCTS
def _open_spiel_visits(moves: list[int], simulations: int, seeds: int) -> np.ndarray:
    pyspiel = pytest.importorskip("pyspiel")
    from open_spiel.python.algorithms import mcts

    class Uniform(mcts.Evaluator):
        def evaluate(self, state):
            return np.zeros(2)

        def prior(self, state):
            legal = state.legal_actions()
            return [(a, 1 / len(legal)) for a in legal]

    game = pyspiel.load_game("tic_tac_toe")
    state = game.new_initial_state()
    for move in moves:
        state.apply_action(move)
    visits = np.zeros(9)
    for seed in range(seeds):
        bot = mcts.MCTSBot(game, 1.5, simulations, Uniform(), solve=False,
                           random_state=np.random.RandomState(seed),
                           child_selection_fn=mcts.SearchNode.puct_value)
        for child in bot.mcts_search(state).children:
            visits[child.action] += child.explore_count
    return visits / visits.sum()


def _positions(rng, count, min_moves):
    game = make_game("tictactoe")
    out = []
    while len(out) < count:
        state, moves = game.initial_state(), []
        for _ in range(int(rng.integers(min_moves, 7))):
            if game.is_terminal(state):
                break
            move = int(rng.choice(game.legal_actions(state)))
            moves.append(move)
            state = game.step(state, move)
        if not game.is_terminal(state) and len(moves) >= min_moves:
            out.append(moves)
    return out


def test_uniform_network_search_matches_open_spiel_mcts():
    """PUCT with uniform priors and zero values against OpenSpiel's Python MCTSBot
    (puct_value, solve=False) on tic-tac-toe positions with 4+ stones, where every line ends
    inside the tree. Differences that remain, by design: OpenSpiel scores a terminal child
    by its outcome with no exploration bonus, uses sqrt(N_parent) with the parent's own
    first visit counted, expands a node on its second visit, and breaks ties by shuffling
    (we take the first in action order); OpenSpiel's visits are averaged over 5 seeds.
    Positions with two or more immediate wins are left out: there OpenSpiel's first win in
    shuffled order takes every visit (no bonus), while ours share them. Total-variation
    distances between the visit distributions measured this way: 0 to 0.04 on 9 of 10
    positions, 0.68 on one with two winning forks."""
    rng = np.random.default_rng(1)
    game = make_game("tictactoe")
    distances = []
    for moves in _positions(rng, 12, 4):
        state = game.replay(moves)
        wins = [a for a in game.legal_actions(state) if game.is_terminal(game.step(state, a))
                and game.returns(game.step(state, a))[game.to_play(state)] > 0]
        if len(wins) > 1:
            continue
        env = tictactoe_v0.env()
        env.reset(options={"moves": moves})
        agent = MCTSAgent(simulations=200, evaluator=UniformEvaluator(), c=1.5, solver=False,
                          exact_solver=False, unvisited_q=0.0, batch_size=1, cache_size=0)
        result = agent.search(env)
        ours = result.visits / result.visits.sum()
        theirs = _open_spiel_visits(moves, 200, seeds=5)
        distances.append(0.5 * np.abs(ours - theirs).sum())
    assert len(distances) >= 8
    # most positions agree to within a few visits in a hundred; an exception is a position
    # with two equally winning forks, where the tie-breaking differences above decide
    assert np.mean(np.array(distances) < 0.06) >= 0.8, distances
    assert np.median(distances) < 0.03, distances


# -------------------------------------------------------------- batching is the same search
@pytest.mark.parametrize("name", ["tictactoe", "connect_four"])
def test_k_games_in_one_batch_search_like_k_separate_searches(name):
    game = make_game(name)
    net = small_net(game, seed=3)
    rng = np.random.default_rng(0)
    states = []
    for _ in range(6):
        state = game.initial_state()
        for _ in range(int(rng.integers(0, 4))):
            state = game.step(state, int(rng.choice(game.legal_actions(state))))
        states.append(state)
    together = AlphaZeroAgent(net, game, simulations=40, batch_size=1, cache_size=0)
    batched = together.root_visits(states)
    assert together.statistics.calls < 6 * 40  # one network call served several trees
    for k, state in enumerate(states):
        env = make_env(name)
        env.reset(options={"position": game.position(state)})
        alone = AlphaZeroAgent(net, game, simulations=40, batch_size=1, cache_size=0)
        np.testing.assert_array_equal(alone.search(env).visits, batched[k])


def test_virtual_loss_batches_leaves_and_still_finds_the_win():
    env = connect_four_v0.env()
    env.reset(options={"position": "445566"})  # X to move wins with column 3 or 7
    evaluator = UniformEvaluator()
    agent = MCTSAgent(simulations=400, evaluator=evaluator, batch_size=16, exact_solver=False,
                      solver=False)
    result = agent.search(env)
    assert result.action in (2, 6)
    assert result.nodes == 400 and result.visits.sum() == 399
    env.reset()
    quiet = UniformEvaluator()
    agent = MCTSAgent(simulations=400, evaluator=quiet, batch_size=16, exact_solver=False)
    assert agent.search(env).visits.sum() == 399
    assert max(quiet.batch_sizes) == 16
    assert quiet.calls < 400 / 8


def test_an_evaluator_means_puct_and_no_exact_solver_for_alphazero():
    game = make_game("connect_four")
    assert MCTSAgent(evaluator=UniformEvaluator()).config_for(game).selection == "puct"
    env = connect_four_v0.env()
    rng = np.random.default_rng(4)
    moves = []
    while len(moves) < 16:  # 16 stones: within the exact solver's reach
        state = game.replay(moves)
        moves.append(int(rng.choice(game.legal_actions(state))))
        if game.is_terminal(game.replay(moves)):
            moves = []
    env.reset(options={"moves": moves})
    agent = AlphaZeroAgent(small_net(game), game, simulations=30)
    result = agent.search(env)
    assert result.nodes == 30 and result.visits.sum() > 0  # searched, not solved
    solved = AlphaZeroAgent(small_net(game), game, simulations=30, exact_solver=True)
    assert solved.search(env).engine == "solver"


def test_an_evaluator_works_on_any_pettingzoo_env():
    pytest.importorskip("pettingzoo.classic")
    from pettingzoo.classic import connect_four_v3

    env = connect_four_v3.env()
    env.reset(seed=0)
    for move in [3, 3, 4, 4, 5, 5]:
        env.step(move)
    model = EnvModel(env)
    assert model.observe(model.root()).shape == (6, 7, 2)
    agent = MCTSAgent(simulations=200, evaluator=UniformEvaluator(), batch_size=8)
    assert agent.act(env) in (2, 6)  # both complete four in the bottom row


def test_the_cache_serves_repeated_positions():
    game = make_game("tictactoe")
    agent = AlphaZeroAgent(small_net(game), game, simulations=100, reuse_tree=False)
    env = tictactoe_v0.env()
    env.reset()
    agent.search(env)
    first = agent.statistics.evaluations
    agent.search(env)
    assert agent.statistics.evaluations == first  # every position came from the cache
    assert agent.statistics.cache_hits > 0
    agent.clear_cache()
    agent.search(env)
    assert agent.statistics.evaluations > first


def test_symmetric_evaluation_is_invariant_under_the_symmetries():
    game = make_game("tictactoe")
    evaluator = NetworkEvaluator(small_net(game, seed=5), game, symmetric=True)
    state = game.replay([0, 4])
    planes = game.observe(state, game.to_play(state))[None]
    mask = game.legal_mask(state)[None]
    base = evaluator(planes, mask)
    for sym in symmetries(game)[1:]:
        moved = evaluator(sym.planes(planes), sym.policy(mask))
        np.testing.assert_allclose(moved.values, base.values, atol=1e-5)
        np.testing.assert_allclose(np.exp(moved.logits)[0][sym.action_map],
                                   np.exp(base.logits)[0], atol=1e-5)


# ------------------------------------------------------------------ the agent's surface
def test_wrong_game_and_bad_options_are_clear_errors():
    game = make_game("tictactoe")
    agent = AlphaZeroAgent(small_net(game), game, simulations=10)
    env = connect_four_v0.env()
    env.reset()
    with pytest.raises(InvalidOptionError, match="plays TicTacToe"):
        agent.act(env)
    with pytest.raises(InvalidOptionError, match="selection"):
        AlphaZeroAgent(small_net(game), game, selection="uct")
    with pytest.raises(InvalidOptionError, match="batch_size"):
        AlphaZeroAgent(small_net(game), game, batch_size=0)


def test_unknown_checkpoint_names_the_shipped_ones():
    with pytest.raises(CheckpointError, match="tictactoe"):
        AlphaZeroAgent.from_checkpoint("no_such_net")
    with pytest.raises((CheckpointError, InvalidOptionError), match="tictactoe"):
        make_agent("alphazero:checkpoint=no_such_net")


def test_make_agent_loads_the_shipped_tictactoe_checkpoint():
    agent = make_agent("alphazero:checkpoint=tictactoe,simulations=50", seed=0)
    env = tictactoe_v0.env()
    env.reset(options={"position": "XX.OO...."})
    assert agent.act(env) == 2  # X completes the top row


def test_gumbel_root_time_limit_and_policy_work_through_the_network():
    agent = make_agent("alphazero:checkpoint=tictactoe,selection='gumbel',simulations=64", seed=0)
    env = tictactoe_v0.env()
    env.reset(options={"position": "OO.XX...."})  # X to move: 5 wins, 2 blocks
    result = agent.search(env)
    assert result.action == 5 and 0 < result.nodes <= 64
    assert result.policy.sum() == pytest.approx(1.0) and result.policy[5] == result.policy.max()
    timed = make_agent("alphazero:checkpoint=tictactoe,time_limit=0.2", seed=0)
    env.reset()
    searched = timed.search(env)
    assert searched.nodes > 10 and searched.seconds < 2.0
    policy = timed.policy(env)
    assert policy.shape == (9,) and policy.sum() == pytest.approx(1.0)


def test_alphazero_without_a_checkpoint_plays_the_games_shipped_network():
    import gymnasium as gym

    import boardzoo  # noqa: F401  (registers the ids)
    from boardzoo.agents.alphazero.agent import checkpoint_name

    assert checkpoint_name(make_game("othello", board_size=6)) == "othello_6x6"
    assert checkpoint_name(make_game("connect_four")) == "connect_four"
    env = gym.make("boardzoo/TicTacToe-v0", opponent="alphazero:simulations=20", seat=1)
    env.reset(seed=0)  # the network (X) has moved first
    assert env.unwrapped.action_masks().sum() == 8
    c4 = gym.make("boardzoo/ConnectFour-v0", opponent="alphazero:simulations=20", seat=1)
    c4.reset(seed=0)
    assert c4.unwrapped.action_masks().sum() == 7  # one stone in: no column is full yet
    small = gym.make("boardzoo/Othello-v0", opponent="alphazero:simulations=20", seat=1,
                     board_size=6)
    small.reset(seed=0)  # the 6x6 network (Black) has moved first: White has 3 replies
    assert small.unwrapped.action_masks().sum() == 3
    with pytest.raises(InvalidOptionError, match="no shipped AlphaZero network for .*'othello'"
                       ".*shipped: connect_four, othello_6x6, tictactoe"):
        gym.make("boardzoo/Othello-v0", opponent="alphazero", seat=1)  # refused when made


def _subnormal_count(net: AlphaZeroNet) -> int:
    tiny = torch.finfo(torch.float32).tiny
    return sum(int(((t != 0) & (t.abs() < tiny)).sum())
               for t in (*net.parameters(), *net.buffers()) if t.is_floating_point())


def test_subnormal_weights_are_zeroed_on_load_and_by_each_training_step(tmp_path):
    """Subnormal weights (weight decay leaves them in dead channels) slow CPU arithmetic
    tens of times; loading and training zero them, and no output changes."""
    from boardzoo.agents.alphazero.checkpoint import load_checkpoint, save_checkpoint
    from boardzoo.training import TrainConfig
    from boardzoo.training.learner import Learner

    game = make_game("tictactoe")
    net = small_net(game)
    with torch.no_grad():
        net.stem[0].weight[:4].mul_(1e-39)  # four stem channels decayed to subnormals
        net.stem[1].running_var[:2] = 1e-40
    env = tictactoe_v0.env()
    observations = []
    for moves in _positions(np.random.default_rng(0), 6, 1):
        env.reset()
        for move in moves:
            env.step(move)
        observations.append(env.last()[0]["observation"])
    planes = torch.from_numpy(np.stack(observations).astype(np.float32))
    assert _subnormal_count(net) > 100
    with torch.inference_mode():
        before = net(planes)
    save_checkpoint(tmp_path / "net.pt", game, net, step=1)
    loaded = load_checkpoint(tmp_path / "net.pt").net
    assert _subnormal_count(loaded) == 0
    with torch.inference_mode():
        after = loaded(planes)
    for old, new in zip(before, after, strict=True):
        np.testing.assert_allclose(new.numpy(), old.numpy(), rtol=0, atol=1e-30)
    for old, new in zip(net.state_dict().values(), loaded.state_dict().values(), strict=True):
        normal = old.abs() >= torch.finfo(torch.float32).tiny
        assert torch.equal(new[normal], old[normal])  # only the subnormals changed

    learner = Learner(net.train(), TrainConfig(learning_rate=1e-3))
    masks = np.ones((8, game.num_actions), bool)
    batch = (np.zeros((8, *planes.shape[1:]), np.float32), masks,
             np.full(masks.shape, 1 / game.num_actions, np.float32), np.zeros(8, np.float32))
    with torch.no_grad():
        net.stem[0].weight[:4].mul_(1e-39)
    learner.fit([batch], 1)
    assert _subnormal_count(net) == 0
