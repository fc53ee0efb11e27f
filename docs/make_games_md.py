"""Regenerate docs/games.md from the spec sheets in the game modules' docstrings.

The module docstring is the one source of each game's spec; this page collects them.
Run ``python docs/make_games_md.py``; a test fails when the page is out of date.
"""

from __future__ import annotations

import inspect
import sys
from pathlib import Path

from boardzoo.classic import MODULES
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


CLASSIC_INTRO = """## pettingzoo.classic drop-ins

`boardzoo.classic` has PettingZoo's classic board games under their own module names, on
boardzoo's compiled rules: `from boardzoo.classic import connect_four_v3` (or `tictactoe_v3`,
`go_v5`, `chess_v6`) in place of `from pettingzoo.classic import ...`, or
`pettingzoo.make("aec", "boardzoo.classic/connect_four_v3")` where PettingZoo has a registry.
Each section is the docstring of its module (`boardzoo/classic/<name>.py`). How they differ
from boardzoo's own envs of the same games:

| | boardzoo's `<game>_v0` | `boardzoo.classic.<name>` (as PettingZoo's) |
| --- | --- | --- |
| agents | `player_0`, `player_1` | PettingZoo's: `player_0`/`player_1`, tic-tac-toe `player_1`/`player_2`, Go `black_0`/`white_0` |
| observation | float32 planes | int8 planes; Go: bool (N, N, 17), 8 positions of history and the side to move; chess: bool (8, 8, 111), 8 positions of history |
| mask after the end | all zeros | the selected agent's moves in the final position (Go: only the pass) |
| rewards | Python floats | ints (Go: `last()` gives np.float64, as go_v5) |
| `env()` | the env itself | PettingZoo's wrapper chain; `env.unwrapped` is the raw env, `env.env.board` works |
| illegal action | the env ends the game (-1 for the mover), also out of range | `TerminateIllegalWrapper` ends it (-1.0); out of range fails `AssertOutOfBoundsWrapper`'s assert |
| Go rules | 9x9, positional superko, 3 * N * N plies | 19x19, simple ko, 100 * N * N plies (go_v5: no limit) |
| chess's end | checkmate, stalemate, insufficient material, a position's third occurrence, 100 halfmoves | as soon as a draw can be claimed (a repetition or the fiftieth move one move away): a ply earlier |
| render modes | `human`, `ansi`, `rgb_array` | `human`, `rgb_array` (boardzoo's pictures; `rgb_array` frames of PettingZoo's size); chess also `ansi` (python-chess's text) |

Both keep boardzoo's snapshots (`env.unwrapped.clone_state()`), `EnvModel` planning and
boardzoo's agents.
"""  # noqa: E501 - markdown table rows


def render() -> str:
    sections = [INTRO]
    for name, cls in GAMES.items():
        doc = inspect.getdoc(sys.modules[cls.__module__]) or ""
        title, _, body = doc.partition("\n")
        sections.append(f"## {name}: {title.strip()}\n\n```text\n{body.strip()}\n```\n")
    sections.append(CLASSIC_INTRO)
    for name, module in MODULES.items():
        title, _, body = (inspect.getdoc(module) or "").partition("\n")
        sections.append(f"### {name}: {title.strip()}\n\n{body.strip()}\n")
    return "\n".join(sections)


if __name__ == "__main__":
    PAGE.write_text(render(), encoding="utf-8")
    print(f"wrote {PAGE}")
