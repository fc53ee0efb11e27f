"""Strength studies of a source checkout (they read tests/data and write docs/): run them as
``python -m benchmarks.strength`` and ``python -m benchmarks.othello_table``. The speed
benchmarks behind ``boardzoo bench`` ship with the package, in :mod:`boardzoo.bench`."""
