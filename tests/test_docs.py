"""The docs stay true: docs/games.md is generated from the game modules' spec sheets, the
user docs speak to users, and their links resolve."""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
# README.md and every page under docs/; the research log lives in benchmarks/results/
USER_DOCS = [ROOT / "README.md", *sorted(DOCS.rglob("*.md"))]
MODEL_CARD_MAX_WORDS = 1500

# what a user cannot make sense of: internal tracking, people, machine load, paths outside
# the repository, team vocabulary
NOT_FOR_USERS = {
    "an issue number": re.compile(r"\bissues?\s+#?\d+", re.IGNORECASE),
    "a session label": re.compile(r"\bstop\s+\d+", re.IGNORECASE),
    "the team": re.compile(r"\bengineers?\b", re.IGNORECASE),
    "machine load": re.compile(r"load average", re.IGNORECASE),
    "a path outside the repository": re.compile(r"\.\./shared|/work/"),
    "internal vocabulary": re.compile(r"the main job", re.IGNORECASE),
}
LINK = re.compile(r"\]\(([^)\s]+)\)")


def test_games_page_matches_the_module_spec_sheets():
    spec = importlib.util.spec_from_file_location("make_games_md", DOCS / "make_games_md.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert (DOCS / "games.md").read_text(encoding="utf-8") == module.render(), (
        "docs/games.md is stale: run python docs/make_games_md.py"
    )


def test_the_scan_finds_what_it_looks_for():
    text = "as in issue 15 at stop 17, while two engineers ran (load average 9) ../shared/x"
    found = {what for what, pattern in NOT_FOR_USERS.items() if pattern.search(text)}
    assert found == set(NOT_FOR_USERS) - {"internal vocabulary"}
    assert NOT_FOR_USERS["internal vocabulary"].search("runs The Main Job")


def test_user_docs_speak_to_users():
    found = []
    for path in USER_DOCS:
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            for what, pattern in NOT_FOR_USERS.items():
                if match := pattern.search(line):
                    found.append(f"{path.relative_to(ROOT)}:{number}: {what}: {match.group()!r}")
    assert not found, "\n".join(found)


def test_model_cards_are_short():
    cards = sorted((DOCS / "model-cards").glob("*.md"))
    assert {card.stem for card in cards} >= {"tictactoe", "connect_four", "othello_6x6"}
    long = {card.name: n for card in cards
            if (n := len(card.read_text(encoding="utf-8").split())) > MODEL_CARD_MAX_WORDS}
    assert not long, f"model cards over {MODEL_CARD_MAX_WORDS} words: {long}"


def test_relative_links_resolve():
    broken = []
    for path in [*USER_DOCS, *sorted((ROOT / "benchmarks").rglob("*.md"))]:
        for target in LINK.findall(path.read_text(encoding="utf-8")):
            if re.match(r"[a-z]+:", target) or target.startswith("#"):
                continue
            if not (path.parent / target.split("#")[0]).exists():
                broken.append(f"{path.relative_to(ROOT)}: {target}")
    assert not broken, "\n".join(broken)


def test_the_readme_code_runs_as_written(tmp_path):
    """The README's Python blocks, as one script (the docs pages' rule, docs/conftest.py)."""
    spec = importlib.util.spec_from_file_location("docs_conftest", DOCS / "conftest.py")
    pages = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(pages)
    script = pages.page_script((ROOT / "README.md").read_text(encoding="utf-8"))
    assert "MCTSAgent" in script and "make test" not in script
    (tmp_path / "readme.py").write_text(script, encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get(
        "PYTHONPATH", "")])}
    done = subprocess.run([sys.executable, "readme.py"], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "wins" in done.stdout or "draw" in done.stdout


def test_the_readme_is_a_short_front_page():
    assert len((ROOT / "README.md").read_text(encoding="utf-8").split()) <= 700


def test_readme_links_resolve():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    for target in ("docs/tutorials/first-environment.md", "docs/games.md", "docs/architecture.md",
                   "docs/agents.md", "docs/arena.md", "docs/adding-a-game.md",
                   "benchmarks/README.md"):
        assert f"({target})" in readme and (ROOT / target).is_file(), target


def test_cutechess_commands_name_the_program_alone():
    """cutechess-cli runs ``cmd=`` as one program name (``cmd="boardzoo uci"`` fails with
    "Cannot execute command", tried with cutechess-cli 1.4.0); arguments go in ``arg=``."""
    commands = [(path.relative_to(ROOT), match.group())
                for path in USER_DOCS
                for match in re.finditer(r"cmd=(\"[^\"]*\"|'[^']*'|\S+)",
                                         path.read_text(encoding="utf-8"))]
    assert any(command == "cmd=boardzoo" for _, command in commands)
    assert [(path, command) for path, command in commands if " " in command] == []
