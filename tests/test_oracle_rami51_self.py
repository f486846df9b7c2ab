"""Self-tests of the independent rami51 legality oracle (tests/oracle_rami51.py) on hand-made positions taken from
docs/rules.md (E28-E86) and R25. They use only the oracle (no engine).

The E-cases are the look-ahead mode's: ``R()`` builds rules with ``dead_ends = "prevent"`` unless told otherwise.
The R25 tests at the end (``TB()``) check the ``"take_back"`` mode: exact legal sets under the local mask, the
TAKE_BACK action's availability and effect (hand, table, discard pile, stock, rebuilds)."""

import pytest

try:
    from tests import oracle_rami51 as O
except ImportError:  # pragma: no cover
    import oracle_rami51 as O

C = O.parse_card


def R(**kw):
    kw.setdefault("dead_ends", "prevent")
    return O.default_rules(**kw)


def TB(**kw):
    return O.default_rules(dead_ends="take_back", **kw)


def turn(hand, table=(), rules=None, draw=None, discard=(), opened=False, **kw):
    """A turn of seat 0. If ``draw`` is given (a card name) the turn starts with DRAW_STOCK of that card;
    otherwise the position is returned at its draw phase."""
    rules = rules or R()
    ops = [opened, True] if isinstance(opened, bool) else opened
    stock = None if draw is None else ["2C", draw] if draw != "2C" else ["3C", draw]
    pos = O.make_position(hand, table, rules=rules, discard=discard, opened=ops, stock=stock, **kw)
    t = O.RamiTurn(pos, rules)
    if draw is not None:
        t.apply(O.DRAW_STOCK)
    return t


def meld(t, cards):
    m = t.lay.meld_index(cards)
    assert m is not None, cards
    return t.lay.meld_id(m)


def lay(t, slot, card):
    c = {"JKL": 52, "JKH": 53}.get(card)
    return t.lay.lay_id(slot, C(card) if c is None else c)


def take(t, slot, k):
    return t.lay.take_id(slot, k)


def swap(t, slot):
    return t.lay.swap_id(slot)


def disc(t, card, announce=True):
    return t.lay.disc_id(C(card), announce)


def legal(t):
    return t.legal_actions()


def names(t):
    return t.legal_action_names()


# ---------------------------------------------------------------------------------------------------- layout
def test_layout_sizes():
    lay = O.layout(R())
    assert lay.M == 52 + 78 + 4 * 12 * 4
    assert (O.DRAW_STOCK, O.DRAW_DISCARD, O.COMMIT, O.UNDO, O.TAKE_BACK) == (0, 1, 2, 3, 4)
    assert lay.MELD == 5 and lay.meld_id(0) == 5
    assert lay.LAY == 5 + lay.M and lay.TAKE == lay.LAY + 36 * 54
    assert lay.SWAP == lay.TAKE + 36 * 5 and lay.DISC == lay.SWAP + 36 and lay.A == lay.DISC + 53
    assert O.layout(R(circular_runs=True)).M == 52 + 78 + 4 * 13 * 4
    assert O.layout(R(card_announcement="manual")).A == lay.A + 53
    # catalogue order: (suit H, start 5, offset 2) = 5H 6H Jk(7H)
    cat = lay.catalogue
    i = 52 + 78 + (2 * 12 + 4) * 4 + 3
    assert cat[i][0] == (C("5H"), C("6H"), 52) and cat[i][1][4] == 7


# ---------------------------------------------------------------------------------------------------- E29 E31 E36
def test_E29_dealer_first_turn():
    hand = "9H 10H JH KC KD KS 2C 4D 6S 8C QD 3S 5C 7D"
    pos = O.make_position(hand, phase="play", first_turn=True, turn=0)
    t = O.RamiTurn(pos, R())
    acts = legal(t)
    assert O.DRAW_STOCK not in acts and O.DRAW_DISCARD not in acts
    assert meld(t, "9H 10H JH") in acts and disc(t, "2C") in acts
    t2 = O.RamiTurn(pos, R(dealer_first_turn_may_meld=False))
    assert all(a >= t2.lay.DISC for a in legal(t2)) and len(legal(t2)) == 14
    t.apply(disc(t, "2C"))
    assert t.ends_turn and not t.goes_out and t.discard_after() == [C("2C")] and len(t.hand_after()) == 13


def test_E31_pickup_from_second_round():
    hand = "7H 8H KC KD KS 2C 4D 6S 10C QD JS 3S 5C"
    t = turn(hand, discard=["9H"], turn=0)
    assert legal(t) == {O.DRAW_STOCK, O.DRAW_DISCARD}
    t = turn(hand, rules=R(discard_pickup_from_second_round=True), discard=["9H"], turn=1)
    assert legal(t) == {O.DRAW_STOCK}
    t = turn(hand, rules=R(discard_pickup_from_second_round=True), discard=["9H"], turn=2)
    assert legal(t) == {O.DRAW_STOCK, O.DRAW_DISCARD}


def test_E36_one_card_no_pickup():
    t = turn("8H", [(1, "9H 10H JH")], discard=["7H"], opened=True)
    assert legal(t) == {O.DRAW_STOCK}


# ---------------------------------------------------------------------------------------------------- E32 E33 E34
def test_E32_take_with_opening():
    t = turn("7H 8H KC KD KS 2C 4D 6S 10C QD JS 3S 5C", discard=["9H"])
    assert O.DRAW_DISCARD in legal(t)
    t.apply(O.DRAW_DISCARD)
    assert t.taken == C("9H")
    assert disc(t, "2C") not in legal(t)                     # the taken card must be laid first
    t.apply(meld(t, "7H 8H 9H"))
    assert O.COMMIT not in legal(t)                          # 24 < 51
    t.apply(meld(t, "KC KD KS"))
    assert t.turn_points == 54 and t.pure_run
    assert disc(t, "2C") not in legal(t)                     # tentative plays remain
    assert O.COMMIT in legal(t)
    t.apply(O.COMMIT)
    assert t.opened and disc(t, "2C") in legal(t) and disc(t, "9H") not in legal(t)
    t.apply(disc(t, "2C"))
    assert t.ends_turn and len(t.hand_after()) == 7


def test_E33_masked_take():
    t = turn("7H 8H 8C 8D 8S 2C 4D 6S 10C QD JS 3S KH", discard=["9H"])
    assert legal(t) == {O.DRAW_STOCK}


def test_E34_opened_unusable_top():
    t = turn("2C 4D 6S 10C", [(1, "5H 6H 7H")], discard=["KS"], opened=True)
    assert legal(t) == {O.DRAW_STOCK}
    t = turn("2C 4D 6S 10C", [(1, "5H 6H 7H")], discard=["8H"], opened=True)
    assert legal(t) == {O.DRAW_STOCK, O.DRAW_DISCARD}


# ---------------------------------------------------------------------------------------------------- opening values
def _open(hand, melds, rules=None, table=(), lays=()):
    t = turn(hand, table, rules=rules, draw="2D")
    for m in melds:
        t.apply(meld(t, m))
    for slot, card in lays:
        t.apply(lay(t, slot, card))
    return t


def test_E38_E39_thresholds():
    t = _open("JH QH KH 6C 7C 8C 4S 9D", ["JH QH KH", "6C 7C 8C"])
    assert t.turn_points == 51 and O.COMMIT in legal(t)
    t = _open("JH QH KH 5C 6C 7C 4S 9D", ["JH QH KH", "5C 6C 7C"])
    assert t.turn_points == 48 and O.COMMIT not in legal(t)


def test_E40_no_pure_run():
    t = _open("KS KH KD QS QH QD AC AD AH 9S", ["KS KH KD", "QS QH QD", "AC AD AH"])
    assert t.turn_points == 93 and not t.pure_run and O.COMMIT not in legal(t)


def test_E41_joker_run_plus_pure_run():
    t = _open("9D 10D JD JK 2C 3C 4C 5C 8S", ["9D 10D JD", "2C 3C 4C"], lays=[(0, "JKH")])
    assert t.turn_points == 48 and O.COMMIT not in legal(t)
    t.apply(lay(t, 1, "5C"))
    assert t.turn_points == 53 and O.COMMIT in legal(t)


def test_E42_joker_run_is_not_pure():
    t = _open("5S 6S 7S JK KD KC KH 9D", ["5S 6S 7S", "KD KC KH"])
    assert t.pure_run and O.COMMIT not in legal(t)              # 48 points
    t.apply(lay(t, 0, "JKH"))                                   # 5S 6S 7S Jk(8S): 56 points, no pure run left
    assert t.turn_points == 56 and not t.pure_run and O.COMMIT not in legal(t)


def test_E42_only_run_has_joker():
    t = turn("5S 6S 7S JK KD KC KH 9D", draw="2D")
    t.apply(meld(t, ["5S", "6S", "JK"]))          # 5S 6S Jk(7S)
    t.apply(meld(t, "KD KC KH"))
    assert not t.pure_run and O.COMMIT not in legal(t)


def test_E45_layoffs_count():
    table = [(1, "9D 10D JD"), (1, "3C 4C 5C")]
    t = _open("9H 10H JH QD KD 2C 8S", ["9H 10H JH"], table=table, lays=[(0, "QD"), (0, "KD"), (1, "2C")])
    assert t.turn_points == 51 and O.COMMIT in legal(t)
    t = _open("9H 10H JH QD KD 2C 8S", ["9H 10H JH"], table=table, lays=[(0, "QD"), (0, "KD")])
    assert t.turn_points == 49 and O.COMMIT not in legal(t)


def test_E46_taken_cards_not_pure_not_counted():
    t = turn("8D 9D QS QH QC AS 2S 3S 5H", [(1, "7D 7C 7S 7H")], draw="KH")
    t.apply(take(t, 0, 1))                        # 7D (suit D = 1)
    assert t.pending == [C("7D")]
    t.apply(meld(t, "7D 8D 9D"))
    assert t.turn_points == 17 and not t.pure_run


# ---------------------------------------------------------------------------------------------------- meld shapes
def test_E47_E48_meld_shapes():
    layout = O.layout(R())
    assert layout.meld_index(["7H", "7H", "7C"]) is None
    assert layout.meld_index(["5S", "JK", "7S"]) is not None
    # a second joker cannot join a joker set (at most one joker per meld)
    t = turn("7C JK 4D 9S", [(0, "7H 7S JK")], opened=True, draw="KD")
    assert lay(t, 0, "JKL") not in legal(t)
    assert lay(t, 0, "7C") in legal(t)


def test_E52_jokers_onto_melds():
    table = [(1, "4H 5H 6H"), (0, "4C 5C 6C"), (0, "JK 8D 9D"), (1, "9C 9S 9D")]
    t = turn("JK KS QD", table, opened=True, draw="2D")
    acts = legal(t)
    assert lay(t, 0, "JKL") not in acts and lay(t, 0, "JKH") not in acts
    assert lay(t, 1, "JKL") in acts and lay(t, 1, "JKH") in acts
    assert lay(t, 2, "JKH") not in acts
    assert lay(t, 3, "JKL") in acts and lay(t, 3, "JKH") not in acts
    t.apply(lay(t, 3, "JKL"))
    assert t.table_after()[3]["joker_at"] == 2 and t.table_after()[3]["cards"] == sorted(O.parse_cards("9C 9S 9D JK"))
    t2 = turn("JK KS QD", table, rules=R(joker_on_opponent_set=False), opened=True, draw="2D")
    assert lay(t2, 3, "JKL") not in legal(t2)


# ---------------------------------------------------------------------------------------------------- swaps
def test_E35_take_discard_to_swap():
    table = [(1, "JK 7S 8S")]
    t = turn("QH QC 4D 9C", table, discard=["6S"], opened=True)
    assert O.DRAW_DISCARD in legal(t)
    t.apply(O.DRAW_DISCARD)
    assert legal(t) == {swap(t, 0)}
    t.apply(swap(t, 0))
    assert t.taken_laid and t.freed == 1 and t.table_after()[0]["joker_at"] is None
    assert meld(t, ["QH", "QC", "JK"]) in legal(t) and disc(t, "4D") not in legal(t)
    t.apply(meld(t, ["QH", "QC", "JK"]))
    assert disc(t, "4D") in legal(t) and disc(t, "6S") not in legal(t)


def test_E53_E57_freed_joker_needs_new_meld():
    table = [(1, "JK 7S 8S")]
    t = turn("6S QH QC 4D", table, opened=True, draw="9C")
    assert swap(t, 0) in legal(t)
    t = turn("6S QH KC 4D", table, opened=True, draw="9C")
    assert swap(t, 0) not in legal(t)                                   # E57
    t = turn("6S QH KC 4D", table, rules=R(freed_joker_use="new_meld_or_layoff"), opened=True, draw="9C",
             )
    assert swap(t, 0) not in legal(t)                                   # no own run, no 3-set to take it


def test_E54_swap_needs_represented_card():
    t = turn("9S 2D 4C", [(1, "JK 7S 8S")], opened=True, draw="KD")
    acts = legal(t)
    assert swap(t, 0) not in acts and lay(t, 0, "9S") in acts
    t.apply(lay(t, 0, "9S"))
    d = t.table_after()[0]
    assert (d["lo"], d["hi"], d["joker_at"]) == (6, 9, 6)


def test_E55_set_joker_swap_after_layoff():
    t = turn("9D 9H QH QC 2D", [(1, "9C 9S JK")], opened=True, draw="5S")
    assert swap(t, 0) not in legal(t)
    t.apply(lay(t, 0, "9D"))
    assert t.table_after()[0]["joker_at"] == 2               # hearts
    assert swap(t, 0) in legal(t)
    t.apply(swap(t, 0))
    assert t.freed == 1 and meld(t, ["QH", "QC", "JK"]) in legal(t)


def test_E56_swap_and_opening():
    hand = "9H 10H JH KC KD KS 6S QH QC 2D"
    table = [(1, "JK 7S 8S")]
    t = turn(hand, table, draw="4C")
    t.apply(meld(t, "9H 10H JH"))
    t.apply(meld(t, "KC KD KS"))
    assert swap(t, 0) not in legal(t)                        # not opened yet
    t.apply(O.COMMIT)
    assert swap(t, 0) in legal(t)
    t = turn(hand, table, rules=R(joker_swap_requires_prior_opening=True), draw="4C")
    t.apply(meld(t, "9H 10H JH"))
    t.apply(meld(t, "KC KD KS"))
    t.apply(O.COMMIT)
    assert swap(t, 0) not in legal(t)


def test_E58_swap_would_empty_hand():
    table = [(1, "JK 7S 8S")]
    t = turn("6S QH", table, opened=True, draw="QC")
    assert swap(t, 0) not in legal(t)
    t = turn("6S QH QC", table, opened=True, draw="4D")
    assert swap(t, 0) in legal(t)
    t.apply(swap(t, 0))
    t.apply(meld(t, ["QH", "QC", "JK"]))
    t.apply(disc(t, "4D"))
    assert t.goes_out and t.hand_after() == []


# ---------------------------------------------------------------------------------------------------- takes
def test_E59_takes():
    table = [(1, "5H 6H 7H 8H"), (1, "2C 3C 4C"), (1, "5S 6S 7S JK")]
    t = turn("8C 8D 3D", table, opened=True, draw="KS")
    acts = legal(t)
    assert take(t, 0, 1) in acts                              # 8H
    assert take(t, 0, 0) not in acts                          # 5H: no new meld possible with it
    assert not any(take(t, 1, k) in acts for k in range(5))   # 3-card meld
    assert take(t, 2, 1) not in acts                          # the joker
    t.apply(take(t, 0, 1))
    assert disc(t, "3D") not in legal(t)                      # pending card held
    assert legal(t) == {meld(t, "8C 8D 8H")}
    t.apply(meld(t, "8C 8D 8H"))
    assert disc(t, "3D") in legal(t)


def test_E60_take_from_joker_four_set():
    t = turn("10D JD 2C", [(1, "9C 9S 9D JK")], opened=True, draw="5H")
    assert t.table_after()[0]["joker_at"] == 2
    t.apply(take(t, 0, 1))                                    # 9D
    d = t.table_after()[0]
    assert d["cards"] == sorted(O.parse_cards("9C 9S JK")) and d["joker_at"] is None
    assert swap(t, 0) not in legal(t)
    t.apply(meld(t, "9D 10D JD"))
    assert disc(t, "2C") in legal(t)


def test_E84_take_chain():
    table = [(1, "5H 6H 7H 8H"), (1, "8S 9S 10S JS")]
    t = turn("8D 2C", table, opened=True, draw="4S")
    acts = legal(t)
    assert take(t, 0, 1) in acts and take(t, 1, 0) in acts
    assert take(t, 0, 0) not in acts and take(t, 1, 1) not in acts
    t.apply(take(t, 0, 1))
    assert disc(t, "2C") not in legal(t)
    t.apply(take(t, 1, 0))
    t.apply(meld(t, "8H 8S 8D"))
    assert disc(t, "2C") in legal(t) and disc(t, "4S") in legal(t)
    assert sorted(t.hand_after()) == sorted(O.parse_cards("2C 4S"))


# ---------------------------------------------------------------------------------------------------- R15
def test_E61_required_final_discard():
    t = turn("4D 5D", opened=True, draw="6D")
    assert meld(t, "4D 5D 6D") not in legal(t)
    t = turn("4D 5D 6D", opened=True, draw="KS")
    t.apply(meld(t, "4D 5D 6D"))
    t.apply(disc(t, "KS"))
    assert t.goes_out


def test_E62_optional_and_forbidden():
    for mode in ("optional", "forbidden"):
        t = turn("4D 5D", rules=R(final_discard=mode), opened=True, draw="6D")
        assert meld(t, "4D 5D 6D") in legal(t)
        t.apply(meld(t, "4D 5D 6D"))
        assert t.goes_out and t.ends_turn
    t = turn("4D", [(1, "5D 6D 7D")], rules=R(final_discard="forbidden"), opened=True, draw="KS")
    assert disc(t, "KS") in legal(t) and disc(t, "4D") in legal(t)      # 1 card stays
    assert lay(t, 0, "4D") not in legal(t)                   # would leave only KS: neither layable nor discardable
    t = turn("KS", rules=R(final_discard="forbidden"), opened=True, draw="2H")
    assert disc(t, "KS") in legal(t)                          # keeps one card
    t = turn("4D 5D 6D", rules=R(final_discard="optional"), opened=True, draw="KS")
    t.apply(meld(t, "4D 5D 6D"))
    assert disc(t, "KS") in legal(t)                          # out by discarding, still allowed under "optional"


def test_E83_forbidden_dead_end():
    r = R(final_discard="forbidden")
    t = turn("4D 5D 6D", rules=r, opened=True, draw="KS")
    acts = legal(t)
    assert meld(t, "4D 5D 6D") not in acts and disc(t, "KS") in acts
    t = turn("4D 5D 6D", rules=r, opened=True, draw="7D")
    t.apply(meld(t, "4D 5D 6D"))
    assert lay(t, 0, "7D") in legal(t) and disc(t, "7D") not in legal(t)
    t.apply(lay(t, 0, "7D"))
    assert t.goes_out


# ---------------------------------------------------------------------------------------------------- all at once
def test_E30_dry_rummy_dealer():
    hand = "AH 2H 3H 4H 5H 6H 7H 8H 9H 10H JH QH KH 4C"
    pos = O.make_position(hand, phase="play", first_turn=True, turn=0)
    t = O.RamiTurn(pos, R())
    t.apply(meld(t, "AH 2H 3H"))
    for c in "4H 5H 6H 7H 8H 9H 10H JH QH KH".split():
        t.apply(lay(t, 0, c))
    assert t.turn_points == 85 and disc(t, "4C") in legal(t)
    t.apply(disc(t, "4C"))
    assert t.goes_out and t.all_at_once


def test_E69_relaxed_all_at_once_out():
    r = R(all_at_once_requires_opening_criteria=False, max_undos_per_turn=0)
    t = turn("AH 2H 3H 5C 5D 5S 9D 9C KS", rules=r, draw="9S")
    t.apply(meld(t, "AH 2H 3H"))
    t.apply(meld(t, "5C 5D 5S"))
    assert O.COMMIT not in legal(t) and disc(t, "KS") not in legal(t)
    t.apply(meld(t, "9D 9C 9S"))
    assert O.COMMIT not in legal(t) and legal(t) == {disc(t, "KS")}
    t.apply(disc(t, "KS"))
    assert t.goes_out and t.all_at_once
    # without a pure run
    t = turn("AH AD AC 5C 5D 5S 9D 9C KS", rules=r, draw="9S")
    assert meld(t, "AH AD AC") not in legal(t)
    r2 = R(all_at_once_requires_opening_criteria=False, all_at_once_requires_pure_run=False, max_undos_per_turn=0)
    t = turn("AH AD AC 5C 5D 5S 9D 9C KS", rules=r2, draw="9S")
    assert meld(t, "AH AD AC") in legal(t)


def test_E70_all_at_once_may_not_use_table():
    table = [(1, "9D 10D JD")]
    r = R(all_at_once_may_use_table=False)
    # lays everything, needs the lay-off of QD to go out, no commit possible (only 24+10 points)
    t = turn("7H 8H 9H QD", table, rules=r, draw="KS")
    assert lay(t, 0, "QD") not in legal(t)
    t = turn("7H 8H 9H QD", table, rules=R(), draw="KS")
    assert lay(t, 0, "QD") in legal(t)                        # default: tentative, an undo remains (I1)
    # a lay-off allowed when the turn can still be committed; then no out
    t = turn("JH QH KH KC KD KS QD 2C", table, rules=r, draw="4S")
    assert lay(t, 0, "QD") in legal(t)
    t.apply(lay(t, 0, "QD"))
    assert t.touched_table
    t.apply(meld(t, "JH QH KH"))
    t.apply(meld(t, "KC KD KS"))
    assert O.COMMIT in legal(t)


def test_E81_undo_sequence():
    hand = "KS KH KD QS QH QD 2C 4D 6S 8C 10C 3H 5S"
    t = turn(hand, draw="9D")
    m1 = meld(t, "KS KH KD")
    assert m1 in legal(t)
    t.apply(m1)
    assert O.UNDO in legal(t) and disc(t, "2C") not in legal(t)
    t.apply(O.UNDO)
    assert t.undos == 1 and t.tentative is False and len(t.hand_after()) == 14
    assert O.UNDO not in legal(t)
    assert meld(t, "QS QH QD") not in legal(t) and m1 not in legal(t)
    assert disc(t, "2C") in legal(t)


def test_E82_commit_then_ordinary_play():
    t = turn("9H 10H JH KC KD KS QH 2C 4D", draw="6S")
    t.apply(meld(t, "9H 10H JH"))
    assert O.COMMIT not in legal(t)
    assert disc(t, "2C") not in legal(t)
    t.apply(meld(t, "KC KD KS"))
    assert O.COMMIT in legal(t)
    t.apply(O.COMMIT)
    assert t.opened and O.UNDO not in legal(t)
    assert lay(t, 0, "QH") in legal(t)
    t.apply(lay(t, 0, "QH"))
    assert disc(t, "2C") in legal(t)


# ---------------------------------------------------------------------------------------------------- misc
def test_manual_announcement():
    t = turn("4D 5D 6D KS", rules=R(card_announcement="manual"), opened=True, draw="2C")
    t.apply(meld(t, "4D 5D 6D"))
    acts = legal(t)
    assert disc(t, "KS") in acts and disc(t, "KS", announce=False) in acts
    t.apply(disc(t, "KS", announce=False))
    assert not t.announced and t.penalty_cards_due == 2


def test_lebanese_pickup_71():
    r = R(lebanese=True)
    hand = "7H 8H KC KD KS 2C 4D 6S 10C QD JS 3S 5C"
    t = turn(hand, rules=r, discard=["9H"])                   # 24 + 30 = 54 < 71
    assert legal(t) == {O.DRAW_STOCK}
    t = turn("7H 8H KC KD KS QC QD QS 4D 6S 10C 3S 5C", rules=r, discard=["9H"])   # 24 + 30 + 30 = 84
    assert O.DRAW_DISCARD in legal(t)


def test_lebanese_burnt_joker_run():
    r = R(lebanese=True)
    t = turn("5H 6H JK 2C", [(1, "7H 7C 7S"), (1, "7H 7D 7S")], rules=r, opened=True, draw="9D")
    assert meld(t, ["5H", "6H", "JK"]) in legal(t)
    t = turn("5H 6H JK 2C", [(1, "7H 7C 7S")], rules=r, opened=True, draw="9D")
    assert meld(t, ["5H", "6H", "JK"]) not in legal(t)


def test_circular_runs():
    r = R(circular_runs=True)
    t = turn("KS AS 2S 4C", rules=r, opened=True, draw="9D")
    assert meld(t, "KS AS 2S") in legal(t)
    t.apply(meld(t, "KS AS 2S"))
    d = t.table_after()[0]
    assert (d["lo"], d["hi"]) == (13, 15)
    t = turn("KS AS 2S 4C", opened=True, draw="9D")
    assert t.lay.meld_index("KS AS 2S") is None


def test_circular_runs_joker_laid_below_the_ace_stands_for_the_king():
    """Found by the thorough profile (open_easy_circular, seed 121): the joker's position 0 was read as 'no joker'."""
    r = R(circular_runs=True)
    t = turn("7S", table=[(0, "AD 2D 3D")], rules=r, opened=True, draw="JK")
    t.apply(lay(t, 0, "JKL"))
    d = t.table_after()[0]
    assert (d["lo"], d["hi"], d["joker_at"], sorted(d["cards"])) == (13, 16, 13, [13, 14, 15, 52])


def test_replay_counts_are_consistent():
    t = turn("9H 10H JH KC KD KS QH 2C 4D", draw="6S")
    before = len(t.hand_after()) + sum(len(m["cards"]) for m in t.table_after())
    for a in (meld(t, "9H 10H JH"), meld(t, "KC KD KS"), O.COMMIT, lay(t, 0, "QH"), disc(t, "2C")):
        t.apply(a)
    after = len(t.hand_after()) + sum(len(m["cards"]) for m in t.table_after()) + 1
    assert before == after
    with pytest.raises(ValueError):
        t.apply(disc(t, "4D"))


class Interrupted(Exception):
    """Stands for a caller's time-out (the property tests' SIGALRM) raised inside the search."""


def test_an_interrupted_search_keeps_no_unproven_answer(monkeypatch):
    """The search memo survives a time-out: an entry still in progress when the search is interrupted is dropped,
    not kept as False, so the same turn answers as a fresh one afterwards (interrupted at every depth)."""
    rules = R(all_at_once_requires_opening_criteria=False, max_undos_per_turn=0)
    position = ("AH 2H 3H 5C 5D 5S 9D 9C KS", (), rules, "9S")
    fresh = legal(turn(*position))
    finish_body = O.Search._finish
    calls = 0

    def counting(self, st):
        nonlocal calls
        calls += 1
        return finish_body(self, st)

    monkeypatch.setattr(O.Search, "_finish", counting)
    legal(turn(*position))
    total = calls
    assert total > 3, "the position needs a search of a few states for this test to mean something"
    for stop_at in range(1, total + 1):
        calls = 0

        def interrupted(self, st, stop_at=stop_at):
            nonlocal calls
            calls += 1
            if calls == stop_at:
                raise Interrupted()
            return finish_body(self, st)

        t = turn(*position)
        monkeypatch.setattr(O.Search, "_finish", interrupted)
        with pytest.raises(Interrupted):
            legal(t)
        monkeypatch.setattr(O.Search, "_finish", finish_body)
        assert legal(t) == fresh, f"interrupted at search call {stop_at} of {total}"


# ---------------------------------------------------------------------------------------------------- R25 take_back
def tb_turn(hand, table=(), rules=None, stock=(), discard=(), opened=False, draw=True, **kw):
    """A take_back turn of seat 0 with an explicit stock (its LAST card is drawn first); ``draw=True`` draws from
    the stock, ``draw="pile"`` takes the discard top, ``draw=False`` stays in the draw phase."""
    rules = rules or TB()
    ops = [opened, True] if isinstance(opened, bool) else opened
    pos = O.make_position(hand, table, rules=rules, discard=discard, opened=ops, stock=list(stock), **kw)
    t = O.RamiTurn(pos, rules)
    if draw is True:
        t.apply(O.DRAW_STOCK)
    elif draw == "pile":
        t.apply(O.DRAW_DISCARD)
    return t


def cards(text):
    return sorted(O.parse_cards(text))


def discards_of(t, text):
    return {disc(t, c) for c in set(text.split())}


def test_R25_layout_and_default():
    assert O.default_rules().dead_ends == "take_back" and O.default_rules().take_back_penalty_cards == 2
    assert O.layout(TB()) is O.layout(R())                     # the layout does not depend on dead_ends
    lay = O.layout(TB())
    assert lay.decode(O.TAKE_BACK) == ("take_back",) and lay.name(O.TAKE_BACK) == "TAKE_BACK"
    assert lay.decode(5) == ("meld", 0) and lay.decode(lay.LAY - 1) == ("meld", lay.M - 1)
    with pytest.raises(ValueError):
        O.RamiTurn(O.make_position("2C 3C"), O.default_rules(dead_ends="forbid"))


def test_R25_draw_unmasked():
    """E33 / E34 under take_back: the discard top may be taken whether or not it can be laid; R7 and R20 still hold."""
    t = tb_turn("7H 8H 8C 8D 8S 2C 4D 6S 10C QD JS 3S KH", discard=["9H"], stock=["2D"], draw=False)
    assert legal(t) == {O.DRAW_STOCK, O.DRAW_DISCARD}
    t = tb_turn("2C 4D 6S 10C", [(1, "5H 6H 7H")], discard=["KS"], stock=["2D"], opened=True, draw=False)
    assert legal(t) == {O.DRAW_STOCK, O.DRAW_DISCARD}
    t = tb_turn("8H", [(1, "9H 10H JH")], discard=["7H"], stock=["2D"], opened=True, draw=False)
    assert legal(t) == {O.DRAW_STOCK}                                                # R7: one card in hand
    t = tb_turn("8H 9C", rules=TB(discard_pickup_from_second_round=True), discard=["7H"], stock=["2D"], turn=1,
                draw=False)
    assert legal(t) == {O.DRAW_STOCK}                                                # R20: first lap
    t = tb_turn("8H 9C", discard=["7H"], stock=[], draw=False)
    assert legal(t) == {O.DRAW_DISCARD}
    # under "prevent" the unusable top is masked (E34)
    t = tb_turn("2C 4D 6S 10C", [(1, "5H 6H 7H")], rules=R(), discard=["KS"], stock=["2D"], opened=True, draw=False)
    assert legal(t) == {O.DRAW_STOCK}


def test_R25_1_failed_opening_taken_back():
    """48 < 51: no COMMIT, no discard; UNDO and TAKE_BACK only. TAKE_BACK: both melds back in hand, the drawn card
    kept, two penalty cards drawn, opened stays False, then only discards (any card), once."""
    hand = "JH QH KH 5C 6C 7C 2D 9S"
    t = tb_turn(hand, stock=["KD", "8C", "4D"])
    assert legal(t) == ({meld(t, "JH QH KH"), meld(t, "5C 6C 7C")} | discards_of(t, "JH QH KH 5C 6C 7C 2D 9S 4D"))
    assert O.TAKE_BACK not in legal(t)                          # nothing laid, nothing owed
    t.apply(meld(t, "JH QH KH"))
    assert legal(t) == {O.UNDO, O.TAKE_BACK, meld(t, "5C 6C 7C")}
    t.apply(meld(t, "5C 6C 7C"))
    assert legal(t) == {O.UNDO, O.TAKE_BACK}
    t.apply(O.TAKE_BACK)
    assert t.took_back and not t.opened and t.table_after() == [] and t.turn_points == 0 and not t.tentative
    assert t.hand_after() == cards(hand + " 4D 8C KD") and t.take_back_drawn == O.parse_cards("8C KD")
    assert t.stock_after() == [] and t.discard_after() == [] and not t.needs_sync and not t.ends_turn
    assert legal(t) == discards_of(t, hand + " 4D 8C KD")
    with pytest.raises(ValueError):
        t.apply(O.TAKE_BACK)
    with pytest.raises(ValueError):
        t.apply(meld(t, "JH QH KH"))
    t.apply(disc(t, "KD"))
    assert t.ends_turn and not t.goes_out and t.discard_after() == [C("KD")] and len(t.hand_after()) == 10


def test_R25_1_without_undo():
    t = tb_turn("KS KH KD QS QH QD 2C 7D", rules=TB(max_undos_per_turn=0), stock=["3C", "4C", "5H"])
    t.apply(meld(t, "KS KH KD"))
    assert legal(t) == {O.TAKE_BACK, meld(t, "QS QH QD")}      # no pure run: no COMMIT; no undo to use
    t = tb_turn("KS KH KD QS QH QD 2C 7D", stock=["3C", "4C", "5H"])
    t.apply(meld(t, "KS KH KD"))
    t.apply(O.UNDO)
    assert O.TAKE_BACK not in legal(t) and O.UNDO not in legal(t)     # everything is back: nothing to take back
    assert meld(t, "QS QH QD") in legal(t)                            # E81 under take_back: offered
    t.apply(meld(t, "QS QH QD"))
    assert legal(t) == {O.TAKE_BACK, meld(t, "KS KH KD")}


def test_R25_2_discard_pile_card_returned():
    """E33's pile card taken and not laid within an opening: TAKE_BACK returns it to the pile top, the player draws
    one card in its place and two more; the turn is no longer a pickup turn."""
    hand = "7H 8H 8C 8D 8S 2C 5D JS 4S KD"
    t = tb_turn(hand, discard=["6C", "9H"], stock=["AS", "10S", "3D", "QC"], draw="pile")
    acts = legal(t)
    assert t.taken == C("9H") and O.TAKE_BACK in acts                 # owed at once
    assert not acts & set(range(t.lay.DISC, t.lay.A)) and O.COMMIT not in acts and O.UNDO not in acts
    t.apply(meld(t, "7H 8H 9H"))
    t.apply(meld(t, "8C 8D 8S"))
    assert legal(t) == {O.UNDO, O.TAKE_BACK}
    t.apply(O.TAKE_BACK)
    assert t.discard_after() == cards("6C") + [C("9H")] and t.taken is None
    assert t.hand_after() == cards(hand + " QC 3D 10S") and t.stock_after() == [C("AS")]
    assert t.search.taken is None
    assert legal(t) == discards_of(t, hand + " QC 3D 10S")            # 9H is gone; every card may go


def test_R25_2_return_without_any_play():
    t = tb_turn("2D 9S 4C 7H", [(1, "5H 6H 7H"), (0, "QC QD QS")], discard=["6C", "KC"], opened=True,
                stock=["3S", "2S", "8D"], draw="pile")
    assert legal(t) == {O.TAKE_BACK}                                  # KC fits nowhere; no discard while owed
    t.apply(O.TAKE_BACK)
    assert t.discard_after() == cards("6C") + [C("KC")] and t.hand_after() == cards("2D 9S 4C 7H 8D 2S 3S")
    assert t.opened and legal(t) == discards_of(t, "2D 9S 4C 7H 8D 2S 3S")


def test_R25_3_take_pending_card_stranded():
    hand = "2D 5S KH"
    t = tb_turn(hand, [(1, "6C 7C 8C 9C")], opened=True, stock=["JD", "10D", "4H"])
    assert take(t, 0, 1) in legal(t) and take(t, 0, 0) in legal(t)   # local: no look-ahead for the pending card
    t.apply(take(t, 0, 1))
    assert t.pending == [C("9C")] and legal(t) == {O.TAKE_BACK}
    t.apply(O.TAKE_BACK)
    assert t.pending == [] and t.table_after()[0]["cards"] == cards("6C 7C 8C 9C") and t.table_after()[0]["owner"] == 1
    assert t.hand_after() == cards(hand + " 4H 10D JD")


def test_R25_4_swap_freed_joker():
    hand = "6S 2D 9H"
    t = tb_turn(hand, [(1, "JK 7S 8S")], opened=True, stock=["5D", "5C", "KC"])
    assert swap(t, 0) in legal(t)                                     # E57's look-ahead is gone
    t.apply(swap(t, 0))
    assert t.freed == 1 and legal(t) == {O.TAKE_BACK}
    t.apply(O.TAKE_BACK)
    d = t.table_after()[0]
    assert d["cards"] == cards("JK 7S 8S") and d["joker_at"] == 6 and t.freed == 0
    assert t.hand_after() == cards(hand + " KC 5C 5D")


def test_R25_5_commit_without_search_then_take_back():
    """final_discard "forbidden": after the two melds only 2D is left; COMMIT is offered (its criteria hold) although
    no discard can follow it (under "prevent" it is masked), and TAKE_BACK undoes the commit too."""
    hand = "JH QH KH 6C 7C 8C"
    t = tb_turn(hand, rules=TB(final_discard="forbidden"), stock=["3C", "AC", "2D"])
    t.apply(meld(t, "JH QH KH"))
    t.apply(meld(t, "6C 7C 8C"))
    assert legal(t) == {O.COMMIT, O.UNDO, O.TAKE_BACK}
    p = tb_turn(hand, rules=R(final_discard="forbidden"), stock=["3C", "AC", "2D"])
    p.apply(meld(p, "JH QH KH"))
    p.apply(meld(p, "6C 7C 8C"))
    assert legal(p) == {O.UNDO}
    t.apply(O.COMMIT)
    assert t.opened and legal(t) == {O.TAKE_BACK}                    # 2D: discarding it would empty the hand
    t.apply(O.TAKE_BACK)
    assert not t.opened and t.table_after() == [] and t.hand_after() == cards(hand + " 2D AC 3C")
    assert legal(t) == discards_of(t, hand + " 2D AC 3C")


def test_R25_5_opened_player_may_take_back_any_play():
    t = tb_turn("5D 6D 7D 2S", opened=True, stock=["KS", "KH", "9C"])
    assert O.TAKE_BACK not in legal(t)
    t.apply(meld(t, "5D 6D 7D"))
    assert legal(t) == {O.TAKE_BACK} | discards_of(t, "2S 9C")
    t.apply(O.TAKE_BACK)
    assert t.opened and t.table_after() == [] and t.hand_after() == cards("5D 6D 7D 2S 9C KH KS")


def test_R25_6_dealer_first_turn_penalty_only():
    hand = "9H 10H JH 4S 5S 2C 5D 8S 4C 6D QS 3H 7C KD"
    pos = O.make_position(hand, phase="play", first_turn=True, turn=0, stock=O.parse_cards("4D 3D 2S"), rules=TB())
    t = O.RamiTurn(pos, TB())
    assert O.TAKE_BACK not in legal(t)
    t.apply(meld(t, "9H 10H JH"))
    assert O.TAKE_BACK in legal(t)
    t.apply(O.TAKE_BACK)
    assert t.hand_after() == cards(hand + " 2S 3D") and t.stock_after() == [C("4D")]


def test_R25_penalty_knob():
    t = tb_turn("5D 6D 7D 2S", rules=TB(take_back_penalty_cards=0), opened=True, stock=["KS", "KH", "9C"])
    t.apply(meld(t, "5D 6D 7D"))
    t.apply(O.TAKE_BACK)
    assert t.hand_after() == cards("5D 6D 7D 2S 9C") and t.stock_after() == O.parse_cards("KS KH")
    assert legal(t) == discards_of(t, "5D 6D 7D 2S 9C")


@pytest.mark.parametrize("keep_top", [False, True])
def test_R25_7_penalty_rebuilds_the_stock(keep_top):
    """One card left in the stock: the replacement card comes from it; the stock is then rebuilt from the discard
    pile, the returned card included (R17; all but its top with ``reshuffle_keep_top``): the oracle cannot know the
    shuffle, counts the cards it could not follow and checks what the engine reports."""
    pile = "2C 3D 4S 5H 6C 7D"
    t = tb_turn("2D 9S 4C 7H", [(1, "5H 6H 7H")], rules=TB(reshuffle_keep_top=keep_top), discard=(pile + " KC").split(),
                stock=["8D"], opened=True, draw="pile", other_hands={1: "AS"})
    t.apply(O.TAKE_BACK)
    moved = cards(pile + " KC") if not keep_top else cards(pile)
    assert t.take_back_drawn == [C("8D")] and t.unseen_draws == 2 and t.rebuilt == moved and t.needs_sync
    assert t.reshuffles == 1 and not t.doomed
    assert t.discard_after() == ([C("KC")] if keep_top else [])
    with pytest.raises(RuntimeError):
        legal(t)                                                             # the hand is not known yet
    drawn, stock = moved[:2], moved[2:]
    with pytest.raises(ValueError):
        t.sync_after_rebuild(drawn[:1], t.discard_after(), stock)            # one card short
    with pytest.raises(ValueError):
        t.sync_after_rebuild([C("AS"), drawn[1]], t.discard_after(), stock)  # not a card of the rebuilt pile
    with pytest.raises(ValueError):
        t.sync_after_rebuild(drawn, t.discard_after() + [C("AS")], stock)
    t.sync_after_rebuild(drawn, t.discard_after(), stock[::-1])
    assert not t.needs_sync and t.stock_after() == stock[::-1]
    assert t.hand_after() == sorted(O.parse_cards("2D 9S 4C 7H 8D") + drawn)
    with pytest.raises(ValueError):
        t.sync_after_rebuild(drawn, t.discard_after(), stock)                # nothing left to synchronise


def test_R25_7_penalty_beyond_max_reshuffles_dooms_the_round():
    t = tb_turn("2D 9S 4C 7H", [(1, "5H 6H 7H")], rules=TB(max_reshuffles=0), discard=["2C", "3D", "KC"],
                stock=["8D"], opened=True, draw="pile", other_hands={1: "AS"})
    t.apply(O.TAKE_BACK)
    assert t.doomed and t.reshuffles == 0 and not t.needs_sync and t.unseen_draws == 0
    assert t.hand_after() == cards("2D 9S 4C 7H 8D") and t.discard_after() == cards("2C 3D") + [C("KC")]
    # nothing to rebuild (with reshuffle_keep_top a one-card pile stays): the penalty cards are not drawn
    t2 = tb_turn("5D 6D 7D 2S", rules=TB(reshuffle_keep_top=True), opened=True, stock=["9C"], discard=["KC"])
    t2.apply(meld(t2, "5D 6D 7D"))
    t2.apply(O.TAKE_BACK)
    assert t2.hand_after() == cards("5D 6D 7D 2S 9C") and not t2.needs_sync and not t2.doomed
    assert t2.discard_after() == [C("KC")] and t2.reshuffles == 0


@pytest.mark.parametrize("final", ["optional", "forbidden"])
def test_R25_8_a_play_that_empties_the_hand_must_be_a_legal_out(final):
    t = tb_turn("5D 6D", rules=TB(final_discard=final), stock=["7D"])
    assert legal(t) == discards_of(t, "5D 6D 7D")                   # 18 < 51: not an out for a player not opened
    t = tb_turn("5D 6D", rules=TB(final_discard=final), opened=True, stock=["7D"])
    assert legal(t) == {meld(t, "5D 6D 7D")} | discards_of(t, "5D 6D 7D")
    t.apply(meld(t, "5D 6D 7D"))
    assert t.goes_out and t.ends_turn and legal(t) == set()
    t = tb_turn("5D 6D", rules=TB(), opened=True, stock=["7D"])     # "required": no play may empty the hand
    assert legal(t) == discards_of(t, "5D 6D 7D")


def test_R25_8_forbidden_one_card_left_is_local():
    """E62 under take_back: laying 4D off leaves KS, which can neither be laid nor discarded; the play is offered
    (no look-ahead) and TAKE_BACK is then the only action."""
    t = tb_turn("4D", [(1, "5D 6D 7D")], rules=TB(final_discard="forbidden"), opened=True, stock=["KS"])
    assert legal(t) == {lay(t, 0, "4D")} | discards_of(t, "4D KS")
    t.apply(lay(t, 0, "4D"))
    assert legal(t) == {O.TAKE_BACK, take(t, 0, 0), take(t, 0, 1)}    # the 4-card run gives a card back (R13)
    t.apply(take(t, 0, 0))
    assert t.pending == [C("4D")] and legal(t) == {O.TAKE_BACK}


@pytest.mark.parametrize("may_use_table", [True, False])
def test_R25_8_E70_out_after_touching_the_table(may_use_table):
    """Not opened, relaxed all-at-once criteria, ``final_discard = "optional"``: laying QD off onto a turn-start
    meld empties the hand; with ``all_at_once_may_use_table = false`` that can never be an out (E70)."""
    r = TB(final_discard="optional", all_at_once_may_use_table=may_use_table,
           all_at_once_requires_opening_criteria=False, all_at_once_requires_pure_run=False)
    t = tb_turn("5C 6C 7C", [(1, "9D 10D JD")], rules=r, stock=["QD"])
    t.apply(meld(t, "5C 6C 7C"))
    expected = {O.UNDO, O.TAKE_BACK, disc(t, "QD")}
    assert legal(t) == (expected | {lay(t, 0, "QD")} if may_use_table else expected)
    if may_use_table:
        t.apply(lay(t, 0, "QD"))
        assert t.goes_out and t.all_at_once


def test_R25_9_prevent_has_no_take_back():
    t = tb_turn("JH QH KH 5C 6C 7C 2D 9S", rules=R(), stock=["KD", "8C", "4D"])
    t.apply(meld(t, "JH QH KH"))
    assert O.TAKE_BACK not in legal(t)
    with pytest.raises(ValueError):
        t.apply(O.TAKE_BACK)


def test_R25_10_commit_needs_the_taken_card_laid():
    """take_back mode keeps the local COMMIT criteria: 51 points and a pure run, the taken card laid (R6)."""
    hand = "JH QH KH 6C 7C 8C 2D 9S"
    t = tb_turn(hand, discard=["4S", "9D"], stock=["AC"], draw="pile")
    t.apply(meld(t, "JH QH KH"))
    t.apply(meld(t, "6C 7C 8C"))
    assert legal(t) == {O.UNDO, O.TAKE_BACK}                     # 9D not laid: no COMMIT, no discard
