"""PettingZoo's AgileRL Connect Four curriculum tutorial, run as published on boardzoo's
``connect_four_v3`` drop-in.

``tests/data/pettingzoo_agilerl/`` holds the tutorial's files unchanged (see its README).
:func:`prepare` copies them into a directory and applies two kinds of exact text
substitution, each of which must match exactly once (so a changed original fails loudly
instead of running something else):

- :data:`IMPORT`, the one-line change a user makes (``--env pettingzoo`` leaves it out, for a
  reference run on PettingZoo's own env);
- :data:`SHORTEN` and :data:`SHORTEN_LESSONS`, the tutorial's own size constants and
  curriculum settings (population, buffer, batch, network width, episodes, warm-up), so that
  all four lessons and the render script run in about a minute.

:func:`run` then runs the tutorial and its render script there as scripts, the way the
tutorial's page says (``python agilerl_dqn_curriculum.py``, then
``python render_agilerl_dqn.py``), through :data:`LAUNCHER`, which seeds ``random``, numpy,
torch and every Gymnasium space that the script does not seed itself, so that a run on
boardzoo and one on PettingZoo can be compared number for number. The render script's font
(``arial.ttf``, not redistributable) is replaced by matplotlib's DejaVu Sans under that name.

Run it by hand in a venv with AgileRL (``make test-agilerl`` builds one)::

    python -m tests.agilerl_tutorial DIR [--env boardzoo|pettingzoo] [--seed N]
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
from pathlib import Path

#: the tutorial's files, unchanged (PettingZoo's tutorials/AgileRL at the commit its README names)
TUTORIAL = Path(__file__).resolve().parent / "data" / "pettingzoo_agilerl"
SCRIPTS = ("agilerl_dqn_curriculum.py", "render_agilerl_dqn.py")
#: the one change a user makes, in both scripts
IMPORT = (
    "from pettingzoo.classic import connect_four_v3",
    "from boardzoo.classic import connect_four_v3",
)
#: the tutorial's own size constants, shrunk (agilerl_dqn_curriculum.py)
SHORTEN = (
    ('"channel_size": [128],', '"channel_size": [16],'),
    ('"hidden_size": [64, 64],', '"hidden_size": [32],'),
    ('"POPULATION_SIZE": 6,', '"POPULATION_SIZE": 2,'),
    ('"BATCH_SIZE": 256,', '"BATCH_SIZE": 32,'),
    ('"MEMORY_SIZE": 10000,', '"MEMORY_SIZE": 400,'),
    ("episodes_per_epoch = 10", "episodes_per_epoch = 2"),
    ("evo_epochs = 20", "evo_epochs = 1"),
    ("evo_loop = 50", "evo_loop = 2"),
)
#: the curriculum's lengths, shrunk (curriculums/connect_four/lessonN.yaml)
SHORTEN_LESSONS = {
    "lesson1.yaml": (("agent_warm_up: 3000", "agent_warm_up: 20"),),
    "lesson2.yaml": (("max_train_episodes: 100", "max_train_episodes: 4"),),
    "lesson3.yaml": (("max_train_episodes: 200", "max_train_episodes: 4"),),
    "lesson4.yaml": (
        ("max_train_episodes: 200", "max_train_episodes: 4"),
        ("opponent_pool_size: 6", "opponent_pool_size: 2"),
    ),
}
#: runs a script as ``__main__`` after seeding every generator it draws from unseeded
LAUNCHER = """\
import random, runpy, sys
import numpy, torch
from gymnasium.spaces import Space
seed = int(sys.argv[1])
random.seed(seed)
numpy.random.seed(seed)
torch.manual_seed(seed)
def np_random(space, _get=Space.np_random.fget):
    if space._np_random is None:
        space.seed(seed)
    return _get(space)
Space.np_random = property(np_random)
sys.argv = sys.argv[2:]
runpy.run_path(sys.argv[0], run_name="__main__")
"""


def substitute(text: str, pairs: tuple[tuple[str, str], ...], name: str) -> str:
    """``text`` with each ``(old, new)`` applied; ``old`` must occur exactly once."""
    for old, new in pairs:
        found = text.count(old)
        if found != 1:
            raise ValueError(f"{name}: expected {old!r} once, found it {found} times")
        text = text.replace(old, new)
    return text


def prepare(directory: Path, env: str = "boardzoo") -> Path:
    """The tutorial in ``directory`` (created), shortened, on ``env`` ("boardzoo" swaps the
    import, "pettingzoo" keeps PettingZoo's)."""
    if env not in ("boardzoo", "pettingzoo"):
        raise ValueError(f"env must be 'boardzoo' or 'pettingzoo', not {env!r}")
    shutil.copytree(TUTORIAL, directory, dirs_exist_ok=True)
    for script in SCRIPTS:
        path = directory / script
        text = path.read_text(encoding="utf-8")
        if env == "boardzoo":
            text = substitute(text, (IMPORT,), script)
        if script == SCRIPTS[0]:
            text = substitute(text, SHORTEN, script)
        path.write_text(text, encoding="utf-8")
    for lesson, pairs in SHORTEN_LESSONS.items():
        path = directory / "curriculums" / "connect_four" / lesson
        path.write_text(substitute(path.read_text(encoding="utf-8"), pairs, lesson), "utf-8")
    import matplotlib  # the render script's font, by the name it opens

    font = Path(matplotlib.get_data_path()) / "fonts" / "ttf" / "DejaVuSans.ttf"
    shutil.copyfile(font, directory / "arial.ttf")
    return directory


def run(directory: Path, seed: int = 0, timeout: float = 900) -> list[str]:
    """Runs both scripts in ``directory`` (see :func:`prepare`); returns their standard
    outputs. A script that fails raises ``CalledProcessError`` with its output."""
    environ = {**os.environ, "OMP_NUM_THREADS": "1", "SDL_VIDEODRIVER": "dummy",
               "WANDB_MODE": "disabled", "PYTHONPATH": os.pathsep.join(
                   [str(TUTORIAL.parents[2]), os.environ.get("PYTHONPATH", "")])}
    outputs = []
    for script in SCRIPTS:
        done = subprocess.run(
            [sys.executable, "-c", LAUNCHER, str(seed), script], cwd=directory, env=environ,
            capture_output=True, text=True, timeout=timeout, check=False,
        )
        if done.returncode:
            raise subprocess.CalledProcessError(done.returncode, script, done.stdout,
                                                done.stderr)
        outputs.append(done.stdout)
    return outputs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("directory", type=Path, help="where to copy and run the tutorial")
    parser.add_argument("--env", choices=("boardzoo", "pettingzoo"), default="boardzoo")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    try:
        outputs = run(prepare(args.directory, args.env), args.seed)
    except subprocess.CalledProcessError as failed:
        sys.exit(f"{failed.cmd} failed:\n{failed.stdout}\n{failed.stderr}")
    print("\n".join(outputs))


if __name__ == "__main__":
    main()
