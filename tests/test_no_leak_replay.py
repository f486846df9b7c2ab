"""No hidden-information leak, by replay, for every ruleset (basic, rami51, lebanese14; 2-6 / 2-5 players).

A one-off re-deal of a position has to keep the cards a seat is known to hold in place, so it cannot see how
that knowledge is updated. This test replays instead:

1. play a random hand (biased towards discard-pile takes and table plays, which is where knowledge changes)
   and record its actions;
2. for an observer seat, build another world from the same deal by swapping two cards the observer cannot see
   (a card of an opponent's hand with a stock card the observer never draws, or with a card of another
   opponent's hand), preferring swaps that give the opponent, in one world only, a hidden copy of a card it
   will later take face up (two copies of every card in rami51);
3. replay the same actions from both deals, up to the first action that is illegal in the other world (from
   there on the two worlds no longer share a public history) or the hand's end;
4. after every replayed step, the observer's observation must be identical in both worlds, and whenever the
   observer is to act, its action mask and the engine's explanations of a sample of actions too.

The hand's end is excluded: its scores count the cards left in hands, which the rules make public. In gin the
knocker lays his deadwood face up once he has laid his melds (G6): those cards count as played.
"""

from __future__ import annotations

import copy

import numpy as np
import pytest

from rummy_env import RummyEngine, RummyRules
from rummy_env.actions import DRAW_DISCARD, DRAW_STOCK, KNOCK, PASS
from rummy_env.engine.state import PHASE_KNOCK

CONFIGS = ([("basic", n) for n in range(2, 7)] + [("rami51", n) for n in range(2, 6)]
           + [("lebanese14", n) for n in range(2, 6)] + [("gin", 2), ("gin_openspiel", 2), ("gin_rlcard", 2)])
GAMES = 6               # recorded hands per config
WORLDS = 3              # other worlds replayed per hand and observer
EXPLAINED = 12          # actions explained per observer decision
MIN_STEPS = 40          # replayed steps per config and game, at least, on average
# Random play rarely opens under rami51's default dead_ends="take_back" (R25: no look-ahead steers it), so its
# hands run to the turn cap; recorded rami51 hands stop at this many turns (dead), take-backs included.
RAMI_TURN_CAP = {"max_turns_per_round": 60}


def new_engine(rules: RummyRules) -> RummyEngine:
    eng = RummyEngine(rules, 1, parallel=False)
    eng.reset(seed=0)
    return eng


def record_hand(rules: RummyRules, seed: int) -> tuple[dict, list[int]]:
    """A hand played by a biased random policy: its deal (a snapshot) and its actions."""
    eng = RummyEngine(rules, 1, parallel=False)
    eng.reset(seed=seed)
    start, actions = eng.snapshot(0), []
    rng = np.random.default_rng(seed)
    while not eng.done[0]:
        legal = np.flatnonzero(eng.legal_action_mask()[0])
        plays = legal[(legal > DRAW_DISCARD) & (legal < eng.layout.discard_offset)]
        if rules.ruleset == "gin" and (KNOCK in legal or plays.size and rng.random() < 0.8):
            action = KNOCK if KNOCK in legal else int(rng.choice(plays))   # reach the knock and the lay-offs
        elif rules.ruleset == "gin" and legal.max() >= eng.layout.discard_offset and rng.random() < 0.8:
            action = int(min(legal[legal >= eng.layout.discard_offset], key=lambda a: gin_deadwood_after(eng, a)))
        elif DRAW_DISCARD in legal and rng.random() < 0.7:
            action = DRAW_DISCARD
        elif plays.size and rng.random() < 0.6:
            action = int(rng.choice(plays))
        else:
            action = int(rng.choice(legal))
        eng.step([action])
        actions.append(action)
    return start, actions


def gin_deadwood_after(eng: RummyEngine, action: int) -> int:
    """The deadwood the player to act keeps after the discard ``action`` (a gin policy that reaches knocks)."""
    from rummy_env.engine.gin import deadwood

    ubuf, ibuf = (buf[0] for buf in deadwood.scratch(1))
    hand = deadwood.hand_mask(eng.state[0]["hand"][int(eng.state[0]["current"])])
    return deadwood.deadwood(hand & ~deadwood.bit(action - eng.layout.discard_offset), ubuf, ibuf)


def public_moves(rules: RummyRules, start: dict, actions: list[int], observer: int) -> tuple[dict, dict, set]:
    """Card types each seat takes face up (discard top, TAKE from a meld) and plays face up (lays, discards),
    and the indices of the deal's stock that the observer draws before the first rebuild."""
    eng = new_engine(rules)
    eng.load(0, start)
    taken: dict[int, set] = {q: set() for q in range(rules.num_players)}
    played: dict[int, set] = {q: set() for q in range(rules.num_players)}
    drawn: set[int] = set()
    for action in actions:
        r = eng.state[0]
        seat, stock_n, rebuilds = int(r["current"]), int(r["stock_n"]), int(r["reshuffles"])
        hand = r["hand"][seat].copy()
        knocker_done = rules.ruleset == "gin" and int(r["phase"]) == PHASE_KNOCK and action == PASS
        eng.step([action])
        if knocker_done:  # the knocker's deadwood is laid face up (G6)
            played[seat] |= set(np.flatnonzero(eng.state[0]["hand"][seat]).tolist())
        r = eng.state[0]
        if eng.layout.decode(action)[0] in ("draw_discard", "take"):
            taken[seat] |= set(np.flatnonzero(r["hand"][seat] > hand).tolist())
        elif action != DRAW_STOCK:
            played[seat] |= set(np.flatnonzero(r["hand"][seat] < hand).tolist())
        if seat == observer and rebuilds == 0:  # a rebuild within the action (penalty draws, R7, R25) drew it all
            drawn |= set(range(int(r["stock_n"]) if int(r["reshuffles"]) == 0 else 0, stock_n))
    return taken, played, drawn


def other_worlds(rules: RummyRules, start: dict, actions: list[int], observer: int, rng: np.random.Generator):
    """Deals that differ from ``start`` only in cards hidden from ``observer`` (see the module docstring)."""
    taken, played, drawn = public_moves(rules, start, actions, observer)
    opponents = [q for q in range(rules.num_players) if q != observer]
    free_stock = [i for i in range(len(start["stock"])) if i not in drawn]
    for _ in range(WORLDS):
        q = int(rng.choice(opponents))
        hand = start["hands"][q]
        preferred = [k for k, card in enumerate(hand) if card in taken[q]]       # a second copy is taken face up
        unplayed = [k for k, card in enumerate(hand) if card not in played[q]]   # keeps the history longer
        pool = preferred if preferred and rng.random() < 0.7 else unplayed or list(range(len(hand)))
        k = int(rng.choice(pool))
        world = copy.deepcopy(start)
        others = [p for p in opponents if p != q]
        if others and rng.random() < 0.3:
            q2 = int(rng.choice(others))
            k2 = int(rng.integers(len(start["hands"][q2])))
            world["hands"][q][k], world["hands"][q2][k2] = start["hands"][q2][k2], start["hands"][q][k]
            world["hands"][q2] = sorted(world["hands"][q2])
        elif free_stock:
            # a stock copy of a card q will take face up: the other world gives q a hidden second copy
            copies = [i for i in free_stock if start["stock"][i] in taken[q]]
            i = int(rng.choice(copies if copies and rng.random() < 0.7 else free_stock))
            k = int(rng.choice(unplayed)) if unplayed and start["stock"][i] in taken[q] else k
            world["hands"][q][k], world["stock"][i] = start["stock"][i], start["hands"][q][k]
        else:
            continue
        world["hands"][q] = sorted(world["hands"][q])
        if world["hands"] != start["hands"]:
            yield world


def view(eng: RummyEngine, seat: int) -> np.ndarray:
    return eng.observe(np.array([seat], dtype=np.int8))[0].copy()


def replay_both(rules: RummyRules, start: dict, world: dict, actions: list[int], observer: int,
                rng: np.random.Generator, where: str) -> int:
    """Replay ``actions`` from both deals while they share a public history (until an action is illegal in
    the other world, or the hand ends), asserting that the observer sees the same in both; returns the
    number of steps replayed."""
    a, b = new_engine(rules), new_engine(rules)
    a.load(0, start)
    b.load(0, world)
    hands_played = int(a.state[0]["hands_played"])
    step = 0
    for step, action in enumerate(actions):
        mask_b = b.legal_action_mask()[0]
        if not mask_b[action]:
            return step
        here = f"{where} step {step} (next: {a.action_to_str(action)})"
        seen_a, seen_b = view(a, observer), view(b, observer)
        if not np.array_equal(seen_a, seen_b):
            split_a, split_b = a.observation_layout.split(seen_a), a.observation_layout.split(seen_b)
            blocks = [name for name in split_a if not np.array_equal(split_a[name], split_b[name])]
            raise AssertionError(f"seat {observer}'s observation depends on hidden cards (blocks {blocks}){here}")
        if int(a.state[0]["current"]) == observer:
            mask_a = a.legal_action_mask()[0]
            assert np.array_equal(mask_a, mask_b), f"seat {observer}'s mask depends on hidden cards{here}"
            for probe in rng.choice(a.num_actions, size=EXPLAINED, replace=False):
                assert a.explain_illegal(0, int(probe)) == b.explain_illegal(0, int(probe)), (
                    f"the explanation of action {int(probe)} depends on hidden cards{here}")
        a.step([action])
        b.step([action])
        if int(a.state[0]["hands_played"]) != hands_played:
            break
    return step


@pytest.mark.parametrize("preset,players", CONFIGS)
def test_replay_from_a_redeal_shows_the_observer_nothing_new(preset, players):
    rules = RummyRules.preset(preset, num_players=players, **(RAMI_TURN_CAP if preset in ("rami51", "lebanese14") else {}))
    replayed = 0
    for game in range(GAMES):
        seed = 1000 * players + game
        start, actions = record_hand(rules, seed)
        rng = np.random.default_rng(seed)
        for observer in range(players):
            for world in other_worlds(rules, start, actions, observer, rng):
                where = f" [{preset} {players}p, seed {seed}, observer {observer}]"
                replayed += replay_both(rules, start, world, actions, observer, rng, where)
    assert replayed >= MIN_STEPS * GAMES, f"only {replayed} steps replayed in re-dealt worlds"
