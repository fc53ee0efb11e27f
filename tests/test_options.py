"""Typed options and the messages a newcomer meets: each case of issue 11, with the key
words of its message."""

from __future__ import annotations

import numpy as np
import pytest

from boardzoo.agents import make_agent
from boardzoo.cli import main
from boardzoo.envs import connect_four_v0, go_v0, make_env, make_game, nim_v0
from boardzoo.envs.nim import Nim
from boardzoo.envs.registry import HAS_PETTINGZOO_REGISTRY
from boardzoo.errors import IllegalActionError, InvalidOptionError, UnknownOptionError
from boardzoo.options import check_options, parse_int


@pytest.mark.parametrize(("options", "words"), [
    ({"misere": "False"}, "misere='False': give True"),
    ({"misere": 1}, "misere=1"),
    ({"heaps": (10**12,)}, "1..10000"),
    ({"heaps": 7}, "a tuple of heap sizes"),
    ({"heaps": ()}, "1..64 heap sizes"),
])
def test_nim_options_are_typed_in_the_python_api(options, words):
    with pytest.raises(InvalidOptionError, match=words):
        nim_v0.env(**options)


@pytest.mark.parametrize(("text", "value"), [
    ({"heaps": "3,4,5"}, {"heaps": (3, 4, 5)}),
    ({"heaps": "7"}, {"heaps": (7,)}),
    ({"misere": "false", "max_take": "none"}, {"misere": False, "max_take": None}),
    ({"misere": "1", "max_take": "2"}, {"misere": True, "max_take": 2}),
    ({"misere": "TRUE"}, {"misere": True}),
])
def test_command_line_text_is_converted_by_the_option_type(text, value):
    assert check_options(Nim, text, "nim", from_text=True) == value


@pytest.mark.parametrize(("text", "words"), [
    ({"misere": "maybe"}, "expected true or false (true/false/1/0)"),
    ({"heaps": "3,x"}, "expected a tuple such as 3,4,5"),
    ({"max_take": "2.5"}, "expected an integer or None"),
    ({"mizere": "true"}, "nim got an unexpected keyword argument 'mizere'; valid options: "
                         "heaps, max_take, misere; did you mean 'misere'?"),
])
def test_bad_command_line_text_is_refused(text, words):
    with pytest.raises(InvalidOptionError, match=words.replace("(", r"\(").replace(")", r"\)")
                       .replace("?", r"\?")):
        check_options(Nim, text, "nim", from_text=True)


def test_go_komi_and_board_size_from_text_and_wrong_python_types():
    assert check_options(go_v0.Go, {"komi": "6.5", "board_size": "7", "ko": "none"}, "go",
                         from_text=True) == {"komi": 6.5, "board_size": 7, "ko": "none"}
    with pytest.raises(InvalidOptionError, match="board_size='9' is not allowed: expected an"):
        make_game("go", board_size="9")
    with pytest.raises(UnknownOptionError, match=r"^game 'go' got an unexpected keyword "
                                                  r"argument 'size'; valid options: board_size, "
                                                  r"komi, ko, suicide, max_moves; did you mean "
                                                  r"'board_size'\?$"):
        make_game("go", size=9)


def test_agent_options_list_the_valid_ones_with_did_you_mean():
    with pytest.raises(UnknownOptionError, match=r"^agent 'mcts' got an unexpected keyword "
                                                  r"argument 'simulatons'; valid options: simul.*"
                                                  r"; did you mean 'simulations'\?$"):
        make_agent("mcts:simulatons=200")
    with pytest.raises(InvalidOptionError, match="simulations='many' is not allowed"):
        make_agent("mcts:simulations=many")
    with pytest.raises(InvalidOptionError, match=r"unknown agent 'mtcs' \(did you mean 'mcts'"):
        make_agent("mtcs")
    agent = make_agent("mcts:simulations=50,rave=false,c=1")
    assert (agent.simulations, agent.options["rave"], agent.options["c"]) == (50, False, 1.0)
    assert agent.spec["simulations"] == 50 and agent.spec["rave"] is False


# ------------------------------------------------------- unknown keywords, as Python says
def _unknown(call):
    """The UnknownOptionError ``call()`` raises: both a TypeError and an InvalidOptionError
    (a ValueError), so ``except TypeError`` and ``except ValueError`` code both catch it."""
    with pytest.raises(UnknownOptionError) as err:
        call()
    assert isinstance(err.value, TypeError) and isinstance(err.value, InvalidOptionError)
    assert isinstance(err.value, ValueError)
    return str(err.value)


def test_an_unknown_env_option_is_a_type_error_worded_as_pythons():
    assert _unknown(lambda: go_v0.env(boardsize=9)) == (
        "go_v0.env() got an unexpected keyword argument 'boardsize'; valid options: "
        "board_size, komi, ko, suicide, max_moves, render_mode, illegal_action; "
        "did you mean 'board_size'?")
    assert _unknown(lambda: make_env("connect_four", colums=8)).startswith(
        "connect_four_v0.env() got an unexpected keyword argument 'colums'; valid options: "
        "rows, columns, render_mode, illegal_action")


@pytest.mark.skipif(not HAS_PETTINGZOO_REGISTRY, reason="this PettingZoo has no registry (< 1.27)")
def test_pettingzoo_and_gymnasium_registries_give_the_same_error():
    import gymnasium as gym
    import pettingzoo

    import boardzoo  # noqa: F401  (registers the ids)

    text = _unknown(lambda: pettingzoo.make("aec", "boardzoo/go_v0", boardsize=9))
    assert "did you mean 'board_size'?" in text
    # TorchRL's GymEnv passes frameskip and drops it on exactly this text
    text = _unknown(lambda: gym.make("boardzoo/ConnectFour-v0", frameskip=4))
    assert "unexpected keyword argument 'frameskip'" in text
    assert ("valid options: rows, columns, opponent, seat, render_mode, illegal_action, "
            "observation, opening_plies" in text)
    text = _unknown(lambda: gym.make_vec("boardzoo/ConnectFour-v0", num_envs=2, seet=0,
                                         vectorization_mode="vector_entry_point"))
    assert "unexpected keyword argument 'seet'" in text and "did you mean 'seat'?" in text


def test_an_unknown_agent_option_is_a_type_error_worded_as_pythons():
    from boardzoo.agents import AlphaBetaAgent, MCTSAgent, RandomAgent

    text = _unknown(lambda: MCTSAgent(simulation=100))
    assert text.startswith("MCTSAgent() got an unexpected keyword argument 'simulation'; "
                           "valid options: simulations, time_limit, c, selection, ")
    assert text.endswith("; did you mean 'simulations'?")
    assert _unknown(lambda: RandomAgent(sed=1)) == (
        "RandomAgent() got an unexpected keyword argument 'sed'; valid options: seed, "
        "rules_of_play; did you mean 'seed'?")
    assert "did you mean 'depth'?" in _unknown(lambda: AlphaBetaAgent(dept=3))
    # the checked constructors keep their signatures, and good keywords still work
    import inspect

    assert list(inspect.signature(RandomAgent).parameters) == ["seed", "rules_of_play"]
    assert MCTSAgent(simulations=7).simulations == 7


def test_a_bad_option_value_stays_a_value_error_only():
    with pytest.raises(InvalidOptionError) as err:
        go_v0.env(board_size=40)
    assert not isinstance(err.value, TypeError)


def test_str_to_action_of_a_number_is_a_clear_error():
    for name in ("connect_four", "othello", "gomoku", "go", "tictactoe", "nim"):
        env = make_env(name)
        with pytest.raises(IllegalActionError, match="str_to_action takes move text"):
            env.str_to_action(5)


def test_connect_four_says_the_column_is_full():
    env = connect_four_v0.env(illegal_action="raise")
    env.reset(options={"position": "444444"})
    with pytest.raises(IllegalActionError, match=r"^action 3 \(column 4\) is full; legal actions: "
                       r"0, 1, 2, 4, 5, 6 \(as moves: 1, 2, 3, 5, 6, 7\)$"):
        env.step(3)


def test_illegal_moves_on_big_boards_have_short_messages():
    env = go_v0.env(board_size=19, illegal_action="raise")
    env.reset(options={"moves": ["D4"]})
    with pytest.raises(IllegalActionError) as err:
        env.step(env.str_to_action("D4"))
    message = str(err.value)
    assert message.startswith("D4 (action 288) is not legal here; legal actions: 0, 1, 2, ")
    assert message.endswith("(361 in all) (as moves: A19, B19, C19, D19, E19, F19, G19, H19, "
                            "J19, K19, L19, M19, ...)") and len(message) < 250


# ------------------------------------------------------------------------ command line
@pytest.mark.parametrize(("args", "words"), [
    (["--games", "-1"], "--games -1: use an integer in 1..10000"),
    (["--workers", "0"], "--workers 0: use an integer in 1..256"),
    (["--option", "mizere=true"], "did you mean 'misere'"),
    (["--option", "misere=perhaps"], "misere='perhaps' is not allowed"),
    (["--agents", "random mcts:simulatons=5"], "did you mean 'simulations'"),
    (["--agents", "random"], "needs two or more"),
    (["--export", "pdf"], "--export pdf: unknown export format(s) ['pdf']; use jsonl, sgf, csv, "
                          "pgn"),
    (["--export", "csv,pgn,sgf"], "--export csv,pgn,sgf: pgn holds chess games; sgf holds go and "
                                  "gomoku games; nim exports jsonl, csv"),
])
def test_arena_arguments_are_checked_before_any_output(tmp_path, capsys, args, words):
    assert main(["arena", "nim", "--out", str(tmp_path), *args]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""  # no header, no progress bar
    assert words in captured.err and len(captured.err.strip().splitlines()) == 1
    assert not (tmp_path / "results.sqlite").exists()


def test_arena_plays_multi_heap_misere_nim_from_the_command_line(tmp_path, capsys):
    args = ["arena", "nim", "--option", "heaps=3,4,5", "--option", "misere=true", "--agents",
            "random alphabeta", "--games", "4", "--workers", "1", "--out", str(tmp_path)]
    assert main(args) == 0
    printed = capsys.readouterr().out
    assert "Elo" in printed
    from boardzoo.store import ResultsStore

    with ResultsStore(tmp_path / "results.sqlite") as store:
        (match_id, definition), = store.matches()
        assert definition["options"] == {"heaps": [3, 4, 5], "max_take": 3, "misere": True}
        records = store.records(match_id).values()
    game = make_game("nim", heaps=(3, 4, 5), misere=True)
    for record in records:  # alpha-beta solves misère Nim: it wins every game it can
        final = game.replay(record["opening"] + record["moves"])
        assert game.is_terminal(final) and list(game.returns(final)) == record["returns"]


def test_option_syntax_errors_do_not_leak_internal_names(capsys):
    with pytest.raises(SystemExit):
        main(["arena", "nim", "--option", "heaps"])
    err = capsys.readouterr().err
    assert "_option_value" not in err and "an option looks like key=value" in err


def test_the_arena_says_it_is_preparing_the_agents_while_it_warms_up(tmp_path, monkeypatch):
    seen = []
    import rich.console

    original = rich.console.Console.status
    monkeypatch.setattr(rich.console.Console, "status",
                        lambda self, text, **kw: seen.append(text) or original(self, text, **kw))
    assert main(["arena", "tictactoe", "--agents", "random random", "--games", "2",
                 "--workers", "1", "--out", str(tmp_path)]) == 0
    assert seen == ["preparing the agents (compiled once per installation)..."]


def test_the_arena_starts_no_more_worker_processes_than_games(tmp_path, monkeypatch, capsys):
    import boardzoo.executor

    asked = []
    original = boardzoo.executor.make_executor
    monkeypatch.setattr(boardzoo.executor, "make_executor",
                        lambda backend, workers, *a, **kw: asked.append(workers)
                        or original(backend, workers, *a, **kw))
    assert main(["arena", "tictactoe", "--agents", "random random", "--games", "2",
                 "--workers", "8", "--out", str(tmp_path)]) == 0
    assert asked == [2] and "2 local worker(s)" in capsys.readouterr().out


def test_equal_go_options_are_one_game():
    assert go_v0.Go(board_size=9).key == go_v0.Go(board_size=9, max_moves=243).key
    assert go_v0.Go(board_size=9, komi=7).key == go_v0.Go(board_size=9, komi=np.float64(7)).key


def test_quoted_text_options_are_unquoted():
    from boardzoo.agents import make_agent

    assert make_agent("mcts:selection='puct'").options["selection"] == "puct"
    assert make_agent('mcts:selection="gumbel"').options["selection"] == "gumbel"
    assert make_agent("mcts:selection=puct").options["selection"] == "puct"


@pytest.mark.parametrize(("text", "signed", "value"), [
    ("42", False, 42), (" 7 ", False, 7), ("-3", True, -3), ("-3", False, None),
    ("²", False, None), ("١٢", False, None), ("1_000", False, None), ("+5", True, None),
    ("", False, None), ("-", True, None), ("9" * 21, False, None), (None, False, None),
])
def test_numbers_people_type_are_ascii_digits_only(text, signed, value):
    assert parse_int(text, signed=signed) == value


@pytest.mark.parametrize(("game", "options", "move"), [
    ("go", {"board_size": 9}, "A²"), ("go", {"board_size": 9}, "A١"),
    ("gomoku", {}, "H²"), ("nim", {}, "1:²"), ("nim", {}, "²:1"),
    ("connect_four", {}, "١"), ("connect_four", {}, "1_0"),
])
def test_a_move_with_a_digit_that_is_not_ascii_is_an_illegal_action(game, options, move):
    with pytest.raises(IllegalActionError, match="is not a"):
        make_game(game, **options).str_to_action(move)


@pytest.mark.parametrize("text", ["١٢", "1_0", "²"])
def test_an_int_option_in_another_script_is_refused(text):
    with pytest.raises(InvalidOptionError, match="expected an integer or None"):
        check_options(Nim, {"max_take": text}, "nim", from_text=True)
