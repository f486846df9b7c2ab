"""The frozen benchmark suite (``rummy_env.training.bench``, ``rummy bench``): its deals are the ones it was frozen
with, it refuses agents whose results would depend on the machine or that could see hidden cards, and its results
and leaderboard are what the arena measures."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import numpy as np
import pytest

from rummy_env.agents.pimc_agent import PIMCAgent
from rummy_env.cli import main as rummy
from rummy_env.training import bench
from rummy_env.training.arena import wilson_interval

ROOT = Path(__file__).resolve().parents[1]


class RecordReader:
    """An agent of someone else's that reads the game records directly (what the benchmark must refuse)."""

    needs_records = True

    def __init__(self, rules):
        self.rules = rules

    def act(self, observation, action_mask, rng, records=None, undo=None):
        return action_mask.argmax(axis=1)


class QuietPIMC(PIMCAgent):
    """A subclass of a package search: it may do anything with the records, so it is not let in."""


class FirstLegal:
    """A well-behaved agent of someone else's: the first legal action."""

    def __init__(self, rules):
        self.rules = rules

    def act(self, observation, action_mask, rng):
        return action_mask.argmax(axis=1)


def test_suite_v1_deals_are_the_frozen_ones():
    assert bench.suite_hash("v1") == bench.FROZEN["v1"]


def test_network_opponents_are_the_suites_frozen_copies(monkeypatch):
    """A suite's ``ppo:NAME`` opponent is its own copy of the network (checkpoints/suite_v1/), not the shipped file of
    that name, which may be retrained; a suite naming a network it has no copy of is refused, saying so."""
    network = bench.suite_network("v1", "ppo:rami51_2p")
    assert network.parent.name == "suite_v1"
    assert bench.file_checksum(network) != bench.file_checksum(bench.assets.checkpoint("rami51_2p"))  # retrained since
    assert bench.suite_network("v1", "heuristic") is None
    monkeypatch.setitem(bench.SUITES, "tiny", (bench.Case("rami51_2p", "rami51", 2, ("ppo:rami51_2p",), 2, 3),))
    with pytest.raises(FileNotFoundError, match="ppo:rami51_2p has no frozen network"):
        bench.suite_hash("tiny")


def test_a_changed_case_changes_the_hash(monkeypatch):
    case = bench.SUITES["v1"][0]
    changed = (dataclasses.replace(case, seed=case.seed + 1),) + bench.SUITES["v1"][1:]
    monkeypatch.setitem(bench.SUITES, "v1", changed)
    assert bench.suite_hash("v1") != bench.FROZEN["v1"]
    with pytest.raises(ValueError, match="changed"):
        bench.run_suite("v1", "random")


def test_changed_deals_alone_change_the_hash(monkeypatch):
    """The same cases dealt differently (one game's deal replaced) give another hash: the checksum reads the decks."""
    deals = bench.match_deals

    def one_deal_changed(seed, games, duplicate):
        seeds = deals(seed, games, duplicate).copy()
        seeds[-1] += 1
        return seeds

    monkeypatch.setattr(bench, "match_deals", one_deal_changed)
    assert bench.suite_hash("v1") != bench.FROZEN["v1"]


@pytest.mark.parametrize("spec, reason", [
    ("pimc:seconds=0.1", "seconds"), ("pimc:blueprint=ismcts:seconds=1", "seconds"), ("pimc-oracle", "oracle"),
    ("pimc:blueprint=pimc-oracle", "oracle"), ("py:tests.test_bench:RecordReader", "belief sampler"),
    ("py:tests.test_bench:QuietPIMC", "belief sampler"), ("py:tests.test_bench:Nothing", "cannot import"),
    ("py:nocolon", "py:MODULE:CLASS")])
def test_agents_that_could_see_hidden_cards_or_depend_on_the_machine_are_refused(spec, reason):
    with pytest.raises(ValueError, match=reason):
        bench.checked_agent(spec, bench.SUITES["v1"][0].rules())


def test_a_class_of_ones_own_and_the_packages_searches_may_enter():
    rules = bench.SUITES["v1"][0].rules()
    assert type(bench.checked_agent("py:tests.test_bench:FirstLegal", rules)).__name__ == "FirstLegal"
    assert bench.checked_agent("pimc:worlds=8", rules).needs_records


def tiny_suite(monkeypatch) -> None:
    cases = (bench.Case("basic_2p", "basic", 2, ("random",), 4, 7), bench.Case("gin", "gin", 2, ("heuristic",), 2, 8))
    monkeypatch.setitem(bench.SUITES, "tiny", cases)
    monkeypatch.setitem(bench.FROZEN, "tiny", bench.suite_hash("tiny"))


def test_results_and_leaderboard(monkeypatch, tmp_path):
    """A run reports every case and opponent with the arena's measures; two runs make a table, written into a file
    between its markers; a second run of the same agent gives the same results (fixed deals and seeds)."""
    tiny_suite(monkeypatch)
    first = bench.run_suite("tiny", "heuristic")
    again = bench.run_suite("tiny", "heuristic")
    assert [(row["case"], row["opponent"], row["games"]) for row in first["results"]] == [
        ("basic_2p", "random", 4), ("gin", "heuristic", 2)]
    assert [row["wins"] for row in first["results"]] == [row["wins"] for row in again["results"]]
    assert first["suite_hash"] == bench.FROZEN["tiny"] and first["package_version"]
    for row in first["results"]:
        assert 0 <= row["ci_low"] <= row["win_rate"] <= row["ci_high"] <= 1
        assert np.isfinite(row["agent_s_per_move"])
    files = []
    for name, result in (("a", first), ("b", bench.run_suite("tiny", "random", cases=["gin"]))):
        files.append(tmp_path / f"{name}.json")
        files[-1].write_text(json.dumps(result))
    readme = tmp_path / "README.md"
    readme.write_text("intro\n<!-- bench:tiny -->\nold table\n<!-- /bench:tiny -->\nend\n")
    table = bench.write_leaderboard([str(f) for f in files], str(readme))
    text = readme.read_text()
    assert "old table" not in text and table in text and text.startswith("intro") and text.endswith("end\n")
    assert "| `heuristic` |" in table and "basic_2p vs random" in table and "gin vs heuristic" in table
    assert [line for line in table.splitlines() if line.startswith("| `random` | - | ")]  # it entered gin only
    with pytest.raises(ValueError, match="not a choice"):
        bench.run_suite("tiny", "random", cases=["rami51_2p"])


def test_leaderboard_refuses_mixed_suites_and_missing_markers(monkeypatch, tmp_path):
    tiny_suite(monkeypatch)
    result = bench.run_suite("tiny", "random")
    other = dict(result, suite_hash="0" * 16)
    with pytest.raises(ValueError, match="different suites"):
        bench.leaderboard([result, other])
    (tmp_path / "r.json").write_text(json.dumps(result))
    (tmp_path / "README.md").write_text("no markers\n")
    with pytest.raises(ValueError, match="followed by a line"):
        bench.write_leaderboard([str(tmp_path / "r.json")], str(tmp_path / "README.md"))


def test_markers_must_be_whole_lines_in_order(monkeypatch, tmp_path):
    tiny_suite(monkeypatch)
    (tmp_path / "r.json").write_text(json.dumps(bench.run_suite("tiny", "random", cases=["gin"])))
    readme = tmp_path / "README.md"
    readme.write_text("<!-- /bench:tiny -->\nquoted `<!-- bench:tiny -->` in prose\n<!-- bench:tiny -->\n")
    with pytest.raises(ValueError, match="followed by a line"):
        bench.write_leaderboard([str(tmp_path / "r.json")], str(readme))
    assert readme.read_text().count("bench:tiny") == 3


def test_the_command_does_not_overwrite_results_and_refuses_with_status_2(tmp_path, capsys):
    out = tmp_path / "results.json"
    out.write_text("{}")
    with pytest.raises(SystemExit) as stop:
        bench.main(["--agent", "random", "--out", str(out)])
    assert stop.value.code == 2 and out.read_text() == "{}" and "does not overwrite" in capsys.readouterr().err
    assert rummy(["bench", "--agent", "pimc-oracle", "--cases", "basic_2p"]) == 2
    assert "rummy bench: error:" in capsys.readouterr().err


def test_the_readmes_leaderboard_is_the_committed_results_of_the_frozen_suite():
    files = sorted((ROOT / "benchmarks" / "suite_v1").glob("*.json"))
    results = [json.loads(path.read_text()) for path in files]
    assert len(results) >= 2 and all(result["suite_hash"] == bench.FROZEN["v1"] for result in results)
    assert bench.leaderboard(results) in (ROOT / "README.md").read_text()


def test_the_wilson_interval_holds_the_proportion_at_the_ends():
    assert wilson_interval(4, 4)[1] == 1.0 and wilson_interval(0, 4)[0] == 0.0
    low, high = wilson_interval(4, 4)
    assert low < 1.0 and high >= 4 / 4


def test_torch_threads_below_one_are_refused(capsys):
    with pytest.raises(SystemExit):
        bench.main(["--agent", "random", "--torch-threads", "0"])
    assert "--torch-threads must be at least 1, got 0" in capsys.readouterr().err


def test_a_network_candidate_is_named_by_its_file(monkeypatch):
    """Two networks shipped under one name stay apart: a ppo: candidate's results carry its file's sha256, and the
    leaderboard shows its first digits."""
    tiny_suite(monkeypatch)
    result = bench.run_suite("tiny", "ppo:basic_2p", cases=["basic_2p"])
    assert result["network_sha256"] == bench.file_checksum(bench.assets.checkpoint("basic_2p"))
    assert f"`ppo:basic_2p` (sha256 {result['network_sha256'][:8]})" in bench.leaderboard([result])
