"""Chess search knowledge: the evaluation's sign and colour symmetry, the tactical move
values, the null move, and alpha-beta solving mate-in-N puzzles, each move checked by a
brute-force mate search in python-chess (the oracle)."""

from __future__ import annotations

import chess
import numpy as np
import pytest

from boardzoo.agents import AlphaBetaAgent, MCTSAgent
from boardzoo.envs import make_env
from boardzoo.envs.chess_moves import KEY, TO_PLAY
from boardzoo.knowledge.chess import (
    EXCHANGE_VALUE,
    centipawns,
    centipawns_white,
    evaluate_kernel,
    exchange_value,
    moves_kernel,
    mvv_lva_kernel,
    null_move_kernel,
    tactical_kernel,
)


def env_at(fen: str):
    env = make_env("chess", illegal_action="raise")
    env.reset(options={"position": fen})
    return env


def random_positions(count: int, seed: int) -> list[chess.Board]:
    """Positions from random games played by python-chess."""
    rng = np.random.default_rng(seed)
    boards = []
    for _ in range(count):
        board = chess.Board()
        for _ in range(int(rng.integers(4, 60))):
            moves = list(board.legal_moves)
            if not moves:
                break
            board.push(moves[int(rng.integers(len(moves)))])
        if not board.is_game_over():
            boards.append(board)
    return boards


def test_evaluation_of_a_position_and_its_colour_flipped_mirror_are_opposite():
    """White's view of a position is minus White's view of the position with colours
    swapped and the board mirrored (python-chess's ``Board.mirror``); from the side to move's
    view the two are equal."""
    for board in random_positions(40, seed=1):
        state = env_at(board.fen()).state_array
        mirror = env_at(board.mirror().fen()).state_array
        assert centipawns_white(state) == pytest.approx(-centipawns_white(mirror))
        assert evaluate_kernel(state) == pytest.approx(evaluate_kernel(mirror))


def test_evaluation_sign_follows_material_and_side_to_move():
    up_a_queen = "4k3/8/8/8/8/8/8/3QK3 {} - - 0 1"
    white = evaluate_kernel(env_at(up_a_queen.format("w")).state_array)
    black = evaluate_kernel(env_at(up_a_queen.format("b")).state_array)
    assert 0.5 < white < 1 and black == pytest.approx(-white)
    assert evaluate_kernel(env_at(chess.STARTING_FEN).state_array) == 0.0
    assert 800 < centipawns(white) < 1300  # a queen, in PeSTO's endgame values plus squares


def test_tactical_values_order_captures_by_victim_then_attacker():
    """MVV-LVA: pawn takes queen above queen takes queen above pawn takes pawn; quiet 0."""
    env = env_at("4k3/8/3q4/2P1p3/8/8/3Q4/4K3 w - - 0 1")
    state = env.state_array

    def value(uci: str) -> int:
        return int(tactical_kernel(state, env.str_to_action(uci)))

    assert value("c5d6") > value("d2d6") > 0  # pawn takes queen, queen takes queen
    assert value("d2d6") > value("d2d5") == 0  # queen takes queen; a quiet queen move
    promotion = env_at("4k3/1P6/8/8/8/8/8/4K3 w - - 0 1")
    assert tactical_kernel(promotion.state_array, promotion.str_to_action("b7b8q")) > 0
    assert tactical_kernel(promotion.state_array, promotion.str_to_action("b7b8n")) == 0


#: EXCHANGE_VALUE by python-chess's piece types (pawn 1 .. king 6)
VALUE = [0, *(int(v) for v in EXCHANGE_VALUE)]


def swap_off(board: chess.Board, square: int, on_square: int) -> int:
    """What the side to move gains at most by going on capturing on ``square`` (0 when it
    stops), ``on_square`` the value of the piece standing there: a minimax over
    python-chess's pseudo-legal captures onto the square (pins ignored, kings capturable,
    a pawn promoting counted as a pawn), the static exchange evaluation's own model."""
    best = 0
    for move in list(board.generate_pseudo_legal_captures(to_mask=chess.BB_SQUARES[square])):
        if move.promotion not in (None, chess.QUEEN):
            continue
        mover = VALUE[chess.PAWN if move.promotion else board.piece_type_at(move.from_square)]
        board.push(move)
        best = max(best, on_square - swap_off(board, square, mover))
        board.pop()
    return best


def test_static_exchange_values_are_python_chess_swap_offs():
    """Every capture by a piece (not a pawn) in random positions: the exchange value equals
    the brute-force swap-off; a losing one by a more valuable piece is quiet for the
    search, any other capture keeps its MVV-LVA value."""
    checked = losing = 0
    for board in random_positions(60, seed=3):
        env = env_at(board.fen())
        state = env.state_array
        for move in board.generate_legal_captures():
            attacker = board.piece_type_at(move.from_square)
            if attacker == chess.PAWN:
                continue
            victim = board.piece_type_at(move.to_square)
            board.push(move)
            expected = VALUE[victim] - swap_off(board, move.to_square, VALUE[attacker])
            board.pop()
            action = env.str_to_action(move.uci())
            assert exchange_value(state, move.from_square, move.to_square, victim - 1) == \
                expected, (board.fen(), move.uci())
            loses = expected < 0 and VALUE[attacker] > VALUE[victim]
            assert tactical_kernel(state, action) == (0 if loses else mvv_lva_kernel(state,
                                                                                  action))
            checked, losing = checked + 1, losing + loses
    assert checked > 100 and losing > 10


def listed(fen: str, tactical_only: bool) -> set[str]:
    """The UCI moves of the knowledge's move list in ``fen``."""
    env = env_at(fen)
    out = np.empty(256, np.int64)
    count = moves_kernel(env.state_array, out, tactical_only)
    return {env.action_to_str(int(action)) for action in out[:count]}


def test_move_lists_are_python_chess_legal_moves_and_captures():
    """The search's move list: python-chess's legal moves; its quiescence list: the captures
    (en passant included) and queen promotions among them."""
    for board in random_positions(40, seed=5):
        assert listed(board.fen(), False) == {move.uci() for move in board.legal_moves}
        assert listed(board.fen(), True) == {
            move.uci() for move in board.legal_moves
            if board.is_capture(move) or move.promotion == chess.QUEEN}
    assert listed("4k3/1P6/8/3pP3/8/8/8/4K3 w - d6 0 2", True) == {"e5d6", "b7b8q"}


def test_null_move_passes_except_in_pawn_endings():
    env = env_at("4k3/8/8/3pP3/8/8/8/3QK3 w - d6 0 2")
    state = env.state_array
    passed = state.copy()
    assert null_move_kernel(passed)
    # the position with black to move and no en passant has the key the rules give it
    assert passed[KEY] == env_at("4k3/8/8/3pP3/8/8/8/3QK3 b - - 0 2").state_array[KEY]
    assert passed[TO_PLAY] == 1
    pawns_only = env_at("4k3/8/8/3pP3/8/8/8/4K3 w - - 0 1").state_array
    assert not null_move_kernel(pawns_only.copy())


#: (FEN, N): the side to move mates in N moves (checked by python-chess brute force), and not
#: sooner; mirrored below so that both colours are tested
PUZZLES = [
    ("6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1", 1),  # back-rank mate
    ("r2qkb1r/pp2nppp/3p4/2pNN1B1/2BnP3/3P4/PPP2PPP/R2bK2R w KQkq - 1 1", 2),  # Nf6+ gxf6 Bxf7#
    ("r1bq2r1/b4pk1/p1pp1p2/1p2pP2/1P2P1PB/3P4/1PPQ2P1/R3K2R w - - 0 1", 2),  # Qh6+ Kxh6 hxg5#
    ("7k/8/8/5K2/8/8/8/6Q1 w - - 0 1", 2),  # a quiet king move first
    ("k7/8/8/3K4/8/8/8/7R w - - 0 1", 3),
]


def mates_within(board: chess.Board, moves: int) -> bool:
    """python-chess brute force: the side to move forces mate within ``moves`` moves."""
    return any(forces_mate(board, move, moves) for move in list(board.legal_moves))


def forces_mate(board: chess.Board, move: chess.Move, moves: int) -> bool:
    """Whether ``move`` mates at once or leaves only replies that allow mate in ``moves - 1``."""
    board.push(move)
    try:
        if board.is_checkmate():
            return True
        if moves <= 1 or board.is_game_over():
            return False
        return all(_mates_after(board, reply, moves - 1) for reply in list(board.legal_moves))
    finally:
        board.pop()


def _mates_after(board: chess.Board, reply: chess.Move, moves: int) -> bool:
    board.push(reply)
    try:
        return mates_within(board, moves)
    finally:
        board.pop()


@pytest.mark.parametrize("mirrored", [False, True], ids=["white", "black"])
@pytest.mark.parametrize("fen,moves", PUZZLES)
def test_alpha_beta_solves_mate_in_n(fen, moves, mirrored):
    board = chess.Board(fen)
    if mirrored:
        board = board.mirror()
    env = env_at(board.fen())
    result = AlphaBetaAgent(depth=2 * moves + 1, seed=0).search(env)
    assert result.proven == "win" and result.value == 1
    move = chess.Move.from_uci(env.action_to_str(result.action))
    assert forces_mate(board, move, moves)
    assert moves == 1 or not mates_within(board, moves - 1)
    assert len(result.pv) == 2 * moves - 1  # the principal variation ends in the mate


def test_default_mcts_takes_a_hanging_queen():
    """The default MCTS (PUCT over the PeSTO evaluation, chess's search defaults) wins the
    queen that python-chess's board shows en prise to the knight."""
    env = env_at("4k3/8/8/3q4/8/4N3/8/4K3 w - - 0 1")
    action = MCTSAgent(simulations=400, seed=0).act(env)
    assert env.action_to_str(action) == "e3d5"


@pytest.mark.slow
def test_alphazero_network_trains_and_resumes_on_chess(tmp_path):
    """The AlphaZero network for chess (8x8x21 planes in, AlphaZero's 4,672 actions out): an
    iteration of self-play and learning, then a resumed second one (no strength asked)."""
    from boardzoo.training import train
    from boardzoo.training.config import TrainConfig

    tiny = dict(minutes=None, iterations=1, blocks=1, channels=8, games_per_iteration=2,
                parallel_games=2, simulations=8, fast_simulations=4, full_search_prob=0.5,
                batch_size=16, replay_window=500, eval_every=0, train_steps_per_iteration=2)
    first = train("chess", TrainConfig(**tiny), out=tmp_path / "run", progress=False)
    assert (first.iteration, first.step) == (1, 2)
    resumed = train("chess", out=tmp_path / "run", resume=True, progress=False,
                    changes={"iterations": 2})
    assert (resumed.iteration, resumed.step) == (2, 4)
