"""Every preset as an OpenSpiel game (``pyspiel.load_game("rummy_rami51", {"players": 4})``): its parameters,
the rules they make, the game's sizes and bounds, and its observer.

Each preset of ``rummy_env.rules.PRESETS`` is registered as ``rummy_<preset>``. Its parameters are
``players`` and every knob whose preset value is a number, a bool or a string, under the knob's own name and
with the preset's value as its default (``pyspiel.load_game("rummy_rami51", {"players": 4, "dead_ends":
"prevent"})``), except ``first_dealer``, an integer there: a seat, or -1 for a first dealer drawn by chance
(the knob's ``"random"``). ``knobs`` takes any knob as a JSON object (``'{"max_reshuffles": 3}'``), for those whose
preset value is empty or a table; OpenSpiel splits a game's string at commas, so write ``;`` between its entries
(``'{"max_reshuffles": 3; "num_rounds": 5}'``) where the game must be rebuilt from its string (pickling,
``deserialize_game_and_state``). The rules are the preset with the parameters that differ from its defaults: knobs
that follow the player count (basic's ``hand_size``) keep following it unless set. One OpenSpiel game is one
hand (knob ``episode="hand"``), as OpenSpiel's own ``gin_rummy``; a match is played as a series of games.
"""

from __future__ import annotations

import json

import numpy as np
import pyspiel

from rummy_env import cards
from rummy_env.engine import RummyEngine
from rummy_env.engine.drivers import done_rows
from rummy_env.engine.families import family
from rummy_env.engine.positions import snapshot
from rummy_env.engine.state import state_dtype
from rummy_env.observations import ObservationLayout
from rummy_env.render import describe
from rummy_env.rules import PRESETS, RummyRules

# knobs that are not parameters, and why
FIXED = {"num_players": "the number of players is the parameter 'players'",
         "ruleset": f"the ruleset is the game's: load another game (rummy_<preset>, presets {PRESETS})",
         "episode": "an OpenSpiel game is one hand (episode='hand'): play a match as a series of games",
         "illegal_action": "OpenSpiel offers only legal actions",
         "illegal_action_penalty": "OpenSpiel offers only legal actions"}


def player_counts(preset: str) -> range:
    return range(2, 3) if preset.startswith("gin") else range(2, 7 if preset == "basic" else 6)


def default_knobs(preset: str) -> dict:
    """The knob parameters of ``rummy_<preset>`` with their defaults: its knobs whose value is a number, a bool or
    a string and the same at every player count (basic's ``hand_size`` follows the count: it is left out);
    ``first_dealer`` as an integer (module docstring)."""
    tables = [RummyRules.preset(preset, num_players=players).to_dict() for players in player_counts(preset)]
    knobs = {knob: value for knob, value in tables[0].items()
             if knob not in FIXED and isinstance(value, (bool, int, float, str))
             and all(table.get(knob) == value for table in tables)}
    knobs["first_dealer"] = first_dealer_parameter(knobs["first_dealer"])
    return knobs


def first_dealer_parameter(value: str | int) -> int:
    """The knob ``first_dealer`` as the game's integer parameter: the seat, or -1 for ``"random"``."""
    return -1 if value == "random" else int(value)


def rules_from_parameters(preset: str, params: dict) -> RummyRules:
    """The rules of ``rummy_<preset>`` under ``params`` (``players``, knobs, ``knobs`` as JSON)."""
    defaults = default_knobs(preset)
    players = params.get("players", 2)
    overrides = {knob: value for knob, value in params.items() if knob in defaults and value != defaults[knob]}
    if "first_dealer" in overrides:
        seat = overrides["first_dealer"]
        if seat < -1:
            raise ValueError(f"first_dealer must be a seat, or -1 for a first dealer drawn by chance, got {seat}")
        overrides["first_dealer"] = "random" if seat == -1 else seat
    text = params.get("knobs", "")
    if text:
        try:
            extra = json.loads(text.replace(";", ","))
        except json.JSONDecodeError as error:
            raise ValueError(f"the parameter knobs must be a JSON object of knob values, got {text!r}: {error}") from None
        if not isinstance(extra, dict):
            raise ValueError(f"the parameter knobs must be a JSON object of knob values, got {text!r}")
        clash = sorted(set(extra) & set(overrides))
        if clash:
            raise ValueError(f"knob(s) {clash} given both as parameters and in knobs: give each once")
        overrides.update(extra)
    for knob, reason in FIXED.items():
        if knob in overrides and not (knob == "episode" and overrides[knob] == "hand"):
            raise ValueError(f"knob {knob!r} cannot be set in an OpenSpiel game: {reason}")
    return RummyRules.preset(preset, num_players=players, **overrides)


def utility_bound(rules: RummyRules) -> float:
    """A bound on a seat's return in one hand: every card of the deck at its highest value, times the largest
    multiplier, plus every bonus and penalty (centred, ``(P s - sum s) / ((P - 1) scale)``)."""
    if rules.reward == "win":
        return 1.0
    card_value = max(15, rules.ace_hand_value, rules.joker_hand_value, rules.ace_high_scoring_value)
    multiplier = max(rules.going_rummy_multiplier, rules.all_at_once_multiplier * rules.joker_finish_multiplier,
                     rules.shutout_multiplier, 2)
    bonuses = (rules.gin_bonus + rules.big_gin_bonus + rules.undercut_bonus + rules.box_bonus + rules.game_bonus
               + rules.num_players * rules.non_opener_penalty)
    points = rules.deck_size * card_value * multiplier + bonuses
    return float(rules.num_players * points / ((rules.num_players - 1) * rules.reward_scale))


def game_type(preset: str) -> pyspiel.GameType:
    counts = player_counts(preset)
    low, high = counts[0], counts[-1]
    return pyspiel.GameType(
        short_name=f"rummy_{preset}", long_name=f"rummy_env {preset}",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL, chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION, utility=pyspiel.GameType.Utility.ZERO_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL, max_num_players=high, min_num_players=low,
        provides_information_state_string=True, provides_information_state_tensor=True,
        provides_observation_string=True, provides_observation_tensor=True,
        parameter_specification={"players": 2, **default_knobs(preset), "knobs": ""})


class RummyGame(pyspiel.Game):
    """One preset's OpenSpiel game (module docstring); ``PRESET`` is set by each registered subclass."""

    PRESET = "basic"

    def __init__(self, params=None):
        params = dict(params or {})
        self.rules = rules = rules_from_parameters(self.PRESET, params)
        self.engine = RummyEngine(rules, batch_size=1)
        self.observation_layout = ObservationLayout(rules)
        self.dtype = state_dtype(rules)
        self.turn_copy = family(rules.ruleset).TURN_COPY  # the UNDO copy is restored (rami51), not stale
        self.types = rules.num_card_types
        self._done = np.zeros(1, dtype=np.bool_)  # engine_done's answer
        bound = utility_bound(rules)
        hand_cap = rules.deck_size
        info = pyspiel.GameInfo(
            num_distinct_actions=self.engine.num_actions,
            max_chance_outcomes=max(self.types, rules.num_players),
            num_players=rules.num_players, min_utility=-bound, max_utility=bound, utility_sum=0.0,
            max_game_length=1 + rules.deck_size + rules.max_turns_per_round * (8 + 4 * hand_cap
                                                                               * (rules.max_undos_per_turn + 1)))
        super().__init__(type(self).GAME_TYPE, info, params)
        self.deal = self._deal_layout()

    def _deal_layout(self) -> tuple[int, int | None]:
        """``(cards dealt, where the last goes)``: ``None`` for the upcard, else its seat counted from the
        dealer. Read off one deal (the engine deals one card at a time clockwise from the dealer's left, then one
        more card: an upcard, or the dealer's extra card, or the eleventh card of gin's non-dealer)."""
        engine = self.engine
        engine.reset(dealers=[0], row_seeds=[0])
        hands = engine.state["hand_n"][0, :self.rules.num_players].astype(int)
        dealt = int(hands.sum()) + int(engine.state["pile_n"][0])
        if engine.state["pile_n"][0] == 1:
            return dealt, None
        extra = int(np.argmax(hands))
        return dealt, extra

    def new_initial_state(self):
        from rummy_env.openspiel.state import RummyState

        return RummyState(self)

    def make_py_observer(self, iig_obs_type=None, params=None):
        from rummy_env.openspiel.observer import RummyObserver

        if params:
            raise ValueError(f"the rummy observer takes no parameters, got {params!r}")
        perfect_recall = iig_obs_type is not None and iig_obs_type.perfect_recall
        return RummyObserver(self, perfect_recall)

    # ------------------------------------------------------------------ the engine, one position at a time
    def step(self, record: np.ndarray, undo: np.ndarray, action: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The position after ``action`` (new arrays) and the rewards it gave."""
        engine = self.engine
        engine.put(0, record, undo)
        result = engine.step(np.array([action], dtype=np.int64))
        return copy_record(engine.state), copy_record(engine.undo_copies), exact(result.rewards[0])

    def legal_actions_of(self, record: np.ndarray, undo: np.ndarray) -> list[int]:
        engine = self.engine
        engine.put(0, record, undo)
        return np.flatnonzero(engine.legal_action_mask()[0]).tolist()

    def engine_done(self, record: np.ndarray) -> bool:
        """Whether the hand of a one-record array is over (the engine's own ``done``)."""
        done_rows(record, self.engine.cfgs, self._done)
        return bool(self._done[0])

    def observation_text(self, state, seat: int) -> str:
        """What ``seat`` sees now, in words (``rummy_env.render.describe`` from its seat)."""
        if state.is_chance_node() and not state._record["hand_n"][0].any():
            return f"seat {seat}: the deal"
        snap = self.engine_snapshot(state._record, state._undo)
        return describe(snap, observer=seat)

    def state_text(self, state) -> str:
        """The whole position in words, every hand shown."""
        if not state._record["hand_n"][0].any():
            return "the deal: " + " ".join(cards.symbol(card) for card in state._dealt)
        return describe(self.engine_snapshot(state._record, state._undo))

    def engine_snapshot(self, record: np.ndarray, undo: np.ndarray) -> dict:
        return snapshot(self.rules, record[0], undo[0])

    def deal_position(self, deck: list[int], dealer: int) -> tuple[np.ndarray, np.ndarray]:
        engine = self.engine
        engine.reset(decks=[deck], dealers=[dealer], row_seeds=[0])
        return copy_record(engine.state), copy_record(engine.undo_copies)


def copy_record(records: np.ndarray) -> np.ndarray:
    """A copy of one-record arrays, byte for byte (numpy copies a record type field by field, 7x slower)."""
    return records.view(np.uint8).copy().view(records.dtype)


def exact(rewards: np.ndarray) -> np.ndarray:
    """The engine's float32 rewards as the decimals they round (``0.08``, not ``0.07999999821``), centred again
    in float64: a hand's rewards sum to 0 (``rummy_env.engine.common.add_end_rewards``)."""
    if not rewards.any():
        return np.zeros(len(rewards))
    values = np.array([float(str(value)) for value in rewards])
    return values - values.mean()


def game_for_rules(rules: RummyRules, **changes) -> pyspiel.Game:
    """The OpenSpiel game of ``rules`` (a ``RummyRules`` from anywhere: the arena's, a rules file's) with the knobs
    ``changes`` changed, one hand long: ``rummy_<ruleset>`` with every knob that differs from the ruleset at that
    player count, as a parameter or in ``knobs``. Knobs an OpenSpiel game cannot take (``episode``,
    ``illegal_action``) are set to the game's."""
    base = RummyRules.preset(rules.ruleset, num_players=rules.num_players).to_dict()  # (empty knobs left out)
    wanted = rules.replace(**changes).to_dict()
    changed = {knob: wanted.get(knob) for knob in sorted(set(base) | set(wanted))
               if knob not in FIXED and wanted.get(knob) != base.get(knob)}
    parameters = default_knobs(rules.ruleset)
    params = {knob: (first_dealer_parameter(value) if knob == "first_dealer" else value)
              for knob, value in changed.items() if knob in parameters}
    rest = {knob: value for knob, value in changed.items() if knob not in parameters}
    if rest:  # ";" between entries: the game's string then splits back into its parameters
        params["knobs"] = json.dumps(rest, separators=(";", ":"))
    return pyspiel.load_game(f"rummy_{rules.ruleset}", {"players": rules.num_players, **params})


def register(preset: str) -> type:
    """Register ``rummy_<preset>`` with pyspiel (once) and return its game class."""
    cls = type(f"Rummy_{preset}", (RummyGame,), {"PRESET": preset, "GAME_TYPE": game_type(preset)})
    pyspiel.register_game(cls.GAME_TYPE, cls)
    return cls
