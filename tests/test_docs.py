"""The docs stay true: docs/games.md is generated from the game modules' spec sheets."""

from __future__ import annotations

import importlib.util
from pathlib import Path

DOCS = Path(__file__).resolve().parents[1] / "docs"


def test_games_page_matches_the_module_spec_sheets():
    spec = importlib.util.spec_from_file_location("make_games_md", DOCS / "make_games_md.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert (DOCS / "games.md").read_text(encoding="utf-8") == module.render(), (
        "docs/games.md is stale: run python docs/make_games_md.py"
    )


def test_readme_links_resolve():
    root = DOCS.parent
    readme = (root / "README.md").read_text(encoding="utf-8")
    for target in ("docs/getting-started.md", "docs/games.md", "docs/architecture.md",
                   "docs/agents.md", "docs/arena.md", "docs/adding-a-game.md",
                   "benchmarks/README.md"):
        assert f"({target})" in readme and (root / target).is_file(), target
