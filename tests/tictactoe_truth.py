"""Tic-tac-toe ground truth for AlphaZero's checks: every non-terminal reachable position
with the moves that keep its perfect-play value (../shared/data/tictactoe)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

DATA = Path(__file__).parent / "data" / "tictactoe" / "ttt_all_positions.tsv"


def ongoing_positions(game) -> tuple[list[np.ndarray], list[set[int]]]:
    """(states, value-preserving moves) of the 4,520 non-terminal positions."""
    states, good = [], []
    for line in DATA.read_text().splitlines():
        if line.startswith("#"):
            continue
        board, _to_move, status, _value, moves = line.split("\t")
        if status != "ongoing":
            continue
        states.append(game.parse_position(board))
        good.append({int(m) for m in moves.split(",")})
    return states, good


def share_preserving(choices: np.ndarray, good: list[set[int]]) -> float:
    """The share of positions whose chosen move keeps the value."""
    return float(np.mean([int(c) in g for c, g in zip(choices, good, strict=True)]))


def network_choices(net, game, states) -> np.ndarray:
    """The network's policy argmax (no search) per position, over legal moves."""
    from boardzoo.agents.alphazero.network import NetworkEvaluator

    observations = np.stack([game.observe(s, game.to_play(s)) for s in states])
    masks = np.stack([game.legal_mask(s) for s in states])
    logits, _ = NetworkEvaluator(net)(observations, masks)
    return np.argmax(logits, axis=1)


def search_choices(agent, states, simulations: int) -> np.ndarray:
    """The most visited root move of a fresh ``simulations`` search per position."""
    return np.argmax(agent.root_visits(states, simulations), axis=1)
