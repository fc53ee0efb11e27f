"""Bad inputs to training — config files, resume folders, labelled positions, starting
checkpoints — are one-line boardzoo errors that say what is wrong and what is allowed, raised
before anything is written in the run folder; never tracebacks or silent empty runs."""

from __future__ import annotations

import json

import pytest

from boardzoo.cli import main as cli_main
from boardzoo.envs import make_game
from boardzoo.errors import CheckpointError, InvalidOptionError
from boardzoo.training import TrainConfig, train
from boardzoo.training.labels import load_labelled

TINY = dict(minutes=None, iterations=1, blocks=1, channels=8, games_per_iteration=2,
            parallel_games=2, simulations=4, fast_simulations=2, batch_size=4,
            replay_window=100, eval_every=0, train_steps_per_iteration=1)
LINE = '{"position": ".........", "policy": {"4": 1}, "value": 0}'


# ---------------------------------------------------------------------------- config files
def test_an_unreadable_config_file_names_the_file_and_the_cause(tmp_path):
    with pytest.raises(CheckpointError, match=r"config file .* cannot be read \(Is a directory\)"):
        TrainConfig.read_options(tmp_path)
    (tmp_path / "afile").write_text("hi")
    with pytest.raises(CheckpointError, match=r"afile/x.json' cannot be read \(Not a directory\)"):
        TrainConfig.from_file(tmp_path / "afile" / "x.json")


def test_the_cli_reports_a_directory_given_as_config_in_one_line(tmp_path, capsys):
    out = tmp_path / "run"
    assert cli_main(["train", "tictactoe", "--minutes", "0.01", "--config", str(tmp_path),
                     "--out", str(out)]) == 2
    error = capsys.readouterr().err
    assert error.startswith("boardzoo train: error: config file") and "Is a directory" in error
    assert "Traceback" not in error and len(error.strip().splitlines()) == 1


def test_a_config_that_is_not_an_object_is_refused(tmp_path):
    """A JSON list or number, in a --config file or a resumed run's config.json."""
    run = tmp_path / "run"
    run.mkdir()
    (run / "config.json").write_text("[1]")
    with pytest.raises(CheckpointError, match=r"config.json .* is not a config object but a "
                                              r"list; expected a table of options"):
        train("tictactoe", out=run, resume=True, progress=False)
    number = tmp_path / "number.json"
    number.write_text("5")
    with pytest.raises(CheckpointError, match="is not a config object but a number"):
        TrainConfig.read_options(number)


def test_a_resumed_run_whose_config_json_is_a_directory_is_refused(tmp_path):
    (tmp_path / "config.json").mkdir()
    with pytest.raises(CheckpointError, match=r"config.json .* cannot be read \(Is a directory\)"):
        train("tictactoe", out=tmp_path, resume=True, progress=False)


@pytest.mark.parametrize(("values", "message"), [
    ({"workers": "2"}, "'workers' must be an integer, not '2'"),
    ({"minutes": "ten"}, "'minutes' must be a number or null, not 'ten'"),
    ({"eval_references": 5}, "'eval_references' must be a list of strings, not 5"),
    ({"game_options": [1]}, "'game_options' must be an object, not \\[1\\]"),
])
def test_an_option_of_the_wrong_type_is_refused(tmp_path, values, message):
    path = tmp_path / "config.json"
    path.write_text(json.dumps(values))
    with pytest.raises(InvalidOptionError, match=message):
        TrainConfig.from_file(path)


# ---------------------------------------------------------------------- labelled positions
@pytest.mark.parametrize("text", ["", "\n  \n"])
def test_a_labelled_position_file_without_positions_is_refused(tmp_path, text):
    empty = tmp_path / "empty.jsonl"
    empty.write_text(text)
    with pytest.raises(CheckpointError, match="holds no labelled positions; each line is"):
        load_labelled(empty, make_game("tictactoe"))


@pytest.mark.parametrize(("line", "message"), [
    ('{"a": 1}', 'line 2: missing "position", "policy", "value"; each line is '
                 '{"position": ..., "policy": {action: p}, "value": v}'),
    ('{"position": ".........", "policy": {"4": 1}}', 'line 2: missing "value"'),
    ("[1]", "line 2: not a JSON object but a list; each line is"),
    ("5", "line 2: not a JSON object but a number"),
    ("nope", "line 2 is not JSON"),
    ('{"position": 5, "policy": {"4": 1}, "value": 0}', '"position" must be the position text'),
    ('{"position": ".........", "policy": [4], "value": 0}',
     'line 2: "policy" must be an object {action: probability}, not a list'),
    ('{"position": ".........", "policy": {"4": "x"}, "value": 0}',
     "line 2: the policy's probability of '4' must be a number, not 'x'"),
    ('{"position": ".........", "policy": {"a": 1}, "value": 0}',
     "line 2: policy key 'a' is not an action number"),
    ('{"position": ".........", "policy": {"4": 1}, "value": "draw"}',
     "line 2: \"value\" must be a number, not 'draw'"),
    ('{"position": ".........", "policy": {"4": 1}, "value": NaN}',
     '"value" must be a number, not nan'),
])
def test_a_malformed_line_says_what_is_wrong_and_the_expected_form(tmp_path, line, message):
    path = tmp_path / "labels.jsonl"
    path.write_text(f"{LINE}\n{line}\n")
    with pytest.raises(CheckpointError) as caught:
        load_labelled(path, make_game("tictactoe"))
    assert message in str(caught.value)


# ---------------------------------------------------------- nothing written for bad inputs
@pytest.mark.parametrize("option", ["from_records", "init_from"])
def test_refused_records_or_start_checkpoint_leave_no_run_folder(tmp_path, option):
    bad = tmp_path / "bad"
    bad.write_text("" if option == "from_records" else "not a checkpoint")
    out = tmp_path / "run"
    with pytest.raises(CheckpointError):
        train("tictactoe", TrainConfig(**{**TINY, option: str(bad)}), out=out, progress=False)
    assert not out.exists()


@pytest.mark.parametrize("minutes", ["-1", "nan", "inf", "0"])
def test_a_time_budget_that_is_not_a_positive_number_of_minutes_is_refused(tmp_path, capsys,
                                                                          minutes):
    out = tmp_path / "run"
    assert cli_main(["train", "tictactoe", "--minutes", minutes, "--out", str(out)]) == 2
    error = capsys.readouterr().err
    assert f"minutes={float(minutes)!r}" in error and len(error.strip().splitlines()) == 1
    assert not out.exists()


def test_a_refused_resume_leaves_the_runs_config_as_it_was(tmp_path):
    out = tmp_path / "run"
    train("tictactoe", TrainConfig(**TINY), out=out, progress=False)
    saved = (out / "config.json").read_text()
    (out / "state.pt").write_bytes(b"not a training state")
    with pytest.raises(CheckpointError, match="training state"):
        train("tictactoe", out=out, resume=True, progress=False, changes={"iterations": 3})
    assert (out / "config.json").read_text() == saved
