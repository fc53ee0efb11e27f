"""benchmarks.go_losses: GNU Go's score estimates along a stored game, from boardzoo's side
(checked with a scripted engine; the estimates themselves are GNU Go's)."""

from __future__ import annotations

from benchmarks.go_losses import black_lead, score_swings
from boardzoo.envs.go import Go


class ScriptedEngine:
    """Answers estimate_score with the next of ``estimates``, records every command."""

    def __init__(self, estimates: list[str]):
        self.estimates = list(estimates)
        self.sent: list[str] = []

    def send(self, command: str) -> str:
        self.sent.append(command)
        return self.estimates.pop(0) if command == "estimate_score" else ""


def test_black_lead_reads_either_colour_s_estimate():
    assert black_lead("B+12.5 (upper bound: 14.5, lower: 10.5)") == 12.5
    assert black_lead("W+3.0 (upper bound: 5.0, lower: 1.0)") == -3.0
    assert black_lead("0") == 0.0


def test_swings_replay_the_opening_and_moves_and_take_boardzoo_s_side():
    game = Go(board_size=9)
    record = {"opening": [40, 41], "moves": [30, 81], "agent_a_seat": 1}  # 81: pass
    engine = ScriptedEngine(["B+4.0 (upper bound: 5.0, lower: 3.0)", "W+10.5 (upper)"])
    assert score_swings(game, record, engine, every=2) == [(2, -4.0), (4, 10.5)]
    assert engine.sent == ["clear_board", "play black E5", "play white F5", "estimate_score",
                           "play black D6", "play white pass", "estimate_score"]
