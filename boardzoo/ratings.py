"""Ratings from game results: Elo by maximum likelihood, score intervals, a sign test for
paired runs, and an SPRT.

Perspective: a result is the first player's score, 1 win, 1/2 draw, 0 loss. Elo differences
follow the logistic model ``P(A beats B) = 1 / (1 + 10 ** (-(R_A - R_B) / 400))``; a draw
counts as half a win and half a loss (the usual Bradley-Terry treatment of draws).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

__all__ = ["elo_ratings", "score_interval", "expected_score", "sign_test", "SPRT"]

_ELO = 400.0 / math.log(10.0)  # Elo points per unit of logit
Z95 = 1.959963984540054


def expected_score(elo_difference: float) -> float:
    """Expected score of a player rated ``elo_difference`` above its opponent."""
    return 1.0 / (1.0 + 10.0 ** (-elo_difference / 400.0))


def score_interval(score: float, games: int, z: float = Z95) -> tuple[float, float]:
    """Wilson interval (95% by default) for a mean score over ``games`` games."""
    if games == 0:
        return (0.0, 1.0)
    denom = 1.0 + z * z / games
    centre = (score + z * z / (2 * games)) / denom
    half = z * math.sqrt(score * (1 - score) / games + z * z / (4 * games * games)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


def sign_test(only_a: int, only_b: int) -> float:
    """Two-sided exact sign test for paired games (the same openings and colours played by
    two agents): ``only_a`` / ``only_b`` pairs scored better by A / by B (ties carry no
    information). The chance of a split at least this uneven were A and B equally strong."""
    if min(only_a, only_b) < 0:
        raise ValueError(f"counts must be >= 0, got {only_a} and {only_b}")
    n = only_a + only_b
    tail = sum(math.comb(n, k) for k in range(min(only_a, only_b) + 1))
    return min(1.0, 2.0 * tail / 2.0**n)


def elo_ratings(
    players: Sequence[str],
    results: Sequence[tuple[int, int, float]],
    anchor: str | None = None,
    prior_games: float = 0.5,
) -> dict[str, tuple[float, float, float]]:
    """Maximum-likelihood Elo with 95% intervals: ``{player: (elo, low, high)}``.

    ``results`` holds ``(i, j, score_of_i)`` per game. Ratings are shifted so that ``anchor``
    (default: the mean) is 0. ``prior_games`` adds that many virtual draws between every pair
    of players who met, which keeps a perfect score finite (a lopsided pair still gets a large,
    clearly uncertain gap). Intervals come from the inverse Fisher information.
    """
    n = len(players)
    wins = np.zeros((n, n))  # wins[i, j]: points i scored against j
    for i, j, score in results:
        wins[i, j] += score
        wins[j, i] += 1.0 - score
    games = wins + wins.T
    met = games > 0
    wins = wins + prior_games / 2 * met
    games = games + prior_games * met
    theta = _fit_logits(wins, games)
    covariance = _covariance(theta, games)
    ref = players.index(anchor) if anchor is not None else None
    shift = theta[ref] if ref is not None else theta.mean()
    ratings = {}
    for k, name in enumerate(players):
        elo = (theta[k] - shift) * _ELO
        var = _difference_variance(covariance, k, ref)
        half = Z95 * math.sqrt(max(var, 0.0)) * _ELO
        ratings[name] = (elo, elo - half, elo + half)
    return ratings


def _fit_logits(wins: np.ndarray, games: np.ndarray, iterations: int = 200) -> np.ndarray:
    """Newton's method on the Bradley-Terry log-likelihood (logit scale, mean fixed at 0)."""
    n = wins.shape[0]
    theta = np.zeros(n)
    for _ in range(iterations):
        p = 1.0 / (1.0 + np.exp(theta[None, :] - theta[:, None]))  # p[i, j] = P(i beats j)
        gradient = wins.sum(axis=1) - (games * p).sum(axis=1)
        hessian = games * p * (1 - p)
        hessian = np.diag(hessian.sum(axis=1)) - hessian
        hessian += 1e-9 * np.eye(n)
        step = np.linalg.lstsq(hessian, gradient, rcond=None)[0]
        theta += step
        theta -= theta.mean()
        if np.abs(step).max() < 1e-10:
            break
    return theta


def _covariance(theta: np.ndarray, games: np.ndarray) -> np.ndarray:
    """Pseudo-inverse of the Fisher information (ratings are only defined up to a shift)."""
    p = 1.0 / (1.0 + np.exp(theta[None, :] - theta[:, None]))
    info = games * p * (1 - p)
    info = np.diag(info.sum(axis=1)) - info
    return np.linalg.pinv(info)


def _difference_variance(cov: np.ndarray, k: int, ref: int | None) -> float:
    """Variance of theta_k minus the anchor (a player, or the mean when ``ref`` is None)."""
    if ref is None:
        return float(cov[k, k])  # the pseudo-inverse already measures from the mean
    return float(cov[k, k] + cov[ref, ref] - 2 * cov[k, ref])


@dataclass
class SPRT:
    """Sequential probability ratio test: is A at least ``elo1`` stronger than B, or at most
    ``elo0``? With error rates ``alpha`` (false "stronger") and ``beta`` (missed "stronger").

    Feed results with :meth:`add` (A's score per game); :attr:`decision` is ``"H1"`` (A is
    stronger by ``elo1``), ``"H0"`` (not stronger than ``elo0``) or ``None`` (keep playing).
    Uses the trinomial log-likelihood ratio with draws estimated from the games so far.
    """

    elo0: float = 0.0
    elo1: float = 30.0
    alpha: float = 0.05
    beta: float = 0.05
    wins: int = 0
    draws: int = 0
    losses: int = 0

    def add(self, score: float) -> str | None:
        if score == 1.0:
            self.wins += 1
        elif score == 0.0:
            self.losses += 1
        else:
            self.draws += 1
        return self.decision

    @property
    def bounds(self) -> tuple[float, float]:
        """Lower and upper log-likelihood-ratio thresholds (Wald)."""
        return math.log(self.beta / (1 - self.alpha)), math.log((1 - self.beta) / self.alpha)

    @property
    def llr(self) -> float:
        """Log-likelihood ratio of H1 against H0 given the games so far."""
        n = self.wins + self.draws + self.losses
        if n == 0:
            return 0.0
        draw_rate = min(max(self.draws / n, 1e-3), 0.999)
        total = 0.0
        for count, outcome in ((self.wins, 1.0), (self.draws, 0.5), (self.losses, 0.0)):
            if count:
                p1 = _trinomial(expected_score(self.elo1), draw_rate)[outcome]
                p0 = _trinomial(expected_score(self.elo0), draw_rate)[outcome]
                total += count * math.log(p1 / p0)
        return total

    @property
    def decision(self) -> str | None:
        low, high = self.bounds
        llr = self.llr
        return "H1" if llr >= high else "H0" if llr <= low else None


def _trinomial(score: float, draw_rate: float) -> dict[float, float]:
    """Win/draw/loss probabilities with a given expected score and draw rate."""
    draw = min(draw_rate, 2 * min(score, 1 - score) * 0.999)
    win = score - draw / 2
    return {1.0: win, 0.5: draw, 0.0: 1.0 - win - draw}
