"""Random legal play over many rounds, with invariants checked at every step; reports how rounds end.

For each step of a batch of games (one episode = one round, ``episode="hand"``), every row is checked:

* card conservation: hands + table melds + stock + discard pile hold exactly the deck (108 cards
  in rami51: each natural twice and 4 jokers; 52 in basic);
* hand sizes match the hands, and the mask offers at least one action in every unfinished row;
* when a round ends: the winner's hand is empty (an out), every hand score is >= 0, a dead round
  has no winner.

It prints the violations (expected: 0), rounds per end (normal out, all at once, all at once with a
joker as final discard, dead rounds by cause) and the throughput.

Usage: ``python benchmarks/random_play_invariants.py [--ruleset rami51] [--players 2] [--rounds 100000]
[--batch 4096] [--seed 0]``
"""

from __future__ import annotations

import argparse
import collections
import sys
import time

import numpy as np

import rummy_env
from rummy_env import cards
from rummy_env.engine.state import END_NAMES, END_OUT
from rummy_env.sampling import pick_legal_parallel


def deck_counts(rules: rummy_env.RummyRules) -> np.ndarray:
    counts = np.full(rules.num_card_types, rules.deck_copies, dtype=np.int64)
    if rules.num_jokers:
        counts[cards.JOKER] = rules.num_jokers
    return counts


def pile_counts(cards_array: np.ndarray, sizes: np.ndarray, types: int) -> np.ndarray:
    """``(B, T)`` counts of the first ``sizes[i]`` cards of each row."""
    batch, width = cards_array.shape
    valid = np.arange(width)[None, :] < sizes[:, None]
    flat = (np.arange(batch)[:, None] * types + cards_array.astype(np.int64))[valid]
    return np.bincount(flat, minlength=batch * types).reshape(batch, types)


def conservation_violations(engine: rummy_env.RummyEngine, expected: np.ndarray) -> np.ndarray:
    state, types = engine.state, engine.rules.num_card_types
    held = state["hand"].sum(axis=1, dtype=np.int64) + state["slot_cards"].sum(axis=1, dtype=np.int64)
    held += pile_counts(state["stock"], state["stock_n"], types) + pile_counts(state["pile"], state["pile_n"], types)
    bad = (held != expected[None, :]).any(axis=1)
    players = engine.rules.num_players
    sizes = state["hand"][:, :players].sum(axis=2, dtype=np.int64)
    return bad | (sizes != state["hand_n"][:, :players]).any(axis=1)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--ruleset", default="rami51")
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=100_000)
    parser.add_argument("--batch", type=int, default=4096)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)

    rules = rummy_env.RummyRules.preset(args.ruleset, num_players=args.players, episode="hand")
    engine = rummy_env.RummyEngine(rules, batch_size=args.batch)
    engine.reset(seed=args.seed)
    expected = deck_counts(rules)
    generator = np.random.default_rng(args.seed)
    actions = np.zeros(args.batch, dtype=np.int64)
    violations: collections.Counter[str] = collections.Counter()
    ends: collections.Counter[str] = collections.Counter()
    rounds = steps = gave_up = 0
    start = time.perf_counter()
    while rounds < args.rounds:
        mask = engine.legal_action_mask()
        engine.observe()
        open_rows = ~engine.done
        violations["empty mask"] += int((open_rows & (mask.sum(axis=1) == 0)).sum())
        pick_legal_parallel(mask, generator.random(args.batch), actions)
        engine.step(actions)
        steps += int(open_rows.sum())
        violations["card conservation"] += int(conservation_violations(engine, expected).sum())
        done = engine.done
        if done.any():
            finished = engine.state[done]
            for record in finished[: max(0, args.rounds - rounds)]:
                ends[end_label(record)] += 1
                gave_up += int(record["search_gave_up"]) if "search_gave_up" in record.dtype.names else 0
                violations["scores"] += int((record["hand_scores"] < 0).any())
                if record["end_reason"] == END_OUT:
                    violations["winner holds cards"] += int(record["hand_n"][record["winner"]] != 0)
                else:
                    violations["dead round with a winner"] += int(record["winner"] >= 0)
            rounds += int(done.sum())
            engine.reset(rows=done.copy())
    seconds = time.perf_counter() - start
    total = sum(ends.values())
    print(f"{args.ruleset}, {args.players} players: {total:,} rounds of random legal play, {steps:,} steps in "
          f"{seconds:,.0f} s ({steps / seconds:,.0f} steps/s incl. the checks), batch {args.batch}")
    print(f"invariant violations: {sum(violations.values())} {dict(violations)}")
    print(f"no-dead-end searches that gave up (action masked out, see rami.search): {gave_up:,} "
          f"in {total:,} rounds")
    print("rounds by end:")
    for label, count in sorted(ends.items(), key=lambda item: -item[1]):
        print(f"  {label:<32} {count:>9,}  {100 * count / total:6.2f}%")
    return 1 if sum(violations.values()) else 0


def end_label(record) -> str:
    if record["end_reason"] != END_OUT:
        return f"dead round: {END_NAMES[record['end_reason']]}"
    if record["all_at_once"]:
        return "out all at once, joker discarded" if record["joker_finish"] else "out all at once"
    return "out (normal)"


if __name__ == "__main__":
    sys.exit(main())
