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

A wheel may ship a compiled cache of the same layout in the package (``boardzoo/compiled/``),
built for :data:`PORTABLE_CPU` (any x86-64 CPU since about 2009: it has the POPCNT the
bitboards use) on the wheel's platform, Python and numba versions. When the user's cache
folder of this source has not been seeded yet, :func:`seed` copies that cache into it,
labelled for this CPU (numba would otherwise reject code built for another CPU name), so a
new installation loads its searches instead of compiling them for a minute; code the
shipped cache lacks compiles as usual. ``boardzoo compile --for-this-cpu`` drops the seeded
copies (:func:`unseed`) and compiles everything for this CPU.

:func:`install` puts this in place; ``import boardzoo`` calls it before any compiled
function is defined, and :func:`seed` once its games are registered.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import pickle
import tempfile
from functools import cache
from pathlib import Path

import numba
from numba.core import caching, serialize

__all__ = ["PACKAGE_DIR", "PORTABLE_CPU", "cache_dir", "install", "seed", "shipped_dir",
           "source_hash", "unseed"]

PACKAGE_DIR = Path(__file__).resolve().parent
#: the CPU a shipped cache is built for (``NUMBA_CPU_NAME``, with ``NUMBA_CPU_FEATURES=""``)
PORTABLE_CPU = "x86-64-v2"
_SEEDED = "seeded-from-wheel"  # in a cache folder: the files copied from the shipped cache
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


def shipped_dir() -> Path:
    """Where a wheel's compiled cache of this source lies (there may be none)."""
    return PACKAGE_DIR / "compiled" / f"numba-{numba.__version__}" / source_hash()


def seed() -> int:
    """Copy the shipped cache into the user's cache folder, once per folder, labelled for
    this CPU (files already there are kept). Returns the number of functions seeded; 0 with
    no shipped cache, one for another CPU family, or a folder that cannot be written."""
    source, target = shipped_dir(), cache_dir()
    if not source.is_dir() or source == target or (target / _SEEDED).exists():
        return 0  # (the shipped cache itself is being built where source == target)
    try:
        return _seed(source, target)
    except OSError:  # no writable cache folder: numba's own rules, as without a shipped one
        return 0


def _seed(source: Path, target: Path) -> int:
    from numba.core.registry import cpu_target

    host = cpu_target.target_context.codegen().magic_tuple()
    copied: list[str] = []
    for index in source.rglob("*.nbi"):
        relative = index.relative_to(source)
        overloads = _relabelled(index, host)
        if not overloads or (target / relative).exists():
            continue
        (target / relative).parent.mkdir(parents=True, exist_ok=True)
        for name in overloads.values():
            _write(target / relative.parent / name, (index.parent / name).read_bytes())
            copied.append(str(relative.parent / name))
        _write(target / relative, _index_bytes(index, overloads))
        copied.append(str(relative))
    _write(target / _SEEDED, "\n".join(copied).encode())
    return sum(name.endswith(".nbi") for name in copied)


def _relabelled(index: Path, host: tuple) -> dict:
    """A shipped index's overloads built for :data:`PORTABLE_CPU` on this machine's
    architecture, their keys labelled with ``host`` (numba's codegen magic tuple)."""
    with open(index, "rb") as f:
        if pickle.load(f) != numba.__version__:
            return {}
        stamp, overloads = pickle.loads(f.read())
    if stamp != source_hash():
        return {}
    portable = (host[0], PORTABLE_CPU, "")
    return {(sig, host, hashes): name for (sig, magic, hashes), name in overloads.items()
            if magic == portable}


def _index_bytes(index: Path, overloads: dict) -> bytes:
    """numba's index file format: its version pickled, then the (stamp, overloads) pair."""
    return pickle.dumps(numba.__version__, protocol=-1) + serialize.dumps((source_hash(),
                                                                          overloads))


def _write(path: Path, data: bytes) -> None:
    """A whole file, atomically (processes may seed one folder at once)."""
    temporary = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    temporary.write_bytes(data)
    os.replace(temporary, path)


def unseed() -> None:
    """Remove what :func:`seed` copied into the user's cache folder (its mark stays, empty,
    so the folder is not seeded again): what compiles next is built for this CPU."""
    target = cache_dir()
    marker = target / _SEEDED
    if not marker.exists():
        return
    for name in marker.read_text().split("\n"):
        if name:
            with contextlib.suppress(FileNotFoundError):
                (target / name).unlink()
    marker.write_text("")  # seeded once already: not again


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
