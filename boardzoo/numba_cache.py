"""Where boardzoo's compiled code is cached on disk, and when a cached copy is still good.

Numba caches a compiled function next to its source (``__pycache__``) and trusts it while
that one source file is unchanged. Neither suits a library: an installed package's folder
may not be writable (site-packages owned by root), and a cached search has the game kernels
it calls compiled into it, so a change to a kernel in another file must invalidate it too.

So boardzoo's functions (and only boardzoo's) are cached in the user's cache folder, one
folder per boardzoo source: ``$BOARDZOO_CACHE_DIR`` or ``$XDG_CACHE_HOME/boardzoo`` (default
``~/.cache/boardzoo``), then ``numba-<numba version>/<hash of every boardzoo source
file>/``. Any change to boardzoo's code is a new folder and everything compiles once more;
nothing stale is ever loaded. Numba writes each cache file atomically, so processes filling
the cache at once are safe. Where no cache folder can be written, numba's own rules apply.

:func:`install` puts this in place; ``import boardzoo`` calls it before any compiled
function is defined.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from functools import cache
from pathlib import Path

import numba
from numba.core import caching

__all__ = ["PACKAGE_DIR", "cache_dir", "install", "source_hash"]

PACKAGE_DIR = Path(__file__).resolve().parent
_ENSURED: set[str] = set()  # cache folders known to be writable


@cache
def source_hash() -> str:
    """A hash of every Python source file of the package (their paths and contents)."""
    digest = hashlib.sha256()
    for path in sorted(PACKAGE_DIR.rglob("*.py")):
        digest.update(str(path.relative_to(PACKAGE_DIR)).encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:20]


def cache_dir() -> Path:
    """The folder compiled code of this boardzoo source is cached in (with no home folder
    to put it in: the system's temporary folder)."""
    root = os.environ.get("BOARDZOO_CACHE_DIR")
    if not root:
        base = os.environ.get("XDG_CACHE_HOME") or os.path.join(_home(), ".cache")
        root = os.path.join(base, "boardzoo")
    return Path(root) / f"numba-{numba.__version__}" / source_hash()


def _home() -> str:
    try:
        return str(Path.home())
    except RuntimeError:  # no HOME and no password entry
        return tempfile.gettempdir()


class _BoardzooCacheLocator(caching._SourceFileBackedLocatorMixin, caching._CacheLocator):
    """Numba's cache locator for functions defined in boardzoo's own files."""

    def __init__(self, py_func, py_file):
        self._py_file = py_file
        self._lineno = py_func.__code__.co_firstlineno
        relative = Path(py_file).resolve().parent.relative_to(PACKAGE_DIR)
        self._cache_path = str(cache_dir() / relative)

    def get_cache_path(self) -> str:
        return self._cache_path

    def ensure_cache_path(self) -> None:
        """Numba's check (the folder exists and takes a file), once per folder."""
        if self._cache_path not in _ENSURED:
            super().ensure_cache_path()
            _ENSURED.add(self._cache_path)

    def get_source_stamp(self) -> str:
        return source_hash()

    @classmethod
    def from_function(cls, py_func, py_file):
        if not Path(py_file).resolve().is_relative_to(PACKAGE_DIR):
            return None
        return super().from_function(py_func, py_file)


def install() -> None:
    """Cache boardzoo's compiled functions as the module docstring says (once)."""
    locators = caching.CacheImpl._locator_classes
    if _BoardzooCacheLocator not in locators:
        locators.insert(0, _BoardzooCacheLocator)
