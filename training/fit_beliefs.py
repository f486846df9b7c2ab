"""Fit the weights of ``rummy_env.beliefs.BeliefModel`` to an opponent's play, by maximum likelihood.

    python -m rummy_env.training.fit_beliefs --rules basic --positions 3000 --worlds 256

1. Play ``--positions`` / 2 hands between two copies of the opponent (``--opponent``, default the heuristic)
   and keep, at a random start of turn of each hand, the position as each seat would see it (one per seat);
2. for every position, the features (``rummy_env.engine.search.worlds.FEATURES``) of the true deal and of
   ``--worlds`` uniform worlds consistent with that seat's view;
3. maximise the log-likelihood of the true deals under the log-linear model ``P(world) ∝ exp(w @ f(world))``
   restricted to the consistent deals, its normaliser estimated from the uniform worlds, with a small L2
   penalty (a convex problem: Newton's method);
4. report, on the held-out fifth of the positions, the mean log-likelihood gain over the uniform sampler
   (``log_likelihood_gain``, nats per position) and print the weights for ``rummy_env.beliefs.FITTED``.
"""

from __future__ import annotations

import argparse
import sys
from typing import Sequence

import numpy as np

from rummy_env import RummyEngine
from rummy_env.agents.base import act_on
from rummy_env.agents.registry import make_agent
from rummy_env.beliefs import BeliefModel, sample_worlds
from rummy_env.engine.state import PHASE_DRAW
from rummy_env.engine.search.worlds import FEATURES, NUM_FEATURES
from rummy_env.inputs import seed_type
from rummy_env.rules import RummyRules, make_rules


def collect_positions(rules: RummyRules, opponent: str, hands: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Records at a random start of turn of ``hands`` hands of ``opponent`` self-play, and the seat to act
    there: ``(records, seats)``."""
    agent = make_agent(opponent, rules)
    engine = RummyEngine(rules, hands, parallel=False)
    engine.reset(seed=seed)
    rng = np.random.default_rng(seed)
    stop_at = rng.integers(2, 40, size=hands)  # the turn at which each hand's position is kept
    kept = np.zeros(hands, dtype=bool)
    taken = np.zeros(hands, dtype=bool)
    records = engine.state.copy()
    while not kept.all():
        live = ~engine.done & ~kept
        take = live & (engine.phase == PHASE_DRAW) & (engine.state["turns"] >= stop_at)
        records[take] = engine.state[take]
        taken |= take
        kept |= take | (engine.done & ~kept)
        live &= ~take
        if not live.any():
            break
        mask, observation = engine.legal_action_mask(), engine.observe()
        actions = mask.argmax(axis=1).astype(np.int64)
        actions[live] = act_on(agent, observation[live], mask[live], rng, engine.state[live], engine.undo_copies[live])
        engine.step(actions, rows=live)
    return records[taken], records["current"][taken].astype(np.int64)


def feature_sets(rules: RummyRules, records: np.ndarray, seats: np.ndarray, worlds: int,
                 seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Features of the true deal ``(N, F)`` and of ``worlds`` uniform worlds per position ``(N, W, F)``."""
    model = BeliefModel(rules, np.zeros(NUM_FEATURES))
    truth = np.zeros((len(records), NUM_FEATURES))
    uniform = np.zeros((len(records), worlds, NUM_FEATURES))
    for i, (record, seat) in enumerate(zip(records, seats)):
        truth[i] = model.features(records[i:i + 1], int(seat))[0]
        uniform[i] = model.features(sample_worlds(rules, records[i:i + 1], int(seat), worlds, seed + i).records,
                                    int(seat))
    return truth, uniform


def log_likelihood(weights: np.ndarray, truth: np.ndarray, uniform: np.ndarray) -> np.ndarray:
    """Per position: ``w @ f(truth) - log mean_k exp(w @ f(world_k))`` (the gain over uniform, nats)."""
    scores = uniform @ weights
    top = scores.max(axis=1)
    return truth @ weights - top - np.log(np.exp(scores - top[:, None]).mean(axis=1))


MAX_WEIGHT = 8.0  # what never happened in the fitted play may still happen: a factor e**-8, not zero


def fit(truth: np.ndarray, uniform: np.ndarray, l2: float = 1e-2, steps: int = 50) -> np.ndarray:
    """Newton's method on the penalised mean log-likelihood (concave); weights clipped to ``MAX_WEIGHT``."""
    scale = np.maximum(np.abs(uniform).reshape(-1, uniform.shape[-1]).std(axis=0), 1e-6)
    t, u = truth / scale, uniform / scale
    weights = np.zeros(truth.shape[1])
    for _ in range(steps):
        scores = u @ weights
        p = np.exp(scores - scores.max(axis=1, keepdims=True))
        p /= p.sum(axis=1, keepdims=True)
        mean = (p[:, :, None] * u).sum(axis=1)
        gradient = (t - mean).mean(axis=0) - l2 * weights
        centred = u - mean[:, None, :]
        hessian = -np.einsum("nk,nki,nkj->ij", p, centred, centred) / len(t) - l2 * np.eye(len(weights))
        step = np.linalg.solve(hessian, gradient)
        weights -= step
        if np.abs(step).max() < 1e-8:
            break
    return np.clip(weights / scale, -MAX_WEIGHT, MAX_WEIGHT)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rules", default="basic")
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--opponent", default="heuristic")
    parser.add_argument("--positions", type=int, default=3000)
    parser.add_argument("--worlds", type=int, default=256)
    parser.add_argument("--seed", type=seed_type(2**63 - 1), default=0)
    parser.add_argument("--l2", type=float, default=1e-2, help="L2 penalty on the standardised weights")
    args = parser.parse_args(argv)
    rules = make_rules(args.rules, args.players)
    records, seats = collect_positions(rules, args.opponent, args.positions, args.seed)
    truth, uniform = feature_sets(rules, records, seats, args.worlds, args.seed)
    held_out = np.arange(len(records)) % 5 == 0
    weights = fit(truth[~held_out], uniform[~held_out], args.l2)
    gain = log_likelihood(weights, truth[held_out], uniform[held_out])
    print(f"{len(records)} positions ({held_out.sum()} held out); log-likelihood gain over uniform on held-out "
          f"positions: {gain.mean():.3f} ± {1.96 * gain.std(ddof=1) / np.sqrt(held_out.sum()):.3f} nats")
    for name, weight in zip(FEATURES, weights):
        print(f"  {name:>16}: {weight:+.4f}")
    print(f'FITTED["{args.rules}"] = ({", ".join(f"{w:.4f}" for w in weights)})')


if __name__ == "__main__":
    from rummy_env.cli import guarded

    sys.exit(guarded("python -m rummy_env.training.fit_beliefs", main))
