"""Files written whole (boardzoo.files): the old file or the whole new one, with the
permissions of any new file, and no temporary left behind."""

import os
import stat

import matplotlib
import pytest

from boardzoo.files import atomic_write_bytes, atomic_write_text, save_figure

matplotlib.use("Agg")


@pytest.fixture
def umask_022():
    old = os.umask(0o022)
    yield
    os.umask(old)


def test_a_written_file_has_the_usual_permissions_and_no_temporary_is_left(tmp_path, umask_022):
    target = tmp_path / "deeper" / "ratings.csv"
    atomic_write_text(target, "agent,elo\nmcts,1500\n")
    assert target.read_text() == "agent,elo\nmcts,1500\n"
    assert stat.S_IMODE(target.stat().st_mode) == 0o644  # not owner-only, as mkstemp makes
    atomic_write_bytes(target, b"replaced")
    assert target.read_bytes() == b"replaced"
    assert sorted(p.name for p in target.parent.iterdir()) == ["ratings.csv"]


def test_a_write_that_fails_keeps_the_old_file_whole(tmp_path, monkeypatch):
    target = tmp_path / "state.pt"
    atomic_write_bytes(target, b"old state")

    def full_disk(fd):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", full_disk)
    with pytest.raises(OSError, match="No space left") as err:
        atomic_write_bytes(target, b"new state, never complete")
    assert err.value.filename == str(target)  # the one line the CLI prints says which file
    assert target.read_bytes() == b"old state"
    assert [p.name for p in tmp_path.iterdir()] == ["state.pt"]


def test_a_figure_is_saved_in_its_suffix_format(tmp_path):
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots()
    ax.plot([0, 1], [1, 0])
    save_figure(fig, tmp_path / "curve.png")
    save_figure(fig, tmp_path / "curve.svg")
    plt.close(fig)
    assert (tmp_path / "curve.png").read_bytes().startswith(b"\x89PNG\r\n")
    assert b"<svg" in (tmp_path / "curve.svg").read_bytes()[:500]
