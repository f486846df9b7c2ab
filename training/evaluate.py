"""The arena's command line and reports: win rates with confidence intervals, league ratings, a
sweep over checkpoints, and the README's tables. The games themselves are played by
``rummy_env.training.arena`` (see it for what a game is, the seat rotation and the seeding).

Reported per pairing: wins of each side and draws (no winner, or both sides winning, e.g. a dead
hand or a shared game), the first agent's win rate ``wins / games`` with its 95% Wilson interval, and
the mean score difference per game in points, positive when the first agent did better (rami51
counts penalties, so its sign is flipped there). Ratings: openskill's Plackett-Luce model over all
games of the league, interleaved across pairings, with ``ordinal = mu - 3 sigma``. Time per move: the
processor seconds each agent spends per decision (one thread). ``--duplicate`` plays every deal twice, seats swapped
(``rummy_env.training.arena``); the README league always does. At 3 or more players the two agents alternate round
the table; ``--lineup alone`` seats the first agent alone against the second in every other seat (its fair share of
wins ``1/P``; duplicate deals are then played ``P`` times, the lone seat in each seat).

    rummy arena --rules basic --players 2 --agents heuristic random --games 2000 --seed 0 --out results/basic_2p
    rummy arena --agents heuristic heuristic --games 500           # an agent against itself
    rummy arena --rules rami51 --set opening_threshold=71 --agents heuristic random --games 200  # a knob changed
    rummy arena --agents ppo:runs/a/policy.pt ppo:runs/b/policy.pt heuristic --records results/records
    rummy arena --agents heuristic --checkpoints-dir runs/basic_2p --out results/curve
    rummy arena --agents pimc:worlds=256,belief=model heuristic --games 2000 --duplicate --seed 1
    rummy arena --rules rami51 --players 4 --agents ppo:rami51_4p heuristic --lineup alone --duplicate --games 2000
    rummy arena league --out results/      # results/league.md: basic 2p and 4p, rami51 2p, with the searchers
    rummy arena league --readme README.md  # the same, and the README's tables (make league: about an hour, see LEAGUE)
    rummy arena league --no-search         # baselines and PPO checkpoints only (minutes)

(``rummy arena`` is ``python -m rummy_env.training.evaluate``.) Agents with the same display name
are told apart (``ppo:a/policy`` and ``ppo:b/policy``; ``heuristic #1`` and ``heuristic #2``), an
``--out`` folder that already holds files is left alone (the run goes to a new ``--out``-2 folder,
and says so; ``--overwrite`` reuses it), and a checkpoint that cannot be loaded is reported and
skipped. A progress bar on stderr follows every pairing (none when stderr is not a terminal, or
with ``--quiet``).
"""

from __future__ import annotations

import argparse
import csv
import importlib.util
import re
import sys
from pathlib import Path
from typing import Any, Sequence

from rummy_env import assets
from rummy_env.agents.registry import agent_name, make_agent
from rummy_env.cli import build_rules, parse_knob
from rummy_env.inputs import seed_type
from rummy_env.rules import RummyRules, make_rules
from rummy_env.training import plots
from rummy_env.training.arena import (  # noqa: F401
    LINEUPS, MAX_ROWS, MatchResult, copies_words, deal_copies, game_seeds, match_result, play_league, play_match,
    rate_league, seat_patterns, wilson_interval)

# the README's leagues: ruleset, players, baselines (played round robin with the PPO checkpoint), and the
# searchers, each against the heuristic (games per pairing, None = --games): a searcher spends up to
# ``seconds`` CPU seconds per decision, so these counts keep the searchers' part near half an hour on one core
BASELINES = ("heuristic", "greedy", "random")
LEAGUE = (
    ("basic", 2, BASELINES, (("pimc:seconds=0.08,worlds=512,belief=model", 400),
                             ("ismcts:seconds=0.08,iterations=20000,belief=model", 100),
                             ("pimc-oracle:seconds=0.08,worlds=512", 100),
                             ("ismcts-oracle:seconds=0.08,iterations=20000", 100))),
    ("basic", 4, BASELINES, ()),
    ("rami51", 2, BASELINES, (("pimc:seconds=0.1,worlds=256,belief=model", 40),
                              ("ismcts:seconds=0.1,iterations=20000,belief=model", 40),
                              ("pimc-oracle:seconds=0.1,worlds=256", 40),
                              ("ismcts-oracle:seconds=0.1,iterations=20000", 40))),
)
SEARCH_OPPONENTS = ("heuristic",)


def episode_note(rules: RummyRules) -> str:
    """What one game of the table is, for its header."""
    if rules.episode == "hand":
        return "one game = one hand (`episode=\"hand\"`)"
    end = f"{rules.game_end_threshold} penalty points" if rules.is_penalty_scoring else f"{rules.target_score} points"
    return f"one game = a whole game to {end} (`episode=\"game\"`)"


def played_alone(results: Sequence[MatchResult]) -> bool:
    """Whether every pairing seated its first agent alone (never at 2 players: ``resolve_lineup``); such a league
    has no ratings, since a rating of two sides would count the lone seat's fair 1/P share as losing."""
    return all(result.lineup == "alone" for result in results)


def markdown_report(title: str, rules: RummyRules, results: Sequence[MatchResult], ratings: Sequence[dict]) -> str:
    """The pairings table and the ratings table in Markdown (no ratings for the ``"alone"`` lineup)."""
    better = "lower penalties" if rules.is_penalty_scoring else "more points"
    players = rules.num_players
    alone = played_alone(results)
    seating = ("seats rotated" if players == 2 else
               f"the agent alone in one seat against {players - 1} copies of its opponent, the lone seat rotated; a "
               f"fair share of wins is 1/{players} of the hands someone wins" if alone else
               "the two agents alternate round the table, seats rotated; a side wins when one of its seats does")
    counts = sorted({result.games for result in results})
    games = f"{counts[0]} games per pairing" if len(counts) == 1 else "games per pairing as listed"
    copied = ("each deal played once with the lone seat in each seat" if alone else
              "each deal played twice, seats swapped")
    deals = f" (duplicate deals: {copied})" if all(r.duplicate for r in results) else ""
    lines = [f"### {title}", "", f"{games}{deals}, {episode_note(rules)}; {seating}; "
             f"win rate = wins / games with its 95% Wilson interval; score difference in points per game "
             f"(positive: the first agent scored {better}); s / move: CPU seconds per decision of each agent "
             f"(one thread).", "",
             "| agent | opponent | games | W / D / L | win rate [95% CI] | score diff | s / move |",
             "| --- | --- | ---: | ---: | --- | ---: | ---: |"]
    for row in (result.summary() for result in results):
        lines.append(f"| {row['agent']} | {row['opponent']} | {row['games']} | {row['wins']} / {row['draws']} / "
                     f"{row['losses']} | {row['win_rate']:.1%} [{row['ci_low']:.1%}, {row['ci_high']:.1%}] | "
                     f"{row['score_diff']:+.1f} ± {row['score_diff_ci']:.1f} | "
                     f"{_seconds(row['agent_s_per_move'])} / {_seconds(row['opponent_s_per_move'])} |")
    if alone:
        lines += ["", f"No ratings: read the lone agent's win rate against its fair share, 1/{players}."]
        return "\n".join(lines) + "\n"
    lines += ["", "| rank | agent | mu | sigma | ordinal |", "| ---: | --- | ---: | ---: | ---: |"]
    lines += [f"| {i} | {r['agent']} | {r['mu']:.2f} | {r['sigma']:.2f} | {r['ordinal']:.2f} |"
              for i, r in enumerate(ratings, start=1)]
    return "\n".join(lines) + "\n"


def _seconds(value: float) -> str:
    return "–" if value != value else f"{value:.3f}" if value >= 0.001 else f"{value * 1e6:.0f} µs"


def write_csv(path: Path, rows: Sequence[dict[str, Any]]) -> None:
    """``rows`` (dicts with the same keys) as a CSV file."""
    with open(path, "w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)


def unique_names(specs: Sequence[str]) -> list[str]:
    """A display name per spec (``agent_name``), told apart where two would read the same: by the
    folders of their checkpoints (``ppo:a/policy``, ``ppo:b/policy``), else by number (``heuristic #2``)."""
    names = [agent_name(spec) for spec in specs]
    for depth in range(1, 4):
        clashing = {name for name in names if names.count(name) > 1}
        for i, spec in enumerate(specs):
            kind, _, path = spec.partition(":")
            if names[i] in clashing and path:
                parts = Path(path).with_suffix("").parts
                names[i] = f"{kind}:{'/'.join(parts[-depth - 1:])}"
    clashing = {name for name in names if names.count(name) > 1}
    seen: dict[str, int] = {}
    for i, name in enumerate(list(names)):
        if name in clashing:
            seen[name] = seen.get(name, 0) + 1
            names[i] = f"{name} #{seen[name]}"
    return names


def run_league(rules: RummyRules, specs: Sequence[str], games: int, seed: int, out: Path, title: str,
               records: Path | None = None, progress: bool = False, duplicate: bool = False,
               extra: Sequence[tuple[str, int | None]] = (), lineup: str = "alternate") -> str:
    """Play and rate the league of ``specs`` (two or more; the same spec twice plays itself), round robin in
    ``lineup`` (``LINEUPS``), and each ``extra`` spec against ``SEARCH_OPPONENTS`` (with its own number of
    games, or ``games``); write ``matches.csv``, ``ratings.csv`` (not for ``"alone"``) and ``report.md`` under
    ``out``; return the Markdown."""
    names = unique_names(list(specs) + [spec for spec, _ in extra])
    agents = {name: make_agent(spec, rules) for name, spec in zip(names, list(specs) + [spec for spec, _ in extra])}
    results = play_league(rules, {name: agents[name] for name in names[:len(specs)]}, games, seed, records=records,
                          progress=progress, duplicate=duplicate, lineup=lineup)
    for name, (spec, count) in zip(names[len(specs):], extra):
        for opponent in SEARCH_OPPONENTS:
            results += play_league(rules, {name: agents[name], opponent: agents[opponent]}, count or games, seed,
                                   records=records, progress=progress, duplicate=duplicate)
    ratings = [] if played_alone(results) else rate_league(results)
    report = markdown_report(title, rules, results, ratings)
    out.mkdir(parents=True, exist_ok=True)
    write_csv(out / "matches.csv", [result.summary() for result in results])
    if ratings:
        write_csv(out / "ratings.csv", ratings)
    else:  # an --overwrite'd folder keeps no ratings of an earlier run beside this report
        (out / "ratings.csv").unlink(missing_ok=True)
    (out / "report.md").write_text(report)
    return report


def checkpoint_steps(directory: Path) -> list[tuple[int, Path]]:
    """The checkpoints (``.pt`` or ``.zip``) in ``directory`` with a step count, sorted by it: the
    ``global_step`` a torch file of ``ppo_selfplay.py`` holds, else the last number of the file name
    (``sb3_200000_steps.zip``). Files with neither are left out, and of files with the same step
    only the first by name is kept (``policy.pt`` repeats the last checkpoint)."""
    found: dict[int, Path] = {}
    for path in sorted(directory.iterdir()):
        if path.suffix not in (".pt", ".zip"):
            continue
        step = _saved_step(path) if path.suffix == ".pt" else None
        numbers = re.findall(r"\d+", path.stem)
        if step is None and numbers:
            step = int(numbers[-1])
        if step is not None:
            found.setdefault(step, path)
    return sorted(found.items())


def _saved_step(path: Path) -> int | None:
    """The ``global_step`` stored in a torch checkpoint, if it is one that stores it."""
    import torch

    try:
        content = torch.load(path, map_location="cpu", weights_only=True)
    except Exception:  # not a torch file (or damaged): the name is all there is
        return None
    return int(content["global_step"]) if isinstance(content, dict) and "global_step" in content else None


def run_checkpoints(rules: RummyRules, directory: Path, opponent: str, games: int, seed: int, out: Path,
                    progress: bool = False, duplicate: bool = False,
                    lineup: str = "alternate") -> list[tuple[Path, str]]:
    """Win rate of every checkpoint in ``directory`` against ``opponent`` (``duplicate`` and ``lineup`` as
    ``play_match``'s): a CSV and a plot under ``out``. A checkpoint that cannot be loaded is reported and skipped;
    returns those skipped (path, reason)."""
    rows, skipped = [], []
    opponent_agent = make_agent(opponent, rules)
    for step, path in checkpoint_steps(directory):
        spec = f"{'ppo' if path.suffix == '.pt' else 'sb3'}:{path}"
        try:
            agent = make_agent(spec, rules)
        except Exception as error:  # any damage (torch, pickle, zip, a key, other rules): report, go on
            skipped.append((path, f"{type(error).__name__}: {error}"))
            print(f"skipped {path}: {type(error).__name__}: {error}", file=sys.stderr)
            continue
        result = play_match(rules, (agent, opponent_agent), (agent_name(spec), opponent), games, seed,
                            progress=progress, duplicate=duplicate, lineup=lineup)
        rows.append({"step": step, **result.summary()})
        print(f"step {step:>12,}: {rows[-1]['win_rate']:.1%} against {opponent}")
    if not rows:
        raise SystemExit(f"no usable checkpoint with a step count in {directory}"
                         + (f" ({len(skipped)} could not be loaded)" if skipped else ""))
    out.mkdir(parents=True, exist_ok=True)
    write_csv(out / "checkpoints.csv", rows)
    plots.win_rate_vs_steps(rows, out / "win_rate_vs_steps.png", f"win rate against {opponent}")
    if skipped:
        print(f"{len(skipped)} checkpoint(s) skipped: " + ", ".join(path.name for path, _ in skipped))
    return skipped


def fresh_folder(path: Path, overwrite: bool) -> Path:
    """``path`` if it does not exist or holds nothing (or ``overwrite``), else the first free
    ``path-2``, ``path-3`` …, said on stdout: a run never overwrites another run's files."""
    if overwrite or not path.exists() or (path.is_dir() and not any(path.iterdir())):
        return path
    number = 2
    while (candidate := path.with_name(f"{path.name}-{number}")).exists():
        number += 1
    print(f"note: {path} already holds files; this run writes to {candidate} instead (--overwrite reuses {path})")
    return candidate


README_START, README_END = "<!-- league:start -->", "<!-- league:end -->"


def league_readme(out: Path, games: int, seed: int, checkpoints: Path, readme: Path | None = None,
                  progress: bool = False, duplicate: bool = True, search: bool = True) -> None:
    """The README results: a league per ruleset of ``LEAGUE`` (baselines and the PPO checkpoint
    ``checkpoints/<ruleset>_<P>p.pt`` when present, round robin; the search agents against the heuristic and
    random play unless ``search`` is false) in ``out/league.md``; with ``readme``, also in place of what that
    file holds between ``README_START`` and ``README_END`` (checked first)."""
    if readme is not None:
        text = readme.read_text()
        if not 0 <= text.find(README_START) < text.find(README_END):
            raise SystemExit(f"{readme} has no {README_START} ... {README_END} block to replace")
    flags = ("" if duplicate else " --no-duplicate") + ("" if search else " --no-search")
    sections = [f"`python -m rummy_env.training.evaluate league --games {games} --seed {seed}{flags}`\n"]
    for ruleset, players, baselines, *searchers in LEAGUE:
        specs = list(baselines)
        checkpoint = checkpoints / f"{ruleset}_{players}p.pt"
        if checkpoint.is_file():
            specs.insert(0, f"ppo:{checkpoint}")
        else:
            print(f"note: {checkpoint} is missing; the {ruleset} {players}-player league is played without PPO")
        title = f"{ruleset}, {players} players"
        extra = tuple(searchers[0]) if searchers and search else ()
        sections.append(run_league(make_rules(ruleset, players), specs, games, seed, out / f"{ruleset}_{players}p", title,
                                   progress=progress, duplicate=duplicate, extra=extra))
        print(sections[-1])
    league = "\n".join(sections)
    (out / "league.md").write_text(league)
    print(f"wrote {out / 'league.md'}")
    if readme is not None:
        text = readme.read_text()
        start, end = text.find(README_START), text.find(README_END)
        readme.write_text(text[:start + len(README_START)] + "\n" + league + "\n" + text[end:])
        print(f"updated the league tables in {readme}")


def set_torch_threads(parser: argparse.ArgumentParser, threads: int | None) -> None:
    """A command line's ``--torch-threads``: torch's CPU threads for learned agents, None for torch's choice; below
    1 is the parser's error. Without torch installed there is nothing to set (no network can play)."""
    if threads is not None and threads < 1:
        parser.error(f"--torch-threads must be at least 1, got {threads}")
    if threads and importlib.util.find_spec("torch") is not None:
        import torch

        torch.set_num_threads(threads)


def main(argv: Sequence[str] | None = None) -> None:
    from rummy_env.cli import short_doc

    parser = argparse.ArgumentParser(prog="rummy arena", **short_doc("rummy_env.training.evaluate"))
    parser.add_argument("mode", nargs="?", choices=("match", "league"), default="match",
                        help="'match': the league of --agents under one ruleset; 'league': the README tables")
    parser.add_argument("--rules", default="basic", help="preset name or a rules TOML file")
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--episode", choices=("hand", "game"), default="hand", help="what one game of the arena is")
    parser.add_argument("--set", dest="knob", action="append", type=parse_knob, metavar="KNOB=VALUE",
                        help="match mode: a rules knob, e.g. --set ace_high_or_low=true (repeatable)")
    parser.add_argument("--agents", nargs="+", default=["heuristic", "random"],
                        help="two or more agent specs (agents/registry.py); the same spec twice plays itself")
    parser.add_argument("--games", type=int, default=2000, help="games per pairing (at least 1)")
    parser.add_argument("--seed", type=seed_type(), default=0)
    parser.add_argument("--out", type=Path, default=Path("results"),
                        help="where the reports go; a folder that holds files is left alone (a new OUT-2 is used)")
    parser.add_argument("--overwrite", action="store_true", help="write into --out even if it holds files")
    parser.add_argument("--records", nargs="?", const="", metavar="DIR",
                        help="write a game record per game (rummy replay) under DIR (default OUT/records)")
    parser.add_argument("--checkpoints-dir", type=Path, help="win rate vs steps of these checkpoints against --agents[0]")
    parser.add_argument("--checkpoints", type=Path, default=assets.folder("checkpoint"),
                        help="league mode: where the PPO checkpoints are (default: the shipped ones)")
    parser.add_argument("--log", type=Path, help="a CSV or TensorBoard log to plot as a learning curve")
    parser.add_argument("--log-tag", help="the logged value to plot (CSV column or TensorBoard tag)")
    parser.add_argument("--readme", type=Path, help=f"league mode: also replace the {README_START} block of this file")
    parser.add_argument("--torch-threads", type=int, help="torch's CPU threads for learned agents (default: torch's choice)")
    parser.add_argument("--quiet", action="store_true", help="no progress bars (there are none when stderr is not a terminal)")
    parser.add_argument("--duplicate", action="store_true",
                        help="match mode: every deal twice, seats swapped (even --games); with --lineup alone, once "
                             "with the lone seat in each seat (--games a multiple of --players)")
    parser.add_argument("--lineup", choices=LINEUPS, default="alternate",
                        help="match mode, 3 or more players: 'alternate' (A B A B round the table) or 'alone' (the "
                             "first agent of each pairing in one seat against the second in all the others, e.g. one "
                             "network against three heuristics)")
    parser.add_argument("--no-duplicate", action="store_true", help="league mode: one game per deal")
    parser.add_argument("--no-search", action="store_true", help="league mode: leave the search agents out")
    args = parser.parse_args(argv)
    if args.games < 1:
        parser.error(f"--games must be at least 1 (games per pairing), got {args.games}")
    copies = deal_copies(args.players, args.lineup) if args.mode == "match" else 2  # league mode: refused below
    if (args.duplicate or (args.mode == "league" and not args.no_duplicate)) and args.games % copies:
        parser.error(f"duplicate deals play every deal {copies_words(copies)}: --games must be a multiple of "
                     f"{copies}, got {args.games}")
    if args.mode == "match" and not args.checkpoints_dir and len(args.agents) < 2:
        parser.error(f"the arena needs two or more agents (--agents A B ...), got only {args.agents[0]!r}; to play an "
                     f"agent against itself, name it twice: --agents {args.agents[0]} {args.agents[0]}")
    if args.mode == "league":
        given = [option for option, value, default in (
            ("--set", args.knob, None), ("--rules", args.rules, "basic"), ("--players", args.players, 2),
            ("--episode", args.episode, "hand"), ("--agents", args.agents, ["heuristic", "random"]),
            ("--lineup", args.lineup, "alternate"),
            ("--records", args.records, None), ("--checkpoints-dir", args.checkpoints_dir, None)) if value != default]
        if given:
            parser.error(f"league mode plays the README's presets, agents and checkpoints as they are; {', '.join(given)} "
                         "apply to match mode only")
    elif args.readme:
        parser.error("--readme is for league mode (it replaces the README's league tables)")
    if args.checkpoints_dir and not args.checkpoints_dir.is_dir():
        parser.error(f"--checkpoints-dir {args.checkpoints_dir} is not a folder")
    set_torch_threads(parser, args.torch_threads)
    progress = not args.quiet
    if args.mode == "league":
        league_readme(fresh_folder(args.out, args.overwrite), args.games, args.seed, args.checkpoints, args.readme,
                      progress=progress, duplicate=not args.no_duplicate, search=not args.no_search)
        return
    rules = build_rules(args.rules, args.players, args.episode, args.knob or [])  # bad rules stop before any folder
    out = fresh_folder(args.out, args.overwrite)
    if args.log:
        path = plots.learning_curve(args.log, args.log_tag, out / "learning_curve.png")
        print(f"wrote {path}")
    if args.checkpoints_dir:
        run_checkpoints(rules, args.checkpoints_dir, args.agents[0], args.games, args.seed, out, progress=progress,
                        duplicate=args.duplicate, lineup=args.lineup)
        return
    records = None if args.records is None else fresh_folder(Path(args.records) if args.records else out / "records",
                                                              args.overwrite)
    title = f"{Path(args.rules).stem}, {rules.num_players} players" + "".join(f", {k}={v}" for k, v in args.knob or [])
    print(run_league(rules, args.agents, args.games, args.seed, out, title, records=records, progress=progress,
                     duplicate=args.duplicate, lineup=args.lineup))
    if records is not None:
        print(f"game records in {records} (rummy replay FILE, rummy replay FILE --html OUT.html)")


if __name__ == "__main__":
    from rummy_env.cli import guarded

    sys.exit(guarded("rummy arena", main))
