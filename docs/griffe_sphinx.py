"""A Griffe extension for boardzoo's API reference (mkdocs.yml: the python handler's
``extensions``), so that docstrings written for Sphinx and doctest read well:

- doctest examples (``>>>`` lines, their ``...`` continuations and expected output, up to a
  blank line) are shown as Python code blocks, not read as Markdown (where ``>>>`` would be
  a nested quote);
- a module attribute's ``#:`` comment lines above it are its docstring (Sphinx's rule).
"""

from __future__ import annotations

from typing import Any

import griffe


def fence_doctests(text: str) -> str:
    """``text`` with each doctest example wrapped in a ```` ```pycon ```` fence."""
    out: list[str] = []
    in_example = False
    for line in text.splitlines():
        if not in_example and line.lstrip().startswith(">>>"):
            out.append("```pycon")
            in_example = True
        elif in_example and not line.strip():
            out.append("```")
            in_example = False
        out.append(line)
    if in_example:
        out.append("```")
    return "\n".join(out)


def comment_docstring(lines: list[str], lineno: int) -> str | None:
    """The ``#:`` comment lines right above line ``lineno`` (1-based), joined, or None."""
    found: list[str] = []
    index = lineno - 2
    while index >= 0 and lines[index].lstrip().startswith("#:"):
        found.insert(0, lines[index].lstrip()[2:].strip())
        index -= 1
    return " ".join(found) or None


class SphinxDocstrings(griffe.Extension):
    def on_instance(self, *, obj: Any, **kwargs: Any) -> None:
        if obj.docstring is None and obj.is_attribute and obj.lineno and obj.parent.is_module:
            text = comment_docstring(obj.lines_collection[obj.filepath], obj.lineno)
            if text:
                obj.docstring = griffe.Docstring(text, lineno=obj.lineno, parent=obj)
        if obj.docstring is not None and ">>>" in obj.docstring.value:
            obj.docstring.value = fence_doctests(obj.docstring.value)
