"""The arena's games: two agents over seeded games with seats rotated, their results, league ratings.

A **game** is one episode of the engine: one hand with the default ``episode="hand"`` (basic and
rami51 alike), a whole game with ``episode="game"``. Every pairing of two agents plays ``games``
games; in a game of ``P`` seats the two agents alternate round the table (A B A B …), and the seat
patterns are rotated and mirrored (``seat_patterns``, game ``g`` taking pattern ``g mod K``) so that
each agent sits in each seat equally often (exactly so when ``games`` is a multiple of ``K``: 2
patterns for 2, 4 or 6 players, 6 for 3, 10 for 5). Game ``g`` is dealt from its own seed
(``game_seeds``), the same in every pairing of the league, so that all pairings meet the same deals.
Rows of one batched engine play games back to back, and each agent acts, batched, on the rows where
one of its seats is to move. The same seed gives the same games and results.

**The lineup** (``lineup``): ``"alternate"`` as above, or ``"alone"``: the first agent in one seat against
the second in all the others (one network against three heuristics at 4 players; a fair share of wins is
``1 / P`` of the hands someone wins), the lone seat moved round the table game by game (``P`` patterns). At 2
players it is ``"alternate"`` (``resolve_lineup``).

**Duplicate deals** (``duplicate=True``): each seeded deal is played once per seating of its set
(``deal_copies``), so that the luck of the cards cancels and win rates need fewer games for the same
precision. ``"alternate"``: twice, the agents swapping seats (game ``2d`` and ``2d + 1`` share deal ``d``;
the second takes the first's seat pattern with the agents exchanged); ``"alone"``: ``P`` times, the lone seat in
each seat once. ``games`` must then be a multiple of the copies.

**Time per move**: the processor time (``time.process_time``: CPU seconds, whatever else the machine runs)
each agent spends in ``act`` divided by the decisions it made (rows it acted on), the engine on one thread;
a batched agent's time is shared by the rows of a call.

With ``records=DIR``, every game is also written as a game record (``rummy_env.records``,
``DIR/game_000001.json`` …) that ``rummy replay`` replays exactly.
"""

from __future__ import annotations

import dataclasses
import math
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from rummy_env.agents.base import act_on
from rummy_env.engine import RummyEngine
from rummy_env.records import GameRecord
from rummy_env.rules import RummyRules

MAX_ROWS = 512
LINEUPS = ("alternate", "alone")


def wilson_interval(successes: int, trials: int, z: float = 1.959964) -> tuple[float, float]:
    """The Wilson score interval of a binomial proportion (95% by default); ``(0, 1)`` for no trials."""
    if trials == 0:
        return 0.0, 1.0
    p = successes / trials
    centre = (p + z * z / (2 * trials)) / (1 + z * z / trials)
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / (1 + z * z / trials)
    # the bounds hold the proportion itself (rounding put 1.0 outside the interval of 4 wins in 4)
    return max(0.0, min(p, centre - half)), min(1.0, max(p, centre + half))


def resolve_lineup(players: int, lineup: str) -> str:
    """The lineup a match of ``players`` seats plays: ``lineup`` checked, and ``"alone"`` at 2 players is
    ``"alternate"`` (one seat each either way)."""
    if lineup not in LINEUPS:
        raise ValueError(f"unknown lineup {lineup!r}; the lineups are {', '.join(LINEUPS)}")
    return "alternate" if players == 2 else lineup


def seat_patterns(players: int, lineup: str = "alternate") -> np.ndarray:
    """``(K, players)`` int8: which of two agents (0 or 1) sits in each seat, for each of the ``K``
    patterns. ``"alternate"``: the agents alternate round the table, and the set is closed under rotation and
    under swapping the agents, so cycling through it gives every agent every seat equally often; ``"alone"``:
    the first agent in one seat, the ``P`` rotations in order, so it sits in every seat equally often."""
    if resolve_lineup(players, lineup) == "alone":
        return np.array([np.arange(players) != seat for seat in range(players)], dtype=np.int8)
    alternate = np.arange(players) % 2
    rotations = [np.roll(alternate, shift) for shift in range(players)]
    return np.unique(np.array(rotations + [1 - r for r in rotations], dtype=np.int8), axis=0)


def deal_copies(players: int, lineup: str = "alternate") -> int:
    """How many games a duplicate deal is played in: 2 (``"alternate"``: the agents swapped), or ``P``
    (``"alone"``: the lone seat in every seat)."""
    return players if resolve_lineup(players, lineup) == "alone" else 2


def game_seeds(seed: int, games: int) -> np.ndarray:
    """``(games,)`` uint64: the engine seed of each game (``RummyEngine.reset(row_seeds=...)``)."""
    return np.random.SeedSequence(seed).generate_state(games, dtype=np.uint64)


def progress_bar(total: int, description: str, show: bool):
    """A tqdm bar on stderr, or a silent stand-in when ``show`` is false or stderr is not a terminal."""
    from tqdm import tqdm

    return tqdm(total=total, desc=description, unit="game", file=sys.stderr, dynamic_ncols=True, leave=False,
                disable=not (show and sys.stderr.isatty()))


@dataclass(frozen=True)
class MatchResult:
    """The games of one pairing, indexed by game id: ``seats (G, P)`` which agent sat where,
    ``outcomes (G,)`` 1 / 0 / 0.5 when the first agent won / lost / drew, ``score_diffs (G,)``
    points of the first agent minus the second's (positive = better for the first)."""

    names: tuple[str, str]
    seats: np.ndarray
    outcomes: np.ndarray
    score_diffs: np.ndarray
    seconds: tuple[float, float] = (0.0, 0.0)   # time each agent spent in ``act``
    decisions: tuple[int, int] = (0, 0)         # decisions each agent made
    duplicate: bool = False
    lineup: str = "alternate"

    def time_per_move(self, agent: int) -> float:
        """Seconds per decision of the first (0) or second (1) agent (NaN if it made none)."""
        return self.seconds[agent] / self.decisions[agent] if self.decisions[agent] else float("nan")

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
                "ci_high": high, "score_diff": float(self.score_diffs.mean()), "score_diff_ci": spread,
                "agent_s_per_move": self.time_per_move(0), "opponent_s_per_move": self.time_per_move(1),
                "duplicate": self.duplicate, "lineup": self.lineup}


def copies_words(copies: int) -> str:
    """``"twice"`` or ``"4 times"``, for the messages about duplicate deals."""
    return "twice" if copies == 2 else f"{copies} times"


def match_seats(players: int, games: int, duplicate: bool, lineup: str = "alternate") -> np.ndarray:
    """``(games, players)``: which agent sits where in each game (module docstring)."""
    lineup = resolve_lineup(players, lineup)
    patterns = seat_patterns(players, lineup)
    if not duplicate or lineup == "alone":  # the lone seat's P rotations are a duplicate deal's P copies
        return patterns[np.arange(games) % len(patterns)]
    base = patterns[(np.arange(games) // 2) % len(patterns)]
    return np.where(np.arange(games)[:, None] % 2 == 0, base, 1 - base).astype(np.int8)


def match_deals(seed: int, games: int, duplicate: bool, copies: int = 2) -> np.ndarray:
    """``(games,)`` the engine seed of each game: one per game, or one per ``copies`` games (duplicate)."""
    if not duplicate:
        return game_seeds(seed, games)
    return np.repeat(game_seeds(seed, -(-games // copies)), copies)[:games]


def play_match(rules: RummyRules, agents: Sequence[Any], names: Sequence[str], games: int, seed: int,
               max_rows: int = MAX_ROWS, records: Path | None = None, progress: bool = False,
               duplicate: bool = False, lineup: str = "alternate") -> MatchResult:
    """Play ``games`` games between two agents (see the module docstring) and return them all;
    ``records``: a folder for one game record per game; ``progress``: a progress bar on stderr;
    ``duplicate``: every deal played ``deal_copies`` times (``games`` a multiple of it); ``lineup``: ``"alternate"``
    or ``"alone"`` (the first agent against the second in every other seat; ``resolve_lineup``)."""
    if games < 1:
        raise ValueError(f"a match needs at least one game, got games={games}")
    players = rules.num_players
    lineup = resolve_lineup(players, lineup)
    copies = deal_copies(players, lineup)
    if duplicate and games % copies:
        raise ValueError(f"duplicate deals play every deal {copies_words(copies)}: games must be a multiple of "
                         f"{copies}, got games={games}")
    seats = match_seats(players, games, duplicate, lineup)
    rows = min(games, max_rows)
    # one-thread kernels: the agents' Python dominates, and numba's thread pool fighting theirs on 2
    # cores made 2000 heuristic-random games take 34 s instead of 12 s
    engine = RummyEngine(rules, batch_size=rows, parallel=False)
    seeds = match_deals(seed, games, duplicate, copies)
    rngs = [np.random.default_rng([seed, slot]) for slot in range(2)]
    seconds, decisions = [0.0, 0.0], [0, 0]
    totals = np.zeros((games, players))
    winners = np.zeros((games, players), dtype=np.int8)
    game_of_row = np.arange(rows)  # the game each row is playing, -1 once the row is idle
    row_seeds = seeds[:rows].copy()
    engine.reset(row_seeds=row_seeds)
    next_game = rows
    logs: list[list[int]] | None = [[] for _ in range(rows)] if records is not None else None
    bar = progress_bar(games, f"{names[0]} vs {names[1]}", progress)
    while (game_of_row >= 0).any():
        playing = game_of_row >= 0
        masks, observations = engine.legal_action_mask(), engine.observe()
        actions = masks.argmax(axis=1).astype(np.int64)
        actors = np.full(rows, -1)
        actors[playing] = seats[game_of_row[playing], engine.current_player[playing]]
        for slot, agent in enumerate(agents):
            mine = actors == slot
            if mine.any():
                start = time.process_time()
                actions[mine] = act_on(agent, observations[mine], masks[mine], rngs[slot], engine.state[mine],
                                       engine.undo_copies[mine])
                seconds[slot] += time.process_time() - start
                decisions[slot] += int(mine.sum())
        engine.step(actions, rows=playing)
        if logs is not None:
            for row in np.flatnonzero(playing):
                logs[row].append(int(actions[row]))
        ended = np.flatnonzero(engine.done & playing)
        if ended.size == 0:
            continue
        finished = engine.state[ended]
        totals[game_of_row[ended]] = finished["totals"][:, :players]
        winners[game_of_row[ended]] = engine.episode_winners(finished)
        if logs is not None:
            for row in ended:
                _write_record(records, rules, int(game_of_row[row]), seeds, seats, names, logs[row], seed)
                logs[row] = []
        fresh = next_game + np.arange(ended.size)
        game_of_row[ended] = np.where(fresh < games, fresh, -1)
        next_game += ended.size
        restart = np.zeros(rows, dtype=np.bool_)
        restart[ended[fresh < games]] = True
        if restart.any():
            row_seeds[restart] = seeds[game_of_row[restart]]
            engine.reset(rows=restart, row_seeds=row_seeds)
        bar.update(ended.size)
    bar.close()
    result = match_result(rules, tuple(names), seats, totals, winners)
    return dataclasses.replace(result, seconds=tuple(seconds), decisions=tuple(decisions), duplicate=duplicate,
                               lineup=lineup)


def _write_record(folder: Path, rules: RummyRules, game: int, seeds: np.ndarray, seats: np.ndarray,
                  names: Sequence[str], actions: list[int], seed: int) -> None:
    record = GameRecord(rules.to_dict(), int(seeds[game]), list(actions),
                        agents=[str(names[agent]) for agent in seats[game]],
                        meta={"arena": f"{names[0]} vs {names[1]}", "game": game, "arena_seed": seed})
    record.save(folder / f"game_{game + 1:06d}.json")


def match_result(rules: RummyRules, names: tuple[str, str], seats: np.ndarray, totals: np.ndarray,
                 winners: np.ndarray) -> MatchResult:
    """Outcomes and score differences of finished games from their final totals and winners."""
    first, second = seats == 0, seats == 1
    won_first, won_second = (winners * first).any(axis=1), (winners * second).any(axis=1)
    outcomes = np.where(won_first == won_second, 0.5, won_first.astype(float))
    sign = -1.0 if rules.is_penalty_scoring else 1.0
    diffs = sign * ((totals * first).sum(axis=1) / first.sum(axis=1) - (totals * second).sum(axis=1) / second.sum(axis=1))
    return MatchResult(names, seats, outcomes, diffs)


def play_league(rules: RummyRules, agents: dict[str, Any], games: int, seed: int, records: Path | None = None,
                progress: bool = False, duplicate: bool = False,
                pairs: Sequence[tuple[str, str]] | None = None, lineup: str = "alternate") -> list[MatchResult]:
    """Every pair of ``agents`` (name -> agent; names must differ), or only ``pairs``, each over the same
    seeded deals; with ``records``, the records of pairing ``A vs B`` go to ``records/A_vs_B/``."""
    if len(agents) < 2:
        raise ValueError(f"a league needs at least two agents, got {list(agents)}")
    if pairs is None:
        pairs = [(a, b) for i, a in enumerate(agents) for b in list(agents)[i + 1:]]
    unknown = sorted({name for pair in pairs for name in pair} - set(agents))
    if unknown:
        raise ValueError(f"pairs name agents that are not in the league: {unknown}")
    results = []
    for first, second in pairs:
        folder = None if records is None else records / file_name(f"{first}_vs_{second}")
        results.append(play_match(rules, (agents[first], agents[second]), (first, second), games, seed,
                                  records=folder, progress=progress, duplicate=duplicate, lineup=lineup))
    return results


def file_name(text: str) -> str:
    """``text`` made safe as a file name (agent names hold ``:``, ``/``, ``#`` and spaces)."""
    return "".join(c if c.isalnum() or c in "-_." else "-" for c in text).strip("-")


def rate_league(results: Sequence[MatchResult]) -> list[dict[str, Any]]:
    """Plackett-Luce ratings from every game, the pairings' games interleaved (game 0 of each
    pairing, then game 1, …); rows sorted best first by ordinal."""
    from openskill.models import PlackettLuce

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
