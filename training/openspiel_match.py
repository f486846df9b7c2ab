"""Any agent of this package against OpenSpiel's simple gin bot, played on OpenSpiel's own ``gin_rummy`` (G13).

Our agent plays through ``AgentBot`` (``rummy_env.agents.openspiel_gin_bot``): at each of its decisions the
OpenSpiel state is mirrored into this package's gin (``gin_openspiel`` rules), the agent answers from its own
observation (a search agent from the belief sampler over its record), and the action goes back to OpenSpiel,
which checks it. OpenSpiel's bot (``pyspiel.make_simple_gin_rummy_bot``, a fresh one per hand) acts on the
OpenSpiel state itself. **Deals are mirrored**: every deck order (a seeded shuffle; OpenSpiel's chance nodes
are answered from it, the deal and then every stock draw) is played twice, the agent as player 0 once and as
player 1 once, so both sides hold the same cards and draw the same stock.

    python -m rummy_env.training.openspiel_match --agent lookahead --deals 500 --seed 0
    python -m rummy_env.training.openspiel_match --agent pimc:worlds=64,blueprint=lookahead --deals 500
    python -m rummy_env.training.openspiel_match --agent ppo:gin_2p --deals 1000 --torch-threads 1 --out gin.json

A hand is won by the side OpenSpiel credits with more points (``state.returns()``); a hand nobody scores (the
wall) is drawn. Reported: the win rate over hands with its 95% Wilson interval, the mean points per hand of
the agent less the bot's with its standard error (the hands taken as independent: conservative, since the two
hands of a deck order are negatively correlated), and the agent's CPU seconds per decision (``AgentBot.step``,
the mirror included). ``--out`` writes the same as JSON and refuses to replace a file.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from rummy_env.extras import needs_extra
from rummy_env.inputs import seed_type

COMMAND = "python -m rummy_env.training.openspiel_match"

with needs_extra("openspiel", "rummy_env.training.openspiel_match", COMMAND if __name__ == "__main__" else None):
    import pyspiel

from rummy_env.agents.openspiel_gin_bot import AgentBot  # noqa: E402
from rummy_env.training.arena import wilson_interval  # noqa: E402
from rummy_env.training.evaluate import set_torch_threads  # noqa: E402


@dataclass
class MatchResult:
    agent: str
    hands: int
    wins: int
    draws: int
    losses: int
    points: list[float]  # the agent's points less the bot's, per hand
    decisions: int
    seconds: float  # the agent's CPU time

    def summary(self) -> dict:
        low, high = wilson_interval(self.wins, self.hands)
        diff = np.asarray(self.points, dtype=float)
        spread = float(diff.std(ddof=1) / math.sqrt(len(diff))) if len(diff) > 1 else float("nan")
        return {"agent": self.agent, "opponent": "openspiel simple gin bot", "game": "gin_rummy (OpenSpiel)",
                "hands": self.hands, "wins": self.wins, "draws": self.draws, "losses": self.losses,
                "win_rate": self.wins / max(self.hands, 1), "win_rate_ci95": [low, high],
                "points_per_hand": float(diff.mean()) if len(diff) else float("nan"), "points_se": spread,
                "agent_s_per_move": self.seconds / max(self.decisions, 1)}


def play_hand(game, ours: AgentBot, seat: int, deck: np.ndarray) -> tuple[np.ndarray, int, float]:
    """One hand of OpenSpiel's ``game``, ``ours`` in ``seat``, chance answered from ``deck`` in order:
    ``(returns, our decisions, our CPU seconds)``."""
    bot = pyspiel.make_simple_gin_rummy_bot(game.get_parameters(), 1 - seat)
    state, dealt, decisions, seconds = game.new_initial_state(), 0, 0, 0.0
    while not state.is_terminal():
        if state.is_chance_node():
            card = int(deck[dealt])
            if card not in {outcome for outcome, _ in state.chance_outcomes()}:
                raise RuntimeError(f"OpenSpiel's chance node does not offer the deck's next card {card}: {state}")
            state.apply_action(card)
            dealt += 1
        elif state.current_player() == seat:
            started = time.process_time()
            action = ours.step(state)
            seconds += time.process_time() - started
            decisions += 1
            state.apply_action_with_legality_check(action)
        else:
            state.apply_action_with_legality_check(bot.step(state))
    return np.asarray(state.returns()), decisions, seconds


def match(agent: str, deals: int, seed: int = 0, progress: bool = False) -> MatchResult:
    """``agent`` (an agent spec) against OpenSpiel's bot over ``deals`` mirrored deals (``2 * deals`` hands)."""
    if deals < 1:
        raise ValueError(f"deals must be at least 1, got {deals}")
    game = pyspiel.load_game("gin_rummy")
    ours = AgentBot(agent, seed=seed)
    rng = np.random.default_rng(seed)
    result = MatchResult(agent, 0, 0, 0, 0, [], 0, 0.0)
    for deal in range(deals):
        deck = rng.permutation(52)
        for seat in (0, 1):
            returns, decisions, seconds = play_hand(game, ours, seat, deck)
            mine, theirs = returns[seat], returns[1 - seat]
            result.hands += 1
            result.wins += int(mine > theirs)
            result.draws += int(mine == theirs)
            result.losses += int(mine < theirs)
            result.points.append(float(mine - theirs))
            result.decisions += decisions
            result.seconds += seconds
        if progress and (deal + 1) % 50 == 0:
            print(f"{deal + 1} deals: {result.wins / result.hands:.3f}", file=sys.stderr, flush=True)
    return result


def row(summary: dict) -> str:
    low, high = summary["win_rate_ci95"]
    return (f"| {summary['agent']} | {summary['hands']} | {summary['wins']} / {summary['draws']} / {summary['losses']} "
            f"| {summary['win_rate']:.1%} [{low:.1%}, {high:.1%}] | {summary['points_per_hand']:+.2f} ± "
            f"{summary['points_se']:.2f} | {summary['agent_s_per_move']:.4f} |")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog=COMMAND, description=__doc__.split("\n\n")[0])
    parser.add_argument("--agent", required=True, help="agent spec (agents/registry.py), for gin_openspiel's rules")
    parser.add_argument("--deals", type=int, default=500, help="deck orders, each played twice (seats swapped)")
    parser.add_argument("--seed", type=seed_type(), default=0)
    parser.add_argument("--out", help="a JSON file for the summary (refused if it exists)")
    parser.add_argument("--quiet", action="store_true", help="no progress lines on stderr")
    parser.add_argument("--torch-threads", type=int, help="torch's CPU threads for learned agents (default: torch's "
                        "choice; CPU time per move counts every thread)")
    args = parser.parse_args(argv)
    if args.deals < 1:
        parser.error(f"--deals must be at least 1, got {args.deals}")
    set_torch_threads(parser, args.torch_threads)
    if args.out and Path(args.out).exists():
        parser.error(f"--out {args.out} already exists; choose another file (results are never overwritten)")
    summary = match(args.agent, args.deals, args.seed, progress=not args.quiet).summary()
    print("| agent vs OpenSpiel's simple gin bot | hands | W / D / L | win rate [95% CI] | points per hand "
          "| s / move |")
    print("| --- | ---: | ---: | --- | ---: | ---: |")
    print(row(summary))
    if args.out:
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        with open(args.out, "x") as handle:
            json.dump(summary | {"seed": args.seed, "deals": args.deals}, handle, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
