"""Scripted regressions of the rami51 turn's public bookkeeping: the opening count (R10, R11.1, R11.5, R13,
R16) and the cards a seat is publicly known to hold (R6, the observation's ``known`` block).

Each test failed before its fix:

* R11.1 / R13: an own card laid this turn and taken back with TAKE still counted toward the opening, so a
  COMMIT of 44 real points was accepted as 54, and an all-at-once out of 49 points was accepted (and scored
  x2).
* ``known``: a seat that laid the copy it was known to hold, while holding the other copy face down, stayed
  "known to hold" that card: the observation revealed a hidden card.
"""

from __future__ import annotations

import numpy as np

from rummy_env.actions import COMMIT, DRAW_DISCARD, UNDO
from rummy_env.observations import ObservationLayout

from scenario_rami import assert_illegal, assert_legal, cid, discard, lay_off, load, meld, points, rami, snap, step, take


def test_R11_R13_own_card_taken_back_does_not_count_toward_the_commit():
    """p0 (not opened) lays off K♥ on p1's K♣ K♦ 🃏, takes it back, melds 9♥10♥J♥ and 5♣5♦5♠: 44 points, not
    54. COMMIT stays masked until the pending K♥ is melded with two own kings (20 more points)."""
    eng = rami(2)
    load(eng, ["9H 10H JH 5C 5D 5S KH KS KD 2C 7C", "2D 3D 4D 6H 8S 9C 10S QC QD QH AC 4S 8H"],
         table=[(1, "KC KD JK")], opened=[False, True])
    step(eng, lay_off(eng, 0, "KH"))
    assert points(eng) == 10
    step(eng, take(eng, 0, "KH"))
    assert points(eng) == 0, "a card taken back is no longer laid"
    step(eng, meld(eng, "9H 10H JH"))
    step(eng, meld(eng, "5C 5D 5S"))
    assert points(eng) == 44
    assert_illegal(eng, COMMIT)
    step(eng, meld(eng, "KH KS KD"))   # the pending K♥ with two own kings: 44 + 20
    assert points(eng) == 64
    step(eng, COMMIT)
    assert snap(eng)["opened"][0]
    step(eng, discard(eng, "7C"))


def test_R16_all_at_once_out_counts_only_cards_left_on_the_table():
    """p0 lays off A♥ high on p1's J♥Q♥K♥ (11), takes it back, melds 9♠10♠J♠ (29), 5♣5♦5♠ (15) and the
    pending A♥ with own 2♥ 3♥ (5): 49 real points, below 51, so discarding the last card (an all-at-once out)
    is illegal; an UNDO remains."""
    eng = rami(2)
    load(eng, ["9S 10S JS 5C 5D 5S AH 2H 3H 7C", "2D 3D 4D 6H 8S 9C 10S QC QD QS AC 4S 8H"],
         table=[(1, "JH QH KH")], opened=[False, True])
    step(eng, lay_off(eng, 0, "AH"))
    assert points(eng) == 11
    step(eng, take(eng, 0, "AH"))
    step(eng, meld(eng, "9S 10S JS"))
    step(eng, meld(eng, "5C 5D 5S"))
    step(eng, meld(eng, "AH 2H 3H"))
    assert points(eng) == 49
    assert snap(eng)["hands"][0] == [cid("7C")]
    assert_illegal(eng, discard(eng, "7C"))
    assert_legal(eng, UNDO)


def test_known_cards_reveal_no_hidden_copy():
    """Seat 1 (opened) takes the discard top 7♣, melds 5♣6♣7♣ and discards K♦. In world A it also held a
    hidden 7♣; in world B a 5♥ instead (that 7♣ in the stock). Seat 0 must see the same ``known`` block for
    seat 1 in both worlds: nothing is known of seat 1's hand any more."""
    observations = []
    for hidden in ("7C", "5H"):
        eng = rami(2)
        load(eng, ["2C 3C 4S 9D 9H JD QS KC KH AS 8D", f"5C 6C {hidden} KD 2H"], discard="7C", phase="draw",
             current=1, opened=[False, True])
        step(eng, DRAW_DISCARD)
        step(eng, meld(eng, "5C 6C 7C"))
        step(eng, discard(eng, "KD"))
        observations.append(eng.observe(np.array([0], dtype=np.int8))[0].copy())
    known = ObservationLayout(eng.rules).split(observations[0])["known"]
    assert known.sum() == 0, "seat 1 laid the 7♣ it was known to hold: nothing is known of its hand"
    assert np.array_equal(observations[0], observations[1]), "seat 0's observation depends on seat 1's hidden cards"
