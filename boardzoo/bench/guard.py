"""The regression guard of ``boardzoo bench``: rows whose ratio against their reference
dropped more than :data:`TOLERANCE` below the ratio recorded at the last release.

Ratios, not speeds, are compared: both sides of a ratio are measured in the same run, so a
busy or different machine moves them together, while a slower boardzoo moves the ratio.
The recorded ratios live in ``release_ratios.json`` next to this module, one per row
("game | figure"), each with where it was measured; rows without one are not guarded.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from pathlib import Path

from boardzoo.bench.common import Row

__all__ = ["RELEASE_RATIOS", "TOLERANCE", "regressions", "release_ratios", "row_key"]

#: the recorded ratios of the last release (read by ``boardzoo bench``)
RELEASE_RATIOS = Path(__file__).with_name("release_ratios.json")
#: how far below its recorded ratio a row may drop before it is flagged
TOLERANCE = 0.10


def row_key(row: Row) -> str:
    """The name a row's recorded ratio goes by: "game | figure"."""
    return f"{row.game} | {row.figure}"


def release_ratios(path: Path = RELEASE_RATIOS) -> dict[str, float]:
    """The recorded ratio of each guarded row (an empty guard when the file is missing)."""
    if not path.is_file():
        return {}
    return {key: float(entry["ratio"]) for key, entry in json.loads(path.read_text())[
        "rows"].items()}


def regressions(rows: Iterable[Row], recorded: Mapping[str, float],
                tolerance: float = TOLERANCE) -> list[str]:
    """One warning line per row whose ratio is more than ``tolerance`` (a fraction) below
    its ``recorded`` ratio; rows without a ratio or a recorded one are not judged."""
    warnings = []
    for row in rows:
        before = recorded.get(row_key(row))
        if before is None or row.ratio is None or row.ratio >= (1 - tolerance) * before:
            continue
        drop = 1 - row.ratio / before
        warnings.append(f"REGRESSION {row_key(row)}: {row.ratio:.2f}x against "
                        f"{row.reference_name}, {drop:.0%} below the last release's "
                        f"{before:.2f}x (more than {tolerance:.0%} flags a row)")
    return warnings
