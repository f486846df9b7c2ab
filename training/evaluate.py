"""The arena: seeded games between agents, win rates with confidence intervals, and league ratings.

A **game** here is one episode of ``RummyVectorEnv``: one hand with the default ``episode="hand"``
(basic and rami51 alike), a whole game to 150 (basic) or 1000 penalty points (rami51) with
``--episode game``. Every pairing of two agents plays ``--games`` games; in a game of ``P`` seats the
two agents alternate round the table (A B A B …), and the seat patterns are rotated and mirrored
(``seat_patterns``, game ``g`` taking pattern ``g mod K``) so that each agent sits in each seat equally
often (exactly so when ``--games`` is a multiple of ``K``: 2 patterns for 2, 4 or 6 players, 6 for 3,
10 for 5). Rows of the vector env play games back to back, and each agent acts, batched, on the rows
where one of its seats is to move.

Reported per pairing: wins of each side and draws (no winner, or both sides winning, e.g. a dead
hand or a shared game), the first agent's win rate ``wins / games`` with its 95% Wilson interval, and
the mean score difference per game in points, positive when the first agent did better (rami51
counts penalties, so its sign is flipped there). Ratings: openskill's Plackett-Luce model over all
games of the league, interleaved across pairings, with ``ordinal = mu - 3 sigma``.

The same seed gives the same games and results.

    python -m rummy_env.training.evaluate --rules basic --players 2 --agents heuristic random --games 2000 --seed 0 --out results/basic_2p
    python -m rummy_env.training.evaluate --rules basic --agents heuristic --checkpoints-dir runs/basic_2p/checkpoints --out results/curve
    python -m rummy_env.training.evaluate league --out results/      # results/league.md: basic 2p and 4p, rami51 2p
    python -m rummy_env.training.evaluate league --readme README.md  # the same, and the README's tables (make league)
"""

from __future__ import annotations

import argparse
import csv
import itertools
import math
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

import numpy as np
from openskill.models import PlackettLuce

from rummy_env.agents.registry import agent_name, make_agent
from rummy_env.rules import make_rules
from rummy_env.envs.vector import RummyVectorEnv
from rummy_env.rules import RummyRules
from rummy_env.training import plots

# the README's leagues: ruleset, players, baselines
LEAGUE = (("basic", 2, ("heuristic", "greedy", "random")), ("basic", 4, ("heuristic", "greedy", "random")),
          ("rami51", 2, ("heuristic", "greedy", "random")))
MAX_ROWS = 512


def wilson_interval(successes: int, trials: int, z: float = 1.959964) -> tuple[float, float]:
    """The Wilson score interval of a binomial proportion (95% by default); ``(0, 1)`` for no trials."""
    if trials == 0:
        return 0.0, 1.0
    p = successes / trials
    centre = (p + z * z / (2 * trials)) / (1 + z * z / trials)
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / (1 + z * z / trials)
    return max(0.0, centre - half), min(1.0, centre + half)


def seat_patterns(players: int) -> np.ndarray:
    """``(K, players)`` int8: which of two agents (0 or 1) sits in each seat, for each of the ``K``
    patterns; the agents alternate round the table, and the set is closed under rotation and under
    swapping the agents, so cycling through it gives every agent every seat equally often."""
    alternate = np.arange(players) % 2
    rotations = [np.roll(alternate, shift) for shift in range(players)]
    return np.unique(np.array(rotations + [1 - r for r in rotations], dtype=np.int8), axis=0)


@dataclass(frozen=True)
class MatchResult:
    """The games of one pairing, indexed by game id: ``seats (G, P)`` which agent sat where,
    ``outcomes (G,)`` 1 / 0 / 0.5 when the first agent won / lost / drew, ``score_diffs (G,)``
    points of the first agent minus the second's (positive = better for the first)."""

    names: tuple[str, str]
    seats: np.ndarray
    outcomes: np.ndarray
    score_diffs: np.ndarray

    @property
    def games(self) -> int:
        return len(self.outcomes)

    @property
    def wins(self) -> int:
        return int((self.outcomes == 1).sum())

    @property
    def losses(self) -> int:
        return int((self.outcomes == 0).sum())

    @property
    def draws(self) -> int:
        return self.games - self.wins - self.losses

    @property
    def win_rate(self) -> float:
        return self.wins / self.games

    def summary(self) -> dict[str, Any]:
        """One row of the report: counts, win rate and interval, mean score difference (± 95%)."""
        low, high = wilson_interval(self.wins, self.games)
        spread = 1.96 * self.score_diffs.std(ddof=1) / math.sqrt(self.games) if self.games > 1 else float("nan")
        return {"agent": self.names[0], "opponent": self.names[1], "games": self.games, "wins": self.wins,
                "draws": self.draws, "losses": self.losses, "win_rate": self.win_rate, "ci_low": low,
                "ci_high": high, "score_diff": float(self.score_diffs.mean()), "score_diff_ci": spread}


def play_match(rules: RummyRules, agents: Sequence[Any], names: Sequence[str], games: int, seed: int,
               max_rows: int = MAX_ROWS) -> MatchResult:
    """Play ``games`` games between two agents (see the module docstring) and return them all."""
    patterns = seat_patterns(rules.num_players)
    rows = min(games, max_rows)
    # one-thread kernels: the agents' Python dominates, and numba's thread pool fighting theirs on 2
    # cores made 2000 heuristic-random games take 34 s instead of 12 s
    env = RummyVectorEnv(rows, rules=rules, num_players=rules.num_players, seed=seed, parallel=False)
    rngs = [np.random.default_rng([seed, slot]) for slot in range(2)]
    seats = patterns[np.arange(games) % len(patterns)]
    totals = np.zeros((games, rules.num_players))
    winners = np.zeros((games, rules.num_players), dtype=np.int8)
    game_of_row = np.arange(rows)  # the game each row is playing, -1 once the row is idle
    next_game = rows
    observation, infos = env.reset()
    while (game_of_row >= 0).any():
        masks = observation["action_mask"]
        actions = masks.argmax(axis=1).astype(np.int64)  # idle rows: any legal move, unrecorded
        playing = game_of_row >= 0
        actors = np.full(rows, -1)
        actors[playing] = seats[game_of_row[playing], infos["current_player"][playing]]
        for slot, agent in enumerate(agents):
            mine = actors == slot
            if mine.any():
                actions[mine] = agent.act(observation["observation"][mine], masks[mine], rngs[slot])
        observation, _rewards, _terminations, _truncations, infos = env.step(actions)
        ended = np.flatnonzero(infos["_final"] & playing)
        totals[game_of_row[ended]] = infos["final_totals"][ended]
        winners[game_of_row[ended]] = infos["final_winners"][ended]
        fresh = next_game + np.arange(ended.size)
        game_of_row[ended] = np.where(fresh < games, fresh, -1)
        next_game += ended.size
    return _result(rules, tuple(names), seats, totals, winners)


def _result(rules: RummyRules, names: tuple[str, str], seats: np.ndarray, totals: np.ndarray,
            winners: np.ndarray) -> MatchResult:
    first, second = seats == 0, seats == 1
    won_first, won_second = (winners * first).any(axis=1), (winners * second).any(axis=1)
    outcomes = np.where(won_first == won_second, 0.5, won_first.astype(float))
    sign = -1.0 if rules.is_penalty_scoring else 1.0
    diffs = sign * ((totals * first).sum(axis=1) / first.sum(axis=1) - (totals * second).sum(axis=1) / second.sum(axis=1))
    return MatchResult(names, seats, outcomes, diffs)


def play_league(rules: RummyRules, agents: dict[str, Any], games: int, seed: int) -> list[MatchResult]:
    """Every pair of ``agents`` (name -> agent), each over the same seeded deals."""
    return [play_match(rules, (agents[a], agents[b]), (a, b), games, seed) for a, b in itertools.combinations(agents, 2)]


def rate_league(results: Sequence[MatchResult]) -> list[dict[str, Any]]:
    """Plackett-Luce ratings from every game, the pairings' games interleaved (game 0 of each
    pairing, then game 1, …); rows sorted best first by ordinal."""
    model = PlackettLuce()
    ratings: dict[str, Any] = {}
    for result in results:
        for name in result.names:
            ratings.setdefault(name, model.rating(name=name))
    for game in range(max(result.games for result in results)):
        for result in results:
            if game < result.games:
                outcome = result.outcomes[game]
                ranks = [0, 0] if outcome == 0.5 else [1 - outcome, outcome]
                first, second = result.names
                [[ratings[first]], [ratings[second]]] = model.rate([[ratings[first]], [ratings[second]]], ranks=ranks)
    rows = [{"agent": name, "mu": r.mu, "sigma": r.sigma, "ordinal": r.ordinal()} for name, r in ratings.items()]
    return sorted(rows, key=lambda row: -row["ordinal"])


def episode_note(rules: RummyRules) -> str:
    """What one game of the table is, for its header."""
    if rules.episode == "hand":
        return "one game = one hand (an episode of `RummyVectorEnv`, `episode=\"hand\"`)"
    end = f"{rules.game_end_threshold} penalty points" if rules.is_penalty_scoring else f"{rules.target_score} points"
    return f"one game = a whole game to {end} (`episode=\"game\"`)"


def markdown_report(title: str, rules: RummyRules, results: Sequence[MatchResult], ratings: Sequence[dict]) -> str:
    """The pairings table and the ratings table in Markdown."""
    better = "lower penalties" if rules.is_penalty_scoring else "more points"
    seating = ("seats rotated" if rules.num_players == 2 else
               "the two agents alternate round the table, seats rotated; a side wins when one of its seats does")
    lines = [f"### {title}", "", f"{results[0].games} games per pairing, {episode_note(rules)}; {seating}; "
             f"win rate = wins / games with its 95% Wilson interval; score difference in points per game "
             f"(positive: the first agent scored {better}).", "",
             "| agent | opponent | games | W / D / L | win rate [95% CI] | score diff |",
             "| --- | --- | ---: | ---: | --- | ---: |"]
    for row in (result.summary() for result in results):
        lines.append(f"| {row['agent']} | {row['opponent']} | {row['games']} | {row['wins']} / {row['draws']} / "
                     f"{row['losses']} | {row['win_rate']:.1%} [{row['ci_low']:.1%}, {row['ci_high']:.1%}] | "
                     f"{row['score_diff']:+.1f} ± {row['score_diff_ci']:.1f} |")
    lines += ["", "| rank | agent | mu | sigma | ordinal |", "| ---: | --- | ---: | ---: | ---: |"]
    lines += [f"| {i} | {r['agent']} | {r['mu']:.2f} | {r['sigma']:.2f} | {r['ordinal']:.2f} |"
              for i, r in enumerate(ratings, start=1)]
    return "\n".join(lines) + "\n"


def write_csv(path: Path, rows: Sequence[dict[str, Any]]) -> None:
    """``rows`` (dicts with the same keys) as a CSV file."""
    with open(path, "w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)


def run_league(rules: RummyRules, specs: Sequence[str], games: int, seed: int, out: Path, title: str) -> str:
    """Play and rate the league of ``specs``; write ``matches.csv``, ``ratings.csv`` and
    ``report.md`` under ``out``; return the Markdown."""
    agents = {agent_name(spec): make_agent(spec, rules) for spec in specs}
    results = play_league(rules, agents, games, seed)
    ratings = rate_league(results)
    report = markdown_report(title, rules, results, ratings)
    out.mkdir(parents=True, exist_ok=True)
    write_csv(out / "matches.csv", [result.summary() for result in results])
    write_csv(out / "ratings.csv", ratings)
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


def run_checkpoints(rules: RummyRules, directory: Path, opponent: str, games: int, seed: int, out: Path) -> None:
    """Win rate of every checkpoint in ``directory`` against ``opponent``: a CSV and a plot under ``out``."""
    rows = []
    for step, path in checkpoint_steps(directory):
        spec = f"{'ppo' if path.suffix == '.pt' else 'sb3'}:{path}"
        result = play_match(rules, (make_agent(spec, rules), make_agent(opponent, rules)),
                            (agent_name(spec), opponent), games, seed)
        rows.append({"step": step, **result.summary()})
        print(f"step {step:>12,}: {rows[-1]['win_rate']:.1%} against {opponent}")
    if not rows:
        raise SystemExit(f"no checkpoint with a step count in its name in {directory}")
    out.mkdir(parents=True, exist_ok=True)
    write_csv(out / "checkpoints.csv", rows)
    plots.win_rate_vs_steps(rows, out / "win_rate_vs_steps.png", f"win rate against {opponent}")


README_START, README_END = "<!-- league:start -->", "<!-- league:end -->"


def league_readme(out: Path, games: int, seed: int, checkpoints: Path, readme: Path | None = None) -> None:
    """The README results: a league per ruleset of ``LEAGUE`` (baselines and the PPO checkpoint
    ``checkpoints/<ruleset>_<P>p.pt`` when present) in ``out/league.md``; with ``readme``, also in
    place of what that file holds between ``README_START`` and ``README_END``."""
    sections = [f"`python -m rummy_env.training.evaluate league --games {games} --seed {seed}`\n"]
    for ruleset, players, baselines in LEAGUE:
        specs = list(baselines)
        checkpoint = checkpoints / f"{ruleset}_{players}p.pt"
        if checkpoint.is_file():
            specs.insert(0, f"ppo:{checkpoint}")
        else:
            print(f"note: {checkpoint} is missing; the {ruleset} {players}-player league is played without PPO")
        title = f"{ruleset}, {players} players"
        sections.append(run_league(make_rules(ruleset, players), specs, games, seed, out / f"{ruleset}_{players}p", title))
        print(sections[-1])
    league = "\n".join(sections)
    (out / "league.md").write_text(league)
    print(f"wrote {out / 'league.md'}")
    if readme is not None:
        text = readme.read_text()
        start, end = text.find(README_START), text.find(README_END)
        if start < 0 or end < start:
            raise SystemExit(f"{readme} has no {README_START} ... {README_END} block to replace")
        readme.write_text(text[:start + len(README_START)] + "\n" + league + "\n" + text[end:])
        print(f"updated the league tables in {readme}")


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("mode", nargs="?", choices=("match", "league"), default="match",
                        help="'match': the league of --agents under one ruleset; 'league': the README tables")
    parser.add_argument("--rules", default="basic", help="preset name or a rules TOML file")
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--episode", choices=("hand", "game"), default="hand", help="what one game of the arena is")
    parser.add_argument("--agents", nargs="+", default=["heuristic", "random"], help="agent specs (agents/registry.py)")
    parser.add_argument("--games", type=int, default=2000, help="games per pairing")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=Path("results"))
    parser.add_argument("--checkpoints-dir", type=Path, help="win rate vs steps of these checkpoints against --agents[0]")
    parser.add_argument("--checkpoints", type=Path, default=Path("checkpoints"), help="league mode: where the PPO checkpoints are")
    parser.add_argument("--log", type=Path, help="a CSV or TensorBoard log to plot as a learning curve")
    parser.add_argument("--log-tag", help="the logged value to plot (CSV column or TensorBoard tag)")
    parser.add_argument("--readme", type=Path, help=f"league mode: also replace the {README_START} block of this file")
    parser.add_argument("--torch-threads", type=int, help="torch's CPU threads for learned agents (default: torch's choice)")
    args = parser.parse_args(argv)
    if args.torch_threads:
        import torch

        torch.set_num_threads(args.torch_threads)
    if args.mode == "league":
        league_readme(args.out, args.games, args.seed, args.checkpoints, args.readme)
        return
    if args.rules.endswith(".toml"):
        rules = RummyRules.from_toml(args.rules, num_players=args.players, episode=args.episode)
    else:
        rules = make_rules(args.rules, args.players, episode=args.episode)
    if args.log:
        path = plots.learning_curve(args.log, args.log_tag, args.out / "learning_curve.png")
        print(f"wrote {path}")
    if args.checkpoints_dir:
        run_checkpoints(rules, args.checkpoints_dir, args.agents[0], args.games, args.seed, args.out)
    elif len(args.agents) >= 2:
        print(run_league(rules, args.agents, args.games, args.seed, args.out,
                         f"{Path(args.rules).stem}, {rules.num_players} players"))


if __name__ == "__main__":
    main()
