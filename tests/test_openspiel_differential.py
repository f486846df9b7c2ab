"""Gin against OpenSpiel 2.0.2's ``gin_rummy``, move by move (preset ``gin_openspiel``, G13; needs the
``openspiel`` extra: ``pip install "rummy_env[openspiel]"``; skipped, saying so, without it).

Every game is dealt the same in both engines (OpenSpiel's chance outcomes applied with
``apply_action_with_legality_check``, our deck from ``rummy_env.openspiel_gin.engine_deck``) and played by
pairs of policies that between them reach every phase: uniform random, a random player that knocks, lays and
lays off eagerly (the lay-off limit of 2 per run end, the wall), OpenSpiel's simple bot (``restart()`` before
each game, stepped only on its own turns) and our gin heuristic. At every decision the legal sets must
correspond exactly (actions mapped both ways by ``rummy_env.openspiel_gin.ActionMap``), the player to act must
be the same, and at the end both games must be over with equal scores, our rewards summing to OpenSpiel's
returns over ``reward_scale``. Wherever OpenSpiel's bot acts, our adapter ``openspiel_bot``, which sees only our
observation, must choose the same action. The deliberate differences the README lists are tested here too (the
rewards' scale, a card taken face up kept in our observation and absent from OpenSpiel's tensor) or in
``tests/test_rules_gin.py`` (the default preset's rules, EG2-EG9 under both presets).

``RUMMY_DIFF_GAMES`` sets the slow tier's game count (default 1,200); the full count of 10,000 was run once
and is quoted in the README.
"""

from __future__ import annotations

import collections
import os

import numpy as np
import pytest

from rummy_env import RummyEngine, RummyRules
from rummy_env.openspiel_gin import DEALER, ActionMap, engine_deck, from_openspiel_card
from rummy_env.engine.state import PHASE_LAYOFF, PHASE_NAMES, PHASE_PLAY, PHASE_WALL

pyspiel = pytest.importorskip("pyspiel", reason="the OpenSpiel differential needs open_spiel 2.0.2: "
                                                 'pip install "rummy_env[openspiel]"')

PAIRS = (("random", "random"), ("eager", "eager"), ("bot", "bot"), ("bot", "random"), ("eager", "bot"),
         ("heuristic", "bot"), ("bot", "heuristic"), ("heuristic", "eager"), ("hoarder", "hoarder"))


class Differential:
    """Plays seeded games in both engines and checks them (see the module docstring)."""

    def __init__(self):
        self.rules = RummyRules.preset("gin_openspiel")
        self.engine = RummyEngine(self.rules, 1, parallel=False)
        self.actions = ActionMap(self.engine.layout)
        self.game = pyspiel.load_game("gin_rummy")
        self.bots = [pyspiel.make_simple_gin_rummy_bot(self.game.get_parameters(), p) for p in range(2)]
        from rummy_env.agents.registry import make_agent

        self.heuristic = make_agent("heuristic", self.rules)
        self.adapter = make_agent("openspiel_bot", self.rules)
        self.seen: collections.Counter = collections.Counter()
        from rummy_env.engine.gin import deadwood

        self.scratch = tuple(buf[0] for buf in deadwood.scratch(1))

    def choose(self, policy: str, player: int, state, mask: np.ndarray, rng: np.random.Generator) -> int:
        """OpenSpiel's action for ``policy``."""
        if policy == "bot":
            action = self.bots[player].step(state)
            observation = self.engine.observe()
            mine = self.adapter.act(observation, mask[None], rng)[0]
            assert self.actions.to_openspiel(int(mine)) == action, "the openspiel_bot adapter differs from the bot"
            return action
        legal = np.flatnonzero(mask)
        layout = self.engine.layout
        if policy == "heuristic":
            ours = int(self.heuristic.act(self.engine.observe(), mask[None], rng)[0])
        elif policy == "eager":
            plays = legal[(legal >= layout.meld_offset) & (legal < layout.discard_offset)]
            knock = layout.special("knock")
            if knock in legal and rng.random() < 0.7:
                ours = knock
            elif plays.size and rng.random() < 0.9:
                ours = int(rng.choice(plays))
            else:
                ours = int(rng.choice(legal))
        elif policy == "hoarder":  # lowers its deadwood, knocks only at the wall: reaches wall knocks
            ours = self.hoard(legal, rng)
        else:
            ours = int(rng.choice(legal))
        return self.actions.to_openspiel(ours)

    def hoard(self, legal: np.ndarray, rng: np.random.Generator) -> int:
        from rummy_env.engine.gin import deadwood

        layout, r = self.engine.layout, self.engine.state[0]
        knock, phase = layout.special("knock"), int(r["phase"])
        if knock in legal and (phase != PHASE_PLAY or rng.random() < 0.02):
            return knock
        discards = legal[legal >= layout.discard_offset]
        if phase == PHASE_PLAY and discards.size:
            hand = deadwood.hand_mask(r["hand"][int(r["current"])])
            left = [deadwood.deadwood(hand & ~deadwood.bit(int(a) - layout.discard_offset), *self.scratch) for a in discards]
            return int(discards[int(np.argmin(left))])
        plays = legal[(legal >= layout.meld_offset) & (legal < layout.discard_offset)]
        return int(rng.choice(plays)) if plays.size and rng.random() < 0.9 else int(rng.choice(legal))

    def play(self, seed: int, policies: tuple[str, str], order: list[int] | None = None,
             script: list[int] | None = None) -> int:
        """One game (``order``: OpenSpiel's chance outcomes, by default a seeded shuffle; ``script``: OpenSpiel
        actions to play first, whoever acts); returns the number of decisions checked."""
        rng = np.random.default_rng(seed)
        order = order or [int(card) for card in rng.permutation(52)]          # OpenSpiel card ids, in chance order
        script = list(script or [])
        ours = [from_openspiel_card(card) for card in order]
        self.engine.reset(decks=[engine_deck(ours[:10], ours[10:20], ours[20], ours[21:])], dealers=[DEALER])
        state = self.game.new_initial_state()
        for card in order[:21]:
            state.apply_action_with_legality_check(card)
        drawn = 21
        for bot in self.bots:
            bot.restart()
        decisions, rewards = 0, np.zeros(2)
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply_action_with_legality_check(order[drawn])
                drawn += 1
                continue
            here = f"seed {seed} {policies} decision {decisions}"
            assert not self.engine.done[0], f"{here}: our hand is over, OpenSpiel's is not\n{state}"
            player = state.current_player()
            assert int(self.engine.state[0]["current"]) == player, here
            mask = self.engine.legal_action_mask()[0].copy()
            theirs = sorted(state.legal_actions())
            assert self.actions.mask_to_openspiel(mask) == theirs, (
                f"{here}: ours {self.actions.mask_to_openspiel(mask)} OpenSpiel {theirs}\n{state}")
            self.note(mask)
            action = script.pop(0) if script else self.choose(policies[player], player, state, mask, rng)
            laying_off = int(self.engine.state[0]["phase"]) == PHASE_LAYOFF
            state.apply_action(action)
            rewards += self.engine.step([self.actions.from_openspiel(action, laying_off)]).rewards[0]
            decisions += 1
        assert self.engine.done[0], f"seed {seed}: OpenSpiel's hand is over, ours is not"
        scores = self.engine.state[0]["hand_scores"]
        assert list(state.returns()) == [scores[0] - scores[1], scores[1] - scores[0]], (seed, state.returns(), scores)
        # a deliberate difference: our reward is OpenSpiel's return over reward_scale
        assert np.allclose(rewards, np.array(state.returns()) / self.rules.reward_scale), (seed, rewards, scores)
        self.seen["void hand" if int(self.engine.state[0]["knocker"]) < 0 else "knocked hand"] += 1
        self.seen["end " + str(self.engine.snapshot(0)["end_reason"])] += 1
        return decisions

    def note(self, mask: np.ndarray) -> None:
        """Count what the decision exercises (phases, lay-offs, the lay-off limit, OpenSpiel's shortcut)."""
        r = self.engine.state[0]
        phase = int(r["phase"])
        self.seen[PHASE_NAMES[phase]] += 1
        layout = self.engine.layout
        if phase == PHASE_LAYOFF and mask[layout.layoff_offset:layout.discard_offset].any():
            self.seen["lay-off offered"] += 1
        if phase == PHASE_LAYOFF and (r["slot_low_layoffs"] == 2).any() | (r["slot_high_layoffs"] == 2).any():
            self.seen["a run end at its limit"] += 1
        if phase in (PHASE_PLAY, PHASE_WALL) and not mask[layout.special("knock")]:
            reason = self.engine.explain_illegal(0, layout.special("knock"))
            if "OpenSpiel's 11-card deadwood" in reason:
                self.seen["knock refused by the shortcut"] += 1
        if phase == PHASE_WALL and mask[layout.special("knock")]:
            self.seen["knock at the wall offered"] += 1


def run(games: int, first_seed: int = 0) -> tuple[int, collections.Counter]:
    check = Differential()
    decisions = 0
    for game in range(games):
        decisions += check.play(first_seed + game, PAIRS[game % len(PAIRS)])
    return decisions, check.seen


def os_ids(text: str) -> list[int]:
    from rummy_env import cards
    from rummy_env.openspiel_gin import to_openspiel_card

    return [to_openspiel_card(card) for card in cards.parse_many(text)]


def scripted_deal(player0: str, player1: str, upcard: str, stock: str) -> list[int]:
    """OpenSpiel's chance outcomes for a deal written by hand (the rest of the stock in card order)."""
    head = os_ids(player0) + os_ids(player1) + os_ids(upcard) + os_ids(stock)
    return head + [card for card in range(52) if card not in head]


def test_differential_smoke():
    """A few games of every pair (the fast tier, when open_spiel is installed)."""
    decisions, seen = run(2 * len(PAIRS))
    assert decisions > 300 and seen["knocked hand"] > 0


def test_openspiels_shortcut_refuses_the_same_knock():
    """EG9 in both engines: 3♠4♠5♠6♠ 2♣3♣6♣ 5♦ 4♥5♥ and the upcard 6♥; after taking it neither offers the knock."""
    check = Differential()
    order = scripted_deal("3S 4S 5S 6S 2C 3C 6C 5D 4H 5H", "AC 7C 8C 9C AD 7D 8D 9D AH 7H", "6H", "")
    check.play(0, ("random", "random"), order, script=[52])
    assert check.seen["knock refused by the shortcut"] == 1


def test_layoffs_stop_after_two_per_run_end_in_both():
    """EG7 in both engines: the knocker lays 5♠6♠7♠ and the defender, holding 8♠9♠10♠, lays off two of them."""
    from rummy_env import cards

    check = Differential()
    order = scripted_deal("5S 6S 7S AC 2C 3C AD 2D 3D QH", "8S 9S 10S 4C 6C 8C 10C 5D 7D 9D", "AH", "")
    melds = [56 + check.actions.meld_to_os[check.engine.layout.meld_entry(cards.parse_many(meld))]
             for meld in ("5S 6S 7S", "AC 2C 3C", "AD 2D 3D")]
    script = [52, 55] + os_ids("QH") + melds + [54] + os_ids("8S 9S")
    check.play(0, ("random", "random"), order, script=script)
    assert check.seen["a run end at its limit"] >= 1


def test_a_card_taken_face_up_stays_in_our_observation_not_in_openspiels():
    """A deliberate difference: player 0 takes the first upcard and discards another card. OpenSpiel's tensor
    for player 1 is the same whichever card was taken; ours keeps it in ``known`` (and so in the observation)."""
    check = Differential()
    tensors, known = [], []
    for upcard in ("8C", "9C"):
        order = scripted_deal("AS 2S 3S 4S 5S 6S 7S 8S 9S 10S", "JS QS KS AC 2C 3C 4C 5C 6C 7C", upcard, "")
        state = check.game.new_initial_state()
        for card in order[:21]:
            state.apply_action_with_legality_check(card)
        ours = [from_openspiel_card(card) for card in order]
        check.engine.reset(decks=[engine_deck(ours[:10], ours[10:20], ours[20], ours[21:])], dealers=[DEALER])
        for action in [52] + os_ids("AS"):
            state.apply_action(action)
            check.engine.step([check.actions.from_openspiel(action, False)])
        tensors.append(np.array(state.observation_tensor(1)))
        known.append(check.engine.snapshot(0)["known"][0])
        view = check.engine.observation_layout.split(check.engine.observe()[0])["known"]
        assert view[0][cards_of(upcard)[0]] == 1        # player 1 (to act) sees it in his opponent block
    assert np.array_equal(tensors[0], tensors[1])
    assert known == [cards_of("8C"), cards_of("9C")]


def cards_of(text: str) -> list[int]:
    from rummy_env import cards

    return cards.parse_many(text)


@pytest.mark.slow
def test_differential_against_openspiel():
    games = int(os.environ.get("RUMMY_DIFF_GAMES", "1200"))
    decisions, seen = run(games, first_seed=10_000)
    print(f"\n{games} games, {decisions} decisions identical; {dict(seen)}")
    for what in ("upcard", "draw", "play", "knock", "layoff", "defend", "wall", "lay-off offered",
                 "a run end at its limit", "knock at the wall offered", "void hand", "knocked hand", "end gin",
                 "end undercut", "end repeated_discard", "end upcard_draw_limit"):
        assert seen[what] > 0, f"{what} never reached in {games} games"
