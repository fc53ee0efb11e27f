"""Supervised warm start: solver labels checked against Pons' data, test positions kept out
of training data (mirror images too), and labelled positions that teach the network."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import numpy as np
import pytest

from boardzoo.cli import main as cli_main
from boardzoo.envs import make_game
from boardzoo.errors import CheckpointError
from boardzoo.knowledge.connect_four import solve
from boardzoo.training import TrainConfig, train
from boardzoo.training.labels import (
    LABEL_MAX_NODES,
    canonical_key,
    label_connect_four,
    label_othello,
    load_labelled,
    position_keys,
    solver_label,
)
from tests.tictactoe_truth import network_choices, ongoing_positions, share_preserving

C4 = Path(__file__).parent / "data" / "connect4"
TEST_SETS = sorted(C4.glob("Test_L*")) + [C4 / "generated_public_200.txt"]


def test_solver_labels_match_pons_scores_of_every_column():
    game = make_game("connect_four")
    lines = (C4 / "generated_public_200_moves.txt").read_text().splitlines()
    checked = 0
    for line in lines:
        moves, score, best = line.split()[:3]
        if len(moves) < 12:  # keep the test fast: the solver is quick from 12 stones on
            continue
        label = solver_label(game, game.parse_position(moves), solve, None)
        columns = sorted(int(a) + 1 for a in label["policy"])
        assert columns == sorted(map(int, best.split(","))), line
        assert label["value"] == np.sign(int(score)), line
        checked += 1
    assert checked >= 40


def test_canonical_keys_identify_mirror_images_only():
    game = make_game("connect_four")

    def key(text):
        return canonical_key(game, game.parse_position(text))

    assert key("1") == key("7") and key("12") == key("76")
    assert key("12") != key("21")
    assert key("1234") == key("3214")  # transpositions are one position


def test_labels_keep_every_test_position_out_mirror_images_included(tmp_path):
    game = make_game("connect_four")
    excluded = position_keys(game, TEST_SETS)
    assert len(excluded) > 5000
    # a labeller fed the test positions' own key set never returns one of them
    out = tmp_path / "labels.jsonl"
    assert cli_main(["label", "connect_four", "--positions", "30", "--seed", "1", "--out",
                     str(out), *[a for p in TEST_SETS for a in ("--exclude", str(p))]]) == 0
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(rows) == 30
    keys = {canonical_key(game, game.parse_position(r["position"])) for r in rows}
    assert len(keys) == 30 and not keys & excluded
    # and the exclusion does bite: excluding what it produced makes it produce others
    again = list(label_connect_four(5, seed=1, exclude=keys))
    assert not {canonical_key(game, game.parse_position(r["position"])) for r in again} & keys


def test_the_labellers_node_budget_skips_hard_positions_the_same_way_everywhere():
    """A node budget (not a time limit) decides which positions are too hard to label: the
    same seed gives the same labels however busy the machine is; with a tiny budget the
    early (hard) positions are skipped and played through, later ones still labelled."""
    def stones(max_nodes):
        return [len(r["position"])
                for r in label_connect_four(12, seed=4, min_stones=10, max_nodes=max_nodes)]

    full = stones(20_000_000)
    assert full == list(range(10, 22))  # one game, every position from 10 stones labelled
    tiny = stones(5_000)  # the budget is checked every 4,096 nodes
    assert tiny == stones(5_000) and len(tiny) == 12
    assert 10 not in tiny and 11 not in tiny and tiny[0] > 11  # skipped ones played through


class _LeftmostPlayer:
    """An agent that plays the leftmost legal column: a known move for every position."""

    def act(self, env):
        return int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0])


def test_labels_from_an_agents_self_play_follow_its_moves_after_the_opening():
    """With an agent the games are its self-play from ``opening_plies`` random moves: with
    ``best_move_prob=0`` every later move is the agent's, labelled or not."""
    game = make_game("connect_four")
    rows = list(label_connect_four(10, seed=5, min_stones=12, agent=_LeftmostPlayer(),
                                   opening_plies=3, best_move_prob=0.0))
    first = rows[0]["position"]
    assert len(first) == 12
    state = game.parse_position(first[:3])
    for column in first[3:]:  # the agent's moves up to the first labelled position
        assert int(column) - 1 == game.legal_actions(state)[0]
        state = game.step(state, int(column) - 1)
    following = 0  # and from one labelled position to the next in the same game
    for earlier, later in zip(rows, rows[1:], strict=False):
        if later["position"][:-1] == earlier["position"]:
            previous = game.parse_position(earlier["position"])
            assert int(later["position"][-1]) - 1 == game.legal_actions(previous)[0]
            following += 1
    assert following >= 5
    for row in rows:
        assert row == solver_label(game, game.parse_position(row["position"]), solve, None,
                                   LABEL_MAX_NODES)
    # the optimal moves still come in with best_move_prob: other games, the same labels' form
    mixed = list(label_connect_four(10, seed=5, min_stones=12, agent=_LeftmostPlayer(),
                                    opening_plies=3, best_move_prob=1.0))
    assert [r["position"] for r in mixed] != [r["position"] for r in rows]


def test_the_agent_labeller_refuses_what_it_cannot_do(tmp_path, capsys):
    out = str(tmp_path / "x.jsonl")
    for argv, message in (
            (["connect_four", "--min-stones", "8", "--agent", "random", "--opening-plies", "9"],
             "--opening-plies must be in 0..8"),
            (["othello", "--agent", "random"], "--agent are Connect Four's"),
            (["connect_four", "--agent", "nosuchagent"], "nosuchagent")):
        assert cli_main(["label", *argv, "--out", out]) == 2
        assert message in capsys.readouterr().err


def test_the_labeller_refuses_unusable_files_before_it_solves(tmp_path, capsys):
    """An --exclude file that is missing, a directory or not in Pons' format, and an --out
    that cannot become a file, are named in a one-line error (exit 2), not a traceback
    after the solving."""
    bad = tmp_path / "bad.txt"
    bad.write_text("4453 0\nhello 3\n")
    a_file = tmp_path / "a_file"
    a_file.write_text("")
    out = str(tmp_path / "x.jsonl")
    for argv, message in (
            (["--exclude", str(tmp_path / "missing.txt"), "--out", out],
             "missing.txt' cannot be read (No such file or directory)"),
            (["--exclude", str(tmp_path), "--out", out], "cannot be read (Is a directory)"),
            (["--exclude", str(bad), "--out", out], "bad.txt, line 2: connect_four position"),
            (["--out", str(tmp_path)], "is a directory; give a file name in it"),
            (["--out", str(a_file / "x.jsonl")], "a_file' is a file, not a directory")):
        assert cli_main(["label", "connect_four", "--positions", "1", *argv]) == 2
        assert message in capsys.readouterr().err
    assert not list(tmp_path.glob("*.jsonl"))


def test_labelling_with_an_agent_runs_torch_on_one_thread(tmp_path):
    """The labeller's agent searches one position at a time: torch's second thread only
    contends with the solver and with other jobs (2-10x slower on 2 cores when busy)."""
    import torch

    before = torch.get_num_threads()
    torch.set_num_threads(2)
    try:
        out = tmp_path / "agent.jsonl"
        assert cli_main(["label", "connect_four", "--positions", "3", "--min-stones", "30",
                         "--agent", "random", "--out", str(out)]) == 0
        assert len(load_labelled(out, make_game("connect_four"))) == 3
        assert torch.get_num_threads() == 1
    finally:
        torch.set_num_threads(before)


def test_malformed_label_files_name_the_line(tmp_path):
    game = make_game("tictactoe")
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"position": ".........", "policy": {"4": 1}, "value": 0}\n'
                   '{"position": ".........", "policy": {"9": 1}, "value": 0}\n')
    with pytest.raises(CheckpointError, match="line 2"):
        load_labelled(bad, game)
    bad.write_text('{"position": "XX.OO....", "policy": {"2": 1}, "value": 3}\n')
    with pytest.raises(CheckpointError, match="outside"):
        load_labelled(bad, game)
    packed = tmp_path / "labels.jsonl.gz"
    packed.write_bytes(b"not gzip at all")
    with pytest.raises(CheckpointError, match="not a labelled-position"):
        load_labelled(packed, game)
    packed.write_bytes(gzip.compress(bad.read_bytes()))  # compressed: read the same way
    with pytest.raises(CheckpointError, match="outside"):
        load_labelled(packed, game)
    with pytest.raises(CheckpointError, match=r"cannot be read \(Is a directory\)"):
        load_labelled(tmp_path, game)


def test_a_supervised_warm_start_teaches_the_network(tmp_path):
    """Tic-tac-toe's perfect-play labels (all 4,520 positions) as the warm start: the network
    alone then plays a value-preserving move far more often than untrained (~55%)."""
    game = make_game("tictactoe")
    states, good = ongoing_positions(game)
    labels = _tictactoe_labels(game, tmp_path)
    config = TrainConfig(minutes=None, iterations=1, blocks=2, channels=32, games_per_iteration=2,
                         parallel_games=2, simulations=8, fast_simulations=2, eval_every=0,
                         from_records=str(labels), supervised_steps=300, learning_rate=3e-3,
                         train_steps_per_iteration=1)
    log = []
    run = train("tictactoe", config, out=tmp_path / "warm", progress=False,
                on_iteration=log.append)
    from boardzoo.agents.alphazero.checkpoint import load_checkpoint

    net = load_checkpoint(run.checkpoint).net
    assert share_preserving(network_choices(net, game, states), good) >= 0.85
    rows = (tmp_path / "warm" / "log.csv").read_text().splitlines()
    assert rows[1].startswith("0,300,")  # iteration 0: the warm start, 300 steps
    # the labels seed the replay window: iteration 1 trains on them and its two games
    assert len(log) == 1 and log[0]["replay"] == len(states) + log[0]["positions"]
    assert run.step == 301


def test_a_supervised_only_run_decays_its_learning_rate_over_its_steps(tmp_path):
    # iterations=0: the warm start is the whole run; cosine from 3e-3 towards 5% of it
    game = make_game("tictactoe")
    config = TrainConfig(minutes=None, iterations=0, blocks=1, channels=8, eval_every=0,
                         from_records=str(_tictactoe_labels(game, tmp_path)),
                         supervised_steps=100, learning_rate=3e-3)
    run = train("tictactoe", config, out=tmp_path / "sl", progress=False)
    assert run.step == 100 and run.games == 0 and run.checkpoint.exists()
    header, row = (tmp_path / "sl" / "log.csv").read_text().splitlines()[:2]
    lr = float(row.split(",")[header.split(",").index("lr")])
    assert lr == pytest.approx(0.05 * 3e-3)  # the schedule ran to its end


def test_a_supervised_only_run_shows_its_progress_while_it_runs(tmp_path, capsys):
    # a supervised-only run may take an hour: tensorboard gets the loss every 25 steps (not
    # only at the end) and the bar counts its steps
    pytest.importorskip("tensorboard")
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    game = make_game("tictactoe")
    config = TrainConfig(minutes=None, iterations=0, blocks=1, channels=8, eval_every=0,
                         from_records=str(_tictactoe_labels(game, tmp_path)),
                         supervised_steps=60, learning_rate=3e-3)
    train("tictactoe", config, out=tmp_path / "sl", progress=True)
    events = EventAccumulator(str(tmp_path / "sl" / "tensorboard"))
    events.Reload()
    assert [event.step for event in events.Scalars("loss")] == [25, 50, 60]
    shown = capsys.readouterr().out
    assert "supervised" in shown and "training" not in shown  # no empty bar of iterations


def _tictactoe_labels(game, folder):
    """Every ongoing tic-tac-toe position with its perfect-play moves and value, as a
    labelled-position file in ``folder``."""
    states, good = ongoing_positions(game)
    values = {}
    for line in (Path(__file__).parent / "data" / "tictactoe" / "ttt_all_positions.tsv"
                 ).read_text().splitlines():
        if not line.startswith("#") and "ongoing" in line:
            values[line.split("\t")[0]] = int(line.split("\t")[3])
    labels = folder / "ttt.jsonl"
    labels.write_text("\n".join(json.dumps({
        "position": game.position(s),
        "policy": {str(a): 1 / len(g) for a in g},
        "value": values[game.position(s)]}) for s, g in zip(states, good, strict=True)))
    return labels


MODEL_CARDS = Path(__file__).parents[1] / "docs" / "model-cards"


@pytest.mark.parametrize("name", ["connect_four-labels.jsonl.gz",
                                  "connect_four-late-labels.jsonl.gz"])
def test_the_shipped_networks_labels_hold_no_test_position_and_agree_with_the_solver(name):
    """The labels the shipped Connect Four network was trained on (its model card: the warm
    start's and stage 4's): no position of Pons' six sets or the 200 public ones, mirror
    images and transpositions included; and a sample of their late positions re-solved
    gives the same labels."""
    game = make_game("connect_four")
    path = MODEL_CARDS / name
    rows = [json.loads(line) for line in gzip.decompress(path.read_bytes()).splitlines()]
    keys = {canonical_key(game, game.parse_position(r["position"])) for r in rows}
    assert len(rows) == len(load_labelled(path, game)) > 20_000
    assert not keys & position_keys(game, TEST_SETS)
    late = [r for r in rows if len(r["position"]) >= 18]
    for row in np.random.default_rng(0).choice(late, size=40, replace=False):
        again = solver_label(game, game.parse_position(row["position"]), solve, None)
        assert again == row, row["position"]


OTHELLO = Path(__file__).parent / "data" / "othello"


def test_othello_labels_match_the_ffo_scores_of_every_move():
    """FFO #1-#19 (8x8, 14-16 empties; every move's exact score in the OBF file): the label
    holds exactly the moves tied for the best score, and its value has that score's sign."""
    game = make_game("othello")
    from boardzoo.knowledge.othello_solver import solve as solve_othello

    def solve(state, time_limit, max_nodes):
        return solve_othello(state, time_limit)

    for line in (OTHELLO / "fforum-1-19.obf").read_text().splitlines():
        position, *moves = [field.strip() for field in line.split(";") if field.strip()]
        scores = {name: int(score) for name, score in (m.split(":") for m in moves)}
        best = max(scores.values())
        label = solver_label(game, game.parse_position(position), solve)
        assert {game.action_to_str(int(a)).upper() for a in label["policy"]} == {
            name for name, score in scores.items() if score == best}, line
        assert label["value"] == np.sign(best), line


def test_othello_labels_agree_with_plain_minimax_over_the_rules():
    """6x6 labels near the end against a negamax written over ``game.step`` alone (the final
    disc difference, the FFO convention): the same best moves and the same sign."""
    game = make_game("othello", board_size=6)
    exact_value = game.knowledge.exact_value

    def negamax(state):
        if game.is_terminal(state):
            return exact_value(state)
        mover = game.to_play(state)
        return max(negamax(child) if game.to_play(child) == mover else -negamax(child)
                   for child in (game.step(state, a) for a in game.legal_actions(state)))

    rows = list(label_othello(25, seed=2, board_size=6, max_empties=6))
    assert len({r["position"] for r in rows}) == 25
    for row in rows:
        state = game.parse_position(row["position"])
        assert 36 - np.count_nonzero(game.cells(state)) <= 6
        mover = game.to_play(state)
        scores = {}
        for action in game.legal_actions(state):
            child = game.step(state, action)
            value = exact_value(child) if game.is_terminal(child) else negamax(child)
            scores[action] = value if game.to_play(child) == mover else -value
        best = max(scores.values())
        assert sorted(int(a) for a in row["policy"]) == sorted(
            a for a, s in scores.items() if s == best), row
        assert row["value"] == np.sign(best), row


def test_othello_labelling_from_the_command_line(tmp_path, capsys):
    game = make_game("othello", board_size=6)
    out = tmp_path / "othello.jsonl.gz"
    assert cli_main(["label", "othello", "--positions", "30", "--seed", "3",
                     "--max-empties", "12", "--out", str(out)]) == 0
    rows = load_labelled(out, game)
    assert len(rows) == 30
    again = tmp_path / "again.jsonl.gz"
    cli_main(["label", "othello", "--positions", "30", "--seed", "3", "--max-empties", "12",
              "--out", str(again)])
    assert gzip.decompress(again.read_bytes()) == gzip.decompress(out.read_bytes())
    for bad, message in ((["--min-stones", "8"], "Connect Four's"),
                         (["--board-size", "4"], "board size 6 or 8"),
                         (["--max-empties", "30"], "give 1..20")):
        assert cli_main(["label", "othello", "--out", str(tmp_path / "x"), *bad]) == 2
        assert message in capsys.readouterr().err
    with pytest.raises(SystemExit):
        cli_main(["label", "go", "--out", str(tmp_path / "x")])


def test_ffo_positions_are_kept_out_of_8x8_labels():
    game = make_game("othello")
    files = sorted(OTHELLO.glob("fforum-*.obf"))
    keys = position_keys(game, files)
    assert len(keys) == 79  # FFO #1-#79
    produced = list(label_othello(3, seed=0, board_size=8, max_empties=10))
    own = {canonical_key(game, game.parse_position(r["position"])) for r in produced}
    again = list(label_othello(3, seed=0, board_size=8, max_empties=10, exclude=own | keys))
    assert not {canonical_key(game, game.parse_position(r["position"])) for r in again} & (
        own | keys)


def test_the_labeller_benchmark_times_the_same_labels_both_ways():
    """``boardzoo bench connect_four``'s labeller row: one search per position against an
    exact solve of each move, on the same positions; the note says the labels agree."""
    from boardzoo.bench.common import QUICK
    from boardzoo.bench.labels import bench_labels

    (row,) = bench_labels("connect_four", QUICK)
    assert row.unit == "labels/s" and row.ours > 0 and row.reference > 0
    assert row.note.endswith("the same labels"), row.note
