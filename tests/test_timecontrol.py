"""Time controls: the notation, the game clock's rules (hand-computed), move budgets, and
which agents take a clock."""

from __future__ import annotations

import itertools
import math

import pytest

from boardzoo.envs import make_game
from boardzoo.errors import InvalidOptionError
from boardzoo.timecontrol import (
    MIN_THINKING_MOVES,
    MOVE_OVERHEAD,
    MOVES_AT_REACH,
    RESERVE,
    SAFETY_MARGIN,
    ClockView,
    GameClock,
    SearchDeadlines,
    TimeControl,
    TimeControlError,
    accepts_clock,
    call_act,
    estimated_moves_left,
    move_budget,
    thinking_moves_left,
)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("60", TimeControl(base=60)),
        ("10+0.1", TimeControl(base=10, increment=0.1)),
        ("40/300", TimeControl(base=300, moves_per_period=40)),
        ("40/300+2", TimeControl(base=300, moves_per_period=40, increment=2)),
        ("300+5x30", TimeControl(base=300, periods=5, period_time=30)),
        ("0+1x5", TimeControl(periods=1, period_time=5)),
        ("600+25/300", TimeControl(base=600, periods=1, period_time=300, period_stones=25)),
        ("5/move", TimeControl(per_move=5)),
        ("5m+3", TimeControl(base=300, increment=3)),
        (" 1h + 30s ", TimeControl(base=3600, increment=30)),
        ("2+0.5+3x10", TimeControl(base=2, increment=0.5, periods=3, period_time=10)),
    ],
)
def test_notation_parses_and_round_trips(text, expected):
    control = TimeControl.parse(text)
    assert control == expected
    assert TimeControl.parse(str(control)) == control


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("", "Japanese byo-yomi"),
        ("fast", "Japanese byo-yomi"),
        ("60+", "Japanese byo-yomi"),
        ("60+1+2", "Japanese byo-yomi"),  # two increments
        ("60+5x30+1", "Japanese byo-yomi"),  # an increment after byo-yomi
        ("0", "main time"),
        ("40/0", "main time"),
        ("0/60", "at least 1 move"),
        ("60+0x30", "at least 1 period"),
        ("60+5x0", "period_time > 0"),
        ("-5+1", "Japanese byo-yomi"),
        ("5/moves", "Japanese byo-yomi"),
    ],
)
def test_bad_notation_says_what_is_allowed(text, says):
    with pytest.raises(TimeControlError, match=says) as raised:
        TimeControl.parse(text)
    assert isinstance(raised.value, InvalidOptionError)
    assert repr(text) in str(raised.value)


def test_per_move_does_not_mix_with_a_game_clock():
    with pytest.raises(TimeControlError, match="cannot be combined with base"):
        TimeControl(base=10, per_move=1)
    with pytest.raises(TimeControlError, match="per_move"):
        TimeControl(per_move=0)


def _play(clock: GameClock, seat: int, seconds: float, at: float = 0.0) -> float:
    clock.start(seat, now=at)
    return clock.stop(now=at + seconds)


def test_fischer_clock_by_hand():
    clock = GameClock(TimeControl.parse("10+0.5"))
    assert _play(clock, 0, 3.0) == 3.0
    assert clock.remaining(0) == pytest.approx(7.5)  # 10 - 3 + 0.5
    _play(clock, 1, 1.0)
    assert clock.view(0).opponent_remaining == pytest.approx(9.5)
    _play(clock, 0, 7.5)  # uses exactly what is left: not flagged
    assert clock.flagged is None and clock.remaining(0) == pytest.approx(0.5)
    _play(clock, 0, 0.6)
    assert clock.flagged == 0
    assert clock.used == [[3.0, 7.5, 0.6], [1.0]]


def test_moves_per_period_gives_main_time_again():
    clock = GameClock(TimeControl.parse("3/30"))
    views = []
    for _ in range(4):
        views.append(clock.view(0))
        _play(clock, 0, 5.0)
    assert [v.moves_to_go for v in views] == [3, 2, 1, 3]
    # 30 - 15 (three moves) + 30 (period two) - 5 (its first move)
    assert clock.remaining(0) == pytest.approx(40.0)
    assert clock.flagged is None


def test_japanese_byoyomi_periods():
    clock = GameClock(TimeControl.parse("10+3x5"))
    _play(clock, 0, 12.0)  # 2 s into the first period: it is kept
    assert clock.view(0).byoyomi_periods == 3 and clock.remaining(0) == 0.0
    _play(clock, 0, 5.0)  # ends exactly at the period's end: kept
    assert clock.view(0).byoyomi_periods == 3
    _play(clock, 0, 11.0)  # overruns two periods, ends in the third
    assert clock.view(0).byoyomi_periods == 1 and clock.flagged is None
    _play(clock, 0, 5.5)  # overruns the last one
    assert clock.flagged == 0


def test_canadian_byoyomi_stones():
    clock = GameClock(TimeControl.parse("1+2/10"))
    _play(clock, 0, 4.0)  # 1 s main time, 3 s of the period, 1 stone left
    view = clock.view(0)
    assert (view.remaining, view.byoyomi_time, view.byoyomi_stones) == (0.0, 7.0, 1)
    assert view.moves_to_go == 1
    _play(clock, 0, 6.0)  # second stone in time: a new period of 10 s for 2 stones
    view = clock.view(0)
    assert (view.byoyomi_time, view.byoyomi_stones, clock.flagged) == (10.0, 2, None)
    _play(clock, 0, 10.5)
    assert clock.flagged == 0


def test_fixed_time_per_move_and_time_left_from_outside():
    clock = GameClock(TimeControl.parse("2/move"))
    assert clock.view(1) == ClockView.fixed(2.0)
    _play(clock, 1, 1.9)
    assert clock.flagged is None
    _play(clock, 1, 2.1)
    assert clock.flagged == 1
    gtp = GameClock(TimeControl.parse("60+1/30"))
    gtp.set_remaining(0, 12.0, stones=3)  # GTP time_left: 12 s for 3 stones
    assert (gtp.view(0).byoyomi_time, gtp.view(0).byoyomi_stones) == (12.0, 3)


def test_move_budget_by_hand():
    budget = move_budget(ClockView(remaining=10.0, increment=0.1), moves_left=20)
    # the increment pays each move's overhead, the rest of it is spent
    assert budget.target == pytest.approx((10 - RESERVE) / 20 + 0.1 - MOVE_OVERHEAD)
    assert budget.maximum == pytest.approx(3 * budget.target)
    # 2 moves to think about of 12 to make: the other 10 moves' increments, which they give
    # back almost unused, are spent now
    early = move_budget(ClockView(remaining=10.0, increment=0.1), moves_left=2,
                        moves_in_game=12)
    thinking_increment = 0.1 - MOVE_OVERHEAD
    assert early.target == pytest.approx((10 - RESERVE + 10 * thinking_increment) / 2
                                         + thinking_increment)
    # no increment: an overhead kept back for each move still to make, thought about or not
    sudden = move_budget(ClockView(remaining=10.0), moves_left=5, moves_in_game=20)
    assert sudden.target == pytest.approx((10 - RESERVE - 20 * MOVE_OVERHEAD) / 5)
    # a move may stretch, but never into the reserve
    last = move_budget(ClockView(remaining=1.0), moves_left=1)
    assert last.target == last.maximum == pytest.approx(1.0 - RESERVE - MOVE_OVERHEAD)
    fixed = move_budget(ClockView.fixed(1.0), moves_left=20)
    assert fixed.target == fixed.maximum == pytest.approx(1.0 - SAFETY_MARGIN)
    # a 40/300 period ending in 2 moves: its time is spread over those 2
    soon = move_budget(ClockView(remaining=30.0, moves_to_go=2), moves_left=30)
    assert soon.target == pytest.approx((30.0 - RESERVE - 2 * MOVE_OVERHEAD) / 2)
    assert soon.maximum <= 30.0 - SAFETY_MARGIN
    # in Japanese byo-yomi a period is used but never lost on purpose
    period = move_budget(ClockView(remaining=0.0, byoyomi_periods=2, byoyomi_time=10.0), 30)
    assert period.target == pytest.approx(9.0) and period.maximum == pytest.approx(9.5)
    # Canadian: the period's time over its stones
    canadian = move_budget(ClockView(remaining=0.0, byoyomi_periods=1, byoyomi_time=12.0,
                                     byoyomi_stones=4), 30)
    assert canadian.target == pytest.approx(3.0)
    late = move_budget(ClockView(remaining=0.01), moves_left=10)
    assert late.target == late.maximum == 0.0


def test_moves_left_model_counts_empty_cells():
    game = make_game("connect_four")
    assert estimated_moves_left(game, game.initial_state()) == 21.0
    assert estimated_moves_left(object(), None) == 30.0
    state = game.initial_state()
    for column in [0] * 6 + [1] * 6 + [2] * 6 + [4] * 6 + [5] * 6 + [6] * 6:
        state = game.step(state, column)
    assert estimated_moves_left(game, state) == 3.0  # 6 empties, at least 3


def test_chess_expects_fewer_moves_left_as_pieces_come_off():
    """Chess's model follows the game phase (knights and bishops 1, rooks 2, queens 4 of 24),
    not the empty squares, which would expect 16 moves at the start and 31 with three pieces."""
    game = make_game("chess")
    assert estimated_moves_left(game, game.initial_state()) == 35.0
    rook_ending = game.parse_position("8/8/4k3/8/8/8/3K4/R7 w - - 0 60")
    assert estimated_moves_left(game, rook_ending) == pytest.approx(15.0 + 20.0 * 2 / 24)
    pawn_ending = game.parse_position("8/5p2/4k3/8/8/8/3KP3/8 w - - 0 60")
    assert estimated_moves_left(game, pawn_ending) == 15.0
    first = move_budget(ClockView(remaining=60.0), estimated_moves_left(game,
                                                                        game.initial_state()))
    assert first.target < 60.0 / 30


def test_plies_until_the_solver_by_hand():
    from boardzoo.knowledge.base import plies_until_affordable, solver_horizon, solver_speed
    from boardzoo.knowledge.connect_four import COST_AT_REACH, COST_GROWTH, REACH_STONES

    game = make_game("connect_four")
    state = game.initial_state()
    knowledge = game.knowledge
    speed = solver_speed(knowledge)[0]  # measured here, or the reference until then
    at_reach = COST_AT_REACH / speed  # a solve at REACH_STONES stones, in seconds
    # affordable at ATTEMPT_FACTOR (2) times the budget: with at_reach / 2 a move, exactly
    # at REACH_STONES stones; each ply earlier costs COST_GROWTH times more
    # (1% more than the exact budget, so that rounding cannot tip a ceiling)
    assert plies_until_affordable(knowledge, state, 1.01 * at_reach / 2) == REACH_STONES
    assert plies_until_affordable(knowledge, state, 1.01 * at_reach * COST_GROWTH**4 / 2) == 10
    assert plies_until_affordable(knowledge, state, 1e9) == 0.0
    assert solver_horizon(make_game("tictactoe").knowledge, None) is None  # no cost model


def test_thinking_moves_stop_where_the_solver_takes_over():
    view = ClockView(remaining=10.0, increment=0.1)
    # the solver 10 plies away whatever the share: 5 own moves, plus MOVES_AT_REACH
    assert thinking_moves_left(view, 21.0, lambda seconds: 10.0) == 5 + MOVES_AT_REACH
    # never more than the whole game, never fewer than MIN_THINKING_MOVES
    assert thinking_moves_left(view, 21.0, lambda seconds: math.inf) == 21.0
    assert thinking_moves_left(view, 21.0, lambda seconds: 0.0) == MIN_THINKING_MOVES
    assert thinking_moves_left(view, 21.0, None) == 21.0
    assert thinking_moves_left(view, 21.0, lambda seconds: 0.0, fewest=1.5) == 1.5
    # the fixed point: a take-over that comes sooner with more time a move
    horizon = lambda seconds: 30.0 if seconds < 0.5 else 6.0  # noqa: E731
    moves = thinking_moves_left(view, 21.0, horizon)
    assert moves == 3 + MOVES_AT_REACH
    assert move_budget(view, moves, 21.0).target >= 0.5  # consistent with its own share


def test_spending_the_clock_as_budgeted_never_flags():
    """A 40-move game played at each move's maximum (the worst the allocation allows), with
    MOVE_OVERHEAD on top of each move (answering, the env's step), ends with time on the
    clock, under an increment and in sudden death, while the model counts only 4 moves to
    think about, or only the fewest it ever counts (:data:`MIN_THINKING_MOVES`, Connect
    Four's fewer)."""
    fewest = (MIN_THINKING_MOVES, make_game("connect_four").knowledge.min_thinking_moves)
    for control, thinking in itertools.product(("3+0.05", "10+0.1", "10", "1"),
                                               (4.0, *fewest)):
        clock = GameClock(TimeControl.parse(control))
        now = 0.0
        for move in range(40):
            moves_in_game = 40 - move
            view = clock.view(0)
            budget = move_budget(view, min(moves_in_game, thinking), moves_in_game)
            clock.start(0, now=now)
            now += budget.maximum + MOVE_OVERHEAD
            clock.stop(now=now)
            assert clock.flagged is None, (control, thinking, move)


class _NoClock:
    def act(self, env):
        return 0


class _Clocked:
    def act(self, env, clock=None):
        return 1 if clock is None else 2


class _Keywords:
    def act(self, env, **options):
        return 3 if "clock" in options else 4


def test_accepts_clock_and_call_act():
    from boardzoo.agents import AlphaBetaAgent, MCTSAgent, RandomAgent

    assert not accepts_clock(_NoClock()) and not accepts_clock(RandomAgent())
    assert accepts_clock(_Clocked()) and accepts_clock(_Keywords())
    assert accepts_clock(MCTSAgent()) and accepts_clock(AlphaBetaAgent())
    view = ClockView(remaining=5.0)
    assert [call_act(a, None, view) for a in (_NoClock(), _Clocked(), _Keywords())] == [0, 2, 3]
    assert call_act(_Clocked(), None, None) == 1


def test_clock_view_hard_limit():
    assert ClockView(remaining=5.0).hard_limit == pytest.approx(5.0 - SAFETY_MARGIN)
    assert ClockView(remaining=1.0, byoyomi_periods=2, byoyomi_time=3.0).hard_limit == (
        pytest.approx(4.0 - SAFETY_MARGIN))
    assert ClockView(remaining=0.0).hard_limit == 0.0
    assert math.isclose(ClockView(remaining=2.0).to_json()["remaining"], 2.0)


@pytest.mark.parametrize("name", ["connect_four", "othello"])
def test_a_move_counts_the_games_fewest_thinking_moves(name):
    """With the solver expected to take over now, a move's budget is the clock over the
    game's fewest thinking moves: Connect Four's own count (its solvers prove most games
    from the opening at once), the default elsewhere."""
    game = make_game(name)
    state = game.initial_state()
    view = ClockView(remaining=10.0, increment=0.1)
    fewest = game.knowledge.min_thinking_moves or MIN_THINKING_MOVES
    assert (fewest < MIN_THINKING_MOVES) == (name == "connect_four")
    deadlines = SearchDeadlines.for_move(0.0, view, game, state,
                                         plies_until_solver=lambda seconds: 0.0)
    in_game = estimated_moves_left(game, state)
    assert deadlines.target == pytest.approx(move_budget(view, fewest, in_game).target)
