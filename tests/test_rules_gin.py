"""Scripted gin scenarios (docs/rules.md#gin): one test per rule G1-G14 and per edge case EG1-EG12, each with
hand-written positions or decks, moves checked against the mask, and exact expected outcomes."""

from __future__ import annotations

import numpy as np
import pytest

from rummy_env import RummyEngine, RummyRules, cards
from rummy_env.actions import DRAW_DISCARD, DRAW_STOCK

try:  # tests/ is put on sys.path by conftest.py
    from scenario_gin import (
        action, allows, deck_with_upcard, discards, gin, ids, knock_defend, layoffs, legal, load, melds, refused, snap,
        step,
    )
except ImportError:  # pragma: no cover
    from tests.scenario_gin import (
        action, allows, deck_with_upcard, discards, gin, ids, knock_defend, layoffs, legal, load, melds, refused, snap,
        step,
    )

DECK = [cards.parse(name) for name in (
    "AS 2C 3S 4C 5S 6C 7S 8C 9S 10C "          # dealt alternately: seat 0 (non-dealer) first
    "AH 2D 3H 4D 5H 6D 7H 8D 9H 10D "
    "KC "                                        # the upcard
    "QS JS 10S KS QH JH 10H KH QD JD KD QC JC "   # the stock, top first
    "AC 3C 5C 7C 9C AD 3D 5D 7D 9D 2S 4S 6S 8S 2H 4H 6H 8H").split()]


def score_of(eng: RummyEngine) -> list:
    return snap(eng)["hand_scores"]


# ==================================================================================================== G1-G14
def test_G1_players_deck_values():
    with pytest.raises(ValueError, match=r"num_players=3 .*only 2 \(G1\)"):
        RummyRules.preset("gin", num_players=3)
    rules = RummyRules.preset("gin")
    values = rules.card_values
    assert (rules.deck_size, rules.num_card_types) == (52, 52)
    assert [values[cards.parse(n)] for n in ("AS", "2H", "9D", "10C", "JS", "QH", "KD")] == [1, 2, 9, 10, 10, 10, 10]


def test_G2_deal_and_upcard():
    eng = gin()
    eng.reset(decks=[DECK], dealers=[1])
    s = snap(eng)
    assert s["hands"][0] == ids("AS 3S 5S 7S 9S AH 3H 5H 7H 9H")
    assert s["hands"][1] == ids("2C 4C 6C 8C 10C 2D 4D 6D 8D 10D")
    assert s["discard"] == [cards.parse("KC")] and len(s["stock"]) == 31 and s["stock"][-1] == cards.parse("QS")
    assert (s["phase"], s["current"], s["dealer"]) == ("upcard", 0, 1)


def test_G3_first_upcard_to_both_players():
    eng = gin()
    eng.reset(decks=[DECK], dealers=[1])
    assert legal(eng) == {action(eng, "take"), action(eng, "pass")}
    step(eng, "pass")
    assert snap(eng)["current"] == 1 and legal(eng) == {action(eng, "take"), action(eng, "pass")}
    step(eng, "take")
    s = snap(eng)
    assert (s["phase"], s["current"], s["taken"]) == ("play", 1, cards.parse("KC")) and s["known"][1] == ids("KC")


def test_G4_ordinary_turn():
    eng = gin()
    load(eng, ["AS 3S 5S 7S 9S AH 3H 5H 7H 9H", "2C 4C 6C 8C 10C 2D 4D 6D 8D 10D"], discard="KC",
         stock_next="QS", phase="draw")
    assert legal(eng) == {DRAW_STOCK, DRAW_DISCARD}
    step(eng, "draw")
    assert snap(eng)["hands"][0] == ids("AS 3S 5S 7S 9S AH 3H 5H 7H 9H QS")
    assert discards(eng) == {cards.name(c) for c in ids("AS 3S 5S 7S 9S AH 3H 5H 7H 9H QS")}
    step(eng, "discard QS")
    s = snap(eng)
    assert (s["phase"], s["current"], s["discard"][-1]) == ("draw", 1, cards.parse("QS"))


def test_G5_deadwood_is_the_least_over_every_arrangement():
    """6♠7♠8♠9♠ 6♣7♣8♣ 8♦ A♥ A♦ K♣: the two runs leave 8♦ A♥ A♦ (10) after discarding K♣; laying 8♠8♣8♦
    first would leave 6♠ 7♠ 9♠ 6♣ 7♣ A♥ A♦ (37)."""
    eng = gin()
    load(eng, ["6S 7S 8S 9S 6C 7C 8C 8D AH AD KC", "2C 3C 4C 5C 2D 3D 4D 5D 10H JH"], discard="QC")
    assert allows(eng, "knock")
    step(eng, "knock")
    assert discards(eng) == {"KC"}
    step(eng, "discard KC")
    assert melds(eng) == {"6S 7S 8S 9S", "6C 7C 8C"}
    refused(eng, "meld 8C 8D 8S", "no arrangement of the hand with this meld leaves deadwood within 10")
    step(eng, "meld 6S 7S 8S 9S", "meld 6C 7C 8C", "pass")
    assert snap(eng)["phase"] == "layoff" and snap(eng)["known"][0] == ids("8D AH AD")


def test_G6_knock_discard_and_melds():
    eng = gin()
    hand = "AS 2S 3S 4S 4C 4D 9H 9C 9D 2H KC"
    load(eng, [hand, "5C 6C 7C 8C 5D 6D 7D 8D 10H JH"], discard="QC", taken=None)
    assert allows(eng, "knock")
    step(eng, "knock")
    assert snap(eng)["phase"] == "knock" and discards(eng) == {"KC", "2H"}
    refused(eng, "discard 9H", "the deadwood would be 30, above the knock card 10")
    step(eng, "discard KC")
    assert melds(eng) == {"AS 2S 3S", "4C 4D 4S", "9C 9D 9H", "AS 2S 3S 4S"}
    refused(eng, "pass", "the cards left count 47, above 10")
    step(eng, "meld AS 2S 3S", "meld 4C 4D 4S", "meld 9C 9D 9H", "pass")
    assert snap(eng)["known"][0] == ids("2H")          # the knocker's deadwood is laid face up
    tight = gin(knock_card=1)
    load(tight, [hand, "5C 6C 7C 8C 5D 6D 7D 8D 10H JH"], discard="QC")
    refused(tight, "knock", "the least deadwood after an allowed discard would be 2, above the knock card 1")


def test_G7_gin_and_big_gin():
    eng = gin()
    knock_defend(eng, "AS 2S 3S|4C 4D 4H|9H 9C 9D", "", "5S 6C 7C 8C 5D 6D 7D 8D 10H JH")
    assert snap(eng)["phase"] == "defend"                 # no lay-off on gin (EG3)
    step(eng, "meld 6C 7C 8C", "meld 5D 6D 7D 8D", "pass")
    assert score_of(eng) == [5 + 10 + 10 + 25, 0] and snap(eng)["end_reason"] == "gin"


def test_G8_defender_lays_off_then_melds():
    eng = gin()
    knock_defend(eng, "5S 6S 7S|9C 9D 9H", "2H 3D", "8S 9S 4S KC KD KH 2C 3C AH QD")
    assert layoffs(eng) == {"4S", "8S", "9S"}              # 9♠ is the set's fourth card
    step(eng, "layoff 8S")
    assert layoffs(eng) == {"4S", "9S"}
    step(eng, "layoff 9S", "layoff 4S", "pass")
    assert snap(eng)["phase"] == "defend" and "KC KD KH" in melds(eng)
    step(eng, "meld KC KD KH", "pass")
    s = snap(eng)
    assert s["hands"][1] == ids("2C 3C AH QD") and score_of(eng) == [16 - 5, 0]


def test_G9_scoring_knock_and_undercut():
    eng = gin()
    knock_defend(eng, "5S 6S 7S|9C 9D 9H", "2H 3D", "KC KD QH JD 2C 3C AH 10C 4D 5D")
    step(eng, "pass", "pass")
    assert score_of(eng) == [10 + 10 + 10 + 10 + 2 + 3 + 1 + 10 + 4 + 5 - 5, 0] and snap(eng)["end_reason"] == "knock"
    assert np.isclose(eng.state[0]["hand_scores"][0] / 100, 0.6)
    knock_defend(eng, "5S 6S 7S|9C 9D 9H", "2H 3D 4H", "KC KD KH QD QC QH JD JC JH AH")
    step(eng, "pass", "meld KC KD KH", "meld QC QD QH", "meld JC JD JH", "pass")
    assert score_of(eng) == [0, 9 - 1 + 25] and snap(eng)["end_reason"] == "undercut" and snap(eng)["winner"] == 1


def test_G10_wall_void_by_default():
    eng = gin()
    load(eng, ["AS 3S 5S 7S 9S AH 3H 5H 7H 9H", "2C 4C 6C 8C 10C 2D 4D 6D 8D 10D"], discard="KC",
         stock_next="QS 2H 4H", phase="draw", stock_size=3)
    step(eng, "draw", "discard QS")
    s = snap(eng)
    assert len(s["stock"]) == 2 and s["phase"] == "hand_over" and s["end_reason"] == "wall"
    assert score_of(eng) == [0, 0]


def test_G11_oklahoma_knock_card_is_the_upcard():
    eng = gin(oklahoma=True)
    eng.reset(decks=[deck_with_upcard(DECK, "7D")], dealers=[1])
    assert snap(eng)["gin"]["knock_limit"] == 7
    assert int(eng.observation_layout.split(eng.observe()[0])["knock_limit"][0]) == 7


def test_G12_game_to_100_with_bonuses():
    eng = gin(episode="game")
    knock_defend(eng, "5S 6S 7S|9C 9D 9H", "2H 3D", "KC 2C 3C AH 4D QH 4C 4S JD JH", boxes=[2, 0])
    eng.state[0]["totals"][:2] = (90, 0)
    step(eng, "pass")
    result = eng.step([action(eng, "pass")])
    s = snap(eng)                                          # the game is over: nothing more is dealt
    hand = 10 + 2 + 3 + 1 + 4 + 10 + 4 + 4 + 10 + 10 - 5
    final = (90 + hand + 25 * 3 + 100) * 2                 # boxes, game bonus, shutout
    assert s["phase"] == "game_over" and s["totals"] == [final, 0] and s["game_winners"] == [0]
    assert s["hand_scores"] == [final - 90, 0] and np.isclose(result.rewards[0, 0], (final - 90) / 100)


@pytest.mark.parametrize("rule, dealer", [("alternate", 0), ("winner", 0), ("loser", 1)])
def test_G12_next_dealer(rule, dealer):
    eng = gin(episode="game", next_dealer=rule)
    knock_defend(eng, "5S 6S 7S|9C 9D 9H", "2H 3D", "KC 2C 3C AH 4D QH 4C 4S JD JH")
    eng.state[0]["dealer"] = 1
    step(eng, "pass", "pass")
    s = snap(eng)                                          # seat 0 won; the next hand is dealt at once
    assert s["phase"] == "upcard" and s["dealer"] == dealer and s["hands_played"] == 1


def test_G12_max_hands_ends_the_game_without_bonus():
    eng = gin(episode="game", max_hands=1)
    knock_defend(eng, "5S 6S 7S|9C 9D 9H", "2H 3D", "KC 2C 3C AH 4D QH 4C 4S JD JH")
    step(eng, "pass", "pass")
    s = snap(eng)
    assert s["phase"] == "game_over" and s["totals"] == [53, 0] and s["game_winners"] == [0]


def test_G13_openspiel_preset():
    rules = RummyRules.preset("gin_openspiel")
    assert (rules.forbid_discarding_taken_card, rules.tie_is_undercut, rules.big_gin_bonus, rules.wall_rule,
            rules.first_dealer, rules.repeated_discard_void, rules.upcard_draw_limit, rules.knock_deadwood,
            rules.max_layoffs_per_run_end) == (False, False, 0, "openspiel", 1, True, 50, "openspiel_shortcut", 2)
    eng = gin("gin_openspiel")
    load(eng, ["AS 3S 5S 7S 9S AH 3H 5H 7H 9H", "2C 4C 6C 8C 10C 2D 4D 6D 8D 10D"], discard="KC", phase="draw",
         upcard_draws=48)
    step(eng, "take", "discard 9H")                       # the 49th draw of the upcard
    step(eng, "take")                                       # the 50th: the hand is void
    s = snap(eng)
    assert s["phase"] == "hand_over" and s["end_reason"] == "upcard_draw_limit" and s["hands"][1] == ids(
        "2C 4C 6C 8C 10C 2D 4D 6D 8D 10D")


def test_G14_rlcard_preset():
    rules = RummyRules.preset("gin_rlcard")
    assert (rules.opening, rules.forbid_discarding_taken_card, rules.gin_forced, rules.auto_melds, rules.layoffs,
            rules.wall_rule) == ("eleven_cards", True, True, True, False, "pickup_or_dead")
    eng = gin("gin_rlcard")
    eng.reset(decks=[DECK], dealers=[1])
    s = snap(eng)
    assert len(s["hands"][0]) == 11 and len(s["hands"][1]) == 10 and s["discard"] == [] and s["phase"] == "play"
    # gin is forced: only KNOCK, then only the gin discard; the engine lays both best arrangements and scores
    load(eng, ["AS 2S 3S 4S 4C 4D 4H 9H 9C 9D KC", "5C 6C 7C 8C 5D 6D 7D 8D 10H JH"], discard="QC", taken="9H")
    assert legal(eng) == {action(eng, "knock")}
    refused(eng, "discard 2S", "a discard can leave gin, and gin_forced allows only the gin knock")
    step(eng, "knock")
    assert discards(eng) == {"KC"}
    step(eng, "discard KC")
    s = snap(eng)
    assert s["phase"] == "hand_over" and s["end_reason"] == "gin" and len(s["table"]) == 5
    assert score_of(eng) == [10 + 10 + 25, 0]
    # two cards left in the stock: take the discard or declare the hand dead
    load(eng, ["AS 3S 5S 7S 9S AH 3H 5H 7H 9H", "2C 4C 6C 8C 10C 2D 4D 6D 8D 10D"], discard="KC", phase="draw",
         stock_size=2)
    assert legal(eng) == {DRAW_DISCARD, action(eng, "pass")}
    refused(eng, "draw", "two cards are left in the stock")
    step(eng, "pass")
    assert snap(eng)["end_reason"] == "wall"


# ==================================================================================================== EG1-EG12
def test_EG1_ace_is_low_only():
    eng = gin()
    load(eng, ["10C", "QS KS AS 2S 3S JH 4D 9C 8C 7C"], table=[(0, "5H 6H 7H"), (0, "JD QD KD")], phase="defend",
         current=1, knocker=0, knock_stage=1)
    assert "AS 2S 3S" in melds(eng) and not any("QS" in m and "AS" in m for m in melds(eng))
    with pytest.raises(ValueError):
        eng.layout.meld_entry(cards.parse_many("QS KS AS"))


@pytest.mark.parametrize("preset, defender", [("gin", [0, 25]), ("gin_openspiel", [0, 0])])
def test_EG2_tie_is_an_undercut_by_default(preset, defender):
    eng = gin(preset)
    knock_defend(eng, "5S 6S 7S|9C 9D 9H", "2H 3D", "KC KD KH QC QD QH JC JD JH 5D")
    step(eng, "pass", "meld KC KD KH", "meld QC QD QH", "meld JC JD JH", "pass")
    assert score_of(eng) == defender and snap(eng)["end_reason"] == ("undercut" if preset == "gin" else "knock")


def test_EG3_no_layoff_on_gin():
    eng = gin()
    knock_defend(eng, "5S 6S 7S|9C 9D 9H", "", "8S 9S 4S KC KD KH 2C 3C AH QD")
    assert snap(eng)["phase"] == "defend" and layoffs(eng) == set()
    refused(eng, "layoff 8S", "lay-offs come before the defender's melds, and none are allowed on gin")


@pytest.mark.parametrize("preset", ["gin", "gin_openspiel"])
def test_EG4_taken_card_and_repeated_discards(preset):
    eng = gin(preset)
    load(eng, ["AS 3S 5S 7S 9S AH 3H 5H 7H 9H", "2C 4C 6C 8C 10C 2D 4D 6D 8D 10D"], discard="KC", phase="draw")
    step(eng, "take")
    if preset == "gin":
        refused(eng, "discard KC", "was taken from the discard pile this turn")
        return
    step(eng, "discard KC", "take", "discard KC")          # both take the upcard and throw it back: void (G13)
    assert snap(eng)["end_reason"] == "repeated_discard"


def test_EG5_both_pass_then_the_non_dealer_draws():
    eng = gin()
    eng.reset(decks=[DECK], dealers=[1])
    step(eng, "pass", "pass")
    assert snap(eng)["current"] == 0 and legal(eng) == {DRAW_STOCK}
    refused(eng, "take", "both players passed the first upcard")
    step(eng, "draw")
    assert cards.parse("QS") in snap(eng)["hands"][0]


def test_EG6_wall_under_openspiel_knock_or_pass():
    eng = gin("gin_openspiel")
    load(eng, ["AS 2S 3S 4C 4D 4H 9H 9C 9D KC", "5C 6C 7C 8C 5D 6D 7D 8D 10H JH"], discard="QC",
         stock_next="3H 10S 10D", current=1, phase="draw", stock_size=3)
    step(eng, "draw", "discard 3H")                         # leaves 2 cards: seat 0 is at the wall
    s = snap(eng)
    assert s["phase"] == "wall" and s["current"] == 0 and legal(eng) == {action(eng, "pass"), action(eng, "knock")}
    step(eng, "knock")
    assert snap(eng)["hands"][0] == ids("AS 2S 3S 4C 4D 4H 9H 9C 9D KC 3H") and snap(eng)["phase"] == "knock"
    load(eng, ["AS 5S 7S 4C 6D 8H 10H QC KD KC", "5C 6C 7C 8C 5D 7D 8D 10D JH JD"], discard="QS", phase="wall")
    assert legal(eng) == {action(eng, "pass")}
    step(eng, "pass")
    assert snap(eng)["end_reason"] == "wall" and score_of(eng) == [0, 0]


@pytest.mark.parametrize("preset, laid", [("gin", {"8S", "9S", "10S"}), ("gin_openspiel", {"8S", "9S"})])
def test_EG7_layoffs_in_turn_and_openspiels_two_per_end(preset, laid):
    eng = gin(preset)
    knock_defend(eng, "5S 6S 7S|2C 2D 2H", "3D 4D", "8S 9S 10S KC KD QH JD JC AH AD")
    done = set()
    while True:
        offered = layoffs(eng)
        if not offered:
            break
        card = sorted(offered, key=lambda name: cards.rank_of(cards.parse(name)))[0]
        step(eng, f"layoff {card}")
        done.add(card)
    assert done == laid


@pytest.mark.parametrize("preset", ["gin", "gin_openspiel"])
def test_EG8_big_gin(preset):
    eng = gin(preset)
    load(eng, ["AS 2S 3S 4S 5S 7C 7D 7H 9D 10D JD", "5C 6C 8C 9C 5D 6D 8D 10H QH KH"], discard="QC")
    step(eng, "knock")
    if preset == "gin_openspiel":
        refused(eng, "knock", "big gin needs all 11 cards in melds")
        return
    step(eng, "knock", "meld AS 2S 3S 4S 5S", "meld 7C 7D 7H", "meld 9D 10D JD", "pass", "pass")
    assert snap(eng)["end_reason"] == "big_gin"
    assert score_of(eng) == [5 + 6 + 8 + 9 + 5 + 6 + 8 + 10 + 10 + 10 + 31, 0]


@pytest.mark.parametrize("preset, knock", [("gin", True), ("gin_openspiel", False)])
def test_EG9_openspiel_shortcut_refuses_a_legal_knock(preset, knock):
    eng = gin(preset, forbid_discarding_taken_card=False)
    load(eng, ["3S 4S 5S 6S 2C 3C 6C 5D 4H 5H 6H", "AC 7C 8C 9C AD 7D 8D 9D AH 7H"], discard="KC")
    assert allows(eng, "knock") == knock
    if not knock:
        refused(eng, "knock", "OpenSpiel's 11-card deadwood")


def test_EG10_oklahoma_ace_upcard_means_gin_only():
    eng = gin(oklahoma=True)
    eng.reset(decks=[deck_with_upcard(DECK, "AC")], dealers=[1])
    assert snap(eng)["gin"]["knock_limit"] == 0
    other = "5C 6C 7C 8C 5D 6D 7D 8H 10H JH"
    load(eng, ["AS 2S 3S 4C 4D 4H 9H 9C 9D 2H KC", other], discard="QC", knock_limit=0)
    refused(eng, "knock", "would be 2, above the knock card 0")
    load(eng, ["AS 2S 3S 4C 4D 4H 8D 9D 10D JD KC", other], discard="QC", knock_limit=0)
    assert allows(eng, "knock")                             # gin
    load(eng, ["AS 2S 3S 4C 4D 4H 9H 9C 9D 2H KC", other], discard="QC", knock_limit=10)
    assert allows(eng, "knock")


def test_EG11_fourth_card_onto_a_set():
    eng = gin()
    knock_defend(eng, "5S 6S 7S|9C 9D 9H", "2H 3D", "9S KC KD QH JD 2C 3C AH 10C 4D")
    assert layoffs(eng) == {"9S"}
    step(eng, "layoff 9S")
    s = snap(eng)
    assert sorted(s["table"][1]["cards"]) == ids("9C 9D 9H 9S") and layoffs(eng) == set()


def test_EG12_knocker_lays_another_arrangement_within_the_knock_card():
    eng = gin()
    load(eng, ["AS 2S 3S 4S 4C 4D 9H 9C 9D 2H", "5C 6C 7C 8C 5D 6D 7D 8D 10H JH"], discard="KC", phase="knock",
         knocker=0, knock_stage=1)
    step(eng, "meld AS 2S 3S 4S")                          # not the best arrangement (which leaves 2)
    assert melds(eng) == {"9C 9D 9H"} and not allows(eng, "pass")
    step(eng, "meld 9C 9D 9H", "pass", "pass", "pass")
    s = snap(eng)
    assert s["hands"][0] == ids("4C 4D 2H") and score_of(eng) == [5 + 6 + 7 + 8 + 5 + 6 + 7 + 8 + 10 + 10 - 10, 0]


def test_rules_files_and_round_trips():
    """configs/rules/gin*.toml load; to_dict/from_dict give the same rules back for every gin preset."""
    from pathlib import Path

    folder = Path(__file__).resolve().parents[1] / "configs" / "rules"
    assert RummyRules.from_toml(folder / "gin.toml") == RummyRules.preset("gin")
    game = RummyRules.from_toml(folder / "gin_game_to_100.toml")
    assert (game.episode, game.oklahoma, game.next_dealer, game.target_score) == ("game", True, "loser", 100)
    for preset in ("gin", "gin_openspiel", "gin_rlcard"):
        rules = RummyRules.preset(preset)
        assert RummyRules.from_dict(rules.to_dict()) == rules and rules.replace() == rules
    with pytest.raises(ValueError, match="knock_card=11 .*0..10 \\(G6\\)"):
        RummyRules.preset("gin", knock_card=11)
    with pytest.raises(ValueError, match="auto_melds=True .*G14"):
        RummyRules.preset("gin", auto_melds=True)
    with pytest.raises(ValueError, match="opening_threshold=71 cannot be set for ruleset 'gin'"):
        RummyRules.preset("gin", opening_threshold=71)
    with pytest.raises(ValueError, match="knock_card=5 cannot be set for ruleset 'basic'"):
        RummyRules.preset("basic", knock_card=5)
