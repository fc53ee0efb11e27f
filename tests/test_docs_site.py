"""The docs site builds in strict mode (a broken link, a missing reference or a docstring that
fails to render fails it), its API reference covers every public name, and the board
pictures it shows are the ones boardzoo draws today."""

from __future__ import annotations

import importlib
import importlib.util
import os
import pkgutil
import subprocess
import sys
import types
import zlib
from pathlib import Path

import pytest

import boardzoo

ROOT = Path(__file__).resolve().parents[1]
# modules whose __all__ is public API besides the packages' own (found below)
PUBLIC_MODULES = [
    "boardzoo.arena", "boardzoo.ratings", "boardzoo.store", "boardzoo.executor",
    "boardzoo.timecontrol", "boardzoo.analysis", "boardzoo.testing", "boardzoo.errors",
    "boardzoo.agents.ppo", "boardzoo.agents.defaults", "boardzoo.rl.sb3", "boardzoo.rl.selfplay",
]
# packages that are not public API, and why
NOT_PUBLIC = {
    "boardzoo.knowledge.go": "Go's search knowledge, read through game.knowledge",
    "boardzoo.bench": "the benchmarks behind `boardzoo bench`",
}


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("site")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get(
        "PYTHONPATH", "")]), "NO_MKDOCS_2_WARNING": "1"}
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir",
                           str(out)], cwd=ROOT, env=env, capture_output=True, text=True)
    assert done.returncode == 0, f"mkdocs build --strict failed:\n{done.stderr[-5000:]}"
    return out


def public_modules() -> list[str]:
    """Every package of boardzoo with an ``__all__``, and the public modules."""
    packages = [info.name for info in pkgutil.walk_packages(boardzoo.__path__, "boardzoo.")
                if info.ispkg and info.name not in NOT_PUBLIC]
    return [name for name in packages if hasattr(importlib.import_module(name), "__all__")
            ] + PUBLIC_MODULES


def inventory(site: Path) -> set[str]:
    """The Python objects the API reference documents (mkdocstrings' objects.inv)."""
    header, _, body = (site / "objects.inv").read_bytes().partition(b"zlib.\n")
    assert b"Sphinx inventory version 2" in header
    lines = zlib.decompress(body).decode().splitlines()
    return {line.split(" ")[0] for line in lines if " py:" in line}


def documented(module: str, name: str, documented_names: set[str]) -> bool:
    """Whether ``module.name`` is in the reference, under that name or where it is defined."""
    obj = getattr(importlib.import_module(module), name)
    if isinstance(obj, types.ModuleType):  # a game module: its env() factory is documented
        return any(entry.startswith(obj.__name__ + ".") for entry in documented_names)
    candidates = {f"{module}.{name}"}
    if getattr(obj, "__module__", None) and getattr(obj, "__qualname__", None):
        candidates.add(f"{obj.__module__}.{obj.__qualname__}")
    return bool(candidates & documented_names)


def _load(path: Path, name: str) -> types.ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_site_builds_in_strict_mode_and_opens_on_its_home_page(site):
    home = (site / "index.html").read_text(encoding="utf-8")
    assert 'href="tutorials/first-environment.html"' in home  # the folder opens from disk
    assert (site / "reference" / "cli.html").is_file()


def test_every_public_name_is_in_the_api_reference(site):
    names = inventory(site)
    modules = public_modules()
    assert {"boardzoo.envs", "boardzoo.agents", "boardzoo.training", "boardzoo.rl"} <= set(
        modules)
    missing = [f"{module}.{name}" for module in modules
               for name in importlib.import_module(module).__all__
               if not documented(module, name, names)]
    assert not missing, f"public names missing from the API reference: {missing}"


def test_the_searching_agents_document_the_methods_the_tutorials_teach(site):
    names = inventory(site)
    assert {f"boardzoo.agents.{agent}.{method}" for agent in ("MCTSAgent", "AlphaBetaAgent")
            for method in ("act", "search")} <= names


def test_the_cli_reference_has_every_command(site):
    from boardzoo.cli import build_parser

    page = (site / "reference" / "cli.html").read_text(encoding="utf-8")
    commands = next(a for a in build_parser()._actions if hasattr(a, "choices") and a.choices)
    for name in commands.choices:
        assert f"boardzoo {name}" in page, name


def test_the_board_pictures_in_the_docs_are_current():
    module = _load(ROOT / "docs" / "make_pictures.py", "make_pictures")
    for file, svg in module.pictures().items():
        path = ROOT / "docs" / "images" / file
        assert path.read_text(encoding="utf-8") == svg, (
            f"{path} is stale: run python docs/make_pictures.py")


def test_the_docs_test_runs_every_tutorial_and_how_to():
    conftest = _load(ROOT / "docs" / "conftest.py", "docs_conftest")
    pages = {path.relative_to(ROOT / "docs").as_posix() for path in conftest.pages_to_run()}
    assert {"tutorials/first-environment.md", "tutorials/first-match.md",
            "tutorials/alphazero-tictactoe.md", "tutorials/ppo-vs-planning.md",
            "how-to/positions.md", "adding-a-game.md"} <= pages
    script = conftest.page_script('a\n```python\nx = 1\n```\n<!-- not run: why -->\n'
                                  '```bash\nfalse\n```\n```bash\necho hi\n```\n')
    assert "x = 1" in script and "false" not in script and "echo hi" in script
