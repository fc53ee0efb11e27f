"""PettingZoo's AgileRL Connect Four curriculum tutorial, as published, on boardzoo's drop-in.

The slow test runs the tutorial (all four lessons) and its render script twice, seeded alike
and shortened by the same substitutions (tests/agilerl_tutorial.py): once with only the import
changed to ``boardzoo.classic``, once unchanged on PettingZoo's env. Every printed line, each
lesson's saved elite (network weights, fitness, scores) and each GIF's frame count and size
must be equal. It needs AgileRL, whose releases with this API pin numpy<2: ``make
test-agilerl`` builds that venv and runs it; elsewhere it is skipped. The fast tests check
that the stored files are the published ones and that the runner changes only what it lists
(the drop-in's frames have the size the render script draws its captions on:
tests/test_classic.py).
"""

from __future__ import annotations

import difflib
import hashlib
import importlib.util
import re

import pytest
from PIL import Image

from tests import agilerl_tutorial as tutorial

#: git blob ids of the files at PettingZoo commit 37ac180a (tutorials/AgileRL/, LICENSE)
PUBLISHED = {
    "agilerl_dqn_curriculum.py": "721cd4ee61ad3bc770b12704908bdebd20c9b26d",
    "render_agilerl_dqn.py": "3106eda6dd6a34f62b28c1889fb22940d7b994d0",
    "requirements.txt": "fa1ded6d18cf8b7d5bbd4524dc3b310974dbc5e9",
    "curriculums/connect_four/lesson1.yaml": "cdbf88e09ef7ab27647a426a25a99dc66f614379",
    "curriculums/connect_four/lesson2.yaml": "7f5155e14d6d93b8e6adffb9970b27194473345e",
    "curriculums/connect_four/lesson3.yaml": "a371d56b426a238449d208713c1566524b1f9b49",
    "curriculums/connect_four/lesson4.yaml": "127f91196612c33ac99915a323e0e492d612c2a7",
    "LICENSE": "66fbb0706a2706049be0757bd312387677961bf4",
}
LESSONS = range(1, 5)
OPPONENTS = ("random", "weak", "strong", "self")


def script_lines(printed: str) -> list[str]:
    """What the script printed, less deepspeed's time-stamped log lines (AgileRL imports it)."""
    return [line for line in printed.splitlines() if not re.match(r"\[\d{4}-\d\d-\d\d ", line)]


def gif_frames_and_size(path) -> tuple[int, tuple[int, int]]:
    with Image.open(path) as gif:
        return gif.n_frames, gif.size


def git_blob_id(data: bytes) -> str:
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()  # noqa: S324 - git's id


def test_the_stored_tutorial_is_the_published_one():
    for name, blob in PUBLISHED.items():
        assert git_blob_id((tutorial.TUTORIAL / name).read_bytes()) == blob, name


def test_the_runner_changes_only_the_import_and_the_listed_sizes(tmp_path):
    for env, imports in (("boardzoo", 1), ("pettingzoo", 0)):
        tutorial.prepare(tmp_path / env, env)
        for script in tutorial.SCRIPTS:
            shortened = len(tutorial.SHORTEN) if script == tutorial.SCRIPTS[0] else 0
            old = (tutorial.TUTORIAL / script).read_text().splitlines()
            new = (tmp_path / env / script).read_text().splitlines()
            changed = [line for line in difflib.unified_diff(old, new, n=0)
                       if line.startswith("+") and not line.startswith("+++")]
            assert len(changed) == imports + shortened, (env, script, changed)
            assert ("from boardzoo.classic import connect_four_v3" in new) == bool(imports)
    with pytest.raises(ValueError, match="expected 'x = 1' once, found it 2 times"):
        tutorial.substitute("x = 1\nx = 1\n", (("x = 1", "x = 2"),), "f.py")


@pytest.mark.slow
# AgileRL 2.2 on newer torch and pydantic than it pins (its checkpoints load its classes)
@pytest.mark.filterwarnings("ignore:`torch.jit.script` is deprecated:DeprecationWarning")
@pytest.mark.filterwarnings("ignore:Accessing the 'model_fields' attribute on the instance")
@pytest.mark.skipif(importlib.util.find_spec("agilerl") is None,
                    reason="AgileRL pins numpy<2: it runs in its own venv (make test-agilerl)")
def test_the_published_tutorial_runs_on_the_drop_in_as_on_pettingzoo(tmp_path):
    import dill
    import torch

    printed, saved = {}, {}
    for env in ("boardzoo", "pettingzoo"):
        directory = tutorial.prepare(tmp_path / env, env)
        printed[env] = [script_lines(out) for out in tutorial.run(directory, seed=0)]
        saved[env] = [torch.load(directory / f"models/DQN/lesson{n}_trained_agent.pt",
                                 pickle_module=dill, weights_only=False) for n in LESSONS]
    assert printed["boardzoo"] == printed["pettingzoo"]
    curriculum, render = printed["boardzoo"]
    assert [f"Elite agent saved to 'models/DQN/lesson{n}_trained_agent.pt'." for n in LESSONS] \
        == [line for line in curriculum if line.startswith("Elite")]
    lengths = [int(line.split()[-1]) for line in render if line.startswith("Episode length")]
    assert len(lengths) == 2 * len(OPPONENTS) and all(6 <= n < 42 for n in lengths)
    for ours, theirs in zip(saved["boardzoo"], saved["pettingzoo"], strict=True):
        assert ours["fitness"] == theirs["fitness"] and ours["scores"] == theirs["scores"]
        weights = ours["network_info"]["modules"]["actor_state_dict"]
        want = theirs["network_info"]["modules"]["actor_state_dict"]
        assert weights.keys() == want.keys()
        assert all(torch.equal(weights[k], want[k]) for k in weights)
    assert saved["boardzoo"][-1]["fitness"]  # lessons 2-4 trained and evaluated
    for number, opponent in enumerate(OPPONENTS):
        gifs = {env: gif_frames_and_size(tmp_path / env / f"videos/connect_four_{opponent}_opp.gif")
                for env in printed}
        # one frame after the reset and one per ply (the script prints the last ply's index)
        frames = sum(n + 2 for n in lengths[2 * number : 2 * number + 2])
        assert gifs["boardzoo"] == gifs["pettingzoo"] and gifs["boardzoo"][0] == frames
