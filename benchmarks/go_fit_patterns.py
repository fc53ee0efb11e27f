"""Learned 3x3 pattern priors for Go: fit one logit per pattern to GNU Go's moves in stored
games, on top of the ladder priors' other terms (Coulom's 2007 minorization-maximization for
Bradley-Terry teams, with his prior of one virtual win and one virtual loss against a
pattern of logit 0), and report how well each prior predicts the moves of held-out games.

Every position where a GNU Go seat played a board move before the first pass is one
competition among the legal moves; a move's strength is ``exp(other terms + pattern
logit)``, the other terms being :func:`boardzoo.knowledge.go.ladder_move_logits` without the
pattern term. Games whose index is ``--holdout`` modulo 5 are kept out of the fit and
scored: log-likelihood of GNU Go's move and how often it is the prior's top move, for the
hand-set priors (the default's) and the learned ones.

Run (GNU Go against itself from random openings, a seed the strength runs do not use)::

    boardzoo arena go --agents "gnugo:level=10 gnugo:level=9" --games 300 --seed 1 \\
        --opening-plies 4 --workers 2 --option board_size=9 --option komi=7.5 --out runs/gg
    python -m benchmarks.go_fit_patterns runs/gg/results.sqlite --out patterns.npz
"""

from __future__ import annotations

import argparse
from typing import Any, NamedTuple

import numpy as np

from boardzoo.envs.go import Go
from boardzoo.knowledge.go import (
    NO_PATTERN_LOGITS,
    PATTERN_LOGITS,
    canonical_codes,
    fills_own_eye,
    ladder_move_logits,
    logits_of_keys,
    neighbourhood_code_of,
)
from boardzoo.store import ResultsStore


class Competitions(NamedTuple):
    """Legal board moves of every position, flattened: ``position`` (which competition),
    ``offset`` (the logit of the other prior terms), ``hand`` (the hand-set pattern term),
    ``code`` (canonical pattern code; NO_CODE for a move that fills an own eye, which the
    priors score without a pattern term), ``chosen`` (GNU Go played it); ``game`` per
    position."""

    position: np.ndarray
    offset: np.ndarray
    hand: np.ndarray
    code: np.ndarray
    chosen: np.ndarray
    game: np.ndarray


#: the code of a move with no pattern term (an own-eye fill)
NO_CODE = -1


def is_gnugo(agent: dict[str, Any]) -> bool:
    return agent.get("name") == "gnugo" or str(agent.get("class", "")).endswith("GnuGoAgent")


def competitions(paths: list[str]) -> Competitions:
    """The competitions of GNU Go's moves in the stores at ``paths`` (all one board size)."""
    parts: dict[str, list[np.ndarray]] = {k: [] for k in Competitions._fields}
    positions = 0
    for path in paths:
        with ResultsStore(path, read_only=True) as store:
            matches = [(d, store.records(m)) for m, d in store.matches()]
        for definition, records in matches:
            game = Go(**definition["options"])
            for record in records.values():
                seats = [seat for seat in (0, 1) if is_gnugo(definition["agents"][
                    0 if seat == record["agent_a_seat"] else 1])]
                for move in _gnugo_moves(game, record, seats, parts):
                    parts["position"].append(np.full(move, positions))
                    parts["game"].append(np.array([record["index"] % 5]))
                    positions += 1
    return Competitions(*(np.concatenate(parts[k]) if parts[k] else np.zeros(0)
                          for k in Competitions._fields))


def _gnugo_moves(game: Go, record: dict[str, Any], seats: list[int], parts: dict):
    """Replay one game; for each GNU Go board move before the first pass append its
    position's legal moves to ``parts`` and yield how many there were."""
    actions = list(record["opening"]) + list(record["moves"])
    opening = len(record["opening"])
    state = game.initial_state()
    size = game.num_actions
    mask = np.zeros(size, np.bool_)
    offsets, hand = np.empty(size), np.empty(size)
    for ply, action in enumerate(actions):
        if action == size - 1:
            return
        if ply >= opening and ply % 2 in seats:
            game.kernels.legal_mask(state, mask)
            legal = np.flatnonzero(mask[:-1])
            ladder_move_logits(state, mask, offsets, NO_PATTERN_LOGITS)
            ladder_move_logits(state, mask, hand, PATTERN_LOGITS)
            codes = canonical_codes([neighbourhood_code_of(state, a) for a in legal], ply % 2 + 1)
            eyes = np.array([fills_own_eye(state, a) for a in legal], dtype=bool)
            parts["offset"].append(offsets[legal])
            parts["hand"].append(hand[legal] - offsets[legal])
            parts["code"].append(np.where(eyes, NO_CODE, codes))
            parts["chosen"].append(legal == action)
            yield len(legal)
        game.kernels.apply(state, action)


def fit(data: Competitions, train: np.ndarray, iterations: int = 200) -> tuple[np.ndarray,
                                                                               np.ndarray]:
    """(canonical codes, logits) fitted by MM on the moves where ``train`` is true (moves
    with NO_CODE keep the strength of their other terms)."""
    codes, index = np.unique(data.code[train], return_inverse=True)
    position = np.unique(data.position[train], return_inverse=True)[1]
    base = np.exp(data.offset[train])
    wins = np.bincount(index[data.chosen[train]], minlength=len(codes)) + 1.0
    gamma = np.ones(len(codes))
    for _ in range(iterations):
        total = np.bincount(position, base * gamma[index])
        spent = np.bincount(index, base / total[position], minlength=len(codes))
        gamma = np.where(codes == NO_CODE, 1.0, wins / (spent + 2.0 / (gamma + 1.0)))
    fitted = codes != NO_CODE
    return codes[fitted], np.log(gamma[fitted])


def scores(data: Competitions, keep: np.ndarray, logits: np.ndarray) -> tuple[float, float]:
    """(mean log-likelihood of the chosen moves, how often the chosen move has the top
    logit, a tie for the top counting 1/k among k moves) over the positions of the moves
    where ``keep`` is true."""
    position = np.unique(data.position[keep], return_inverse=True)[1]
    logits, chosen = logits[keep], data.chosen[keep]
    best = np.full(position.max() + 1, -np.inf)
    np.maximum.at(best, position, logits)
    top = logits >= best[position]
    ties = np.bincount(position, top)
    total = np.bincount(position, np.exp(logits - best[position]))
    at = position[chosen]
    loglik = logits[chosen] - best[at] - np.log(total[at])
    return float(loglik.mean()), float((top[chosen] / ties[at]).mean())


def learned_logits(data: Competitions, codes: np.ndarray, logits: np.ndarray) -> np.ndarray:
    """Every move's prior logit with the learned pattern term (0 for unseen patterns)."""
    return data.offset + logits_of_keys(data.code, codes, logits)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("stores", nargs="+", help="arena stores with GNU Go seats")
    parser.add_argument("--holdout", type=int, default=0, help="games held out: index %% 5")
    parser.add_argument("--out", default=None, help="write the fitted logits (.npz)")
    args = parser.parse_args(argv)
    data = competitions(args.stores)
    test = data.game[data.position] == args.holdout
    codes, logits = fit(data, ~test)
    print(f"{len(np.unique(data.position))} positions, {len(codes)} patterns fitted")
    for name, prior in (("hand-set", data.offset + data.hand),
                        ("learned", learned_logits(data, codes, logits))):
        loglik, top = scores(data, test, prior)
        print(f"held-out games, {name} priors: log-likelihood {loglik:.3f}, top move {top:.3f}")
    if args.out:
        codes, logits = fit(data, np.ones_like(test))
        np.savez(args.out, codes=codes, logits=logits)
        print(f"{len(codes)} pattern logits (all games) written to {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
