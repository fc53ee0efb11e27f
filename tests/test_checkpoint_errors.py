"""Bad checkpoint files (empty, random bytes, JSON, truncated, code-carrying, a directory,
another game's PPO policy) are one-line boardzoo errors that name the cause, never
tracebacks, and loading them never runs code."""

from __future__ import annotations

import io
import json
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("sb3_contrib")

from boardzoo.agents import SB3Agent, make_agent  # noqa: E402
from boardzoo.agents.alphazero import AlphaZeroAgent, AlphaZeroNet, NetworkConfig  # noqa: E402
from boardzoo.agents.alphazero import checkpoint as ckpt  # noqa: E402
from boardzoo.cli import main as cli_main  # noqa: E402
from boardzoo.envs import make_env, make_game  # noqa: E402
from boardzoo.errors import CheckpointError, InvalidOptionError  # noqa: E402
from boardzoo.torch_files import safe_torch_load  # noqa: E402


class _CreatesAFile:
    """A pickle payload that would create ``path`` when unpickled."""

    def __init__(self, path: Path):
        self.path = str(path)

    def __reduce__(self):
        return (open, (self.path, "w"))


@pytest.fixture
def bad_files(tmp_path: Path) -> dict[str, Path]:
    """An empty file, random bytes and a JSON text, each named ``*.pt``."""
    files = {"empty": b"", "junk": np.random.default_rng(0).bytes(2000),
             "json": json.dumps({"format": ckpt.FORMAT, "weights": [1, 2]}).encode()}
    for name, data in files.items():
        (tmp_path / f"{name}.pt").write_bytes(data)
    return {name: tmp_path / f"{name}.pt" for name in files}


@pytest.fixture
def az_checkpoint(tmp_path: Path) -> Path:
    """A real, small tic-tac-toe AlphaZero checkpoint."""
    game = make_game("tictactoe")
    path = tmp_path / "az.pt"
    ckpt.save_checkpoint(path, game, AlphaZeroNet.for_game(game, NetworkConfig(1, 8)), step=1)
    return path


def _policy_file(path: Path, game_name: str, observation: str = "flat") -> Path:
    """A small untrained PPO policy for ``game_name`` saved as a boardzoo PPO checkpoint."""
    from gymnasium import spaces
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

    from boardzoo.agents.ppo import policy_kwargs, save_policy

    game = make_game(game_name)
    shape = game.planes_shape if observation == "planes" else (int(np.prod(game.planes_shape)),)
    policy = MaskableActorCriticPolicy(spaces.Box(0.0, 1.0, shape, np.float32),
                                       spaces.Discrete(game.num_actions), lambda _: 0.0,
                                       **policy_kwargs("flatten", [8]))
    save_policy(policy, path, game_name, {}, observation, "flatten", [8])
    return path


def _ppo(path: Path):
    """``make_agent("ppo:checkpoint=<path>")``."""
    return make_agent(f"ppo:checkpoint={str(path)!r}")


def _truncated(path: Path) -> Path:
    """A copy of ``path`` cut to half its length."""
    cut = path.with_name(f"cut_{path.name}")
    cut.write_bytes(path.read_bytes()[: path.stat().st_size // 2])
    return cut


def _one_line(err: pytest.ExceptionInfo) -> str:
    message = str(err.value)
    assert "\n" not in message and "Please file an issue" not in message, message
    return message


# ------------------------------------------------------------------------- AlphaZero files
def test_an_empty_alphazero_checkpoint_is_refused_as_empty(bad_files):
    for load in (ckpt.load_checkpoint, AlphaZeroAgent.from_checkpoint,
                 lambda p: make_agent(f"alphazero:checkpoint={str(p)!r}")):
        with pytest.raises(CheckpointError, match=r"not a boardzoo checkpoint: it is empty"):
            load(bad_files["empty"])
    with pytest.raises(CheckpointError, match="training state .* is empty"):
        safe_torch_load(bad_files["empty"], "training state")  # a run's state.pt
    with pytest.raises(CheckpointError, match="is empty"):
        safe_torch_load(io.BytesIO(b""), "the learner actor's state")


@pytest.mark.parametrize("kind", ["junk", "json"])
def test_a_file_that_is_no_torch_file_is_not_blamed_on_pickles(bad_files, kind):
    with pytest.raises(CheckpointError) as err:
        ckpt.load_checkpoint(bad_files[kind])
    message = _one_line(err)
    assert "not a torch checkpoint file at all" in message and "pickled" not in message


def test_a_truncated_alphazero_checkpoint_says_its_end_is_missing(az_checkpoint):
    with pytest.raises(CheckpointError, match="truncated") as err:
        ckpt.load_checkpoint(_truncated(az_checkpoint))
    assert "end is missing" in _one_line(err)


@pytest.mark.parametrize("seed", range(20))
def test_random_bytes_are_no_torch_file(tmp_path, seed):
    path = tmp_path / "noise.pt"
    path.write_bytes(np.random.default_rng(seed).bytes(500))
    with pytest.raises(CheckpointError, match="not a torch checkpoint file at all"):
        safe_torch_load(path)


@pytest.mark.parametrize("legacy", [False, True])
def test_damaged_torch_files_are_checkpoint_errors_or_load(tmp_path, legacy):
    """Bytes changed or cut anywhere in a real torch file (zip or torch's legacy format):
    it loads, or it is a one-line CheckpointError; never another exception."""
    path = tmp_path / "good.pt"
    torch.save({"format": ckpt.FORMAT, "weights": {"w": torch.zeros(4)}, "note": "x" * 40},
               path, _use_new_zipfile_serialization=not legacy)
    good = path.read_bytes()
    rng = np.random.default_rng(1)
    for _ in range(150):
        data = bytearray(good)
        for i in rng.integers(16, len(data), 3):
            data[i] = int(rng.integers(256))
        if rng.random() < 0.3:
            data = data[: int(rng.integers(16, len(data)))]
        path.write_bytes(bytes(data))
        try:
            safe_torch_load(path)
        except CheckpointError as err:
            assert "\n" not in str(err), str(err)


def test_a_code_carrying_torch_file_is_refused_with_the_unpicklers_reason(tmp_path):
    target = tmp_path / "pwned"
    evil = tmp_path / "evil.pt"
    torch.save({"format": ckpt.FORMAT, "weights": _CreatesAFile(target)}, evil)
    with pytest.raises(CheckpointError, match="refuses to load code") as err:
        ckpt.load_checkpoint(evil)
    message = _one_line(err)
    assert "pickled objects" in message and "Unsupported global" in message
    assert "Weights only load failed" not in message
    assert not target.exists()


def test_a_directory_is_named_as_one(tmp_path):
    with pytest.raises(CheckpointError, match="is a directory"):
        AlphaZeroAgent.from_checkpoint(tmp_path)
    with pytest.raises(CheckpointError, match="is a directory"):
        safe_torch_load(tmp_path, "training state")


def test_the_cli_prints_one_line_for_an_empty_checkpoint(bad_files, capsys):
    spec = f"alphazero:checkpoint={str(bad_files['empty'])!r}"
    assert cli_main(["play", "tictactoe", "--seat", "1", "--opponent", spec]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("boardzoo play: error:") and "is empty" in err and "\n" not in err


# ------------------------------------------------------------------------------ PPO files
@pytest.mark.parametrize("kind, words", [
    ("empty", "it is empty"),
    ("junk", "not a torch checkpoint file at all"),
    ("json", "not a torch checkpoint file at all"),
])
def test_bad_ppo_files_are_one_line_checkpoint_errors(bad_files, kind, words):
    with pytest.raises(CheckpointError, match="not a boardzoo PPO checkpoint") as err:
        _ppo(bad_files[kind])
    assert words in _one_line(err)


def test_a_truncated_ppo_checkpoint_is_a_checkpoint_error(tmp_path):
    good = _policy_file(tmp_path / "ttt.pt", "tictactoe")
    assert _ppo(good).config["game"] == "tictactoe"
    with pytest.raises(CheckpointError, match="truncated") as err:
        _ppo(_truncated(good))
    assert "end is missing" in _one_line(err)


def test_a_ppo_checkpoint_with_missing_fields_is_malformed(tmp_path):
    from boardzoo.agents.ppo import FORMAT

    path = tmp_path / "fields.pt"
    torch.save({"format": FORMAT, "game": "tictactoe"}, path)
    with pytest.raises(CheckpointError, match="malformed") as err:
        _ppo(path)
    _one_line(err)


def test_a_directory_as_ppo_checkpoint_is_named_as_one(tmp_path):
    folder = tmp_path / "policies.pt"
    folder.mkdir()
    for given in (tmp_path, folder):
        with pytest.raises(CheckpointError, match="is a directory"):
            _ppo(given)


def test_a_ppo_policy_of_another_game_is_refused_naming_both_sizes(tmp_path):
    agent = _ppo(_policy_file(tmp_path / "ttt.pt", "tictactoe"))
    env = make_env("connect_four")
    env.reset(seed=0)
    with pytest.raises(InvalidOptionError, match="another game|trained for") as err:
        agent.act(env)
    message = _one_line(err)
    assert "TicTacToe" in message and "(18,)" in message and "9 actions" in message
    assert "ConnectFour" in message and "84 values" in message and "7 actions" in message
    planes = _ppo(_policy_file(tmp_path / "c4.pt", "connect_four", "planes"))
    ttt = make_env("tictactoe")
    ttt.reset(seed=0)
    with pytest.raises(InvalidOptionError, match=r"\(6, 7, 2\) and 7 actions"):
        planes.act(ttt)


def test_an_sb3_model_of_another_game_is_refused(tmp_path):
    from boardzoo.agents.ppo import load_policy

    policy, _ = load_policy(_policy_file(tmp_path / "ttt.pt", "tictactoe"))
    env = make_env("connect_four")
    env.reset(seed=0)
    with pytest.raises(InvalidOptionError, match=r"takes observations of shape \(18,\)"):
        SB3Agent(policy).act(env)
    ttt = make_env("tictactoe")
    ttt.reset(seed=0)
    assert ttt.unwrapped.legal_mask()[SB3Agent(policy).act(ttt)]  # its own game still plays


def test_the_cli_refuses_a_ppo_policy_of_another_game_in_one_line(tmp_path, capsys):
    spec = f"ppo:checkpoint={str(_policy_file(tmp_path / 'ttt.pt', 'tictactoe'))!r}"
    assert cli_main(["play", "connect_four", "--seat", "1", "--opponent", spec]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith(f"boardzoo play: error: agent {spec}: PPO checkpoint")
    assert "\n" not in err


def test_gtp_refuses_a_network_of_other_rules_at_start_and_keeps_its_game(tmp_path, capsys):
    """`boardzoo gtp` with a network it cannot play says so before the first genmove; a
    boardsize or komi its network was not trained for is answered `?` and the game kept."""
    from boardzoo.envs.go import Go
    from boardzoo.gtp.engine import GoGtpEngine

    go5 = Go(board_size=5, komi=7.5)
    path = tmp_path / "go5.pt"
    ckpt.save_checkpoint(path, go5, AlphaZeroNet.for_game(go5, NetworkConfig(1, 8)), step=1)
    spec = f"alphazero:checkpoint={str(path)!r},simulations=8"
    engine = GoGtpEngine(agent=spec, board_size=5)
    assert engine.handle("play b C3") == "=\n\n"
    for command, other in (("boardsize 7", "board_size=7"), ("komi 6.5", "komi=6.5")):
        reply = engine.handle(command)
        assert reply.startswith("? this AlphaZero network plays Go(board_size=5, komi=7.5")
        assert other in reply
    nine = tmp_path / "nine.sgf"
    nine.write_text("(;GM[1]FF[4]SZ[9]KM[7.5];B[ee])")
    assert engine.handle(f"loadsgf {nine}").startswith(
        f"? cannot load file: {nine}: this AlphaZero network plays Go(board_size=5")
    assert engine.size == 5 and engine.handle("komi 7.5") == "=\n\n"  # its own komi is fine
    assert engine.handle("genmove w").startswith("= ")
    with pytest.raises(InvalidOptionError, match=r"plays Go\(board_size=5.*not Go\(board_size=9"):
        GoGtpEngine(agent=spec, board_size=9)
    with pytest.raises(InvalidOptionError, match="no shipped AlphaZero network for Go"):
        GoGtpEngine(agent="alphazero", board_size=9)
    assert cli_main(["gtp", "--size", "9", "--agent", "alphazero:checkpoint=connect_four"]) == 2
    assert "plays ConnectFour(rows=6, columns=7), not Go(board_size=9" in capsys.readouterr().err


# ------------------------------------------------------------------ weights that cannot play
def _spoiled(weights: dict, how: str) -> tuple[dict, str]:
    """``weights`` with its first float tensor holding NaN/inf or in float64, and that
    tensor's name."""
    key = next(k for k, v in weights.items() if v.is_floating_point())
    spoiled = dict(weights)
    if how == "double":
        spoiled[key] = weights[key].double()
    else:
        spoiled[key] = weights[key].clone()
        spoiled[key].view(-1)[0] = float(how)
    return spoiled, key


@pytest.mark.parametrize(("how", "words"), [("nan", "NaN or infinite"),
                                            ("inf", "NaN or infinite"),
                                            ("double", "is float64, not float32")])
def test_alphazero_weights_with_nan_inf_or_another_dtype_are_refused_naming_the_tensor(
        az_checkpoint, tmp_path, how, words):
    payload = torch.load(az_checkpoint, weights_only=True)
    payload["weights"], key = _spoiled(payload["weights"], how)
    path = tmp_path / f"{how}.pt"
    torch.save(payload, path)
    with pytest.raises(CheckpointError, match=words) as err:
        ckpt.load_checkpoint(path)
    assert f"tensor '{key}'" in _one_line(err)


@pytest.mark.parametrize(("how", "words"), [("nan", "NaN or infinite"),
                                            ("double", "is float64, not float32")])
def test_ppo_weights_with_nan_or_another_dtype_are_refused_naming_the_tensor(
        tmp_path, how, words):
    good = _policy_file(tmp_path / "ttt.pt", "tictactoe")
    record = torch.load(good, weights_only=True)
    record["state_dict"], key = _spoiled(record["state_dict"], how)
    torch.save(record, good)
    with pytest.raises(CheckpointError, match=words) as err:
        _ppo(good)
    assert f"tensor '{key}'" in _one_line(err)


def test_the_shipped_checkpoints_have_fitting_weights():
    from boardzoo.agents.ppo import load_policy

    for name in ("tictactoe", "connect_four", "othello_6x6"):
        assert ckpt.load_checkpoint(ckpt.resolve_checkpoint(name)).step >= 0
    for name in ("tictactoe", "connect_four"):
        assert load_policy(name)[1]["game"] == name
