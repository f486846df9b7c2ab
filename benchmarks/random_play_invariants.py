"""Random legal play over many episodes, with invariants checked at every step; reports how rounds end.

An episode is one round (``--episode hand``) or a whole game to the rules' end (``--episode game``:
1000 points in rami51). For each step of a batch of games, every row is checked:

* card conservation: hands + table melds + stock + discard pile hold exactly the deck (108 cards
  in rami51: each natural twice and 4 jokers; 52 in basic);
* the mask offers at least one action in every unfinished row;
* when a round ends: the winner went out (his hand is empty in round episodes; his hand score is 0
  in game episodes, where the next round is dealt at once), every hand score is >= 0, a dead round
  has no winner;
* when a game ends: its winners are the seats with the lowest totals (R22).

It prints the violations (expected: 0), rounds per end (normal out, all at once, all at once with a
joker as final discard, dead rounds by cause), the no-dead-end searches (how many, and how many gave
up) and the throughput.

Usage: ``python benchmarks/random_play_invariants.py [--ruleset rami51] [--players 2] [--episode hand]
[--episodes 100000] [--batch 4096] [--seed 0] [--seconds S]``
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
from rummy_env.engine.table import table_counts_rows
from rummy_env.sampling import pick_legal_actions


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
    on_table = np.zeros((len(state), types), dtype=np.int64)
    table_counts_rows(state, on_table)
    held = state["hand"].sum(axis=1, dtype=np.int64) + on_table
    held += pile_counts(state["stock"], state["stock_n"], types) + pile_counts(state["pile"], state["pile_n"], types)
    bad = (held != expected[None, :]).any(axis=1)
    players = engine.rules.num_players
    sizes = state["hand"][:, :players].sum(axis=2, dtype=np.int64)
    return bad | (sizes != state["hand_n"][:, :players]).any(axis=1)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--ruleset", default="rami51")
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--episode", choices=("hand", "game"), default="hand")
    parser.add_argument("--episodes", type=int, default=100_000)
    parser.add_argument("--batch", type=int, default=4096)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--seconds", type=float, help="stop after this long even if fewer episodes were played")
    args = parser.parse_args(argv)

    rules = rummy_env.RummyRules.preset(args.ruleset, num_players=args.players, episode=args.episode)
    engine = rummy_env.RummyEngine(rules, batch_size=args.batch)
    engine.reset(seed=args.seed)
    expected = deck_counts(rules)
    generator = np.random.default_rng(args.seed)
    actions = np.zeros(args.batch, dtype=np.int64)
    violations: collections.Counter[str] = collections.Counter()
    ends: collections.Counter[str] = collections.Counter()
    episodes = steps = 0
    start = time.perf_counter()
    while episodes < args.episodes and (args.seconds is None or time.perf_counter() - start < args.seconds):
        mask = engine.legal_action_mask()
        engine.observe()
        open_rows = ~engine.done
        violations["empty mask"] += int((open_rows & (mask.sum(axis=1) == 0)).sum())
        pick_legal_actions(mask, generator.random(args.batch), actions, engine.parallel, engine.chunk_size)
        result = engine.step(actions)
        steps += int(open_rows.sum())
        violations["card conservation"] += int(conservation_violations(engine, expected).sum())
        for record in engine.state[result.hand_ended]:
            ends[end_label(record)] += 1
            check_round(record, args.episode, violations)
        done = engine.done
        if done.any():
            for record in engine.state[done][: max(0, args.episodes - episodes)]:
                totals = record["totals"][: args.players]
                violations["game winners are not the lowest totals"] += int(
                    args.episode == "game" and not np.array_equal(record["game_winners"][: args.players] == 1,
                                                                  totals == totals.min()))
            episodes += int(done.sum())
            engine.reset(rows=done.copy())
    seconds = time.perf_counter() - start
    stats = engine.search_stats()
    total = sum(ends.values())
    print(f"{args.ruleset}, {args.players} players: {min(episodes, args.episodes):,} episodes ({args.episode}) of random "
          f"legal play, {total:,} rounds, {steps:,} steps in {seconds:,.0f} s ({steps / seconds:,.0f} steps/s incl. the "
          f"checks), batch {args.batch}")
    print(f"invariant violations: {sum(violations.values())} {dict(violations)}")
    if stats:  # rami51: the no-dead-end search (engine/rami51/search.py) and its give-ups
        print(f"no-dead-end searches: {stats['searches']:,}, plays tried {stats['plays_tried']:,}, "
              f"gave up (each masks a play out unproven): {stats['gave_up']:,}, "
              f"positions the full memo did not keep: {stats['memo_full']:,}")
    print("rounds by end:")
    for label, count in sorted(ends.items(), key=lambda item: -item[1]):
        print(f"  {label:<32} {count:>9,}  {100 * count / total:6.2f}%")
    return 1 if sum(violations.values()) else 0


def check_round(record, episode: str, violations: collections.Counter) -> None:
    """The invariants of a round that has just ended (see the module docstring)."""
    violations["scores"] += int((record["hand_scores"] < 0).any())
    if record["end_reason"] == END_OUT:
        went_out = (record["hand_n"][record["winner"]] == 0 if episode == "hand"
                    else record["hand_scores"][record["winner"]] == 0)
        violations["winner did not go out"] += int(not went_out)
    else:
        violations["dead round with a winner"] += int(record["winner"] >= 0)


def end_label(record) -> str:
    if record["end_reason"] != END_OUT:
        return f"dead round: {END_NAMES[record['end_reason']]}"
    if record["all_at_once"]:
        return "out all at once, joker discarded" if record["joker_finish"] else "out all at once"
    return "out (normal)"


if __name__ == "__main__":
    sys.exit(main())
