"""``rummy bench``: a frozen benchmark suite, so that an agent's numbers mean the same on every machine and in every
paper: fixed deals, seats, rules and opponents; only the agent changes.

    rummy bench --suite v1 --agent heuristic --out results/heuristic.json
    rummy bench --suite v1 --agent py:my_package.bots:MyAgent --out results/mine.json
    rummy bench --suite v1 --agent ppo:basic_2p --cases basic_2p --out results/ppo_basic_2p.json
    rummy bench --leaderboard results/heuristic.json results/mine.json --readme README.md

**What a suite fixes.** Each case is a rules preset and a table size, played one hand per game (``episode =
"hand"``) against each of a fixed list of opponents, on fixed deals: every deal twice, the seats swapped
(duplicate), so luck of the deal cancels. ``suite_hash`` covers the cases, the decks of every deal in the order
played, the seats, and the bytes of the networks among the opponents; a suite refuses to run where that hash
differs from the one it was frozen with (an engine that deals differently, or a changed opponent, would give numbers
that do not compare). A suite's opponent ``ppo:NAME`` is its own copy of the network shipped as ``NAME`` when the
suite was frozen (``checkpoints/suite_v1/``), so a better shipped ``NAME`` enters the suite as a candidate and
leaves its opponent as it was. The opponents are the package's rule-based players, those networks and,
for gin, OpenSpiel's own gin bot (the ``train`` and ``openspiel`` extras); none of them searches, so no result
depends on the machine's speed or load.

**What it reports.** Per case and opponent: the candidate's hands won, with a 95% Wilson interval, its mean points
per hand over the opponent's (± 95%), and its CPU seconds per decision (networks on one torch thread unless
``--torch-threads`` says otherwise). The JSON results hold the package version, the suite's hash and, for a ``ppo:``
candidate, its file's sha256 (the leaderboard shows its first digits, so two networks shipped under one name stay
apart; the suite's own frozen network opponents are marked with the suite's name); ``--leaderboard`` builds a table
from any number of them (one suite hash) into the README between ``<!-- bench:v1 -->`` and ``<!-- /bench:v1 -->``.

**Who may enter.** Any agent spec of ``rummy_env.agents.registry`` (a baseline, ``ppo:PATH``, ``sb3:PATH``, a
search with its budget in worlds or iterations, ``py:MODULE:CLASS`` for a class of your own, built as
``CLASS(rules)``); an agent made for one ruleset enters its cases only (``--cases``). Refused: a search budget in
seconds (results would depend on the machine); an oracle, which sees the other hands; and an agent that asks for
the game records (``needs_records``) unless it is exactly one of the package's searches, which read them only
through the belief sampler (``rummy_env.beliefs``), with no oracle or seconds budget inside it (its blueprint
included). These checks read what an agent declares: they keep honest mistakes out of the table, they are not a
sandbox against code written to cheat.
"""

from __future__ import annotations

import argparse
import dataclasses
import hashlib
import json
import re
import sys
import time
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from rummy_env import RummyEngine, RummyRules, __version__, assets
from rummy_env.agents.registry import agent_name, make_agent
from rummy_env.training.arena import match_deals, match_seats, play_match
from rummy_env.training.evaluate import set_torch_threads

DEAL_FIELDS = ("hand", "stock", "stock_n", "pile", "pile_n", "dealer", "current")


@dataclasses.dataclass(frozen=True)
class Case:
    """One table of a suite: ``games`` hands against each opponent (even: each deal twice, seats swapped)."""

    name: str
    preset: str
    players: int
    opponents: tuple[str, ...]
    games: int
    seed: int

    def rules(self) -> RummyRules:
        return RummyRules.preset(self.preset, num_players=self.players, episode="hand")


SUITES = {"v1": (
    Case("basic_2p", "basic", 2, ("random", "heuristic", "ppo:basic_2p"), 400, 1001),
    Case("basic_4p", "basic", 4, ("heuristic", "ppo:basic_4p"), 200, 1002),
    Case("rami51_2p", "rami51", 2, ("random", "heuristic", "ppo:rami51_2p"), 200, 1003),
    Case("rami51_4p", "rami51", 4, ("heuristic",), 100, 1004),
    Case("gin", "gin_openspiel", 2, ("heuristic", "openspiel_bot"), 400, 1005),
)}
# the hash each suite was frozen with (``suite_hash``): its cases and the decks of all its deals
FROZEN = {"v1": "b026980f0db69daa"}


def deal_checksum(case: Case) -> str:
    """sha256 of what the case's games are dealt and where the agents sit, as ``play_match`` plays them: the hands,
    stock, pile, dealer and first player of each game's deal in game order, and the seats."""
    seeds = match_deals(case.seed, case.games, duplicate=True)
    engine = RummyEngine(case.rules(), len(seeds), parallel=False)
    engine.reset(row_seeds=seeds)
    digest = hashlib.sha256()
    for field in DEAL_FIELDS:
        digest.update(np.ascontiguousarray(engine.state[field]).tobytes())
    digest.update(match_seats(case.players, case.games, duplicate=True).tobytes())
    return digest.hexdigest()


def suite_network(suite: str, spec: str) -> Path | None:
    """The network an opponent spec ``ppo:NAME`` of ``suite`` names: the suite's own copy,
    ``checkpoints/suite_<suite>/NAME.pt``, frozen with it, so that retraining the shipped ``NAME`` leaves the suite
    as it was (never a file of that name in the current folder); None for the other opponents."""
    kind, _, name = spec.partition(":")
    if kind != "ppo":
        return None
    network = assets.folder("checkpoint") / f"suite_{suite}" / f"{name}.pt"
    if not network.is_file():
        raise FileNotFoundError(f"suite {suite}'s opponent {spec} has no frozen network (no {network})")
    return network


def opponent_checksum(suite: str, spec: str) -> str:
    """sha256 of the frozen network an opponent spec names; the spec itself for the others."""
    network = suite_network(suite, spec)
    return spec if network is None else file_checksum(network)


def file_checksum(path: Path) -> str:
    """sha256 of a file's bytes: which network an opponent or a candidate ``ppo:`` spec is."""
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def opponent_agent(suite: str, spec: str, rules: RummyRules):
    """The opponent of ``spec``, a ``ppo:NAME`` being the suite's frozen network (``suite_network``)."""
    network = suite_network(suite, spec)
    return make_agent(spec if network is None else f"ppo:{network}", rules)


def suite_hash(suite: str) -> str:
    """The hash of ``suite`` (16 hex digits): its cases as JSON, each case's deals and seats (``deal_checksum``),
    and the frozen networks among its opponents (``suite_network``)."""
    cases = suite_cases(suite)
    digest = hashlib.sha256(json.dumps([dataclasses.asdict(case) for case in cases], sort_keys=True).encode())
    for case in cases:
        digest.update(deal_checksum(case).encode())
        for opponent in case.opponents:
            digest.update(opponent_checksum(suite, opponent).encode())
    return digest.hexdigest()[:16]


def suite_cases(suite: str) -> tuple[Case, ...]:
    """The cases of ``suite`` (a ``ValueError`` naming the suites if there is none of that name)."""
    if suite not in SUITES:
        raise ValueError(f"unknown suite {suite!r}; the suites are {', '.join(SUITES)}")
    return SUITES[suite]


def checked_agent(spec: str, rules: RummyRules):
    """The candidate agent of ``spec`` for ``rules``, refused (``ValueError``, saying why) where its results would
    depend on the machine (a search budget in seconds) or where it could read what its seat cannot see (module
    docstring); the agent's blueprint, if it has one, is checked the same way."""
    agent = make_agent(spec, rules)
    inner = agent
    while inner is not None:
        if getattr(inner, "seconds", None) is not None:
            raise ValueError(f"agent {spec!r}: a search budget in seconds depends on the machine and its load; give "
                             "the benchmark a budget in worlds or iterations")
        if getattr(inner, "oracle", False):
            raise ValueError(f"agent {spec!r} is or holds an oracle: it sees the other hands, which the benchmark "
                             "refuses")
        if getattr(inner, "needs_records", False) and type(inner) not in belief_searches():
            raise ValueError(f"agent {spec!r} asks for the game records (needs_records) and is not one of the "
                             "package's searches, which read them only through the belief sampler; the benchmark "
                             "refuses it. Play from the observation alone")
        inner = getattr(inner, "blueprint", None)
    return agent


def belief_searches() -> tuple[type, ...]:
    """The package's searches, which read the game records only through the belief sampler (``rummy_env.beliefs``):
    exactly these classes, not their subclasses."""
    from rummy_env.agents.ismcts_agent import ISMCTSAgent
    from rummy_env.agents.pimc_agent import PIMCAgent

    classes: tuple[type, ...] = (PIMCAgent, ISMCTSAgent)
    try:
        from rummy_env.agents.openspiel_ismcts import OpenSpielISMCTSAgent
    except ModuleNotFoundError:  # no openspiel extra: no such agent can have been made
        return classes
    return classes + (OpenSpielISMCTSAgent,)


def run_suite(suite: str, spec: str, cases: Sequence[str] | None = None, progress: bool = False) -> dict[str, Any]:
    """Play ``spec`` through every opponent of the ``cases`` of ``suite`` (all by default: an agent made for one
    ruleset enters only its cases); the results as a JSON-ready dict."""
    known = [case.name for case in suite_cases(suite)]
    chosen = known if cases is None else [name.strip() for name in cases]
    if not chosen or any(name not in known for name in chosen) or len(set(chosen)) < len(chosen):
        raise ValueError(f"cases {chosen} are not a choice of suite {suite}'s cases: {', '.join(known)}")
    frozen = FROZEN[suite]
    actual = suite_hash(suite)
    if actual != frozen:
        raise ValueError(f"suite {suite}'s deals, seats, cases or opponents changed (hash {actual}, frozen as "
                         f"{frozen}): its results would not compare with published ones")
    entered = [case for case in suite_cases(suite) if case.name in chosen]
    for case in entered:  # every case's agent is checked before the first game
        checked_agent(spec, case.rules())
    started, rows = time.perf_counter(), []
    for case in entered:
        rules = case.rules()
        for opponent in case.opponents:  # a fresh agent per match: no match depends on the one before
            names = (agent_name(spec), opponent)
            agents = (checked_agent(spec, rules), opponent_agent(suite, opponent, rules))
            result = play_match(rules, agents, names, case.games, case.seed, progress=progress, duplicate=True)
            row = {"case": case.name, **result.summary()}
            rows.append(row)
            if progress:
                print(f"{case.name} vs {opponent}: {row['win_rate']:.1%} [{row['ci_low']:.1%}, {row['ci_high']:.1%}], "
                      f"{row['score_diff']:+.1f} points per hand, {row['agent_s_per_move'] * 1e3:.2f} ms per move",
                      file=sys.stderr, flush=True)
    kind, _, path = spec.partition(":")
    candidate = {"network_sha256": file_checksum(assets.find("checkpoint", path))} if kind == "ppo" else {}
    return {"suite": suite, "suite_hash": actual, "agent": spec, **candidate, "cases": [case.name for case in entered],
            "package_version": __version__, "seconds": round(time.perf_counter() - started, 1), "results": rows}


def leaderboard(results: Sequence[dict[str, Any]]) -> str:
    """A markdown table of results of one suite, in the order given: a row per agent, a column per case and
    opponent (hands won and the interval; "-" where the agent did not enter the case), and the CPU milliseconds per
    decision, the mean over the agent's matches."""
    hashes = {(result["suite"], result["suite_hash"]) for result in results}
    if len(hashes) != 1:
        raise ValueError(f"results of different suites or suite versions cannot share a table: {sorted(hashes)}")
    suite, found = hashes.pop()
    if found != FROZEN.get(suite):
        raise ValueError(f"these results are of suite {suite} with hash {found}, not the frozen {FROZEN.get(suite)}")
    columns = [(case.name, opponent) for case in suite_cases(results[0]["suite"]) for opponent in case.opponents]
    head = "| agent | " + " | ".join(f"{case} vs {opponent}" + (f" ({suite})" if suite_network(suite, opponent) else "")
                                      for case, opponent in columns) + " | ms / move |"
    lines = [head, "| --- |" + " ---: |" * (len(columns) + 1)]
    for result in results:
        cells = {(row["case"], row["opponent"]): row for row in result["results"]}
        text = [f"{cells[c]['win_rate']:.1%} [{cells[c]['ci_low']:.0%}, {cells[c]['ci_high']:.0%}]" if c in cells
                else "-" for c in columns]
        ms = np.mean([row["agent_s_per_move"] for row in result["results"]]) * 1e3
        network = f" (sha256 {result['network_sha256'][:8]})" if "network_sha256" in result else ""
        lines.append(f"| `{result['agent']}`{network} | " + " | ".join(text) + f" | {ms:.2f} |")
    return "\n".join(lines)


def write_leaderboard(files: Sequence[str], readme: str | None) -> str:
    """The table of ``files``' results, written into ``readme`` between the suite's markers (which must be there)."""
    results = [json.loads(Path(name).read_text(encoding="utf-8")) for name in files]
    suite = results[0]["suite"]
    table = leaderboard(results)
    if readme:
        begin, end = f"<!-- bench:{suite} -->", f"<!-- /bench:{suite} -->"
        text = Path(readme).read_text(encoding="utf-8")
        found = re.search(f"^{re.escape(begin)}$(.*?)^{re.escape(end)}$", text, flags=re.M | re.S)
        if found is None:
            raise ValueError(f"{readme} has no line {begin} followed by a line {end} to write the table between")
        Path(readme).write_text(f"{text[:found.start(1)]}\n{table}\n{text[found.end(1):]}", encoding="utf-8")
    return table


def main(argv: Sequence[str] | None = None) -> None:
    """``rummy bench``'s command line (module docstring)."""
    from rummy_env.cli import short_doc

    parser = argparse.ArgumentParser(prog="rummy bench", **short_doc("rummy_env.training.bench"))
    parser.add_argument("--suite", default="v1", choices=sorted(SUITES), help="the suite (default v1)")
    parser.add_argument("--agent", help="the agent spec to benchmark (rummy_env.agents.registry; py:MODULE:CLASS)")
    parser.add_argument("--cases", help="comma-separated cases to enter (default all; an agent made for one ruleset "
                                        "enters its own)")
    parser.add_argument("--out", help="where the JSON results go (an existing file is not overwritten)")
    parser.add_argument("--leaderboard", nargs="+", metavar="RESULTS.json", help="print the table of these results")
    parser.add_argument("--readme", help="with --leaderboard: write the table into this file between its markers")
    parser.add_argument("--hash", action="store_true", help="print the suite's hash (its cases and deals) and exit")
    parser.add_argument("--torch-threads", type=int, default=1,
                        help="torch's CPU threads for networks (default 1: the CPU time per decision is one thread's, "
                             "and torch's own choice crawls beside a busy process)")
    args = parser.parse_args(argv)
    if args.hash:
        print(suite_hash(args.suite))
        return
    if args.leaderboard:
        print(write_leaderboard(args.leaderboard, args.readme))
        return
    if not args.agent:
        parser.error("give --agent SPEC (or --leaderboard RESULTS.json ..., or --hash)")
    if args.cases is not None and not args.cases.strip():
        parser.error("--cases is empty: name the cases to enter, or leave it out for all")
    out = Path(args.out) if args.out else None
    if out is not None and out.exists():
        parser.error(f"{out} exists: the benchmark does not overwrite results; give another --out")
    set_torch_threads(parser, args.torch_threads)
    results = run_suite(args.suite, args.agent, args.cases.split(",") if args.cases else None, progress=True)
    text = json.dumps(results, indent=1) + "\n"
    if out is None:
        print(text, end="")
        return
    out.parent.mkdir(parents=True, exist_ok=True)
    with out.open("x", encoding="utf-8") as file:  # a file made meanwhile is not overwritten either
        file.write(text)
    print(f"results in {out}", file=sys.stderr)


if __name__ == "__main__":
    from rummy_env.cli import guarded

    sys.exit(guarded("rummy bench", main))
