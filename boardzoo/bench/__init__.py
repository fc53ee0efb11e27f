"""boardzoo's speed benchmarks: each figure is measured next to a reference (PettingZoo,
OpenSpiel) in the same run and reported as a ratio. Run with ``boardzoo bench``."""
