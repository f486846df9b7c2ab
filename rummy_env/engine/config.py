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
 C_EPISODE, C_REWARD, C_LAYOFF_OFFSET, C_DISCARD_OFFSET, C_FIRST_DEALER,
 # rami51 (R1-R24); C_TARGET, C_NUM_HANDS, C_MAX_HANDS hold game_end_threshold, num_rounds, max_rounds
 C_RAMI, C_MELD_OFFSET, C_LAYOFF_CODES, C_TAKE_OFFSET, C_SWAP_OFFSET, C_MAX_UNDOS, C_DEALER_MAY_MELD,
 C_PICKUP_SECOND_ROUND, C_OPEN_THRESHOLD, C_OPEN_PURE, C_PURE_OWN_ONLY, C_OPEN_USE_TABLE, C_JOKER_OPEN_MODE,
 C_JOKER_OPEN_VALUE, C_JOKER_OPP_SET, C_SWAP_PRIOR, C_FREED_LAYOFF, C_ALLOW_TAKE, C_TAKE_OWN, C_TAKE_JOKER,
 C_CIRCULAR, C_ACE_BOTH, C_FINAL_DISCARD, C_MANUAL_ANNOUNCE, C_PENALTY_CARDS, C_NON_OPENER, C_FLAT100,
 C_AAO_CRITERIA, C_AAO_PURE, C_AAO_TABLE, C_ACE_FIXED, C_BURNT, C_BURNT_PILE, C_PICKUP_MIN, C_PICKUP_EVERY,
 C_SCALING, C_ROUNDING) = range(63)
CFG_SIZE = 63
F_REWARD_SCALE, F_PENALTY, F_AAO_MULT, F_JOKER_FINISH, F_SCALE = 0, 1, 2, 3, 4  # F_SCALE + k: k jokers (0..4)
FCFG_SIZE = 9

FINAL_DISCARD = {"required": 0, "optional": 1, "forbidden": 2}
ROUNDING = {"exact": 0, "ceil": 1, "floor": 2}
DEAD_SCORING = {"none": 0, "lowest_hand_wins": 1, "hand_penalties": 1}
END_MODE = {"target": 0, "hands": 1, "threshold": 0, "rounds": 1}
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
    fcfg = np.zeros(FCFG_SIZE, dtype=np.float64)
    fcfg[F_REWARD_SCALE], fcfg[F_PENALTY] = rules.reward_scale, rules.illegal_action_penalty
    if rules.ruleset == "rami51":
        _rami_config(rules, layout, cfg, fcfg)
    cfg[C_WINNER_DEALS] = rules.two_player_winner_deals and rules.num_players == 2
    cfg[C_EPISODE] = EPISODE[rules.episode]
    cfg[C_REWARD] = REWARD[rules.reward]
    cfg[C_LAYOFF_OFFSET] = layout.layoff_offset
    cfg[C_DISCARD_OFFSET] = layout.discard_offset
    cfg[C_FIRST_DEALER] = -1 if rules.first_dealer == "random" else int(rules.first_dealer)
    values = np.array(rules.card_values, dtype=np.int64)
    cat = layout.catalogue
    catalogue = np.concatenate(
        [cat.cards.astype(np.int64), cat.kind[:, None], cat.key[:, None], cat.lo[:, None], cat.hi[:, None],
         cat.joker_at[:, None]], axis=1
    ).astype(np.int64)
    catalogue_bits = np.zeros(len(cat), dtype=np.uint64)
    for entry, members in enumerate(cat.cards):
        for card in members:
            catalogue_bits[entry] |= np.uint64(1) << np.uint64(card)
    return cfg, fcfg, values, catalogue, catalogue_bits


def _rami_config(rules: RummyRules, layout: ActionLayout, cfg: np.ndarray, fcfg: np.ndarray) -> None:
    """The rami51 knobs (RULES.md §3.2) into ``cfg``/``fcfg``."""
    cfg[C_RAMI] = 1
    cfg[C_TARGET] = rules.game_end_threshold
    cfg[C_NUM_HANDS] = rules.num_rounds or 0
    cfg[C_MAX_HANDS] = rules.max_rounds
    cfg[C_MAX_POS] = 14
    cfg[C_MELD_OFFSET] = layout.meld_offset
    cfg[C_LAYOFF_CODES] = layout.layoff_codes
    cfg[C_TAKE_OFFSET] = layout.take_offset
    cfg[C_SWAP_OFFSET] = layout.swap_offset
    cfg[C_MAX_UNDOS] = rules.max_undos_per_turn
    cfg[C_DEALER_MAY_MELD] = rules.dealer_first_turn_may_meld
    cfg[C_PICKUP_SECOND_ROUND] = rules.discard_pickup_from_second_round
    cfg[C_OPEN_THRESHOLD] = rules.opening_threshold
    cfg[C_OPEN_PURE] = rules.opening_requires_pure_run
    cfg[C_PURE_OWN_ONLY] = rules.pure_run_hand_cards_only
    cfg[C_OPEN_USE_TABLE] = rules.opening_may_use_table
    value = rules.joker_opening_value
    cfg[C_JOKER_OPEN_MODE] = 0 if value == "represented" else 1 if value == "zero" else 2
    cfg[C_JOKER_OPEN_VALUE] = value if isinstance(value, int) else 0
    cfg[C_JOKER_OPP_SET] = rules.joker_on_opponent_set
    cfg[C_SWAP_PRIOR] = rules.joker_swap_requires_prior_opening
    cfg[C_FREED_LAYOFF] = rules.freed_joker_use == "new_meld_or_layoff"
    cfg[C_ALLOW_TAKE] = rules.allow_take_from_meld
    cfg[C_TAKE_OWN] = rules.take_from_own_melds
    cfg[C_TAKE_JOKER] = rules.can_take_joker_from_meld
    cfg[C_CIRCULAR] = rules.circular_runs
    cfg[C_ACE_BOTH] = rules.allow_ace_both_ends
    cfg[C_FINAL_DISCARD] = FINAL_DISCARD[rules.final_discard]
    cfg[C_MANUAL_ANNOUNCE] = rules.card_announcement == "manual"
    cfg[C_PENALTY_CARDS] = rules.announcement_penalty_cards
    cfg[C_NON_OPENER] = rules.non_opener_penalty
    cfg[C_FLAT100] = rules.all_at_once_scoring == "flat100"
    cfg[C_AAO_CRITERIA] = rules.all_at_once_requires_opening_criteria
    cfg[C_AAO_PURE] = rules.all_at_once_requires_pure_run
    cfg[C_AAO_TABLE] = rules.all_at_once_may_use_table
    cfg[C_ACE_FIXED] = rules.ace_fixed_value or 0
    cfg[C_BURNT] = rules.joker_run_requires_burnt
    cfg[C_BURNT_PILE] = rules.burnt_includes_discard_pile
    cfg[C_PICKUP_MIN] = rules.discard_pickup_min_lay or 0
    cfg[C_PICKUP_EVERY] = rules.discard_pickup_min_lay_scope == "every_pickup"
    cfg[C_SCALING] = rules.all_at_once_joker_scaling is not None
    cfg[C_ROUNDING] = ROUNDING[rules.half_point_rounding]
    fcfg[F_AAO_MULT] = rules.all_at_once_multiplier
    fcfg[F_JOKER_FINISH] = rules.joker_finish_multiplier
    if rules.all_at_once_joker_scaling is not None:
        for jokers in range(5):
            fcfg[F_SCALE + jokers] = rules.joker_scaling_factor(jokers)
