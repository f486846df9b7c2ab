"""The ``rummy`` command: a whole game per ruleset played by scripted input (bad input included),
UNDO/TAKE/COMMIT typed by the person, the game kept on end of input and Ctrl-C and resumed, bad
opponent specs and checkpoints answered with a message, the text replay, the console script and
``python -m rummy_env``."""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from rummy_env import cli
from rummy_env import terminal_game as tg
from rummy_env.records import GameRecord
from rummy_env.rules import make_rules

BAD_INPUT = ["", "abc", "0", "999", "-1", "d ZZ", "d KS", "u", "h", "v"]


class ScriptedPerson:
    """Answers the prompts: first the bad inputs, then a move chosen from the game's legal list
    (UNDO, TAKE or COMMIT when offered, to use them; else the first move)."""

    def __init__(self, game_holder: list, bad: list[str] = BAD_INPUT, stop_after: int | None = None,
                 raise_at_stop: type[BaseException] = EOFError):
        self.holder, self.bad, self.stop_after, self.raise_at_stop = game_holder, list(bad), stop_after, raise_at_stop
        self.moves = 0
        self.typed: list[str] = []

    def __call__(self, prompt: str) -> str:
        if prompt.startswith("save the game record"):
            return ""
        if self.bad:
            return self.bad.pop(0)
        if self.stop_after is not None and self.moves >= self.stop_after:
            raise self.raise_at_stop()
        game = self.holder[0]
        moves = game.legal_moves(game.engine.snapshot(0))
        for wanted in ("UNDO", "TAKE", "COMMIT"):
            for number, (_action, text) in enumerate(moves, start=1):
                if text.startswith(wanted) and self.typed.count(wanted) < 2:
                    self.typed.append(wanted)
                    self.moves += 1
                    return str(number)
        self.moves += 1
        return "1"


def new_game(preset: str, players: int, opponents: str, tmp_path: Path, person_kwargs=None, **knobs):
    rules = make_rules(preset, players, **knobs)
    specs = tg.opponent_specs(opponents, players, 0)
    bots = tg.make_bots(specs, rules)
    record = GameRecord.new(rules, seed=21, agents=tg.agent_list(0, {s: b.name for s, b in bots.items()}, players))
    record.meta = tg.record_meta(0, specs)
    holder: list = []
    person = ScriptedPerson(holder, **(person_kwargs or {}))
    out = io.StringIO()
    game = tg.TerminalGame(record, 0, bots, person, out, tmp_path / "game.json", seed=1)
    holder.append(game)
    return game, person, out


@pytest.mark.parametrize("preset, players, opponents, knobs", [
    ("basic", 2, "heuristic", {"episode": "game", "target_score": 60}),
    ("basic", 3, "heuristic,random", {"episode": "hand"}),
    ("rami51", 2, "heuristic", {"episode": "game", "game_end_threshold": 150}),
])
def test_a_whole_game_by_scripted_input_bad_input_included(preset, players, opponents, knobs, tmp_path):
    game, person, out = new_game(preset, players, opponents, tmp_path, **knobs)
    assert game.run() == 0
    text = out.getvalue()
    assert game.engine.done[0]
    for message in ("type a move number from 1 to", "'abc' is not a move", "there is no move 0", "there is no move 999",
                    "which card? cannot parse card 'ZZ'", "commands: a move's number"):
        assert message in text
    # "d KS" is refused with the engine's reason, unless it was the person's legal first move
    refused = "you cannot discard K♠ now: " in text
    assert refused or game.layout.discard(tg.cards.parse("KS")) in game.record.actions
    if preset == "basic":
        assert "UNDO is not part of these rules" in text
    else:
        assert "you cannot UNDO now" in text and {"UNDO", "TAKE"} <= set(person.typed)
    assert ("game over: winner(s)" in text) == (knobs["episode"] == "game")
    saved = GameRecord.load(tmp_path / "game.json")
    assert saved.replay().snapshot(0) == game.engine.snapshot(0)
    assert "your moves:" in text and "you [" in text and "stock " in text and "discard pile" in text


def test_the_person_sees_only_his_own_hand(tmp_path):
    game, _person, out = new_game("basic", 2, "random", tmp_path, person_kwargs={"bad": [], "stop_after": 1}, episode="hand")
    game.run()
    first_view = out.getvalue().split("your moves:")[0]
    opponent_line = next(line for line in first_view.splitlines() if line.lstrip(" ▶").startswith("random ["))
    assert "cards" in opponent_line
    assert opponent_line.split("] ")[1].split(" ")[1] == "cards"  # "random [   0 pts] 10 cards"
    snap = game.engine.snapshot(0)
    hidden = [card for card in snap["hands"][1] if card not in snap["known"][1]]
    assert hidden and not any(f" {tg.cards.symbol(card)}" in opponent_line for card in hidden)


@pytest.mark.parametrize("stop, code", [(EOFError, 1), (KeyboardInterrupt, 130)])
def test_end_of_input_and_ctrl_c_keep_the_game_and_it_resumes(stop, code, tmp_path, monkeypatch, capsys):
    game, _person, out = new_game("rami51", 2, "heuristic", tmp_path,
                                  person_kwargs={"bad": [], "stop_after": 7, "raise_at_stop": stop}, episode="hand")
    assert game.run() == code
    assert "the game is saved to" in out.getvalue() and "rummy play --resume" in out.getvalue()
    saved = GameRecord.load(tmp_path / "game.json")
    assert saved.actions == game.record.actions and len(saved.actions) > 7
    monkeypatch.setattr("sys.stdin", io.StringIO("1\n" * 4000))
    assert cli.main(["play", "--resume", str(tmp_path / "game.json")]) == 0
    finished = GameRecord.load(tmp_path / "game.json")
    assert finished.actions[:len(saved.actions)] == saved.actions
    assert finished.replay().done[0]
    assert f"resuming after move {len(saved.actions)}" in capsys.readouterr().out


def test_quit_saves_and_save_writes_where_asked(tmp_path):
    game, _person, out = new_game("basic", 2, "heuristic", tmp_path,
                                  person_kwargs={"bad": [f"s {tmp_path / 'early.json'}", "1", "q"]})
    assert game.run() == 0
    assert f"saved the game record to {tmp_path / 'early.json'}" in out.getvalue()
    # a snapshot does not move the final save: quitting still saves where the game is saved
    assert f"you quit: the game is saved to {tmp_path / 'game.json'}" in out.getvalue()
    assert GameRecord.load(tmp_path / "game.json").actions == game.record.actions
    early = GameRecord.load(tmp_path / "early.json")
    assert len(early.actions) < len(game.record.actions) and early.actions == game.record.actions[:len(early.actions)]


def finished_record_file(path: Path) -> bytes:
    """A finished basic game saved at ``path``; its bytes."""
    record = GameRecord.new("basic", 2, seed=3, episode="hand")
    engine = record.start()
    while not engine.done[0]:
        record.play(engine, int(engine.legal_action_mask()[0].argmax()))
    record.save(path)
    return path.read_bytes()


def test_play_refuses_to_save_over_an_existing_record(tmp_path, monkeypatch, capsys):
    kept = finished_record_file(tmp_path / "exists.json")
    monkeypatch.setattr("sys.stdin", io.StringIO("q\n"))
    assert cli.main(["play", "--save", str(tmp_path / "exists.json")]) == 2
    err = capsys.readouterr().err
    assert "exists.json exists" in err and "rummy play --resume" in err and "Traceback" not in err
    assert (tmp_path / "exists.json").read_bytes() == kept
    # a resumed game may write its own file again, but not over another record
    game, _person, _out = new_game("basic", 2, "heuristic", tmp_path, person_kwargs={"bad": ["q"]})
    game.run()
    assert cli.main(["play", "--resume", str(tmp_path / "game.json"), "--save", str(tmp_path / "exists.json")]) == 2
    assert "exists.json exists and is not this game's record" in capsys.readouterr().err
    assert (tmp_path / "exists.json").read_bytes() == kept


def test_a_snapshot_and_the_last_save_do_not_write_over_other_files(tmp_path):
    kept = finished_record_file(tmp_path / "done.json")
    game, _person, out = new_game("basic", 2, "heuristic", tmp_path,
                                  person_kwargs={"bad": [f"s {tmp_path / 'done.json'}", "q"]})
    assert game.run() == 0
    assert f"{tmp_path / 'done.json'} exists and is not this game's record" in out.getvalue()
    assert (tmp_path / "done.json").read_bytes() == kept
    assert GameRecord.load(tmp_path / "game.json").actions == game.record.actions
    # at the end of a game without a save path, an existing name is refused and the question asked again
    answers = iter([str(tmp_path / "done.json"), str(tmp_path / "new.json")])
    record = GameRecord.new("basic", 2, seed=3, episode="hand")
    ended = tg.TerminalGame(record, 0, tg.make_bots({1: "heuristic"}, record.rules_object()), lambda _prompt: next(answers),
                            io.StringIO(), None)
    ended.offer_save()
    assert (tmp_path / "done.json").read_bytes() == kept and GameRecord.load(tmp_path / "new.json") == record


@pytest.mark.parametrize("argv, message", [
    (["play", "--opponents", "wizard"], "unknown agent spec 'wizard'"),
    (["play", "--opponents", "ppo:no/such/file.pt"], "no checkpoint at no/such/file.pt"),
    (["play", "--players", "3", "--opponents", "heuristic,random,greedy"], "names 3 agents for 2 opponent seats"),
    (["play", "--rules", "gin_royale"], "unknown ruleset 'gin_royale'"),
    (["play", "--players", "9"], "num_players=9 is impossible"),
    (["play", "--players", "0"], "num_players=0 is impossible"),
    (["play", "--set", "wild_twos=true"], "unknown rules knob"),
    (["play", "--seat", "5"], "--seat must be a seat 0..1"),
    (["play", "--resume", "missing.json"], "cannot read the record"),
    (["replay", "missing.json"], "cannot read the record"),
])
def test_bad_command_lines_get_a_message_not_a_traceback(argv, message, capsys):
    assert cli.main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_a_binary_file_given_as_a_record_is_named_in_the_message(tmp_path, capsys):
    garbage = tmp_path / "garbage.json"
    garbage.write_bytes(bytes(range(256)))
    assert cli.main(["replay", str(garbage)]) == 2
    err = capsys.readouterr().err
    assert f"{garbage} is not a game record: it is not UTF-8 text" in err and "Traceback" not in err


def test_a_damaged_checkpoint_gets_a_message(tmp_path, capsys):
    pytest.importorskip("torch")
    damaged = tmp_path / "policy.pt"
    damaged.write_bytes(b"not a checkpoint at all")
    assert cli.main(["play", "--opponents", f"ppo:{damaged}"]) == 2
    err = capsys.readouterr().err
    assert "policy.pt" in err and "Traceback" not in err


def test_a_record_of_other_rules_is_refused_on_resume(tmp_path, capsys):
    game, _person, _out = new_game("basic", 2, "heuristic", tmp_path, person_kwargs={"bad": ["q"]})
    game.run()
    assert cli.main(["play", "--resume", str(tmp_path / "game.json"), "--rules", "rami51"]) == 2
    assert "other rules: ruleset: record 'basic', asked 'rami51'" in capsys.readouterr().err


def test_text_replay_to_a_move(tmp_path, capsys):
    record = GameRecord.new("rami51", 2, seed=3, agents=["ann", "bob"])
    engine = record.start()
    rng = np.random.default_rng(0)
    for _ in range(30):
        record.play(engine, int(rng.choice(np.flatnonzero(engine.legal_action_mask()[0]))))
    path = record.save(tmp_path / "r.json")
    assert cli.main(["replay", str(path), "--to", "12"]) == 0
    out = capsys.readouterr().out
    assert "   12. " in out and "   13. " not in out and "after move 12:" in out
    expected = record.replay(to=12).snapshot(0)
    assert f"stock {len(expected['stock'])} cards" in out
    assert cli.main(["replay", str(path), "--to", "31"]) == 2
    assert "outside this record" in capsys.readouterr().err
    assert cli.main(["replay", str(path), "--observer", "1", "--quiet"]) == 0
    assert "bob [" in capsys.readouterr().out


def test_python_dash_m_and_the_console_script(tmp_path):
    run = subprocess.run([sys.executable, "-m", "rummy_env", "play", "--episode", "hand", "--seed", "3",
                          "--save", str(tmp_path / "g.json")], input="oops\n1\nq\n", capture_output=True, text=True,
                         timeout=300)
    assert run.returncode == 0, run.stderr
    assert "'oops' is not a move" in run.stdout and (tmp_path / "g.json").is_file()
    script = Path(sys.executable).parent / "rummy"
    from importlib.metadata import entry_points

    if not any(point.name == "rummy" for point in entry_points(group="console_scripts")):
        pytest.skip("rummy_env is not installed with its console script here (pip install -e .)")
    shown = subprocess.run([str(script), "replay", str(tmp_path / "g.json"), "--quiet"], capture_output=True, text=True,
                           timeout=300)
    assert shown.returncode == 0 and "after move" in shown.stdout
    assert subprocess.run([str(script), "--help"], capture_output=True, text=True).stdout.count("replay") >= 1


def test_arena_and_train_through_the_command(tmp_path, capsys):
    pytest.importorskip("openskill")
    out = tmp_path / "arena"
    assert cli.main(["arena", "--agents", "greedy", "random", "--games", "4", "--out", str(out)]) == 0
    assert (out / "report.md").is_file()
    pytest.importorskip("torch")
    config = tmp_path / "tiny.toml"
    config.write_text(Path("configs/ppo/basic_2p.toml").read_text().replace("num_envs = 1024", "num_envs = 8")
                      .replace("num_steps = 32", "num_steps = 4").replace("total_steps = 15_000_000", "total_steps = 64")
                      .replace("hidden_size = 128", "hidden_size = 8").replace("num_minibatches = 4", "num_minibatches = 1"))
    assert cli.main(["train", "--config", str(config), "--out", str(tmp_path / "run")]) == 0
    assert (tmp_path / "run" / "policy.pt").is_file()


def test_arena_takes_rules_knobs(tmp_path, capsys):
    pytest.importorskip("openskill")
    from rummy_env.records import GameRecord

    out = tmp_path / "arena"
    assert cli.main(["arena", "--rules", "basic", "--set", "going_rummy_multiplier=3", "--set", "ace_high_or_low=true",
                     "--agents", "greedy", "random", "--games", "2", "--out", str(out), "--records"]) == 0
    rules = GameRecord.load(next((out / "records").rglob("game_*.json"))).rules_object()
    assert rules.going_rummy_multiplier == 3 and rules.ace_high_or_low is True  # the defaults: 2 and false
    assert cli.main(["arena", "--set", "no_such_knob=1", "--agents", "greedy", "random", "--games", "2",
                     "--out", str(tmp_path / "bad")]) == 2
    assert "no_such_knob" in capsys.readouterr().err
    assert cli.main(["arena", "--set", "num_players=3", "--agents", "greedy", "random", "--games", "2",
                     "--out", str(tmp_path / "bad")]) == 2
    assert "--players" in capsys.readouterr().err
    assert cli.main(["arena", "league", "--set", "hand_size=10"]) == 2  # a status, as for rummy play, not SystemExit
    assert "--set" in capsys.readouterr().err
    pytest.importorskip("torch")  # train's optional packages come first
    assert cli.main(["train", "--no-such-option"]) == 2
    assert "--no-such-option" in capsys.readouterr().err


def test_train_off_a_terminal_reports_each_evaluation_and_where_everything_went(tmp_path):
    """Issue 30, 6: ``rummy train`` redirected to files printed nothing; now one line per evaluation (every
    ``REPORT_EVERY`` updates and at each checkpoint) and a last line naming the policy, checkpoint and logs."""
    pytest.importorskip("torch")
    config = tmp_path / "tiny.toml"
    config.write_text(Path("configs/ppo/basic_2p.toml").read_text().replace("num_envs = 1024", "num_envs = 8")
                      .replace("num_steps = 32", "num_steps = 4").replace("total_steps = 15_000_000", "total_steps = 384")
                      .replace("hidden_size = 128", "hidden_size = 8").replace("num_minibatches = 4", "num_minibatches = 1")
                      .replace("checkpoint_every = 25", "checkpoint_every = 4"))
    run = subprocess.run([sys.executable, "-m", "rummy_env", "train", "--config", str(config), "--out",
                          str(tmp_path / "run")], capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    progress = [line for line in lines if line.startswith("update ")]
    # 12 updates of 32 steps: lines after updates 4 (checkpoint), 5, 8 (checkpoint), 10 and 12 (checkpoint)
    assert [line.split(",")[0] for line in progress] == [f"update {n}" for n in (4, 5, 8, 10, 12)], lines
    assert "checkpoint_000004.pt written" in progress[0] and "win rate" in progress[0] and "steps/s" in progress[0]
    assert lines[-1].startswith("trained 384 steps") and str(tmp_path / "run" / "policy.pt") in lines[-1]
    assert str(tmp_path / "run" / "logs") in lines[-1] and (tmp_path / "run" / "policy.pt").is_file()


@pytest.mark.parametrize("command", ["play", "replay", "arena", "train", "bench"])
def test_help_is_short_and_says_where_the_guide_is(command):
    """Issue 30, 7: ``replay --help`` and ``train --help`` dumped about 40 lines of reST and doctest."""
    if command == "train":
        pytest.importorskip("torch")
    run = subprocess.run([sys.executable, "-m", "rummy_env", command, "--help"], capture_output=True, text=True,
                         timeout=300)
    assert run.returncode == 0, run.stderr
    after_usage = run.stdout.split("\n\n", 1)[1]
    description = after_usage.split("positional arguments:")[0].split("options:")[0]
    assert "``" not in run.stdout and ">>>" not in run.stdout and "**" not in run.stdout and "=====" not in run.stdout
    assert 2 <= len(description.strip().splitlines()) <= 16, description
    assert "python -m pydoc rummy_env." in run.stdout
