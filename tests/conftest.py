"""Shared test set-up: one thread for torch and numba (CI has 2 cores), quiet pygame."""

from __future__ import annotations

import os

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("NUMBA_NUM_THREADS", "1")
os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

#: PettingZoo's AgileRL tutorial, stored as published: run by test_agilerl_tutorial, not collected
collect_ignore = ["data/pettingzoo_agilerl"]

try:  # torch is an optional extra; when present, tests run it on one thread
    import torch

    torch.set_num_threads(1)
except ImportError:  # pragma: no cover
    pass
