"""Rules and layouts flattened into small arrays that the compiled kernels read.

Kernels take plain arrays, not Python objects: ``cfg`` (int64 knobs and sizes, indexed by the
``C_*`` constants), ``fcfg`` (float knobs), ``values`` (hand value of each card type), ``catalogue``
(one row per catalogue meld: three cards, kind, key, lo, hi), ``catalogue_bits`` and ``obs_offsets`` (see
``rummy_env.engine.observation``).
"""

from __future__ import annotations

import numpy as np

from rummy_env.actions import ActionLayout
from rummy_env.rules import RummyRules

(C_PLAYERS, C_HAND_SIZE, C_DECK, C_TYPES, C_SLOTS, C_MELDS, C_CORNER, C_MAX_POS,
 C_MUST_DISCARD, C_FORBID_TAKEN, C_RUMMY_MULT, C_MELD_BEFORE_LAYOFF, C_KEEP_TOP, C_MAX_RESHUFFLES,
 C_MAX_TURNS, C_DEAD_SCORING, C_END_MODE, C_TARGET, C_NUM_HANDS, C_MAX_HANDS, C_WINNER_DEALS,
 C_EPISODE, C_REWARD, C_LAYOFF_OFFSET, C_DISCARD_OFFSET, C_FIRST_DEALER) = range(26)
CFG_SIZE = 26
F_REWARD_SCALE, F_PENALTY = 0, 1

DEAD_SCORING = {"none": 0, "lowest_hand_wins": 1}
END_MODE = {"target": 0, "hands": 1}
EPISODE = {"hand": 0, "game": 1}
REWARD = {"score": 0, "win": 1}


def kernel_config(rules: RummyRules, layout: ActionLayout) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``(cfg, fcfg, values, catalogue, catalogue_bits)`` for ``rules``; ``catalogue_bits[m]`` has bit
    ``t`` set for each card type ``t`` of catalogue meld ``m``."""
    cfg = np.zeros(CFG_SIZE, dtype=np.int64)
    cfg[C_PLAYERS] = rules.num_players
    cfg[C_HAND_SIZE] = rules.hand_size
    cfg[C_DECK] = rules.deck_size
    cfg[C_TYPES] = rules.num_card_types
    cfg[C_SLOTS] = rules.num_slots
    cfg[C_MELDS] = len(layout.catalogue)
    cfg[C_CORNER] = rules.round_the_corner
    cfg[C_MAX_POS] = rules.max_run_position
    cfg[C_MUST_DISCARD] = rules.must_discard_to_go_out
    cfg[C_FORBID_TAKEN] = rules.forbid_discarding_card_taken_from_discard
    cfg[C_RUMMY_MULT] = rules.going_rummy_multiplier
    cfg[C_MELD_BEFORE_LAYOFF] = rules.must_meld_before_layoff
    cfg[C_KEEP_TOP] = rules.reshuffle_keep_top
    cfg[C_MAX_RESHUFFLES] = -1 if rules.max_reshuffles is None else rules.max_reshuffles
    cfg[C_MAX_TURNS] = rules.max_turns_per_round
    cfg[C_DEAD_SCORING] = DEAD_SCORING[rules.dead_round_scoring]
    cfg[C_END_MODE] = END_MODE[rules.game_end_mode]
    cfg[C_TARGET] = rules.target_score
    cfg[C_NUM_HANDS] = rules.num_hands or 0
    cfg[C_MAX_HANDS] = rules.max_hands
    cfg[C_WINNER_DEALS] = rules.two_player_winner_deals and rules.num_players == 2
    cfg[C_EPISODE] = EPISODE[rules.episode]
    cfg[C_REWARD] = REWARD[rules.reward]
    cfg[C_LAYOFF_OFFSET] = layout.layoff_offset
    cfg[C_DISCARD_OFFSET] = layout.discard_offset
    cfg[C_FIRST_DEALER] = -1 if rules.first_dealer == "random" else int(rules.first_dealer)
    fcfg = np.array([rules.reward_scale, rules.illegal_action_penalty], dtype=np.float64)
    values = np.array(rules.card_values, dtype=np.int64)
    cat = layout.catalogue
    catalogue = np.concatenate(
        [cat.cards.astype(np.int64), cat.kind[:, None], cat.key[:, None], cat.lo[:, None], cat.hi[:, None]], axis=1
    ).astype(np.int64)
    catalogue_bits = np.zeros(len(cat), dtype=np.uint64)
    for entry, members in enumerate(cat.cards):
        for card in members:
            catalogue_bits[entry] |= np.uint64(1) << np.uint64(card)
    return cfg, fcfg, values, catalogue, catalogue_bits
