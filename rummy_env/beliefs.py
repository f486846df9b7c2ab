"""Belief sampling: game positions consistent with what one seat has seen, uniform or weighted by an
opponent model over the whole public history.

    from rummy_env.beliefs import BeliefModel, sample_worlds
    worlds = sample_worlds(rules, engine.state[row], seat, n=256, seed=0, undo=engine.undo_copies[row])
    worlds.records                     # (256,) game records, e.g. engine.state[:] = worlds.records
    weighted = sample_worlds(rules, engine.state[row], seat, 256, seed=0, model=BeliefModel.default(rules))

A *world* is a copy of the game record in which everything the seat cannot see is drawn again: the cards of
the other hands that are not publicly known (cards taken face up and still held stay where they are), the
order of the stock, and the game's random generator (future rebuilds of the stock). The sampler reads only
what the seat sees (``rummy_env.engine.search.worlds`` says how), so the seat's observation of every world is its
real observation, and two positions that differ only in what the seat cannot see give the same worlds for
the same seed (``tests/test_beliefs.py``).

* **uniform** (``model=None``): every deal of the unseen cards consistent with the seat's view is equally
  likely (a uniformly random permutation of them, dealt to the hidden part of each other hand in seat order
  and then to the stock);
* **weighted** (``model=BeliefModel``): worlds of a Metropolis chain over the consistent deals whose
  stationary law weighs each deal by the model (a move swaps a hidden card of one hand with an unseen card
  elsewhere); the chain starts from a uniform deal, runs ``burn`` moves and keeps a world every ``thin``
  moves, so the worlds are distinct deals (resampling weighted uniform deals instead repeats the few heavy
  ones, and a search would then count one deal many times);
* **oracle** (``oracle=True``, for search agents that see the hidden cards): the other hands are kept as
  they are and only the stock and the generator are drawn again.

``BeliefModel`` is a log-linear opponent model: a world's log-weight is ``weights @ features``, the
features (``rummy_env.engine.search.worlds.FEATURES``) relating each other seat's re-dealt cards to everything that
seat did this hand (``RummyEngine.public_history``: the cards it took, passed and discarded, their meld
partners) and to each other (melds and partner pairs it would hold). ``BeliefModel.default(rules)`` holds
weights fitted by maximum likelihood to positions of ``HeuristicAgent`` self-play
(``python -m rummy_env.training.fit_beliefs --rules basic``); ``log_likelihood_gain`` measures a model: the
log-likelihood of the true hidden cards under it minus under the uniform sampler.
"""

from __future__ import annotations

import dataclasses
import functools

import numpy as np

from rummy_env import cards
from rummy_env.engine.state import state_dtype
from rummy_env.engine.families import family
from rummy_env.engine.search.worlds import FEATURES, NUM_FEATURES, features_rows, mcmc_rows, sample_rows
from rummy_env.inputs import is_integer
from rummy_env.rules import RummyRules

__all__ = ["BeliefModel", "Worlds", "deck_counts", "holding_probabilities", "log_likelihood_gain", "sample_worlds"]

# weights fitted by training/fit_beliefs.py to HeuristicAgent self-play, 2 players (FEATURES order):
#   python -m rummy_env.training.fit_beliefs --rules basic --positions 4000 --worlds 128 --l2 0.001  (held-out gain 3.50 nats)
#   python -m rummy_env.training.fit_beliefs --rules rami51 --positions 1200 --worlds 64  (486 positions; held-out gain 2.23 ± 0.68 nats)
FITTED: dict[str, tuple[float, ...]] = {
    "basic": (-0.4339, -0.5521, -0.4013, -1.7585, -1.5452, -1.2839, -0.2538, -0.0175, -0.4193, -4.7236, -8.0000, -8.0000, -8.0000, 1.0755, 0.0000, -1.4959, -3.4847, -6.8651),
    "rami51": (-0.1217, -0.1081, -0.0219, -1.4979, -1.9387, -0.7375, -0.0970, -0.2188, -0.3722, -1.0568, -0.0448, -0.3772, 0.0144, 0.3497, -0.5923, -0.0759, -0.4491, -0.6001),
}


@dataclasses.dataclass
class Worlds:
    """Sampled worlds: ``records`` ``(n,)`` game records, ``undo`` ``(n,)`` their UNDO copies (rami51 turns
    with tentative plays; a copy of the world otherwise), ``acceptance``: the weighted chain's acceptance
    rate (1 for uniform worlds)."""

    records: np.ndarray
    undo: np.ndarray
    acceptance: float = 1.0

    def __len__(self) -> int:
        return len(self.records)


@functools.lru_cache(maxsize=None)
def deck_counts(rules: RummyRules) -> np.ndarray:
    """Copies of each card type in the deck, ``(T,)`` int64."""
    deck = np.r_[np.tile(np.arange(cards.NUM_NATURAL_TYPES), rules.deck_copies), [cards.JOKER] * rules.num_jokers]
    counts = np.bincount(deck.astype(np.int64), minlength=rules.num_card_types)
    counts.setflags(write=False)
    return counts


def _one_record(record: np.ndarray, name: str) -> np.ndarray:
    array = np.atleast_1d(np.asarray(record))
    if array.dtype.names is None or "hand" not in array.dtype.names or array.shape != (1,):
        raise ValueError(f"{name} must be one game record (engine.state[row] or engine.state[row:row + 1]), got "
                         f"an array of shape {array.shape}")
    return np.ascontiguousarray(array)


class BeliefModel:
    """A log-linear opponent model over worlds (module docstring): ``log_weights(worlds, seat)``."""

    def __init__(self, rules: RummyRules, weights) -> None:
        if rules.ruleset not in FITTED:
            raise ValueError(f"belief models are written for the rule families {sorted(FITTED)}, not "
                             f"{rules.ruleset!r} (its worlds can be sampled uniformly: model=None)")
        weights = np.asarray(weights, dtype=np.float64)
        if weights.shape != (NUM_FEATURES,) or not np.isfinite(weights).all():
            raise ValueError(f"a BeliefModel needs {NUM_FEATURES} finite weights (one per feature: "
                             f"{', '.join(FEATURES)}), got {weights!r}")
        self.rules = rules
        self.weights = weights
        from rummy_env.actions import ActionLayout
        from rummy_env.engine.config import kernel_config

        self.catalogue_bits = kernel_config(rules, ActionLayout.for_rules(rules))[1].catalogue_bits

    @classmethod
    def default(cls, rules: RummyRules) -> BeliefModel:
        """The weights fitted to ``HeuristicAgent`` self-play under the ruleset of ``rules``."""
        return cls(rules, FITTED.get(rules.ruleset, ()))  # a ruleset without fitted weights is refused there

    def features(self, records: np.ndarray, seat: int) -> np.ndarray:
        """``(len(records), NUM_FEATURES)``: the features of each world seen by ``seat``."""
        out = np.zeros((len(records), NUM_FEATURES))
        features_rows(records, int(seat), self.rules.num_players, self.catalogue_bits, out)
        return out

    def log_weights(self, records: np.ndarray, seat: int) -> np.ndarray:
        return self.features(records, seat) @ self.weights


def sample_worlds(rules: RummyRules, record, seat: int, n: int, seed: int = 0, *, undo=None,
                  model: BeliefModel | None = None, burn: int = 500, thin: int = 50, oracle: bool = False) -> Worlds:
    """``n`` worlds of the game ``record`` as seat ``seat`` sees it (module docstring), reproducible from
    ``seed``. ``undo``: the row's copy from before the turn's first play (``engine.undo_copies[row]``), needed
    only once the player to act has played this turn (rami51, R24, R25). ``model``: weighted worlds (a chain of ``burn`` moves, then one world every
    ``thin`` moves)."""
    source = _one_record(record, "record")
    source_undo = source if undo is None else _one_record(undo, "undo")
    if source.dtype != state_dtype(rules) or source_undo.dtype != source.dtype:
        raise ValueError(f"record (and undo) must be game records of ruleset {rules.ruleset!r}: their layout "
                         "differs; pass the rules the engine was built with")
    if not is_integer(seat) or not 0 <= seat < rules.num_players:
        raise ValueError(f"seat must be an integer 0..{rules.num_players - 1}, got {seat!r}")
    if not is_integer(seed):
        raise ValueError(f"seed must be an integer, got {seed!r}")
    if not all(is_integer(value) for value in (n, burn, thin)) or n < 1 or burn < 0 or thin < 1:
        raise ValueError(f"n and thin must be integers >= 1 and burn an integer >= 0, got n={n!r}, burn={burn!r}, "
                         f"thin={thin!r}")
    if model is not None and oracle:
        raise ValueError("an oracle sees the other hands: it has nothing to weigh (model=None with oracle=True)")
    if model is not None and model.rules.ruleset != rules.ruleset:
        raise ValueError(f"the model was built for ruleset {model.rules.ruleset!r}, not {rules.ruleset!r}")
    worlds = np.zeros(n, dtype=source.dtype)
    world_undos = np.zeros(n, dtype=source.dtype)
    seed64 = np.uint64(int(seed) % 2**64)
    turn_copy = family(rules.ruleset).TURN_COPY
    if model is None:
        acceptance = 1.0 if sample_rows(source, source_undo, seat, rules.num_players, seed64, oracle, turn_copy,
                                        deck_counts(rules), worlds, world_undos) >= 0 else -1.0
    else:
        acceptance = mcmc_rows(source, source_undo, seat, rules.num_players, seed64, turn_copy, deck_counts(rules),
                               model.weights, model.catalogue_bits, burn, thin, worlds, world_undos,
                               np.zeros_like(source), np.zeros_like(source))
    if acceptance < 0:
        raise ValueError("the record's card counts are inconsistent (not a position of these rules)")
    return Worlds(worlds, world_undos, acceptance)


def _log_mean_exp(values: np.ndarray) -> float:
    top = values.max()
    return float(top + np.log(np.mean(np.exp(values - top))))


def holding_probabilities(worlds: Worlds | np.ndarray, players: int) -> np.ndarray:
    """``(P, T)``: over the worlds, how often each seat holds at least one card of each type, what a sampler
    believes about the other hands (the seat's own hand and known cards are certain)."""
    records = worlds.records if isinstance(worlds, Worlds) else worlds
    return (records["hand"][:, :players] > 0).mean(axis=0)


def log_likelihood_gain(model: BeliefModel, record, seat: int, candidates: int = 4096, seed: int = 0) -> float:
    """How much more likely ``model`` makes the true hidden cards than the uniform sampler does, in nats:
    ``log P_model(truth) - log P_uniform(truth) = model(truth) - log mean over uniform worlds of exp(model)``
    (the normaliser estimated from ``candidates`` uniform worlds). Positive: the model knows better."""
    source = _one_record(record, "record")
    worlds = sample_worlds(model.rules, source, seat, candidates, seed)
    truth = float(model.log_weights(source, seat)[0])
    return truth - _log_mean_exp(model.log_weights(worlds.records, seat))
