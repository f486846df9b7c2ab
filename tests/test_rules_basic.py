"""Scripted rule scenarios for ruleset ``basic``: one test per edge case of the rules book, docs/rules.md (E1-E27, E80),
named after its id, plus illegal-action reporting, the illegal-action penalty, rewards and configuration
validation.

Each scenario is a position written by hand (or a deck dealt into the engine) and a move list; every
expected outcome (legal/illegal actions, hands, table, piles, scores, game end, dealers) is asserted
exactly. Rule ids (B1-B19, AB1-AB12) are those of docs/rules.md.
"""

from __future__ import annotations

import numpy as np
import pytest

from rummy_env import IllegalActionError, RummyEngine, RummyRules, cards

from scenario import (DRAW_DISCARD, DRAW_STOCK, assert_illegal, cid, deck_with, discard, draw_and_discard_drawn,
                      engine, ids, lay_off, legal, load, meld, position, snap, step, win_hand)


def discards_of(eng, names: str) -> set[int]:
    return {discard(eng, n) for n in names.split()}


def table_cards(s, slot: int) -> list[int]:
    return s["table"][slot]["cards"]


def layoffs_on(eng, slot: int) -> set[int]:
    """Legal lay-off actions onto ``slot``."""
    L = eng.layout
    lo = L.lay_off(slot, 0)
    return {a for a in legal(eng) if lo <= a < lo + L.num_card_types}


def melds_in(actions: set[int], eng) -> set[int]:
    L = eng.layout
    return {a for a in actions if L.meld_offset <= a < L.layoff_offset}


# ==================================================================================================== E1
HAND = {2: 10, 3: 7, 4: 7, 5: 6, 6: 6}
STOCK = {2: 31, 3: 30, 4: 23, 5: 21, 6: 15}


@pytest.mark.parametrize("n", [2, 3, 4, 5, 6])
@pytest.mark.parametrize("dealer_choice", ["first", "last"])
def test_E1_deal_sizes_and_player_counts(n, dealer_choice):
    """B1, B4: hands 10/7/7/6/6, stock 31/30/23/21/15, one upcard; dealt one card at a time clockwise from the
    dealer's left, then the upcard, then the stock in deck order; the dealer's left plays first (B5)."""
    dealer = 0 if dealer_choice == "first" else n - 1
    eng = engine(n)
    assert eng.rules.hand_size == HAND[n]
    deck = [int(c) for c in np.random.default_rng(100 + n).permutation(52)]
    eng.reset(decks=[deck], dealers=[dealer])
    s = snap(eng)
    h = HAND[n]
    for seat in range(n):
        assert len(s["hands"][seat]) == h
        i = (seat - dealer - 1) % n                      # position of the seat in the dealing cycle
        assert s["hands"][seat] == sorted(deck[i:n * h:n]), f"seat {seat}"
    assert s["discard"] == [deck[n * h]]                  # the upcard starts the discard pile
    assert len(s["stock"]) == STOCK[n] == 52 - n * h - 1
    assert s["stock"][::-1] == deck[n * h + 1:]           # stock[-1] (drawn next) is the next card of the deck
    assert s["dealer"] == dealer and s["current"] == (dealer + 1) % n
    assert s["phase"] == "draw" and s["table"] == [] and s["taken"] is None
    assert s["turn"] == 0 and s["reshuffles"] == 0 and s["hands_played"] == 0 and s["totals"] == [0] * n
    assert legal(eng) == {DRAW_STOCK, DRAW_DISCARD}
    # the next stock draw is the next card of the deck
    step(eng, DRAW_STOCK)
    assert deck[n * h + 1] in snap(eng)["hands"][(dealer + 1) % n]

    # a seeded shuffle: every card exactly once, reproducible, and the deal sizes hold as well
    eng.reset(seed=7)
    s1 = snap(eng)
    everything = sorted(sum(s1["hands"], []) + s1["discard"] + s1["stock"])
    assert everything == list(range(52))
    assert [len(x) for x in s1["hands"]] == [h] * n and len(s1["stock"]) == STOCK[n] and len(s1["discard"]) == 1
    eng.reset(seed=7)
    assert snap(eng) == s1


@pytest.mark.parametrize("n", [0, 1, 7, 8])
def test_E1_player_counts_rejected(n):
    """B1: any player count outside 2..6 is rejected at configuration."""
    with pytest.raises(ValueError, match="num_players"):
        RummyRules.preset("basic", num_players=n)


def test_E1_first_dealer():
    """B4.1: first dealer random (every seat possible) or a configured seat; the dealer's left starts."""
    eng = engine(4, first_dealer=2)
    eng.reset(seed=1)
    assert snap(eng)["dealer"] == 2 and snap(eng)["current"] == 3
    eng = RummyEngine(RummyRules.preset("basic", num_players=4), batch_size=64)
    eng.reset(seed=3)
    dealers = {int(d) for d in eng.state["dealer"]}
    assert dealers == {0, 1, 2, 3}
    assert all(int(c) == (int(d) + 1) % 4 for c, d in zip(eng.state["current"], eng.state["dealer"]))


# ==================================================================================================== E2
def test_E2_taken_discard_card_cannot_be_discarded():
    """B7 / AB1: the first player takes the upcard 7♦ and may not discard it; any other discard is legal."""
    eng = engine(2)
    deck = deck_with({20: "7D"}, seed=2)          # 2 players x 10 cards: deck[20] is the upcard
    eng.reset(decks=[deck], dealers=[1])
    s = snap(eng)
    assert s["current"] == 0 and s["discard"] == [cid("7D")]
    hand0 = s["hands"][0]
    step(eng, DRAW_DISCARD)
    s = snap(eng)
    assert s["taken"] == cid("7D") and s["hands"][0] == sorted(hand0 + [cid("7D")]) and s["discard"] == []
    assert_illegal(eng, discard(eng, "7D"), reason="B7")
    assert legal(eng) & {discard(eng, cards.name(c)) for c in range(52)} == {eng.layout.discard(c) for c in hand0}
    other = hand0[3]
    step(eng, eng.layout.discard(other))
    s = snap(eng)
    assert s["discard"] == [other] and s["current"] == 1 and s["phase"] == "draw" and s["taken"] is None
    assert cid("7D") in s["hands"][0] and len(s["hands"][0]) == 10

    # the knob off: discarding the taken card is allowed
    eng = engine(2, forbid_discarding_card_taken_from_discard=False)
    eng.reset(decks=[deck], dealers=[1])
    step(eng, DRAW_DISCARD)
    step(eng, discard(eng, "7D"))
    assert snap(eng)["discard"] == [cid("7D")] and snap(eng)["hands"][0] == hand0


# ==================================================================================================== E3
def test_E3_meld_with_taken_card_then_discard():
    """B6-B8: take 5♣ from the discard pile, meld 5♣5♥5♠, discard another card."""
    eng = engine(2)
    load(eng, ["5H 5S 9D KC", "2D 3D"], discard="8C 5C", current=0)
    step(eng, DRAW_DISCARD)
    assert snap(eng)["taken"] == cid("5C")
    step(eng, meld(eng, "5C 5H 5S"))
    s = snap(eng)
    assert s["hands"][0] == ids("9D KC") and s["phase"] == "play" and s["current"] == 0
    assert len(s["table"]) == 1
    assert s["table"][0]["owner"] == 0 and s["table"][0]["kind"] == "set"
    assert table_cards(s, 0) == ids("5C 5H 5S")
    assert s["table_by_seat"][0] == ids("5C 5H 5S")
    step(eng, discard(eng, "KC"))
    s = snap(eng)
    assert s["hands"][0] == ids("9D") and s["discard"] == [cid("8C"), cid("KC")]
    assert s["current"] == 1 and s["phase"] == "draw" and s["winner"] is None
    assert s["has_played"] == [True, False]


# ==================================================================================================== E4
def test_E4_taken_card_may_be_kept():
    """B6, B16: no usage condition on the discard top: take it, keep it, discard something else."""
    eng = engine(2)
    load(eng, ["2C 9D KH", "3D 4D"], discard="6S QS", current=0)
    step(eng, DRAW_DISCARD)
    assert legal(eng) == discards_of(eng, "2C 9D KH")     # nothing to meld or lay off; QS cannot be discarded
    step(eng, discard(eng, "9D"))
    s = snap(eng)
    assert s["hands"][0] == ids("2C KH QS") and s["discard"] == [cid("6S"), cid("9D")]
    assert s["current"] == 1 and s["phase"] == "draw" and s["table"] == []
    assert cid("QS") in s["known"][0]                     # AB12: the whole table saw him take it
    assert s["has_played"] == [False, False]


# ==================================================================================================== E5
def test_E5_go_out_by_melding_with_taken_card():
    """B6.3, B10: hand {4♠,5♠}, take 6♠, meld 4♠5♠6♠: out with no discard; the hand ends at once."""
    eng = engine(2)
    load(eng, ["4S 5S", "KD 3C"], discard="9H 6S", current=0, has_played=[True, True])
    step(eng, DRAW_DISCARD)
    rewards, ended = step(eng, meld(eng, "4S 5S 6S"))
    s = snap(eng)
    assert ended and s["phase"] == "hand_over" and s["end_reason"] == "out"
    assert s["winner"] == 0 and s["rummy"] is False
    assert s["hands"][0] == [] and s["discard"] == [cid("9H")]   # no discard was made
    assert table_cards(s, 0) == ids("4S 5S 6S")
    assert s["hand_scores"] == [13, 0] and s["totals"] == [13, 0]
    assert s["hands_played"] == 1 and legal(eng) == set()
    assert s["current"] == 0                                    # nobody else plays


# ==================================================================================================== E6
def test_E6_no_dead_end_with_taken_card():
    """B7, B18: hand {9♦}, take K♠; table 6♦7♦8♦; nothing accepts K♠. Discard 9♦ ✓; lay off 9♦ ✗
    (would strand K♠); discard K♠ ✗."""
    eng = engine(2)
    load(eng, ["9D", "2C 3C"], table=[(1, "6D 7D 8D")], discard="4H KS", current=0, has_played=[True, True])
    step(eng, DRAW_DISCARD)
    assert snap(eng)["hands"][0] == ids("9D KS") and snap(eng)["taken"] == cid("KS")
    assert legal(eng) == {discard(eng, "9D")}
    assert_illegal(eng, lay_off(eng, 0, "9D"), reason="B18")
    assert_illegal(eng, discard(eng, "KS"), reason="B7")
    assert_illegal(eng, lay_off(eng, 0, "KS"), reason="does not extend")
    step(eng, discard(eng, "9D"))
    s = snap(eng)
    assert s["phase"] == "draw" and s["current"] == 1 and s["winner"] is None
    assert s["hands"][0] == ids("KS") and s["discard"] == [cid("4H"), cid("9D")]

    # AB9 contrast: when the taken card can be laid off, laying off 9♦ first is fine and he may go out
    eng = engine(2)
    load(eng, ["9D", "2C 3C"], table=[(1, "6D 7D 8D"), (1, "10S JS QS")], discard="4H KS", current=0,
         has_played=[True, True])
    step(eng, DRAW_DISCARD)
    assert legal(eng) == {discard(eng, "9D"), lay_off(eng, 0, "9D"), lay_off(eng, 1, "KS")}
    step(eng, lay_off(eng, 0, "9D"))
    assert legal(eng) == {lay_off(eng, 1, "KS")}
    _, ended = step(eng, lay_off(eng, 1, "KS"))
    assert ended and snap(eng)["winner"] == 0 and snap(eng)["hand_scores"] == [5, 0]


# ==================================================================================================== E7
def test_E7_go_out_by_discarding():
    """B10: hand {9♦} + 3♣ from the stock; lay off 9♦ on 6♦7♦8♦, discard 3♣: out by discarding."""
    eng = engine(2)
    load(eng, ["9D", "QH 4C"], table=[(1, "6D 7D 8D")], discard="2S", stock_next="3C", current=0,
         has_played=[True, True])
    step(eng, DRAW_STOCK)
    s = snap(eng)
    assert s["hands"][0] == ids("9D 3C") and s["taken"] is None
    step(eng, lay_off(eng, 0, "9D"))
    s = snap(eng)
    assert table_cards(s, 0) == ids("6D 7D 8D 9D") and (s["table"][0]["lo"], s["table"][0]["hi"]) == (6, 9)
    assert s["phase"] == "play" and s["hands"][0] == ids("3C")
    rewards, ended = step(eng, discard(eng, "3C"))
    s = snap(eng)
    assert ended and s["phase"] == "hand_over" and s["end_reason"] == "out" and s["winner"] == 0
    assert s["discard"] == [cid("2S"), cid("3C")] and s["hands"][0] == []
    assert s["hand_scores"] == [14, 0] and s["totals"] == [14, 0] and s["rummy"] is False


# ==================================================================================================== E8
def test_E8_go_out_by_laying_off_on_opponents_meld():
    """B9, B10: the last card laid off onto an opponent's meld goes out (default); not with
    must_discard_to_go_out, where the last card must be discarded."""
    eng = engine(2)
    load(eng, ["9D 10D", "QH 4C"], table=[(1, "6D 7D 8D")], discard="2S", current=0, phase="play",
         has_played=[True, True])
    step(eng, lay_off(eng, 0, "9D"))
    rewards, ended = step(eng, lay_off(eng, 0, "10D"))
    s = snap(eng)
    assert ended and s["phase"] == "hand_over" and s["winner"] == 0 and s["end_reason"] == "out"
    assert s["table"][0]["owner"] == 1 and table_cards(s, 0) == ids("6D 7D 8D 9D 10D")
    assert s["table_by_seat"] == [ids("9D 10D"), ids("6D 7D 8D")]
    assert s["discard"] == [cid("2S")] and s["hand_scores"] == [14, 0]

    eng = engine(2, must_discard_to_go_out=True)
    load(eng, ["9D 10D", "QH 4C"], table=[(1, "6D 7D 8D")], discard="2S", current=0, phase="play",
         has_played=[True, True])
    step(eng, lay_off(eng, 0, "9D"))                       # leaves one card: fine
    assert_illegal(eng, lay_off(eng, 0, "10D"), reason="B10")
    assert legal(eng) == {discard(eng, "10D")}
    rewards, ended = step(eng, discard(eng, "10D"))
    s = snap(eng)
    assert ended and s["winner"] == 0 and s["discard"] == [cid("2S"), cid("10D")] and s["hand_scores"] == [14, 0]


# ==================================================================================================== E9
def test_E9_must_discard_to_go_out():
    """B10 variant: with {4♥,5♥,6♥} after the draw, melding the run is illegal; he must discard. With
    {4♥,5♥,6♥,K♣}: meld the run, discard K♣, out."""
    eng = engine(2, must_discard_to_go_out=True)
    load(eng, ["4H 5H", "QH 4C"], discard="2S", stock_next="6H", current=0, has_played=[True, True])
    step(eng, DRAW_STOCK)
    assert_illegal(eng, meld(eng, "4H 5H 6H"), reason="must_discard_to_go_out")
    assert legal(eng) == discards_of(eng, "4H 5H 6H")
    _, ended = step(eng, discard(eng, "5H"))
    s = snap(eng)
    assert not ended and s["phase"] == "draw" and s["current"] == 1 and s["hands"][0] == ids("4H 6H")

    eng = engine(2, must_discard_to_go_out=True)
    load(eng, ["4H 5H 6H", "QH 4C"], discard="2S", stock_next="KC", current=0, has_played=[True, True])
    step(eng, DRAW_STOCK)
    assert meld(eng, "4H 5H 6H") in legal(eng)
    step(eng, meld(eng, "4H 5H 6H"))
    assert legal(eng) == {discard(eng, "KC")}
    _, ended = step(eng, discard(eng, "KC"))
    s = snap(eng)
    assert ended and s["phase"] == "hand_over" and s["winner"] == 0 and s["end_reason"] == "out"
    assert s["discard"] == [cid("2S"), cid("KC")] and s["hand_scores"] == [14, 0]


# ==================================================================================================== E10
def test_E10_lay_off_both_ends_of_opponents_run():
    """B9, B3: onto 8♥9♥10♥ lay off 7♥ and J♥ in one turn; later Q♥, K♥; A♥ above K♥ is illegal."""
    eng = engine(2)
    load(eng, ["7H JH 2C 3D", "QH KH AH 5S"], table=[(1, "8H 9H 10H")], discard="9C", stock_next="4S 6C",
         current=0, has_played=[True, True])
    step(eng, DRAW_STOCK)
    step(eng, lay_off(eng, 0, "7H"))
    step(eng, lay_off(eng, 0, "JH"))
    s = snap(eng)
    assert table_cards(s, 0) == ids("7H 8H 9H 10H JH") and (s["table"][0]["lo"], s["table"][0]["hi"]) == (7, 11)
    assert s["table"][0]["owner"] == 1
    step(eng, discard(eng, "2C"))
    # the opponent's turn: he extends his own run with Q♥ and K♥, but the ace cannot go above the king
    step(eng, DRAW_STOCK)
    assert layoffs_on(eng, 0) == {lay_off(eng, 0, "QH")}
    step(eng, lay_off(eng, 0, "QH"))
    step(eng, lay_off(eng, 0, "KH"))
    s = snap(eng)
    assert table_cards(s, 0) == ids("7H 8H 9H 10H JH QH KH") and (s["table"][0]["lo"], s["table"][0]["hi"]) == (7, 13)
    assert_illegal(eng, lay_off(eng, 0, "AH"), reason="B9")
    assert s["hands"][1] == ids("AH 5S 6C")


# ==================================================================================================== E11
def test_E11_lay_off_must_be_adjacent():
    """B9: onto 3♣4♣5♣, 7♣ alone is illegal; 6♣ then 7♣ is legal. (A lay-off action carries one card, so
    "both in one action" is the two lay-offs in the same turn.)"""
    eng = engine(2)
    load(eng, ["6C 7C AC QS", "2H 3H"], table=[(1, "3C 4C 5C")], discard="9S", phase="play", current=0,
         has_played=[True, True])
    assert layoffs_on(eng, 0) == {lay_off(eng, 0, "6C")}
    assert_illegal(eng, lay_off(eng, 0, "7C"), reason="does not extend")
    assert_illegal(eng, lay_off(eng, 0, "AC"), reason="does not extend")      # a gap at the low end too
    step(eng, lay_off(eng, 0, "6C"))
    assert layoffs_on(eng, 0) == {lay_off(eng, 0, "7C")}
    step(eng, lay_off(eng, 0, "7C"))
    s = snap(eng)
    assert table_cards(s, 0) == ids("3C 4C 5C 6C 7C") and (s["table"][0]["lo"], s["table"][0]["hi"]) == (3, 7)
    assert s["hands"][0] == ids("AC QS") and s["phase"] == "play"


# ==================================================================================================== E12
def test_E12_fourth_card_of_a_set_and_nothing_more():
    """B8, B9: 8♠8♥8♦ + 8♣ = a 4-card set; afterwards no card at all can join it."""
    eng = engine(2)
    # seat 0 holds every card not on the table and not the discard top: an exhaustive check
    load(eng, ["", "2H"], table=[(1, "8S 8H 8D")], discard="KD", phase="play", current=0, leftover_to=0,
         has_played=[True, True])
    assert len(snap(eng)["hands"][0]) == 47 and snap(eng)["stock"] == []
    assert layoffs_on(eng, 0) == {lay_off(eng, 0, "8C")}
    step(eng, lay_off(eng, 0, "8C"))
    s = snap(eng)
    assert table_cards(s, 0) == ids("8S 8H 8D 8C") and s["table"][0]["kind"] == "set"
    assert layoffs_on(eng, 0) == set()
    assert_illegal(eng, lay_off(eng, 0, "7S"), reason="does not extend")
    assert_illegal(eng, lay_off(eng, 0, "9H"), reason="does not extend")


# ==================================================================================================== E13
def test_E13_default_aces_are_low_only():
    """B3, B8: Q♥K♥A♥ is not a meld; A♥2♥3♥ is; A♥ cannot be laid off above J♥Q♥K♥."""
    eng = engine(2)
    with pytest.raises(ValueError):
        meld(eng, "QH KH AH")                               # no such catalogue meld
    load(eng, ["QH KH AH 5C", "2D 3D"], discard="9S", phase="play", current=0)
    assert melds_in(legal(eng), eng) == set()               # nothing in {Q♥,K♥,A♥,5♣} can be melded
    assert legal(eng) == discards_of(eng, "QH KH AH 5C")

    load(eng, ["AH 2H 3H 5C", "2D 3D"], discard="9S", phase="play", current=0)
    assert melds_in(legal(eng), eng) == {meld(eng, "AH 2H 3H")}
    step(eng, meld(eng, "AH 2H 3H"))
    s = snap(eng)
    assert table_cards(s, 0) == ids("AH 2H 3H") and (s["table"][0]["lo"], s["table"][0]["hi"]) == (1, 3)

    load(eng, ["AH 5C", "2D 3D"], table=[(1, "JH QH KH")], discard="9S", phase="play", current=0)
    assert_illegal(eng, lay_off(eng, 0, "AH"), reason="does not extend")
    assert legal(eng) == discards_of(eng, "AH 5C")


# ==================================================================================================== E14
def test_E14_ace_high_or_low():
    """B15, AB5: with ace_high_or_low, Q♥K♥A♥ ✓; K♥A♥2♥ ✗; A♥ onto J♥Q♥K♥ ✓ then 2♥ onto it ✗;
    round_the_corner without ace_high_or_low is a configuration error."""
    eng = engine(2, ace_high_or_low=True)
    load(eng, ["QH KH AH 5C", "2D 3D"], discard="9S", phase="play", current=0)
    assert melds_in(legal(eng), eng) == {meld(eng, "QH KH AH")}
    step(eng, meld(eng, "QH KH AH"))
    s = snap(eng)
    assert table_cards(s, 0) == ids("QH KH AH") and (s["table"][0]["lo"], s["table"][0]["hi"]) == (12, 14)

    # K-A-2 is not a meld: not in the catalogue, not formable from a hand, not buildable by lay-offs
    with pytest.raises(ValueError):
        meld(eng, "KH AH 2H")
    load(eng, ["KH AH 2H 5C", "2D 3D"], discard="9S", phase="play", current=0)
    assert melds_in(legal(eng), eng) == set()
    load(eng, ["KH 5C", "2D 3D"], table=[(1, "AH 2H 3H")], discard="9S", phase="play", current=0)
    assert_illegal(eng, lay_off(eng, 0, "KH"), reason="does not extend")

    # the ace stays usable low
    load(eng, ["AH 2H 3H 5C", "2D 3D"], discard="9S", phase="play", current=0)
    assert melds_in(legal(eng), eng) == {meld(eng, "AH 2H 3H")}

    # A♥ onto J♥Q♥K♥ ✓, then 2♥ onto J♥…A♥ ✗
    load(eng, ["AH 2H 5C", "2D 3D"], table=[(1, "JH QH KH")], discard="9S", phase="play", current=0)
    assert layoffs_on(eng, 0) == {lay_off(eng, 0, "AH")}
    step(eng, lay_off(eng, 0, "AH"))
    s = snap(eng)
    assert table_cards(s, 0) == ids("JH QH KH AH") and (s["table"][0]["lo"], s["table"][0]["hi"]) == (11, 14)
    assert_illegal(eng, lay_off(eng, 0, "2H"), reason="does not extend")
    assert legal(eng) == discards_of(eng, "2H 5C")

    with pytest.raises(ValueError, match="round_the_corner"):
        RummyRules.preset("basic", num_players=2, round_the_corner=True)
    with pytest.raises(ValueError, match="round_the_corner"):
        RummyRules.preset("basic", num_players=2, round_the_corner=True, ace_high_or_low=False)


def test_E14_round_the_corner_knob():
    """B15 knob round_the_corner (with ace_high_or_low): K-A-2 becomes a run; runs wrap, at most 13 long."""
    eng = engine(2, ace_high_or_low=True, round_the_corner=True)
    load(eng, ["KH AH 2H 5C", "2D 3D"], discard="9S", phase="play", current=0)
    assert melds_in(legal(eng), eng) == {meld(eng, "KH AH 2H")}
    load(eng, ["AH 2H 5C", "2D 3D"], table=[(1, "JH QH KH")], discard="9S", phase="play", current=0)
    step(eng, lay_off(eng, 0, "AH"))
    assert layoffs_on(eng, 0) == {lay_off(eng, 0, "2H")}
    # a full 13-card suit run accepts nothing more
    load(eng, ["AD 5C", "2D 3D"], table=[(1, "AH 2H 3H 4H 5H 6H 7H 8H 9H 10H JH QH KH")], discard="9S",
         phase="play", current=0)
    assert layoffs_on(eng, 0) == set()


# ==================================================================================================== E15
@pytest.mark.parametrize("ace_high, expected", [(True, 35), (False, 7)])
def test_E15_ace_high_scoring(ace_high, expected):
    """B12, B15, AB10: a loser holding A♣ A♦ 5♠ pays 15+15+5 = 35 with ace_high_or_low, 7 by default."""
    eng = engine(2, ace_high_or_low=ace_high)
    eng.reset(seed=0)
    _, ended = win_hand(eng, 0, {1: "AC AD 5S"})
    s = snap(eng)
    assert ended and s["winner"] == 0 and s["hand_scores"] == [expected, 0] and s["totals"] == [expected, 0]


# ==================================================================================================== E16
def test_E16_stock_rebuild_keeps_top():
    """B11: stock empty at turn start, 12 discards with J♠ on top: the other 11 are shuffled into the stock,
    J♠ stays as the discard pile, one reshuffle; the player may take J♠ or draw."""
    pile11 = "2C 3D 4H 5S 6C 7D 8H 9S 10C JD QH"
    orders = set()
    for rng in (1, 2, 3, 4, 5, 6):
        eng = engine(2)
        load(eng, ["JS AC", "KS"], discard=pile11, phase="play", current=0, leftover_to=1, rng=rng * 0x1234567 + 1)
        assert snap(eng)["stock"] == []
        _, ended = step(eng, discard(eng, "JS"))
        s = snap(eng)
        assert not ended and s["phase"] == "draw" and s["current"] == 1
        assert s["discard"] == [cid("JS")]
        assert sorted(s["stock"]) == ids(pile11) and len(s["stock"]) == 11
        assert s["reshuffles"] == 1
        assert legal(eng) == {DRAW_STOCK, DRAW_DISCARD}
        orders.add(tuple(s["stock"]))
    assert len(orders) > 1, "the rebuilt stock is not shuffled"
    # both draws work
    top = s["stock"][-1]
    step(eng, DRAW_STOCK)
    assert top in snap(eng)["hands"][1] and len(snap(eng)["stock"]) == 10
    load(eng, ["JS AC", "KS"], discard=pile11, phase="play", current=0, leftover_to=1)
    step(eng, discard(eng, "JS"))
    step(eng, DRAW_DISCARD)
    assert snap(eng)["taken"] == cid("JS") and snap(eng)["discard"] == []


# ==================================================================================================== E17
def test_E17_stock_empty_single_discard_no_rebuild():
    """B11: (hand_size_by_players = {3: 17}: no stock after the deal) stock empty and one discard: no rebuild;
    the only legal draw is that card; after his discard the next player faces the same."""
    eng = engine(3, hand_size_by_players={3: 17})
    deck = list(range(52))
    eng.reset(decks=[deck], dealers=[0])
    s = snap(eng)
    assert [len(h) for h in s["hands"]] == [17, 17, 17]
    assert s["stock"] == [] and s["discard"] == [51] and s["reshuffles"] == 0
    assert s["current"] == 1 and s["phase"] == "draw"
    assert legal(eng) == {DRAW_DISCARD}
    assert_illegal(eng, DRAW_STOCK, reason="stock is empty")
    step(eng, DRAW_DISCARD)
    assert snap(eng)["hands"][1] == sorted(deck[0:51:3] + [51])
    card = snap(eng)["hands"][1][0]
    step(eng, eng.layout.discard(card))
    s = snap(eng)
    assert s["current"] == 2 and s["phase"] == "draw" and s["stock"] == [] and s["discard"] == [card]
    assert s["reshuffles"] == 0
    assert legal(eng) == {DRAW_DISCARD}


# ==================================================================================================== E18
def test_E18_rebuild_without_keeping_top():
    """B11, reshuffle_keep_top = false: the whole pile of 9 becomes the stock; no discard top to take."""
    pile8 = "2C 3D 4H 5S 6C 7D 8H 9S"
    orders = set()
    for rng in (1, 2, 3, 4, 5, 6):
        eng = engine(2, reshuffle_keep_top=False)
        load(eng, ["JS AC", "KS"], discard=pile8, phase="play", current=0, leftover_to=1, rng=rng * 0x7654321 + 1)
        step(eng, discard(eng, "JS"))
        s = snap(eng)
        assert s["phase"] == "draw" and s["current"] == 1
        assert s["discard"] == [] and sorted(s["stock"]) == ids(pile8 + " JS") and s["reshuffles"] == 1
        assert legal(eng) == {DRAW_STOCK}
        orders.add(tuple(s["stock"]))
    assert_illegal(eng, DRAW_DISCARD, reason="discard pile is empty")
    assert len(orders) > 1, "the rebuilt stock is not shuffled"


# ==================================================================================================== E19
def test_E19_max_reshuffles_dead_hand():
    """B17: max_reshuffles = 2; the stock runs out a third time: dead hand, nobody scores."""
    eng = engine(2, max_reshuffles=2)
    eng.reset(seed=11)
    rebuilds = []
    for turn in range(93):
        before = snap(eng)["reshuffles"]
        _, ended = draw_and_discard_drawn(eng)
        assert ended == (turn == 92)          # after the 93rd discard the next turn start would need a 3rd rebuild
        s = snap(eng)
        if s["reshuffles"] != before:
            rebuilds.append(turn + 1)
            assert len(s["stock"]) == 31 and len(s["discard"]) == 1
    assert rebuilds == [31, 62]                 # 31 stock cards each time; the third exhaustion is after turn 93
    s = snap(eng)
    assert s["phase"] == "hand_over" and s["end_reason"] == "dead_reshuffles"
    assert s["reshuffles"] == 2 and s["stock"] == [] and s["turn"] == 93
    assert s["winner"] is None and s["hand_scores"] == [0, 0] and s["totals"] == [0, 0] and s["hands_played"] == 1
    assert legal(eng) == set()


# ==================================================================================================== E20
def test_E20_turn_cap_dead_hand_counts_as_played():
    """B14, B17: max_turns_per_round reached -> dead hand; it counts toward num_hands and max_hands in every mode."""
    # target mode: the hand ends dead after 4 turns, counts as played; the game goes on
    eng = engine(2, max_turns_per_round=4)
    eng.reset(seed=5, dealers=[0])
    for k in range(4):
        _, ended = draw_and_discard_drawn(eng)
        assert ended == (k == 3)
    s = snap(eng)
    assert s["phase"] == "hand_over" and s["end_reason"] == "dead_turn_cap" and s["turn"] == 4
    assert s["hands_played"] == 1 and s["hand_scores"] == [0, 0] and s["totals"] == [0, 0] and s["winner"] is None
    assert s["game_winners"] == [] and legal(eng) == set()
    eng.next_hand()
    s = snap(eng)
    assert s["phase"] == "draw" and s["dealer"] == 1 and s["turn"] == 0 and s["hands_played"] == 1

    # "target" mode with max_hands = 2: the second dead hand ends the game; highest total wins
    eng = engine(3, max_turns_per_round=3, max_hands=2)
    eng.reset(seed=6, dealers=[0])
    for _ in range(3):
        draw_and_discard_drawn(eng)
    assert snap(eng)["phase"] == "hand_over" and snap(eng)["hands_played"] == 1
    eng.next_hand()
    s = snap(eng)
    eng.load(0, {**s, "totals": [30, 70, 10]})
    for _ in range(3):
        draw_and_discard_drawn(eng)
    s = snap(eng)
    assert s["phase"] == "game_over" and s["end_reason"] == "dead_turn_cap" and s["hands_played"] == 2
    assert s["game_winners"] == [1] and s["totals"] == [30, 70, 10]

    # "hands" mode: dead hands count toward num_hands
    eng = engine(2, max_turns_per_round=2, game_end_mode="hands", num_hands=2)
    eng.reset(seed=7)
    for _ in range(2):
        draw_and_discard_drawn(eng)
    assert snap(eng)["phase"] == "hand_over" and snap(eng)["hands_played"] == 1
    eng.next_hand()
    for _ in range(2):
        draw_and_discard_drawn(eng)
    s = snap(eng)
    assert s["phase"] == "game_over" and s["hands_played"] == 2 and s["game_winners"] == [0, 1]

    # "hands" mode with max_hands below num_hands: max_hands ends the game anyway
    eng = engine(2, max_turns_per_round=1, game_end_mode="hands", num_hands=10, max_hands=1)
    eng.reset(seed=8)
    draw_and_discard_drawn(eng)
    assert snap(eng)["phase"] == "game_over" and snap(eng)["hands_played"] == 1

    # the cap counts every player's turns, loaded mid-hand: the 1000th turn ends the hand
    eng = engine(3)
    load(eng, ["2C 3C", "4D 5D", "6H 7H"], discard="9S", phase="play", current=1, turn=999)
    _, ended = step(eng, discard(eng, "4D"))
    s = snap(eng)
    assert ended and s["end_reason"] == "dead_turn_cap" and s["turn"] == 1000 and s["phase"] == "hand_over"
    load(eng, ["2C 3C", "4D 5D", "6H 7H"], discard="9S", phase="play", current=1, turn=998)
    _, ended = step(eng, discard(eng, "4D"))
    assert not ended and snap(eng)["phase"] == "draw" and snap(eng)["current"] == 2


def test_E20_dead_hand_lowest_hand_wins():
    """B17 dead_round_scoring = "lowest_hand_wins": the single lowest hand gets the others' values; a tie: nobody."""
    eng = engine(3, max_turns_per_round=1, dead_round_scoring="lowest_hand_wins")
    load(eng, ["2C 3C", "4D 5D 10H", "6H 7H"], discard="9S", phase="play", current=1, totals=[0, 0, 5])
    step(eng, discard(eng, "10H"))
    s = snap(eng)
    assert s["end_reason"] == "dead_turn_cap" and s["winner"] is None
    assert s["hand_scores"] == [22, 0, 0] and s["totals"] == [22, 0, 5]
    load(eng, ["2C 3C", "4D AD 10H", "6H 7H"], discard="9S", phase="play", current=1)
    step(eng, discard(eng, "10H"))
    s = snap(eng)
    assert s["hand_scores"] == [0, 0, 0] and s["totals"] == [0, 0, 0]   # 5 = 5: tie for lowest


# ==================================================================================================== E21
@pytest.mark.parametrize("multiplier", [2, 3])
def test_E21_going_rummy(multiplier):
    """B13, AB8: 3 players; seat 0 has only discarded so far this hand; he draws, melds a 4-card run and a
    3-card set and discards his 8th card; losers hold 12 and 20: (12+20)x2 = 64."""
    eng = engine(3, going_rummy_multiplier=multiplier)
    load(eng, ["4H 5H 6H 9C 9D 9S KC", "AC AD AH AS 2C 2D 4C", "2H 2S 3C 3D 3H 3S 4D"], discard="10C",
         stock_next="JD QD KD 7H", current=0, dealer=2)
    # an earlier turn of seat 0 that only discards does not count as playing (AB8); the others pass too
    for seat in (0, 1, 2):
        assert snap(eng)["current"] == seat
        draw_and_discard_drawn(eng)
    assert snap(eng)["has_played"] == [False, False, False]
    step(eng, DRAW_STOCK)
    assert snap(eng)["hands"][0] == ids("4H 5H 6H 7H 9C 9D 9S KC")
    step(eng, meld(eng, "4H 5H 6H"))
    step(eng, lay_off(eng, 0, "7H"))
    step(eng, meld(eng, "9C 9D 9S"))
    rewards, ended = step(eng, discard(eng, "KC"))
    s = snap(eng)
    assert ended and s["phase"] == "hand_over" and s["winner"] == 0 and s["end_reason"] == "out"
    assert s["rummy"] is True
    assert s["hand_scores"] == [32 * multiplier, 0, 0] and s["totals"] == [32 * multiplier, 0, 0]
    assert table_cards(s, 0) == ids("4H 5H 6H 7H") and table_cards(s, 1) == ids("9C 9D 9S")
    assert s["discard"][-1] == cid("KC")


# ==================================================================================================== E22
def test_E22_not_rummy_after_earlier_lay_off():
    """B13, AB8: same, but seat 0 laid off a card on his previous turn: 7 cards after the draw, he melds the
    4-card run and the set and goes out without a discard: not rummy, 32."""
    eng = engine(3)
    load(eng, ["4H 5H 6H 9C 9D 9S 8C", "AC AD AH AS 2C 2D 4C", "2H 2S 3C 3D 3H 3S 4D"], table=[(1, "5C 6C 7C")],
         discard="10C", stock_next="JD QD KD 7H", current=0, dealer=2)
    step(eng, DRAW_STOCK)
    step(eng, lay_off(eng, 0, "8C"))
    step(eng, discard(eng, "JD"))
    assert snap(eng)["has_played"] == [True, False, False]
    draw_and_discard_drawn(eng)
    draw_and_discard_drawn(eng)
    step(eng, DRAW_STOCK)
    assert snap(eng)["hands"][0] == ids("4H 5H 6H 7H 9C 9D 9S")
    step(eng, meld(eng, "4H 5H 6H"))
    step(eng, lay_off(eng, 1, "7H"))
    rewards, ended = step(eng, meld(eng, "9C 9D 9S"))
    s = snap(eng)
    assert ended and s["phase"] == "hand_over" and s["winner"] == 0 and s["end_reason"] == "out"
    assert s["rummy"] is False and s["hand_scores"] == [32, 0, 0] and s["totals"] == [32, 0, 0]
    assert s["discard"][-1] == cid("KD")                  # no discard in the going-out turn


# ==================================================================================================== E23
def test_E23_rummy_with_lay_offs_on_opponents_melds():
    """B13: going rummy may lay off onto opponents' melds; still x2."""
    eng = engine(2)
    load(eng, ["7S QS 2H 3H 4H", "5D 8C"], table=[(1, "4S 5S 6S"), (1, "QC QD QH")], discard="9C",
         stock_next="KC", current=0)
    step(eng, DRAW_STOCK)
    step(eng, lay_off(eng, 0, "7S"))
    step(eng, lay_off(eng, 1, "QS"))
    step(eng, meld(eng, "2H 3H 4H"))
    _, ended = step(eng, discard(eng, "KC"))
    s = snap(eng)
    assert ended and s["winner"] == 0 and s["rummy"] is True
    assert s["hand_scores"] == [26, 0] and s["totals"] == [26, 0]
    assert [m["owner"] for m in s["table"]] == [1, 1, 0]
    assert s["table_by_seat"][0] == ids("7S QS 2H 3H 4H")


# ==================================================================================================== E24
def test_E24_hand_values():
    """B12: A♠ 10♦ J♣ Q♥ K♠ 7♣ in a loser's hand = 48, credited to the winner; the loser's table cards
    don't count and the losers score nothing."""
    eng = engine(3)
    load(eng, ["4D 5D 6D", "AS 10D JC QH KS 7C", "2C"], table=[(1, "KC KD KH")], discard="9S", phase="play",
         current=0, has_played=[True, True, True], totals=[10, 20, 30])
    _, ended = step(eng, meld(eng, "4D 5D 6D"))
    s = snap(eng)
    assert ended and s["hand_scores"] == [50, 0, 0] and s["totals"] == [60, 20, 30]


# ==================================================================================================== E25
@pytest.mark.parametrize("episode", ["hand", "game"])
def test_E25_target_reached_exactly(episode):
    """B14, AB11: 140 + 10 = 150 reaches the target: game over, that player wins; 149 does not."""
    eng = engine(2, episode=episode)
    load(eng, ["4S 5S 6S", "10D"], discard="9S", phase="play", current=0, has_played=[True, True],
         totals=[140, 120], hands_played=4, dealer=1)
    _, ended = step(eng, meld(eng, "4S 5S 6S"))
    s = snap(eng)
    assert ended and s["phase"] == "game_over" and s["game_winners"] == [0]
    assert s["totals"] == [150, 120] and s["hands_played"] == 5 and legal(eng) == set()
    assert bool(eng.done[0])

    load(eng, ["4S 5S 6S", "9D"], discard="9S", phase="play", current=0, has_played=[True, True],
         totals=[140, 120], hands_played=4, dealer=1)
    _, ended = step(eng, meld(eng, "4S 5S 6S"))
    s = snap(eng)
    assert ended and s["totals"] == [149, 120] and s["game_winners"] == [] and s["hands_played"] == 5
    if episode == "hand":
        assert s["phase"] == "hand_over"
    else:                                     # the next hand is dealt at once, the deal passing on
        assert s["phase"] == "draw" and s["dealer"] == 0 and s["current"] == 1 and s["table"] == []
        assert [len(h) for h in s["hands"]] == [10, 10] and len(s["stock"]) == 31


# ==================================================================================================== E26
def test_E26_hands_mode_joint_winners():
    """B14: "hands" mode, two players tied for the highest total after the last hand: joint winners."""
    eng = engine(3, game_end_mode="hands", num_hands=3)
    load(eng, ["4S 5S 6S", "8D", "2C"], discard="9S", phase="play", current=0, has_played=[True] * 3,
         totals=[50, 60, 20], hands_played=2)
    _, ended = step(eng, meld(eng, "4S 5S 6S"))
    s = snap(eng)
    assert ended and s["phase"] == "game_over" and s["totals"] == [60, 60, 20]
    assert s["game_winners"] == [0, 1] and s["hands_played"] == 3
    # one hand before the last: not over yet
    load(eng, ["4S 5S 6S", "8D", "2C"], discard="9S", phase="play", current=0, has_played=[True] * 3,
         totals=[50, 60, 20], hands_played=1)
    step(eng, meld(eng, "4S 5S 6S"))
    assert snap(eng)["phase"] == "hand_over" and snap(eng)["game_winners"] == []


# ==================================================================================================== E27
def test_E27_dealer_rotation_four_players():
    """B5: n = 4, first dealer 2: dealers 2, 3, 0 (whether the hands are won or dead); the dealer's left starts."""
    eng = engine(4, max_turns_per_round=1)
    eng.reset(seed=1, dealers=[2])
    s = snap(eng)
    assert s["dealer"] == 2 and s["current"] == 3
    win_hand(eng, 3)                                      # hand 1 won by seat 3
    assert snap(eng)["winner"] == 3 and snap(eng)["dealer"] == 2
    eng.next_hand()
    s = snap(eng)
    assert s["dealer"] == 3 and s["current"] == 0 and s["phase"] == "draw" and s["hands_played"] == 1
    draw_and_discard_drawn(eng)                           # hand 2: dead at the turn cap
    assert snap(eng)["end_reason"] == "dead_turn_cap"
    eng.next_hand()
    s = snap(eng)
    assert s["dealer"] == 0 and s["current"] == 1 and s["hands_played"] == 2

    # the same with episode = "game": the next hand is dealt inside step
    eng = engine(4, max_turns_per_round=1, episode="game")
    eng.reset(seed=2, dealers=[2])
    dealers = [snap(eng)["dealer"]]
    for _ in range(2):
        _, ended = draw_and_discard_drawn(eng)
        assert ended
        dealers.append(snap(eng)["dealer"])
        assert snap(eng)["phase"] == "draw" and snap(eng)["current"] == (dealers[-1] + 1) % 4
    assert dealers == [2, 3, 0]


def test_E27_two_player_winner_deals():
    """B5, B17: n = 2 with two_player_winner_deals: the previous winner deals; after a dead hand the deal
    passes to the other player, whatever dead_round_scoring credits. Without the knob: plain rotation."""
    eng = engine(2, two_player_winner_deals=True, max_turns_per_round=1)
    eng.reset(seed=3, dealers=[0])
    win_hand(eng, 0)                                      # the dealer wins: he deals again
    eng.next_hand()
    assert snap(eng)["dealer"] == 0 and snap(eng)["current"] == 1
    draw_and_discard_drawn(eng)                           # dead hand: the deal passes
    assert snap(eng)["end_reason"] == "dead_turn_cap"
    eng.next_hand()
    assert snap(eng)["dealer"] == 1
    win_hand(eng, 1)
    eng.next_hand()
    assert snap(eng)["dealer"] == 1
    win_hand(eng, 0)
    eng.next_hand()
    assert snap(eng)["dealer"] == 0

    # a dead hand credited to the dealer by "lowest_hand_wins" still passes the deal
    eng = engine(2, two_player_winner_deals=True, max_turns_per_round=1, dead_round_scoring="lowest_hand_wins")
    load(eng, ["2C", "KD QD JD"], discard="9S", phase="play", current=1, dealer=0)
    step(eng, discard(eng, "JD"))
    s = snap(eng)
    assert s["end_reason"] == "dead_turn_cap" and s["hand_scores"] == [20, 0] and s["winner"] is None
    eng.next_hand()
    assert snap(eng)["dealer"] == 1

    # without the knob the winner does not keep the deal
    eng = engine(2)
    eng.reset(seed=4, dealers=[0])
    win_hand(eng, 0)
    eng.next_hand()
    assert snap(eng)["dealer"] == 1


# ==================================================================================================== E80
@pytest.mark.parametrize("last_hand", ["dead", "scored"])
def test_E80_max_hands_joint_winners(last_hand):
    """B14, B17: max_hands = 100 (default), "target" mode: after the 100th hand (dead or not) with nobody at
    150, the game is over; equal highest totals [140, 95+, 140] are joint winners."""
    eng = engine(3)
    assert eng.rules.max_hands == 100
    if last_hand == "dead":
        load(eng, ["2C 3C", "4D 5D", "6H 7H"], discard="9S", phase="play", current=1, turn=999,
             totals=[140, 95, 140], hands_played=99)
        _, ended = step(eng, discard(eng, "4D"))
        expected_totals = [140, 95, 140]
    else:
        load(eng, ["2C", "4S 5S 6S", "3C"], discard="9S", phase="play", current=1, has_played=[True] * 3,
             totals=[140, 95, 140], hands_played=99)
        _, ended = step(eng, meld(eng, "4S 5S 6S"))
        expected_totals = [140, 100, 140]
    s = snap(eng)
    assert ended and s["phase"] == "game_over" and s["hands_played"] == 100
    assert s["totals"] == expected_totals and s["game_winners"] == [0, 2]
    # the 99th hand does not end the game
    load(eng, ["2C 3C", "4D 5D", "6H 7H"], discard="9S", phase="play", current=1, turn=999,
         totals=[140, 95, 140], hands_played=98)
    step(eng, discard(eng, "4D"))
    assert snap(eng)["phase"] == "hand_over" and snap(eng)["hands_played"] == 99 and snap(eng)["game_winners"] == []


# ==================================================================================================== illegal actions
def test_illegal_action_error_names_the_reason():
    """IllegalActionError (a ValueError) says why, citing the rule; the position is unchanged."""
    assert issubclass(IllegalActionError, ValueError)
    eng = engine(2)
    load(eng, ["5H 5S 9D", "2D 3D"], table=[(1, "3C 4C 5C")], discard="8C 7D", current=0)
    assert_illegal(eng, discard(eng, "9D"), reason="B6")               # must draw first
    step(eng, DRAW_DISCARD)
    assert_illegal(eng, discard(eng, "7D"), reason=r"7♦ was taken from the discard pile this turn \(B7\)")
    assert_illegal(eng, DRAW_STOCK, reason="already drawn")
    assert_illegal(eng, lay_off(eng, 0, "9D"), reason="B9")
    assert_illegal(eng, discard(eng, "KS"), reason="not in the hand")
    assert_illegal(eng, lay_off(eng, 3, "9D"), reason="holds no meld")
    with pytest.raises(IllegalActionError, match=r"^player_0 cannot discard 7♦"):  # one game: no row named
        eng.step([discard(eng, "7D")])


def test_illegal_action_penalty_ends_the_game():
    """illegal_action = "penalty": the offender gets the penalty, the others share its negation; game over."""
    eng = engine(3, illegal_action="penalty")
    load(eng, ["5H 5S 9D", "2D 3D", "4H"], discard="8C 7D", current=0)
    step(eng, DRAW_DISCARD)
    result = eng.step([discard(eng, "7D")])                             # no exception
    rewards, ended = result.rewards[0].copy(), bool(result.hand_ended[0])
    assert ended and rewards.tolist() == [-1.0, 0.5, 0.5]
    s = snap(eng)
    assert s["phase"] == "game_over" and s["end_reason"] == "illegal_action" and s["illegal_by"] == 0
    assert s["game_winners"] == [] and s["hand_scores"] == [0, 0, 0] and bool(eng.done[0])
    assert s["hands"][0] == ids("5H 5S 9D 7D") and s["discard"] == [cid("8C")]   # the illegal action did nothing
    # stepping a finished row: zero rewards, nothing changes
    result = eng.step([DRAW_STOCK])
    assert result.rewards[0].tolist() == [0.0, 0.0, 0.0] and not result.hand_ended[0]
    assert snap(eng) == s

    eng = engine(2, illegal_action="penalty", illegal_action_penalty=-2.5)
    load(eng, ["5H 5S 9D", "2D 3D"], discard="8C 7D", current=1)
    result = eng.step([discard(eng, "2D")])                             # discarding before drawing
    assert result.rewards[0].tolist() == [2.5, -2.5] and snap(eng)["illegal_by"] == 1


# ==================================================================================================== rewards
@pytest.mark.parametrize("players", [2, 3, 4])
def test_rewards_score_zero_sum(players):
    """reward = "score": (P*s_i - sum s) / ((P-1) * reward_scale) when a hand is scored; 0 on other steps."""
    eng = engine(players, reward_scale=50.0)
    losers = {1: "10D 5C", 2: "KC", 3: "AD"}
    hands = ["2S 3S 9H"] + [losers[seat] for seat in range(1, players)]
    load(eng, hands, discard="9S", stock_next="4S", current=0, has_played=[True] * players)
    rewards, ended = step(eng, DRAW_STOCK)
    assert not ended and rewards.tolist() == [0.0] * players
    rewards, ended = step(eng, meld(eng, "2S 3S 4S"))
    assert not ended and rewards.tolist() == [0.0] * players
    rewards, ended = step(eng, discard(eng, "9H"))
    s = snap(eng)
    score = s["hand_scores"][0]
    assert score == [15, 25, 26][players - 2]
    expected = [((players - 1) * score) / ((players - 1) * 50.0)] + [-score / ((players - 1) * 50.0)] * (players - 1)
    assert rewards == pytest.approx(expected)
    assert float(rewards.sum()) == pytest.approx(0.0, abs=1e-6)

    # a dead hand scores nothing: zero rewards
    eng = engine(players, max_turns_per_round=1)
    eng.reset(seed=1)
    rewards, ended = draw_and_discard_drawn(eng)
    assert ended and rewards.tolist() == [0.0] * players


def test_rewards_win_mode():
    """reward = "win": +1 to the winner, the others share -1; with episode = "game" only at the game's end."""
    eng = engine(3, reward="win")
    eng.reset(seed=0)
    rewards, ended = win_hand(eng, 1)
    assert ended and rewards.tolist() == [-0.5, 1.0, -0.5]

    eng = engine(2, reward="win", episode="game", target_score=20)
    eng.reset(seed=0, dealers=[0])
    rewards, ended = win_hand(eng, 1, {0: "5C 6D"})                  # 11 points: not yet the game's end
    assert ended and rewards.tolist() == [0.0, 0.0] and snap(eng)["phase"] == "draw"
    rewards, ended = win_hand(eng, 1, {0: "5C 6D"})                  # 22: game over
    assert ended and rewards.tolist() == [-1.0, 1.0] and snap(eng)["phase"] == "game_over"
    assert snap(eng)["game_winners"] == [1]

    # joint winners: zero-sum, the winners share equally
    eng = engine(3, reward="win", episode="game", game_end_mode="hands", num_hands=1)
    load(eng, ["4S 5S 6S", "8D", "2C"], discard="9S", phase="play", current=0, has_played=[True] * 3,
         totals=[0, 10, 0])
    rewards, ended = step(eng, meld(eng, "4S 5S 6S"))
    assert snap(eng)["game_winners"] == [0, 1]
    assert ended and rewards[0] == pytest.approx(rewards[1]) and rewards[0] > 0 > rewards[2]
    assert float(rewards.sum()) == pytest.approx(0.0, abs=1e-6)


# ==================================================================================================== configuration
def test_rules_validation_errors():
    """RummyRules rejects what §3.1 does not allow, naming the knob."""
    with pytest.raises(ValueError, match="unknown rules knob"):
        RummyRules.preset("basic", num_players=2, jokers=True)
    with pytest.raises(ValueError, match=r"num_players=7 .*2\.\.6 \(B1\)"):
        RummyRules.preset("basic", num_players=7)
    with pytest.raises(ValueError, match=r"num_players=1 .*\(B1\)"):
        RummyRules.preset("basic", num_players=1)
    with pytest.raises(ValueError, match="hand_size_by_players"):
        RummyRules.preset("basic", num_players=2, hand_size_by_players={2: 26})      # 2*26 + 1 > 52
    with pytest.raises(ValueError, match="hand_size_by_players"):
        RummyRules.preset("basic", num_players=6, hand_size_by_players={6: 9})       # 6*9 + 1 > 52
    RummyRules.preset("basic", num_players=3, hand_size_by_players={3: 17})          # 3*17 + 1 = 52: allowed
    with pytest.raises(ValueError, match="round_the_corner"):
        RummyRules.preset("basic", num_players=2, round_the_corner=True)
    with pytest.raises(ValueError, match="game_end_mode"):
        RummyRules.preset("basic", num_players=2, game_end_mode="sudden_death")
    with pytest.raises(ValueError, match="num_hands"):
        RummyRules.preset("basic", num_players=2, game_end_mode="hands")
    with pytest.raises(ValueError, match="first_dealer"):
        RummyRules.preset("basic", num_players=2, first_dealer=2)
    with pytest.raises(ValueError, match="ruleset"):
        RummyRules.preset("canasta", num_players=2)


# ==================================================================================================== knobs, batches
def test_must_meld_before_layoff_knob():
    """B9 knob must_meld_before_layoff: no lay-off before a meld of one's own (this turn or earlier)."""
    eng = engine(2, must_meld_before_layoff=True)
    load(eng, ["9D 2C 3C 4C KH", "5S 6S"], table=[(1, "6D 7D 8D")], discard="QS", phase="play", current=0)
    assert_illegal(eng, lay_off(eng, 0, "9D"), reason="must_meld_before_layoff")
    step(eng, meld(eng, "2C 3C 4C"))
    assert lay_off(eng, 0, "9D") in legal(eng)
    step(eng, lay_off(eng, 0, "9D"))
    assert table_cards(snap(eng), 0) == ids("6D 7D 8D 9D")
    # default: allowed without a meld of one's own (AB4)
    eng = engine(2)
    load(eng, ["9D 2C 3C 4C KH", "5S 6S"], table=[(1, "6D 7D 8D")], discard="QS", phase="play", current=0)
    assert lay_off(eng, 0, "9D") in legal(eng)


def test_batch_illegal_action_checks_every_row_first():
    """"raise": one illegal row raises before any row changes; "penalty": only the offending row ends."""
    for policy in ("raise", "penalty"):
        eng = RummyEngine(RummyRules.preset("basic", num_players=2, illegal_action=policy), batch_size=2)
        for row in (0, 1):
            eng.load(row, position(2, ["5H 5S 9D", "2D 3D"], discard="8C 7D", current=0))
        before = [eng.snapshot(0), eng.snapshot(1)]
        actions = [DRAW_STOCK, discard(eng, "9D")]               # row 1 discards before drawing
        if policy == "raise":
            with pytest.raises(IllegalActionError, match="row 1"):
                eng.step(actions)
            assert [eng.snapshot(0), eng.snapshot(1)] == before
        else:
            result = eng.step(actions)
            assert result.rewards.tolist() == [[0.0, 0.0], [-1.0, 1.0]]
            assert result.hand_ended.tolist() == [False, True]
            assert eng.snapshot(0)["phase"] == "play" and eng.snapshot(1)["phase"] == "game_over"
            assert eng.done.tolist() == [False, True]
