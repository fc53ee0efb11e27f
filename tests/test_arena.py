"""Arena and ratings: Elo against synthetic players with known strengths, intervals that
cover at the stated rate, SPRT error rates, paired openings, resumable matches."""

from __future__ import annotations

import io
import json

import numpy as np
import pytest

from boardzoo.agents import AlphaBetaAgent, MCTSAgent, RandomAgent
from boardzoo.arena import export_match, play_match, random_openings, tournament
from boardzoo.envs import make_game
from boardzoo.errors import InvalidOptionError
from boardzoo.ratings import SPRT, elo_ratings, expected_score, score_interval
from boardzoo.store import ResultsStore

TRUE_ELO = np.array([0.0, 100.0, 250.0, -150.0])


def synthetic_results(rng, games_per_pair: int, draw_rate: float = 0.2):
    """Round robin between players of TRUE_ELO: a game is drawn with probability
    ``draw_rate``, otherwise won with the logistic probability that keeps the expected
    score equal to ``expected_score(difference)``."""
    results = []
    n = len(TRUE_ELO)
    for i in range(n):
        for j in range(i + 1, n):
            p = expected_score(TRUE_ELO[i] - TRUE_ELO[j])
            draw = min(draw_rate, 2 * min(p, 1 - p))
            win = p - draw / 2
            for u in rng.random(games_per_pair):
                results.append((i, j, 1.0 if u < win else 0.5 if u < win + draw else 0.0))
    return results


def test_elo_fit_recovers_known_strengths():
    rng = np.random.default_rng(0)
    names = ["a", "b", "c", "d"]
    ratings = elo_ratings(names, synthetic_results(rng, 2000), anchor="a", prior_games=0)
    fitted = np.array([ratings[name][0] for name in names])
    assert np.abs(fitted - TRUE_ELO).max() < 25


def test_elo_intervals_cover_the_truth_at_about_95_percent():
    """Over 300 simulated tournaments, the 95% intervals of the three non-anchor players
    contain their true rating 900 times x ~0.95; a binomial 99.9% band is [0.92, 0.975]."""
    rng = np.random.default_rng(1)
    names = ["a", "b", "c", "d"]
    covered = total = 0
    for _ in range(300):
        ratings = elo_ratings(names, synthetic_results(rng, 60), anchor="a", prior_games=0)
        for k, name in enumerate(names[1:], start=1):
            _, low, high = ratings[name]
            covered += low <= TRUE_ELO[k] <= high
            total += 1
    assert 0.92 <= covered / total <= 0.975


def test_perfect_scores_stay_finite_with_the_default_prior():
    ratings = elo_ratings(["strong", "weak"], [(0, 1, 1.0)] * 20, anchor="weak")
    elo, low, high = ratings["strong"]
    assert 300 < elo < 1500 and low < elo < high


def test_score_interval_is_wilson():
    low, high = score_interval(0.5, 100)
    assert low == pytest.approx(0.4038, abs=1e-3) and high == pytest.approx(0.5962, abs=1e-3)
    assert score_interval(1.0, 10)[1] == pytest.approx(1.0) and score_interval(1.0, 10)[0] > 0.69


@pytest.mark.parametrize(("true_elo", "expected"), [(60.0, "H1"), (-30.0, "H0")])
def test_sprt_decides_with_the_stated_error_rates(true_elo, expected):
    """H0: elo <= 0, H1: elo >= 30, alpha = beta = 0.05: over 200 runs the wrong decision is
    taken at most ~5% of the time (binomial 99.9% bound: 21 of 200)."""
    rng = np.random.default_rng(2)
    p = expected_score(true_elo)
    wrong = 0
    for _ in range(200):
        test = SPRT(elo0=0.0, elo1=30.0, alpha=0.05, beta=0.05)
        decision = None
        while decision is None:
            u = rng.random()
            decision = test.add(1.0 if u < p - 0.1 else 0.5 if u < p + 0.1 else 0.0)
        wrong += decision != expected
    assert wrong <= 21


def test_go_openings_never_pass_while_a_board_move_is_legal():
    """A random pass would let whoever passes next end the game at once (area scoring): the
    9x9 benchmark's seed 0 drew the opening B5-pass for its 27th pair before this rule."""
    openings = random_openings("go", 200, 2, 0, {"board_size": 9, "komi": 7.5})
    assert len(openings) == 200 and all(len(o) == 2 for o in openings)
    assert not any(81 in opening for opening in openings)
    assert make_game("go", board_size=9).pass_action == 81
    assert make_game("connect_four").pass_action is None


def test_openings_are_paired_and_colours_alternate():
    result = play_match(
        "connect_four", RandomAgent(0), RandomAgent(1), games=10, seed=3, opening_plies=4
    )
    records = result.records
    assert [r.agent_a_seat for r in records] == [0, 1] * 5
    for first, second in zip(records[::2], records[1::2], strict=True):
        assert first.opening == second.opening and len(first.opening) == 4
    assert len({tuple(r.opening) for r in records}) == 5
    # the totals are agent_a's results read from the games as played: each record replays
    # (opening + moves) to a finished game whose returns give agent_a's score
    game = make_game("connect_four")
    for record in records:
        final = game.replay(record.opening + record.moves)
        assert game.is_terminal(final) and list(game.returns(final)) == record.returns
        assert record.score == (record.returns[record.agent_a_seat] + 1) / 2
    scores = [r.score for r in records]
    assert (result.wins, result.draws, result.losses) == (
        scores.count(1.0), scores.count(0.5), scores.count(0.0))
    assert result.score == pytest.approx(sum(scores) / 10)
    assert result.score_ci == pytest.approx(score_interval(sum(scores) / 10, 10))


def test_deterministic_agents_do_not_replay_the_same_game():
    """Without openings two deterministic agents play 2 distinct games however many are
    asked for (the flaw of arenas where "40 games are really 2"); with paired random openings
    every pair of games starts elsewhere."""

    def games(opening_plies: int) -> set[tuple[int, ...]]:
        a = MCTSAgent(simulations=200, solver=False, seed=0)
        b = MCTSAgent(simulations=200, solver=False, seed=0)
        for agent in (a, b):  # deterministic: the same stream before every game
            agent.reseed = lambda seed, agent=agent: MCTSAgent.reseed(agent, 0)
        result = play_match("connect_four", a, b, games=8, opening_plies=opening_plies)
        return {tuple(r.opening + r.moves) for r in result.records}

    assert len(games(0)) <= 2
    assert len(games(2)) >= 4


def test_interrupted_match_resumes_to_the_same_totals(tmp_path):
    def agents():
        return MCTSAgent(simulations=30, seed=5), RandomAgent(6)

    full = play_match("connect_four", *agents(), games=12, seed=7)
    path = tmp_path / "results.sqlite"
    finished = 0

    def interrupt_after_five(n: int) -> None:
        nonlocal finished
        finished += n
        if finished == 5:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        play_match(
            "connect_four", *agents(), games=12, seed=7, store=path,
            progress=interrupt_after_five,
        )
    with ResultsStore(path) as store:
        (match_id, _), = store.matches()
        assert len(store.records(match_id)) == 5
        assert not store._db.execute("SELECT * FROM claims").fetchall()  # given back
    resumed = play_match("connect_four", *agents(), games=12, seed=7, store=path)
    assert (resumed.wins, resumed.draws, resumed.losses) == (full.wins, full.draws, full.losses)
    assert [r.moves for r in resumed.records] == [r.moves for r in full.records]
    paths = export_match(resumed, tmp_path / "match", ["jsonl", "csv"])
    lines = paths[0].read_text().splitlines()
    assert [json.loads(line)["moves"] for line in lines] == [r.moves for r in full.records]
    assert len(paths[1].read_text().splitlines()) == 13


def test_time_limit_is_given_to_copies_of_the_agents():
    a, b = AlphaBetaAgent(depth=1, time_limit=5.0), RandomAgent(0)
    play_match("tictactoe", a, b, games=2, time_limit=0.01)
    assert a.time_limit == 5.0


def test_parallel_workers_give_the_same_games(tmp_path):
    serial = play_match(
        "tictactoe", MCTSAgent(simulations=20, seed=1), RandomAgent(2), games=6, seed=4
    )
    parallel = play_match(
        "tictactoe", MCTSAgent(simulations=20, seed=1), RandomAgent(2), games=6, seed=4, workers=2
    )
    assert [r.moves for r in parallel.records] == [r.moves for r in serial.records]


def test_tournament_table_files_and_anchor(tmp_path):
    agents = {"random": RandomAgent(0), "mcts": MCTSAgent(simulations=100)}
    result = tournament("tictactoe", agents, games_per_pair=10, store=tmp_path / "r.sqlite")
    assert result.ratings["random"][0] == 0.0
    assert result.ratings["mcts"][0] > 0
    paths = result.save(tmp_path)
    assert [p.name for p in paths] == ["ratings.csv", "ratings.json", "ratings.png"]
    assert all(p.stat().st_size > 0 for p in paths)
    exported = result.export(tmp_path, ["jsonl"])
    assert exported == [tmp_path / "random__vs__mcts.jsonl"]
    assert len(exported[0].read_text().splitlines()) == 10


def test_go_games_are_exported_as_sgf(tmp_path):
    result = play_match(
        "go", RandomAgent(0), RandomAgent(1), games=2, game_options={"board_size": 5},
    )
    export_match(result, tmp_path / "go", ["sgf"])
    sgf = sorted((tmp_path / "go").glob("*.sgf"))
    assert len(sgf) == 2 and sgf[0].read_text().startswith("(;")
    with pytest.raises(InvalidOptionError, match=r"unknown export format\(s\) \['pdf'\]; use "
                       "jsonl, sgf, csv, pgn$"):
        export_match(result, tmp_path / "go", ["pdf"])
    with pytest.raises(InvalidOptionError, match="^pgn holds chess games; go exports jsonl, "
                       "sgf, csv$"):
        export_match(result, tmp_path / "go", ["sgf", "pgn"], "go")


def test_bad_match_arguments():
    with pytest.raises(InvalidOptionError):
        play_match("tictactoe", RandomAgent(), RandomAgent(), games=0)
    with pytest.raises(InvalidOptionError):
        tournament("tictactoe", {"only": RandomAgent()})
    assert len(random_openings("nim", 3, 2, seed=0)) == 3


def test_a_game_object_plays_the_same_match_as_its_name_and_options():
    """The arena takes the rules as a Game: the same openings, games and stored match as
    the name with the same options; options beside a Game are refused."""
    game = make_game("nim", heaps=(3, 4))
    named = play_match("nim", RandomAgent(), RandomAgent(1), games=4, seed=3,
                       game_options={"heaps": (3, 4)})
    given = play_match(game, RandomAgent(), RandomAgent(1), games=4, seed=3)
    assert [r.moves for r in given.records] == [r.moves for r in named.records]
    assert random_openings(game, 2, 2, 0) == random_openings("nim", 2, 2, 0, {"heaps": (3, 4)})
    with pytest.raises(InvalidOptionError, match="has its own"):
        play_match(game, RandomAgent(), RandomAgent(), games=2, game_options={"heaps": (5,)})
    assert tournament(game, {"a": RandomAgent(), "b": RandomAgent(2)},
                      games_per_pair=2).game == "nim"


def test_chess_games_are_exported_as_pgn(tmp_path):
    """python-chess reads every exported game back to the record's final position, with the
    players on their seats' sides and the record's result."""
    chess_pgn = pytest.importorskip("chess.pgn")
    from boardzoo.envs.chess import Chess, fen

    result = play_match("chess", RandomAgent(0), RandomAgent(1), games=2)
    [path] = export_match(result, tmp_path / "chess", ["pgn"], "chess", ("r0", "r1"))
    handle = io.StringIO(path.read_text())
    for record in result.records:
        read = chess_pgn.read_game(handle)
        assert not read.errors
        final = fen(Chess().parse_position(record.final_position))
        assert read.end().board().fen() == final
        white = "r0" if record.agent_a_seat == 0 else "r1"
        assert (read.headers["White"], read.headers["Round"]) == (white, str(record.index + 1))
        assert read.headers["Result"] == {1.0: "1-0", -1.0: "0-1", 0.0: "1/2-1/2"}[
            record.returns[0]]


def test_the_elo_table_folds_long_agent_names_at_80_columns_and_never_cuts_them():
    import io

    from rich.console import Console

    from boardzoo.arena import MatchResult, TournamentResult

    names = ["alphazero:checkpoint=connect_four,simulations=200,temperature=0",
             "mcts:simulations=10000,threads=2,c_puct=1.25", "random"]
    matches = {(a, b): MatchResult(1, 0, 1, []) for i, a in enumerate(names)
               for b in names[i + 1:]}
    result = TournamentResult("connect_four", names, matches,
                              {name: (0.0, -300.0, 300.0) for name in names})
    console = Console(width=80, file=io.StringIO(), color_system=None)
    result.table(console)
    lines = console.file.getvalue().splitlines()
    assert max(len(line) for line in lines) <= 80
    shown: list[str] = []
    for line in lines:
        cells = line.split("│")
        if len(cells) < 3:
            continue
        if cells[1].strip():  # a row starts with its rank
            shown.append("")
        shown[-1] += cells[2].strip()
    assert sorted(shown) == sorted(names)
