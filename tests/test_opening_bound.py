"""The rami51 search's exactness aids (R11.5, R13, R23; ``dead_ends = "prevent"``, R25): the opening bound agrees with the search, a position met
twice on one search path (a cycle) no longer makes a search give up, and the prune's count of what each table meld
can give (``prune.takes_fit``) proves dead ends without hiding a legal play."""

import json
from pathlib import Path

import numba as nb
import numpy as np
import pytest

import rummy_env
from rummy_env.engine import reasons as why
from rummy_env.engine.common import decode
from rummy_env.engine.rami51.moves import apply_play
from rummy_env.engine.rami51.search import (
    DEAD, FINISHED, WITNESS_ROW, begin_row_check, explore, node_status, search_buffers, worker_buffers,
)
from rummy_env.engine.rami51.witness import COMMITTED, MAYBE, NO, YES, opening_verdict
from rummy_env.engine.state import PHASE_PLAY
from rummy_env.sampling import uniform_legal_actions
from scenario_rami import COMMIT, discard, lay_off, load, meld, rami, step, take

pytestmark = pytest.mark.prevent  # the look-ahead search of dead_ends = "prevent" throughout

POSITIONS = Path(__file__).parent / "positions"


def test_R23_cycle_is_no_give_up():
    """A TAKE whose every continuation is a dead end, with TAKE-and-lay-back cycles on the way: 4 players, the
    player to act has not opened, has used his undo and holds the discard he took. Before, a position met again
    on the search path counted as cut short, so the last deepening pass could not prove the dead end and the
    search gave up (the play was masked out unproven); now the pass proves it."""
    position = json.loads((POSITIONS / "rami51_4p_take_cycle.json").read_text())
    engine = rummy_env.RummyEngine(rummy_env.RummyRules.preset("rami51", num_players=4, dead_ends="prevent"), 1)
    engine.load(0, position)
    assert engine.legal_reason(0, 2286) == why.DEAD_END
    engine.legal_action_mask()
    assert engine.search_stats()["gave_up"] == 0


def _captured_5p(name: str, action: int, text: str) -> rummy_env.RummyEngine:
    """A one-row 5-player rami51 engine holding the captured position ``tests/positions/NAME``, whose ``action``
    reads ``text``."""
    engine = rummy_env.RummyEngine(rummy_env.RummyRules.preset("rami51", num_players=5, dead_ends="prevent"), 1)
    engine.load(0, json.loads((POSITIONS / name).read_text()))
    assert engine.action_to_str(action) == text
    return engine


def test_R23_plan_with_one_taken_card_held_settles_a_long_search():
    """5 players; the player to act has not opened, has used his undo and holds A♠ from the discard pile. TAKE 10♦
    from 10♣ 10♦ 10♥ 🃏 can still be finished: take 10♠, meld 10♦ 10♠ 🃏 (10 points), take 5♦, meld 5♣ 5♥ 5♦ (10),
    meld Q♠ K♠ A♠ (31), commit 51 and discard. The search did not find it in 8,388,608 plays, and the opening DP
    overflowed its table on the 23 cards TAKEs could bring, so the play was masked out (a give-up). The DP asked
    again for plans that hold at most one taken card beyond 10♦ at a time (``witness.opening_verdict(narrow=True)``)
    lays it."""
    engine = _captured_5p("rami51_5p_two_takes_plan.json", 2292, "take choice 1 from slot 4")
    assert engine.legal_reason(0, 2292) == why.LEGAL
    stats = engine.search_stats()
    assert stats["gave_up"] == 0 and stats["bounds_settled"] == 1


def test_R13_taken_card_whose_meld_needs_the_one_joker_twice_is_a_dead_end():
    """5 players; the player to act has not opened, has used his undo, holds Q♥ from the discard pile and one
    joker, and no 9. TAKE 9♥ from 9♣ 9♦ 9♥ 9♠ leaves a set of three that gives another 9 only once the joker is
    laid on it, and then no joker is left for 9♥'s new meld (9♥ 9♣ 🃏); a meld of three 9s needs two cards from
    that set. The other 9♣ sits inside a 3-card run that cannot give it. The search exhausted 8,421,410 plays and
    gave up (proving it took 13.6M plays); ``prune.takes_fit`` counts what each meld can give and proves the dead
    end at once."""
    engine = _captured_5p("rami51_5p_take_needs_joker_twice.json", 2308, "take choice 2 from slot 7")
    assert engine.legal_reason(0, 2308) == why.DEAD_END
    stats = engine.search_stats()
    assert stats["gave_up"] == 0 and stats["plays_tried"] < 100_000


def test_R13_own_copy_of_the_taken_card_may_grow_the_meld_that_gives_the_third():
    """An opened player holds 9♦ and 9♥; on the table are 9♣ 9♥ 9♠ and 9♦ 10♦ J♦ Q♦. TAKE 9♦ can be finished:
    lay the own 9♦ off on the set, take 9♣, meld 9♦ 9♣ 9♥ (the MELD lays the pending 9♦), discard. The
    counting bound (``prune.takes_fit``) must not spend the own 9♦ on the new meld."""
    eng = rami(2)
    load(eng, ["9D 9H 2C 5H", "2H 3H 4H"], table=[(1, "9C 9H 9S"), (1, "9D 10D JD QD")], discard="4C",
         opened=[True, True])
    step(eng, take(eng, 1, "9D"))
    step(eng, lay_off(eng, 0, "9D"))
    step(eng, take(eng, 0, "9C"))
    step(eng, meld(eng, "9D 9C 9H"))
    step(eng, discard(eng, "2C"))
    assert eng.search_stats()["gave_up"] == 0


def test_R11_5_opening_bound_lets_an_own_card_be_swapped_for_a_taken_copy():
    """A player who has not opened and has used his undo holds K♣ from the discard pile, his own K♠ and 9♥ 10♥
    J♥ Q♥; on the table are K♣ K♦ K♥ and 10♠ J♠ Q♠ K♠. After MELD 9♥ 10♥ J♥ the opening exists: lay off Q♥,
    lay the own K♠ off on the set, take K♦, take the other K♠, meld K♦ K♠ K♣ (59 points), commit, discard. The
    bound's counting (``prune.takes_fit``, for the cards a TAKE may bring) must not keep K♠ for the new meld,
    which lays the taken copy instead."""
    eng = rami(2)
    load(eng, ["KS 9H 10H JH QH 2D 3D KC", "2S 3S 4S"], table=[(1, "KC KD KH"), (1, "10S JS QS KS")],
         discard="4C", opened=[False, True], taken="KC", undos=1)
    first = meld(eng, "9H 10H JH")
    verdict, found = _verdict_after(eng, first)
    assert found == FINISHED
    assert verdict in (YES, COMMITTED)
    step(eng, first)
    step(eng, lay_off(eng, 2, "QH"))
    step(eng, lay_off(eng, 0, "KS"))
    step(eng, take(eng, 0, "KD"))
    step(eng, take(eng, 1, "KS"))
    step(eng, meld(eng, "KD KS KC"))
    step(eng, COMMIT)
    step(eng, discard(eng, "2D"))


@nb.njit
def _compare(state, rows, actions, one, work, catalogue, catalogue_bits, cfgs, budget, out):
    """For each (row, play): the opening bound's verdict and the search's answer from the child position
    (laid in ``one``, a record array of its own)."""
    for k in range(rows.size):
        cfg = cfgs[0]
        one[0] = state[rows[k]]
        r = one[0]
        kind, a, b = decode(actions[k], cfg)
        apply_play(r, kind, a, b, catalogue, cfg)
        out[k, 0] = -1
        if r.opened[r.current] or r.hand_n[r.current] == 0 or node_status(r, False, catalogue_bits, cfg) != 0:
            continue
        begin_row_check(work)
        out[k, 0] = opening_verdict(r, work[0][WITNESS_ROW:WITNESS_ROW + 1], work[4], catalogue, catalogue_bits, cfg)
        begin_row_check(work)
        out[k, 1] = explore(r, False, False, budget, work, catalogue, catalogue_bits, cfg)


@pytest.mark.parametrize("preset,players,seed", [("rami51", 3, 5), ("lebanese14", 2, 6), ("rami51", 4, 7)])
def test_R11_5_opening_bound_agrees_with_search(preset, players, seed):
    """At every play of a player who has not opened, in random games: if the bound says no opening is reachable
    (NO), the search finds no way to finish the turn without an undo; if it lays one (YES), the search finds one."""
    rules = rummy_env.RummyRules.preset(preset, num_players=players, dead_ends="prevent")
    engine = rummy_env.RummyEngine(rules, 16)
    engine.reset(seed=seed)
    work = worker_buffers(search_buffers(1, engine.state.dtype), 0)
    one = np.zeros(1, dtype=engine.state.dtype)
    catalogue, catalogue_bits, _ = engine.tables
    rng = np.random.default_rng(seed)
    verdicts = {NO: 0, YES: 0, MAYBE: 0, COMMITTED: 0}
    for _ in range(150):
        mask = engine.legal_action_mask()
        rows, actions = [], []
        for row in np.flatnonzero(~engine.done & (engine.state["phase"] == PHASE_PLAY)):
            if engine.state["opened"][row, engine.state["current"][row]]:
                continue
            for action in np.flatnonzero(mask[row]):
                if engine.layout.meld_offset <= action < engine.layout.discard_offset:
                    rows.append(row)
                    actions.append(action)
        out = np.zeros((len(rows), 2), dtype=np.int64)
        _compare(engine.state, np.array(rows, dtype=np.int64), np.array(actions, dtype=np.int64), one, work, catalogue,
                 catalogue_bits, engine.cfgs, 1 << 20, out)
        for (verdict, found), row, action in zip(out, rows, actions):
            if verdict < 0:
                continue
            verdicts[int(verdict)] += 1
            where = f"{preset} row {row} action {engine.action_to_str(int(action))}"
            assert not (verdict == NO and found == FINISHED), where + ": the bound said no opening"
            assert not (verdict == YES and found == DEAD), where + ": the bound laid an opening the search denies"
        engine.step(uniform_legal_actions(mask, rng), rows=~engine.done)
        if engine.done.any():
            engine.reset(rows=engine.done.copy())
    assert verdicts[NO] + verdicts[YES] > 0, verdicts


def _position_verdict(preset, players, name, take, reason):
    """Load ``tests/positions/NAME``, check that action ``take`` is the TAKE of slot 1's low end and that the mask
    answers ``reason`` for it, and return the bound's verdict and the search's answer after it."""
    position = json.loads((POSITIONS / name).read_text())
    engine = rummy_env.RummyEngine(rummy_env.RummyRules.preset(preset, num_players=players, dead_ends="prevent"), 1)
    engine.load(0, position)
    assert engine.action_to_str(take) == "take choice 0 from slot 1"
    assert engine.legal_reason(0, take) == reason
    return _verdict_after(engine, take)


def _verdict_after(engine, action):
    """The opening bound's verdict and the search's answer (budget 2^20 plays) after ``action`` in row 0."""
    work = worker_buffers(search_buffers(1, engine.state.dtype), 0)
    one = np.zeros(1, dtype=engine.state.dtype)
    catalogue, catalogue_bits, _ = engine.tables
    out = np.zeros((1, 2), dtype=np.int64)
    _compare(engine.state, np.zeros(1, dtype=np.int64), np.array([action], dtype=np.int64), one, work, catalogue,
             catalogue_bits, engine.cfgs, 1 << 20, out)
    return out[0, 0], out[0, 1]


def test_R11_1_bound_allows_a_card_taken_back_after_the_commit():
    """A position where the only way out leaves a taken card over at the COMMIT: Lebanese "14", 3 players, the
    player has laid A♦ A♠ JK and 3♠ 4♠ 5♠ 6♠ (48 points) and spent his undo. TAKE the 3♠ back (it stops counting),
    lay off 7♠ (52), COMMIT, then take the 4♠ back and meld 2♠ 3♠ 4♠. Before the COMMIT no picture places the 3♠
    with 51 points (taking the 4♠ back first costs its 4 points), so the bound must not require a taken card to
    be placed by then."""
    verdict, found = _position_verdict("lebanese14", 3, "lebanese14_3p_take_back_after_commit.json", 2276, why.LEGAL)
    assert found == FINISHED and verdict != NO


def test_R13_card_left_at_the_commit_needs_an_own_card_kept():
    """rami51, 2 players: the player to act has not opened, has spent his undo and holds 2♣ 2♣ 3♣ 3♣ 2♦ 4♦ 5♦ 6♦
    10♦ 2♥ 7♥ 2♠ 5♠ JK. TAKE the 6♠ from 6♠ 7♠ 8♠ JK: the 6♠ can then only go into a MELD with his joker and
    the 5♠ or the 6♦ (the 7♠ can no longer be taken), before or after a COMMIT, and without the joker no opening
    reaches 51. The plain DP leaves the 6♠ over at a COMMIT (COMMITTED, and the search had to refute every
    such COMMIT); the DP with the melds after a COMMIT keeps an own card for it and proves NO."""
    verdict, found = _position_verdict("rami51", 2, "rami51_2p_take_needs_joker_after_commit.json", 2276,
                                       why.DEAD_END)
    assert found == DEAD and verdict == NO
