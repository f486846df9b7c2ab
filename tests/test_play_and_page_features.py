"""Issue 30, section 2: a terminal game worth playing and a replay worth watching. The terminal: colour on a
real terminal only (none piped, none with NO_COLOR), the whole table once per turn and only what changed later
in the turn, --auto-forced, rami51's count toward the opening and why COMMIT is not offered. The page's data:
what each move changed, each hand's row of the score table with its bonuses, hands and turns in the move list,
seat labels that tell two bots of one name apart, a title that says what the game is. (The page itself is
driven in Chromium by tests/test_replay_html.py.)"""

from __future__ import annotations

import io
import subprocess
import sys

import numpy as np
import pytest

from rummy_env import RummyRules, terminal_game as tg
from rummy_env.records import GameRecord
from rummy_env.replay_html import default_title, page_data

from scenario_rami import COMMIT, load, meld, rami, step


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def game_on(out, preset="basic", answers=None, auto_forced=False, **knobs):
    rules = RummyRules.preset(preset, **knobs)
    bots = tg.make_bots(tg.opponent_specs("heuristic", rules.num_players, 0), rules)
    record = GameRecord.new(rules, seed=3, agents=tg.agent_list(0, {s: b.name for s, b in bots.items()}, rules.num_players))
    record.meta = tg.record_meta(0, {1: "heuristic"})
    prompts = []

    def ask(prompt: str) -> str:
        prompts.append(prompt)
        if prompt.startswith("save"):
            return ""
        return next(answers) if answers is not None else "1"

    return tg.TerminalGame(record, 0, bots, ask, out, None, seed=1, auto_forced=auto_forced), prompts


def test_colour_on_a_terminal_only(monkeypatch):
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.setenv("TERM", "xterm")
    for out, coloured in ((Terminal(), True), (io.StringIO(), False)):
        game, _ = game_on(out, episode="hand", max_turns_per_round=6)
        assert game.run() == 0
        assert ("\x1b[31m" in out.getvalue()) == coloured and ("\x1b[1m▶" in out.getvalue()) == coloured
    monkeypatch.setenv("NO_COLOR", "1")
    out = Terminal()
    game, _ = game_on(out, episode="hand", max_turns_per_round=6)
    assert game.run() == 0 and "\x1b[" not in out.getvalue()
    assert tg.paint("7♥ 8♠ 10♦") == "\x1b[31m7♥\x1b[39m 8♠ \x1b[31m10♦\x1b[39m"
    monkeypatch.setenv("NO_COLOR", "")  # no-color.org: only a non-empty value turns colour off
    assert tg.wants_colour(Terminal())


def test_the_whole_table_once_per_turn_then_what_changed():
    """Basic: two decisions per turn (draw, then discard or meld); the second shows the changed lines only (the
    opponent's line, unchanged, is left out), and ``v`` shows the whole table again."""
    answers = iter(["1", "v"] + ["1"] * 400)
    out = io.StringIO()
    game, _ = game_on(out, answers=answers, episode="hand", max_turns_per_round=8)
    assert game.run() == 0
    views = [block.split("\nyour moves:")[0] for block in out.getvalue().split("\n\n") if "\nyour moves:" in block]
    changed = [view for view in views if view.endswith("(v: the whole table)")]
    whole = [view for view in views if view not in changed]
    assert changed and whole and len(views) == len(changed) + len(whole)
    assert all(any(line.startswith("  heuristic [") for line in view.splitlines()) for view in whole)
    assert not any(line.startswith("  heuristic [") for view in changed for line in view.splitlines())
    assert views[1] in changed and views[2] in whole  # the second decision, then the v command


def test_auto_forced_plays_single_moves_without_asking():
    """Gin: a defender with nothing to lay off, or a knock's last step, has one legal move."""
    seen = 0
    for seed in range(6):
        out = io.StringIO()
        rules = RummyRules.preset("gin", episode="hand")
        bots = tg.make_bots({1: "heuristic"}, rules)
        record = GameRecord.new(rules, seed=seed, agents=["you", "heuristic"])
        record.meta = tg.record_meta(0, {1: "heuristic"})
        moves_at_prompt = []

        def ask(prompt: str, game_box=[]) -> str:  # noqa: B006 (the game, once made)
            if prompt.startswith("save"):
                return ""
            game = game_box[0]
            moves_at_prompt.append(len(game.legal_moves(game.engine.snapshot(0))))
            return "1"

        game = tg.TerminalGame(record, 0, bots, ask, out, None, seed=1, auto_forced=True)
        ask.__defaults__[0].append(game)
        assert game.run() == 0
        assert min(moves_at_prompt) > 1  # never asked when there was one move
        seen += out.getvalue().count("(your only move, played for you")
    assert seen > 0


def test_rami51_counts_toward_the_opening_and_says_why_no_commit(tmp_path):
    rules = RummyRules.preset("rami51")
    record = GameRecord.new(rules, seed=1, agents=["you", "heuristic"])
    game = tg.TerminalGame(record, 0, tg.make_bots({1: "heuristic"}, rules), lambda _p: "q", io.StringIO(), None)
    engine = game.engine
    load(engine, ["JH QH KH 5C 6C 7C 2D 9S", "2H 3H 4H"], stock_next="4D 8C")
    assert game.opening_lines(engine.snapshot(0)) == ["opening: 0 of 51 points laid this turn · pure run: no"]
    step(engine, meld(engine, "JH QH KH"))
    step(engine, meld(engine, "5C 6C 7C"))
    lines = game.opening_lines(engine.snapshot(0))
    assert lines[0] == "opening: 48 of 51 points laid this turn · pure run: yes"
    assert lines[1].startswith("COMMIT is not offered: ") and "48" in lines[1] and "51" in lines[1]
    assert not engine.is_legal(0, COMMIT)


def test_auto_forced_is_an_option_of_rummy_play_and_piped_output_has_no_colour(tmp_path):
    run = subprocess.run([sys.executable, "-m", "rummy_env", "play", "--rules", "gin", "--episode", "hand", "--seed", "2",
                          "--auto-forced", "--save", str(tmp_path / "g.json")], input="1\n" * 300 + "q\n",
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    assert "\x1b[" not in run.stdout  # piped: no colour


# ------------------------------------------------------------------------------------------------ the page's data
def played(preset: str, seed: int, agents=None, **knobs) -> GameRecord:
    rules = RummyRules.preset(preset, **knobs)
    record = GameRecord.new(rules, seed=seed, agents=agents)
    engine, rng = record.start(), np.random.default_rng(seed)
    from rummy_env.agents.registry import make_agent

    agent = make_agent("heuristic", rules)
    while not engine.done[0]:
        record.play(engine, int(agent.act(engine.observe(), engine.legal_action_mask(), rng)[0]))
    return record


def test_what_each_move_changed_is_marked():
    record = played("basic", 4, episode="hand")
    data = page_data(record)
    drawn = discarded = laid = 0
    for move, (frame, before) in enumerate(zip(data["frames"][1:], data["frames"]), start=1):
        actor, fresh = data["moves"][move - 1]["actor"], frame["fresh"]
        grown = len(frame["hands"][actor]) - len(before["hands"][actor])
        if grown > 0:
            assert len(fresh["hands"][actor]) == grown  # the card(s) drawn or taken
            drawn += 1
        assert all(not fresh["hands"][seat] for seat in range(len(frame["hands"])) if seat != actor)
        if frame["pile_size"] > before["pile_size"]:
            assert fresh["pile"]
            discarded += 1
        new_slots = {meld["slot"] for meld in frame["table"]} - {meld["slot"] for meld in before["table"]}
        assert new_slots <= set(fresh["slots"])
        laid += bool(fresh["slots"])
    assert drawn > 5 and discarded > 5 and laid > 0


@pytest.mark.parametrize("preset,knobs,bonus", [
    ("gin", {"episode": "game", "target_score": 100}, "bonus"),
    ("basic", {"episode": "game", "target_score": 150}, None),
])
def test_a_score_row_per_hand_with_its_bonuses(preset, knobs, bonus):
    record = played(preset, 2, **knobs)
    data = page_data(record)
    rows = data["hands"]
    ended_moves = [move for move in range(1, len(data["frames"]))
                   if data["frames"][move]["hands_played"] > data["frames"][move - 1]["hands_played"]]
    assert [row["move"] for row in rows] == ended_moves and len(rows) >= 2
    assert rows[-1]["totals"] == data["frames"][-1]["totals"]
    for row in rows:
        assert row["ended"] and len(row["scores"]) == len(row["totals"]) == 2
    if bonus:
        assert any(bonus in row["bonus"] for row in rows)
        assert "game's box" in rows[-1]["bonus"]
    hand_starts = [move for move in range(1, len(data["moves"])) if data["moves"][move]["hand"] != data["moves"][move - 1]["hand"]]
    assert [move + 1 for move in hand_starts] == [row["move"] + 1 for row in rows[:-1]]  # a new hand after each end


def test_labels_tell_two_bots_of_one_name_apart_and_the_title_says_what_the_game_is():
    record = played("basic", 1, agents=["heuristic", "heuristic"], episode="hand")
    data = page_data(record)
    assert data["labels"] == ["heuristic (player_0)", "heuristic (player_1)"]
    assert default_title(record) == "Rummy replay: heuristic vs heuristic (seed 1)"
    rami = GameRecord.new("rami51", 2, seed=5, agents=["you", "heuristic"])
    assert default_title(rami) == "Rami 51 replay: you vs heuristic (seed 5)"


def test_rami51_frames_count_toward_the_opening():
    record = played("rami51", 3, max_turns_per_round=30)
    frames = page_data(record)["frames"]
    counting = [frame["opening"] for frame in frames if frame["opening"]]
    assert counting and all(entry["needed"] == 51 for entry in counting)
    assert any(entry["points"] > 0 for entry in counting)
    assert all(frame["opening"] is None for frame in frames if frame["phase"] != "play")
