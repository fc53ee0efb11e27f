"""Regenerate docs/games.md from the spec sheets in the game modules' docstrings.

The module docstring is the one source of each game's spec; this page collects them.
Run ``python docs/make_games_md.py``; a test fails when the page is out of date.
"""

from __future__ import annotations

import inspect
import sys
from pathlib import Path

from boardzoo.envs import GAMES

PAGE = Path(__file__).with_name("games.md")
INTRO = """# Games

Each section is the spec sheet at the top of the game's module (`boardzoo/envs/<game>.py`),
collected here by `docs/make_games_md.py`. Every env is created as `<game>_v0.env(...)`,
`boardzoo.envs.make_env("<game>", ...)`, `pettingzoo.make("aec", "boardzoo/<game>_v0")` or,
as a single-agent view, `gymnasium.make("boardzoo/<Name>-v0", opponent=..., seat=...)`.

Common to all games: agents are `player_0` (moves first) and `player_1`; observations are
`{"observation": float32 (H, W, C) planes from the observer's view, "action_mask": int8}`;
rewards are +1/0/-1 per seat at the end; `position()`/`reset(options={"position": ...})` use
the notation below; an illegal action ends the game with -1 for the mover and 0 for the other
seat and a warning (PettingZoo's convention; `illegal_action="lose"` makes it +1 for the other
seat, `illegal_action="raise"` raises `boardzoo.errors.IllegalActionError` instead).
"""


def render() -> str:
    sections = [INTRO]
    for name, cls in GAMES.items():
        doc = inspect.getdoc(sys.modules[cls.__module__]) or ""
        title, _, body = doc.partition("\n")
        sections.append(f"## {name}: {title.strip()}\n\n```text\n{body.strip()}\n```\n")
    return "\n".join(sections)


if __name__ == "__main__":
    PAGE.write_text(render(), encoding="utf-8")
    print(f"wrote {PAGE}")
