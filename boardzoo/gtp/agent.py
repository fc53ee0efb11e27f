"""Any GTP engine as an arena agent for Go (GNU Go is the one the tests use).

Before every move the agent replays the env's game record (setup stones and moves, read from
its SGF ``position()``) into the engine and asks ``genmove``, so the engine always sees the
exact position, superko history included, whatever happened in between.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from boardzoo.envs.sgf import parse_sgf
from boardzoo.errors import InvalidOptionError
from boardzoo.gtp.client import GtpEngine, GtpError
from boardzoo.options import KeywordChecked
from boardzoo.wrappers.model import boardzoo_env

__all__ = ["GTPAgent", "GnuGoAgent", "find_gnugo", "gnugo_command"]

_GNUGO_FALLBACK = "/usr/games/gnugo"  # Debian's package puts it outside the usual PATH


def find_gnugo() -> str | None:
    """Path of the GNU Go executable (on PATH, or Debian's /usr/games/gnugo), or None."""
    found = shutil.which("gnugo")
    if found:
        return found
    if os.path.isfile(_GNUGO_FALLBACK) and os.access(_GNUGO_FALLBACK, os.X_OK):
        return _GNUGO_FALLBACK
    return None


_GNUGO_KO_FLAGS = {
    "positional": "--positional-superko",
    "situational": "--situational-superko",
    "simple": "--simple-ko",
    "none": "--no-ko",
}


def _vertex(point: tuple[int, int] | None, game: Any) -> str:
    """GTP vertex of an SGF point (row 0 at the top), "pass" for None: the Go game's own
    move notation (the one vertex format of :mod:`boardzoo.envs.go`)."""
    size = game.size
    return game.action_to_str(size * size if point is None else point[0] * size + point[1])


class GTPAgent(KeywordChecked):
    """Plays Go through a GTP engine.

    ``command(rules) -> argv`` builds the engine's command line from the env's rule options
    (``board_size, komi, ko, suicide``) so that the engine plays by the same rules; the engine
    starts at the first move and restarts if the rules change, or once if it dies during a
    move (a second death in the same position raises :class:`GtpError`). An engine that
    resigns is answered with a pass (boardzoo's Go has no resign move); give engines their
    never-resign option.
    """

    def __init__(
        self,
        command: Callable[[dict[str, Any]], Sequence[str]] | Sequence[str],
        timeout: float | None = 60.0,
        name: str = "gtp",
    ):
        self._command = command if callable(command) else FixedCommand(command)
        self.timeout = timeout
        self.name = name
        self._engine: GtpEngine | None = None
        self._rules: dict[str, Any] | None = None

    def act(self, env: Any) -> int:
        raw = boardzoo_env(env)
        if raw is None or raw.game.name != "go":
            raise InvalidOptionError("a GTP agent plays boardzoo's Go envs only")
        try:
            return self._genmove(raw)
        except GtpError as err:
            if not err.engine_exited:
                raise
        # The engine died (GNU Go 3.8 segfaults in rare long 19x19 games): a fresh engine
        # gets the whole record again, once, so a match does not lose the game to it.
        self.close()
        try:
            return self._genmove(raw)
        except GtpError as err:
            if err.engine_exited:
                raise GtpError(err.command, f"{err.message}; it died again after a restart "
                               f"in the same position, {raw.position()}",
                               engine_exited=True) from None
            raise

    def _genmove(self, raw: Any) -> int:
        """Replay ``raw``'s record into the engine and ask it for the side to move's move."""
        engine = self._engine_for(raw.game.options)
        record = parse_sgf(raw.position())
        engine.send("clear_board")
        for colour, points in (("black", record.black_setup), ("white", record.white_setup)):
            for point in points:
                engine.send(f"play {colour} {_vertex(point, raw.game)}")
        for colour, move in record.moves:
            engine.send(f"play {'black' if colour == 'B' else 'white'} {_vertex(move, raw.game)}")
        to_play = "black" if raw.agent_selection == raw.possible_agents[0] else "white"
        reply = engine.send(f"genmove {to_play}").strip().lower()
        return raw.str_to_action("pass" if reply == "resign" else reply)

    def _engine_for(self, rules: dict[str, Any]) -> GtpEngine:
        if self._engine is None or rules != self._rules:
            self.close()
            self._engine = GtpEngine(self._command(rules), timeout=self.timeout)
            self._engine.send(f"boardsize {rules['board_size']}")
            self._engine.send(f"komi {rules['komi']}")
            self._rules = dict(rules)
        return self._engine

    def close(self) -> None:
        if self._engine is not None:
            self._engine.close()
            self._engine = None

    def __getstate__(self) -> dict[str, Any]:
        """Pickles (for arena worker processes) without the running engine."""
        state = dict(self.__dict__)
        state["_engine"], state["_rules"] = None, None
        return state

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.name})"


class FixedCommand:
    """An engine command line that does not depend on the rules (a class, not a lambda, so
    that the agent pickles into arena worker processes)."""

    def __init__(self, argv: Sequence[str]):
        self.argv = list(argv)

    def __call__(self, rules: dict[str, Any]) -> list[str]:
        return list(self.argv)


@dataclass(frozen=True)
class GnuGoCommand:
    """GNU Go's command line for the env's rules (see :func:`gnugo_command`); picklable."""

    path: str
    level: int = 10
    seed: int | None = None

    def __call__(self, rules: dict[str, Any]) -> list[str]:
        argv = [self.path, "--mode", "gtp", "--chinese-rules", "--never-resign",
                "--capture-all-dead", "--level", str(self.level), _GNUGO_KO_FLAGS[rules["ko"]]]
        if rules["suicide"]:
            argv.append("--allow-all-suicide")
        if self.seed is not None:
            argv += ["--seed", str(self.seed)]
        return argv


def gnugo_command(level: int = 10, seed: int | None = None,
                  executable: str | None = None) -> GnuGoCommand:
    """A command builder for GNU Go under Chinese (area) rules with the env's ko and suicide
    rules, never resigning, and capturing every dead stone before it passes (boardzoo scores
    Tromp-Taylor style: stones left on the board count, dead or not)."""
    path = executable or find_gnugo()
    if path is None:
        raise InvalidOptionError("GNU Go is not installed (Debian: apt-get install gnugo)")
    return GnuGoCommand(path, level, seed)


class GnuGoAgent(GTPAgent):
    """GNU Go at ``level`` (0-10, 10 strongest) as an agent; ``seed`` varies its choices."""

    def __init__(self, level: int = 10, seed: int | None = None, timeout: float | None = 60.0):
        super().__init__(gnugo_command(level, seed), timeout=timeout, name=f"gnugo-{level}")

    def reseed(self, seed: int) -> None:
        """Vary GNU Go's choices from this game on (the arena reseeds before every game)."""
        self._engine_seed = seed % (2**31)
        if self._engine is not None:
            self._engine.send(f"set_random_seed {self._engine_seed}")

    def _engine_for(self, rules: dict[str, Any]) -> GtpEngine:
        fresh = self._engine is None or rules != self._rules
        engine = super()._engine_for(rules)
        if fresh and getattr(self, "_engine_seed", None) is not None:
            engine.send(f"set_random_seed {self._engine_seed}")
        return engine
