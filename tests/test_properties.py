"""Property-based tests of the basic ruleset engine (docs/rules.md: B1-B19 and the basic knobs).

Hypothesis chooses seeds, player counts 2-6 and knob combinations; a seeded numpy ``Generator`` plays
random legal games (uniform over the legal actions, or, with ``bias`` > 0, preferring melds and
lay-offs so that going out, going rummy and the B18 dead-end positions come up often). At every step:

1. the engine's action mask equals the independent oracle's legal set (``tests/oracle.py``);
2. cards are conserved (hands + stock + discard pile + table = the 52 cards once each), the
   counters agree with the cards, table melds are valid, known cards are in their hands;
3. each action does exactly what B6-B11 say (draws, melds, lay-offs, discards, stock rebuilds), and
   every hand end is scored exactly (B12, B13, B17), totals accumulate, the game ends as B14 says, and
   the rewards are zero-sum and equal the documented formula;
4. every hand ends within ``max_turns_per_round`` turns and every turn within a bounded number of
   actions;
5. the same seed and the same actions give identical positions;
6. a batch of rows equals one-row engines with the same row seeds (serial and parallel kernels);
7. re-dealing the cards hidden from an observer never changes that observer's observation (engine
   and AEC env);
8. observations stay within their Box bounds and the mask is all zeros exactly when the row is done.

Profiles: see ``tests/conftest.py`` (``HYPOTHESIS_PROFILE=thorough`` for the heavy run, which also
enables the ``slow`` tests). A failing property reports the knobs, seed, step, action and position
needed to replay it.
"""

from __future__ import annotations

import copy
import json
import os
from collections import Counter

import numpy as np
import pytest
from hypothesis import example, given, note, settings
from hypothesis import strategies as st

import rummy_env
from rummy_env import IllegalActionError, RummyEngine, RummyRules
from rummy_env.engine.threads import PARALLEL

try:  # tests/ is put on sys.path by conftest.py
    import oracle as O
except ImportError:  # pragma: no cover
    from tests import oracle as O

PROFILE = os.environ.get("HYPOTHESIS_PROFILE", "ci")
THOROUGH = PROFILE == "thorough"
THOROUGH_SCALE = 10


def examples(n: int, ci: int | None = None) -> int:
    """Examples per property test under the active profile: ``n``, or ``ci`` in the CI profile where given (the
    longest rollouts there; ``thorough`` plays ``THOROUGH_SCALE * n``)."""
    if PROFILE == "dev":
        return min(n, 3)
    return n * THOROUGH_SCALE if THOROUGH else n if ci is None else ci


slow = pytest.mark.skipif(not THOROUGH, reason="heavy run: HYPOTHESIS_PROFILE=thorough pytest -m slow")

FULL_DECK = list(range(52))
PLAY_PHASES = ("draw", "play")
OVER_PHASES = ("hand_over", "game_over")


# ============================================================================================ strategies
@st.composite
def knob_sets(draw, episode: str | None = None, long_hands: bool = True) -> dict:
    """A valid set of basic knobs (docs/rules.md) plus environment knobs, ``num_players`` included.

    Hands are kept finite and short enough for a test run: small turn caps are common, and
    ``episode="game"`` games last at most a few hands."""
    players = draw(st.integers(2, 6))
    ace = draw(st.booleans())
    knobs = {
        "num_players": players,
        "ace_high_or_low": ace,
        "round_the_corner": ace and draw(st.booleans()),
        "must_discard_to_go_out": draw(st.booleans()),
        "forbid_discarding_card_taken_from_discard": draw(st.sampled_from([True, True, False])),
        "must_meld_before_layoff": draw(st.booleans()),
        "reshuffle_keep_top": draw(st.sampled_from([True, True, False])),
        "max_reshuffles": draw(st.sampled_from([None, None, None, None, None, 0, 1, 3])),
        "going_rummy_multiplier": draw(st.sampled_from([2, 2, 1, 3])),
        "ace_high_scoring_value": draw(st.sampled_from([15, 15, 1, 11])),
        "dead_round_scoring": draw(st.sampled_from(["none", "lowest_hand_wins"])),
        "two_player_winner_deals": draw(st.booleans()),
        "first_dealer": draw(st.sampled_from(["random", "random", 0, players - 1])),
        "reward": draw(st.sampled_from(["score", "win"])),
        "reward_scale": draw(st.sampled_from([100.0, 1.0, 7.5])),
        "episode": episode or draw(st.sampled_from(["hand", "hand", "game"])),
    }
    cap = draw(st.sampled_from(["long", "long", "long", "mid", "mid", "small", "tiny"]))
    if cap == "long" and not (long_hands and knobs["episode"] == "hand"):
        cap = "mid"
    knobs["max_turns_per_round"] = {"long": 1000, "mid": 200}.get(cap) or draw(
        st.integers(20, 120) if cap == "small" else st.sampled_from([1, 2, 3, 7]))
    size = draw(st.sampled_from(["default", "default", "default", "max", "random"]))
    if size == "max":          # as big as B4 allows: 3x17 or 5x10 leave no stock at all (E17)
        knobs["hand_size_by_players"] = {players: 51 // players}
    elif size == "random":
        knobs["hand_size_by_players"] = {players: draw(st.integers(1, 51 // players))}
    if knobs["episode"] == "game":
        if draw(st.booleans()):
            knobs.update(game_end_mode="hands", num_hands=draw(st.integers(1, 3)), max_hands=draw(st.integers(1, 4)))
        else:
            knobs.update(target_score=draw(st.sampled_from([1, 15, 40, 150])), max_hands=draw(st.integers(1, 3)))
    else:
        if draw(st.booleans()):
            knobs.update(game_end_mode="hands", num_hands=1)
        else:
            knobs["target_score"] = draw(st.sampled_from([150, 150, 1, 30]))
    return knobs


seeds = st.integers(0, 2**32 - 1)
biases = st.sampled_from([0.0, 0.0, 0.0, 0.5, 0.9, 1.0])


def make_rules(knobs: dict) -> RummyRules:
    return RummyRules.preset("basic", **knobs)


def repro(knobs: dict, seed: int, bias: float, step: int | None = None, action: int | None = None, extra: str = "") -> str:
    text = f"\nreplay: knobs={knobs!r} seed={seed} bias={bias}"
    if step is not None:
        text += f" step={step}"
    if action is not None:
        text += f" action={action} ({O.action_name(int(action), make_rules(knobs))})"
    return text + extra


def show(snap: dict) -> str:
    """A compact, readable position for failure messages (card names, not ids)."""
    names = lambda cards: " ".join(O.card_name(c) for c in cards)  # noqa: E731
    lines = [f"phase={snap['phase']} current={snap['current']} dealer={snap['dealer']} turn={snap['turn']} "
             f"taken={None if snap['taken'] is None else O.card_name(snap['taken'])} "
             f"played_this_turn={snap['played_this_turn']} has_played={snap['has_played']} "
             f"has_melded={snap['has_melded']} reshuffles={snap['reshuffles']}"]
    for seat, hand in enumerate(snap["hands"]):
        lines.append(f"  hand {seat}: {names(hand)}   known: {names(snap['known'][seat])}")
    lines.append(f"  stock ({len(snap['stock'])}): {names(snap['stock'])}")
    lines.append(f"  discard (top last): {names(snap['discard'])}")
    for meld in snap["table"]:
        lines.append(f"  slot {meld['slot']} {meld['kind']} of {meld['owner']} [{meld['lo']}..{meld['hi']}]: {names(meld['cards'])}")
    lines.append("  position (for engine.load): " + json.dumps({k: v for k, v in snap.items() if k != "num_players"}))
    return "\n".join(lines)


def choose(rng: np.random.Generator, legal: np.ndarray, bias: float, rules: RummyRules) -> int:
    """Uniform over ``legal``; with probability ``bias``, uniform over its melds and lay-offs if any."""
    if bias > 0 and rng.random() < bias:
        lay = O.layout(rules)
        plays = legal[(legal >= lay.meld_base) & (legal < lay.discard_base)]
        if plays.size:
            return int(rng.choice(plays))
    return int(rng.choice(legal))


def batch_choose(rng: np.random.Generator, mask: np.ndarray) -> np.ndarray:
    """One uniformly random legal action per row (0 for rows without legal actions)."""
    scores = rng.random(mask.shape)
    scores[mask == 0] = -1.0
    return scores.argmax(axis=1)


# ============================================================================================ spec helpers
def card_value(rules, card: int) -> int:
    """B12/B15 value of a card left in hand."""
    rank = card % 13 + 1
    if rank == 1:
        return rules.ace_high_scoring_value if rules.ace_high_or_low else 1
    return min(rank, 10)


def hand_value(rules, hand) -> int:
    return sum(card_value(rules, c) for c in hand)


def zero_sum_rewards(weights, scale: float) -> np.ndarray:
    """The documented reward formula: ``(P * w[q] - sum(w)) / ((P - 1) * scale)``."""
    w = np.asarray(weights, dtype=np.float64)
    players = w.shape[0]
    return (players * w - w.sum()) / ((players - 1) * scale)


def rank_at(position: int) -> int:
    return (position - 1) % 13 + 1


def multiset(cards) -> Counter:
    return Counter(int(c) for c in cards)


# ============================================================================================ invariants
def check_position(snap: dict, eng: RummyEngine, rules: RummyRules, where: str) -> None:
    """Property 2 (+ table validity): card conservation and consistency of one position (row 0)."""
    players = rules.num_players
    r = eng.state[0]
    for field in ("hand", "known", "table_by_seat", "hand_n"):
        assert (r[field] >= 0).all(), f"negative counts in {field}{where}"
    for field in ("hand", "known", "table_by_seat", "hand_n", "has_played", "has_melded", "totals", "hand_scores"):
        assert not r[field][players:].any(), f"{field} of a seat past num_players is not empty{where}"
    assert (r["hand"] <= 1).all(), f"a card type held twice{where}"
    for meld in snap["table"]:
        assert len(set(meld["cards"])) == len(meld["cards"]), f"a card type twice in a meld {meld}{where}"
    hand_n = [int(v) for v in r["hand_n"][:players]]
    assert hand_n == [int(v) for v in r["hand"][:players].sum(axis=1)], f"hand_n disagrees with the hands{where}"
    assert [len(h) for h in snap["hands"]] == hand_n, f"hand sizes != hand_n{where}"
    placed = [c for hand in snap["hands"] for c in hand] + snap["stock"] + snap["discard"]
    table_cards = [c for meld in snap["table"] for c in meld["cards"]]
    everything = Counter(placed + table_cards)
    assert sorted(everything) == FULL_DECK and set(everything.values()) == {1}, (
        f"cards not conserved: missing {sorted(set(FULL_DECK) - set(everything))}, "
        f"duplicated {sorted(c for c, n in everything.items() if n > 1)}{where}")
    assert int(r["stock_n"]) == len(snap["stock"]) and int(r["pile_n"]) == len(snap["discard"])
    assert multiset(c for laid in snap["table_by_seat"] for c in laid) == multiset(table_cards), (
        f"table_by_seat does not account for the table{where}")
    for seat in range(players):
        assert not (multiset(snap["known"][seat]) - multiset(snap["hands"][seat])), (
            f"seat {seat} is 'known' to hold cards it does not hold{where}")
    assert [m["slot"] for m in snap["table"]] == list(range(len(snap["table"]))), f"table slots not filled in order{where}"
    for meld in snap["table"]:
        cards = meld["cards"]
        assert O.is_meld(cards, rules), f"invalid meld on the table: {[O.card_name(c) for c in cards]}{where}"
        if meld["kind"] == "set":
            assert O.is_set(cards) and meld["lo"] == meld["hi"] == O.rank_of(cards[0]), f"bad set record {meld}{where}"
        else:
            lo, hi = meld["lo"], meld["hi"]
            assert hi - lo + 1 == len(cards), f"bad run span {meld}{where}"
            if not rules.round_the_corner:   # (round the corner, positions are only meaningful modulo 13)
                assert 1 <= lo and hi <= rules.max_run_position, f"run beyond the ends of its suit {meld}{where}"
            assert sorted(rank_at(p) for p in range(lo, hi + 1)) == sorted(O.rank_of(c) for c in cards), (
                f"run span does not match its cards {meld}{where}")
    if snap["phase"] in PLAY_PHASES:
        assert snap["current"] in range(players) and all(len(h) >= 1 for h in snap["hands"]), f"empty hand in play{where}"
    if snap["phase"] == "draw":
        assert snap["taken"] is None and not snap["played_this_turn"]
        assert snap["stock"] or snap["discard"], f"a draw phase with nothing to draw{where}"
    if snap["taken"] is not None:   # kept after a hand ends (the record of the last turn)
        assert snap["phase"] != "draw"
    if rules.max_reshuffles is not None:
        assert snap["reshuffles"] <= rules.max_reshuffles
    assert snap["turn"] <= rules.max_turns_per_round


def check_mask_and_obs(eng: RummyEngine, rules: RummyRules, mask_row: np.ndarray, where: str) -> None:
    """Property 8: every seat's observation is within Box(0, 127, int8); mask all zero iff done."""
    players = rules.num_players
    obs = eng.observe()
    assert obs.dtype == np.int8 and obs.shape == (1, eng.observation_size)
    for seat in range(players):
        o = eng.observe(np.array([seat], dtype=np.int8))[0]
        assert o.min() >= 0 and o.max() <= 127, f"observation of seat {seat} outside [0, 127]{where}"
    done = bool(eng.done[0])
    assert mask_row.dtype == np.int8 and set(np.unique(mask_row)) <= {0, 1}
    assert bool(mask_row.any()) == (not done), (
        f"mask {'empty' if not mask_row.any() else 'non-empty'} but done={done} (phase {eng.snapshot(0)['phase']}){where}")


class HandTracker:
    """What the test itself remembers about the current hand (B13 needs the history)."""

    def __init__(self, snap: dict):
        self.played_earlier: set[int] = set()    # seats that melded/laid off in a completed turn
        self.played_now = False                  # the current player melded/laid off this turn
        self.turn_actions = 0                    # actions in the current turn
        self.turn_hand_after_draw = 0
        self.turns_started = 1
        self.hand_start = copy.deepcopy(snap)


def check_deal(snap: dict, rules: RummyRules, where: str) -> None:
    """B4/B5: a fresh deal."""
    players, h = rules.num_players, rules.hand_size
    assert snap["phase"] in ("draw",) + OVER_PHASES
    assert [len(hand) for hand in snap["hands"]] == [h] * players, f"deal: hand sizes {[len(x) for x in snap['hands']]}{where}"
    assert snap["table"] == [] and all(k == [] for k in snap["known"]) and snap["turn"] == 0
    assert len(snap["stock"]) + len(snap["discard"]) == 52 - players * h
    if snap["reshuffles"] == 0 and snap["phase"] == "draw":
        assert len(snap["discard"]) == 1, f"deal: the upcard starts the discard pile{where}"
    assert snap["current"] == (snap["dealer"] + 1) % players, f"deal: the dealer's left plays first (B5){where}"


def check_step(rules: RummyRules, pre: dict, action: int, post: dict, rewards: np.ndarray, hand_ended: bool,
               tracker: HandTracker, where: str) -> bool:
    """Property 3 (and the transition part of B6-B11, B14, B17): what one action did.

    Returns whether a hand ended. ``pre``/``post`` are snapshots of row 0 before/after the step."""
    players = rules.num_players
    p = pre["current"]
    kind, *args = O.decode_action(action, rules)
    hands = [list(h) for h in pre["hands"]]
    stock, discard = list(pre["stock"]), list(pre["discard"])
    table = [dict(m, cards=sorted(m["cards"])) for m in pre["table"]]
    known = [list(k) for k in pre["known"]]
    by_seat = [list(x) for x in pre["table_by_seat"]]

    def leave_hand(card):
        hands[p].remove(card)
        if card in known[p]:
            known[p].remove(card)

    tracker.turn_actions += 1
    turn_ends = went_out = False
    if kind == "draw_stock":
        assert pre["phase"] == "draw"
        hands[p].append(stock.pop())
        tracker.turn_hand_after_draw = len(hands[p])
    elif kind == "draw_discard":
        assert pre["phase"] == "draw"
        card = discard.pop()
        hands[p].append(card)
        known[p].append(card)
        tracker.turn_hand_after_draw = len(hands[p])
    elif kind == "meld":
        assert pre["phase"] == "play"
        cards = list(args[1])
        for c in cards:
            leave_hand(c)
        table.append({"slot": len(table), "owner": p, "kind": "set" if O.is_set(cards) else "run", "cards": sorted(cards)})
        by_seat[p] += cards
        tracker.played_now = True
        went_out = not hands[p]
    elif kind == "lay_off":
        assert pre["phase"] == "play"
        slot, card = args
        leave_hand(card)
        table[slot]["cards"] = sorted(table[slot]["cards"] + [card])
        by_seat[p].append(card)
        tracker.played_now = True
        went_out = not hands[p]
    else:
        assert pre["phase"] == "play"
        card = args[0]
        leave_hand(card)
        discard.append(card)
        went_out = not hands[p]
        turn_ends = not went_out
    # ---- property 4: a turn has at most 1 draw + (cards after the draw) plays + 1 discard
    assert tracker.turn_actions <= tracker.turn_hand_after_draw + 2, f"turn too long{where}"

    # ---- what the hand looks like right after the action (before any rebuild / end / new deal)
    expected_end = None
    rebuilt = False
    if went_out:
        expected_end = "out"
    elif turn_ends:
        if pre["turn"] + 1 >= rules.max_turns_per_round:
            expected_end = "dead_turn_cap"
        elif not stock:
            keep = 1 if rules.reshuffle_keep_top else 0
            if len(discard) - keep >= 1:
                if rules.max_reshuffles is not None and pre["reshuffles"] >= rules.max_reshuffles:
                    expected_end = "dead_reshuffles"
                else:
                    rebuilt = True
                    stock, discard = (discard[:-1], discard[-1:]) if keep else (discard, [])
            if expected_end is None and not stock and not discard:
                expected_end = "dead_no_draw"

    assert bool(hand_ended) == (expected_end is not None), (
        f"hand_ended={bool(hand_ended)} but expected end {expected_end}{where}")

    if expected_end is None:
        assert not np.any(rewards), f"non-zero rewards {rewards} on a step that ends no hand{where}"
        assert post["phase"] == ("draw" if turn_ends else "play")
        assert post["current"] == ((p + 1) % players if turn_ends else p)
        assert post["hands"] == [sorted(h) for h in hands], f"hands after {kind} wrong{where}"
        assert [sorted(m["cards"]) for m in post["table"]] == [m["cards"] for m in table], f"table after {kind} wrong{where}"
        assert [m["owner"] for m in post["table"]] == [m["owner"] for m in table]
        assert [m["kind"] for m in post["table"]] == [m["kind"] for m in table]
        assert post["known"] == [sorted(k) for k in known], f"known cards after {kind} wrong{where}"
        assert post["table_by_seat"] == [sorted(x) for x in by_seat]
        if rebuilt:   # B11: the rebuilt stock is the old pile (less its top when kept), shuffled
            assert post["reshuffles"] == pre["reshuffles"] + 1
            assert post["discard"] == discard, f"rebuild: discard pile should be {discard}{where}"
            assert sorted(post["stock"]) == sorted(stock), f"rebuild: stock is not the old discard pile{where}"
        else:
            assert post["reshuffles"] == pre["reshuffles"]
            assert post["stock"] == stock and post["discard"] == discard, f"stock/discard after {kind} wrong{where}"
        if kind == "draw_discard":
            assert post["taken"] == pre["discard"][-1], f"taken card{where}"
        elif kind == "draw_stock":
            assert post["taken"] is None
        elif not turn_ends:
            assert post["taken"] == pre["taken"]
        if turn_ends:
            assert post["turn"] == pre["turn"] + 1 and post["taken"] is None and not post["played_this_turn"]
            if tracker.played_now:
                tracker.played_earlier.add(p)
            tracker.played_now = False
            tracker.turn_actions = 0
            tracker.turns_started += 1
            assert tracker.turns_started <= rules.max_turns_per_round, f"more turns than max_turns_per_round{where}"
            assert post["has_played"] == [seat in tracker.played_earlier for seat in range(players)], (
                f"has_played {post['has_played']} != earlier plays {sorted(tracker.played_earlier)}{where}")
        else:
            assert post["turn"] == pre["turn"] and post["played_this_turn"] == (tracker.played_now)
        return False

    # ---------------------------------------------------------------- a hand ended (B10, B12, B13, B14, B17)
    game_mode = rules.episode == "game"
    assert post["end_reason"] == expected_end, f"end_reason {post['end_reason']} != {expected_end}{where}"
    assert post["hands_played"] == pre["hands_played"] + 1, f"hands_played not incremented{where}"
    scores = [0] * players
    scorer = None
    if expected_end == "out":
        points = sum(hand_value(rules, hands[q]) for q in range(players) if q != p)
        rummy = p not in tracker.played_earlier
        scores[p] = points * (rules.going_rummy_multiplier if rummy else 1)
        scorer = p
        assert post["winner"] == p and post["rummy"] == rummy, (
            f"winner/rummy {post['winner']}/{post['rummy']}, expected {p}/{rummy}{where}")
    else:
        assert post["winner"] is None and not post["rummy"]
        if expected_end == "dead_turn_cap":
            assert pre["turn"] + 1 == rules.max_turns_per_round
        if rules.dead_round_scoring == "lowest_hand_wins":
            values = [hand_value(rules, hands[q]) for q in range(players)]
            low = min(values)
            if values.count(low) == 1:
                scorer = values.index(low)
                scores[scorer] = sum(values) - low
    assert post["hand_scores"] == scores, f"hand_scores {post['hand_scores']} != expected {scores}{where}"
    totals = [a + b for a, b in zip(pre["totals"], scores)]
    assert post["totals"] == totals, f"totals {post['totals']} != {totals}{where}"

    # ---- B14: does the game end, and who wins
    if rules.game_end_mode == "target":
        over = scorer is not None and totals[scorer] >= rules.target_score
        winners = [scorer] if over else []
    else:
        over = post["hands_played"] >= rules.num_hands
        winners = []
    if (over and not winners) or (not over and post["hands_played"] >= rules.max_hands):
        over = True
        best = max(totals)
        winners = [q for q in range(players) if totals[q] == best]
    assert (post["phase"] == "game_over") == over, f"phase {post['phase']}, game over expected: {over}{where}"
    if over:
        assert post["game_winners"] == winners, f"game_winners {post['game_winners']} != {winners}{where}"
    elif game_mode:   # the next hand is dealt at once (B5)
        if rules.two_player_winner_deals and players == 2 and post["winner"] is not None:
            dealer = post["winner"]
        else:
            dealer = (pre["dealer"] + 1) % players
        assert post["dealer"] == dealer, f"dealer {post['dealer']} != {dealer} (B5){where}"
        check_deal(post, rules, where + " [next deal]")
    else:
        assert post["phase"] == "hand_over"
        assert post["hands"] == [sorted(h) for h in hands], f"final hands wrong{where}"

    # ---- rewards: zero-sum and the documented formula
    assert abs(float(rewards.sum())) < 1e-4, f"rewards {rewards} not zero-sum{where}"
    if rules.reward == "score":
        expected = zero_sum_rewards(scores, rules.reward_scale)
    else:
        if game_mode:
            wins = [1.0 if q in winners else 0.0 for q in range(players)] if over else [0.0] * players
        else:
            wins = [1.0 if s > 0 else 0.0 for s in scores]
        k = sum(wins)
        expected = zero_sum_rewards([w / k for w in wins], 1.0) if k else np.zeros(players)
        if k == 1:
            assert np.allclose(expected[wins.index(1.0)], 1.0) and np.allclose(sum(expected) - 1.0, -1.0)
    np.testing.assert_allclose(rewards, expected, rtol=1e-5, atol=1e-6, err_msg=f"rewards{where}")
    return True


# ============================================================================================ rollouts
def play(knobs: dict, seed: int, bias: float, on_step=None, max_steps: int = 200_000):
    """Play one episode in a one-row engine; ``on_step(eng, step, snap, mask_row)`` sees every position
    before its action and may return an action to play instead of the random one."""
    rules = make_rules(knobs)
    eng = RummyEngine(rules, batch_size=1, parallel=False)
    eng.reset(seed=seed)
    rng = np.random.default_rng(seed)
    step = 0
    while not eng.done[0] and step < max_steps:
        mask_row = eng.legal_action_mask()[0].copy()
        legal = np.flatnonzero(mask_row)
        snap = eng.snapshot(0)
        forced = on_step(eng, step, snap, mask_row) if on_step else None
        assert legal.size, f"row not done but no legal action{repro(knobs, seed, bias, step)}\n{show(snap)}"
        action = choose(rng, legal, bias, rules) if forced is None else forced
        eng.step([action])
        step += 1
    return eng, step


# ============================================================================================ 1. mask exactness
@settings(max_examples=examples(500, ci=80))
@given(knobs=knob_sets(), seed=seeds, bias=biases)
@example(knobs={"num_players": 3, "hand_size_by_players": {3: 17}}, seed=1, bias=0.0)
@example(knobs={"num_players": 2, "must_discard_to_go_out": True, "ace_high_or_low": True, "round_the_corner": True}, seed=2, bias=0.9)
def test_mask_equals_oracle(knobs, seed, bias):
    """Property 1: at every step the mask is exactly the oracle's legal set (all basic knobs)."""
    rules = make_rules(knobs)
    note(repro(knobs, seed, bias))
    checked = [0]
    sampler = np.random.default_rng(seed + 17)

    def on_step(eng, step, snap, mask_row):
        if sampler.random() < 0.004:   # the step's own legality test (is_legal) agrees with the mask everywhere
            verdicts = np.array([eng.is_legal(0, a) for a in range(eng.num_actions)], dtype=np.int8)
            assert np.array_equal(verdicts, mask_row), (
                f"is_legal != mask for {[O.action_name(int(a), rules) for a in np.flatnonzero(verdicts != mask_row)]}"
                f"{repro(knobs, seed, bias, step)}\n{show(snap)}")
        engine_legal = {int(a) for a in np.flatnonzero(mask_row)}
        oracle_legal = O.legal_actions(snap, rules)
        if engine_legal != oracle_legal:
            only_engine = sorted(O.action_name(a, rules) for a in engine_legal - oracle_legal)
            only_oracle = sorted(O.action_name(a, rules) for a in oracle_legal - engine_legal)
            raise AssertionError(f"mask != oracle: engine-only {only_engine}, oracle-only {only_oracle}"
                                 f"{repro(knobs, seed, bias, step)}\n{show(snap)}")
        checked[0] += 1
        return None

    eng, _ = play(knobs, seed, bias, on_step)
    final = eng.snapshot(0)
    assert O.legal_actions(final, rules) == set() and not eng.legal_action_mask()[0].any()
    note(f"{checked[0]} positions checked")


# ============================================================================================ 2-4, 8. invariants
@settings(max_examples=examples(300, ci=45))
@given(knobs=knob_sets(), seed=seeds, bias=biases)
@example(knobs={"num_players": 3, "hand_size_by_players": {3: 17}, "reshuffle_keep_top": False, "max_reshuffles": 2}, seed=3, bias=0.0)
@example(knobs={"num_players": 2, "max_turns_per_round": 40, "dead_round_scoring": "lowest_hand_wins"}, seed=4, bias=0.0)
@example(knobs={"num_players": 4, "episode": "game", "game_end_mode": "hands", "num_hands": 3, "max_turns_per_round": 50,
                "reward": "win"}, seed=5, bias=0.9)
def test_rollout_invariants(knobs, seed, bias):
    """Properties 2, 3, 4 and 8 at every step; illegal actions are refused without side effects."""
    rules = make_rules(knobs)
    note(repro(knobs, seed, bias))
    eng = RummyEngine(rules, batch_size=1, parallel=False)
    eng.reset(seed=seed)
    rng = np.random.default_rng(seed ^ 0x5EED)
    snap = eng.snapshot(0)
    check_deal(snap, rules, repro(knobs, seed, bias, 0))
    if rules.first_dealer != "random":
        assert snap["dealer"] == rules.first_dealer
    tracker = HandTracker(snap)
    step, hands_seen = 0, 0
    while True:
        where = repro(knobs, seed, bias, step)
        mask_row = eng.legal_action_mask()[0].copy()
        check_position(snap, eng, rules, where)
        check_mask_and_obs(eng, rules, mask_row, where)
        if eng.done[0]:
            break
        legal = np.flatnonzero(mask_row)
        if rng.random() < 0.05:   # an unmasked action is refused, and nothing changes
            illegal = np.flatnonzero(mask_row == 0)
            bad = int(rng.choice(illegal))
            before = eng.state.copy()
            assert not eng.is_legal(0, bad)
            with pytest.raises(IllegalActionError) as info:
                eng.step([bad])
            assert "is legal" not in str(info.value) and str(info.value)
            assert not field_diff(eng.state, before), f"a refused action changed {field_diff(eng.state, before)}{where}"
        action = choose(rng, legal, bias, rules)
        assert eng.is_legal(0, action)
        result = eng.step([action])
        rewards, ended = result.rewards[0].copy(), bool(result.hand_ended[0])
        post = eng.snapshot(0)
        where = repro(knobs, seed, bias, step, action, "\n" + show(snap))
        if check_step(rules, snap, action, post, rewards, ended, tracker, where):
            hands_seen += 1
            tracker = HandTracker(post)
        snap = post
        step += 1
    assert hands_seen >= 1 or snap["hands_played"] >= 1
    assert snap["hands_played"] <= rules.max_hands


# ============================================================================================ 5. determinism
@settings(max_examples=examples(40, ci=20))
@given(knobs=knob_sets(), seed=seeds, bias=biases)
def test_same_seed_same_actions_same_positions(knobs, seed, bias):
    """Property 5: two engines reset with the same seed and fed the same actions stay identical; a
    replay of the recorded actions after a new ``reset(seed)`` reproduces every snapshot."""
    rules = make_rules(knobs)
    note(repro(knobs, seed, bias))
    a, b = RummyEngine(rules, 1, parallel=False), RummyEngine(rules, 1, parallel=False)
    a.reset(seed=seed)
    b.reset(seed=seed)
    rng = np.random.default_rng(seed)
    actions, snaps = [], [a.snapshot(0)]
    assert b.snapshot(0) == snaps[0]
    while not a.done[0]:
        mask = a.legal_action_mask()[0].copy()
        assert np.array_equal(mask, b.legal_action_mask()[0])
        action = choose(rng, np.flatnonzero(mask), bias, rules)
        rewards = a.step([action]).rewards.copy()
        assert np.array_equal(rewards, b.step([action]).rewards)
        actions.append(action)
        snaps.append(a.snapshot(0))
        assert b.snapshot(0) == snaps[-1], f"diverged at step {len(actions)}{repro(knobs, seed, bias)}"
        assert np.array_equal(a.observe(), b.observe())
    a.reset(seed=seed)
    assert a.snapshot(0) == snaps[0]
    for k, action in enumerate(actions):
        a.step([action])
        assert a.snapshot(0) == snaps[k + 1], f"replay diverged at step {k + 1}{repro(knobs, seed, bias)}"
    # a different seed deals differently (the seed is actually used)
    c = RummyEngine(rules, 1, parallel=False)
    c.reset(seed=seed + 1)
    assert c.snapshot(0)["hands"] != snaps[0]["hands"] or c.snapshot(0)["stock"] != snaps[0]["stock"]


def test_row_seed_reproduces_engine_seed_rows():
    """``reset(row_seeds=[s])`` plays like the row of an engine whose seed stream produced ``s``."""
    rules = make_rules({"num_players": 3})
    batch = RummyEngine(rules, 4, parallel=False)
    batch.reset(seed=11)
    row_seeds = np.random.default_rng(11).integers(0, 2**63, size=4, dtype=np.uint64)
    for i in range(4):
        single = RummyEngine(rules, 1, parallel=False)
        single.reset(row_seeds=[int(row_seeds[i])])
        assert single.snapshot(0) == batch.snapshot(i)


# ============================================================================================ 6. batch == single
def field_diff(a: np.ndarray, b: np.ndarray) -> list[str]:
    """Fields of two state records (or arrays of records) that differ. Fields, not raw bytes: the
    padding bytes of a record carry no state."""
    return [name for name in a.dtype.names if not np.array_equal(a[name], b[name])]


_KEEP: dict = {}


def meaningful_bytes(state: np.ndarray) -> np.ndarray:
    """``(B, n)`` uint8: each record's bytes without the padding between (and after) its fields."""
    dtype = state.dtype
    keep = _KEEP.get(dtype)
    if keep is None:
        keep = _KEEP[dtype] = np.zeros(dtype.itemsize, dtype=bool)
        for name in dtype.names:
            field, offset = dtype.fields[name][:2]
            keep[offset:offset + field.itemsize] = True
    return np.ascontiguousarray(state).view(np.uint8).reshape(state.shape[0], dtype.itemsize)[:, keep]


def rows_differing(a: np.ndarray, b: np.ndarray) -> list[int]:
    return [int(i) for i in np.flatnonzero((meaningful_bytes(a) != meaningful_bytes(b)).any(axis=1))]


def run_batch_vs_singles(knobs: dict, row_seeds: list[int], parallel: bool, policy_seed: int, max_steps: int,
                         singles_for=None, serial_twin: bool = False, resets_per_row: int = 1) -> int:
    """Step a ``B``-row engine and, for the rows in ``singles_for`` (default all), one-row engines with
    the same row seeds; optionally a serial ``B``-row twin of a parallel batch. Rows that finish are
    reset with new row seeds (``reset(rows=..., row_seeds=...)``) up to ``resets_per_row`` times.
    Everything is compared at every step: state records, masks, observations, rewards, hand ends."""
    rules = make_rules(knobs)
    size = len(row_seeds)
    rows = list(range(size)) if singles_for is None else list(singles_for)
    batch = RummyEngine(rules, size, parallel=parallel)
    assert batch.parallel == parallel
    batch.reset(row_seeds=row_seeds)
    twin = None
    if serial_twin:
        twin = RummyEngine(rules, size, parallel=False)
        twin.reset(row_seeds=row_seeds)
    singles = {}
    for i in rows:
        singles[i] = RummyEngine(rules, 1, parallel=False)
        singles[i].reset(row_seeds=[row_seeds[i]])
    rng = np.random.default_rng(policy_seed)
    resets = np.zeros(size, dtype=np.int64)
    seats = np.zeros(size, dtype=np.int8)
    step = 0
    while step < max_steps:
        where = f"\nreplay: knobs={knobs!r} row_seeds={row_seeds!r} parallel={parallel} policy_seed={policy_seed} step={step}"
        mask = batch.legal_action_mask().copy()
        obs = batch.observe().copy()
        seats[:] = rng.integers(0, rules.num_players, size=size)
        obs_seats = batch.observe(seats).copy()
        done = batch.done.copy()
        if twin is not None:
            differ = rows_differing(twin.state, batch.state)
            assert not differ, (f"parallel batch != serial batch in rows {differ[:5]}: "
                                f"fields {field_diff(twin.state[differ[0]], batch.state[differ[0]]) if differ else []}{where}")
            assert np.array_equal(twin.legal_action_mask(), mask), f"parallel mask != serial mask{where}"
            assert np.array_equal(twin.observe(), obs) and np.array_equal(twin.observe(seats), obs_seats)
            assert np.array_equal(twin.done, done)
        batch_bytes = meaningful_bytes(batch.state)
        for i in rows:
            one = singles[i]
            if not np.array_equal(meaningful_bytes(one.state)[0], batch_bytes[i]):
                raise AssertionError(f"row {i} != single engine: fields {field_diff(one.state[0], batch.state[i])}{where}")
            assert np.array_equal(one.legal_action_mask()[0], mask[i]), f"row {i} mask != single{where}"
            assert np.array_equal(one.observe()[0], obs[i]), f"row {i} observation != single{where}"
            assert np.array_equal(one.observe(seats[i:i + 1])[0], obs_seats[i]), f"row {i} observe(seats) != single{where}"
            assert bool(one.done[0]) == bool(done[i])
        if done.all():
            refill = done & (resets < resets_per_row)
            if not refill.any():
                break
        refill = done & (resets < resets_per_row)
        if refill.any():
            new_seeds = [int(x) for x in rng.integers(0, 2**63, size=size, dtype=np.uint64)]
            batch.reset(rows=refill, row_seeds=new_seeds)
            if twin is not None:
                twin.reset(rows=refill, row_seeds=new_seeds)
            for i in np.flatnonzero(refill):
                if i in singles:
                    singles[i].reset(row_seeds=[new_seeds[i]])
            resets += refill
            continue
        actions = batch_choose(rng, mask)
        result = batch.step(actions)
        rewards, ended = result.rewards.copy(), result.hand_ended.copy()
        assert np.abs(rewards.sum(axis=1)).max() < 1e-4, f"rewards not zero-sum{where}"
        assert not rewards[done].any() and not ended[done].any(), f"finished rows must get zero rewards{where}"
        if twin is not None:
            tr = twin.step(actions)
            assert np.array_equal(tr.rewards, rewards) and np.array_equal(tr.hand_ended, ended), f"parallel step results != serial{where}"
        for i in rows:
            if done[i]:
                continue
            res = singles[i].step(actions[i:i + 1])
            assert np.array_equal(res.rewards[0], rewards[i]), f"row {i} rewards != single{where}"
            assert bool(res.hand_ended[0]) == bool(ended[i])
        step += 1
    return step


@settings(max_examples=examples(30))
@given(knobs=knob_sets(long_hands=False), row_seeds=st.lists(st.integers(0, 2**63 - 1), min_size=1, max_size=8),
       parallel=st.sampled_from([False, False, False, False, False, True]), policy_seed=seeds)
def test_batch_rows_equal_single_games(knobs, row_seeds, parallel, policy_seed):
    """Property 6 (small batches, serial or forced-parallel kernels), with partial resets. (Parallel
    kernel calls cost milliseconds on a loaded 2-core machine, hence the shorter parallel runs.)"""
    run_batch_vs_singles(knobs, row_seeds, parallel, policy_seed, max_steps=100 if parallel and not THOROUGH else 3000)


@settings(max_examples=examples(2))
@given(knobs=knob_sets(episode="hand", long_hands=False), policy_seed=seeds, seed=seeds)
def test_parallel_batch_equals_serial_bit_for_bit(knobs, policy_seed, seed):
    """Property 6 at B = 300 with the parallel numba build, checked bit for bit against the serial
    build at every step, and against one-row engines for a sample of rows."""
    size = 300
    row_seeds = [int(x) for x in np.random.default_rng(seed).integers(0, 2**63, size=size, dtype=np.uint64)]
    sample = sorted(np.random.default_rng(seed + 1).choice(size, size=12, replace=False).tolist())
    auto = RummyEngine(make_rules(knobs), size)          # parallel=None: the default thread policy
    assert auto.parallel == PARALLEL
    run_batch_vs_singles(knobs, row_seeds, True, policy_seed, max_steps=3000 if THOROUGH else 250, singles_for=sample,
                         serial_twin=True)


@pytest.mark.slow
@slow
@pytest.mark.parametrize("players", [2, 6])
def test_parallel_long_run_all_rows_against_singles(players):
    """Property 6 at B = 300 (parallel), every row against its own one-row engine, default knobs."""
    knobs = {"num_players": players, "max_turns_per_round": 150}
    row_seeds = [int(x) for x in np.random.default_rng(players).integers(0, 2**63, size=300, dtype=np.uint64)]
    run_batch_vs_singles(knobs, row_seeds, True, players, max_steps=4000, serial_twin=True)



# ============================================================================================ 7. no leak
def redeal_hidden(snap: dict, observer: int, rng: np.random.Generator) -> dict:
    """The same position with the cards hidden from ``observer`` (other hands minus their known cards,
    plus the stock) permuted among those hidden places; hand sizes and known cards are kept."""
    players = len(snap["hands"])
    hidden = list(snap["stock"])
    rest = {}
    for q in range(players):
        if q == observer:
            continue
        unknown = multiset(snap["hands"][q]) - multiset(snap["known"][q])
        rest[q] = sum(unknown.values())
        hidden += list(unknown.elements())
    perm = [int(c) for c in rng.permutation(np.array(hidden, dtype=np.int64))]
    new = copy.deepcopy(snap)
    new["stock"] = perm[:len(snap["stock"])]
    k = len(snap["stock"])
    for q in range(players):
        if q == observer:
            continue
        new["hands"][q] = sorted(list(snap["known"][q]) + perm[k:k + rest[q]])
        k += rest[q]
    assert k == len(perm)
    return new


def load_fresh(rules: RummyRules, position: dict) -> RummyEngine:
    eng = RummyEngine(rules, 1, parallel=False)
    eng.reset(seed=0)
    position = {key: value for key, value in position.items() if key != "num_players"}
    eng.load(0, position)
    return eng


def observation_of(eng: RummyEngine, seat: int) -> np.ndarray:
    return eng.observe(np.array([seat], dtype=np.int8))[0].copy()


def check_no_leak(eng: RummyEngine, rules: RummyRules, rng: np.random.Generator, where: str, stats: Counter) -> None:
    snap = eng.snapshot(0)
    players = rules.num_players
    # snapshot -> load is exact (positions round-trip), so any difference below comes from the re-deal
    same = load_fresh(rules, snap)
    assert same.snapshot(0) == snap, f"snapshot/load round trip changed the position{where}"
    assert np.array_equal(same.legal_action_mask()[0], eng.legal_action_mask()[0]), f"load(snapshot) changed the mask{where}"
    for seat in range(players):
        assert np.array_equal(observation_of(same, seat), observation_of(eng, seat)), (
            f"load(snapshot) changed seat {seat}'s observation{where}")
    for observer in range(players):
        original = observation_of(eng, observer)
        moved = redeal_hidden(snap, observer, rng)
        other = load_fresh(rules, moved)
        assert np.array_equal(observation_of(other, observer), original), (
            f"observer {observer}'s observation depends on hidden cards: blocks "
            f"{[k for k, v in eng.observation_layout.split(observation_of(other, observer)).items() if not np.array_equal(v, eng.observation_layout.split(original)[k])]}"
            f"{where}\n{show(snap)}\nre-dealt:\n{show(moved)}")
        if snap["current"] == observer:
            assert np.array_equal(other.legal_action_mask()[0], eng.legal_action_mask()[0]), (
                f"the mask of player to act {observer} depends on hidden cards{where}")
        # the test can fail: a seat whose own hand the re-deal changed sees the change
        for q in range(players):
            if q != observer and moved["hands"][q] != snap["hands"][q]:
                assert not np.array_equal(observation_of(other, q), observation_of(eng, q)), (
                    f"seat {q}'s own hand changed but its observation did not{where}")
                stats["sensitive"] += 1
        stats["redeals"] += 1
    # and the observer's own hand matters: swap one of its cards with a hidden one
    observer = int(rng.integers(players))
    hidden_pool = list(snap["stock"])
    if snap["hands"][observer] and hidden_pool:
        swapped = copy.deepcopy(snap)
        mine = snap["hands"][observer][int(rng.integers(len(snap["hands"][observer])))]
        if mine not in snap["known"][observer] and mine != snap["taken"]:
            theirs = hidden_pool[int(rng.integers(len(hidden_pool)))]
            swapped["hands"][observer] = sorted([c for c in snap["hands"][observer] if c != mine] + [theirs])
            swapped["stock"] = [mine if c == theirs else c for c in snap["stock"]]
            assert not np.array_equal(observation_of(load_fresh(rules, swapped), observer), observation_of(eng, observer))


@settings(max_examples=examples(100, ci=50))
@given(knobs=knob_sets(), seed=seeds, bias=biases)
def test_no_hidden_information_in_observations(knobs, seed, bias):
    """Property 7 (engine): re-dealing what an observer cannot see leaves its observation unchanged."""
    rules = make_rules(knobs)
    note(repro(knobs, seed, bias))
    rng = np.random.default_rng(seed ^ 0xC0FFEE)
    stats = Counter()

    def on_step(eng, step, snap, mask_row):
        if step == 0 or (stats["positions"] < 6 and rng.random() < 0.03):
            stats["positions"] += 1
            check_no_leak(eng, rules, rng, repro(knobs, seed, bias, step), stats)
        return None

    eng, _ = play(knobs, seed, bias, on_step)
    check_no_leak(eng, rules, rng, repro(knobs, seed, bias, -1), stats)   # the final position too
    note(f"{stats}")


@settings(max_examples=examples(30))
@given(knobs=knob_sets(episode="hand", long_hands=False), seed=seeds)
def test_no_hidden_information_in_aec_observe(knobs, seed):
    """Property 7 (AEC env): ``env.observe(agent)`` (observation and mask) is unchanged when the cards
    hidden from that agent are re-dealt (through ``save_game``/``restore_game``)."""
    note(repro(knobs, seed, 0.0))
    env = rummy_env.env(**knobs)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    rules = env.unwrapped.rules
    checks = 0
    for step, agent in enumerate(env.agent_iter(max_iter=5000)):
        observation, reward, terminated, truncated, info = env.last()
        if terminated or truncated:
            break
        if step == 0 or (checks < 4 and rng.random() < 0.05):
            checks += 1
            saved = env.unwrapped.save_game()
            for observer_agent in env.possible_agents:
                observer = env.unwrapped.agent_name_mapping[observer_agent]
                moved = dict(saved, position=redeal_hidden(saved["position"], observer, rng))
                other = rummy_env.env(**knobs)
                other.reset(seed=seed + 1)
                other.unwrapped.restore_game(moved)
                mine, theirs = env.observe(observer_agent), other.observe(observer_agent)
                assert np.array_equal(mine["observation"], theirs["observation"]), (
                    f"{observer_agent}'s observation depends on hidden cards at step {step}")
                assert np.array_equal(mine["action_mask"], theirs["action_mask"]), (
                    f"{observer_agent}'s mask depends on hidden cards at step {step}")
        env.step(choose(rng, np.flatnonzero(observation["action_mask"]), 0.5, rules))
    assert checks >= 1


# ============================================================================================ pinned cases
def test_pinned_taken_card_already_laid_then_lay_off_leaving_one_card():
    """Found by ``test_mask_equals_oracle`` (4 players, default knobs). The card taken from the discard
    pile (7♣) was laid off earlier this turn; the hand is {9♣, Q♦}. Laying off 9♣ leaves Q♦, which is
    not the taken card and can be discarded, so the lay-off is legal (B7 forbids discarding only the
    taken card; B18 masks a play only if the turn could not be finished). Same with
    ``must_discard_to_go_out`` (Q♦ is then discarded to go out)."""
    for knobs in ({}, {"must_discard_to_go_out": True}):
        rules = make_rules({"num_players": 2, **knobs})
        position = {"phase": "play", "current": 0, "hands": ["9C QD", "2H 3H 4H"], "discard": ["KS"],
                    "table": [{"owner": 0, "cards": "4C 5C 6C 7C 8C"}], "taken": "7C", "played_this_turn": True,
                    "known": [[], []]}
        eng = RummyEngine(rules, 1, parallel=False)
        eng.reset(seed=0)
        eng.load(0, position)
        lay_off_9c = eng.layout.lay_off(0, O.parse_card("9C"))
        assert lay_off_9c in O.legal_actions(eng.snapshot(0), rules)
        assert eng.legal_action_mask()[0][lay_off_9c] == 1, (
            f"{knobs}: engine masks 'lay off 9♣' although Q♦ (not the taken 7♣) remains to discard: "
            f"{eng.explain_illegal(0, lay_off_9c)}")


@pytest.mark.parametrize("episode", ["hand", "game"])
def test_pinned_stock_empty_at_deal_without_rebuild(episode):
    """E17 with ``reshuffle_keep_top = false`` and ``max_reshuffles = 0``: 3 x 17 cards plus the upcard
    leave no stock, and the first turn would need a rebuild beyond the cap, so the hand is dead at once
    (B11, B17). The row must then be either done, or (``episode="game"``) playable: a row that is not
    done must have a legal action (property 8), and the dead hands count toward ``max_hands`` (B14)."""
    rules = make_rules({"num_players": 3, "hand_size_by_players": {3: 17}, "reshuffle_keep_top": False,
                        "max_reshuffles": 0, "episode": episode, "max_hands": 3})
    eng = RummyEngine(rules, 1, parallel=False)
    eng.reset(seed=0)
    snap = eng.snapshot(0)
    assert snap["end_reason"] == "dead_reshuffles" and snap["hands_played"] >= 1
    assert bool(eng.legal_action_mask()[0].any()) == (not eng.done[0]), (
        f"episode={episode}: phase {snap['phase']}, done={bool(eng.done[0])}, but the mask is empty: "
        "the row can neither act nor be over")
