"""Go playing strength: boardzoo's default Go agent against GNU Go, and the effect of each
strength feature (with against without, equal time per move, same openings).

Every match is an arena match (:func:`boardzoo.arena.play_match`): colours alternate, games
2k and 2k+1 share a random opening (two moves, one a colour; ``--opening-plies 0``: none,
every game from the empty board, as the issue's protocol asks), and the games are stored in
``--store`` as they end, so an interrupted run resumes where it stopped. Komi 7.5, area
scoring; GNU Go runs at level 10 with Chinese rules, ``--never-resign`` and
``--capture-all-dead``.

Run::

    python -m benchmarks.go_strength gnugo --size 9 --games 100 --time 1
    python -m benchmarks.go_strength gnugo --size 13 --games 40 --time 3
    python -m benchmarks.go_strength gnugo --size 9 --games 100 --time 1 --knowledge nakade
    python -m benchmarks.go_strength gnugo --size 9 --games 100 --time 1 --patterns P.npz
    python -m benchmarks.go_strength feature patterns --size 9 --games 100 --time 0.5
    python -m benchmarks.go_strength feature rave --size 9 --games 100 --time 0.5
    python -m benchmarks.go_strength feature priors --size 9 --games 100 --time 0.5
    python -m benchmarks.go_strength tune prior_visits=50 --size 9 --games 40 --time 0.3

Features, each against the default agent without it: ``patterns`` (MoGo's 3x3 patterns in
the playouts, against the same playouts without them), ``rave`` (the default's RAVE, against
plain UCT at c = 1.0), ``prior_visits`` (the default's RAVE children start with 20 virtual
visits at the heuristic value of ``knowledge.go.prior_kernel``, against none), ``priors``
(PUCT over those move priors), ``widening`` (progressive widening in the priors' order),
``low_liberties`` (the playouts' low-liberty step, against the default playouts),
``ladder_priors`` (the default's move priors that read ladders: a futile escape penalised,
a working ladder atari favoured; against the same priors without the ladder terms),
``ladders`` (those priors and the default's playouts that do not extend into a working
ladder, against neither), ``replies`` (last good reply with forgetting in the RAVE playouts),
``nakade`` (the playouts play the vital point of a small eye space next to the last move),
``liberty_priors`` (the move priors also favour an atari on a two-liberty chain and an
extension of an own two-liberty chain to three), ``score`` (playouts valued with 2% of their
final margin, Fuego's score modification);
``--feature-options`` adds agent options to the side with the feature (e.g. ``c=0.5``,
``prior_visits=50``). ``tune OPTIONS`` plays the default agent with OPTIONS against the
default itself: how a setting's value is chosen.
"""

from __future__ import annotations

import argparse
from typing import Any

from boardzoo.agents import make_agent
from boardzoo.agents.mcts.parallel import available_cores
from boardzoo.arena import play_match
from boardzoo.envs.aec import BoardGameEnv
from boardzoo.envs.go import Go
from boardzoo.gtp import GnuGoAgent
from boardzoo.gtp.engine import default_agent
from boardzoo.knowledge.base import Knowledge
from boardzoo.knowledge.go import (
    KNOWLEDGE,
    heuristic_playout_kernel,
    heuristic_playout_trace_kernel,
    liberty_prior_kernel,
    load_pattern_logits,
    low_liberty_playout_kernel,
    low_liberty_playout_trace_kernel,
    make_learned_prior_kernel,
    nakade_playout_kernel,
    nakade_playout_trace_kernel,
    pattern_playout_kernel,
    pattern_playout_trace_kernel,
    prior_kernel,
    reply_playout_trace_kernel,
    score_playout_value,
)
from boardzoo.wrappers.model import boardzoo_env


class GoWithoutPatterns(Go):
    """Go whose heuristic playouts leave out the 3x3 pattern step (for the comparison)."""

    knowledge = Knowledge(
        **{**KNOWLEDGE.__dict__, "playout_kernel": heuristic_playout_kernel,
           "playout_trace_kernel": heuristic_playout_trace_kernel}
    )


class GoWithLowLiberties(Go):
    """Go whose heuristic playouts add the low-liberty step (for the comparison)."""

    knowledge = Knowledge(
        **{**KNOWLEDGE.__dict__, "playout_kernel": low_liberty_playout_kernel,
           "playout_trace_kernel": low_liberty_playout_trace_kernel}
    )


class GoWithoutLadderPriors(Go):
    """Go whose move priors do not read ladders (its playouts still do; for the
    comparison)."""

    knowledge = Knowledge(**{**KNOWLEDGE.__dict__, "prior_kernel": prior_kernel})


class GoWithoutLadders(Go):
    """Go whose move priors and playouts do not read ladders (for the comparison)."""

    knowledge = Knowledge(
        **{**KNOWLEDGE.__dict__, "prior_kernel": prior_kernel,
           "playout_kernel": pattern_playout_kernel,
           "playout_trace_kernel": pattern_playout_trace_kernel}
    )


class GoWithNakade(Go):
    """Go whose heuristic playouts play the vital point of small eye spaces (for the
    comparison)."""

    knowledge = Knowledge(
        **{**KNOWLEDGE.__dict__, "playout_kernel": nakade_playout_kernel,
           "playout_trace_kernel": nakade_playout_trace_kernel}
    )


class GoWithLibertyPriors(Go):
    """Go whose move priors also favour the moves of two-liberty fights (for the
    comparison)."""

    knowledge = Knowledge(**{**KNOWLEDGE.__dict__, "prior_kernel": liberty_prior_kernel})


class GoWithScore(Go):
    """Go whose playouts are valued with a share of their final score (for the
    comparison)."""

    knowledge = Knowledge(**{**KNOWLEDGE.__dict__, "playout_value_kernel": score_playout_value})


class GoWithReplies(Go):
    """Go whose RAVE playouts play and learn last good replies (for the comparison)."""

    knowledge = Knowledge(
        **{**KNOWLEDGE.__dict__, "playout_trace_kernel": reply_playout_trace_kernel}
    )


def go_with_learned_patterns(path: str) -> type[Go]:
    """Go whose move priors take their pattern term from a fitted file
    (``benchmarks.go_fit_patterns``) instead of the hand-set 3x3 patterns."""
    kernel = make_learned_prior_kernel(load_pattern_logits(path))
    knowledge = Knowledge(**{**KNOWLEDGE.__dict__, "prior_kernel": kernel})
    return type("GoWithLearnedPatterns", (Go,), {"knowledge": knowledge})


class OnOtherPlayouts:
    """Plays ``inner`` on a copy of the env whose Go is ``game_class`` (other playouts)."""

    def __init__(self, inner: Any, game_class: type[Go], playouts: str):
        self.inner = inner
        self.game_class = game_class
        self.spec = {**inner.spec, "playouts": playouts}

    def reseed(self, seed: int) -> None:
        self.inner.reseed(seed)

    def act(self, env: Any) -> int:
        raw = boardzoo_env(env)
        other = BoardGameEnv(self.game_class(**raw.game.options))
        other.reset()
        other.restore_state(raw.clone_state())
        return self.inner.act(other)


#: agent options with the feature and without it, each on top of the default agent (patterns,
#: ladders: the default's knowledge, against the same agent on knowledge without them)
FEATURES = {
    "patterns": ("", ""),
    "rave": ("", "rave=False"),
    "prior_visits": ("", "prior_visits=0"),
    "priors": ("selection=puct", ""),
    "widening": ("progressive_widening=True", ""),
    "low_liberties": ("", ""),
    "ladder_priors": ("", ""),
    "ladders": ("", ""),
    "replies": ("", ""),
    "nakade": ("", ""),
    "liberty_priors": ("", ""),
    "score": ("", ""),
}
#: features that are game knowledge (playouts, priors): (Go for the side with it, for the side
#: without)
PLAYOUT_FEATURES = {
    "patterns": (None, (GoWithoutPatterns, "without 3x3 patterns")),
    "low_liberties": ((GoWithLowLiberties, "with the low-liberty step"), None),
    "ladder_priors": (None, (GoWithoutLadderPriors, "without ladder priors")),
    "ladders": (None, (GoWithoutLadders, "without ladder priors and playouts")),
    "replies": ((GoWithReplies, "with last good replies"), None),
    "nakade": ((GoWithNakade, "with the nakade step"), None),
    "liberty_priors": ((GoWithLibertyPriors, "with two-liberty priors"), None),
    "score": ((GoWithScore, "with score-shaded playout values"), None),
}


def default_go_agent(time_limit: float, workers: int = 1) -> str:
    """The spec of boardzoo's default Go agent (``boardzoo gtp``'s) at ``time_limit``
    seconds per move, its trees sharing this process's cores with ``workers`` games."""
    spec = default_agent(cores=available_cores() // workers)
    return f"{spec}{',' if ':' in spec else ':'}time_limit={time_limit}"


def feature_agents(feature: str, time_limit: float, seed: int, extra: str = "",
                   workers: int = 1) -> tuple[Any, Any]:
    """(with the feature, without it) at ``time_limit`` seconds per move, ``workers`` games
    at a time; ``extra``: more options for the side with the feature."""
    if feature not in FEATURES:
        raise SystemExit(f"unknown feature {feature!r}: use one of {', '.join(FEATURES)}")
    base = default_go_agent(time_limit, workers)
    on, off = FEATURES[feature]
    with_it = make_agent(",".join(o for o in (base, on, extra) if o), seed=seed)
    without = make_agent(",".join(o for o in (base, off) if o), seed=seed + 1)
    playouts_with, playouts_without = PLAYOUT_FEATURES.get(feature, (None, None))
    if playouts_with:
        with_it = OnOtherPlayouts(with_it, *playouts_with)
    if playouts_without:
        without = OnOtherPlayouts(without, *playouts_without)
    return with_it, without


def tuned_agents(options: str, time_limit: float, seed: int,
                 workers: int = 1) -> tuple[Any, Any]:
    """(the default agent with ``options``, the default agent) at ``time_limit`` seconds,
    ``workers`` games at a time."""
    if not options:
        raise SystemExit("tune needs the options to try, e.g. prior_visits=50")
    base = default_go_agent(time_limit, workers)
    return make_agent(f"{base},{options}", seed=seed), make_agent(base, seed=seed + 1)


def report(label: str, result: Any) -> None:
    low, high = result.score_ci
    print(f"{label}: +{result.wins} ={result.draws} -{result.losses} over {result.games} "
          f"games, score {result.score:.0%} (95% interval {low:.0%}-{high:.0%})", flush=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("what", choices=["gnugo", "feature", "tune"])
    parser.add_argument("feature", nargs="?", default=None,
                        help="the feature (feature), or the options to try (tune)")
    parser.add_argument("--size", type=int, default=9)
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--time", type=float, default=1.0, help="seconds per move (boardzoo)")
    parser.add_argument("--level", type=int, default=10, help="GNU Go level")
    parser.add_argument("--agent", default=None, help="agent spec instead of the default")
    parser.add_argument("--knowledge", default=None,
                        choices=[name for name, (on, _) in PLAYOUT_FEATURES.items() if on],
                        help="gnugo: boardzoo plays on the Go knowledge with this feature")
    parser.add_argument("--patterns", default=None,
                        help="gnugo: boardzoo's priors take their pattern term from this "
                             "file of benchmarks.go_fit_patterns (one worker)")
    parser.add_argument("--feature-options", default="",
                        help="more options for the side with the feature, e.g. c=0.5")
    parser.add_argument("--opening-plies", type=int, default=2,
                        help="random moves before the agents play (default 2, one per "
                             "colour; 0: every game from the empty board, its variety left "
                             "to boardzoo's search)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--store", default="go_strength_results.sqlite")
    args = parser.parse_args(argv)
    options = {"board_size": args.size, "komi": 7.5}
    if args.what == "gnugo":
        spec = args.agent or default_go_agent(args.time, args.workers)
        ours, theirs = make_agent(spec, seed=args.seed), GnuGoAgent(level=args.level)
        if args.knowledge and args.patterns:
            raise SystemExit("--knowledge and --patterns change the same agent: give one")
        if args.knowledge:
            ours = OnOtherPlayouts(ours, *PLAYOUT_FEATURES[args.knowledge][0])
            spec += f" ({ours.spec['playouts']})"
        if args.patterns:
            if args.workers != 1:
                raise SystemExit("--patterns plays in this process: use --workers 1")
            ours = OnOtherPlayouts(ours, go_with_learned_patterns(args.patterns),
                                   f"with learned pattern priors from {args.patterns}")
            spec += f" ({ours.spec['playouts']})"
        label = f"{spec} vs gnugo level {args.level}, {args.size}x{args.size}"
    elif args.what == "tune":
        ours, theirs = tuned_agents(args.feature or "", args.time, args.seed, args.workers)
        label = (f"default with {args.feature} vs default, {args.time} s per move, "
                 f"{args.size}x{args.size}")
    else:
        ours, theirs = feature_agents(args.feature, args.time, args.seed, args.feature_options,
                                      args.workers)
        label = (f"{args.feature} on ({args.feature_options or 'defaults'}) vs off, "
                 f"{args.time} s per move, {args.size}x{args.size}")
    done = [0]

    def progress(count: int) -> None:
        done[0] += count
        print(f"  {done[0]}/{args.games} games", flush=True)

    result = play_match("go", ours, theirs, games=args.games, seed=args.seed,
                        opening_plies=args.opening_plies,
                        game_options=options, store=args.store, workers=args.workers,
                        progress=progress)
    report(label, result)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
