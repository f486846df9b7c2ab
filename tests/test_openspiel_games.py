"""The rule families as OpenSpiel games (``rummy_env.openspiel``): OpenSpiel's own conformance test, the game
being the engine dealt the deck its chance nodes chose, cards kept through rebuilds, information states that
resampling keeps, parameters, serialization, and OpenSpiel's ISMCTS bot in the arena."""

from __future__ import annotations

import json
import pickle

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel", reason="the OpenSpiel games need open_spiel: pip install 'rummy_env[openspiel]'")

import rummy_env.openspiel as rs  # noqa: E402  (registers the games)
from rummy_env import RummyEngine, RummyRules  # noqa: E402
from rummy_env.beliefs import deck_counts  # noqa: E402

CHANCE = pyspiel.PlayerId.CHANCE


def play_randomly(state, rng, until=lambda state: False, on_node=lambda state: None):
    """Play ``state`` with uniform legal actions and chance by its probabilities, calling ``on_node`` at every
    node, until the end or ``until(state)``."""
    while not state.is_terminal() and not until(state):
        on_node(state)
        if state.is_chance_node():
            outcomes, probabilities = zip(*state.chance_outcomes())
            state.apply_action(int(rng.choice(outcomes, p=probabilities)))
        else:
            state.apply_action(int(rng.choice(state.legal_actions())))
    on_node(state)
    return state


def table_counts(record, types: int) -> np.ndarray:
    return record["table_by_seat"][0].sum(axis=0)[:types].astype(np.int64)


def conserved(state, game) -> bool:
    """Every card of the deck is in exactly one place: a hand, the pile, the stock or the table."""
    record, types = state.record, game.rules.num_card_types
    if not record["hand_n"][0].any():
        return True
    hands = record["hand"][0, :game.rules.num_players, :types].sum(axis=0).astype(np.int64)
    pile = np.bincount(record["pile"][0, :record["pile_n"][0]], minlength=types)
    stock = np.bincount(record["stock"][0, :record["stock_n"][0]], minlength=types)
    return np.array_equal(hands + pile + stock + table_counts(record, types), deck_counts(game.rules))


GAMES = [("basic", 2, {}), ("basic", 6, {}), ("rami51", 2, {}), ("rami51", 5, {}), ("rami51", 3, {"dead_ends": "prevent"}),
         ("lebanese14", 4, {}), ("gin", 2, {}), ("gin_openspiel", 2, {"oklahoma": True}), ("gin_rlcard", 2, {})]


@pytest.mark.parametrize("preset,players,knobs", GAMES, ids=[f"{p}-{n}p{'-' + '-'.join(k) if k else ''}" for p, n, k in GAMES])
def test_every_family_passes_openspiels_random_simulation_test(preset, players, knobs):
    """OpenSpiel's own checks (``pyspiel.random_sim_test``): legal actions, chance probabilities, clones,
    serialization, observation and information-state tensors and strings, returns, at every step."""
    game = pyspiel.load_game(f"rummy_{preset}", {"players": players, "max_turns_per_round": 60, **knobs})
    pyspiel.random_sim_test(game, num_sims=2, serialize=True, verbose=False)


@pytest.mark.parametrize("preset,players", [("basic", 3), ("rami51", 2), ("rami51", 4), ("gin", 2)])
def test_a_game_is_the_engine_dealt_the_deck_its_chance_nodes_chose(preset, players):
    """Up to the first rebuild of the stock, the OpenSpiel game is the engine dealing the deck made of the
    cards its chance nodes chose, in that order: every position equal but for the unseen stock's order."""
    game = pyspiel.load_game(f"rummy_{preset}", {"players": players, "first_dealer": 0})
    rng = np.random.default_rng(players)
    for _ in range(3):
        chosen, actions, records = [], [], []

        def note(state):
            if not state.is_chance_node() and not state.is_terminal():
                records.append(state.record.copy())

        state = game.new_initial_state()
        while not state.is_terminal() and not state.record["reshuffles"][0] and state._node != rs.state.REDRAW:
            note(state)
            if state.is_chance_node():
                outcomes, probabilities = zip(*state.chance_outcomes())
                chosen.append(int(rng.choice(outcomes, p=probabilities)))
                state.apply_action(chosen[-1])
            else:
                actions.append(int(rng.choice(state.legal_actions())))
                state.apply_action(actions[-1])
        rest = deck_counts(game.rules) - np.bincount(chosen, minlength=game.rules.num_card_types)
        engine = RummyEngine(game.rules, batch_size=1)
        engine.reset(decks=[chosen + np.repeat(np.arange(len(rest)), rest).tolist()], dealers=[0])
        for record, action in zip(records, actions):
            for field in record.dtype.names:
                if field not in ("stock", "pile", "rng"):  # the arrays' stale tails and the unused generator
                    assert np.array_equal(engine.state[field], record[field]), field
            n, top = int(record["stock_n"][0]), int(record["pile_n"][0])
            assert sorted(engine.state["stock"][0, :n]) == sorted(record["stock"][0, :n])
            assert np.array_equal(engine.state["pile"][0, :top], record["pile"][0, :top])
            engine.step([action])


@pytest.mark.parametrize("knobs", [{}, {"card_announcement": "manual"}, {"dead_ends": "prevent"}])
def test_cards_are_kept_and_every_draw_is_chosen_by_chance_through_rebuilds(knobs):
    """Five players with 15 cards leave a short stock: it is rebuilt often, penalty draws (R7, R25) meet an
    empty stock. Cards are conserved at every node; the cards drawn after a rebuild inside one action are
    chosen by chance nodes too (``REDRAW``), from the rebuilt stock."""
    game = pyspiel.load_game("rummy_rami51", {"players": 5, "hand_size": 15, "max_turns_per_round": 150,
                                              "knobs": json.dumps(knobs)})
    rng = np.random.default_rng(1)
    seen = {"rebuilt": 0, "redraw": 0}

    def check(state):
        assert conserved(state, game)
        seen["redraw"] += int(state.is_chance_node() and state._node == rs.state.REDRAW)
        seen["rebuilt"] = max(seen["rebuilt"], int(state.record["reshuffles"][0]))
        if state.is_chance_node():
            assert abs(sum(p for _, p in state.chance_outcomes()) - 1.0) < 1e-12

    for _ in range(4):
        play_randomly(game.new_initial_state(), rng, on_node=check)
    assert seen["rebuilt"] > 0
    if knobs.get("dead_ends") != "prevent":  # take-backs meet an empty stock (7 times in these games)
        assert seen["redraw"] > 0


def test_a_take_back_after_a_rebuild_redraws_by_chance():
    """R25 with one card in the stock: the take-back draws it, the stock is rebuilt from the pile and the
    penalty cards come from the rebuilt stock, each chosen by a chance node over its cards."""
    game = pyspiel.load_game("rummy_rami51", {"players": 5, "hand_size": 15, "max_turns_per_round": 400})
    rng = np.random.default_rng(7)
    found = 0
    for _ in range(40):
        state = game.new_initial_state()
        play_randomly(state, rng, until=lambda s: s.is_chance_node() and s._node == rs.state.REDRAW)
        if state.is_terminal():
            continue
        found += 1
        pool = dict(state.chance_outcomes())
        seat = int(state.record["current"][0])
        while state.is_chance_node():
            outcomes = dict(state.chance_outcomes())
            assert set(outcomes) <= set(pool)
            state.apply_action(min(outcomes))
        assert conserved(state, game)
        drawn = [line.split()[1] for line in state.information_state_string(seat).splitlines()[-4:]
                 if line.startswith("drew ")]
        assert drawn
        if found == 3:
            break
    assert found, "no take-back met an empty stock in 40 games"


@pytest.mark.parametrize("preset,players", [("basic", 3), ("rami51", 3), ("gin", 2)])
def test_a_resampled_state_is_the_same_to_the_seat_that_asked(preset, players):
    """``resample_from_infostate``: the seat's information state, observation tensor and legal actions are
    unchanged; the other hands' unseen cards vary."""
    game = pyspiel.load_game(f"rummy_{preset}", {"players": players, "max_turns_per_round": 40})
    rng = np.random.default_rng(3)
    varied = 0
    for _ in range(6):
        state = game.new_initial_state()
        play_randomly(state, rng, until=lambda s: not s.is_chance_node() and len(s.history()) > 60 + rng.integers(40))
        if state.is_terminal():
            continue
        seat = state.current_player()
        for k in range(4):
            world = state.resample_from_infostate(seat, np.random.default_rng(k).random)
            assert world.information_state_string(seat) == state.information_state_string(seat)
            assert world.observation_tensor(seat) == state.observation_tensor(seat)
            assert world.legal_actions() == state.legal_actions()
            others = [q for q in range(players) if q != seat]
            varied += int(not np.array_equal(world.record["hand"][0, others], state.record["hand"][0, others]))
            assert world.history() == []  # nothing of the real deal
            with pytest.raises(ValueError, match="position"):
                pickle.dumps(world)
            play_randomly(world, rng)  # a world plays on to the end
    assert varied > 0


def test_the_information_state_holds_only_what_the_seat_saw():
    """Seat 0's information state names its own dealt and drawn cards and every public move, never a card
    dealt or drawn to another seat."""
    game = pyspiel.load_game("rummy_basic", {"players": 2, "first_dealer": 1})
    state = play_randomly(game.new_initial_state(), np.random.default_rng(5),
                          until=lambda s: len(s.history()) > 80)
    mine = state.information_state_string(0)
    theirs = state.information_state_string(1)
    dealt_to_1 = [line for line in theirs.splitlines() if line.startswith(("dealt", "drew", "hand"))]
    assert dealt_to_1 and not set(dealt_to_1) & set(mine.splitlines())
    assert "upcard" in mine and "upcard" in theirs


@pytest.mark.prevent
def test_parameters_are_the_knobs():
    game = pyspiel.load_game("rummy_rami51", {"players": 4, "dead_ends": "prevent",
                                              "knobs": json.dumps({"max_reshuffles": 3})})
    assert game.rules == RummyRules.preset("rami51", num_players=4, dead_ends="prevent", max_reshuffles=3)
    assert game.num_players() == 4 and game.num_distinct_actions() == game.engine.num_actions
    basic = pyspiel.load_game("rummy_basic", {"players": 4})
    assert basic.rules.hand_size == 7  # follows the player count (B4)
    rules = RummyRules.preset("basic", num_players=3, ace_high_or_low=True, hand_size_by_players=((3, 9),))
    assert rs.game_for_rules(rules).rules == rules


@pytest.mark.parametrize("params,words", [
    ({"knobs": json.dumps({"episode": "game"})}, "one hand"),
    ({"knobs": "{not json"}, "JSON"),
    ({"knobs": json.dumps({"num_players": 3})}, "'players'"),
    ({"dead_ends": "prevent", "knobs": json.dumps({"dead_ends": "take_back"})}, "both"),
    ({"players": 7}, "players"),
    ({"first_dealer": -2}, "first_dealer"),
    ({"opening_threshold": -5}, "opening_threshold"),
])
def test_bad_parameters_say_what_is_wrong(params, words):
    with pytest.raises(Exception, match=words):
        pyspiel.load_game("rummy_rami51", params)


@pytest.mark.parametrize("make", [
    lambda: pyspiel.load_game("rummy_rami51", {"players": 3, "max_turns_per_round": 80}),
    lambda: rs.game_for_rules(RummyRules.preset("lebanese14", num_players=3, first_dealer=1, max_turns_per_round=80,
                                                max_reshuffles=2)),
    lambda: rs.game_for_rules(RummyRules.preset("basic", num_players=3, hand_size_by_players=((3, 9),))),
], ids=["rami51", "lebanese14-knobs", "basic-table-knob"])
def test_a_state_survives_serialization_and_pickling(make):
    """States replay from their history, and games with knobs (those in ``knobs`` included) rebuild from their
    string: the same position, the same information states, byte for byte the same record."""
    game = make()
    state = play_randomly(game.new_initial_state(), np.random.default_rng(2), until=lambda s: len(s.history()) > 300)
    again = game.deserialize_state(state.serialize())
    assert str(again) == str(state) and again.information_state_string(1) == state.information_state_string(1)
    assert again.record.tobytes() == state.record.tobytes()
    game2, state2 = pyspiel.deserialize_game_and_state(pyspiel.serialize_game_and_state(game, state))
    assert game2.rules == game.rules and str(state2) == str(state)
    unpickled = pickle.loads(pickle.dumps(state))
    assert str(unpickled) == str(state) and unpickled.get_game().rules == game.rules


def test_openspiels_ismcts_plays_in_the_arena():
    """OpenSpiel's ISMCTS bot, searching the OpenSpiel game, plays legal moves of whole hands in the arena."""
    from rummy_env.agents.registry import make_agent
    from rummy_env.training.arena import play_match

    rules = RummyRules.preset("basic", num_players=2)
    agent = make_agent("openspiel_ismcts:simulations=20", rules)
    result = play_match(rules, [agent, make_agent("heuristic", rules)], ["openspiel_ismcts", "heuristic"], games=2,
                        seed=0)
    assert result.games == 2 and result.decisions[0] > 0


@pytest.mark.parametrize("agent", ["heuristic", "random", "ppo:gin_2p", "pimc:worlds=4,blueprint=lookahead"])
def test_our_agents_play_openspiels_own_gin_rummy_as_bots(agent):
    """``AgentBot``: our agent, as a ``pyspiel.Bot``, plays OpenSpiel's ``gin_rummy`` against OpenSpiel's simple bot,
    every action legal there; at each of its decisions our mirror of the position offers OpenSpiel's legal set."""
    from rummy_env.agents.openspiel_gin_bot import AgentBot

    game = pyspiel.load_game("gin_rummy")
    rng = np.random.default_rng(4)
    decisions = 0
    for hand in range(4):
        seat = hand % 2
        bots = {seat: AgentBot(agent, seed=hand),
                1 - seat: pyspiel.make_simple_gin_rummy_bot(game.get_parameters(), 1 - seat)}
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes, probabilities = zip(*state.chance_outcomes())
                state.apply_action(int(rng.choice(outcomes, p=probabilities)))
                continue
            decisions += state.current_player() == seat
            state.apply_action_with_legality_check(bots[state.current_player()].step(state))
    assert decisions > 20


def test_lock_step_match_mirrors_each_deal_and_counts_every_hand(tmp_path, capsys):
    """``training.openspiel_match``: each deck order is played twice on OpenSpiel's ``gin_rummy``, our agent in seat
    0, then seat 1, OpenSpiel's chance nodes answered from the deck; the counts add up, and ``--out`` never replaces
    a file."""
    from rummy_env.training import openspiel_match as om

    game = pyspiel.load_game("gin_rummy")
    deck = np.random.default_rng(3).permutation(52)
    for seat in (0, 1):
        returns, decisions, seconds = om.play_hand(game, om.AgentBot("heuristic", seed=0), seat, deck)
        assert decisions > 0 and seconds >= 0 and returns.sum() == 0  # gin_rummy is zero-sum
    result = om.match("heuristic", deals=3, seed=1)
    summary = result.summary()
    assert summary["hands"] == 6 == summary["wins"] + summary["draws"] + summary["losses"]
    assert summary["win_rate_ci95"][0] <= summary["win_rate"] <= summary["win_rate_ci95"][1]
    out = tmp_path / "match.json"
    assert om.main(["--agent", "random", "--deals", "1", "--quiet", "--out", str(out)]) == 0
    assert json.loads(out.read_text())["hands"] == 2 and "| random | 2 |" in capsys.readouterr().out
    with pytest.raises(SystemExit):
        om.main(["--agent", "random", "--deals", "1", "--out", str(out)])
    with pytest.raises(SystemExit):
        om.main(["--agent", "random", "--deals", "1", "--torch-threads", "0"])
    with pytest.raises(ValueError, match="deals must be at least 1"):
        om.match("random", deals=0)
