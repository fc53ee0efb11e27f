"""Many more damaged snapshots than CI restores: ``python -m benchmarks.snapshot_fuzz``.

Draws ``--cases`` cases with :func:`tests.snapshot_fuzz.random_cases` (byte flips, extreme
values, other lengths and dtypes, bookkeeping changes, relabelled games) over every game's
snapshots, restores them in child processes of ``--chunk`` cases each (a crash names its
case) and prints the counts: cases, refused with IncompatibleSnapshotError, restored and
played to the end, failures (anything else, a crash included). Exit status 1 on a failure.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter

from tests.snapshot_fuzz import ChildCrashed, random_cases, run_in_child


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=40_000)
    parser.add_argument("--chunk", type=int, default=5_000)
    parser.add_argument("--seed", type=int, default=1, help="CI uses seed 0")
    args = parser.parse_args(argv)
    counts: Counter[str] = Counter()
    failures: list[str] = []
    cases = random_cases(args.seed, args.cases)
    for start in range(0, len(cases), args.chunk):
        chunk = cases[start:start + args.chunk]
        try:
            results = run_in_child(chunk, timeout=3600)
        except ChildCrashed as crash:
            counts["failed"] += len(chunk)
            failures.append(str(crash).splitlines()[0])
            continue
        for case, result in zip(chunk, results, strict=True):
            kind = result if result in ("rejected", "played") else "failed"
            counts[kind] += 1
            if kind == "failed":
                failures.append(f"{case}: {result}")
        print(f"{start + len(chunk)} cases: {dict(counts)}", flush=True)
    print(f"cases {len(cases)}, refused {counts['rejected']}, restored and played "
          f"{counts['played']}, failures {counts['failed']}")
    for failure in failures[:10]:
        print(" ", failure)
    return 1 if counts["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())
