"""GTP's clock: the time controls of ``time_settings`` / ``kgs-time_settings``
(:func:`gtp_time_control`) and what the agent may use of a :class:`GameClock` for one move
(:func:`move_clock`)."""

from __future__ import annotations

import dataclasses

from boardzoo.timecontrol import ClockView, GameClock, TimeControl

__all__ = ["TIME_MARGIN", "gtp_time_control", "move_clock"]

TIME_MARGIN = 0.25
"""Seconds kept back from the clock for every move still to make before time is given again
(one, or a Canadian period's stones): the engine's own work around the search (the position,
the rules of play, the reply) and the controller's lag, so that it never loses on time
through them."""


def gtp_time_control(main: float, byo_yomi: float, count: int,
                     japanese: bool = False) -> TimeControl | None:
    """The time control of GTP's ``time_settings MAIN BYO_YOMI COUNT`` (seconds), None for
    no time limits: ``main`` seconds of main time, then Canadian byo-yomi, ``count`` stones
    in every ``byo_yomi`` seconds, or with ``japanese`` (KGS's ``byoyomi``) ``count``
    periods of ``byo_yomi`` seconds. As GTP 2 says, ``byo_yomi`` > 0 with ``count`` 0 means
    no time limits, and ``byo_yomi`` 0 is absolute time; with no main time either there is
    no time to play with, which is taken as no limits too."""
    if byo_yomi > 0 and count > 0:
        if japanese:
            return TimeControl(base=main, periods=count, period_time=byo_yomi)
        return TimeControl(base=main, periods=1, period_time=byo_yomi, period_stones=count)
    if byo_yomi > 0 or main <= 0:
        return None
    return TimeControl(base=main)


def move_clock(clock: GameClock, seat: int, spent: float,
               margin: float = TIME_MARGIN) -> ClockView:
    """What the agent may use for ``seat``'s move now: ``clock``'s view less the ``spent``
    seconds this turn has already taken and ``margin`` for each move still to make before
    time is given again (this one; in a Canadian period each of its stones), taken from the
    main time first, then from the byo-yomi period."""
    view = clock.view(seat)
    in_canadian_period = view.byoyomi_stones > 0 and view.remaining <= 0
    reserve = spent + margin * (view.byoyomi_stones if in_canadian_period else 1)
    from_main = min(view.remaining, reserve)
    return dataclasses.replace(
        view, remaining=view.remaining - from_main,
        byoyomi_time=max(0.0, view.byoyomi_time - (reserve - from_main)))
