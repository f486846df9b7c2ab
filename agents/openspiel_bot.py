"""``OpenSpielBotAgent``: OpenSpiel's simple gin bot (``pyspiel.make_simple_gin_rummy_bot``) as an agent of
this package (agent spec ``openspiel_bot``; needs ``pip install "rummy_env[openspiel]"``).

The bot acts on an OpenSpiel state and remembers, within a hand, that it knocked and the melds it planned.
Our agents see only their observation, so for every decision the adapter builds an OpenSpiel state that shows
the bot exactly what it would see at that point of a real OpenSpiel hand (its hand, the upcard, the knock
card, the stock at the wall, the knocker's melds) and replays, with a fresh bot, the steps of the current
knock that it has already taken, so that its memory is rebuilt too:

=================  ============================================================================================
our phase          the OpenSpiel state built (the opponent's unseen cards are filled in; the bot never reads them)
=================  ============================================================================================
upcard             the deal, the bot as player 0 (non-dealer) or 1 (dealer, after player 0's pass), passes
draw               player 0 takes the first upcard and discards ours; the bot (player 1) is to draw
play               the bot (player 0) took the first upcard: its 11 cards, to discard or knock
wall               29 stock cards drawn and discarded, player 0 discarding our upcard last
knock (knocker)    the bot's 11 cards before it knocked (its hand, its melds laid, its knock discard); the
                   bot knocks, then its discard and melds are replayed
layoff, defend     player 0 knocks with the opponent's 11 cards (his melds, his deadwood shown, his knock
                   discard) and lays them; the bot's lay-off pass and melds so far are replayed
=================  ============================================================================================

It plays the rules it was written for (``gin_openspiel``; ``knock_card``, ``oklahoma``, bonuses and the game
knobs may differ): rules where the bot could choose an illegal action (``forbid_discarding_taken_card``,
``gin_forced``, ``wall_rule="pickup_or_dead"``) are refused. Every action it chooses is checked against the mask.
"""

from __future__ import annotations

import numpy as np
import pyspiel

from rummy_env.actions import ActionLayout
from rummy_env.agents.base import InputCheck
from rummy_env.observations import ObservationLayout
from rummy_env.openspiel_gin import (
    OS_DRAW_STOCK, OS_DRAW_UPCARD, OS_KNOCK, OS_MELD_BASE, OS_PASS, ActionMap, from_openspiel_card, openspiel_meld_id,
    to_openspiel_card,
)
from rummy_env.rules import RummyRules

UPCARD, KNOCKING, LAYOFF, DEFEND, WALL = range(5)  # the gin_phase block
WALL_DRAWS = 29


class OpenSpielBotAgent:
    """See the module docstring; ``act(observation, action_mask, rng) -> actions`` over a batch."""

    def __init__(self, rules: RummyRules):
        if rules.ruleset != "gin":
            raise ValueError(f"openspiel_bot plays ruleset 'gin', not {rules.ruleset!r}")
        refused = [f"{knob}={getattr(rules, knob)!r}" for knob, ok in (
            ("forbid_discarding_taken_card", False), ("gin_forced", False)) if getattr(rules, knob) != ok]
        if rules.wall_rule == "pickup_or_dead":
            refused.append("wall_rule='pickup_or_dead'")
        if refused:
            raise ValueError(f"openspiel_bot plays OpenSpiel's rules (preset 'gin_openspiel'); with {', '.join(refused)} "
                             "it could choose illegal actions")
        self.rules = rules
        self.check_inputs = InputCheck(rules)
        self.layout = ActionLayout.for_rules(rules)
        self.actions = ActionMap(self.layout)
        self.blocks = ObservationLayout(rules)
        self.games: dict[int, object] = {}

    def game(self, knock_card: int):
        if knock_card not in self.games:
            self.games[knock_card] = pyspiel.load_game("gin_rummy", {"knock_card": knock_card})
        return self.games[knock_card]

    def act(self, observation: np.ndarray, action_mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        observation, action_mask = self.check_inputs(observation, action_mask)
        return np.array([self.act_row(obs, mask) for obs, mask in zip(observation, action_mask)], dtype=np.int64)

    # ------------------------------------------------------------------ one decision
    def act_row(self, obs: np.ndarray, mask: np.ndarray) -> int:
        view = self.blocks.split(obs)
        hand = [int(c) for c in np.flatnonzero(view["hand"])]
        top = np.flatnonzero(view["discard_top"])
        upcard = int(top[0]) if top.size else None
        phase = int(np.argmax(view["gin_phase"])) if view["gin_phase"].any() else (0 if view["phase"][0] else 1)
        gin_phase = view["gin_phase"].any()
        game = self.game(int(view["knock_limit"][0]))
        mine = [meld for meld, owner in self.table(view) if owner == 0]
        theirs = [meld for meld, owner in self.table(view) if owner == 1]
        if gin_phase and phase == UPCARD:
            state, replay = self.upcard_state(game, hand, upcard, int(view["gin_state"][0])), 0
        elif gin_phase and phase == WALL:
            state, replay = self.wall_state(game, hand, upcard), 0
        elif gin_phase and phase == KNOCKING:
            stage = int(view["gin_state"][1])
            before = hand + [c for meld in mine for c in meld] + ([upcard] if stage else [])
            state, replay = self.discard_state(game, before), (1 if stage else 0) + len(mine) + 1
        elif gin_phase and phase in (LAYOFF, DEFEND):
            state, replay = self.defender_state(game, view, hand, mine, theirs, upcard, phase)
        elif not gin_phase and phase == 0:
            state, replay = self.draw_state(game, hand, upcard), 0
        else:
            state, replay = self.discard_state(game, hand), 0
        action = self.bot_action(game, state, replay)
        ours = self.actions.from_openspiel(action, laying_off=gin_phase and phase == LAYOFF)
        if not mask[ours]:
            raise ValueError(f"the OpenSpiel bot chose {self.layout.to_str(ours)}, which these rules do not allow")
        return ours

    def table(self, view: dict) -> list[tuple[list[int], int]]:
        """The table melds (cards, owner relative to the observer) in slot order."""
        out = []
        for cards_, owner in zip(view["slot_cards"], view["slot_owner"]):
            if owner:
                out.append(([int(c) for c in np.flatnonzero(cards_)], int(owner) - 1))
        return out

    def bot_action(self, game, state, replay: int) -> int:
        """The fresh bot of the player to act steps through ``replay`` of its own actions, then chooses."""
        player = state.current_player()
        bot = pyspiel.make_simple_gin_rummy_bot(game.get_parameters(), player)
        bot.restart()
        for _ in range(replay):
            state.apply_action(bot.step(state))
        return bot.step(state)

    # ------------------------------------------------------------------ states
    @staticmethod
    def fill(used: list[int], count: int) -> list[int]:
        """``count`` cards (ours) outside ``used``, in a fixed order."""
        free = [c for c in range(52) if c not in set(used)]
        return free[:count]

    def dealt(self, game, player0: list[int], player1: list[int], upcard: int):
        state = game.new_initial_state()
        for card in list(player0) + list(player1) + [upcard]:
            state.apply_action_with_legality_check(to_openspiel_card(card))
        return state

    def upcard_state(self, game, hand: list[int], upcard: int, passes: int):
        other = self.fill(hand + [upcard], 10)
        if passes == 1:  # the bot deals: player 0 has passed
            state = self.dealt(game, other, hand, upcard)
            state.apply_action(OS_PASS)
            return state
        state = self.dealt(game, hand, other, upcard)
        for _ in range(passes):
            state.apply_action(OS_PASS)
        return state

    def draw_state(self, game, hand: list[int], upcard: int):
        first, *other = self.fill(hand + [upcard], 10)
        state = self.dealt(game, [upcard] + other[:9], hand, first)
        state.apply_action(OS_DRAW_UPCARD)
        state.apply_action(to_openspiel_card(upcard))
        return state

    def discard_state(self, game, eleven: list[int]):
        state = self.dealt(game, eleven[:10], self.fill(eleven, 10), eleven[10])
        state.apply_action(OS_DRAW_UPCARD)
        return state

    def wall_state(self, game, hand: list[int], upcard: int):
        free = self.fill(hand + [upcard], 41)
        first, draws, other = free[0], free[1:1 + WALL_DRAWS], free[1 + WALL_DRAWS:1 + WALL_DRAWS + 9]
        state = self.dealt(game, [upcard] + other, hand, first)
        state.apply_action(OS_PASS)
        state.apply_action(OS_PASS)
        for k, card in enumerate(draws):
            state.apply_action(OS_DRAW_STOCK)
            state.apply_action_with_legality_check(to_openspiel_card(card))
            last = k == WALL_DRAWS - 1
            state.apply_action(to_openspiel_card(upcard if last else card))
        return state

    def defender_state(self, game, view: dict, hand: list[int], mine, theirs, discard: int, phase: int):
        """The bot (player 1) defends against player 0's knock (see the module docstring)."""
        shown = [int(c) for c in np.flatnonzero(view["known"][0])]
        knocker = [c for meld in theirs for c in meld] + shown + [discard]
        defender = hand + [c for meld in mine for c in meld]
        state = self.dealt(game, knocker[:10], defender, knocker[10])
        state.apply_action(OS_DRAW_UPCARD)
        state.apply_action(OS_KNOCK)
        state.apply_action(to_openspiel_card(discard))
        for meld in theirs:
            state.apply_action(OS_MELD_BASE + openspiel_meld_id(meld))
        state.apply_action(OS_PASS)
        gin = not shown
        replay = len(mine) + (1 if phase == DEFEND and not gin else 0)
        return state, replay


__all__ = ["OpenSpielBotAgent", "from_openspiel_card"]
