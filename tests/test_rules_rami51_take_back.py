"""Scripted scenarios of R25 (docs/rules.md#R25): ``dead_ends = "take_back"``, the default, masks every action by
its local legality alone, and TAKE_BACK puts a turn that cannot be finished back, with a penalty.

Each test is named by its case: R25.1 a failed opening taken back, R25.2 a discard-pile card returned, R25.3 a
TAKE's pending card stranded, R25.4 a SWAP's freed joker, R25.5 a commit then a take-back, R25.6 penalty cards
with an empty stock (R17), R25.7 when TAKE_BACK is offered, R25.8 the dealer's first turn, R25.9 what the others
see, R25.10 the look-ahead's E-cases under the local mask. Positions and conventions as
``tests/test_rules_rami51.py`` (``tests/scenario_rami.py``): every step is checked against the mask and
``is_legal``, every refusal through the mask, ``is_legal``, the raised error and an unchanged position.
"""

from __future__ import annotations

import numpy as np
import pytest

from rummy_env import RummyEngine, RummyRules, cards
from rummy_env.actions import TAKE_BACK
from rummy_env.observations import HISTORY_KINDS

from scenario_rami import (
    COMMIT, DRAW_DISCARD, DRAW_STOCK, JK, UNDO, assert_illegal, cid, discard, ids, lay_off, legal, legal_kinds, load,
    meld, rami, snap, step, swap, take,
)

OTHER = "2H 3H 4H"  # seat 1's hand when it does not matter


def tb(num_players: int = 2, **knobs) -> RummyEngine:
    return rami(num_players, dead_ends="take_back", **knobs)


def discards(eng) -> set[int]:
    return {card for card, announce in legal_kinds(eng, "discard") if announce}


def only_discards_after_take_back(eng, hand: list[int]) -> None:
    """After a take-back: a discard of any card of the hand, nothing else (R25)."""
    assert legal(eng) == {eng.layout.discard(c) for c in set(hand)}
    assert_illegal(eng, TAKE_BACK, "took the turn back")
    assert_illegal(eng, UNDO)


def history(eng, kind: str, seat: int = 0) -> list[int]:
    return snap(eng)["history"][kind][seat]


# ==================================================================================================== R25.1
@pytest.mark.parametrize("undos", [1, 0])
def test_R25_1_failed_opening_taken_back(undos):
    """J♥Q♥K♥ + 5♣6♣7♣ = 48 < 51: no COMMIT, no discard; TAKE_BACK (beside UNDO while one is left) puts both melds
    back into the hand, the player draws the two penalty cards and must discard."""
    eng = tb(max_undos_per_turn=undos)
    hand = "JH QH KH 5C 6C 7C 2D 9S"
    load(eng, [hand, OTHER], stock_next="4D 8C")
    step(eng, meld(eng, "JH QH KH"))
    step(eng, meld(eng, "5C 6C 7C"))
    assert_illegal(eng, COMMIT, "below 51")
    assert_illegal(eng, discard(eng, "2D"))
    assert legal(eng) == ({UNDO, TAKE_BACK} if undos else {TAKE_BACK})
    step(eng, TAKE_BACK)
    s = snap(eng)
    assert s["hands"][0] == ids(hand + " 4D 8C")
    assert s["table"] == [] and s["opened"] == [False, False] and s["turn_state"]["took_back"] == 1
    assert s["turn_state"]["tentative"] == 0 and s["turn_state"]["turn_points"] == 0 and s["take_backs"] == [1, 0]
    only_discards_after_take_back(eng, s["hands"][0])
    step(eng, discard(eng, "8C"))
    s = snap(eng)
    assert s["current"] == 1 and s["phase"] == "draw" and s["discard"][-1] == cid("8C") and len(s["hands"][0]) == 9
    assert s["take_backs"] == [1, 0] and not s["has_played"][0]


# ==================================================================================================== R25.2
def test_R25_2_discard_pile_card_returned():
    """Not opened, 9♥ on the pile cannot be laid within any opening (E33's position): under take_back it may still
    be taken; TAKE_BACK puts it back on top of the pile, the player draws one card in its place and two more."""
    eng = tb()
    hand = "7H 8H 8C 8D 8S 2C 5D JS 4S KD"
    load(eng, [hand, OTHER], discard="6C 9H", phase="draw", stock_next="QC 3D 10S")
    assert legal(eng) == {DRAW_STOCK, DRAW_DISCARD}
    step(eng, DRAW_DISCARD)
    s = snap(eng)
    assert s["taken"] == cid("9H") and s["known"][0] == [cid("9H")]
    assert_illegal(eng, discard(eng, "2C"), "must be laid first")
    step(eng, meld(eng, "7H 8H 9H"))
    step(eng, meld(eng, "8C 8D 8S"))
    assert_illegal(eng, COMMIT, "below 51")
    step(eng, TAKE_BACK)
    s = snap(eng)
    assert s["discard"] == ids("6C") + [cid("9H")] and s["taken"] is None and s["table"] == []
    assert s["hands"][0] == ids(hand + " QC 3D 10S")
    assert s["known"][0] == ids("7H 8H 8C 8D 8S")  # seen laid and taken back; 9H went back face up
    assert history(eng, "returned") == [cid("9H")] and history(eng, "took") == [cid("9H")]
    assert sorted(history(eng, "took_back")) == ids("7H 8H 9H 8C 8D 8S")  # seen going back into the hand
    only_discards_after_take_back(eng, s["hands"][0])
    step(eng, discard(eng, "QC"))
    assert snap(eng)["discard"][-2:] == [cid("9H"), cid("QC")]


def test_R25_2_return_without_any_play():
    """Taking the pile card and laying nothing: TAKE_BACK is offered at once (a card must still be laid)."""
    eng = tb()
    load(eng, ["2D 9S 4C 7H", OTHER], table=[(1, "5H 6H 7H"), (0, "QC QD QS")], discard="6C KC", phase="draw",
         opened=[True, True], stock_next="8D 2S 3S")
    step(eng, DRAW_DISCARD)  # E34: masked under "prevent"; KC fits nowhere
    assert legal(eng) == {TAKE_BACK}
    step(eng, TAKE_BACK)
    s = snap(eng)
    assert s["discard"] == ids("6C") + [cid("KC")] and s["hands"][0] == ids("2D 9S 4C 7H 8D 2S 3S")
    assert s["opened"] == [True, True]


# ==================================================================================================== R25.3
def test_R25_3_take_pending_card_stranded():
    """Opened; TAKE 9♣ from an opponent's 6♣-9♣ run: no meld can hold it (no own 9s, no 10♣/J♣), so no discard is
    legal; TAKE_BACK puts 9♣ back at the run's end and the player draws the penalty."""
    eng = tb()
    hand = "2D 5S KH 4H"
    load(eng, [hand, OTHER], table=[(1, "6C 7C 8C 9C")], opened=[True, True], stock_next="10D JD")
    step(eng, take(eng, 0, "9C"))
    s = snap(eng)
    assert s["turn_state"]["pending"] == [cid("9C")] and s["table"][0]["cards"] == ids("6C 7C 8C")
    assert legal(eng) == {TAKE_BACK}  # no discard while 9♣ is owed, no meld or lay-off for it, no 4-card meld left
    step(eng, TAKE_BACK)
    s = snap(eng)
    assert s["table"][0]["cards"] == ids("6C 7C 8C 9C") and s["table"][0]["owner"] == 1
    assert s["hands"][0] == ids(hand + " 10D JD") and s["turn_state"]["pending"] == []
    assert s["known"][0] == []  # 9♣ left the hand again, face up
    assert history(eng, "took_back") == [cid("9C")] and history(eng, "laid") == [cid("9C")]


# ==================================================================================================== R25.4
def test_R25_4_swap_freed_joker():
    """Opened; SWAP 6♠ for the joker of 8♠-7♠-Jk(6♠): the freed joker must go into a new meld with two own cards,
    and there is none; TAKE_BACK puts the joker back at 6♠ and 6♠ back into the hand."""
    eng = tb()
    hand = "6S 2D 9H KC"
    load(eng, [hand, OTHER], table=[(1, "JK 7S 8S", 6)], opened=[True, True], stock_next="5C 5D")
    step(eng, swap(eng, 0))
    s = snap(eng)
    assert s["turn_state"]["freed_jokers"] == 1 and JK in s["hands"][0] and discards(eng) == set()
    assert TAKE_BACK in legal(eng)
    step(eng, TAKE_BACK)
    s = snap(eng)
    assert s["table"][0]["cards"] == ids("JK 7S 8S") and s["table"][0]["joker_at"] == 6
    assert s["hands"][0] == ids(hand + " 5C 5D") and s["turn_state"]["freed_jokers"] == 0
    assert s["known"][0] == [cid("6S")]  # seen going onto the table and coming back


# ==================================================================================================== R25.5
def test_R25_5_commit_then_take_back():
    """J♥Q♥K♥ + 6♣7♣8♣ = 51: COMMIT opens; then 9♦, taken from the pile, fits nowhere. TAKE_BACK undoes the commit
    too: the player has not opened, his melds are back in his hand, 9♦ is back on the pile."""
    eng = tb()
    hand = "JH QH KH 6C 7C 8C 2D 9S"
    load(eng, [hand, OTHER], discard="4S 9D", phase="draw", stock_next="AC 3C 5C")
    step(eng, DRAW_DISCARD)
    step(eng, meld(eng, "JH QH KH"))
    step(eng, meld(eng, "6C 7C 8C"))
    assert_illegal(eng, COMMIT, "must contain")  # the opening must hold the taken card (R6)
    load(eng, [hand, OTHER], discard="4S", stock_next="AC 3C 5C")
    step(eng, meld(eng, "JH QH KH"))
    step(eng, meld(eng, "6C 7C 8C"))
    step(eng, COMMIT)
    assert snap(eng)["opened"] == [True, False]
    assert TAKE_BACK in legal(eng) and discards(eng) == set(ids("2D 9S"))
    step(eng, TAKE_BACK)
    s = snap(eng)
    assert s["opened"] == [False, False] and s["table"] == [] and s["hands"][0] == ids(hand + " AC 3C")
    assert s["turn_state"]["turn_points"] == 0 and s["discard"] == ids("4S")
    only_discards_after_take_back(eng, s["hands"][0])


# ==================================================================================================== R25.6
@pytest.mark.parametrize("keep_top", [False, True])
def test_R25_6_penalty_with_an_empty_stock_rebuilds(keep_top):
    """One card left in the stock: the replacement card of a returned pile card comes from it, then the stock is
    rebuilt from the discard pile (R17: the whole pile, or all but its top with ``reshuffle_keep_top``), counted in
    ``reshuffles``, and the penalty cards come from the new stock."""
    eng = tb(reshuffle_keep_top=keep_top)
    pile = "2C 3D 4S 5H 6C 7D"
    load(eng, ["2D 9S 4C 7H", OTHER], table=[(1, "5H 6H 7H")], discard=pile + " KC", phase="draw",
         opened=[True, True], stock_next="8D", leftover_to=1)
    before = snap(eng)
    assert before["stock"] == [cid("8D")]
    step(eng, DRAW_DISCARD)
    step(eng, TAKE_BACK)
    s = snap(eng)
    assert s["reshuffles"] == 1 and len(s["hands"][0]) == 4 + 3
    kept = [cid("KC")] if keep_top else []
    assert s["discard"] == kept
    rebuilt = sorted(ids(pile + " KC") if not keep_top else ids(pile))
    drawn = [c for c in s["hands"][0] if c not in ids("2D 9S 4C 7H")] 
    assert sorted(s["stock"] + drawn) == sorted(rebuilt + [cid("8D")])
    assert cid("8D") in s["hands"][0]
    total = sum(len(h) for h in s["hands"]) + len(s["stock"]) + len(s["discard"]) + sum(len(m["cards"]) for m in s["table"])
    assert total == 108


def test_R25_6_penalty_beyond_max_reshuffles_dooms_the_round():
    """With ``max_reshuffles = 0`` the rebuild a penalty card needs is not allowed: the cards left are not drawn,
    and the round ends dead at the next turn start (R17)."""
    eng = tb(max_reshuffles=0)
    load(eng, ["2D 9S 4C 7H", OTHER], table=[(1, "5H 6H 7H")], discard="2C 3D KC", phase="draw",
         opened=[True, True], stock_next="8D", leftover_to=1)
    step(eng, DRAW_DISCARD)
    step(eng, TAKE_BACK)
    s = snap(eng)
    assert s["hands"][0] == ids("2D 9S 4C 7H 8D") and s["turn_state"]["doomed"] == 1 and s["reshuffles"] == 0
    _, ended = step(eng, discard(eng, "8D"))
    assert ended and snap(eng)["end_reason"] == "dead_reshuffles"


# ==================================================================================================== R25.7
@pytest.mark.prevent  # compares with a "prevent" engine
def test_R25_7_when_take_back_is_offered():
    """Not before anything is laid, taken or owed; not in the draw phase; never under ``dead_ends = "prevent"``;
    once a turn."""
    eng = tb()
    load(eng, ["JH QH KH 6C 7C 8C 2D 9S", OTHER], phase="draw")
    assert_illegal(eng, TAKE_BACK, "a turn starts with a draw")
    step(eng, DRAW_STOCK)
    assert_illegal(eng, TAKE_BACK, "nothing to take back")
    step(eng, meld(eng, "JH QH KH"))
    assert TAKE_BACK in legal(eng)
    step(eng, UNDO)  # everything of the turn is back: nothing to take back
    assert_illegal(eng, TAKE_BACK, "nothing to take back")
    prevent = rami(2, dead_ends="prevent")
    load(prevent, ["JH QH KH 6C 7C 8C 2D 9S", OTHER])
    step(prevent, meld(prevent, "JH QH KH"))
    assert_illegal(prevent, TAKE_BACK, "no take-back")


def test_R25_7_opened_player_may_take_back_any_play():
    """An opened player who laid a meld may take it back (with the penalty) although a discard is legal."""
    eng = tb()
    load(eng, ["5D 6D 7D 2S 9C", OTHER], opened=[True, False], stock_next="KH KS")
    step(eng, meld(eng, "5D 6D 7D"))
    assert discards(eng) == set(ids("2S 9C")) and TAKE_BACK in legal(eng)
    step(eng, TAKE_BACK)
    s = snap(eng)
    assert s["table"] == [] and s["hands"][0] == ids("5D 6D 7D 2S 9C KH KS") and s["opened"] == [True, False]
    assert sorted(s["known"][0]) == ids("5D 6D 7D")


# ==================================================================================================== R25.8
def test_R25_8_dealer_first_turn_draws_the_penalty_only():
    """The dealer's first turn had no draw: a take-back draws the penalty cards and nothing in place of a draw."""
    eng = tb()
    hand = "9H 10H JH 4S 5S 2C 5D 8S 4C 6D QS 3H 7C KD"
    load(eng, [hand, "AC 2D 3S 6H 7S 9C 10D JC QD KH 4D 5H 8C"], dealer=0, first_turn=True, stock_next="2S 3D 4D")
    step(eng, meld(eng, "9H 10H JH"))
    step(eng, TAKE_BACK)
    assert snap(eng)["hands"][0] == ids(hand + " 2S 3D")


# ==================================================================================================== R25.9
def test_R25_9_a_take_back_is_public():
    """Both seats see the count of take-backs in their observation (``take_backs``, seats relative to the
    observer) and the card returned in the public history; the cards drawn stay hidden."""
    eng = tb()
    load(eng, ["2D 9S 4C 7H", OTHER], table=[(1, "5H 6H 7H")], discard="6C KC", phase="draw", opened=[True, True],
         stock_next="8D 2S 3S")
    step(eng, DRAW_DISCARD)
    step(eng, TAKE_BACK)
    layout = eng.observation_layout
    for seat, relative in ((0, 0), (1, 1)):
        seen = layout.split(eng.observe(np.array([seat]))[0])
        assert seen["take_backs"].tolist() == [1 if r == relative else 0 for r in range(2)]
    public = eng.public_history(np.array([1]))[0]  # seat 0 is relative seat 1 for seat 1
    kinds = {kind: k for k, kind in enumerate(HISTORY_KINDS)}
    assert np.flatnonzero(public[1, kinds["returned"]]).tolist() == [cid("KC")]
    assert public[1, kinds["took_back"]].sum() == 0 and public[1, kinds["laid"]].sum() == 0
    assert snap(eng)["known"][0] == []


@pytest.mark.prevent  # compares with a "prevent" engine
def test_R25_9_explained():
    """Why TAKE_BACK, or any play after it, is refused, in words naming R25."""
    eng = tb()
    load(eng, ["JH QH KH 6C 7C 8C 2D 9S", OTHER])
    assert "R25" in eng.explain_illegal(0, TAKE_BACK)
    step(eng, meld(eng, "JH QH KH"))
    step(eng, TAKE_BACK)
    assert "R25" in eng.explain_illegal(0, meld(eng, "JH QH KH"))
    prevent = rami(2, dead_ends="prevent")
    load(prevent, ["JH QH KH 6C 7C 8C 2D 9S", OTHER])
    assert "prevent" in prevent.explain_illegal(0, TAKE_BACK)


# ==================================================================================================== R25.10
def test_R25_10_look_ahead_cases_under_the_local_mask():
    """E33, E34 and E81 under take_back: the discard top that no opening can lay may be taken (E33); so may the one
    an opened player cannot lay (E34); a tentative meld that cannot lead to an opening is offered once the undo is
    spent (E81), and TAKE_BACK is the way out."""
    eng = tb()
    load(eng, ["7H 8H 8C 8D 8S 2C 5D JS 4S KD", OTHER], discard="6C 9H", phase="draw")
    assert legal(eng) == {DRAW_STOCK, DRAW_DISCARD}
    load(eng, ["2D 9S 4C 7H", OTHER], table=[(1, "5H 6H 7H"), (0, "QC QD QS")], discard="6C KC", phase="draw",
         opened=[True, True])
    assert legal(eng) == {DRAW_STOCK, DRAW_DISCARD}
    load(eng, ["KS KH KD QS QH QD 2C 7D", OTHER])
    step(eng, meld(eng, "KS KH KD"))
    step(eng, UNDO)
    assert meld(eng, "QS QH QD") in legal(eng)
    step(eng, meld(eng, "QS QH QD"))
    assert legal(eng) == {TAKE_BACK, meld(eng, "KS KH KD")}  # no pure run: no COMMIT, no discard, no undo left
    assert_illegal(eng, UNDO, "used up")


@pytest.mark.parametrize("final", ["optional", "forbidden"])
def test_R25_10_a_play_that_empties_the_hand_must_be_a_legal_out(final):
    """R15, R16: with ``final_discard`` optional or forbidden, laying the last cards goes out; under take_back the
    mask still refuses a laying that empties the hand without a legal out (here: below the opening's 51)."""
    eng = tb(final_discard=final)
    load(eng, ["5D 6D 7D", OTHER])
    assert_illegal(eng, meld(eng, "5D 6D 7D"), "below 51")
    load(eng, ["5D 6D 7D", OTHER], opened=[True, False])
    assert meld(eng, "5D 6D 7D") in legal(eng)


def test_R25_default_is_take_back():
    rules = RummyRules.preset("rami51", num_players=3)
    assert rules.dead_ends == "take_back" and rules.take_back_penalty_cards == 2
    assert RummyRules.preset("lebanese14", num_players=2).dead_ends == "take_back"
    with pytest.raises(ValueError, match="dead_ends"):
        RummyRules.preset("rami51", num_players=2, dead_ends="forbid")
    with pytest.raises(ValueError, match="take_back_penalty_cards"):
        RummyRules.preset("rami51", num_players=2, take_back_penalty_cards=-1)
    with pytest.raises(ValueError, match="dead_ends"):
        RummyRules.preset("basic", num_players=2, dead_ends="prevent")
    assert cards.JOKER == JK
