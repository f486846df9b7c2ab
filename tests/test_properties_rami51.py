"""Property-based tests of the ``rami51`` engine (docs/rules.md: R1-R25 and the rami51 knobs) and its Lebanese "14" preset.

Hypothesis chooses the preset, 2-5 players, small hands (``hand_size`` 7-9, sometimes 13) and a spread of
knobs; a seeded numpy ``Generator`` plays random legal rounds (uniform over the legal actions, or, with
``bias`` > 0, preferring COMMIT and the plays -- melds, lay-offs, takes, swaps -- so that openings, all-at-once
outs, swaps and takes come up).

Both ways of meeting R23 (R25, knob ``dead_ends``) are covered: the rollouts, the named configurations, the
no-leak property and the pinned positions run under ``"prevent"`` (the look-ahead mask, the oracle's exhaustive
search) and ``"take_back"`` (local masks, TAKE_BACK; the oracle's local mode, no search, cheap). Under
``"take_back"`` random play walks into dead ends: the policy takes a TAKE_BACK when it is the only action, else
rarely (``VOLUNTARY_TAKE_BACK``), and still half the turns or more end taken back, so hands grow by the penalty
cards (to 30 and more), the penalty draws rebuild the stock and rounds end at ``max_turns_per_round``, which
``with_mode`` lowers to ``UNGUIDED_TAKE_BACK_TURNS`` (30) for these rounds (beyond it they only grow). Half or
more of the take_back rounds are therefore *guided* (``guide``): at a guided position the action is chosen among
those a "prevent" engine loaded with the same position allows, so that those rounds open and go out about as
often as "prevent" rounds, with a take-back in about a tenth of the turns; each guided position also checks that
the "prevent" mask is contained in the "take_back" one, and each turn of a guided round that ends without a
take-back is checked action by action to be legal under "prevent" too (the converse of R25's promise,
``check_turn_legal_under_prevent``; the guide stops after ``GUIDE_BUDGET_S`` seconds in a round). At every step:

1. the engine's action mask equals the independent oracle's legal set (``tests/oracle_rami51.py``): a
   ``RamiTurn`` is built from the engine snapshot at each turn start, and the turn's actions are replayed
   into it (the oracle puts a natural that fits both ends of a run at the HIGH end, as the engine does);
2. each action has exactly the oracle's effect: the hand of the player to act and the table (canonical
   form), the opened flag, the discard pile and the stock; after a TAKE_BACK also the rebuilds and the doomed
   flag of its penalty draws, and when they rebuilt the stock (whose shuffle the oracle cannot know) the cards
   drawn, the pile and the new stock are checked against the rebuilt cards and fed into the oracle
   (``RamiTurn.sync_after_rebuild``); the ``took_back`` flag and the seats' ``take_backs`` counts;
3. the 108 cards are conserved (hands + table + stock + discard = each natural twice + 4 jokers), hand
   sizes agree with the hands and the deal, table melds are valid, hands of the other seats do not change;
4. every round end is scored exactly as R19 says, recomputed from the final position (base penalties,
   all-at-once x2 / x4 with a joker final discard / flat 100 / Lebanese scaling by the jokers laid in the
   going-out turn, ``half_point_rounding``), the totals accumulate and the rewards are the documented ones;
5. rounds end within ``max_turns_per_round`` turns and turns within a bounded number of actions; the same
   seed and actions give the same snapshots; batch rows equal one-row engines (serial and parallel);
   re-dealing the cards hidden from a seat never changes its observation; observations stay in
   ``[0, 127]`` and the mask is all zero exactly when the row is done.

The R10 tally (``check_opening_count``) runs in every rollout of both modes (a TAKE_BACK clears it as an UNDO
does). R25's own promise is a property of its own: a round played under "prevent" replays action for action
under "take_back" (same rules and seed), every action legal there, the "prevent" mask inside the "take_back"
one, snapshots, observations and step results identical after every step.

Under "prevent" the oracle is exhaustive and can be slow on big hands with jokers (under "take_back" it has no
search), so each oracle call gets a time budget (``ORACLE_BUDGET_S``); a position whose call runs out of time is
not compared (the oracle then follows the engine's action unchecked, ``RamiTurn.apply(check=False)``), and a
round fails when the skips are too many
both ways: more than ``MAX_SKIP_FRACTION`` of the positions and more than that share of the turns (two of each
are always allowed). Time-outs come in two shapes: runs, one per position of a hard turn (the positions of a
turn share one search), which the turn count sees as one; and single hard positions scattered over many turns
(a draw phase whose pickup must prove an opening), which the position count sees as few.

Profiles: ``tests/conftest.py`` (``ci`` by default; ``HYPOTHESIS_PROFILE=thorough`` runs ``THOROUGH_SCALE``
times more examples and the ``slow`` tests). A failure prints the preset, knobs and seeds that replay it, the
turn-start position as JSON (``engine.load`` accepts it) and the actions of the turn.
"""

from __future__ import annotations

import contextlib
import copy
import json
import math
import os
import signal
import threading
import time
from collections import Counter

import numpy as np
import pytest
from hypothesis import example, given, note, settings
from hypothesis import strategies as st

from rummy_env import RummyEngine, RummyRules
from rummy_env.actions import COMMIT, DRAW_DISCARD, DRAW_STOCK, TAKE_BACK, UNDO

from opening_tally import OpeningTally

pytestmark = pytest.mark.prevent  # a "prevent" engine guides or checks most rounds here (tests/ci_profile.py)

try:  # tests/ is put on sys.path by conftest.py
    import oracle_rami51 as O
except ImportError:  # pragma: no cover
    from tests import oracle_rami51 as O

PROFILE = os.environ.get("HYPOTHESIS_PROFILE", "ci")
THOROUGH = PROFILE == "thorough"
THOROUGH_SCALE = 10
PARALLEL_PREVENT = THOROUGH  # the parallel engine under "prevent" (run_batch_vs_singles): make test-all
ORACLE_BUDGET_S = 10.0 if THOROUGH else 1.5     # per oracle call; a slower position is skipped, not failed
MAX_SKIP_FRACTION = 0.05
GUIDE_BUDGET_S = 20.0 if THOROUGH else 4.0    # per round: the "prevent" engine that guides a take_back round

JOKER = 52
DECK = Counter({**{t: 2 for t in range(52)}, JOKER: 4})
PLAY_PHASES = ("draw", "play")
OVER_PHASES = ("hand_over", "game_over")


def examples(n: int) -> int:
    """Examples per property test under the active profile."""
    if PROFILE == "dev":
        return min(n, 2)
    return n * THOROUGH_SCALE if THOROUGH else n


slow = pytest.mark.skipif(not THOROUGH, reason="heavy run: HYPOTHESIS_PROFILE=thorough pytest -m slow")

# ============================================================================================ knobs
# the knob spread of the brief: each entry is applied on top of a preset
KNOB_SPREAD = {
    "threshold71": {"opening_threshold": 71},
    "threshold81": {"opening_threshold": 81},
    "final_optional": {"final_discard": "optional"},
    "final_forbidden": {"final_discard": "forbidden"},
    "manual_announce": {"card_announcement": "manual"},
    "circular": {"circular_runs": True},
    "joker_zero": {"joker_opening_value": "zero"},
    "joker_35": {"joker_opening_value": 35},
    "aao_no_criteria": {"all_at_once_requires_opening_criteria": False},
    "aao_no_table": {"all_at_once_may_use_table": False},
    "swap_prior": {"joker_swap_requires_prior_opening": True},
    "freed_layoff": {"freed_joker_use": "new_meld_or_layoff"},
    "take_joker": {"can_take_joker_from_meld": True},
    "undos0": {"max_undos_per_turn": 0},
    "undos2": {"max_undos_per_turn": 2},
    "pickup_second_round": {"discard_pickup_from_second_round": True},
    "dead_penalties": {"dead_round_scoring": "hand_penalties"},
    "keep_top": {"reshuffle_keep_top": True},
}
# extra knobs that make openings (and so lay-offs, takes, swaps, outs) frequent with small hands, and
# exercise the scoring variants
EXTRA_SPREAD = {
    "low_threshold": {"opening_threshold": 20},
    "zero_threshold": {"opening_threshold": 0},
    "no_pure_run": {"opening_requires_pure_run": False},
    "aao_no_pure": {"all_at_once_requires_pure_run": False},
    "flat100": {"all_at_once_scoring": "flat100"},
    "joker_hand_50": {"joker_hand_value": 50},
    "ceil": {"half_point_rounding": "ceil"},
    "floor": {"half_point_rounding": "floor"},
    "no_take": {"allow_take_from_meld": False},
    "no_own_take": {"take_from_own_melds": False},
    "no_table_opening": {"opening_may_use_table": False},
    "dealer_no_meld": {"dealer_first_turn_may_meld": False},
    "pure_any_cards": {"pure_run_hand_cards_only": False},
    "every_pickup": {"discard_pickup_min_lay": 40, "discard_pickup_min_lay_scope": "every_pickup"},
    "burnt_pile": {"burnt_includes_discard_pile": True},
    "take_back_penalty0": {"take_back_penalty_cards": 0},       # R25 (no effect under "prevent")
    "take_back_penalty4": {"take_back_penalty_cards": 4},
}
LEBANESE_FORBIDDEN = {"all_at_once_may_use_table"}

# named configurations, each run with a few seeds (the brief's list; small hands unless stated)
NAMED = {
    "rami51_2p": ("rami51", {"num_players": 2}),
    "rami51_3p": ("rami51", {"num_players": 3}),
    "rami51_4p": ("rami51", {"num_players": 4}),
    "rami51_5p": ("rami51", {"num_players": 5}),
    "rami51_2p_13": ("rami51", {"num_players": 2, "hand_size": 13}),
    "lebanese14_2p": ("lebanese14", {"num_players": 2}),
    "lebanese14_3p_13": ("lebanese14", {"num_players": 3, "hand_size": 13}),
    "lebanese14_low": ("lebanese14", {"num_players": 2, "opening_threshold": 20, "discard_pickup_min_lay": 30,
                                      "joker_run_requires_burnt": False}),
    **{name: ("rami51", {"num_players": 2 + i % 3, **knobs}) for i, (name, knobs) in enumerate(KNOB_SPREAD.items())},
    "open_easy": ("rami51", {"num_players": 3, "opening_threshold": 15, "opening_requires_pure_run": False}),
    "open_easy_jokers": ("rami51", {"num_players": 2, "opening_threshold": 0, "opening_requires_pure_run": False,
                                    "can_take_joker_from_meld": True, "freed_joker_use": "new_meld_or_layoff"}),
    "open_easy_optional": ("rami51", {"num_players": 2, "opening_threshold": 10, "opening_requires_pure_run": False,
                                      "final_discard": "optional", "max_undos_per_turn": 2}),
    "open_easy_forbidden": ("rami51", {"num_players": 3, "opening_threshold": 10, "final_discard": "forbidden",
                                       "card_announcement": "manual"}),
    "open_easy_circular": ("rami51", {"num_players": 2, "opening_threshold": 10, "circular_runs": True,
                                      "opening_requires_pure_run": False}),
    "aao_relaxed": ("rami51", {"num_players": 2, "all_at_once_requires_opening_criteria": False,
                               "all_at_once_requires_pure_run": False, "all_at_once_may_use_table": False}),
    # R25 + R17: take-backs' penalty draws rebuild the stock and, past the cap, doom the round
    "reshuffle_cap": ("rami51", {"num_players": 5, "hand_size": 9, "max_reshuffles": 0, "take_back_penalty_cards": 4}),
    "reshuffle_cap_keep_top": ("rami51", {"num_players": 4, "hand_size": 9, "max_reshuffles": 1,
                                          "reshuffle_keep_top": True, "take_back_penalty_cards": 4}),
    "rebuilds": ("rami51", {"num_players": 5, "hand_size": 13}),
    "rebuilds_keep_top": ("rami51", {"num_players": 5, "hand_size": 13, "reshuffle_keep_top": True}),
}


MODES = ("take_back", "prevent")     # R25 dead_ends


@st.composite
def rami_configs(draw, preset: str | None = None, players: int | None = None, base: dict | None = None,
                 episode: str | None = None, mode: str | None = None) -> tuple[str, dict]:
    """(preset, knobs): a valid rami51 / lebanese14 configuration with a short round cap; ``dead_ends`` is
    ``mode``, or drawn."""
    preset = preset or draw(st.sampled_from(["rami51", "rami51", "rami51", "lebanese14"]))
    knobs = {"num_players": players or draw(st.integers(2, 5))}
    knobs["hand_size"] = draw(st.sampled_from([7, 8, 8, 9, 9, 9, 13]))
    for name in draw(st.lists(st.sampled_from(sorted(KNOB_SPREAD) + sorted(EXTRA_SPREAD)), max_size=4, unique=True)):
        extra = KNOB_SPREAD.get(name) or EXTRA_SPREAD[name]
        if preset == "lebanese14" and set(extra) & LEBANESE_FORBIDDEN:
            continue
        knobs.update(extra)
    knobs["max_turns_per_round"] = draw(st.sampled_from([6, 20, 40, 40, 60, 80]))
    if (episode or draw(st.sampled_from(["hand", "hand", "hand", "game"]))) == "game":
        knobs.update(episode="game", game_end_mode="rounds", num_rounds=draw(st.integers(1, 3)), max_rounds=3,
                     max_turns_per_round=min(knobs["max_turns_per_round"], 30))
    knobs["first_dealer"] = draw(st.sampled_from(["random", "random", 0, knobs["num_players"] - 1]))
    knobs["dead_ends"] = mode or draw(st.sampled_from(MODES))
    knobs.update(base or {})
    return preset, knobs


seeds = st.integers(0, 2**32 - 1)
biases = st.sampled_from([0.0, 0.5, 0.8, 0.8, 0.95])
# take_back rounds: unguided (random play walks into dead ends: about half the turns are taken back, hands grow by
# the penalty cards, stock rebuilds come up, and rounds end at max_turns_per_round), or guided by a "prevent"
# engine (``play_round_checked``): take-backs in about a tenth of the turns, openings and outs as under "prevent"
guides = st.sampled_from([0.0, 0.9, 0.9])
UNGUIDED_TAKE_BACK_TURNS = 30    # the turn cap of an unguided take_back round (see ``with_mode``)


def with_mode(knobs: dict, mode: str, guide: float) -> dict:
    """``knobs`` under ``dead_ends = mode``. An unguided take_back round runs to its turn cap, its hands growing by
    the penalty cards (to 50 cards and more after 60 turns): its cap is lowered to ``UNGUIDED_TAKE_BACK_TURNS``,
    which keeps the take-backs, the rebuilds of their penalty draws and the crowded hands, at half the cost."""
    knobs = {**knobs, "dead_ends": mode}
    if mode == "take_back" and not guide:
        knobs["max_turns_per_round"] = min(knobs.get("max_turns_per_round", 1000), UNGUIDED_TAKE_BACK_TURNS)
    return knobs


def make_rules(preset: str, knobs: dict) -> RummyRules:
    return RummyRules.preset(preset, **knobs)


def repro(preset: str, knobs: dict, seed: int, bias: float, step: int | None = None, guide: float = 0.0) -> str:
    text = f"\nreplay: preset={preset!r} knobs={knobs!r} seed={seed} bias={bias}" + (f" guide={guide}" if guide else "")
    return text + (f" step={step}" if step is not None else "")


# ============================================================================================ oracle calls
class OracleTimeout(Exception):
    """An oracle call ran past ``ORACLE_BUDGET_S``."""


@contextlib.contextmanager
def time_budget(seconds: float):
    """Raise ``OracleTimeout`` in the body after ``seconds`` (SIGALRM; no limit off the main thread)."""
    if threading.current_thread() is not threading.main_thread() or not hasattr(signal, "setitimer"):
        yield
        return

    def alarm(signum, frame):
        raise OracleTimeout()

    previous = signal.signal(signal.SIGALRM, alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def canonical_table(table: list[dict]) -> list[tuple]:
    return sorted((m["slot"], m["owner"], m["kind"], tuple(sorted(m["cards"])), m["lo"], m["hi"], m["joker_at"])
                  for m in table)


def names(eng: RummyEngine, actions) -> list[str]:
    return [f"{int(a)}:{eng.action_to_str(int(a))}" for a in sorted(actions)]


def cards_text(cards) -> str:
    return " ".join(O.card_name(int(c)) for c in cards)


def show(snap: dict) -> str:
    """A readable position plus its JSON (``engine.load`` accepts the JSON as is)."""
    lines = [f"phase={snap['phase']} current={snap['current']} dealer={snap['dealer']} turn={snap['turn']} "
             f"first_turn={snap.get('first_turn')} opened={snap.get('opened')} taken={snap['taken']}"]
    for seat, hand in enumerate(snap["hands"]):
        lines.append(f"  hand {seat}: {cards_text(hand)}")
    lines.append(f"  stock ({len(snap['stock'])}), discard (top last): {cards_text(snap['discard'])}")
    for m in snap["table"]:
        lines.append(f"  slot {m['slot']} {m['kind']} of {m['owner']} [{m['lo']}..{m['hi']}] joker_at={m['joker_at']}: "
                     f"{cards_text(m['cards'])}")
    at_start = snap["phase"] == "draw" or (snap["phase"] == "play" and snap.get("first_turn")
                                            and not snap.get("turn_state", {}).get("tentative"))
    position = {k: v for k, v in snap.items() if not (at_start and k == "turn_state")}   # stale at a turn start
    lines.append("  position JSON: " + json.dumps(position))
    return "\n".join(lines)


# ============================================================================================ scoring (R19)
def hand_card_value(rules: RummyRules, card: int) -> int:
    if card == JOKER:
        return rules.joker_hand_value
    rank = card % 13 + 1
    if rank == 1:
        return rules.ace_fixed_value if rules.ace_fixed_value is not None else rules.ace_hand_value
    return min(rank, 10)


def base_penalty(rules: RummyRules, opened: bool, hand) -> float:
    """R19.1 (R21.1 under Lebanese): 100 for a non-opener, else the hand."""
    if not opened:
        return float(rules.non_opener_penalty)
    return float(sum(hand_card_value(rules, int(c)) for c in hand))


def round_half(rules: RummyRules, value: float) -> float:
    if rules.half_point_rounding == "ceil":
        return float(math.ceil(value))
    if rules.half_point_rounding == "floor":
        return float(math.floor(value))
    return value


def expected_scores(rules: RummyRules, winner: int | None, opened: list[bool], hands: list[list[int]],
                    all_at_once: bool, joker_final: bool, jokers_laid: int, dead_penalties: bool) -> list[float]:
    """R17 / R19 / R21.5 penalties of one round, from its final position."""
    players = rules.num_players
    if winner is None:
        if not dead_penalties:
            return [0.0] * players
        return [base_penalty(rules, opened[q], hands[q]) for q in range(players)]
    scores = [0.0] * players
    for q in range(players):
        if q == winner:
            continue
        score = base_penalty(rules, opened[q], hands[q])
        if all_at_once:
            if rules.all_at_once_joker_scaling:
                table = dict(rules.all_at_once_joker_scaling)
                factor = table[max(k for k in table if k <= jokers_laid)]
                score = round_half(rules, score * factor)
            elif rules.all_at_once_scoring == "flat100":
                score = 100.0
            elif joker_final:
                score *= rules.joker_finish_multiplier
            else:
                score *= rules.all_at_once_multiplier
        scores[q] = float(score)
    return scores


def jokers_laid_in_turn(lay: O.Layout, actions: list[int]) -> int:
    """Jokers the player laid this turn (new melds and lay-offs; freed and taken jokers included), counted
    from the turn's actions after its last UNDO or TAKE_BACK (R21.5, AL5)."""
    count = 0
    for a in actions:
        kind = lay.decode(a)
        if kind[0] in ("undo", "take_back"):
            count = 0
        elif kind[0] == "meld":
            count += O.JOKER in lay.catalogue[kind[1]][0]
        elif kind[0] == "lay":
            count += kind[2] >= 52
    return count


# ============================================================================================ invariants
def check_position(eng: RummyEngine, snap: dict, rules: RummyRules, where: str) -> None:
    """Property 3 (+ table validity, observation bounds, mask iff not done)."""
    players = rules.num_players
    r = eng.state[0]
    everything = Counter(int(c) for hand in snap["hands"] for c in hand)
    everything.update(int(c) for c in snap["stock"])
    everything.update(int(c) for c in snap["discard"])
    everything.update(int(c) for m in snap["table"] for c in m["cards"])
    assert everything == DECK, (f"cards not conserved: missing {dict(DECK - everything)}, extra {dict(everything - DECK)}"
                                f"{where}\n{show(snap)}")
    assert [int(v) for v in r["hand_n"][:players]] == [len(h) for h in snap["hands"]], f"hand_n != hands{where}"
    assert int(r["stock_n"]) == len(snap["stock"]) and int(r["pile_n"]) == len(snap["discard"])
    assert [m["slot"] for m in snap["table"]] == sorted(m["slot"] for m in snap["table"])
    for m in snap["table"]:
        cards = [int(c) for c in m["cards"]]
        naturals = [c for c in cards if c != JOKER]
        jokers = len(cards) - len(naturals)
        assert jokers <= 1 and len(naturals) >= 2, f"bad meld {m}{where}"
        if m["kind"] == "set":
            assert 3 <= len(cards) <= 4 and len({c % 13 for c in naturals}) == 1, f"bad set {m}{where}"
            assert len({c // 13 for c in naturals}) == len(naturals) and m["lo"] == m["hi"] == naturals[0] % 13 + 1
            if jokers and len(cards) == 4:
                assert m["joker_at"] == ({0, 1, 2, 3} - {c // 13 for c in naturals}).pop(), f"set joker suit {m}{where}"
        else:
            lo, hi = m["lo"], m["hi"]
            assert hi - lo + 1 == len(cards) >= 3, f"bad run span {m}{where}"
            if rules.circular_runs:
                assert 1 <= lo <= 13 and len(cards) <= 13, f"bad circular run {m}{where}"
            else:
                assert 1 <= lo and hi <= 14, f"run beyond its suit {m}{where}"
            suit = naturals[0] // 13
            joker_at = m["joker_at"] if jokers else None
            if jokers:
                assert lo <= joker_at <= hi, f"run joker outside the run {m}{where}"
            expected = sorted([O.pos_type(suit, p) for p in range(lo, hi + 1) if p != joker_at] + [JOKER] * jokers)
            assert expected == sorted(cards), f"run cards do not match its span {m}{where}"
    if snap["phase"] in PLAY_PHASES:
        assert all(len(h) >= 1 for h in snap["hands"]), f"an empty hand in play{where}"
    assert snap["turn"] <= rules.max_turns_per_round, f"turn counter beyond the cap{where}"
    # observations within their Box, mask all zero iff done
    obs = eng.observe()
    assert obs.dtype == np.int8 and obs.shape == (1, eng.observation_size)
    for seat in range(players):
        o = eng.observe(np.array([seat], dtype=np.int8))[0]
        assert o.min() >= 0 and o.max() <= 127, f"observation of seat {seat} outside [0, 127]{where}"


def check_deal(snap: dict, rules: RummyRules, where: str) -> None:
    """R4/R5: a fresh deal (the dealer has one card more and plays first without drawing)."""
    players, h = rules.num_players, rules.hand_size
    sizes = [h + (1 if seat == snap["dealer"] else 0) for seat in range(players)]
    assert [len(hand) for hand in snap["hands"]] == sizes, f"deal: hand sizes {[len(x) for x in snap['hands']]}{where}"
    assert snap["table"] == [] and snap["discard"] == [] and snap["turn"] == 0
    assert len(snap["stock"]) == 108 - players * h - 1
    assert snap["current"] == snap["dealer"] and snap["first_turn"] and snap["phase"] == "play"
    assert snap["opened"] == [False] * players


# ============================================================================================ the rollout
class Stats(Counter):
    """compared / skipped positions, turns and turns with a skipped position, oracle seconds, rounds by end, …"""


VOLUNTARY_TAKE_BACK = 0.1


def choose(rng: np.random.Generator, legal: np.ndarray, bias: float, lay: O.Layout) -> int:
    """Uniform over ``legal``; with probability ``bias``: COMMIT if legal (mostly), else a play if any (UNDO and
    TAKE_BACK are not plays). TAKE_BACK (R25) is taken when it is the only action, else with probability
    ``VOLUNTARY_TAKE_BACK``: uniform play would take half the turns back, and each take-back adds penalty cards
    to a hand, so that rounds would hardly ever end by going out (the choice consumes nothing of ``rng`` when
    TAKE_BACK is not legal: "prevent" rounds are as before)."""
    if legal.size > 1 and (legal == TAKE_BACK).any():
        if rng.random() < VOLUNTARY_TAKE_BACK:
            return TAKE_BACK
        legal = legal[legal != TAKE_BACK]
    if bias > 0 and rng.random() < bias:
        plays = legal[(legal >= COMMIT) & (legal != UNDO) & (legal != TAKE_BACK) & (legal < lay.DISC)]
        if plays.size:
            if COMMIT in plays and rng.random() < 0.9:
                return COMMIT
            return int(rng.choice(plays))
    return int(rng.choice(legal))


def turn_action_bound(rules: RummyRules, hand_after_draw: int) -> int:
    """A generous bound on the actions of one turn: a draw, the discard, a TAKE_BACK (R25), and per undo
    round at most a COMMIT plus, per card laid, a play and a TAKE that brought it."""
    return 3 + (rules.max_undos_per_turn + 1) * (3 * (hand_after_draw + 8) + 1)


def play_round_checked(preset: str, knobs: dict, seed: int, bias: float, *, oracle: bool = True,
                       stats: Stats | None = None, on_position=None, guide: float = 0.0
                       ) -> tuple[RummyEngine, list[int], Stats]:
    """Play one episode in a one-row engine with every per-step check (properties 1-4, 5 termination, 8).

    ``on_position(eng, step, snap)`` sees every position before its action. ``guide`` > 0 (``dead_ends =
    "take_back"`` only): at each position, with that probability, the action is chosen among those that a
    "prevent" engine loaded with the same position allows (when it allows any), which must be legal here too
    (R25: take_back only adds actions), and each turn that ends without a TAKE_BACK is checked action by action
    against that engine (``check_turn_legal_under_prevent``); see ``guides``. The guide's searches can take seconds
    on crowded tables (4-5 players, 13 cards): past ``GUIDE_BUDGET_S`` in one round, the round goes on unguided.
    Returns the engine, the actions and the statistics."""
    rules = make_rules(preset, knobs)
    lay = O.layout(rules)
    eng = RummyEngine(rules, batch_size=1, parallel=False)
    eng.reset(seed=seed)
    rng = np.random.default_rng(seed ^ 0x5A5A)
    stats = stats if stats is not None else Stats()
    shadow = None            # the guide: a "prevent" engine loaded with each guided position
    turn_log: list = []      # guided rounds: (position, action, prevent mask or None) of the turn so far
    shadow_s = 0.0           # seconds spent in the guide; past GUIDE_BUDGET_S the round goes on unguided
    if guide > 0 and rules.dead_ends == "take_back":
        shadow = RummyEngine(make_rules(preset, {**knobs, "dead_ends": "prevent"}), 1, parallel=False)
        shadow.reset(seed=0)
        guide_rng = np.random.default_rng(seed ^ 0x6B6B)
    base = repro(preset, knobs, seed, bias, guide=guide)
    snap = eng.snapshot(0)
    if snap["phase"] in PLAY_PHASES:
        check_deal(snap, rules, base)
    actions: list[int] = []
    turn = None              # the oracle's RamiTurn of the current turn
    turn_start = None        # the engine snapshot at the turn start
    turn_actions: list[int] = []
    turn_timed_out = False   # an oracle call of this turn ran out of time
    hand_after_draw = 0
    rounds = rules.max_rounds if rules.episode == "game" else 1
    max_steps = rounds * (rules.max_turns_per_round + 1) * turn_action_bound(rules, 120)
    step = 0
    while True:
        where = repro(preset, knobs, seed, bias, step, guide)
        mask_row = eng.legal_action_mask()[0].copy()
        check_position(eng, snap, rules, where)
        done = bool(eng.done[0])
        assert mask_row.dtype == np.int8 and set(np.unique(mask_row)) <= {0, 1}
        assert bool(mask_row.any()) == (not done), (
            f"mask {'empty' if not mask_row.any() else 'non-empty'} but done={done} (phase {snap['phase']}){where}")
        if done:
            break
        assert step < max_steps, f"the episode did not end within {max_steps} steps{where}"
        if on_position is not None:
            on_position(eng, step, snap)
        # ---- a turn starts: a fresh oracle turn from the engine's position
        if turn_start is None:
            assert snap["phase"] == "draw" or (snap["phase"] == "play" and snap["first_turn"]), (
                f"a turn starts in phase {snap['phase']}{where}")
            turn_start = snap
            turn_start_text = show(snap)      # for the messages (built once a turn: turns can be long)
            turn_actions = []
            turn_names: list[str] = []
            hand_after_draw = len(snap["hands"][snap["current"]]) + (snap["phase"] == "draw")
            turn = O.RamiTurn(snap, rules, layoff_prefer="high") if oracle else None
            tally = OpeningTally(rules, lay)
            stats["turns"] += 1
            turn_timed_out = False
        engine_legal = {int(a) for a in np.flatnonzero(mask_row)}
        compared = False
        if turn is not None:
            started = time.perf_counter()
            try:
                with time_budget(ORACLE_BUDGET_S):
                    oracle_legal = turn.legal_actions()
                compared = True
            except OracleTimeout:
                stats["skipped"] += 1
                stats["skipped_turns"] += not turn_timed_out
                turn_timed_out = True
            stats["oracle_s"] += time.perf_counter() - started
            if compared:
                stats["compared"] += 1
                if engine_legal != oracle_legal:
                    raise AssertionError(
                        f"mask != oracle at step {step} (action {len(turn_actions)} of the turn):\n"
                        f"  engine only: {names(eng, engine_legal - oracle_legal)}\n"
                        f"  oracle only: {names(eng, oracle_legal - engine_legal)}\n"
                        f"  turn actions so far: {[eng.action_to_str(a) for a in turn_actions]} (ids {turn_actions})"
                        f"{where}\n"
                        f"turn-start position:\n{show(turn_start)}")
        # ---- the action
        legal = np.flatnonzero(mask_row)
        allowed = None
        if shadow is not None and shadow_s > GUIDE_BUDGET_S:   # crowded tables: its searches take seconds
            shadow, turn_log = None, []
            stats["guide_stopped"] += 1
        if shadow is not None and guide_rng.random() < guide and guide_fits(rules, snap):
            started = time.perf_counter()
            allowed = prevent_mask(shadow, snap)
            shadow_s += time.perf_counter() - started
            assert allowed[0] <= engine_legal, (
                f"allowed under 'prevent', not under 'take_back': {names(eng, allowed[0] - engine_legal)}"
                f"{where}\n{show(snap)}")
            stats["guided"] += 1
            if allowed[0]:
                legal = np.array(sorted(allowed[0]), dtype=np.int64)
        action = choose(rng, legal, bias, lay)
        if shadow is not None:
            turn_log.append((snap, action, allowed))
        pre = snap
        me = pre["current"]
        result = eng.step([action])
        rewards, ended = result.rewards[0].copy(), bool(result.hand_ended[0])
        post = eng.snapshot(0)
        actions.append(action)
        turn_actions.append(action)
        turn_names.append(eng.action_to_str(action))
        step += 1
        where = repro(preset, knobs, seed, bias, step - 1, guide) + (
            f" action {action} ({turn_names[-1]}); turn actions {turn_names}\nturn-start position:\n{turn_start_text}")
        check_opening_count(rules, tally, action, pre, post, turn_start, stats, where)
        if action == TAKE_BACK:
            stats["take_backs"] += 1
            stats["take_back_rebuilds"] += post["reshuffles"] != pre["reshuffles"]
            stats["take_back_doomed"] += bool(post["turn_state"]["doomed"])
        if action in (DRAW_STOCK, DRAW_DISCARD):
            hand_after_draw = len(pre["hands"][me]) + 1
        assert len(turn_actions) <= turn_action_bound(rules, hand_after_draw), f"turn too long{where}"
        # ---- replay it into the oracle
        if turn is not None:
            try:
                if compared:
                    with time_budget(ORACLE_BUDGET_S):
                        turn.apply(action)
                else:
                    turn.apply(action, check=False)
            except OracleTimeout:
                turn.apply(action, check=False)
        round_over = post["hands_played"] != pre["hands_played"]
        turn_over = round_over or post["current"] != me or post["phase"] == "draw"
        if turn is not None:
            assert turn.ends_turn == turn_over, (
                f"oracle ends_turn={turn.ends_turn} but the engine's turn is over: {turn_over} "
                f"(end {post['end_reason']}){where}")
            check_effect(eng, rules, pre, post, turn, action, round_over, where)
        else:
            others = [q for q in range(rules.num_players) if q != me]
            if not round_over and not (turn_over and pre["hands"][me] and len(post["hands"][me]) > len(pre["hands"][me])):
                assert [post["hands"][q] for q in others] == [pre["hands"][q] for q in others], (
                    f"another seat's hand changed{where}")
        # ---- round end: scoring (R17, R19, R21.5) and rewards
        if round_over:
            check_round_end(rules, lay, pre, post, turn_start, turn_actions, rewards, ended, stats, where)
            if post["phase"] in PLAY_PHASES:            # episode "game": the next round was dealt at once
                check_deal(post, rules, where + " [next deal]")
        else:
            assert not ended and not rewards.any(), f"rewards {rewards} / hand_ended on a step that ends no round{where}"
        if turn_over:
            if turn is not None:
                stats["opened_turns"] += int(turn.opened and not turn_start["opened"][me])
            if shadow is not None and TAKE_BACK not in turn_actions:
                started = time.perf_counter()
                check_turn_legal_under_prevent(eng, rules, shadow, turn_log, stats, where)
                shadow_s += time.perf_counter() - started
            turn, turn_start = None, None
            turn_log = []
        snap = post
    return eng, actions, stats


def guide_fits(rules: RummyRules, snap: dict) -> bool:
    """The guide is asked only about hands of a size "prevent" play reaches (the deal, a draw, R7's two penalty
    cards): on the longer hands that take-backs build, one search of a "prevent" engine can run for a minute
    before it gives up (a 24-card hand of a 2-player round: 71 s)."""
    return len(snap["hands"][snap["current"]]) <= rules.hand_size + 3


def prevent_mask(shadow: RummyEngine, snap: dict) -> tuple[set, bool]:
    """The legal set of a "prevent" engine loaded with ``snap``, and whether its search gave up (R23: a play it
    could not prove finishable within its budget is masked out) while computing it."""
    before = shadow.search_stats()["gave_up"]
    shadow.load(0, snap)
    allowed = {int(a) for a in np.flatnonzero(shadow.legal_action_mask()[0])}
    return allowed, shadow.search_stats()["gave_up"] > before


def check_turn_legal_under_prevent(eng: RummyEngine, rules: RummyRules, shadow: RummyEngine, turn_log: list,
                                   stats: Stats, where: str) -> None:
    """The converse of R25's promise, on a turn of a "take_back" round that ended without a TAKE_BACK: it was
    finished, so each of its positions could be finished, and each of its actions is legal under "prevent" too
    (a pickup's ``can_use`` included: the part of the turn after its last UNDO finishes without undo), unless the
    "prevent" search gave up on that position. One exception, R16 with ``all_at_once_may_use_table = false``: a
    not-opened player's play on a turn-start meld needs an ordinary opening reachable WITHOUT undo, so a play
    that the turn later undid proves nothing; the plays before the turn's last UNDO are not checked then."""
    undos = [k for k, (_snap, action, _allowed) in enumerate(turn_log) if action == UNDO]
    unproven = undos[-1] if undos and not rules.all_at_once_may_use_table else 0
    for k, (snap, action, allowed) in enumerate(turn_log):
        if 0 < k < unproven:
            stats["converse_undone"] += 1
            continue
        if allowed is None and not guide_fits(rules, snap):
            stats["converse_big_hand"] += 1
            continue
        if allowed is None:
            allowed = prevent_mask(shadow, snap)
        if allowed[1]:
            stats["converse_gave_up"] += 1
            continue
        stats["converse_checked"] += 1
        assert action in allowed[0], (
            f"a turn ended without a take-back, but its action {k} ({eng.action_to_str(action)}) is masked under "
            f"'prevent' (prevent allows {names(eng, allowed[0])}){where}\nposition:\n{show(snap)}")


def check_opening_count(rules: RummyRules, tally: OpeningTally, action: int, pre: dict, post: dict, turn_start: dict,
                        stats: Stats, where: str) -> None:
    """The R10 oracle (R11.1, R16): at every accepted COMMIT and every all-at-once out, the engine's count equals
    the R10 value of the own cards laid this turn, recomputed from the table (``OpeningTally``), and meets the
    threshold the rules ask for."""
    if action in (DRAW_STOCK, DRAW_DISCARD):
        return
    me = pre["current"]
    tally.apply(action, pre, post)
    threshold = rules.opening_threshold
    if pre["taken"] is not None and rules.discard_pickup_min_lay is not None:
        threshold = rules.discard_pickup_min_lay
    if action == COMMIT:
        counted = tally.points(pre["table"])
        assert counted == pre["turn_state"]["turn_points"], (
            f"COMMIT judged on {pre['turn_state']['turn_points']} points; the table holds {counted}{where}")
        assert counted >= threshold, f"COMMIT accepted with {counted} < {threshold} points{where}"
        stats["commits_checked"] += 1
        return
    out = post["hands_played"] != pre["hands_played"] and post["end_reason"] == "out" and post["winner"] == me
    all_at_once = out and not turn_start["opened"][me] and not pre["opened"][me]   # no COMMIT earlier this turn
    if not all_at_once or post["phase"] not in OVER_PHASES:   # "game" episodes deal the next round at once
        return
    counted = tally.points(post["table"])
    assert counted == post["turn_state"]["turn_points"], (
        f"all-at-once out judged on {post['turn_state']['turn_points']} points; the table holds {counted}{where}")
    if rules.all_at_once_requires_opening_criteria:
        assert counted >= threshold, f"all-at-once out accepted with {counted} < {threshold} points{where}"
    stats["aao_checked"] += 1


def check_effect(eng: RummyEngine, rules: RummyRules, pre: dict, post: dict, turn: O.RamiTurn, action: int,
                 round_over: bool, where: str) -> None:
    """Property 2: the oracle's replayed position equals the engine's (hand, table, opened, piles)."""
    me = turn.me
    game_redeal = round_over and post["phase"] in PLAY_PHASES
    if game_redeal:         # episode "game": the next round is already dealt; nothing of this one is left to compare
        return
    hand = post["hands"][me]
    if action == TAKE_BACK:
        check_take_back(pre, post, turn, where)
    expected = turn.hand_after()
    if turn.ends_turn and not turn.announced:
        penalty = Counter(hand) - Counter(expected)
        assert not (Counter(expected) - Counter(hand)) and sum(penalty.values()) <= turn.penalty_cards_due, (
            f"hand after an unannounced discard: {cards_text(hand)}, oracle {cards_text(expected)} "
            f"+ up to {turn.penalty_cards_due} penalty cards{where}")
    else:
        assert hand == expected, (f"hand after the action: engine {cards_text(hand)}, oracle {cards_text(expected)}"
                                  f"{where}")
    assert canonical_table(post["table"]) == canonical_table(turn.table_after()), (
        f"table after the action:\n  engine {canonical_table(post['table'])}\n  oracle {canonical_table(turn.table_after())}"
        f"{where}")
    if post["end_reason"] == "out" and round_over:
        assert post["winner"] == me and turn.goes_out, f"winner {post['winner']}, oracle goes_out={turn.goes_out}{where}"
    else:
        assert post["opened"][me] == turn.opened, f"opened: engine {post['opened'][me]}, oracle {turn.opened}{where}"
    others = [q for q in range(rules.num_players) if q != me]
    assert [post["hands"][q] for q in others] == [pre["hands"][q] for q in others], f"another seat's hand changed{where}"
    assert [post["opened"][q] for q in others] == [pre["opened"][q] for q in others], f"another seat's opened changed{where}"
    rebuilt = post["reshuffles"] != pre["reshuffles"] and action != TAKE_BACK    # a take-back's rebuild is synced
    if not rebuilt and turn.announced:
        assert post["discard"] == turn.discard_after(), (
            f"discard pile: engine {cards_text(post['discard'])}, oracle {cards_text(turn.discard_after())}{where}")
        assert post["stock"] == turn.stock_after(), f"stock differs from the oracle's{where}"
    if not turn.ends_turn and not round_over:
        assert post["phase"] == "play" and post["current"] == me
        assert bool(post["turn_state"]["took_back"]) == turn.took_back, f"took_back differs from the oracle's{where}"
        assert post["take_backs"] == pre["take_backs"][:me] + [pre["take_backs"][me] + (action == TAKE_BACK)] + \
            pre["take_backs"][me + 1:], f"take_backs {pre['take_backs']} -> {post['take_backs']}{where}"


def check_take_back(pre: dict, post: dict, turn: O.RamiTurn, where: str) -> None:
    """R25's effect beyond the hand and the table: the stock rebuilds of its draws (R17) and the doomed round. The
    cards drawn from a rebuilt stock, and the rebuilt stock, are fed into the oracle after its checks."""
    me = turn.me
    assert post["reshuffles"] == turn.reshuffles, (
        f"reshuffles {pre['reshuffles']} -> {post['reshuffles']}, oracle {turn.reshuffles}{where}")
    assert bool(post["turn_state"]["doomed"]) == turn.doomed, f"doomed: oracle {turn.doomed}{where}"
    missing = Counter(turn.hand_after()) - Counter(post["hands"][me])
    assert not missing, f"take-back: the engine's hand lacks {cards_text(missing.elements())}{where}"
    if turn.needs_sync:
        drawn = list((Counter(post["hands"][me]) - Counter(turn.hand_after())).elements())
        try:
            turn.sync_after_rebuild(drawn, post["discard"], post["stock"])
        except ValueError as error:
            raise AssertionError(f"take-back with a stock rebuild: {error}{where}") from None


def check_round_end(rules: RummyRules, lay: O.Layout, pre: dict, post: dict, turn_start: dict, turn_actions: list[int],
                    rewards: np.ndarray, ended: bool, stats: Stats, where: str) -> None:
    """Property 4: R19 scores of the round that just ended, recomputed from its final position."""
    players = rules.num_players
    me = pre["current"]
    assert ended, f"a round ended but hand_ended is False{where}"
    stats["rounds"] += 1
    stats["end_" + str(post["end_reason"])] += 1
    several = post["hands_played"] - pre["hands_played"] > 1
    final = post if post["phase"] in OVER_PHASES else None     # episode "game" deals the next round at once
    if post["end_reason"] == "out" and not several:
        last = turn_actions[-1]
        kind = lay.decode(last)
        all_at_once = not turn_start["opened"][me]
        joker_final = kind[0] == "discard" and kind[1] == JOKER
        jokers = jokers_laid_in_turn(lay, turn_actions)
        stats["aao"] += all_at_once
        stats["aao_joker_final"] += all_at_once and joker_final
        opened = list(pre["opened"])
        hands = [list(h) for h in pre["hands"]]           # the others' hands do not change in the winner's turn
        expected = expected_scores(rules, me, opened, hands, all_at_once, joker_final, jokers, False)
        assert post["winner"] == me, f"winner {post['winner']} != {me}{where}"
        if final is not None:
            assert post["hands"][me] == [], f"the winner's hand is not empty{where}"
    elif final is not None and not several:
        assert post["end_reason"].startswith("dead"), f"end_reason {post['end_reason']}{where}"
        assert post["winner"] is None
        expected = expected_scores(rules, None, list(post["opened"]), post["hands"], False, False, 0,
                                   rules.dead_round_scoring == "hand_penalties")
    else:
        stats["rounds_unscored"] += 1
        return
    assert post["hand_scores"] == pytest.approx(expected, abs=1e-9), (
        f"hand_scores {post['hand_scores']} != R19 {expected} (end {post['end_reason']}, turn-start opened "
        f"{turn_start['opened']}, jokers laid {jokers_laid_in_turn(lay, turn_actions)}){where}")
    totals = [a + b for a, b in zip(pre["totals"], expected)]
    assert post["totals"] == pytest.approx(totals, abs=1e-9), f"totals {post['totals']} != {totals}{where}"
    if rules.episode == "hand" and rules.reward == "score":
        s = np.asarray(expected, dtype=np.float64)
        documented = (s.sum() - players * s) / ((players - 1) * rules.reward_scale)
        np.testing.assert_allclose(rewards, documented, rtol=1e-5, atol=1e-6, err_msg=f"rewards{where}")
    assert abs(float(rewards.sum())) < 1e-4, f"rewards {rewards} not zero-sum{where}"


def assert_few_skips(stats: Stats, where: str) -> None:
    seen = stats["compared"] + stats["skipped"]
    few_positions = stats["skipped"] <= max(2, MAX_SKIP_FRACTION * seen)
    assert few_positions or stats["skipped_turns"] <= max(2, MAX_SKIP_FRACTION * stats["turns"]), (
        f"the oracle ran out of time in {stats['skipped_turns']} of {stats['turns']} turns ({stats['skipped']} of "
        f"{seen} positions, budget {ORACLE_BUDGET_S}s){where}")


# ============================================================================================ 1-5, 8. rollouts
@pytest.mark.parametrize("mode", MODES)
@settings(max_examples=examples(40))
@given(config=rami_configs(mode="prevent"), seed=seeds, bias=biases, guide=guides)
@example(config=("rami51", {"num_players": 2, "hand_size": 13, "max_turns_per_round": 60}), seed=5, bias=0.7, guide=0.0)
@example(config=("rami51", {"num_players": 3, "hand_size": 9, "max_turns_per_round": 60}), seed=5, bias=0.7, guide=0.9)
def test_random_rounds_match_the_oracle(mode, config, seed, bias, guide):
    """Properties 1-4 and 8 at every step, over random presets, player counts and knob mixes, under both
    ``dead_ends`` (the same configurations: ``mode`` replaces the drawn one)."""
    preset, knobs = config
    knobs = with_mode(knobs, mode, guide)
    note(repro(preset, knobs, seed, bias, guide=guide))
    _, _, stats = play_round_checked(preset, knobs, seed, bias, guide=guide)
    note(f"{dict(stats)}")
    assert_few_skips(stats, repro(preset, knobs, seed, bias, guide=guide))


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name", sorted(NAMED))
@settings(max_examples=examples(3))
@given(seed=seeds, bias=biases, hand=st.sampled_from([7, 8, 9]), cap=st.sampled_from([30, 60]), guide=guides)
def test_named_configs_match_the_oracle(name, mode, seed, bias, hand, cap, guide):
    """Properties 1-4 and 8 for each named configuration of the brief (rami51 2-5 players, lebanese14, every
    knob of the spread), a few seeds each, under both ``dead_ends``."""
    preset, base = NAMED[name]
    knobs = with_mode({"hand_size": hand, "max_turns_per_round": cap, **base}, mode, guide)
    note(repro(preset, knobs, seed, bias, guide=guide))
    _, _, stats = play_round_checked(preset, knobs, seed, bias, guide=guide)
    note(f"{dict(stats)}")
    assert_few_skips(stats, repro(preset, knobs, seed, bias, guide=guide))


@pytest.mark.slow
@slow
@settings(max_examples=examples(10))
@given(config=rami_configs(base={"hand_size": 13, "max_turns_per_round": 100}), seed=seeds, bias=biases, guide=guides)
def test_full_hands_match_the_oracle(config, seed, bias, guide):
    """As above with the seed's 13-card hands and longer rounds (slow: the oracle on 14-card hands)."""
    preset, knobs = config
    knobs = with_mode(knobs, knobs["dead_ends"], guide)
    note(repro(preset, knobs, seed, bias, guide=guide))
    _, _, stats = play_round_checked(preset, knobs, seed, bias, guide=guide)
    note(f"{dict(stats)}")
    assert_few_skips(stats, repro(preset, knobs, seed, bias, guide=guide))


# ============================================================================================ 5. determinism
@settings(max_examples=examples(10))
@given(config=rami_configs(), seed=seeds, bias=biases)
def test_same_seed_same_actions_same_snapshots(config, seed, bias):
    """Two engines reset with the same seed and fed the same actions stay identical, snapshot for snapshot;
    a replay after a new ``reset(seed)`` of the first engine reproduces every snapshot."""
    preset, knobs = config
    knobs = with_mode(knobs, knobs["dead_ends"], 0.0)
    note(repro(preset, knobs, seed, bias))
    rules = make_rules(preset, knobs)
    lay = O.layout(rules)
    a, b = RummyEngine(rules, 1, parallel=False), RummyEngine(rules, 1, parallel=False)
    a.reset(seed=seed)
    b.reset(seed=seed)
    rng = np.random.default_rng(seed)
    trace, actions = [a.snapshot(0)], []
    while not a.done[0]:
        assert np.array_equal(a.legal_action_mask(), b.legal_action_mask())
        assert np.array_equal(a.observe(), b.observe())
        action = choose(rng, np.flatnonzero(a.legal_action_mask()[0]), bias, lay)
        ra, rb = a.step([action]), b.step([action])
        assert np.array_equal(ra.rewards, rb.rewards) and np.array_equal(ra.hand_ended, rb.hand_ended)
        actions.append(action)
        trace.append(a.snapshot(0))
        assert trace[-1] == b.snapshot(0), f"engines diverged at step {len(actions)}"
    a.reset(seed=seed)
    assert a.snapshot(0) == trace[0]
    for k, action in enumerate(actions):
        a.step([action])
        assert a.snapshot(0) == trace[k + 1], f"replay diverged at step {k + 1}"
    other = RummyEngine(rules, 1, parallel=False)
    other.reset(seed=seed + 1)
    assert other.snapshot(0)["hands"] != trace[0]["hands"] or other.snapshot(0)["stock"] != trace[0]["stock"]


# ============================================================================================ 5. batch == single
def run_batch_vs_singles(preset: str, knobs: dict, row_seeds: list[int], policy_seed: int, max_steps: int) -> int:
    """A serial batch engine and a parallel one, stepped together with the same actions, equal row for row
    (snapshot, mask, observations, rewards) to one-row engines with the same row seeds; finished rows are
    re-dealt (partial resets) until each row has played two episodes. The CI profile leaves the parallel engine
    out under "prevent" (``PARALLEL_PREVENT``): its two parallel kernels are a minute of compiling, for the same
    driver loop that every other family and mode checks here and in ``tests/test_properties.py``."""
    rules = make_rules(preset, knobs)
    size = len(row_seeds)
    serial = RummyEngine(rules, size, parallel=False)
    parallels = [RummyEngine(rules, size, parallel=True)] if PARALLEL_PREVENT or rules.dead_ends != "prevent" else []
    for batch in [serial, *parallels]:
        batch.reset(row_seeds=row_seeds)
    singles = []
    for s in row_seeds:
        one = RummyEngine(rules, 1, parallel=False)
        one.reset(row_seeds=[s])
        singles.append(one)
    rng = np.random.default_rng(policy_seed)
    resets = np.zeros(size, dtype=np.int64)
    seats = rng.integers(0, rules.num_players, size=size).astype(np.int8)
    step = 0
    for step in range(max_steps):
        where = repro(preset, knobs, policy_seed, 0.0, step) + f" row_seeds={row_seeds}"
        mask = serial.legal_action_mask().copy()
        obs, obs_seats = serial.observe().copy(), serial.observe(seats).copy()
        done = serial.done.copy()
        snaps = [serial.snapshot(i) for i in range(size)]
        for parallel in parallels:
            assert np.array_equal(parallel.legal_action_mask(), mask), f"parallel mask != serial{where}"
            assert np.array_equal(parallel.observe(), obs) and np.array_equal(parallel.observe(seats), obs_seats)
            assert np.array_equal(parallel.done, done)
            for i, snap in enumerate(snaps):
                assert parallel.snapshot(i) == snap, f"row {i}: parallel snapshot != serial{where}"
        for i, snap in enumerate(snaps):
            assert singles[i].snapshot(0) == snap, f"row {i}: batch snapshot != one-row engine{where}"
            assert np.array_equal(singles[i].legal_action_mask()[0], mask[i]), f"row {i} mask != single{where}"
            assert np.array_equal(singles[i].observe()[0], obs[i]), f"row {i} observation != single{where}"
            assert np.array_equal(singles[i].observe(seats[i:i + 1])[0], obs_seats[i])
            assert bool(singles[i].done[0]) == bool(done[i])
        refill = done & (resets < 1)
        if done.all() and not refill.any():
            break
        if refill.any():
            new_seeds = [int(x) for x in rng.integers(0, 2**63, size=size, dtype=np.uint64)]
            for batch in [serial, *parallels]:
                batch.reset(rows=refill, row_seeds=new_seeds)
            for i in np.flatnonzero(refill):
                singles[i].reset(row_seeds=[new_seeds[i]])
            resets += refill
            continue
        scores = rng.random(mask.shape)
        scores[mask == 0] = -1.0
        actions = scores.argmax(axis=1)
        rs = serial.step(actions)
        rewards, ended = rs.rewards.copy(), rs.hand_ended.copy()
        for parallel in parallels:
            rp = parallel.step(actions)
            assert np.array_equal(rp.rewards, rewards) and np.array_equal(rp.hand_ended, ended), (
                f"parallel step != serial{where}")
        assert not rewards[done].any() and not ended[done].any(), f"finished rows must get nothing{where}"
        for i in range(size):
            if done[i]:
                continue
            res = singles[i].step(actions[i:i + 1])
            assert np.array_equal(res.rewards[0], rewards[i]) and bool(res.hand_ended[0]) == bool(ended[i]), (
                f"row {i} step result != single{where}")
    return step


@settings(max_examples=examples(6))
@given(config=rami_configs(), row_seeds=st.lists(st.integers(0, 2**63 - 1), min_size=2, max_size=5), policy_seed=seeds)
def test_batch_rows_equal_single_games(config, row_seeds, policy_seed):
    """Serial and parallel batches equal one-row engines, record for record, with partial resets."""
    preset, knobs = config
    knobs = with_mode(knobs, knobs["dead_ends"], 0.0)      # random play: take_back rounds end at the turn cap
    note(repro(preset, knobs, policy_seed, 0.0) + f" row_seeds={row_seeds}")
    run_batch_vs_singles(preset, knobs, row_seeds, policy_seed, max_steps=4000 if THOROUGH else 400)


# ============================================================================================ 5. no leak
def redeal_hidden(snap: dict, observer: int, rng: np.random.Generator) -> dict:
    """The same position with the cards hidden from ``observer`` permuted among their hidden places (the
    stock and the other hands less their known cards; hand sizes kept). The hand of a player in the middle
    of his turn stays put when he is not the observer (his turn bookkeeping -- the UNDO copy -- refers to it)."""
    players = len(snap["hands"])
    mid_turn = snap["phase"] == "play"
    movable = [q for q in range(players) if q != observer and not (mid_turn and q == snap["current"])]
    hidden = list(snap["stock"])
    unknown_n = {}
    for q in movable:
        unknown = Counter(snap["hands"][q]) - Counter(snap["known"][q])
        unknown_n[q] = sum(unknown.values())
        hidden += list(unknown.elements())
    perm = [int(c) for c in rng.permutation(np.array(hidden, dtype=np.int64))]
    new = copy.deepcopy(snap)
    new["stock"] = perm[:len(snap["stock"])]
    k = len(snap["stock"])
    for q in movable:
        known_cards = list((Counter(snap["hands"][q]) & Counter(snap["known"][q])).elements())
        new["hands"][q] = sorted(known_cards + perm[k:k + unknown_n[q]])
        k += unknown_n[q]
    assert k == len(perm)
    return new


def load_fresh(rules: RummyRules, position: dict) -> RummyEngine:
    eng = RummyEngine(rules, 1, parallel=False)
    eng.reset(seed=0)
    eng.load(0, position)
    return eng


def seat_view(eng: RummyEngine, seat: int) -> np.ndarray:
    return eng.observe(np.array([seat], dtype=np.int8))[0].copy()


def check_no_leak(eng: RummyEngine, rules: RummyRules, rng: np.random.Generator, where: str, stats: Stats) -> None:
    snap = eng.snapshot(0)
    same = load_fresh(rules, snap)
    assert same.snapshot(0) == snap, f"snapshot/load round trip changed the position{where}"
    assert np.array_equal(same.legal_action_mask()[0], eng.legal_action_mask()[0]), f"load(snapshot) changed the mask{where}"
    for observer in range(rules.num_players):
        original = seat_view(eng, observer)
        assert np.array_equal(seat_view(same, observer), original), f"load(snapshot) changed seat {observer}'s view{where}"
        moved = redeal_hidden(snap, observer, rng)
        other = load_fresh(rules, moved)
        view = seat_view(other, observer)
        if not np.array_equal(view, original):
            blocks = eng.observation_layout.split(original)
            changed = [k for k, v in eng.observation_layout.split(view).items() if not np.array_equal(v, blocks[k])]
            raise AssertionError(f"seat {observer}'s observation depends on hidden cards: blocks {changed}{where}\n"
                                 f"{show(snap)}\nre-dealt:\n{show(moved)}")
        if snap["current"] == observer and snap["phase"] in PLAY_PHASES:
            assert np.array_equal(other.legal_action_mask()[0], eng.legal_action_mask()[0]), (
                f"the mask of seat {observer} (to act) depends on hidden cards{where}\n{show(snap)}")
        for q in range(rules.num_players):   # the test can fail: a seat whose own hand changed sees it
            if q != observer and moved["hands"][q] != snap["hands"][q]:
                assert not np.array_equal(seat_view(other, q), seat_view(eng, q)), f"seat {q}'s hand changed unseen{where}"
                stats["sensitive"] += 1
        stats["redeals"] += 1


@pytest.mark.parametrize("mode", MODES)
@settings(max_examples=examples(8))
@given(config=rami_configs(), seed=seeds, bias=biases, guide=guides)
def test_no_hidden_information_in_observations(mode, config, seed, bias, guide):
    """Re-dealing what a seat cannot see (other hands less their known cards, the stock; counts per seat
    kept) leaves ``engine.observe()`` for that seat, and the mask of the seat to act, unchanged. Under
    ``"take_back"`` the positions right after a TAKE_BACK are always checked (R25: the cards seen going back
    into the hand are known, the cards drawn are not)."""
    preset, knobs = config
    knobs = with_mode(knobs, mode, guide)
    note(repro(preset, knobs, seed, bias, guide=guide))
    rules = make_rules(preset, knobs)
    rng = np.random.default_rng(seed ^ 0xC0FFEE)
    stats = Stats()

    def on_position(eng, step, snap):
        after_take_back = snap["phase"] == "play" and bool(snap["turn_state"].get("took_back"))
        if (step == 0 or (stats["positions"] < 8 and rng.random() < 0.08)
                or (after_take_back and stats["after_take_back"] < 3)):
            stats["positions"] += 1
            stats["after_take_back"] += after_take_back
            check_no_leak(eng, rules, rng, repro(preset, knobs, seed, bias, step, guide), stats)

    eng, _, _ = play_round_checked(preset, knobs, seed, bias, oracle=False, on_position=on_position, guide=guide)
    check_no_leak(eng, rules, rng, repro(preset, knobs, seed, bias, -1, guide), stats)
    note(f"{dict(stats)}")


# ============================================================================================ pinned cases
@pytest.mark.parametrize("mode", MODES)
def test_pinned_taken_joker_laid_off_onto_own_run(mode):
    """Found by the rollouts (rami51, 2 players, 13 cards, seed 5, "prevent"): an opened player may take a joker
    from the discard pile when he can lay it off onto his own run without joker (R6, R9, R12); the oracle had
    not counted a joker lay-off as laying the taken card (I3)."""
    rules = make_rules("rami51", {"num_players": 2, "dead_ends": mode})
    position = {
        "phase": "draw", "current": 1, "dealer": 1, "turn": 36, "first_turn": False, "opened": [False, True],
        "hands": [[8, 9, 16, 17, 22, 25, 26, 32, 38, 41, 43, 43, 49], [10, 13, 21, 29]],
        "discard": [35, 47, 23, 21, 7, 2, 11, 51, 42, 19, 12, 44, 36, 20, 14, 3, 16, 10, 20, 33, 31, 7, 30, 28, 27,
                    49, 18, 18, 44, 19, 39, 27, 34, 5, 1, 52],
        "table": [{"owner": 1, "kind": "run", "cards": [40, 41, 42], "lo": 2, "hi": 4},
                  {"owner": 1, "kind": "set", "cards": [6, 32, 45], "lo": 7, "hi": 7},
                  {"owner": 1, "kind": "run", "cards": [48, 50, 52], "lo": 10, "hi": 12, "joker_at": 11}],
    }
    eng = load_fresh(rules, position)
    snap = eng.snapshot(0)
    turn = O.RamiTurn(snap, rules, layoff_prefer="high")
    assert DRAW_DISCARD in turn.legal_actions()
    assert eng.legal_action_mask()[0][DRAW_DISCARD] == 1
    eng.step([DRAW_DISCARD])
    turn.apply(DRAW_DISCARD)
    assert {int(a) for a in np.flatnonzero(eng.legal_action_mask()[0])} == turn.legal_actions()


# ============================================================================================ pinned positions
# Positions found by the rollouts where engine and oracle disagreed (each fixed in the engine since; see the docs),
# all under the look-ahead (dead_ends "prevent"); action ids in the layout with TAKE_BACK = 4 (R25 shifted every id
# from MELD on by one).
PINNED = {
    'take_chain': (
        'rami51', {'num_players': 2, 'hand_size': 13},
        '{"num_players": 2, "phase": "draw", "current": 0, "dealer": 1, "hands": [[17, 19, 19, 20, 21, 25, 27, 28, 33, 43, 44, 47, 49], [1, 7, 13, 42, 42, 45]], "stock": [4, 9, 39, 38, 35, 12, 51, 2, 46, 36, 25, 28, 17, 33, 47, 37, 52, 22, 6, 29, 23, 8, 14, 26, 48, 11, 37, 34, 46, 3, 5, 50, 15, 15, 0, 0, 24, 45, 40, 30, 31, 52, 13, 4, 1, 24, 52, 21, 38, 40, 26, 6, 32, 52, 41, 18, 5, 10, 9, 27, 16, 48, 43, 41, 49, 16, 18], "discard": [50, 51, 20, 2, 12, 22, 11, 7, 23, 3, 14, 10, 44, 8, 39], "table": [{"owner": 1, "kind": "run", "cards": [29, 30, 31, 32], "lo": 4, "hi": 7, "joker_at": null}, {"owner": 1, "kind": "run", "cards": [34, 35, 36], "lo": 9, "hi": 11, "joker_at": null}], "turn": 15, "first_turn": false, "opened": [false, true]}',
        [0, 199, 2272, 207, 3, 203]),
    'joker_set_swap': (
        'lebanese14', {'num_players': 3, 'hand_size': 13, 'allow_take_from_meld': False, 'max_undos_per_turn': 0, 'opening_threshold': 0, 'dealer_first_turn_may_meld': False},
        '{"num_players": 3, "phase": "draw", "current": 2, "dealer": 2, "hands": [[1, 13, 22, 24, 40, 45, 47], [12, 45, 50], [9, 14, 16, 23, 26, 31, 33, 43, 46, 49]], "stock": [38, 48, 42, 24, 0, 43, 46, 20, 16, 11, 19, 49, 29, 19, 5, 34, 39, 39, 8, 4, 51, 52, 42, 36, 51, 0, 23, 27, 28, 25, 5, 37, 1, 44, 3, 41, 13, 15, 14, 44, 6, 32, 30, 26, 31, 4, 36, 17, 50, 29, 18, 2, 27, 52, 17, 21, 32], "discard": [41, 40, 30, 35, 3, 25, 10, 48, 22, 38, 37, 18], "table": [{"owner": 1, "kind": "run", "cards": [9, 10, 11, 12], "lo": 10, "hi": 13, "joker_at": null}, {"owner": 1, "kind": "set", "cards": [21, 47, 52], "lo": 9, "hi": 9, "joker_at": null}, {"owner": 0, "kind": "set", "cards": [2, 15, 28], "lo": 3, "hi": 3, "joker_at": null}, {"owner": 0, "kind": "run", "cards": [6, 7, 8], "lo": 7, "hi": 9, "joker_at": null}, {"owner": 1, "kind": "set", "cards": [7, 20, 52], "lo": 8, "hi": 8, "joker_at": null}, {"owner": 2, "kind": "run", "cards": [33, 34, 35], "lo": 8, "hi": 10, "joker_at": null}], "turn": 12, "first_turn": false, "opened": [true, true, true]}',
        [1]),
    'circular_king_below_ace': (
        'rami51', {'num_players': 2, 'hand_size': 13, 'all_at_once_may_use_table': False, 'circular_runs': True},
        '{"num_players": 2, "phase": "draw", "current": 0, "dealer": 1, "hands": [[14, 15, 16, 18, 24, 25, 34, 37, 41, 48, 48, 52, 52], [6, 8, 19, 19, 25, 28, 29, 35, 38, 38, 40, 43, 46]], "stock": [46, 1, 3, 0, 4, 49, 47, 1, 0, 17, 24, 10, 22, 42, 44, 35, 39, 49, 17, 26, 9, 22, 27, 13, 34, 11, 3, 23, 50, 8, 7, 33, 52, 15, 27, 9, 52, 5, 12, 47, 29, 42, 14, 31, 4, 45, 13, 2, 10, 26, 32, 28, 50, 36, 23, 20, 2, 32, 16, 18, 21, 31, 30, 43, 51, 20, 45, 21, 41, 33, 40, 12, 11, 44, 7, 37, 6], "discard": [51, 39, 5, 30, 36], "table": [], "turn": 5, "first_turn": false, "opened": [false, false]}',
        [0, 188]),
    'every_pickup_out': (
        'lebanese14', {'num_players': 5, 'hand_size': 13, 'discard_pickup_min_lay': 40, 'discard_pickup_min_lay_scope': 'every_pickup', 'all_at_once_requires_pure_run': False},
        '{"num_players": 5, "phase": "draw", "current": 4, "dealer": 4, "hands": [[0, 7, 18, 19, 21, 21, 23, 30, 31, 38, 42, 45, 46], [40, 44, 47, 50], [13, 49, 51], [2, 4, 6, 8, 8, 10, 20, 24, 24, 28, 32, 38, 50], [11, 15, 15]], "stock": [22, 43, 33, 5, 11, 22, 31, 46, 7, 3, 40, 48, 1, 16, 51, 16, 49, 52, 14, 26, 1, 34], "discard": [19, 27, 12, 47, 29, 41, 14, 23, 25, 17, 20, 9, 45, 12, 43, 39, 6, 27, 10, 25, 2], "table": [{"owner": 2, "kind": "set", "cards": [0, 13, 26, 39], "lo": 1, "hi": 1, "joker_at": null}, {"owner": 2, "kind": "run", "cards": [32, 33, 34], "lo": 7, "hi": 9, "joker_at": null}, {"owner": 4, "kind": "set", "cards": [5, 18, 44], "lo": 6, "hi": 6, "joker_at": null}, {"owner": 4, "kind": "run", "cards": [35, 36, 37], "lo": 10, "hi": 12, "joker_at": null}, {"owner": 4, "kind": "set", "cards": [3, 29, 42, 52], "lo": 4, "hi": 4, "joker_at": 1}, {"owner": 2, "kind": "set", "cards": [9, 48, 52], "lo": 10, "hi": 10, "joker_at": null}, {"owner": 1, "kind": "set", "cards": [28, 41, 52], "lo": 3, "hi": 3, "joker_at": null}, {"owner": 1, "kind": "set", "cards": [4, 17, 30], "lo": 5, "hi": 5, "joker_at": null}, {"owner": 1, "kind": "run", "cards": [35, 36, 37], "lo": 10, "hi": 12, "joker_at": null}], "turn": 65, "first_turn": false, "opened": [false, true, true, false, true]}',
        [1, 666]),
    'joker_back_off_pure_run': (
        'rami51', {'num_players': 2, 'hand_size': 9, 'all_at_once_requires_opening_criteria': False, 'can_take_joker_from_meld': True, 'all_at_once_may_use_table': False, 'opening_threshold': 20, 'max_turns_per_round': 20},
        '{"num_players": 2, "phase": "draw", "current": 1, "dealer": 0, "hands": [[1, 2, 2, 4, 18], [5, 6, 21, 27, 28, 29, 31, 47, 52]], "stock": [3, 23, 40, 20, 17, 19, 8, 18, 11, 51, 26, 25, 19, 17, 37, 45, 38, 10, 29, 44, 31, 16, 38, 14, 51, 42, 7, 41, 33, 43, 27, 37, 15, 23, 10, 8, 25, 6, 30, 36, 50, 52, 1, 52, 34, 52, 3, 12, 14, 46, 48, 15, 39, 12, 40, 22, 39, 32, 44, 13, 46, 41, 9, 4, 11, 47, 5, 49, 13, 7, 22, 30, 48, 42, 36, 21, 43, 28, 0, 35, 16, 49, 24], "discard": [20, 0, 26, 24, 45, 50, 9], "table": [{"owner": 0, "kind": "run", "cards": [32, 33, 34, 35], "lo": 7, "hi": 10, "joker_at": null}], "turn": 7, "first_turn": false, "opened": [true, false]}',
        [1, 238, 3, 2272, 235, 433, 358, 2272, 37, 2276, 112, 2]),
    'grow_own_run_to_take_its_joker': (
        'rami51', {'num_players': 2, 'hand_size': 9, 'all_at_once_requires_opening_criteria': False, 'can_take_joker_from_meld': True, 'all_at_once_may_use_table': False, 'opening_threshold': 20, 'max_turns_per_round': 20},
        '{"num_players": 2, "phase": "draw", "current": 0, "dealer": 0, "hands": [[26, 30, 46, 47, 50, 52], [4]], "stock": [33, 25, 7, 34, 29, 15, 36, 52, 18, 28, 52, 49, 31, 3, 1, 46, 26, 29, 27, 39, 41, 30, 23, 2, 12, 38, 12, 39, 15, 19, 14, 40, 6, 35, 51, 11, 42, 28, 11, 32, 5, 14, 50, 7, 48, 43, 47, 3, 27, 0, 41, 20, 13, 8, 21, 51, 21, 49, 17, 24, 32, 13, 1, 40, 42, 16, 48, 52, 45, 44, 22, 31, 10, 6, 37, 18, 33], "discard": [19, 17, 5, 0, 16, 34, 44, 4, 43, 2, 20, 9, 45], "table": [{"owner": 1, "kind": "run", "cards": [35, 36, 37, 38], "lo": 10, "hi": 13, "joker_at": null}, {"owner": 1, "kind": "run", "cards": [22, 23, 24, 25], "lo": 10, "hi": 13, "joker_at": null}, {"owner": 0, "kind": "run", "cards": [8, 9, 10], "lo": 9, "hi": 11, "joker_at": null}], "turn": 14, "first_turn": false, "opened": [true, true]}',
        [1, 300, 2272, 536, 2286, 276]),
}
PINNED_DOCS = {'take_chain': "R13/R23: two TAKEs from the player's own tentative run expose its inner cards (5D, then 6D); the engine's `hopeless` prune counted only the cards takeable at once and wrongly masked MELD 6D 7D 8D (and later lay-offs) as dead ends.", 'joker_set_swap': "R14/R6: the discard top 6D can be laid after a lay-off of 8H makes the 3-card joker set 8C 8D JK swappable (8S frees the joker, MELD 6D 6H JK); the engine's prune did not count such a freed joker as reachable and masked DRAW_DISCARD.", 'circular_king_below_ace': "R20: with circular runs, a K may be laid off below a run starting at the ace (K-A-2-3); the engine's run_end_position returned position 0 for that end, which also meant 'closed'.", 'every_pickup_out': "R21.3/AL3 scope 'every_pickup': a pickup turn must lay the minimum even when it ends by going out; the engine skipped the check for a discard that empties the hand, so DRAW_DISCARD was legal with only 9 points layable.", 'joker_back_off_pure_run': "I9/R13, can_take_joker_from_meld: a player who has not opened melds his pure run 2H 3H 4H while a taken 10H is pending, then lays his joker off on that run. The line that finishes takes the joker back (the run is pure again), melds 10C 10H JK and commits. The oracle's pure-run prune (`_pure_possible`) did not see that taking the joker back restores purity, so it wrongly masked LAY_OFF JK; the engine was right (found by the thorough profile, seed 2251).", 'grow_own_run_to_take_its_joker': "R13/R6, can_take_joker_from_meld: an opened player melds JK 7S 8S with the taken 7S, then TAKEs KH from a table run. The line that finishes lays 9S off on his new run (now 4 cards), TAKEs its joker and melds JK KH AH. The oracle's relevance prune (P2) skipped the 9S lay-off and the joker TAKE as unrelated to the pending KH, so it wrongly masked the first TAKE; the engine was right (found by the thorough profile, seed 2249)."}


def replay_against_oracle(preset: str, knobs: dict, position: dict, actions: list[int], mode: str = "prevent"
                          ) -> list[int]:
    """Load ``position`` (a turn start), then at each step compare the mask with the oracle and take the next
    action while it is legal; returns the actions taken. The pinned positions were found under ``dead_ends =
    "prevent"`` (their actions id the layout with TAKE_BACK = 4); under "take_back" the same actions stay legal
    (R25 only adds actions) and the local masks are compared."""
    rules = make_rules(preset, {**knobs, "dead_ends": mode})
    eng = load_fresh(rules, position)
    turn = O.RamiTurn(eng.snapshot(0), rules, layoff_prefer="high")
    taken = []
    for action in actions + [None]:
        engine_legal = {int(a) for a in np.flatnonzero(eng.legal_action_mask()[0])}
        oracle_legal = turn.legal_actions()
        assert engine_legal == oracle_legal, (
            f"after {[eng.action_to_str(a) for a in taken]}: engine only {names(eng, engine_legal - oracle_legal)}, "
            f"oracle only {names(eng, oracle_legal - engine_legal)}")
        if action is None or action not in engine_legal:
            break
        eng.step([action])
        turn.apply(action)
        taken.append(action)
    return taken


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name", sorted(PINNED))
def test_pinned_positions_match_the_oracle(name, mode):
    """See ``PINNED_DOCS[name]``."""
    preset, knobs, position, actions = PINNED[name]
    taken = replay_against_oracle(preset, knobs, json.loads(position), actions, mode)
    if mode == "take_back":          # the actions that were legal under "prevent" (some are not since the fixes)
        assert taken == actions


@pytest.mark.parametrize("mode", MODES)
def test_pinned_pure_run_after_its_joker_is_taken_back(mode):
    """rami51, can_take_joker_from_meld: the player melds A-2-3 of clubs (his pure run), lays his joker off at its
    high end (no longer pure, E42), TAKEs the joker back and melds it with 10S QS. At the COMMIT the run holds no
    joker again, and both the oracle (I9, "still without joker when the commit is judged") and the engine count it
    as the pure run (docs/rules.md R11.2 / AR8 define the pure run as a new meld without joker, but do not say when; the
    engine once cleared its purity for good when the joker was laid, and masked LAY_OFF JK out)."""
    preset, knobs, position, actions = (
        'rami51', {'num_players': 4, 'hand_size': 8, 'opening_threshold': 20, 'can_take_joker_from_meld': True, 'final_discard': 'forbidden', 'card_announcement': 'manual'},
        '{"num_players": 4, "phase": "draw", "current": 2, "dealer": 0, "hands": [[6, 9, 9, 17, 17, 18, 50, 52], [4, 45], [0, 2, 13, 20, 44, 48, 50, 52], [1, 7, 7, 19, 21, 28, 40, 43]], "stock": [22, 33, 41, 23, 23, 30, 27, 10, 0, 35, 32, 49, 11, 3, 12, 16, 43, 13, 30, 6, 4, 39, 2, 5, 36, 19, 8, 38, 49, 20, 28, 29, 48, 33, 51, 41, 15, 22, 47, 24, 39, 16, 35, 32, 51, 47, 34, 27, 26, 46, 37], "discard": [38, 46, 42, 3, 34, 14, 37, 31, 25, 24, 31, 25, 26, 18, 14, 15, 8, 29, 36, 52, 42, 5, 40, 21, 1], "table": [{"owner": 1, "kind": "run", "cards": [10, 11, 12], "lo": 11, "hi": 13, "joker_at": null}, {"owner": 1, "kind": "run", "cards": [44, 45, 52], "lo": 6, "hi": 8, "joker_at": 8}], "turn": 26, "first_turn": false, "opened": [false, true, false, false]}',
        [1, 327, 2272, 137, 3, 135])
    assert replay_against_oracle(preset, knobs, json.loads(position), actions, mode) == actions


@pytest.mark.parametrize("mode", MODES)
def test_pinned_take_then_lay_off_the_other_copy(mode):
    """rami51, 4 players, opened player 0 draws a joker; the set 6C 6D 6H 6S is on the table and he holds 6S. The oracle's
    line: TAKE 6S (pending), LAY_OFF his own 6S back onto the set, TAKE 6C (pending), MELD 6C 6S JK (one own card,
    R13), discard. The engine once masked the first TAKE as a dead end, and in the position after it offered no action
    at all, because its search ran out of budget on long TAKE chains (found by a low-threshold rollout, seed 4); a
    pending card's new-meld check and the growth check of 3-card melds (``can_grow``) now prune those chains."""
    preset, knobs, position, actions = (
        "rami51", {'num_players': 4, 'hand_size': 13, 'opening_requires_pure_run': False, 'opening_threshold': 5},
        '{"num_players": 4, "phase": "draw", "current": 0, "dealer": 3, "hands": [[15, 22, 23, 26, 28, 34, 40, 44, 50, 50], [1, 3, 11, 14, 25, 25, 30], [9, 14, 21, 21, 26, 41, 51], [2, 4, 5, 7, 43, 48]], "stock": [10, 40, 33, 46, 30, 31, 49, 39, 52, 41, 32, 52, 8, 0, 17, 16, 13, 29, 17, 12, 28, 0, 38, 47, 42, 51, 13, 11, 18, 1, 22, 24, 24, 15, 43, 20, 48, 9, 45, 19, 20, 47, 2, 37, 27, 39, 6, 8, 16, 19, 52], "discard": [27, 4, 12, 7, 46], "table": [{"owner": 3, "kind": "set", "cards": [3, 29, 42], "lo": 4, "hi": 4, "joker_at": null}, {"owner": 0, "kind": "set", "cards": [6, 45, 52], "lo": 7, "hi": 7, "joker_at": null}, {"owner": 1, "kind": "set", "cards": [10, 23, 36, 49], "lo": 11, "hi": 11, "joker_at": null}, {"owner": 1, "kind": "run", "cards": [32, 33, 34, 35], "lo": 7, "hi": 10, "joker_at": null}, {"owner": 2, "kind": "set", "cards": [5, 18, 31, 44], "lo": 6, "hi": 6, "joker_at": null}, {"owner": 3, "kind": "run", "cards": [35, 36, 37, 38], "lo": 10, "hi": 13, "joker_at": null}], "turn": 5, "first_turn": false, "opened": [true, true, true, true]}',
        [0, 2294])
    assert replay_against_oracle(preset, knobs, json.loads(position), actions, mode) == actions


@pytest.mark.parametrize("mode", MODES)
def test_the_opening_count_oracle_sees_commits_and_all_at_once_outs(mode):
    """The R10 oracle of ``check_opening_count`` is not vacuous: easy openings give COMMITs, and relaxed
    all-at-once criteria (a laying below them can only go out) give all-at-once outs, each judged on the points
    recomputed from the table; under "take_back" (guided rounds) also after take-backs, which clear the tally."""
    easy = {"num_players": 2, "hand_size": 7, "opening_threshold": 10, "opening_requires_pure_run": False,
            "max_turns_per_round": 40, "dead_ends": mode}
    relaxed = {"num_players": 2, "hand_size": 7, "all_at_once_requires_opening_criteria": False,
               "all_at_once_requires_pure_run": False, "max_turns_per_round": 40, "dead_ends": mode}
    stats = Stats()
    for seed in range(80):
        knobs = easy if not stats["commits_checked"] else relaxed
        play_round_checked("rami51", knobs, seed, (0.9, 0.5)[seed % 2], oracle=False, stats=stats, guide=0.9)
        if stats["commits_checked"] and stats["aao_checked"] and (mode == "prevent" or stats["take_backs"]):
            break
    assert stats["commits_checked"] > 0 and stats["aao_checked"] > 0, dict(stats)
    assert (stats["take_backs"] > 0) == (mode == "take_back"), dict(stats)


# ============================================================================================ R25: prevent == take_back
def differences(a: dict, b: dict, path: str = "") -> list[str]:
    """Where two snapshots differ (key paths), for the messages."""
    if isinstance(a, dict) and isinstance(b, dict):
        out = []
        for k in sorted(set(a) | set(b), key=str):
            if k not in a or k not in b:
                out.append(f"{path}/{k} (only in one)")
            else:
                out += differences(a[k], b[k], f"{path}/{k}")
        return out
    return [] if a == b else [f"{path}: {a!r} != {b!r}"]


def replay_under_take_back(preset: str, knobs: dict, seed: int, bias: float) -> Stats:
    """Play a round under "prevent" (random legal play) and step a "take_back" engine with the same rules and seed
    through the same actions: every action is legal there too, the take_back mask holds the prevent mask (and
    TAKE_BACK only as an addition), and the snapshots, observations and step results are identical after every
    step (R25: "every turn that ends without a take-back ends the same way under both modes")."""
    prevent = make_rules(preset, {**knobs, "dead_ends": "prevent"})
    take_back = make_rules(preset, {**knobs, "dead_ends": "take_back"})
    lay = O.layout(prevent)
    a, b = RummyEngine(prevent, 1, parallel=False), RummyEngine(take_back, 1, parallel=False)
    a.reset(seed=seed)
    b.reset(seed=seed)
    rng = np.random.default_rng(seed ^ 0x7E7E)
    stats = Stats()
    step = 0
    while True:
        where = repro(preset, knobs, seed, bias, step) + " (replayed under take_back)"
        sa, sb = a.snapshot(0), b.snapshot(0)
        assert sa == sb, f"snapshots differ: {differences(sa, sb)[:8]}{where}\n{show(sa)}"
        assert np.array_equal(a.observe(), b.observe()), f"observations differ{where}"
        assert bool(a.done[0]) == bool(b.done[0])
        if a.done[0]:
            return stats
        ma, mb = a.legal_action_mask()[0], b.legal_action_mask()[0]
        extra = set(np.flatnonzero(ma & ~mb).tolist())
        assert not extra, f"legal under prevent, not under take_back: {names(a, extra)}{where}\n{show(sa)}"
        assert not ma[TAKE_BACK], f"TAKE_BACK under prevent{where}"
        stats["added"] += int(mb.sum() - ma.sum())
        action = choose(rng, np.flatnonzero(ma), bias, lay)
        ra, rb = a.step([action]), b.step([action])
        assert np.array_equal(ra.rewards, rb.rewards) and np.array_equal(ra.hand_ended, rb.hand_ended), (
            f"step results differ{where}")
        stats["steps"] += 1
        step += 1


@settings(max_examples=examples(10))
@given(config=rami_configs(mode="prevent"), seed=seeds, bias=biases)
def test_prevent_rounds_replay_identically_under_take_back(config, seed, bias):
    """R25: a round played under "prevent" replays action for action, snapshot for snapshot, under "take_back"."""
    preset, knobs = config
    note(repro(preset, knobs, seed, bias))
    stats = replay_under_take_back(preset, knobs, seed, bias)
    note(f"{dict(stats)}")
    assert stats["steps"] > 0
