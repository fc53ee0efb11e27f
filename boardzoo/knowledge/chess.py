"""What search knows about chess: a tapered piece-square evaluation (PeSTO's tables,
:mod:`boardzoo.knowledge.chess_pesto`) and the scale between search values and centipawns.

Values are from the side to move's view. The evaluation is linear in centipawns:
``value = centipawns / CENTIPAWNS_PER_UNIT``, well inside (-1, 1) for any material balance.
"""

from __future__ import annotations

import math

__all__ = ["CENTIPAWNS_PER_UNIT", "centipawns"]

#: centipawns a heuristic value of 1 stands for (all the material on the board is < 8,000)
CENTIPAWNS_PER_UNIT = 100_000.0
#: MCTS's mean result m in (-1, 1) maps to centipawns as a logistic expected score,
#: 400 * log10((1 + m) / (1 - m)) (a pawn is worth about 100 Elo); clipped at this many
MAX_MEAN_CENTIPAWNS = 10_000


def centipawns(value: float, heuristic: bool = True) -> int:
    """A search value from the side to move's view as centipawns: alpha-beta's heuristic
    value (``heuristic``) linearly, an MCTS mean result through the logistic model."""
    if heuristic:
        return round(value * CENTIPAWNS_PER_UNIT)
    mean = min(max(value, -0.999999), 0.999999)
    score = 400.0 * math.log10((1.0 + mean) / (1.0 - mean))
    return round(min(max(score, -MAX_MEAN_CENTIPAWNS), MAX_MEAN_CENTIPAWNS))
