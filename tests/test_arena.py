"""The arena (``training/evaluate.py``) and the agent registry: Wilson intervals against known values,
seats rotated evenly, the same seed giving the same games, HeuristicAgent beating RandomAgent and rated
above it, the Markdown/CSV/plot outputs, and a clear error for an unknown agent spec."""

from __future__ import annotations

import csv

import numpy as np
import pytest

pytest.importorskip("openskill")
pytest.importorskip("matplotlib")

from rummy_env.agents.random_agent import RandomAgent
from rummy_env.agents.registry import KINDS, make_agent
from rummy_env.rules import RummyRules
from rummy_env.training import arena, evaluate

BASIC_2P = RummyRules.preset("basic", num_players=2)


@pytest.fixture(scope="module")
def heuristic_vs_random() -> evaluate.MatchResult:
    agents = (make_agent("heuristic", BASIC_2P), make_agent("random", BASIC_2P))
    return evaluate.play_match(BASIC_2P, agents, ("heuristic", "random"), games=200, seed=0)


@pytest.mark.parametrize("successes, trials, expected", [
    (0, 10, (0.0, 0.2775)),      # upper bound z^2 / (n + z^2)
    (10, 10, (0.7225, 1.0)),
    (50, 100, (0.4038, 0.5962)),
    (81, 263, (0.2553, 0.3662)),  # Wilson (1927) / Wikipedia's worked example
])
def test_wilson_interval_known_values(successes, trials, expected):
    np.testing.assert_allclose(evaluate.wilson_interval(successes, trials), expected, atol=5e-4)


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_seat_patterns_give_every_agent_every_seat_equally(players):
    patterns = evaluate.seat_patterns(players)
    assert set(np.unique(patterns)) == {0, 1}
    np.testing.assert_array_equal((patterns == 0).sum(axis=0), np.full(players, len(patterns) // 2))


def test_a_match_rotates_seats_evenly():
    rules = RummyRules.preset("basic", num_players=3)
    games = 4 * len(evaluate.seat_patterns(3))
    result = evaluate.play_match(rules, (RandomAgent(), RandomAgent()), ("a", "b"), games, seed=1, max_rows=7)
    assert result.seats.shape == (games, 3)
    np.testing.assert_array_equal((result.seats == 0).sum(axis=0), np.full(3, games // 2))


@pytest.mark.parametrize("players", [3, 4, 5])
def test_alone_lineup_plays_each_deal_with_the_lone_seat_in_every_seat(players):
    rules = RummyRules.preset("basic", num_players=players)
    heuristic = make_agent("heuristic", rules)
    games = 3 * players
    result = evaluate.play_match(rules, (heuristic, heuristic), ("a", "b"), games, seed=2, duplicate=True,
                                 lineup="alone")
    assert result.summary()["lineup"] == "alone"
    np.testing.assert_array_equal((result.seats == 0).sum(axis=1), np.ones(games))  # one lone seat per game
    np.testing.assert_array_equal((result.seats == 0).sum(axis=0), np.full(players, 3))  # each seat equally
    deals = arena.match_deals(2, games, True, players)
    assert all(len(set(deals[d * players:(d + 1) * players])) == 1 for d in range(3))
    # a deterministic agent against itself: each deal's winning seat is the same in its P copies, so the lone
    # seat wins exactly one copy of each deal that someone won
    decided = (result.outcomes != 0.5).reshape(3, players).all(axis=1)
    np.testing.assert_array_equal((result.outcomes == 1).reshape(3, players).sum(axis=1), decided.astype(int))


def test_alone_lineup_at_two_players_is_the_alternate_one():
    agents = (make_agent("heuristic", BASIC_2P), RandomAgent())
    alone, alternate = (evaluate.play_match(BASIC_2P, agents, ("h", "r"), 8, seed=3, duplicate=True, lineup=lineup)
                        for lineup in ("alone", "alternate"))
    assert alone.lineup == "alternate"
    np.testing.assert_array_equal(alone.seats, alternate.seats)
    np.testing.assert_array_equal(alone.score_diffs, alternate.score_diffs)


def test_alone_lineup_refuses_games_that_split_a_deal_and_an_unknown_lineup():
    rules = RummyRules.preset("basic", num_players=4)
    agents = (RandomAgent(), RandomAgent())
    with pytest.raises(ValueError, match="every deal 4 times: games must be a multiple of 4, got games=6"):
        evaluate.play_match(rules, agents, ("a", "b"), 6, seed=0, duplicate=True, lineup="alone")
    with pytest.raises(ValueError, match="unknown lineup 'lonely'; the lineups are alternate, alone"):
        evaluate.play_match(rules, agents, ("a", "b"), 4, seed=0, lineup="lonely")


def test_the_same_seed_gives_the_same_games():
    agents = (make_agent("greedy", BASIC_2P), RandomAgent())

    def play(seed: int) -> evaluate.MatchResult:
        return evaluate.play_match(BASIC_2P, agents, ("greedy", "random"), games=48, seed=seed, max_rows=16)

    first, again, other = play(5), play(5), play(6)
    np.testing.assert_array_equal(first.outcomes, again.outcomes)
    np.testing.assert_array_equal(first.score_diffs, again.score_diffs)
    assert not np.array_equal(first.score_diffs, other.score_diffs)


def test_heuristic_beats_random_in_basic_games(heuristic_vs_random):
    result = heuristic_vs_random
    assert result.games == 200 and result.wins + result.draws + result.losses == 200
    assert result.win_rate >= 0.9
    assert result.summary()["score_diff"] > 0


def test_ratings_put_heuristic_above_random(heuristic_vs_random):
    ratings = evaluate.rate_league([heuristic_vs_random])
    assert [row["agent"] for row in ratings] == ["heuristic", "random"]
    assert ratings[0]["ordinal"] == pytest.approx(ratings[0]["mu"] - 3 * ratings[0]["sigma"])


def test_penalty_scoring_flips_the_score_difference():
    rules = RummyRules.preset("rami51", num_players=2)
    seats = np.array([[0, 1], [1, 0]], dtype=np.int8)
    totals = np.array([[10.0, 40.0], [10.0, 40.0]])   # penalties: lower is better
    winners = np.array([[1, 0], [1, 0]], dtype=np.int8)
    result = evaluate.match_result(rules, ("a", "b"), seats, totals, winners)
    np.testing.assert_array_equal(result.score_diffs, [30.0, -30.0])
    np.testing.assert_array_equal(result.outcomes, [1.0, 0.0])


def test_command_line_writes_the_tables(tmp_path, capsys):
    evaluate.main(["--agents", "greedy", "random", "--games", "16", "--seed", "0", "--out", str(tmp_path)])
    report = (tmp_path / "report.md").read_text()
    assert "| greedy | random | 16 |" in report and "one game = one hand" in report
    assert report in capsys.readouterr().out
    with open(tmp_path / "matches.csv") as handle:
        (row,) = list(csv.DictReader(handle))
    assert row["agent"] == "greedy" and int(row["games"]) == 16
    assert 0.0 <= float(row["ci_low"]) <= float(row["win_rate"]) <= float(row["ci_high"]) <= 1.0
    assert (tmp_path / "ratings.csv").read_text().startswith("agent,mu,sigma,ordinal")


def test_command_line_alone_lineup_reports_against_the_fair_share(tmp_path, capsys):
    out = tmp_path / "alone"
    evaluate.main(["--players", "4", "--agents", "heuristic", "random", "--lineup", "alone", "--duplicate",
                   "--games", "8", "--out", str(out)])
    report = (out / "report.md").read_text()
    assert "the agent alone in one seat against 3 copies of its opponent" in report and "fair share, 1/4" in report
    assert "each deal played once with the lone seat in each seat" in report and not (out / "ratings.csv").exists()
    evaluate.main(["--players", "4", "--agents", "heuristic", "random", "--games", "4", "--out", str(out),
                   "--overwrite"])
    assert (out / "ratings.csv").exists()
    evaluate.main(["--players", "4", "--agents", "heuristic", "random", "--lineup", "alone", "--out", str(out),
                   "--overwrite", "--games", "4"])
    assert not (out / "ratings.csv").exists(), "an overwritten folder keeps no ratings of the earlier run"
    with pytest.raises(SystemExit) as stop:
        evaluate.main(["--players", "4", "--agents", "heuristic", "random", "--lineup", "alone", "--duplicate",
                       "--games", "6", "--out", str(tmp_path / "split")])
    assert stop.value.code == 2 and "--games must be a multiple of 4, got 6" in capsys.readouterr().err


def test_learning_curve_from_a_csv_log(tmp_path):
    log = tmp_path / "progress.csv"
    log.write_text("time/total_timesteps,eval/mean_reward\n100,0.1\n200,\n300,0.4\n")
    assert evaluate.plots.read_scalars(log, "eval/mean_reward") == ([100.0, 300.0], [0.1, 0.4])
    with pytest.raises(ValueError, match="eval/mean_reward"):
        evaluate.plots.read_scalars(log, "loss")
    assert evaluate.plots.learning_curve(log, "eval/mean_reward", tmp_path / "curve.png").stat().st_size > 0


def test_checkpoint_steps_come_from_the_checkpoint_or_the_file_name(tmp_path):
    torch = pytest.importorskip("torch")
    for name in ("sb3_2000_steps.zip", "step_000100.pt", "notes.txt", "latest.pt"):
        (tmp_path / name).write_text("")
    torch.save({"global_step": 51200, "update": 3}, tmp_path / "checkpoint_000003.pt")
    torch.save({"global_step": 51200}, tmp_path / "policy.pt")   # the same step: left out
    assert [(step, path.name) for step, path in evaluate.checkpoint_steps(tmp_path)] == [
        (100, "step_000100.pt"), (2000, "sb3_2000_steps.zip"), (51200, "checkpoint_000003.pt")]


def test_registry_refuses_an_unknown_spec():
    with pytest.raises(ValueError, match="known kinds: " + ", ".join(KINDS)):
        make_agent("alphazero", BASIC_2P)
    with pytest.raises(ValueError, match="unknown agent spec 'ppo'"):
        make_agent("ppo", BASIC_2P)
    with pytest.raises(FileNotFoundError, match="no checkpoint"):
        make_agent("sb3:missing.zip", BASIC_2P)


def test_league_mode_skips_missing_checkpoints_and_writes_league_md(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(evaluate, "LEAGUE", (("basic", 2, ("greedy", "random")),))
    evaluate.main(["league", "--games", "8", "--out", str(tmp_path / "results"), "--checkpoints", str(tmp_path)])
    assert f"note: {tmp_path / 'basic_2p.pt'} is missing" in capsys.readouterr().out
    league = (tmp_path / "results" / "league.md").read_text()
    assert league.startswith("`python -m rummy_env.training.evaluate league") and "### basic, 2 players" in league
    assert "| greedy | random | 8 |" in league and (tmp_path / "results" / "basic_2p" / "matches.csv").is_file()


def test_league_mode_replaces_the_readme_block_and_nothing_else(tmp_path, monkeypatch):
    monkeypatch.setattr(evaluate, "LEAGUE", (("basic", 2, ("greedy", "random")),))
    readme = tmp_path / "README.md"
    readme.write_text(f"before\n{evaluate.README_START}\nold table\n{evaluate.README_END}\nafter\n")
    evaluate.main(["league", "--games", "8", "--out", str(tmp_path / "results"), "--checkpoints", str(tmp_path),
                   "--readme", str(readme)])
    text = readme.read_text()
    assert text.startswith(f"before\n{evaluate.README_START}\n") and text.endswith(f"{evaluate.README_END}\nafter\n")
    assert "old table" not in text and "| greedy | random | 8 |" in text
    readme.write_text("no block")
    with pytest.raises(SystemExit, match="no <!-- league:start -->"):
        evaluate.main(["league", "--games", "8", "--out", str(tmp_path / "results"), "--checkpoints", str(tmp_path),
                       "--readme", str(readme)])


# ------------------------------------------------------------------------------------------ bad input, nothing lost
def test_two_agents_with_the_same_display_name_keep_their_pairing(tmp_path):
    pytest.importorskip("torch")
    import shutil

    for run in ("a", "b"):
        (tmp_path / run).mkdir()
        shutil.copy("checkpoints/basic_2p.pt", tmp_path / run / "policy.pt")
    out = tmp_path / "out"
    evaluate.main(["--agents", f"ppo:{tmp_path / 'a/policy.pt'}", f"ppo:{tmp_path / 'b/policy.pt'}", "random",
                   "--games", "4", "--out", str(out)])
    with open(out / "matches.csv") as handle:
        rows = list(csv.DictReader(handle))
    assert [(row["agent"], row["opponent"]) for row in rows] == [
        ("ppo:a/policy", "ppo:b/policy"), ("ppo:a/policy", "random"), ("ppo:b/policy", "random")]


def test_an_agent_against_itself_and_a_single_agent_refused(tmp_path, capsys):
    out = tmp_path / "self"
    evaluate.main(["--agents", "heuristic", "heuristic", "--games", "6", "--out", str(out)])
    assert "| heuristic #1 | heuristic #2 | 6 |" in (out / "report.md").read_text()
    with pytest.raises(SystemExit) as stop:
        evaluate.main(["--agents", "heuristic", "--games", "6", "--out", str(tmp_path / "one")])
    assert stop.value.code == 2
    assert "needs two or more agents" in capsys.readouterr().err and not (tmp_path / "one").exists()


def test_games_zero_is_refused_by_name(tmp_path, capsys):
    with pytest.raises(SystemExit) as stop:
        evaluate.main(["--agents", "greedy", "random", "--games", "0", "--out", str(tmp_path)])
    assert stop.value.code == 2 and "--games must be at least 1" in capsys.readouterr().err
    with pytest.raises(ValueError, match="at least one game"):
        evaluate.play_match(BASIC_2P, (RandomAgent(), RandomAgent()), ("a", "b"), games=0, seed=0)


def test_a_second_run_does_not_overwrite_the_first(tmp_path, capsys):
    out = tmp_path / "results"
    evaluate.main(["--agents", "greedy", "random", "--games", "4", "--out", str(out)])
    first = (out / "report.md").read_text()
    evaluate.main(["--agents", "heuristic", "random", "--games", "6", "--out", str(out)])
    assert (out / "report.md").read_text() == first
    assert "| heuristic | random | 6 |" in (tmp_path / "results-2" / "report.md").read_text()
    assert f"{out} already holds files; this run writes to {tmp_path / 'results-2'}" in capsys.readouterr().out
    evaluate.main(["--agents", "heuristic", "random", "--games", "6", "--out", str(out), "--overwrite"])
    assert "| heuristic | random | 6 |" in (out / "report.md").read_text()


def test_a_damaged_checkpoint_is_reported_and_skipped(tmp_path, capsys):
    pytest.importorskip("torch")
    import shutil

    runs = tmp_path / "run"
    runs.mkdir()
    shutil.copy("checkpoints/basic_2p.pt", runs / "checkpoint_000001.pt")
    (runs / "checkpoint_000002.pt").write_bytes(b"\x80\x04 damaged")
    evaluate.main(["--agents", "random", "--checkpoints-dir", str(runs), "--games", "4", "--out", str(tmp_path / "curve")])
    captured = capsys.readouterr()
    assert f"skipped {runs / 'checkpoint_000002.pt'}" in captured.err
    with open(tmp_path / "curve" / "checkpoints.csv") as handle:
        assert len(list(csv.DictReader(handle))) == 1
    assert "1 checkpoint(s) skipped: checkpoint_000002.pt" in captured.out


def test_a_checkpoint_sweep_keeps_the_lineup_and_duplicate_deals(tmp_path):
    pytest.importorskip("torch")
    import shutil

    runs = tmp_path / "run"
    runs.mkdir()
    shutil.copy("checkpoints/basic_4p.pt", runs / "checkpoint_000001.pt")
    evaluate.main(["--players", "4", "--agents", "heuristic", "--checkpoints-dir", str(runs), "--lineup", "alone",
                   "--duplicate", "--games", "4", "--out", str(tmp_path / "curve")])
    with open(tmp_path / "curve" / "checkpoints.csv") as handle:
        (row,) = list(csv.DictReader(handle))
    assert (row["lineup"], row["duplicate"], row["games"]) == ("alone", "True", "4")


def test_records_replay_each_game_of_the_arena(tmp_path):
    from rummy_env.records import GameRecord

    agents = {"greedy": make_agent("greedy", BASIC_2P), "random": RandomAgent(), "heuristic": make_agent("heuristic", BASIC_2P)}
    results = evaluate.play_league(BASIC_2P, agents, games=6, seed=3, records=tmp_path)
    for result in results:
        folder = tmp_path / f"{result.names[0]}_vs_{result.names[1]}"
        files = sorted(folder.glob("game_*.json"))
        assert len(files) == 6
        for game, path in enumerate(files):
            record = GameRecord.load(path)
            engine = record.replay()
            assert engine.done[0]
            totals = engine.snapshot(0)["totals"]
            seats = result.seats[game]
            mine = np.mean([t for t, s in zip(totals, seats) if s == 0]) - np.mean([t for t, s in zip(totals, seats) if s == 1])
            assert mine == pytest.approx(result.score_diffs[game])
            assert record.agents == [result.names[s] for s in seats]
    seeds = [[GameRecord.load(p).seed for p in sorted((tmp_path / f"{r.names[0]}_vs_{r.names[1]}").glob("*.json"))]
             for r in results]
    assert seeds[0] == seeds[1] == seeds[2]  # every pairing meets the same deals


def test_a_progress_bar_only_on_a_terminal(capsys, monkeypatch):
    agents = (RandomAgent(), RandomAgent())
    evaluate.play_match(BASIC_2P, agents, ("a", "b"), games=8, seed=0, progress=True)
    assert capsys.readouterr().err == ""                       # stderr is not a terminal here
    monkeypatch.setattr("sys.stderr.isatty", lambda: True, raising=False)
    evaluate.play_match(BASIC_2P, agents, ("a", "b"), games=8, seed=0, progress=True)
    assert "a vs b" in capsys.readouterr().err
    evaluate.play_match(BASIC_2P, agents, ("a", "b"), games=8, seed=0, progress=False)
    assert capsys.readouterr().err == ""


def test_gin_arena_pairs_our_agents_with_openspiels_bot(tmp_path):
    """The arena pairing against OpenSpiel's simple gin bot (agent spec ``openspiel_bot``, the openspiel extra):
    every pairing played with seats rotated, and the bot, as it does in OpenSpiel, beating random play."""
    pytest.importorskip("pyspiel", reason='openspiel_bot needs open_spiel 2.0.2: pip install "rummy_env[openspiel]"')
    evaluate.main(["--rules", "gin_openspiel", "--agents", "openspiel_bot", "heuristic", "random", "--games", "16",
                   "--seed", "0", "--out", str(tmp_path), "--quiet"])
    with open(tmp_path / "matches.csv") as handle:
        rows = {(row["agent"], row["opponent"]): row for row in csv.DictReader(handle)}
    assert set(rows) == {("openspiel_bot", "heuristic"), ("openspiel_bot", "random"), ("heuristic", "random")}
    assert all(int(row["games"]) == 16 for row in rows.values())
    assert int(rows["openspiel_bot", "random"]["wins"]) >= 14
