"""Go knowledge (the knowledge-module contract of :mod:`boardzoo.knowledge`): what search
knows about Go, one concept a module, all on the compiled board of
:mod:`boardzoo.envs.go_board` (chains with pseudo-liberties, the Zobrist hash, the eye test,
the legality test and Tromp-Taylor ownership):

- :mod:`.evaluation`: position keys, exact values, the area-estimate evaluation, the
  score-shaded playout value and the ownership estimate;
- :mod:`.liberties`: chain and liberty reading shared by the modules below;
- :mod:`.ladders`: ladder reading;
- :mod:`.patterns`: 3x3 patterns, neighbourhood codes and canonical pattern keys;
- :mod:`.playouts`: the capture/atari-aware playout policy and its optional steps;
- :mod:`.priors`: move priors (hand-set or with learned pattern logits);
- :mod:`.scoring`: the final score with dead stones removed, as every front-end reports it;
- :mod:`.move_rules`: what a Go player does whatever its search says (pass when passing
  wins, never fill an own eye, the clean-up phase), applied by every searching agent.

:data:`KNOWLEDGE` bundles the defaults with the evidence for them; the names below are the
package's public ones.
"""

from __future__ import annotations

from boardzoo.knowledge.base import Knowledge, SearchDefaults
from boardzoo.knowledge.go.evaluation import (
    CLAIM,
    RADIUS,
    SCORE_WEIGHT,
    evaluate_kernel,
    exact_value,
    key_kernel,
    ownership_estimate_kernel,
    score_playout_value,
)
from boardzoo.knowledge.go.ladders import ladder_atari_captures, ladder_escape_fails
from boardzoo.knowledge.go.move_rules import MOVE_RULES, cleanup_move, passing_wins
from boardzoo.knowledge.go.patterns import (
    PATTERN_TABLE,
    PATTERNS_3X3,
    canonical_codes,
    fills_own_eye,
    logits_of_keys,
    neighbourhood_code,
    neighbourhood_code_of,
    pattern_logits,
    pattern_table,
)
from boardzoo.knowledge.go.playouts import (
    REPLY_OFFSET,
    heuristic_playout_kernel,
    heuristic_playout_trace_kernel,
    ladder_playout_kernel,
    ladder_playout_trace_kernel,
    low_liberty_playout_kernel,
    low_liberty_playout_trace_kernel,
    nakade_playout_kernel,
    nakade_playout_trace_kernel,
    pattern_playout_kernel,
    pattern_playout_trace_kernel,
    reply_playout_trace_kernel,
)
from boardzoo.knowledge.go.priors import (
    NO_PATTERN_LOGITS,
    PATTERN_LOGITS,
    PRIOR_ATARI,
    PRIOR_CAPTURE,
    PRIOR_EXTEND,
    PRIOR_LADDER_CAPTURE,
    PRIOR_LADDER_ESCAPE,
    PRIOR_PATTERN,
    PRIOR_SAVE,
    PRIOR_VALUE_PER_LOGIT,
    ladder_move_logits,
    ladder_prior_kernel,
    liberty_prior_kernel,
    load_pattern_logits,
    make_learned_prior_kernel,
    prior_kernel,
)
from boardzoo.knowledge.go.scoring import FinalScore, final_score, final_text, result_text

__all__ = [
    "KNOWLEDGE",
    "RADIUS",
    "CLAIM",
    "SCORE_WEIGHT",
    "key_kernel",
    "evaluate_kernel",
    "exact_value",
    "score_playout_value",
    "ownership_estimate_kernel",
    "ladder_atari_captures",
    "ladder_escape_fails",
    "PATTERNS_3X3",
    "PATTERN_TABLE",
    "pattern_table",
    "canonical_codes",
    "logits_of_keys",
    "neighbourhood_code",
    "neighbourhood_code_of",
    "pattern_logits",
    "fills_own_eye",
    "REPLY_OFFSET",
    "heuristic_playout_kernel",
    "heuristic_playout_trace_kernel",
    "pattern_playout_kernel",
    "pattern_playout_trace_kernel",
    "ladder_playout_kernel",
    "ladder_playout_trace_kernel",
    "low_liberty_playout_kernel",
    "low_liberty_playout_trace_kernel",
    "nakade_playout_kernel",
    "nakade_playout_trace_kernel",
    "reply_playout_trace_kernel",
    "PRIOR_ATARI",
    "PRIOR_CAPTURE",
    "PRIOR_EXTEND",
    "PRIOR_LADDER_CAPTURE",
    "PRIOR_LADDER_ESCAPE",
    "PRIOR_PATTERN",
    "PRIOR_SAVE",
    "PRIOR_VALUE_PER_LOGIT",
    "PATTERN_LOGITS",
    "NO_PATTERN_LOGITS",
    "prior_kernel",
    "ladder_prior_kernel",
    "liberty_prior_kernel",
    "ladder_move_logits",
    "load_pattern_logits",
    "make_learned_prior_kernel",
    "FinalScore",
    "final_score",
    "final_text",
    "result_text",
    "MOVE_RULES",
    "passing_wins",
    "cleanup_move",
]

#: what search knows about this game (declared on the Game as its ``knowledge``); the
#: search defaults are what MCTSAgent's "auto" settings apply, with the evidence
KNOWLEDGE = Knowledge(
    evaluate_kernel=evaluate_kernel,
    key_kernel=key_kernel,
    exact_value=exact_value,
    playout_kernel=ladder_playout_kernel,
    playout_trace_kernel=ladder_playout_trace_kernel,
    prior_kernel=ladder_prior_kernel,
    move_rules=MOVE_RULES,
    result_text=final_text,
    search_defaults=SearchDefaults(
        rollout="heuristic",
        rave=True,
        c=0.1,
        prior_visits=20.0,
        rave_k=200.0,
        evidence=(
            "the capture/atari playout, which scored 0.77 [0.68, 0.84] over 100 games "
            "against the plain eye-respecting playout (7x7, komi 9, 1000 simulations); its "
            "3x3 pattern step 0.75 [0.55, 0.88] over 24 games against the same playout "
            "without it (9x9, komi 7.5, 0.3 s a move); RAVE with a small UCT term (c = 0.1, "
            "as MoGo's) 0.82 [0.68, 0.91] over 40 games against UCT alone at c = 1.0 (9x9, "
            "komi 7.5, 0.3 s a move); RAVE's children starting with 20 virtual visits at the "
            "move priors' values 0.65 [0.54, 0.75] over 80 games against none (the same); "
            "ladders read in the priors and playouts 0.88 against GNU Go level 10 where the "
            "agent without them scored 0.74 on the same 50 openings (9x9, 1 s a move); "
            "RAVE's weight fading sooner (rave_k 200, not 1000) 0.895 [0.845, 0.93] against "
            "GNU Go level 10 where the agent with 1000 scored 0.855 on the same 200 openings "
            "(9x9, 1 s a move; within noise, sign test p = 0.30), and on 13x13 (3 s a move) "
            "0.925 [0.80, 0.97] where the agent with 1000 scored 0.65 on the same 40 "
            "openings (sign test p = 0.01; 19x19 unmeasured)."
        ),
    ),
)
