"""Scripted rule scenarios for ruleset ``rami51`` and the Lebanese "14": one test per edge case of the rules book
(docs/rules.md, E28-E79, E81-E86), named after its id, each under both modes of R25 (``dead_ends``): the
look-ahead ``"prevent"``, where the edge cases were written (R23), and ``"take_back"``, where the mask is local
and a dead end is a position to take back (the ``look_ahead`` branches say what differs).

Each scenario is a position written by hand (``tests/scenario_rami.py``) or a deck dealt into the engine,
and a move list; every step is checked against the mask and ``is_legal`` before it is taken, every
"✗" through the mask, ``is_legal``, the raised ``IllegalActionError`` and an unchanged position. Rule ids
(R1-R25, AR1-AR27, AL1-AL7) refer to docs/rules.md. Positions are 2-player unless a case
needs three seats; "after the draw" positions are loaded in phase "play".
"""

from __future__ import annotations

import numpy as np
import pytest

from rummy_env import cards

import scenario_rami
from scenario_rami import (
    COMMIT,
    DRAW_DISCARD,
    DRAW_STOCK,
    JK,
    TAKE_BACK,
    UNDO,
    assert_illegal,
    assert_legal,
    cid,
    discard,
    ids,
    lay_off,
    legal,
    legal_kinds,
    load,
    meld,
    points,
    rami,
    silent_discard,
    snap,
    step,
    swap,
    table_meld,
    take,
)


@pytest.fixture(autouse=True, params=["prevent", "take_back"])
def dead_ends(request, monkeypatch) -> str:
    """Every scenario under both modes of R25: ``rami()`` builds this mode unless a test names one."""
    monkeypatch.setitem(scenario_rami.DEAD_ENDS, "mode", request.param)
    return request.param


def look_ahead() -> bool:
    """The mode of this run hides dead ends (``dead_ends = "prevent"``, R23)."""
    return scenario_rami.DEAD_ENDS["mode"] == "prevent"


def discards(eng) -> set[int]:
    """Cards the player may discard now (announcing)."""
    return {card for card, announce in legal_kinds(eng, "discard") if announce}


def out_with(eng, actions) -> dict:
    """Take ``actions`` (each checked legal); the last one must end the round. Returns the snapshot."""
    ended = False
    for action in actions:
        assert not ended, "the round ended before the last action"
        _, ended = step(eng, action)
    s = snap(eng)
    assert ended and s["phase"] in ("hand_over", "game_over") and s["end_reason"] == "out", s["end_reason"]
    return s


# ==================================================================================================== E28
STOCK = {2: 81, 3: 68, 4: 55, 5: 42}


@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_E28_deal_sizes(n):
    """R4: non-dealers 13, dealer 14 (13 rounds one at a time clockwise from the dealer's left, then one
    more to the dealer), no upcard, stock 81/68/55/42 with the next card of the deck on top."""
    eng = rami(n)
    dealer = n - 1
    deck = [int(c) for c in np.random.default_rng(28 + n).permutation(np.r_[np.tile(np.arange(52), 2), [JK] * 4])]
    eng.reset(decks=[deck], dealers=[dealer])
    s = snap(eng)
    for seat in range(n):
        i = (seat - dealer - 1) % n                      # place of the seat in each dealing round
        expected = deck[i:13 * n:n] + ([deck[13 * n]] if seat == dealer else [])
        assert s["hands"][seat] == sorted(expected), f"seat {seat}"
        assert len(s["hands"][seat]) == (14 if seat == dealer else 13)
    assert s["discard"] == []
    assert len(s["stock"]) == STOCK[n] == 108 - 13 * n - 1
    assert s["stock"][::-1] == deck[13 * n + 1:]
    assert s["dealer"] == dealer and s["current"] == dealer
    # a seeded shuffle: all 108 cards, the same sizes
    eng.reset(seed=5)
    s = snap(eng)
    assert sorted([c for h in s["hands"] for c in h] + s["stock"]) == sorted(deck)
    assert sorted(len(h) for h in s["hands"]) == [13] * (n - 1) + [14] and len(s["stock"]) == STOCK[n]
    assert s["discard"] == [] and s["table"] == []


# ==================================================================================================== E29
def test_E29_dealer_first_turn():
    """R5, AR1: the dealer plays first without drawing; he may open (default); his discard leaves 13 cards
    and starts the pile. With ``dealer_first_turn_may_meld = false`` only a discard is legal."""
    eng = rami(2)
    eng.reset(seed=29, dealers=[1])
    s = snap(eng)
    assert s["phase"] == "play" and s["first_turn"] and s["current"] == 1 and len(s["hands"][1]) == 14
    assert DRAW_STOCK not in legal(eng) and DRAW_DISCARD not in legal(eng)
    assert_illegal(eng, DRAW_STOCK)

    hand = "9H 10H JH KC KD KS 2C 5D 8S 4C 6D QS 3H 7C"      # 14 cards: a 59-point opening
    for may_meld in (True, False):
        eng = rami(2) if may_meld else rami(2, dealer_first_turn_may_meld=False)
        load(eng, [hand, "AC 2D 3S 6H 7S 9C 10D JC QD KH 4D 5S 8C"], current=0, dealer=0, first_turn=True)
        assert DRAW_STOCK not in legal(eng) and DRAW_DISCARD not in legal(eng)
        if may_meld:
            step(eng, meld(eng, "9H 10H JH"))
            step(eng, meld(eng, "KC KD KS"))
            step(eng, COMMIT)
            assert snap(eng)["opened"] == [True, False]
        else:
            assert legal(eng) == {discard(eng, name) for name in hand.split()}
            assert_illegal(eng, meld(eng, "9H 10H JH"))
        step(eng, discard(eng, "7C"))
        s = snap(eng)
        assert s["discard"] == [cid("7C")] and len(s["hands"][0]) == (7 if may_meld else 13)
        assert s["current"] == 1 and s["phase"] == "draw" and not s["first_turn"]


# ==================================================================================================== E30
@pytest.mark.parametrize("last", ["4S", "JK"])
def test_E30_dealer_dry_rummy_first_turn(last):
    """R16, R19: the dealer lays 13 cards on his first turn (≥ 51, a pure run) and discards the 14th: dry
    rummy, every opponent scores 200 (400 when the discard is a joker)."""
    eng = rami(3)
    hand = "9S 10S JS QS KS 2C 3C 4C 5C 7D 7H 7S 7C " + last
    load(eng, [hand, "AH 2H 3H 4H 5H 6H 7H 8H 9H 10H JH QH KH", "AD 2D 3D 4D 5D 6D 7D 8D 9D 10D JD QD KD"],
         current=0, dealer=0, first_turn=True)
    s = out_with(eng, [meld(eng, "9S 10S JS"), lay_off(eng, 0, "QS"), lay_off(eng, 0, "KS"),
                       meld(eng, "2C 3C 4C"), lay_off(eng, 1, "5C"), meld(eng, "7D 7H 7S"), lay_off(eng, 2, "7C"),
                       discard(eng, last)])
    factor = 4 if last == "JK" else 2
    assert s["winner"] == 0 and s["hands"][0] == []
    assert s["hand_scores"] == [0, 100 * factor, 100 * factor] and s["totals"] == [0, 100 * factor, 100 * factor]


# ==================================================================================================== E31
@pytest.mark.parametrize("second_round", [False, True])
def test_E31_pickup_of_dealer_discard(second_round):
    """R6, R20: the next player may take the dealer's first discard if he can use it (default); not with
    ``discard_pickup_from_second_round`` (nobody takes the discard top before every player has played once)."""
    eng = rami(2, discard_pickup_from_second_round=True) if second_round else rami(2)
    load(eng, ["JH 2C 5D 8S 4C 6D QS 3D 7C AS 9D 10C JD KH", "9H 10H KC KD KS 2H 5S 8D 4D 6C QC 3S 7S"],
         current=0, dealer=0, first_turn=True)
    step(eng, discard(eng, "JH"))
    assert snap(eng)["phase"] == "draw" and snap(eng)["current"] == 1 and snap(eng)["discard"] == [cid("JH")]
    if second_round:
        assert legal(eng) == {DRAW_STOCK}
        assert_illegal(eng, DRAW_DISCARD)
    else:
        assert legal(eng) == {DRAW_STOCK, DRAW_DISCARD}
        step(eng, DRAW_DISCARD)
        assert snap(eng)["taken"] == cid("JH")


# ==================================================================================================== E32
def test_E32_pickup_with_opening_of_54():
    """R6, R11: not opened, 7♥8♥ and K♣K♦K♠ in hand, discard top 9♥: the take is legal because an
    opening that contains 9♥ reaches 24 + 30 = 54; the turn can only end with such an opening."""
    eng = rami(2)
    load(eng, ["7H 8H KC KD KS 2C 5D JS 4S 3D", "2H 3H 4H"], discard="6C 9H", phase="draw")
    assert legal(eng) == {DRAW_STOCK, DRAW_DISCARD}
    step(eng, DRAW_DISCARD)
    assert snap(eng)["taken"] == cid("9H")
    assert discards(eng) == set()                          # 9H must be laid first
    assert_illegal(eng, discard(eng, "2C"))
    assert_illegal(eng, discard(eng, "9H"))
    step(eng, meld(eng, "KC KD KS"))
    assert COMMIT not in legal(eng)                        # 30, and 9H not laid
    # an opening of 69 with a pure run but without the taken 9H cannot be committed (R6: it must be laid)
    load(eng, ["7H 8H 9H KC KD KS QC QD QS 2S 3S 4S 5D", "2H 3H 4H"], discard="6C", taken="9H")
    for names in ("KC KD KS", "QC QD QS", "2S 3S 4S"):
        step(eng, meld(eng, names))
    assert points(eng) == 69
    assert_illegal(eng, COMMIT)
    step(eng, meld(eng, "7H 8H 9H"))
    step(eng, COMMIT)
    load(eng, ["7H 8H KC KD KS 2C 5D JS 4S 3D 9H", "2H 3H 4H"], discard="6C", taken="9H")
    step(eng, meld(eng, "KC KD KS"))
    step(eng, meld(eng, "7H 8H 9H"))
    assert points(eng) == 54
    step(eng, COMMIT)
    assert snap(eng)["opened"] == [True, False]
    step(eng, discard(eng, "2C"))
    s = snap(eng)
    assert s["current"] == 1 and s["discard"] == [cid("6C"), cid("2C")] and len(s["table"]) == 2


# ==================================================================================================== E33
def test_E33_discard_top_masked_when_best_opening_is_48():
    """R6, AR2: not opened; 7♥8♥ and 8♣8♦8♠, the rest unrelated, no table melds; discard top 9♥: the best
    opening containing 9♥ is 24 + 24 = 48 < 51, so taking it is masked."""
    eng = rami(2)
    load(eng, ["7H 8H 8C 8D 8S 2C 5D JS 4S KD", "2H 3H 4H"], discard="6C 9H", phase="draw")
    if not look_ahead():  # R25: the draw is legal on its own; a turn that cannot lay 9♥ is taken back
        assert legal(eng) == {DRAW_STOCK, DRAW_DISCARD}
        return
    assert legal(eng) == {DRAW_STOCK}
    assert_illegal(eng, DRAW_DISCARD)
    # control: one more point of hand cards (8C 8D 8S -> 9C 9D 9S: 24 + 27 = 51) makes it legal
    load(eng, ["7H 8H 9C 9D 9S 2C 5D JS 4S KD", "2H 3H 4H"], discard="6C 9H", phase="draw")
    assert legal(eng) == {DRAW_STOCK, DRAW_DISCARD}


# ==================================================================================================== E34
def test_E34_opened_pickup_masked_when_unusable():
    """R6, AR2: an opened player may not take a discard top that he cannot lay anywhere this turn."""
    eng = rami(2)
    load(eng, ["2D 9S 4C 7H", "2H 3H 4H"], table=[(1, "5H 6H 7H"), (0, "QC QD QS")], discard="6C KC",
         phase="draw", opened=[True, True])
    if not look_ahead():  # R25: legal on its own; TAKE_BACK puts K♣ back
        assert legal(eng) == {DRAW_STOCK, DRAW_DISCARD}
        step(eng, DRAW_DISCARD)
        assert legal(eng) == {TAKE_BACK}
        return
    assert legal(eng) == {DRAW_STOCK}
    assert_illegal(eng, DRAW_DISCARD)
    # control: QH (laid off on the queens) may be taken
    load(eng, ["2D 9S 4C 7H", "2H 3H 4H"], table=[(1, "5H 6H 7H"), (0, "QC QD QS")], discard="6C QH",
         phase="draw", opened=[True, True])
    assert DRAW_DISCARD in legal(eng)


# ==================================================================================================== E35
def test_E35_pickup_used_to_substitute_a_joker():
    """R6, R14: an opened player takes 6♠ and swaps it for the joker of an opponent's 8♠-7♠-Jk(6♠); the
    freed joker and Q♥Q♣ form a new set; then he discards."""
    eng = rami(2)
    load(eng, ["QH QC 2D 5C 9H", "2H 3H 4H"], table=[(1, "7S 8S JK", 6)], discard="3C 6S", phase="draw",
         opened=[True, True])
    assert DRAW_DISCARD in legal(eng)
    step(eng, DRAW_DISCARD)
    step(eng, swap(eng, 0))
    t = table_meld(eng, 0)
    assert t["cards"] == ids("6S 7S 8S") and t["joker_at"] is None and (t["lo"], t["hi"]) == (6, 8)
    assert discards(eng) == set()                          # the freed joker must go into a new meld first
    step(eng, meld(eng, "QH QC JK"))
    assert table_meld(eng, 1)["cards"] == ids("QH QC JK") and table_meld(eng, 1)["owner"] == 0
    step(eng, discard(eng, "2D"))
    s = snap(eng)
    assert s["hands"][0] == ids("5C 9H") and s["current"] == 1 and s["discard"] == [cid("3C"), cid("2D")]


# ==================================================================================================== E36
def test_E36_one_card_left_must_draw_from_stock():
    """R7: with exactly one card at turn start the discard top may not be taken, even when it would let
    him go out; with two cards the same take is legal (control)."""
    eng = rami(2)
    table = [(0, "6H 7H 8H")]
    load(eng, ["5H", "2C 3C 4C"], table=table, discard="2D 9H", phase="draw", opened=[True, True])
    assert legal(eng) == {DRAW_STOCK}
    assert_illegal(eng, DRAW_DISCARD)
    load(eng, ["5H KS", "2C 3C 4C"], table=table, discard="2D 9H", phase="draw", opened=[True, True])
    assert legal(eng) == {DRAW_STOCK, DRAW_DISCARD}
    step(eng, DRAW_DISCARD)
    step(eng, lay_off(eng, 0, "9H"))
    step(eng, lay_off(eng, 0, "5H"))
    s = out_with(eng, [discard(eng, "KS")])
    assert s["winner"] == 0


# ==================================================================================================== E37
def test_E37_missed_announcement_draws_two():
    """R7, AR22: with ``card_announcement = "manual"`` a discard down to one card without announcing draws
    two penalty cards from the stock at once (hand = 3); announcing keeps one card; a silent discard is
    only an action when it leaves exactly one card. In "auto" mode nothing happens (no silent action)."""
    eng = rami(2, card_announcement="manual")
    kw = {"stock_next": "3S 4S 5S", "opened": [True, True]}
    load(eng, ["2C 9D", "2H 3H 4H"], **kw)
    assert silent_discard(eng, "9D") in legal(eng) and discard(eng, "9D") in legal(eng)
    step(eng, silent_discard(eng, "9D"))
    s = snap(eng)
    assert s["hands"][0] == ids("2C 3S 4S") and s["stock"][-1] == cid("5S") and s["discard"] == [cid("9D")]
    assert s["current"] == 1 and s["phase"] == "draw"
    load(eng, ["2C 9D", "2H 3H 4H"], **kw)
    step(eng, discard(eng, "9D"))
    assert snap(eng)["hands"][0] == ids("2C") and snap(eng)["stock"][-1] == cid("3S")
    load(eng, ["2C 9D KH", "2H 3H 4H"], **kw)
    assert_illegal(eng, silent_discard(eng, "9D"))         # would leave two cards

    auto = rami(2)
    assert auto.layout.num_actions == eng.layout.num_actions - 53
    load(auto, ["2C 9D", "2H 3H 4H"], **kw)
    step(auto, discard(auto, "9D"))
    s = snap(auto)
    assert s["hands"][0] == ids("2C") and s["stock"][-1] == cid("3S")


# ==================================================================================================== E38-E42
def opening_turn(eng, hand: str, plays, **kw):
    """Load a not-opened seat 0 after the draw with ``hand`` (2-player) and make the tentative ``plays``
    (callables of the engine returning an action)."""
    load(eng, [hand, "2H 3H 4H"], **kw)
    for play in plays:
        step(eng, play(eng))


def test_E38_opening_of_two_runs_51():
    """R10, R11: J♥Q♥K♥ + 6♣7♣8♣ = 30 + 21 = 51, both pure: the commit is legal."""
    eng = rami(2)
    opening_turn(eng, "JH QH KH 6C 7C 8C 2D 9S", [lambda e: meld(e, "JH QH KH"), lambda e: meld(e, "6C 7C 8C")])
    assert points(eng) == 51
    step(eng, COMMIT)
    s = snap(eng)
    assert s["opened"] == [True, False] and s["turn_state"]["tentative"] == 0
    assert discards(eng) == {cid("2D"), cid("9S")}


def test_E39_opening_of_48_rejected():
    """R11: J♥Q♥K♥ + 5♣6♣7♣ = 48 < 51: no commit, and no discard while the tentative plays remain."""
    eng = rami(2)
    opening_turn(eng, "JH QH KH 5C 6C 7C 2D 9S", [lambda e: meld(e, "JH QH KH"), lambda e: meld(e, "5C 6C 7C")])
    assert points(eng) == 48
    assert_illegal(eng, COMMIT)
    assert_illegal(eng, discard(eng, "2D"))
    assert legal(eng) == ({UNDO} if look_ahead() else {UNDO, TAKE_BACK})


def test_E40_no_pure_run_rejected():
    """R11.2: K♠K♥K♦ + Q♠Q♥Q♦ + A♣A♦A♥ = 93 points but no pure run: no commit."""
    eng = rami(2)
    opening_turn(eng, "KS KH KD QS QH QD AC AD AH 2D 9S",
                 [lambda e: meld(e, "KS KH KD"), lambda e: meld(e, "QS QH QD"), lambda e: meld(e, "AC AD AH")])
    assert points(eng) == 93
    assert_illegal(eng, COMMIT)


def test_E41_joker_run_plus_pure_run():
    """R10, R11: 9♦10♦J♦Jk(Q♦) + 2♣3♣4♣ = 39 + 9 = 48 ✗; with 2♣3♣4♣5♣: 39 + 14 = 53 ✓ (the joker run
    plus a separate pure run)."""
    eng = rami(2)
    opening_turn(eng, "9D 10D JD JK 2C 3C 4C 5C 8S 6H",
                 [lambda e: meld(e, "10D JD JK", joker_at=12), lambda e: lay_off(e, 0, "9D"),
                  lambda e: meld(e, "2C 3C 4C")])
    t = table_meld(eng, 0)
    assert t["cards"] == ids("9D 10D JD JK") and t["joker_at"] == 12 and (t["lo"], t["hi"]) == (9, 12)
    assert points(eng) == 48
    assert_illegal(eng, COMMIT)
    step(eng, lay_off(eng, 1, "5C"))
    assert points(eng) == 53
    step(eng, COMMIT)
    assert snap(eng)["opened"][0]


@pytest.mark.parametrize("order", ["meld_then_joker", "joker_meld"])
def test_E42_joker_run_is_not_pure(order):
    """R11, AR8: 5♠6♠7♠Jk(8♠) + K♦K♣K♥ = 56 points, but the only run has a joker: no commit."""
    eng = rami(2)
    if order == "meld_then_joker":
        plays = [lambda e: meld(e, "5S 6S 7S"), lambda e: lay_off(e, 0, "JK", high=True)]
    else:
        plays = [lambda e: meld(e, "6S 7S JK", joker_at=8), lambda e: lay_off(e, 0, "5S")]
    opening_turn(eng, "5S 6S 7S JK KD KC KH 2D 9H", plays + [lambda e: meld(e, "KD KC KH")])
    assert table_meld(eng, 0)["joker_at"] == 8 and not table_meld(eng, 0)["pure"]
    assert points(eng) == 56
    assert_illegal(eng, COMMIT)


# ==================================================================================================== E43, E44
@pytest.mark.parametrize("names, joker_at, value", [
    ("AS 2S 3S", None, 6), ("QS KS AS", None, 31), ("AD AC AH", None, 33), ("QH KH JK", 14, 31),
    ("JK 2C 3C", 1, 6)])
def test_E43_ace_values(names, joker_at, value):
    """R10: A♠2♠3♠ 6; Q♠K♠A♠ 31; A♦A♣A♥ 33; Q♥K♥Jk(A♥) 31; Jk(A♣)2♣3♣ 6."""
    eng = rami(2)
    opening_turn(eng, names + " 7D 9S 4H", [lambda e: meld(e, names, joker_at=joker_at)])
    assert points(eng) == value


@pytest.mark.parametrize("mode, value", [("represented", 24), ("zero", 15), (35, 50)])
def test_E44_joker_opening_value(mode, value):
    """R10, AR15: 7♠8♠Jk(9♠) counts 24 by default, 15 with ``joker_opening_value = "zero"``, 50 with 35."""
    eng = rami(2, joker_opening_value=mode)
    opening_turn(eng, "7S 8S JK 2D 9H 4C", [lambda e: meld(e, "7S 8S JK", joker_at=9)])
    assert points(eng) == value


# ==================================================================================================== E45
@pytest.mark.parametrize("with_two", [True, False])
def test_E45_lay_offs_on_opponents_count(with_two):
    """R11, AR9: pure run 9♥10♥J♥ (29) + Q♦, K♦ laid off on an opponent's 9♦10♦J♦ (20) + 2♣ on an opponent's
    3♣4♣5♣ (2) = 51 ✓ (the opponents' cards do not count); without the 2♣: 49 ✗."""
    eng = rami(2)
    plays = [lambda e: meld(e, "9H 10H JH"), lambda e: lay_off(e, 0, "QD"), lambda e: lay_off(e, 0, "KD")]
    if with_two:
        plays.append(lambda e: lay_off(e, 1, "2C"))
    opening_turn(eng, "9H 10H JH QD KD 2C 7S 4H", plays, table=[(1, "9D 10D JD"), (1, "3C 4C 5C")])
    assert points(eng) == (51 if with_two else 49)
    if with_two:
        step(eng, COMMIT)
        s = snap(eng)
        assert s["opened"][0] and s["table"][0]["cards"] == ids("9D 10D JD QD KD") and s["table"][0]["owner"] == 1
        assert s["table"][1]["cards"] == ids("2C 3C 4C 5C")
    else:
        assert_illegal(eng, COMMIT)


# ==================================================================================================== E46
@pytest.mark.parametrize("hand_only", [True, False])
def test_E46_run_with_taken_card_is_not_pure(hand_only):
    """R11, R13, AR8: an opening that takes 7♦ from an opponent's 7♦7♣7♠7♥ and adds 8♦9♦ from hand: the
    new run 7♦8♦9♦ counts 17 and is not the pure run (default); with ``pure_run_hand_cards_only = false``
    it is."""
    eng = rami(2) if hand_only else rami(2, pure_run_hand_cards_only=False)
    load(eng, ["8D 9D KC KD KS QC QD QS 2H 5S", "2C 3C 4C"], table=[(1, "7D 7C 7S 7H")])
    step(eng, take(eng, 0, "7D"))
    assert table_meld(eng, 0)["cards"] == ids("7C 7S 7H") and snap(eng)["turn_state"]["pending"] == [cid("7D")]
    step(eng, meld(eng, "7D 8D 9D"))
    assert points(eng) == 17
    assert table_meld(eng, 1)["pure"] is (not hand_only)
    step(eng, meld(eng, "KC KD KS"))
    step(eng, meld(eng, "QC QD QS"))
    assert points(eng) == 77
    if hand_only:
        assert_illegal(eng, COMMIT)
    else:
        step(eng, COMMIT)
        assert snap(eng)["opened"][0]


# ==================================================================================================== E47
def test_E47_set_validity():
    """R8, R9, AR4: a set with two identical 7♥ ✗; 7♥7♠7♣7♦ ✓; a 5th card onto a 4-card set ✗; a set with
    two jokers ✗ (at most one joker per meld)."""
    eng = rami(2)
    for names in ("7H 7H 7C", "7H JK JK"):
        with pytest.raises(ValueError):
            meld(eng, names)                               # no such action in the catalogue
        with pytest.raises(ValueError):
            load(eng, ["2D", "2H 3H 4H"], table=[(1, names)])
    load(eng, ["7H 7H 7C 7S 7D JK JK 2D", "2H 3H 4H"], table=[(1, "9C 9S JK")], opened=[True, True])
    assert_illegal(eng, lay_off(eng, 0, "JK"))            # a second joker in a set
    step(eng, meld(eng, "7H 7C 7S"))
    assert_illegal(eng, lay_off(eng, 1, "7H"))            # the identical card
    step(eng, lay_off(eng, 1, "7D"))
    assert table_meld(eng, 1)["cards"] == ids("7H 7C 7S 7D")
    for name in ("7H", "JK"):
        assert_illegal(eng, lay_off(eng, 1, name))        # no 5-card set
    with pytest.raises(ValueError):
        load(eng, ["2D", "2H 3H 4H"], table=[(1, "7H 7C 7S 7D JK")])


# ==================================================================================================== E48
def test_E48_one_joker_per_run():
    """R9: 5♠ Jk Jk 8♠ ✗ (no two-joker melds, no second joker onto a run with one); 5♠ Jk(6♠) 7♠ ✓."""
    eng = rami(2)
    with pytest.raises(ValueError):
        meld(eng, "5S JK JK")
    with pytest.raises(ValueError):
        load(eng, ["2D", "2H 3H 4H"], table=[(0, "5S JK JK 8S")])
    load(eng, ["5S 7S JK JK 8S 2D 9H", "2H 3H 4H"], opened=[True, True])
    step(eng, meld(eng, "5S 7S JK", joker_at=6))
    t = table_meld(eng, 0)
    assert t["cards"] == ids("5S 7S JK") and t["joker_at"] == 6 and (t["lo"], t["hi"]) == (5, 7)
    assert_illegal(eng, lay_off(eng, 0, "JK", high=True))
    assert_illegal(eng, lay_off(eng, 0, "JK"))
    step(eng, lay_off(eng, 0, "8S"))                       # a natural is fine


# ==================================================================================================== E49
@pytest.mark.parametrize("both_ends", [True, False])
def test_E49_second_ace_on_13_card_run(both_ends):
    """R8, AR10: the other A♠ at the top of A♠…K♠ (ace low) makes a 14-card run ✓ (default); ✗ with
    ``allow_ace_both_ends = false``."""
    eng = rami(2) if both_ends else rami(2, allow_ace_both_ends=False)
    load(eng, ["AS 2D 9H", "2H 3H 4H"], table=[(1, "AS 2S 3S 4S 5S 6S 7S 8S 9S 10S JS QS KS")],
         opened=[True, True])
    assert (table_meld(eng, 0)["lo"], table_meld(eng, 0)["hi"]) == (1, 13)
    if both_ends:
        step(eng, lay_off(eng, 0, "AS"))
        t = table_meld(eng, 0)
        assert len(t["cards"]) == 14 and (t["lo"], t["hi"]) == (1, 14)
    else:
        assert_illegal(eng, lay_off(eng, 0, "AS"))
    # the mirror case: 2♠…K♠A♠ (ace high) takes the other A♠ at position 1 under the same knob
    load(eng, ["AS 2D 9H", "2H 3H 4H"], opened=[True, True],
         table=[{"owner": 1, "cards": "2S 3S 4S 5S 6S 7S 8S 9S 10S JS QS KS AS", "lo": 2, "hi": 14}])
    if both_ends:
        step(eng, lay_off(eng, 0, "AS"))
        assert (table_meld(eng, 0)["lo"], table_meld(eng, 0)["hi"]) == (1, 14)
    else:
        assert_illegal(eng, lay_off(eng, 0, "AS"))


# ==================================================================================================== E50
def test_E50_ace_not_below_queen():
    """R2, R8: the second A♠ cannot go below Q♠K♠A♠ (position 1 is not next to the Q); J♠ can."""
    eng = rami(2)
    load(eng, ["AS JS 2D 9H", "2H 3H 4H"], table=[(1, "QS KS AS")], opened=[True, True])
    assert (table_meld(eng, 0)["lo"], table_meld(eng, 0)["hi"]) == (12, 14)
    assert_illegal(eng, lay_off(eng, 0, "AS"))
    step(eng, lay_off(eng, 0, "JS"))
    assert (table_meld(eng, 0)["lo"], table_meld(eng, 0)["hi"]) == (11, 14)


# ==================================================================================================== E51
def test_E51_round_the_corner_runs():
    """R2, R20, AR11: K♠A♠2♠ and Q♥K♥A♥2♥3♥ are illegal by default; both legal with ``circular_runs``
    (the ace after the king counts 11); a 13-card circular run accepts no further card."""
    eng = rami(2)
    with pytest.raises(ValueError):
        meld(eng, "KS AS 2S")                              # no such catalogue entry
    with pytest.raises(ValueError):
        load(eng, ["2D", "2H 3H 4H"], table=[(1, "QH KH AH 2H 3H")])
    load(eng, ["2H KH 9S 5C", "2C 3C 4C"], table=[(0, "QH KH AH"), (0, "AH 2H 3H")], opened=[True, True])
    assert_illegal(eng, lay_off(eng, 0, "2H"))             # 2 after the high ace
    assert_illegal(eng, lay_off(eng, 1, "KH"))             # K below the low ace

    circ = rami(2, circular_runs=True)
    opening_turn(circ, "KS AS 2S 7D 9H 4C", [lambda e: meld(e, "KS AS 2S")])
    t = table_meld(circ, 0)
    assert t["cards"] == ids("KS AS 2S") and (t["lo"], t["hi"]) == (13, 15)
    assert points(circ) == 10 + 11 + 2
    opening_turn(circ, "QH KH AH 2H 3H 7D 9S", [lambda e: meld(e, "QH KH AH"), lambda e: lay_off(e, 0, "2H"),
                                                lambda e: lay_off(e, 0, "3H")])
    t = table_meld(circ, 0)
    assert t["cards"] == ids("QH KH AH 2H 3H") and (t["lo"], t["hi"]) == (12, 16)
    assert points(circ) == 10 + 10 + 11 + 2 + 3
    load(circ, ["4H 5H JK 9S", "2C 3C 4C"], table=[(0, "5H 6H 7H 8H 9H 10H JH QH KH AH 2H 3H 4H")],
         opened=[True, True])
    assert legal_kinds(circ, "lay_off") == set()
    for name, high in (("4H", False), ("5H", False), ("JK", False), ("JK", True)):
        assert_illegal(circ, lay_off(circ, 0, name, high=high))


# ==================================================================================================== E52
def test_E52_joker_lay_offs():
    """R9, AR6: a joker onto an opponent's run ✗; onto his own run without joker ✓ (either end); onto his own
    run that has a joker ✗; onto an opponent's natural set 9♣9♠9♦ ✓, which becomes 9♣9♠9♦Jk(9♥)."""
    eng = rami(2)
    load(eng, ["JK 2S 7D KH", "2C 3C 4C"], opened=[True, True],
         table=[(1, "5H 6H 7H"), (0, "5C 6C 7C"), (0, "2D 3D JK", 4), (1, "9C 9S 9D")])
    for code_high in (False, True):
        assert_illegal(eng, lay_off(eng, 0, "JK", high=code_high))
        assert_legal(eng, lay_off(eng, 1, "JK", high=code_high))
        assert_illegal(eng, lay_off(eng, 2, "JK", high=code_high))
    assert_legal(eng, lay_off(eng, 3, "JK"))
    assert_illegal(eng, lay_off(eng, 3, "JK", high=True))  # code 53 is for runs only
    step(eng, lay_off(eng, 3, "JK"))
    t = table_meld(eng, 3)
    assert t["cards"] == ids("9C 9S 9D JK") and t["joker_at"] == 2 and t["owner"] == 1


# ==================================================================================================== E53
def test_E53_swap_and_new_meld():
    """R14: an opened player swaps 6♠ for the joker of an opponent's 8♠-7♠-Jk(6♠) and lays Jk + Q♥Q♣; the
    freed joker can be neither kept nor discarded."""
    eng = rami(2)
    load(eng, ["6S QH QC 2D 9H", "2C 3C 4C"], table=[(1, "7S 8S JK", 6)], opened=[True, True])
    step(eng, swap(eng, 0))
    s = snap(eng)
    assert s["table"][0]["cards"] == ids("6S 7S 8S") and s["table"][0]["joker_at"] is None
    assert s["hands"][0] == ids("QH QC JK 2D 9H") and s["turn_state"]["freed_jokers"] == 1
    assert discards(eng) == set()
    assert_illegal(eng, discard(eng, "JK"))
    assert legal_kinds(eng, "lay_off") == set()            # freed_joker_use = "new_meld"
    assert legal(eng) == {meld(eng, "QH QC JK")} | (set() if look_ahead() else {TAKE_BACK})
    step(eng, meld(eng, "QH QC JK"))
    step(eng, discard(eng, "2D"))
    s = snap(eng)
    assert s["hands"][0] == ids("9H") and s["current"] == 1 and JK not in s["hands"][0]


# ==================================================================================================== E54
def test_E54_swap_needs_the_represented_card():
    """R14, AR5: 9♠ cannot replace the joker standing for 6♠; it can be laid off at the 8♠ end, giving
    Jk(6♠)-7♠-8♠-9♠ (the joker does not slide)."""
    eng = rami(2)
    load(eng, ["9S 2D 5C KH", "2C 3C 4C"], table=[(1, "7S 8S JK", 6)], opened=[True, True])
    assert_illegal(eng, swap(eng, 0))
    step(eng, lay_off(eng, 0, "9S"))
    t = table_meld(eng, 0)
    assert t["cards"] == ids("7S 8S 9S JK") and (t["lo"], t["hi"]) == (6, 9) and t["joker_at"] == 6


# ==================================================================================================== E55
def test_E55_joker_of_three_card_set():
    """R14: opponent's 9♣9♠Jk; with 9♦ the swap is illegal (the joker's suit is undetermined); laying off 9♦
    makes a 4-card set whose joker is 9♥; then 9♥ swaps it in the same turn; the freed joker forms a new meld."""
    eng = rami(2)
    load(eng, ["9D 9H QH QC 2D 5C", "2C 3C 4C"], table=[(1, "9C 9S JK")], opened=[True, True])
    assert table_meld(eng, 0)["joker_at"] is None
    assert_illegal(eng, swap(eng, 0))
    step(eng, lay_off(eng, 0, "9D"))
    t = table_meld(eng, 0)
    assert t["cards"] == ids("9C 9S 9D JK") and t["joker_at"] == cards.suit_of(cid("9H"))
    step(eng, swap(eng, 0))
    assert table_meld(eng, 0)["cards"] == ids("9C 9S 9D 9H")
    assert discards(eng) == set()
    step(eng, meld(eng, "QH QC JK"))
    step(eng, discard(eng, "5C"))
    assert snap(eng)["hands"][0] == ids("2D")


# ==================================================================================================== E56
@pytest.mark.parametrize("prior", [False, True])
def test_E56_swap_after_commit_same_turn(prior):
    """R14, AR13: a player who has not opened cannot swap; after his commit in the same turn he can (default;
    the freed joker's meld comes after the validated opening); not with ``joker_swap_requires_prior_opening``."""
    eng = rami(2, joker_swap_requires_prior_opening=True) if prior else rami(2)
    load(eng, ["6S QH QC 9H 10H JH KC KD KS 2D 5C", "2C 3C 4C"], table=[(1, "7S 8S JK", 6)])
    assert_illegal(eng, swap(eng, 0))
    step(eng, meld(eng, "9H 10H JH"))
    assert_illegal(eng, swap(eng, 0))                      # tentative plays: still not opened
    step(eng, meld(eng, "KC KD KS"))
    step(eng, COMMIT)
    if prior:
        assert_illegal(eng, swap(eng, 0))
        return
    step(eng, swap(eng, 0))
    step(eng, meld(eng, "QH QC JK"))
    step(eng, discard(eng, "2D"))
    s = snap(eng)
    assert s["opened"][0] and s["hands"][0] == ids("5C") and s["table"][0]["cards"] == ids("6S 7S 8S")


# ==================================================================================================== E57
def test_E57_swap_masked_when_freed_joker_cannot_meld():
    """R14, AR14: holding 6♠ is not enough: the swap is masked when the freed joker cannot form a new meld
    with two hand cards; with K♥K♦ in hand it is legal."""
    eng = rami(2)
    load(eng, ["6S 2C 9D KH", "2H 3H 4H"], table=[(1, "7S 8S JK", 6)], opened=[True, True])
    if look_ahead():
        assert_illegal(eng, swap(eng, 0))
    else:  # R25: the swap is legal on its own; the freed joker then has no meld: only TAKE_BACK
        step(eng, swap(eng, 0))
        assert legal(eng) == {TAKE_BACK}
    load(eng, ["6S 2C 9D KH KD", "2H 3H 4H"], table=[(1, "7S 8S JK", 6)], opened=[True, True])
    assert_legal(eng, swap(eng, 0))


# ==================================================================================================== E58
def test_E58_swap_that_would_empty_the_hand():
    """R14, R15: hand {6♠,Q♥,Q♣}: swap + Jk Q♥Q♣ would empty the hand with no final discard ✗; with a
    fourth card the swap is legal and discarding it goes out."""
    eng = rami(2)
    table = [(1, "7S 8S JK", 6)]
    load(eng, ["6S QH QC", "2H 3H 4H"], table=table, opened=[True, True])
    if look_ahead():
        assert_illegal(eng, swap(eng, 0))
        assert legal(eng) == {discard(eng, n) for n in ("6S", "QH", "QC")}
    else:  # R25: the swap is legal on its own; its meld would empty the hand: only TAKE_BACK is left then
        assert legal(eng) == {discard(eng, n) for n in ("6S", "QH", "QC")} | {swap(eng, 0)}
        step(eng, swap(eng, 0))
        assert_illegal(eng, meld(eng, "QH QC JK"))
        assert legal(eng) == {TAKE_BACK}
    load(eng, ["6S QH QC 2D", "2H 3H 4H"], table=table, opened=[True, True])
    s = out_with(eng, [swap(eng, 0), meld(eng, "QH QC JK"), discard(eng, "2D")])
    assert s["winner"] == 0 and s["hand_scores"] == [0, 9]


# ==================================================================================================== E59
@pytest.mark.parametrize("joker_knob", [False, True])
def test_E59_take_from_melds(joker_knob):
    """R13, AR7: 8♥ from 5♥6♥7♥8♥ with 8♣8♦ from hand ✓ (new set); 6♥ from that run ✗ (no split); any card of
    a 3-card meld ✗; the joker of 5♠6♠7♠Jk(8♠) ✗ (✓ with ``can_take_joker_from_meld``, into Jk 6♣6♦)."""
    eng = rami(2, can_take_joker_from_meld=True) if joker_knob else rami(2)
    load(eng, ["8C 8D 6C 6D KS", "2H 3H 4H"], opened=[True, True],
         table=[(1, "5H 6H 7H 8H"), (1, "2C 3C 4C"), (1, "5S 6S 7S JK", 8)])
    L = eng.layout
    # 5H and the 5S end have no new meld with own cards: masked by the look-ahead, legal on their own (R25)
    ends = set() if look_ahead() else {(0, 0), (2, 0)}
    assert legal_kinds(eng, "take") == ({(0, 1), (2, 1)} if joker_knob else {(0, 1)}) | ends
    assert take(eng, 0, "8H") == L.take(0, 1) and take(eng, 0, "5H") == L.take(0, 0)
    for choice in (0, 2, 3, 4) if look_ahead() else (2, 3, 4):   # no middle card of a run
        assert_illegal(eng, L.take(0, choice))
    for choice in range(5):
        assert_illegal(eng, L.take(1, choice))             # 3-card meld
    if not joker_knob:
        assert_illegal(eng, take(eng, 2, "JK"))
        step(eng, take(eng, 0, "8H"))
        assert discards(eng) == set()                      # the taken card is pending
        step(eng, meld(eng, "8H 8C 8D"))
        s = snap(eng)
        assert s["table"][0]["cards"] == ids("5H 6H 7H") and s["table"][3]["cards"] == ids("8H 8C 8D")
        assert s["table"][3]["owner"] == 0
        step(eng, discard(eng, "KS"))
    else:
        step(eng, take(eng, 2, "JK"))
        assert table_meld(eng, 2)["cards"] == ids("5S 6S 7S") and table_meld(eng, 2)["joker_at"] is None
        step(eng, meld(eng, "6C 6D JK"))


# ==================================================================================================== E60
def test_E60_take_from_joker_four_set():
    """R13, R14: taking 9♦ from 9♣9♠9♦Jk(9♥) to form 9♦10♦J♦ with hand cards ✓; the remaining 9♣9♠Jk is a
    3-card set whose joker can no longer be swapped (even with 9♥ in hand)."""
    eng = rami(2)
    load(eng, ["10D JD 9H 2C KS", "2H 3H 4H"], table=[(1, "9C 9S 9D JK")], opened=[True, True])
    assert table_meld(eng, 0)["joker_at"] == cards.suit_of(cid("9H"))
    assert_legal(eng, swap(eng, 0))                        # before the take, 9H could swap
    step(eng, take(eng, 0, "9D"))
    step(eng, meld(eng, "9D 10D JD"))
    t = table_meld(eng, 0)
    assert t["cards"] == ids("9C 9S JK") and t["joker_at"] is None
    assert_illegal(eng, swap(eng, 0))
    assert table_meld(eng, 1)["cards"] == ids("9D 10D JD")


# ==================================================================================================== E61
def test_E61_final_discard_required():
    """R15: hand {4♦,5♦,6♦}: laying the run would empty the hand ✗, he must discard; with K♠ as well: run,
    then discard K♠, goes out."""
    eng = rami(2)
    load(eng, ["4D 5D 6D", "2H 3H 4H"], opened=[True, True])
    assert_illegal(eng, meld(eng, "4D 5D 6D"))
    assert legal(eng) == {discard(eng, n) for n in ("4D", "5D", "6D")}
    load(eng, ["4D 5D 6D KS", "2H 3H 4H"], opened=[True, True])
    s = out_with(eng, [meld(eng, "4D 5D 6D"), discard(eng, "KS")])
    assert s["winner"] == 0 and s["discard"][-1] == cid("KS") and s["hand_scores"] == [0, 9]


# ==================================================================================================== E62
@pytest.mark.parametrize("final", ["optional", "forbidden"])
def test_E62_final_discard_optional_forbidden(final):
    """R15: with ``final_discard`` "optional" or "forbidden", laying 4♦5♦6♦ goes out without a discard;
    going out by discarding a last card is legal with "optional", illegal with "forbidden"."""
    eng = rami(2, final_discard=final)
    load(eng, ["4D 5D 6D", "2H 3H 4H"], opened=[True, True])
    s = out_with(eng, [meld(eng, "4D 5D 6D")])
    assert s["winner"] == 0 and s["hands"][0] == [] and s["discard"] == [] and s["hand_scores"] == [0, 9]
    load(eng, ["7C", "2H 3H 4H"], opened=[True, True])      # a last card to discard
    if final == "optional":
        s = out_with(eng, [discard(eng, "7C")])
        assert s["winner"] == 0 and s["discard"] == [cid("7C")]
    else:
        assert_illegal(eng, discard(eng, "7C"))


# ==================================================================================================== E63-E68
A_HAND, B_HAND = "AS JK 7C", "2H 3H 4H 5S"


def scoring_round(eng, winner_hand: str, plays, *, winner_opened: bool, a_hand: str = A_HAND,
                  b_hand: str = B_HAND) -> dict:
    """3 players: seat 0 goes out with ``plays``; A = seat 1 (opened), B = seat 2 (not opened)."""
    load(eng, [winner_hand, a_hand, b_hand], opened=[winner_opened, True, False])
    return out_with(eng, _steps(eng, plays))


def _steps(eng, plays):
    for play in plays[:-1]:
        step(eng, play(eng))
    return [plays[-1](eng)]


def test_E63_normal_out_penalties():
    """R19: normal out; A (opened) holds A♠ Jk 7♣ = 11 + 20 + 7 = 38; B (not opened) 100; the winner 0."""
    s = scoring_round(rami(3), "2C 3C 4C 9H", [lambda e: meld(e, "2C 3C 4C"), lambda e: discard(e, "9H")],
                      winner_opened=True)
    assert s["hand_scores"] == [0, 38, 100] and s["totals"] == [0, 38, 100] and s["winner"] == 0


ALL_AT_ONCE = [lambda e: meld(e, "JH QH KH"), lambda e: meld(e, "5S 6S 7S"), lambda e: meld(e, "AD AC AH")]


@pytest.mark.parametrize("commit", [False, True])
@pytest.mark.parametrize("last, a_score, b_score", [("4C", 76, 200), ("JK", 152, 400)])
def test_E64_all_at_once_multipliers(last, a_score, b_score, commit):
    """R19, AR16: an all-at-once out doubles (A 76, B 200); ending it by discarding a joker quadruples (A 152,
    B 400); committing before the final discard makes no difference (R16)."""
    plays = ALL_AT_ONCE + ([lambda e: COMMIT] if commit else []) + [lambda e: discard(e, last)]
    s = scoring_round(rami(3), "JH QH KH 5S 6S 7S AD AC AH " + last, plays, winner_opened=False)
    assert s["hand_scores"] == [0, a_score, b_score] and s["totals"] == [0, a_score, b_score]


def test_E65_joker_discard_of_normal_out():
    """R19, AR16: a joker as the final discard of a normal out earns nothing: A 38, B 100."""
    s = scoring_round(rami(3), "2C 3C 4C JK", [lambda e: meld(e, "2C 3C 4C"), lambda e: discard(e, "JK")],
                      winner_opened=True)
    assert s["hand_scores"] == [0, 38, 100]


@pytest.mark.parametrize("kind, expected", [("normal", 100), ("all_at_once", 200), ("joker_finish", 400)])
def test_E66_non_opener_scores_exactly_100(kind, expected):
    """R19, AR21: a non-opener whose hand is worth more than 100 (jokers, aces) scores exactly 100 (200 / 400
    with the all-at-once multipliers)."""
    a_hand = "AS 7C"
    if kind == "normal":
        b_hand = "JK JK JK JK AH AC KS KD"
        s = scoring_round(rami(3), "2C 3C 4C 9H", [lambda e: meld(e, "2C 3C 4C"), lambda e: discard(e, "9H")],
                          winner_opened=True, a_hand=a_hand, b_hand=b_hand)
    else:
        b_hand = "JK JK JK AH AC KS KD 10C"                # 60 + 22 + 20 + 10 = 112
        last = "JK" if kind == "joker_finish" else "4C"
        s = scoring_round(rami(3), "JH QH KH 5S 6S 7S AD AC AH " + last, ALL_AT_ONCE + [lambda e: discard(e, last)],
                          winner_opened=False, a_hand=a_hand, b_hand=b_hand)
    assert s["hand_scores"][2] == expected and s["hand_scores"][1] == 18 * expected // 100


def test_E67_flat100():
    """R19: ``all_at_once_scoring = "flat100"``: an all-at-once out ending with a joker discard scores exactly
    100 for every opponent."""
    s = scoring_round(rami(3, all_at_once_scoring="flat100"), "JH QH KH 5S 6S 7S AD AC AH JK",
                      ALL_AT_ONCE + [lambda e: discard(e, "JK")], winner_opened=False)
    assert s["hand_scores"] == [0, 100, 100]


@pytest.mark.parametrize("value, a_score", [(50, 68), (35, 53)])
def test_E68_joker_hand_value(value, a_score):
    """R19, AR15: ``joker_hand_value`` 50 / 35: A scores 11 + 50 + 7 = 68 / 11 + 35 + 7 = 53."""
    s = scoring_round(rami(3, joker_hand_value=value), "2C 3C 4C 9H",
                      [lambda e: meld(e, "2C 3C 4C"), lambda e: discard(e, "9H")], winner_opened=True)
    assert s["hand_scores"] == [0, a_score, 100]


# ==================================================================================================== E69
def test_E69_relaxed_all_at_once_criteria():
    """R11.5, R16, AR20: with ``all_at_once_requires_opening_criteria = false`` a pure run and 45 points laid,
    then the last card discarded, is a legal all-at-once out; the same laying without going out cannot be
    committed; without a pure run the out is illegal unless ``all_at_once_requires_pure_run = false`` too."""
    pure = [lambda e: meld(e, "9H 10H JH"), lambda e: meld(e, "4C 4D 4H"), lambda e: lay_off(e, 1, "4S")]
    relaxed = rami(2, all_at_once_requires_opening_criteria=False)
    opening_turn(relaxed, "9H 10H JH 4C 4D 4H 4S KC", pure)
    assert points(relaxed) == 45
    assert_illegal(relaxed, COMMIT)
    s = out_with(relaxed, [discard(relaxed, "KC")])
    assert s["winner"] == 0 and s["hand_scores"] == [0, 200]
    # default criteria: 45 < 51, no out
    default = rami(2)
    opening_turn(default, "9H 10H JH 4C 4D 4H 4S KC", pure)
    assert_illegal(default, discard(default, "KC"))
    # the same laying that does not go out this turn (two cards left): no commit, no discard
    opening_turn(relaxed, "9H 10H JH 4C 4D 4H 4S KC 2D", pure)
    assert_illegal(relaxed, COMMIT)
    assert_illegal(relaxed, discard(relaxed, "KC"))
    assert discards(relaxed) == set() and UNDO in legal(relaxed)   # only an undo leads on (R24)
    # without a pure run
    no_pure = [lambda e: meld(e, "9H 9C 9D"), lambda e: meld(e, "4C 4D 4H"), lambda e: lay_off(e, 1, "4S")]
    opening_turn(relaxed, "9H 9C 9D 4C 4D 4H 4S KC", no_pure)
    assert_illegal(relaxed, discard(relaxed, "KC"))
    no_run_needed = rami(2, all_at_once_requires_opening_criteria=False, all_at_once_requires_pure_run=False)
    opening_turn(no_run_needed, "9H 9C 9D 4C 4D 4H 4S KC", no_pure)
    s = out_with(no_run_needed, [discard(no_run_needed, "KC")])
    assert s["winner"] == 0 and s["hand_scores"] == [0, 200]


# ==================================================================================================== E70
def test_E70_all_at_once_may_not_use_table():
    """R11.5, R16: with ``all_at_once_may_use_table = false`` an all-at-once out that needs a lay-off onto an
    opponent's meld is illegal (the lay-off is masked); a tentative lay-off onto an opponent's meld is legal
    when the turn can still be committed as an ordinary opening, and the player then cannot go out this turn."""
    strict, default = rami(2, all_at_once_may_use_table=False), rami(2)
    table = [(1, "5C 6C 7C")]
    out_hand = "9H 10H JH KC KD KS 8C 2D"
    load(strict, [out_hand, "2H 3H 4H"], table=table)
    if look_ahead():
        assert_illegal(strict, lay_off(strict, 0, "8C"))
    else:  # R25: legal on its own (it leaves cards in hand); the out it leads to is refused
        step(strict, lay_off(strict, 0, "8C"))
        step(strict, meld(strict, "9H 10H JH"))
        step(strict, meld(strict, "KC KD KS"))
        assert_illegal(strict, discard(strict, "2D"))  # an all-at-once out using the table
        assert TAKE_BACK in legal(strict)
    load(default, [out_hand, "2H 3H 4H"], table=table)
    s = out_with(default, [lay_off(default, 0, "8C"), meld(default, "9H 10H JH"), meld(default, "KC KD KS"),
                           discard(default, "2D")])
    assert s["winner"] == 0

    hand = "9H 10H JH KC KD KS 8C 2S 3S 4S 9D"
    for eng in (strict, default):
        load(eng, [hand, "2H 3H 4H"], table=table)
        for action in (lay_off(eng, 0, "8C"), meld(eng, "9H 10H JH"), meld(eng, "KC KD KS"), COMMIT):
            step(eng, action)
        assert snap(eng)["opened"][0] and snap(eng)["table"][0]["cards"] == ids("5C 6C 7C 8C")
        if eng is strict and look_ahead():
            assert_illegal(eng, meld(eng, "2S 3S 4S"))      # it would let him go out by discarding 9D
            step(eng, discard(eng, "9D"))
            assert snap(eng)["hands"][0] == ids("2S 3S 4S") and snap(eng)["current"] == 1
        elif eng is strict:  # R25: legal on its own; going out with 9D then is not: TAKE_BACK (or a TAKE)
            step(eng, meld(eng, "2S 3S 4S"))
            assert_illegal(eng, discard(eng, "9D"))
            assert legal(eng) == {TAKE_BACK} | {eng.layout.take(0, choice) for choice in (0, 1)}
        else:
            s = out_with(eng, [meld(eng, "2S 3S 4S"), discard(eng, "9D")])
            assert s["winner"] == 0


# ==================================================================================================== E71
@pytest.mark.parametrize("scoring", ["none", "hand_penalties"])
def test_E71_dead_round_nothing_to_rebuild(scoring):
    """R17, AR17: constructed states where the stock is empty and nothing can be rebuilt at a turn start: a
    dead round; nobody scores by default, everyone his base penalty (×1) with "hand_penalties".

    (a) manual-mode penalty draws emptied both the stock and the discard pile; (b) ``reshuffle_keep_top``
    with a one-card pile that the next player may not take (he holds one card) or cannot use."""
    eng = rami(2, card_announcement="manual", dead_round_scoring=scoring)
    load(eng, ["2C 9D", ""], leftover_to=1, opened=[True, False])
    assert snap(eng)["stock"] == [] and snap(eng)["discard"] == []
    _, ended = step(eng, silent_discard(eng, "9D"))        # pile [9D] -> rebuilt, drawn; nothing left
    s = snap(eng)
    assert ended and s["end_reason"] == "dead_no_draw" and s["winner"] is None and s["phase"] == "hand_over"
    assert s["hands"][0] == ids("2C 9D") and s["stock"] == [] and s["discard"] == [] and s["reshuffles"] == 1
    assert s["hand_scores"] == ([0, 0] if scoring == "none" else [11, 100]) and s["totals"] == s["hand_scores"]
    assert s["hands_played"] == 1

    eng = rami(3, reshuffle_keep_top=True, dead_round_scoring=scoring)
    for seat0 in ("KH", "KH 2S 7D"):                          # holds one card / cannot use 8D (not opened)
        load(eng, [seat0, "", "5C 8D"], leftover_to=1, current=2, opened=[False, False, True])
        _, ended = step(eng, discard(eng, "8D"))
        s = snap(eng)
        if seat0 != "KH" and not look_ahead():  # R25: taking 8D is legal on its own; no dead round
            assert not ended and s["phase"] == "draw" and legal(eng) == {DRAW_DISCARD}
            continue
        assert ended and s["end_reason"] == "dead_no_draw" and s["discard"] == [cid("8D")] and s["reshuffles"] == 0
        assert s["hand_scores"] == ([0, 0, 0] if scoring == "none" else [100, 100, 5])


# ==================================================================================================== E72
def test_E72_penalty_draw_rebuilds_and_cap():
    """R7, R17: a penalty draw of 2 with 1 card in the stock: draw it, rebuild from the whole discard pile
    (counted toward ``max_reshuffles``), draw again. With the cap already reached: draw 1, no rebuild, no
    further card; the round ends dead at the next turn start."""
    eng = rami(2, card_announcement="manual", max_reshuffles=1)
    kw = {"stock_next": "5H", "leftover_to": 1, "discard": "3S 4S", "opened": [True, True]}
    load(eng, ["2C 9D", ""], **kw)
    _, ended = step(eng, silent_discard(eng, "9D"))
    s = snap(eng)
    assert not ended and s["reshuffles"] == 1 and s["discard"] == [] and len(s["stock"]) == 2
    assert len(s["hands"][0]) == 3 and ids("2C 5H") == sorted(set(s["hands"][0]) & set(ids("2C 5H")))
    drawn = [c for c in s["hands"][0] if c not in ids("2C 5H")]
    assert sorted(drawn + s["stock"]) == ids("3S 4S 9D")
    assert s["current"] == 1 and s["phase"] == "draw"

    load(eng, ["2C 9D", ""], reshuffles=1, **kw)
    _, ended = step(eng, silent_discard(eng, "9D"))
    s = snap(eng)
    assert ended and s["end_reason"] == "dead_reshuffles" and s["winner"] is None
    assert s["hands"][0] == ids("2C 5H") and s["stock"] == [] and s["discard"] == cards.parse_many("3S 4S 9D")
    assert s["reshuffles"] == 1 and s["hand_scores"] == [0, 0]


# ==================================================================================================== E73
@pytest.mark.parametrize("before, winners", [([970, 1000, 450], [2]), ([430, 1000, 440], [0, 2])])
def test_E73_threshold_game_end(before, winners):
    """R22, AR18: totals [980, 1010, 450] after a round: game over, the lowest total (450) wins; equal lowest
    totals are joint winners."""
    eng = rami(3)
    load(eng, ["10C", "10D", "2C 3C 4C 9H"], current=2, opened=[True, True, True], totals=before)
    s = out_with(eng, [meld(eng, "2C 3C 4C"), discard(eng, "9H")])
    assert s["totals"] == [before[0] + 10, before[1] + 10, before[2]]
    assert s["phase"] == "game_over" and s["game_winners"] == winners


# ==================================================================================================== E81
def test_E81_second_tentative_play_after_undo():
    """R11.5, R23, R24: not opened, one undo; K♠K♥K♦ tentatively ✓ (an undo remains); UNDO ✓; Q♠Q♥Q♦ ✗ (no
    undo left and no pure run: neither a commit nor an all-at-once out is reachable); a discard ✓."""
    eng = rami(2)
    hand = "KS KH KD QS QH QD 2C 5D 9S 7H"
    load(eng, [hand, "2H 3H 4H"])
    step(eng, meld(eng, "KS KH KD"))
    assert snap(eng)["turn_state"]["tentative"] == 1 and table_meld(eng, 0)["tentative"]
    step(eng, UNDO)
    s = snap(eng)
    assert s["hands"][0] == ids(hand) and s["table"] == [] and s["undos"] == 1 and s["turn_state"]["tentative"] == 0
    assert_illegal(eng, UNDO)
    if not look_ahead():  # R25: a tentative meld is legal on its own; with no undo left TAKE_BACK is the way out
        step(eng, meld(eng, "QS QH QD"))
        assert legal(eng) == {meld(eng, "KS KH KD"), TAKE_BACK}
        return
    assert_illegal(eng, meld(eng, "QS QH QD"))
    assert_illegal(eng, meld(eng, "KS KH KD"))
    step(eng, discard(eng, "2C"))
    assert snap(eng)["current"] == 1


# ==================================================================================================== E82
def test_E82_commit_then_ordinary_plays():
    """R11.5: 9♥10♥J♥ (29): COMMIT ✗, a discard that does not go out ✗; + K♣K♦K♠ (59): COMMIT ✓; then Q♥
    laid off onto his run is an ordinary (not tentative) play."""
    eng = rami(2)
    load(eng, ["9H 10H JH KC KD KS QH 2D 5S", "2C 3C 4C"])
    step(eng, meld(eng, "9H 10H JH"))
    assert_illegal(eng, COMMIT)
    assert_illegal(eng, discard(eng, "2D"))
    step(eng, meld(eng, "KC KD KS"))
    assert points(eng) == 59
    assert_illegal(eng, discard(eng, "2D"))
    step(eng, COMMIT)
    s = snap(eng)
    assert s["opened"] == [True, False] and not any(m["tentative"] for m in s["table"])
    assert_illegal(eng, UNDO)
    step(eng, lay_off(eng, 0, "QH"))
    s = snap(eng)
    assert s["table"][0]["cards"] == ids("9H 10H JH QH") and not s["table"][0]["tentative"]
    assert s["turn_state"]["tentative"] == 0
    assert_illegal(eng, UNDO)
    step(eng, discard(eng, "2D"))
    assert snap(eng)["hands"][0] == ids("5S")


# ==================================================================================================== E83
def test_E83_final_discard_forbidden():
    """R15, R23: ``final_discard = "forbidden"``, hand {4♦,5♦,6♦,K♠}, no meld takes K♠: laying 4♦5♦6♦ ✗ (K♠
    could be neither laid nor discarded); discarding K♠ ✓. With 7♦: 4♦5♦6♦ then 7♦ ✓, out."""
    eng = rami(2, final_discard="forbidden")
    table = [(1, "2H 3H 4H")]
    load(eng, ["4D 5D 6D KS", "2C 3C 4C"], table=table, opened=[True, True])
    if look_ahead():
        assert_illegal(eng, meld(eng, "4D 5D 6D"))
    else:  # R25: legal on its own; K♠ can then be neither laid nor discarded: TAKE_BACK
        step(eng, meld(eng, "4D 5D 6D"))
        assert legal(eng) == {TAKE_BACK}
        load(eng, ["4D 5D 6D KS", "2C 3C 4C"], table=table, opened=[True, True])
    step(eng, discard(eng, "KS"))
    assert snap(eng)["hands"][0] == ids("4D 5D 6D") and snap(eng)["current"] == 1
    load(eng, ["4D 5D 6D 7D", "2C 3C 4C"], table=table, opened=[True, True])
    s = out_with(eng, [meld(eng, "4D 5D 6D"), lay_off(eng, 1, "7D")])
    assert s["winner"] == 0 and s["table"][1]["cards"] == ids("4D 5D 6D 7D") and s["discard"] == []


# ==================================================================================================== E84
def test_E84_two_takes_into_one_set():
    """R13, R23: table 5♥6♥7♥8♥ and 8♠9♠10♠J♠, hand 8♦ + two unrelated cards: TAKE 8♥, TAKE 8♠, MELD
    8♥8♠8♦ ✓, then a discard ✓; no discard while a taken card is held; a TAKE of 5♥ or J♠ (no new meld with
    an own card can hold it) is masked."""
    eng = rami(2)
    load(eng, ["8D 2C KD", "2H 3H 4H"], table=[(1, "5H 6H 7H 8H"), (1, "8S 9S 10S JS")], opened=[True, True])
    if look_ahead():
        assert legal_kinds(eng, "take") == {(0, 1), (1, 0)}
        assert_illegal(eng, take(eng, 0, "5H"))
        assert_illegal(eng, take(eng, 1, "JS"))
    else:  # R25: every end of a 4-card run may be taken; 5H and JS would then be taken back
        assert legal_kinds(eng, "take") == {(0, 0), (0, 1), (1, 0), (1, 1)}
    step(eng, take(eng, 0, "8H"))
    assert discards(eng) == set()
    assert_illegal(eng, discard(eng, "2C"))
    assert_illegal(eng, discard(eng, "8H"))
    step(eng, take(eng, 1, "8S"))
    assert snap(eng)["turn_state"]["pending"] == ids("8H 8S")
    assert discards(eng) == set()
    step(eng, meld(eng, "8H 8S 8D"))
    s = snap(eng)
    assert s["table"][2]["cards"] == ids("8H 8S 8D") and s["turn_state"]["pending"] == []
    assert s["table"][0]["cards"] == ids("5H 6H 7H") and s["table"][1]["cards"] == ids("9S 10S JS")
    assert discards(eng) == {cid("2C"), cid("KD")}
    step(eng, discard(eng, "KD"))
    assert snap(eng)["current"] == 1


# ==================================================================================================== E85
@pytest.mark.parametrize("played_before, over", [(99, True), (98, False)])
def test_E85_max_rounds_cap(played_before, over):
    """R17, R22: ``max_rounds = 100`` in "threshold" mode: the 100th round (here a dead one, at the turn cap)
    ends the game although no total reached 1000; totals [620, 540, 540]: the two 540s are joint winners."""
    eng = rami(3)
    load(eng, ["2C 9D", "5S", "6S"], opened=[True, True, True], totals=[620, 540, 540], hands_played=played_before,
         turn=999)
    _, ended = step(eng, discard(eng, "9D"))
    s = snap(eng)
    assert ended and s["end_reason"] == "dead_turn_cap" and s["hands_played"] == played_before + 1
    assert s["totals"] == [620, 540, 540]
    if over:
        assert s["phase"] == "game_over" and s["game_winners"] == [1, 2]
    else:
        assert s["phase"] == "hand_over" and s["game_winners"] == []


# ==================================================================================================== E74-E79, E86 (Lebanese)
def leb(num_players: int = 2, **knobs):
    return rami(num_players, preset="lebanese14", **knobs)


@pytest.mark.parametrize("names, value", [("AS 2S 3S", 15), ("QS KS AS", 30), ("AD AC AH", 30)])
def test_E74_lebanese_ace_value(names, value):
    """R21.1: the ace is always 10: A♠2♠3♠ 15, Q♠K♠A♠ 30, A♦A♣A♥ 30; an ace left in hand scores 10."""
    eng = leb()
    opening_turn(eng, names + " 7D 9H 4C", [lambda e: meld(e, names)])
    assert points(eng) == value
    load(eng, ["2C 3C 4C 9H", "AH"], opened=[True, True])
    s = out_with(eng, [meld(eng, "2C 3C 4C"), discard(eng, "9H")])
    assert s["hand_scores"] == [0, 10]


@pytest.mark.parametrize("where, legal_by_default", [("one_on_table", False), ("both_on_table", True),
                                                     ("one_in_pile", False)])
def test_E75_lebanese_burnt_joker_in_run(where, legal_by_default):
    """R21.2, AL2: a joker may stand for 7♥ in a run only when both 7♥ are in table melds (✓), not with one in
    a meld (✗), nor with one in a meld and one in the discard pile (✗; ✓ with ``burnt_includes_discard_pile``);
    the same check for a joker moved into a new run by TAKE (``can_take_joker_from_meld``)."""
    table = [(1, "7H 7C 7S")] + ([(1, "7H 7D 7S")] if where == "both_on_table" else [])
    pile = "2D 7H" if where == "one_in_pile" else "2D"
    for knobs in ({}, {"burnt_includes_discard_pile": True}):
        expected = legal_by_default or (where == "one_in_pile" and bool(knobs))
        eng = leb(**knobs)
        load(eng, ["5H 6H JK 2C 9S", "2H 3H 4H"], table=table, discard=pile, opened=[True, True])
        action = meld(eng, "5H 6H JK", joker_at=7)
        if expected:
            step(eng, action)
            assert table_meld(eng, len(table))["joker_at"] == 7
        else:
            assert_illegal(eng, action)
        # the same joker taken from an opponent's run (the knob) into a new run with 5H 6H
        eng = leb(can_take_joker_from_meld=True, **knobs)
        load(eng, ["5H 6H 2C 9S KD", "2H 3H 4H"], table=[(1, "8C 9C 10C JK", 11)] + table, discard=pile,
             opened=[True, True])
        if expected:
            step(eng, take(eng, 0, "JK"))
            step(eng, meld(eng, "5H 6H JK", joker_at=7))
            step(eng, discard(eng, "KD"))
        elif look_ahead():
            assert_illegal(eng, take(eng, 0, "JK"))
        else:  # R25: the TAKE is legal on its own; the joker's run is not, so the turn is taken back
            step(eng, take(eng, 0, "JK"))
            assert_illegal(eng, meld(eng, "5H 6H JK", joker_at=7))
            assert legal(eng) == {TAKE_BACK}


def test_E76_lebanese_joker_in_set():
    """R21.2: a joker in a set needs nothing burnt: meld 7♣7♦Jk and a joker laid off onto 9♣9♠9♦ are legal."""
    eng = leb()
    load(eng, ["7C 7D JK JK 2S 5H", "2H 3H 4H"], table=[(1, "9C 9S 9D")], opened=[True, True])
    assert_legal(eng, lay_off(eng, 0, "JK"))
    step(eng, meld(eng, "7C 7D JK"))
    step(eng, lay_off(eng, 0, "JK"))
    assert table_meld(eng, 0)["cards"] == ids("9C 9S 9D JK") and table_meld(eng, 1)["cards"] == ids("7C 7D JK")


def test_E77_lebanese_pickup_needs_71():
    """R21.3, AL3: not opened: taking the discard top to open with 60 ✗ (masked); with 71+ ✓ (the commit
    needs 71 that turn); drawing from the stock, 60 opens ✓."""
    eng = leb()
    load(eng, ["10H JH KC KD KS 2C 5D 8S 4C", "2H 3H 4H"], discard="6D QH", phase="draw")
    if look_ahead():
        assert legal(eng) == {DRAW_STOCK}
        assert_illegal(eng, DRAW_DISCARD)
    else:  # R25: legal on its own; 60 points cannot COMMIT after a pickup
        step(eng, DRAW_DISCARD)
        step(eng, meld(eng, "10H JH QH"))
        step(eng, meld(eng, "KC KD KS"))
        assert_illegal(eng, COMMIT, "below 71")

    load(eng, ["10H JH KC KD KS QC QD QS 2C 5D", "2H 3H 4H"], discard="6D QH", phase="draw")
    assert DRAW_DISCARD in legal(eng)
    step(eng, DRAW_DISCARD)
    step(eng, meld(eng, "10H JH QH"))
    step(eng, meld(eng, "KC KD KS"))
    assert points(eng) == 60
    assert_illegal(eng, COMMIT)
    step(eng, meld(eng, "QC QD QS"))
    step(eng, COMMIT)
    step(eng, discard(eng, "2C"))
    assert snap(eng)["opened"][0]

    load(eng, ["10H JH QH KC KD KS 2C 5D 8S 4C", "2H 3H 4H"], discard="6D", stock_next="3D", phase="draw")
    step(eng, DRAW_STOCK)
    step(eng, meld(eng, "10H JH QH"))
    step(eng, meld(eng, "KC KD KS"))
    assert points(eng) == 60
    step(eng, COMMIT)
    assert snap(eng)["opened"][0]


LEB_A, LEB_B = "10C 10D 10S 7C", "2H 3H 4H 5S"


@pytest.mark.parametrize("jokers, a_score, b_score", [(0, 74, 200), (1, 55.5, 150), (2, 37, 100), (3, 37, 100)])
@pytest.mark.parametrize("rounding", ["exact", "ceil"])
def test_E78_lebanese_joker_scaling(jokers, a_score, b_score, rounding):
    """R21.5, AL5: all-at-once out; an opened opponent holding 37 scores 74 / 55.5 / 37 / 37 when the winner
    laid 0 / 1 / 2 / 3 jokers from his hand (new melds or lay-offs); 56 for one joker with "ceil"; a
    non-opener 200 / 150 / 100 / 100."""
    eng = leb(3, half_point_rounding=rounding)
    hand = {0: "JH QH KH 8C 8D 8S 2S", 1: "JH QH KH 8C 8D 8S JK 2S", 2: "JH QH KH 8C 8D JK 9C 9D JK 2S",
            3: "JH QH KH 8C 8D JK 9C 9D JK 7C 7D JK 2S"}[jokers]
    plays = {0: [lambda e: meld(e, "8C 8D 8S")],
             1: [lambda e: meld(e, "8C 8D 8S"), lambda e: lay_off(e, 1, "JK")],     # a joker laid off
             2: [lambda e: meld(e, "8C 8D JK"), lambda e: meld(e, "9C 9D JK")],
             3: [lambda e: meld(e, "8C 8D JK"), lambda e: meld(e, "9C 9D JK"), lambda e: meld(e, "7C 7D JK")]}[jokers]
    s = scoring_round(eng, hand, [lambda e: meld(e, "JH QH KH")] + plays + [lambda e: discard(e, "2S")],
                      winner_opened=False, a_hand=LEB_A, b_hand=LEB_B)
    if rounding == "ceil" and jokers == 1:
        a_score = 56
    assert s["hand_scores"] == [0, a_score, b_score] and s["totals"] == [0, a_score, b_score]


def test_E79_lebanese_all_at_once_uses_table():
    """R21.4, AL4: under the preset an all-at-once out may lay off onto opponents' melds (the preset forces
    ``all_at_once_may_use_table = true``)."""
    from rummy_env import RummyRules

    with pytest.raises(ValueError, match="all_at_once_may_use_table"):
        RummyRules.preset("lebanese14", num_players=2, all_at_once_may_use_table=False)
    eng = leb()
    load(eng, ["9H 10H JH KC KD KS 8C 2D", "2H 3H 4H"], table=[(1, "5C 6C 7C")])
    s = out_with(eng, [lay_off(eng, 0, "8C"), meld(eng, "9H 10H JH"), meld(eng, "KC KD KS"), discard(eng, "2D")])
    assert s["winner"] == 0 and s["table"][0]["cards"] == ids("5C 6C 7C 8C") and s["hand_scores"] == [0, 200]


def test_E86_lebanese_scaling_overrides_flat100():
    """R21.5, AL5, AL6: ``lebanese`` with ``all_at_once_scoring = "flat100"``: an all-at-once out that lays off
    one joker onto an opponent's set and discards a joker: one joker counted → ×1.5 = 55.5 for the opened
    opponent holding 37 (no flat 100, no ×4; the discarded joker does not count); 150 for a non-opener."""
    eng = leb(3, all_at_once_scoring="flat100")
    load(eng, ["JH QH KH KC KD KS JK JK", LEB_A, LEB_B], table=[(1, "9C 9S 9D")], opened=[False, True, False])
    s = out_with(eng, [meld(eng, "JH QH KH"), meld(eng, "KC KD KS"), lay_off(eng, 0, "JK"), discard(eng, "JK")])
    assert s["table"][0]["cards"] == ids("9C 9S 9D JK")
    assert s["hand_scores"] == [0, 55.5, 150]
