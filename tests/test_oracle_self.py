"""Self-tests of the independent legality oracle (tests/oracle.py) against the rules book (docs/rules.md), ruleset ``basic``.

These pin the oracle to the spec on hand-made positions (edge cases §5.1) so that it can be trusted as the
reference for the engine's action mask. They do not touch rummy_env.
"""

import random
import time

import pytest

try:  # works whether or not tests/ is a package
    from tests import oracle as O
except ImportError:  # pragma: no cover
    import oracle as O

C = O.parse_card


def rules(**kw):
    return O.default_rules(**kw)


def snap(hand, table=(), r=None, **kw):
    return O.make_snapshot(hand, table, rules=r or rules(), **kw)


def meld_action(cards, r):
    lay = O.layout(r)
    m = lay.meld_index(O.parse_cards(cards))
    assert m is not None, f"{cards} not in the catalogue"
    return lay.meld_id(m)


def layoff_action(slot, card, r):
    return O.layout(r).layoff_id(slot, C(card))


def discard_action(card, r):
    return O.layout(r).discard_id(C(card))


def names(s, r):
    return O.legal_action_names(s, r)


# ----------------------------------------------------------------------------------------------------------
# Cards, rules helper, layout
# ----------------------------------------------------------------------------------------------------------

def test_card_ids_and_names():
    assert C("AC") == 0 and C("KC") == 12 and C("AD") == 13 and C("KS") == 51
    assert C("10H") == C("TH") == 2 * 13 + 9
    assert [O.card_name(t) for t in (0, 9, 10, 11, 12, 51)] == ["AC", "10C", "JC", "QC", "KC", "KS"]
    assert all(C(O.card_name(t)) == t for t in range(52))
    with pytest.raises(ValueError):
        C("1C")
    with pytest.raises(ValueError):
        C("AX")


def test_default_rules_has_all_basic_knobs():
    r = rules()
    assert r.num_players == 2
    assert r.ace_high_or_low is False and r.round_the_corner is False
    assert r.must_discard_to_go_out is False and r.must_meld_before_layoff is False
    assert r.forbid_discarding_card_taken_from_discard is True
    assert r.hand_size_by_players == {2: 10, 3: 7, 4: 7, 5: 6, 6: 6}
    assert r.max_undos_per_turn == 1 and r.max_hands == 100 and r.target_score == 150
    assert rules(num_players=4).num_players == 4
    with pytest.raises(TypeError):
        rules(ace_hi_or_lo=True)


def test_configuration_errors():
    O.validate_rules(rules())
    O.validate_rules(rules(ace_high_or_low=True, round_the_corner=True))
    with pytest.raises(ValueError):                       # E14: round_the_corner without ace_high_or_low
        O.validate_rules(rules(round_the_corner=True))
    with pytest.raises(ValueError):
        O.layout(rules(round_the_corner=True))
    for n in (1, 7):                                       # E1
        with pytest.raises(ValueError):
            O.validate_rules(rules(num_players=n))


@pytest.mark.parametrize("kw, M", [({}, 96), ({"ace_high_or_low": True}, 100),
                                   ({"ace_high_or_low": True, "round_the_corner": True}, 104)])
def test_layout_sizes(kw, M):
    lay = O.layout(rules(**kw))
    assert lay.M == M and lay.S == 17 and lay.T == 52
    assert lay.A == 2 + M + 17 * 52 + 52
    assert len(set(map(frozenset, lay.melds))) == M                 # no duplicates
    assert all(O.is_meld(m, rules(**kw)) and len(m) == 3 for m in lay.melds)


def test_default_layout_numbers_and_catalogue_order():
    r = rules()
    lay = O.layout(r)
    assert (lay.M, lay.A) == (96, 1034)
    assert lay.melds[0] == tuple(O.parse_cards("AD AH AS"))      # rank A, clubs omitted
    assert lay.melds[3] == tuple(O.parse_cards("AC AD AH"))      # rank A, spades omitted
    assert lay.melds[51] == tuple(O.parse_cards("KC KD KH"))
    assert lay.melds[52] == tuple(O.parse_cards("AC 2C 3C"))
    assert lay.melds[62] == tuple(O.parse_cards("JC QC KC"))
    assert lay.melds[63] == tuple(O.parse_cards("AD 2D 3D"))
    assert lay.melds[95] == tuple(O.parse_cards("JS QS KS"))
    assert lay.layoff_id(0, 0) == 98 and lay.layoff_id(16, 51) == 98 + 16 * 52 + 51
    assert lay.discard_id(0) == 982 and lay.discard_id(51) == 1033
    assert O.action_name(0, r) == "DRAW_STOCK" and O.action_name(1, r) == "DRAW_DISCARD"
    assert O.action_name(2, r) == "MELD AD AH AS"
    assert O.action_name(lay.layoff_id(3, C("9D")), r) == "LAY_OFF 9D -> slot 3"
    assert O.action_name(lay.discard_id(C("7D")), r) == "DISCARD 7D"
    assert O.decode_action(lay.layoff_id(3, C("9D")), r) == ("lay_off", 3, C("9D"))
    with pytest.raises(ValueError):
        O.decode_action(1034, r)


def test_ace_catalogue_entries():
    aho = O.layout(rules(ace_high_or_low=True))
    assert aho.melds[52 + 11] == tuple(O.parse_cards("QC KC AC"))     # start 12 = Q-K-A
    assert aho.meld_index(O.parse_cards("KH AH 2H")) is None
    rtc = O.layout(rules(ace_high_or_low=True, round_the_corner=True))
    assert rtc.melds[52 + 12] == tuple(O.parse_cards("KC AC 2C"))     # start 13 = K-A-2
    assert rtc.melds[-1] == tuple(O.parse_cards("KS AS 2S"))
    assert O.layout(rules()).meld_index(O.parse_cards("QH KH AH")) is None


# ----------------------------------------------------------------------------------------------------------
# Meld validity
# ----------------------------------------------------------------------------------------------------------

def test_meld_validity_basics():
    r = rules()
    assert O.is_meld(O.parse_cards("8S 8H 8D"), r) and O.is_meld(O.parse_cards("8S 8H 8D 8C"), r)
    assert not O.is_meld(O.parse_cards("8S 8H"), r)
    assert not O.is_meld(O.parse_cards("8S 8H 9D"), r)
    assert O.is_meld(O.parse_cards("AC 2C 3C"), r)
    assert O.is_meld(O.parse_cards(" ".join(f"{x}C" for x in "A 2 3 4 5 6 7 8 9 10 J Q K".split())), r)
    assert not O.is_meld(O.parse_cards("3C 4C 6C"), r)
    assert not O.is_meld(O.parse_cards("3C 4C 5D"), r)
    assert not O.is_meld(O.parse_cards("QC KC AC"), r)
    assert not O.is_meld(O.parse_cards("KC AC 2C"), r)
    aho = rules(ace_high_or_low=True)
    assert O.is_meld(O.parse_cards("QC KC AC"), aho) and O.is_meld(O.parse_cards("AC 2C 3C"), aho)
    assert not O.is_meld(O.parse_cards("KC AC 2C"), aho)
    rtc = rules(ace_high_or_low=True, round_the_corner=True)
    assert O.is_meld(O.parse_cards("KC AC 2C"), rtc) and O.is_meld(O.parse_cards("JC QC KC AC 2C 3C"), rtc)
    assert not O.is_meld(O.parse_cards("KC AC 3C"), rtc)


# ----------------------------------------------------------------------------------------------------------
# Draw phase and terminal phases
# ----------------------------------------------------------------------------------------------------------

def test_draw_phase():
    r = rules()
    s = snap("9D KS", phase="draw", stock="2C 3C", discard="7D")
    assert O.legal_actions(s, r) == {O.DRAW_STOCK, O.DRAW_DISCARD}
    s = snap("9D KS", phase="draw", stock=[], discard="7D")           # E17-like: stock empty
    assert O.legal_actions(s, r) == {O.DRAW_DISCARD}
    s = snap("9D KS", phase="draw", stock="2C", discard=[])            # E18-like: no discard top
    assert O.legal_actions(s, r) == {O.DRAW_STOCK}
    s = snap("9D KS", phase="draw", stock=[], discard=[])
    assert O.legal_actions(s, r) == set()


@pytest.mark.parametrize("phase", ["hand_over", "game_over"])
def test_terminal_phases_have_no_actions(phase):
    assert O.legal_actions(snap("9D KS", phase=phase), rules()) == set()


# ----------------------------------------------------------------------------------------------------------
# §5.1 edge cases
# ----------------------------------------------------------------------------------------------------------

def test_E2_cannot_discard_card_taken_from_discard_pile():
    r = rules()
    s = snap("7D 2C 5H 9S KC", taken="7D")
    legal = O.legal_actions(s, r)
    assert discard_action("7D", r) not in legal
    assert {discard_action(c, r) for c in ("2C", "5H", "9S", "KC")} <= legal
    # knob off: the taken card may be discarded
    r2 = rules(forbid_discarding_card_taken_from_discard=False)
    assert discard_action("7D", r2) in O.legal_actions(snap("7D 2C 5H 9S KC", r=r2, taken="7D"), r2)
    # a card drawn from the stock is not "taken"
    assert discard_action("7D", r) in O.legal_actions(snap("7D 2C 5H 9S KC", taken=None), r)


def test_E3_E4_meld_with_taken_card_or_keep_it():
    r = rules()
    legal = O.legal_actions(snap("5C 5H 5S 9D KC", taken="5C"), r)
    assert meld_action("5C 5H 5S", r) in legal
    assert discard_action("9D", r) in legal and discard_action("5C", r) not in legal


def test_E5_meld_taken_card_goes_out_without_discard():
    r = rules()
    s = snap("4S 5S 6S", taken="6S")
    legal = O.legal_actions(s, r)
    assert meld_action("4S 5S 6S", r) in legal
    assert legal == {meld_action("4S 5S 6S", r), discard_action("4S", r), discard_action("5S", r)}
    after = O.apply_play(s, meld_action("4S 5S 6S", r), r)
    assert after["phase"] == "hand_over" and after["hands"][0] == []
    # with must_discard_to_go_out the meld would empty the hand
    r2 = rules(must_discard_to_go_out=True)
    assert meld_action("4S 5S 6S", r2) not in O.legal_actions(snap("4S 5S 6S", r=r2, taken="6S"), r2)


def test_E6_dead_end_lay_off_is_masked():
    r = rules()
    s = snap("9D KS", table=[(1, "6D 7D 8D")], taken="KS")
    legal = O.legal_actions(s, r)
    assert discard_action("9D", r) in legal
    assert layoff_action(0, "9D", r) not in legal          # would leave only KS: dead end (B18)
    assert discard_action("KS", r) not in legal             # B7
    assert legal == {discard_action("9D", r)}, names(s, r)


def test_E6_positive_control_when_taken_card_can_be_laid_off():
    r = rules()
    table = [(1, "6D 7D 8D"), (1, "10S JS QS")]
    s = snap("9D KS", table=table, taken="KS")
    legal = O.legal_actions(s, r)
    assert layoff_action(0, "9D", r) in legal               # then KS onto 10S-QS goes out
    assert layoff_action(1, "KS", r) in legal               # then discard 9D
    # with must_discard_to_go_out, laying off 9D leaves {KS} which can only be played by emptying the hand
    r2 = rules(must_discard_to_go_out=True)
    legal2 = O.legal_actions(snap("9D KS", table=table, r=r2, taken="KS"), r2)
    assert layoff_action(0, "9D", r2) not in legal2
    assert layoff_action(1, "KS", r2) in legal2             # leaves 9D, which may be discarded


def test_dead_end_search_follows_a_chain():
    # Taken QS can only be laid off after JS: laying off JS first is legal, QS first is not possible.
    r = rules()
    s = snap("JS QS", table=[(1, "8S 9S 10S")], taken="QS")
    legal = O.legal_actions(s, r)
    assert legal == {layoff_action(0, "JS", r), discard_action("JS", r)}, names(s, r)
    after = O.apply_play(s, layoff_action(0, "JS", r), r)
    assert O.legal_actions(after, r) == {layoff_action(0, "QS", r)}


def test_E7_lay_off_then_discard_to_go_out():
    r = rules()
    s = snap("9D 3C", table=[(1, "6D 7D 8D")], taken=None)
    legal = O.legal_actions(s, r)
    assert layoff_action(0, "9D", r) in legal
    after = O.apply_play(s, layoff_action(0, "9D", r), r)
    assert O.legal_actions(after, r) == {discard_action("3C", r)}


def test_E8_last_card_laid_off_onto_opponents_meld():
    s_kw = dict(table=[(1, "6D 7D 8D")], played_this_turn=True)
    r = rules()
    assert O.legal_actions(snap("9D", r=r, **s_kw), r) == {layoff_action(0, "9D", r), discard_action("9D", r)}
    r2 = rules(must_discard_to_go_out=True)
    assert O.legal_actions(snap("9D", r=r2, **s_kw), r2) == {discard_action("9D", r2)}


def test_E9_must_discard_to_go_out():
    r = rules(must_discard_to_go_out=True)
    legal = O.legal_actions(snap("4H 5H 6H", r=r), r)
    assert legal == {discard_action(c, r) for c in ("4H", "5H", "6H")}
    legal = O.legal_actions(snap("4H 5H 6H KC", r=r), r)
    assert meld_action("4H 5H 6H", r) in legal
    after = O.apply_play(snap("4H 5H 6H KC", r=r), meld_action("4H 5H 6H", r), r)
    assert O.legal_actions(after, r) == {discard_action("KC", r)}
    # ... but not when the one card left would be the card taken from the discard pile
    legal = O.legal_actions(snap("4H 5H 6H KC", r=r, taken="KC"), r)
    assert meld_action("4H 5H 6H", r) not in legal
    # default rules: the 3-card hand may be melded (going out)
    r0 = rules()
    assert meld_action("4H 5H 6H", r0) in O.legal_actions(snap("4H 5H 6H", r=r0), r0)


def test_E10_run_extended_at_both_ends_and_ace_not_above_king():
    r = rules()
    s = snap("7H JH 2C", table=[(1, "8H 9H 10H")])
    legal = O.legal_actions(s, r)
    assert {layoff_action(0, "7H", r), layoff_action(0, "JH", r)} <= legal
    s = O.apply_play(s, layoff_action(0, "7H", r), r)
    assert layoff_action(0, "JH", r) in O.legal_actions(s, r)
    s = O.apply_play(s, layoff_action(0, "JH", r), r)
    assert sorted(s["table"][0]["cards"]) == sorted(O.parse_cards("7H 8H 9H 10H JH"))
    s = snap("QH KH AH 2C", table=[(1, "7H 8H 9H 10H JH")])
    legal = O.legal_actions(s, r)
    assert layoff_action(0, "QH", r) in legal and layoff_action(0, "KH", r) not in legal
    s = O.apply_play(s, layoff_action(0, "QH", r), r)
    s = O.apply_play(s, layoff_action(0, "KH", r), r)
    assert layoff_action(0, "AH", r) not in O.legal_actions(s, r)          # A above K: ✗ by default
    aho = rules(ace_high_or_low=True)
    s2 = snap("AH 2C", r=aho, table=[(1, "7H 8H 9H 10H JH QH KH")])
    assert layoff_action(0, "AH", aho) in O.legal_actions(s2, aho)


def test_E11_lay_off_must_be_adjacent():
    r = rules()
    s = snap("7C 6C 2D", table=[(1, "3C 4C 5C")])
    legal = O.legal_actions(s, r)
    assert layoff_action(0, "7C", r) not in legal and layoff_action(0, "6C", r) in legal
    s = O.apply_play(s, layoff_action(0, "6C", r), r)
    assert layoff_action(0, "7C", r) in O.legal_actions(s, r)


def test_E12_four_card_set_is_closed():
    r = rules()
    s = snap("8C 7S 9S 2D", table=[(1, "8S 8H 8D")])
    legal = O.legal_actions(s, r)
    assert layoff_action(0, "8C", r) in legal
    assert layoff_action(0, "7S", r) not in legal and layoff_action(0, "9S", r) not in legal
    s = O.apply_play(s, layoff_action(0, "8C", r), r)
    assert len(s["table"][0]["cards"]) == 4
    assert not any(O.layout(r).layoff_base <= a < O.layout(r).discard_base for a in O.legal_actions(s, r))


def test_E13_default_aces_are_low_only():
    r = rules()
    s = snap("QH KH AH 2H 3H 9C", table=[(1, "JS QS KS")])
    legal = O.legal_actions(s, r)
    assert meld_action("AH 2H 3H", r) in legal
    assert not any(set(O.parse_cards("QH KH AH")) <= set(O.decode_action(a, r)[2])
                   for a in legal if O.decode_action(a, r)[0] == "meld")
    s = snap("AH 9C", table=[(1, "JH QH KH")])
    assert layoff_action(0, "AH", r) not in O.legal_actions(s, r)


def test_E14_ace_high_or_low():
    r = rules(ace_high_or_low=True)
    s = snap("QH KH AH 2H 9C", r=r)
    legal = O.legal_actions(s, r)
    assert meld_action("QH KH AH", r) in legal
    assert meld_action("AH 2H 3H", r) not in legal                     # 3H not in hand
    assert O.layout(r).meld_index(O.parse_cards("KH AH 2H")) is None     # K-A-2 not a meld at all
    s = snap("AH 2H 9C", r=r, table=[(1, "JH QH KH")])
    assert layoff_action(0, "AH", r) in O.legal_actions(s, r)
    s = O.apply_play(s, layoff_action(0, "AH", r), r)
    assert (s["table"][0]["lo"], s["table"][0]["hi"]) == (11, 14)
    assert layoff_action(0, "2H", r) not in O.legal_actions(s, r)
    # and an ace used low cannot also go above K: A-2-3 does not accept K
    s = snap("KH 9C", r=r, table=[(1, "AH 2H 3H")])
    assert layoff_action(0, "KH", r) not in O.legal_actions(s, r)


def test_round_the_corner():
    r = rules(ace_high_or_low=True, round_the_corner=True)
    legal = O.legal_actions(snap("KH AH 2H 9C", r=r), r)
    assert meld_action("KH AH 2H", r) in legal
    s = snap("AH 2H 9C", r=r, table=[(1, "JH QH KH")])
    s = O.apply_play(s, layoff_action(0, "AH", r), r)
    assert layoff_action(0, "2H", r) in O.legal_actions(s, r)            # J Q K A 2
    s = snap("KH 9C", r=r, table=[(1, "AH 2H 3H")])
    assert layoff_action(0, "KH", r) in O.legal_actions(s, r)
    after = O.apply_play(snap("KH AH 2H 9C", r=r), meld_action("KH AH 2H", r), r)
    assert (after["table"][0]["lo"], after["table"][0]["hi"]) == (13, 15)


def test_must_meld_before_layoff():
    r = rules(must_meld_before_layoff=True)
    s = snap("9D 5S 6S 7S KC", r=r, table=[(1, "6D 7D 8D")])
    legal = O.legal_actions(s, r)
    assert layoff_action(0, "9D", r) not in legal                      # has not melded this hand
    assert meld_action("5S 6S 7S", r) in legal
    after = O.apply_play(s, meld_action("5S 6S 7S", r), r)              # melded earlier this turn
    assert layoff_action(0, "9D", r) in O.legal_actions(after, r)
    # melded in an earlier turn: he owns a table meld
    s = snap("9D KC", r=r, table=[(1, "6D 7D 8D"), (0, "2C 2D 2H")], has_played=[True, False])
    assert layoff_action(0, "9D", r) in O.legal_actions(s, r)
    # default rules: no such condition
    r0 = rules()
    assert layoff_action(0, "9D", r0) in O.legal_actions(snap("9D KC", table=[(1, "6D 7D 8D")]), r0)


def test_must_meld_before_layoff_dead_end_through_meld():
    # Hand 5S 6S 7S + taken 9D: the meld leaves {9D}; it is legal only because the meld unlocks the lay-off.
    table = [(1, "6D 7D 8D")]
    r = rules(must_meld_before_layoff=True)
    legal = O.legal_actions(snap("5S 6S 7S 9D", r=r, table=table, taken="9D"), r)
    assert meld_action("5S 6S 7S", r) in legal
    # if the lay-off of 9D were impossible, the meld would be a dead end
    legal = O.legal_actions(snap("5S 6S 7S 9D", r=r, table=[(1, "2D 3D 4D")], taken="9D"), r)
    assert meld_action("5S 6S 7S", r) not in legal
    assert legal == {discard_action(c, r) for c in ("5S", "6S", "7S")}


def test_new_meld_goes_to_lowest_empty_slot_and_layoff_slots_are_by_slot_number():
    r = rules()
    s = snap("9D 2C 3C 4C KS", table=[(1, "AS 2S 3S"), (1, "6D 7D 8D")])
    s["table"][0]["slot"] = 5                  # slots need not be contiguous in a hand-made snapshot
    s["table"][1]["slot"] = 2
    legal = O.legal_actions(s, r)
    assert layoff_action(2, "9D", r) in legal and layoff_action(1, "9D", r) not in legal
    after = O.apply_play(s, meld_action("2C 3C 4C", r), r)
    assert {m["slot"] for m in after["table"]} == {0, 2, 5}


# ----------------------------------------------------------------------------------------------------------
# Self-consistency on random positions, and speed
# ----------------------------------------------------------------------------------------------------------

def random_position(rng, r, hand_size, num_melds):
    """A random play-phase position: some random valid table melds (possibly extended), a random hand."""
    deck = set(range(52))
    lay = O.layout(r)
    table = []
    for m in rng.sample(range(lay.M), lay.M):
        if len(table) == num_melds:
            break
        cards = set(lay.melds[m])
        if cards <= deck:
            deck -= cards
            for t in rng.sample(sorted(deck), len(deck)):          # random extensions
                if rng.random() < 0.3 and O.is_meld(cards | {t}, r):
                    cards.add(t)
                    deck.discard(t)
            table.append((rng.randrange(2), [O.card_name(c) for c in cards]))
    hand = rng.sample(sorted(deck), min(hand_size, len(deck)))
    taken = rng.choice(hand) if rng.random() < 0.6 else None
    return O.make_snapshot([O.card_name(c) for c in hand], table, rules=r,
                           taken=None if taken is None else O.card_name(taken))


@pytest.mark.parametrize("kw", [{}, {"must_discard_to_go_out": True}, {"must_meld_before_layoff": True},
                                {"ace_high_or_low": True, "round_the_corner": True},
                                {"forbid_discarding_card_taken_from_discard": False}])
def test_no_legal_play_leads_to_a_dead_end(kw):
    """Every legal play leads to a finished turn or a position with a legal action; every card move that is
    valid but masked leads to an empty hand (forbidden going-out) or a position with no legal action."""
    r = rules(**kw)
    rng = random.Random(1234)
    lay = O.layout(r)
    checked = dead_ends = 0
    for _ in range(300):
        s = random_position(rng, r, rng.randint(1, 4), rng.randint(2, 10))
        legal = O.legal_actions(s, r)
        hand = set(s["hands"][0])
        candidates = {lay.meld_id(m) for m, cards in enumerate(lay.melds) if set(cards) <= hand}
        if not (r.must_meld_before_layoff and not O.player_has_melded(s, 0)):
            candidates |= {lay.layoff_id(meld["slot"], t) for meld in s["table"] for t in hand
                           if O.is_meld(set(meld["cards"]) | {t}, r)}
        plays_in_legal = {a for a in legal if lay.meld_base <= a < lay.discard_base}
        assert plays_in_legal <= candidates
        for a in sorted(candidates):
            after = O.apply_play(s, a, r)
            checked += 1
            emptied = after["phase"] == "hand_over"
            if a in legal:
                assert emptied or O.legal_actions(after, r), O.action_name(a, r)
                assert not (emptied and r.must_discard_to_go_out)
            else:
                dead_ends += 1
                assert (emptied and r.must_discard_to_go_out) or not O.legal_actions(after, r), \
                    O.action_name(a, r)
    assert checked > 50 and (dead_ends > 0 or not kw.get("forbid_discarding_card_taken_from_discard", True))


def test_speed_typical_positions():
    r = rules()
    rng = random.Random(7)
    positions = [random_position(rng, r, 11, rng.randint(0, 12)) for _ in range(50)]
    start = time.perf_counter()
    for s in positions:
        O.legal_actions(s, r)
    assert (time.perf_counter() - start) / len(positions) < 0.05
