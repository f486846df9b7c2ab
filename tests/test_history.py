"""The hand's public history (``RummyEngine.public_history``, ``rummy_env.observations.HISTORY_KINDS``, and each
seat's last discard): counted as an independent tally of the actions says, the same for every observer up to
the seat rotation, zeroed at a deal, kept by snapshot/load."""

from __future__ import annotations

import numpy as np
import pytest

from rummy_env import RummyEngine, RummyRules
from rummy_env.actions import DRAW_DISCARD, DRAW_STOCK
from rummy_env.engine.state import PHASE_UPCARD
from rummy_env.observations import H_DISCARDED, H_LAID, H_PASSED, H_RETURNED, H_TOOK, H_TOOK_BACK, HISTORY_KINDS

CONFIGS = [("basic", 2, 300), ("basic", 4, 300), ("rami51", 2, 120), ("rami51", 3, 80), ("gin", 2, 300)]


def biased_action(engine: RummyEngine, rng: np.random.Generator) -> np.ndarray:
    """A random legal action per row, taking the discard top and playing on the table often."""
    masks = engine.legal_action_mask()
    actions = np.zeros(engine.batch_size, dtype=np.int64)
    for row, mask in enumerate(masks):
        legal = np.flatnonzero(mask)
        if legal.size == 0:
            continue
        plays = legal[(legal > DRAW_DISCARD) & (legal < engine.layout.discard_offset)]
        if mask[DRAW_DISCARD] and rng.random() < 0.6:
            actions[row] = DRAW_DISCARD
        elif plays.size and rng.random() < 0.6:
            actions[row] = rng.choice(plays)
        else:
            actions[row] = rng.choice(legal)
    return actions


@pytest.mark.parametrize("ruleset, players, steps", CONFIGS)
def test_history_is_the_tally_of_the_actions(ruleset, players, steps):
    rules = RummyRules.preset(ruleset, num_players=players)
    engine = RummyEngine(rules, 6, parallel=False)
    engine.reset(seed=players)
    rng = np.random.default_rng(players)
    types = rules.num_card_types
    tally = np.zeros((6, players, len(HISTORY_KINDS), types), dtype=np.int64)
    last = np.full((6, players), -1)
    checked = 0
    for _ in range(steps):
        live = ~engine.done
        before, kept = engine.state.copy(), engine.undo_copies.copy()
        actions = biased_action(engine, rng)
        engine.step(actions, rows=live)
        for row in np.flatnonzero(live):
            r, after = before[row], engine.state[row]
            seat = int(r["current"])
            kind = engine.layout.decode(int(actions[row]))[0]
            top = int(r["pile"][r["pile_n"] - 1]) if r["pile_n"] > 0 else -1
            if kind == "draw_stock" or kind == "pass" and r["phase"] == PHASE_UPCARD:  # gin's upcard passed (G3)
                if top >= 0:
                    tally[row, seat, H_PASSED, top] += 1
            elif kind == "draw_discard":
                tally[row, seat, H_TOOK, top] += 1
            elif kind == "discard":
                tally[row, seat, H_DISCARDED, engine.layout.decode(int(actions[row]))[1]] += 1
                last[row, seat] = engine.layout.decode(int(actions[row]))[1]
            elif kind == "take_back":  # R25: the turn's plays back (seen), the pile card returned; draws hidden
                restored = kept[row] if r["played_turn"] else r
                change = restored["hand"][seat, :types].astype(np.int64) - r["hand"][seat, :types]
                tally[row, seat, H_LAID] += np.maximum(-change, 0)
                tally[row, seat, H_TOOK_BACK] += np.maximum(change, 0)
                if r["taken"] >= 0:
                    tally[row, seat, H_RETURNED, r["taken"]] += 1
            elif kind != "commit":
                change = after["hand"][seat, :types].astype(np.int64) - r["hand"][seat, :types]
                tally[row, seat, H_LAID] += np.maximum(-change, 0)
                came_in = H_TOOK if after["pile_n"] < r["pile_n"] else H_TOOK_BACK  # gin's knock with the upcard
                tally[row, seat, came_in] += np.maximum(change, 0)
            if after["hands_played"] > r["hands_played"] or engine.done[row]:
                continue
            np.testing.assert_array_equal(after["history"][:players], np.minimum(tally[row], 127))
            np.testing.assert_array_equal(after["last_discard"][:players], last[row])
            checked += 1
        ended = engine.done.copy()
        tally[ended] = 0
        last[ended] = -1
        engine.reset(rows=ended)
        np.testing.assert_array_equal(engine.state["history"][ended], 0)  # a new deal starts a new history
    assert checked > 300
    laid = engine.state["history"][:, :players, H_LAID].astype(np.int64)
    back = engine.state["history"][:, :players, H_TOOK_BACK].astype(np.int64)
    on_table = engine.state["table_by_seat"][:, :players].astype(np.int64)
    np.testing.assert_array_equal((laid - back).sum(axis=1), on_table.sum(axis=1))  # the table is what was laid


@pytest.mark.parametrize("ruleset, players", [("basic", 3), ("rami51", 2)])
def test_public_history_is_relative_to_the_observer_and_survives_snapshot_load(ruleset, players):
    rules = RummyRules.preset(ruleset, num_players=players)
    engine = RummyEngine(rules, 4, parallel=False)
    engine.reset(seed=1)
    rng = np.random.default_rng(1)
    for _ in range(40):
        engine.step(biased_action(engine, rng), rows=~engine.done)
    assert engine.state["history"].any()
    for observer in range(players):
        seen = engine.public_history(np.full(4, observer))
        assert seen.shape == (4, players, len(HISTORY_KINDS), rules.num_card_types)
        for relative in range(players):
            np.testing.assert_array_equal(seen[:, relative], engine.state["history"][:, (observer + relative) % players])
    position = engine.snapshot(0)
    assert set(position["history"]) == set(HISTORY_KINDS) | {"last_discard"}
    engine.load(1, position)
    np.testing.assert_array_equal(engine.state["history"][1], engine.state["history"][0])
    with pytest.raises(ValueError, match="history"):
        engine.load(1, dict(position, history={"peeked": [[]] * players}))
    with pytest.raises(ValueError, match="history.took"):
        engine.load(1, dict(position, history={"took": [[]]}))


def test_stock_draws_are_not_in_the_history():
    rules = RummyRules.preset("basic", num_players=2)
    engine = RummyEngine(rules, 1, parallel=False)
    engine.reset(seed=0)
    top = int(engine.state[0]["pile"][0])
    engine.step([DRAW_STOCK])
    history = engine.public_history(np.array([0]))[0, 0]
    assert history[H_PASSED, top] == 1 and history.sum() == 1  # declined the top; the drawn card is hidden
