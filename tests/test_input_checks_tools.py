"""Bad input to the tools around the engine (the second newcomer trial of the 7th stop): game records, the
command line, agent specs and search options, the single-agent env, belief sampling. Each case was accepted
quietly, or failed with a traceback or a misleading message, before.
"""

from __future__ import annotations

import io
import json
import subprocess
import sys

import numpy as np
import pytest

from rummy_env import RummyEngine, RummyGymEnv, RummyRules, cli
from rummy_env.agents.registry import make_agent
from rummy_env.beliefs import sample_worlds
from rummy_env.records import GameRecord, RecordError
from rummy_env.rules import make_rules
from rummy_env.sampling import uniform_legal_actions


def finished_record(seed: int = 0):
    record = GameRecord.new("basic", seed=seed, max_turns_per_round=4)
    engine = record.start()
    rng = np.random.default_rng(seed)
    while not engine.done[0]:
        record.play(engine, int(uniform_legal_actions(engine.legal_action_mask(), rng)[0]))
    return record, engine


def test_a_record_takes_no_move_after_the_end_nor_on_an_engine_of_other_rules():
    record, engine = finished_record()
    moves = len(record.actions)
    with pytest.raises(RecordError, match="the game is over"):
        record.play(engine, 0)
    other = RummyEngine(RummyRules.preset("basic", ace_high_or_low=True), 1)
    other.reset(seed=0)
    with pytest.raises(RecordError, match="other rules .*ace_high_or_low"):
        record.play(other, 0)
    assert len(record.actions) == moves


def edited(record: GameRecord, tmp_path, change) -> str:
    values = record.to_dict()
    change(values)
    path = tmp_path / "edited.json"
    path.write_text(json.dumps(values))
    return str(path)


@pytest.mark.parametrize("change, message", [
    (lambda v: v["rules"].pop("ruleset"), "'ruleset' is required"),
    (lambda v: v.update(agents=["a"]), "agents must be a list of names, one per seat"),
    (lambda v: v.update(rummy_env_version="abc"), "is not a version"),
    (lambda v: v["actions"].__setitem__(3, 99999), "move 4 of the record .* outside"),
    (lambda v: v.update(deck=[card + 0.5 for card in range(52)]), "deck is not a list of cards.*0.5"),
], ids=["no ruleset", "agents", "version", "action", "float deck"])
def test_edited_records_are_refused_by_load_and_by_rummy_replay(tmp_path, capsys, change, message):
    record, _ = finished_record()
    path = edited(record, tmp_path, change)
    with pytest.raises(RecordError, match=message):
        GameRecord.load(path)
    assert cli.main(["replay", path]) == 2
    assert "Traceback" not in capsys.readouterr().err


def test_replay_checks_rules_given_by_name():
    record, _ = finished_record()
    with pytest.raises(RecordError, match="ruleset: record 'basic', asked 'rami51'"):
        record.replay(rules="rami51")
    record.replay(rules=make_rules("basic", max_turns_per_round=4))


def test_rummy_play_refuses_what_it_would_ignore(tmp_path, capsys, monkeypatch):
    saved = tmp_path / "game.json"
    monkeypatch.setattr("sys.stdin", io.StringIO("q\n"))  # quit at once: the game is saved
    cli.main(["play", "--save", str(saved), "--seed", "5"])
    assert saved.is_file()
    capsys.readouterr()
    for argv, message in ((["--resume", str(saved), "--seat", "1"], "--seat 1: the saved game has 0"),
                          (["--resume", str(saved), "--seed", "9"], "--seed 9: the saved game has 5"),
                          (["--opponents", ",heuristic"], "empty spec"),
                          (["--seed", "-1"], "argument --seed: a seed is an integer 0..")):
        assert cli.main(["play", *argv]) == 2
        assert message in capsys.readouterr().err


@pytest.mark.parametrize("argv", [["arena", "--agents", "random", "random", "--seed", "-1"],
                                  ["train", "--seed", "-1"], ["train", "--seed", str(2**63)]])
def test_a_bad_seed_is_blamed_on_the_option(argv, capsys):
    if argv[0] == "train":
        pytest.importorskip("torch")
    assert cli.main(argv) == 2  # argparse's status, returned as for rummy play
    assert "argument --seed: a seed is an integer 0.." in capsys.readouterr().err  # not the config file


def test_the_arena_league_refuses_match_options_and_finds_the_shipped_checkpoints(capsys):
    for argv in (["league", "--rules", "rami51"], ["league", "--agents", "greedy", "random"], ["--readme", "x.md"]):
        assert cli.main(["arena", *argv]) == 2
        assert "usage: rummy arena" in capsys.readouterr().err
    from rummy_env import assets

    assert (assets.folder("checkpoint") / "basic_2p.pt").is_file()  # the league's default, wherever it runs


@pytest.mark.parametrize("spec, message", [
    ("pimc:z=nan", "z .* finite"), ("ismcts:exploration=inf", "exploration must be a finite"),
    ("pimc:worlds=4,worlds=8", "given twice"), ("ppo:", "needs a checkpoint"), ("lookahead", "GinLookaheadAgent"),
])
def test_agent_specs_are_checked(spec, message):
    with pytest.raises(ValueError, match=message):
        make_agent(spec, make_rules("basic"))


def test_a_file_that_is_not_a_checkpoint_is_named_as_such(tmp_path):
    path = tmp_path / "rules.pt"
    path.write_text('ruleset = "basic"\n')
    with pytest.raises(ValueError, match="not a readable checkpoint: torch.load failed .* written by rummy train"):
        make_agent(f"ppo:{path}", make_rules("basic"))


def test_the_single_agent_env_refuses_a_step_after_the_end_and_checks_callable_opponents():
    env = RummyGymEnv(max_turns_per_round=4)
    env.reset(seed=0)
    done = False
    while not done:
        _, _, terminated, truncated, _ = env.step(int(np.flatnonzero(env.action_masks())[0]))
        done = terminated or truncated
    with pytest.raises(RuntimeError, match="episode is over"):
        env.step(0)
    for opponent, message in ((lambda obs, mask: np.zeros(len(mask) + 1, np.int64), "one action per row"),
                              (lambda obs, mask: np.zeros(len(mask)) + 0.5, "integer action ids")):
        env = RummyGymEnv(opponent=opponent, learner_seat=1)
        with pytest.raises(ValueError, match=message):
            env.reset(seed=0)


@pytest.mark.parametrize("arguments, message", [({"seat": 1.7}, "seat must be an integer"),
                                                ({"seat": True}, "seat must be an integer"),
                                                ({"seed": 1.5}, "seed must be an integer"),
                                                ({"seed": None}, "seed must be an integer")])
def test_sample_worlds_checks_its_arguments(arguments, message):
    rules = make_rules("basic")
    engine = RummyEngine(rules, 1)
    engine.reset(seed=0)
    values = {"seat": 0, "n": 2, "seed": 0} | arguments
    with pytest.raises(ValueError, match=message):
        sample_worlds(rules, engine.state[0], values["seat"], values["n"], values["seed"])


def test_shipped_rules_files_are_named_like_presets():
    assert make_rules("basic_ace_high").ace_high_or_low is True
    with pytest.raises(ValueError, match="shipped rules files"):
        make_rules("no_such_rules")


@pytest.mark.parametrize("module, argv, message", [
    ("rummy_env.training.evaluate", ["--rules", "nosuchrules"], "rummy arena: error: "),
    ("rummy_env.training.evaluate", ["--agents", "heuristic", "nosuchagent"], "rummy arena: error: "),
    ("rummy_env.training.train_sb3", ["--rules", "nosuchrules"], "python -m rummy_env.training.train_sb3: error: "),
])
def test_python_m_commands_answer_bad_input_like_rummy(module, argv, message, capsys, monkeypatch):
    """The ``python -m`` forms the docs show beside ``rummy arena``/``rummy train``: one line and status 2."""
    import runpy
    import sys
    import warnings

    if module.endswith("train_sb3"):
        pytest.importorskip("sb3_contrib")
    monkeypatch.setattr(sys, "argv", [module, *argv])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # runpy: the module was imported before, by the package
        with pytest.raises(SystemExit) as stop:
            runpy.run_module(module, run_name="__main__", alter_sys=True)
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_guarded_turns_a_returned_object_into_success_and_names_the_extra(capsys):
    """A command's body may return what it trained (``train_sb3``: the model, ``train_rllib``: summaries)."""
    from rummy_env.extras import needs_extra

    assert cli.guarded("x", lambda: [{"reward": 1.0}]) == 0 and cli.guarded("x", lambda: object()) == 0
    assert cli.guarded("x", lambda: 3) == 3 and cli.guarded("x", lambda: True) == 0

    def missing():
        with needs_extra("openspiel", "openspiel_bot"):
            raise ModuleNotFoundError("No module named 'pyspiel'", name="pyspiel")

    def bare():
        raise ModuleNotFoundError("No module named 'torch'", name="torch")

    assert cli.guarded("x", missing) == 2 and 'pip install "rummy_env[openspiel]"' in capsys.readouterr().err
    assert cli.guarded("x", bare) == 2 and 'pip install "rummy_env[train]"' in capsys.readouterr().err


@pytest.mark.parametrize("module, command, blocked", [
    ("ppo_selfplay", "rummy train", "torch"),
    ("distill", "python -m rummy_env.training.distill", "torch"),
    ("train_rllib", "python -m rummy_env.training.train_rllib", "ray"),
])
def test_a_training_module_run_without_its_extra_says_so_in_one_line(module, command, blocked):
    """``python -m rummy_env.training.MODULE`` imports its extra before ``cli.guarded`` runs: without it, the
    command still answers one line naming the extra, and status 2, as ``rummy train`` does."""
    code = (f"import runpy, sys; sys.modules[{blocked!r}] = None; "  # the import fails as if not installed
            f"runpy.run_module('rummy_env.training.{module}', run_name='__main__')")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert done.returncode == 2, done.stderr
    assert done.stderr.startswith(f"{command}: error: ") and done.stderr.count("\n") == 1, done.stderr
    assert f"needs {blocked}" in done.stderr and "pip install" in done.stderr


@pytest.mark.parametrize("seed, ok", [("4294967295", True), ("4294967296", False)])
def test_train_sb3_takes_the_seeds_numpy_takes(seed, ok, capsys, monkeypatch):
    pytest.importorskip("sb3_contrib")
    from rummy_env.training import train_sb3

    monkeypatch.setattr("sys.argv", ["train_sb3", "--seed", seed])
    if ok:
        assert train_sb3.parse_args().seed == int(seed)
    else:
        with pytest.raises(SystemExit):
            train_sb3.parse_args()
        assert "argument --seed" in capsys.readouterr().err
