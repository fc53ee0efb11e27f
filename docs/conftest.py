"""The docs run: every page of the site's Tutorials and How-to guides (mkdocs.yml's nav) is
run as a user would run it, as one Python script made of its code blocks in order.

``python`` blocks go into the script as they are; ``bash`` blocks run at their place in it,
through the shell, in the same working folder (a fresh temporary one), with the ``boardzoo``
command of this checkout on the PATH. The script runs as ``__main__``, so a block that spawns
processes must carry the ``if __name__ == "__main__":`` guard, as it must for a user. Any
other fence (``text``, ``json``, ...) is not a program and is not run; a ``python`` or
``bash`` block that cannot run here says so, with its reason, in a comment on the line
before it: ``<!-- not run: starts a server that runs until stopped -->``. A page that
trains for minutes carries ``<!-- docs-test: slow -->`` and runs in the slow suite. A block
that includes a file of the repository (``--8<-- "tests/connect_three.py"``, the site's
snippets) runs that file's text.

The ``>>>`` examples of every page run as doctests (pyproject.toml's ``--doctest-glob``).
"""

from __future__ import annotations

import functools
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
RUN_SECTIONS = ("Tutorials", "How-to guides")
FENCE = re.compile(r"^```(\w*)[^\n]*\n(.*?)^```", re.MULTILINE | re.DOTALL)
NOT_RUN = re.compile(r"<!--\s*not run:\s*(\S[^>]*?)\s*-->\s*\Z")
SLOW = "<!-- docs-test: slow -->"
SNIPPET = re.compile(r'^--8<-- "([^"]+)"$', re.MULTILINE)
FUTURE = re.compile(r"^from __future__ import .*$", re.MULTILINE)
PAGE_TIMEOUT = 1800  # seconds; a slow page trains for a few minutes

# games.md is generated from the game modules' docstrings, whose examples run as doctests
# there; the scripts are the site's machinery; works-with.md's snippets each need their own
# library (RLlib in a venv of its own): tests/test_works_with.py runs them where it is
collect_ignore = ["games.md", "make_web_screenshots.py", "make_pictures.py", "hooks.py",
                  "griffe_sphinx.py", "works-with.md"]


class CodeBlock:
    def __init__(self, language: str, code: str, line: int, skip_reason: str | None):
        self.language, self.code, self.line, self.skip_reason = language, code, line, skip_reason


def code_blocks(text: str) -> list[CodeBlock]:
    """Every fenced block of a Markdown page, with the reason it is not run if it says one."""
    blocks = []
    for match in FENCE.finditer(text):
        before = text[: match.start()]
        reason = NOT_RUN.search(before)
        blocks.append(CodeBlock(match.group(1), match.group(2), before.count("\n") + 1,
                                reason.group(1) if reason else None))
    return blocks


def page_script(text: str) -> str:
    """The page as one Python script: its python blocks, and its bash blocks as shell calls
    (a block's ``from __future__`` import goes first, where Python wants it)."""
    parts = ["import subprocess as _docs_subprocess\n"]
    for block in code_blocks(text):
        if block.skip_reason or block.language not in ("python", "bash"):
            continue
        parts.append(f"# --- line {block.line} ---\n")
        if block.language == "python":
            parts.append(SNIPPET.sub(lambda m: (ROOT / m.group(1)).read_text(encoding="utf-8"),
                                     block.code))
        else:
            parts.append(f"_docs_subprocess.run({block.code!r}, shell=True, check=True, "
                         "executable='/bin/bash')\n")
    script = "".join(parts)
    future = FUTURE.findall(script)
    return "".join(line + "\n" for line in dict.fromkeys(future)) + FUTURE.sub("", script)


@functools.cache
def pages_to_run() -> frozenset[Path]:
    """The Markdown files under the nav's Tutorials and How-to guides."""
    import yaml  # mkdocs's own dependency (the docs extra)

    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))
    found: set[Path] = set()

    def walk(entry: Any, running: bool) -> None:
        if isinstance(entry, str):
            if running:
                found.add((ROOT / config["docs_dir"] / entry).resolve())
        elif isinstance(entry, list):
            for item in entry:
                walk(item, running)
        elif isinstance(entry, dict):
            for title, value in entry.items():
                walk(value, running or title in RUN_SECTIONS)

    walk(config["nav"], False)
    return frozenset(found)


def pytest_collect_file(parent: pytest.Collector, file_path: Path) -> pytest.Collector | None:
    if file_path.suffix == ".md" and file_path.resolve() in pages_to_run():
        return DocsPage.from_parent(parent, path=file_path)
    return None


class DocsPage(pytest.File):
    def collect(self):  # noqa: ANN201 - pytest's own collection protocol
        item = DocsScript.from_parent(self, name="script")
        if SLOW in self.path.read_text(encoding="utf-8"):
            item.add_marker(pytest.mark.slow)
        yield item


class DocsScript(pytest.Item):
    def runtest(self) -> None:
        text = self.path.read_text(encoding="utf-8")
        unlabelled = [b.line for b in code_blocks(text) if not b.language]
        if unlabelled:
            raise DocsPageError(f"code blocks without a language at lines {unlabelled}: "
                                "label them (python, bash, text, ...)")
        env = {**os.environ, "MPLBACKEND": "Agg", "OMP_NUM_THREADS": "1",
               "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]),
               "PATH": os.pathsep.join([str(Path(sys.executable).parent), os.environ["PATH"]])}
        with tempfile.TemporaryDirectory(prefix=f"docs-{self.path.stem}-") as folder:
            Path(folder, "page.py").write_text(page_script(text), encoding="utf-8")
            done = subprocess.run([sys.executable, "page.py"], cwd=folder, env=env, text=True,
                                  capture_output=True, timeout=PAGE_TIMEOUT)
        if done.returncode:
            raise DocsPageError(f"the page's script failed (exit {done.returncode}):\n"
                                f"{done.stdout[-3000:]}\n{done.stderr[-6000:]}")

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> str:
        if isinstance(excinfo.value, DocsPageError):
            return str(excinfo.value)
        return super().repr_failure(excinfo)

    def reportinfo(self) -> tuple[Path, int, str]:
        return self.path, 0, f"{self.path.name}: its code blocks as a script"


class DocsPageError(Exception):
    """A docs page whose code does not run as written."""
