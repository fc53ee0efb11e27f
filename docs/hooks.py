"""MkDocs hooks for boardzoo's site (mkdocs.yml: ``hooks``).

- The command-line reference is generated from ``boardzoo.cli.build_parser()``: the page
  ``reference/cli.md`` holds the marker ``<!-- cli-reference -->``.
- Links from a page to a file outside ``docs/`` (the research log under
  ``benchmarks/results/``, configs, examples) point at that file in the repository, so they
  work on GitHub and on the built site alike.
- Docstrings use Sphinx roles (``:class:`~boardzoo.envs.Game```); they are shown as code.
"""

from __future__ import annotations

import argparse
import os
import posixpath
import re
from typing import Any

CLI_MARKER = "<!-- cli-reference -->"
LINK = re.compile(r"(\]\()([^)\s#]+)(#[^)\s]*)?\)")
ROLE = re.compile(r":(?:class|func|meth|mod|attr|data|exc|obj):<code>(~?)([^<]+)</code>")
HELP_WIDTH = "100"


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    if CLI_MARKER in markdown:
        markdown = markdown.replace(CLI_MARKER, cli_reference())
    return _link_outside_docs(markdown, page.file.src_uri, config)


def on_page_content(html: str, page: Any, config: Any, files: Any) -> str:
    """A role's target as code; ``~a.b.C`` shows as ``C`` (Sphinx's rule)."""
    return ROLE.sub(
        lambda m: f"<code>{m.group(2).rsplit('.', 1)[-1] if m.group(1) else m.group(2)}</code>",
        html,
    )


def _link_outside_docs(markdown: str, src_uri: str, config: Any) -> str:
    """Relative links that leave docs/ become links to the repository's file."""
    repo = config["repo_url"].rstrip("/")

    def rewrite(match: re.Match[str]) -> str:
        target = match.group(2)
        if re.match(r"[a-z][a-z0-9+.-]*:", target) or target.startswith("/"):
            return match.group(0)
        path = posixpath.normpath(posixpath.join(posixpath.dirname(src_uri), target))
        if not path.startswith("../"):
            return match.group(0)
        in_repo = path[len("../"):]
        kind = "tree" if in_repo.endswith("/") or "." not in posixpath.basename(in_repo) else "blob"
        return f"{match.group(1)}{repo}/{kind}/main/{in_repo}{match.group(3) or ''})"

    return LINK.sub(rewrite, markdown)


def cli_reference() -> str:
    """Markdown for every ``boardzoo`` command: its description and its ``--help``."""
    from boardzoo.cli import build_parser

    before = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = HELP_WIDTH  # argparse wraps to the terminal's width
    try:
        parser = build_parser()
        parts = [f"```text\n{parser.format_help()}```"]
        for name, command in _commands(parser).items():
            parts.append(f"## boardzoo {name}\n\n```text\n{command.format_help()}```")
    finally:
        if before is None:
            del os.environ["COLUMNS"]
        else:
            os.environ["COLUMNS"] = before
    return "\n\n".join(parts)


def _commands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}
