"""``agents.Policy``: every agent kind of ``make_agent`` is one, and answers a batch with legal actions."""

from __future__ import annotations

import numpy as np
import pytest

from rummy_env.agents import Policy
from rummy_env.agents.registry import make_agent
from rummy_env import RummyEngine
from rummy_env.rules import make_rules

BASELINE_CASES = [("basic", "random"), ("basic", "greedy"), ("basic", "heuristic"),
                  ("rami51", "random"), ("rami51", "greedy"), ("rami51", "heuristic")]


def assert_acts_legally(agent: Policy, rules, batch: int = 8) -> None:
    engine = RummyEngine(rules, batch_size=batch, parallel=False)
    engine.reset(seed=0)
    mask = engine.legal_action_mask().copy()
    actions = agent.act(engine.observe(), mask, np.random.default_rng(0))
    assert actions.shape == (batch,) and np.issubdtype(actions.dtype, np.integer)
    assert mask[np.arange(batch), actions].all()


@pytest.mark.parametrize(("ruleset", "spec"), BASELINE_CASES)
def test_baseline_agents_are_policies(ruleset, spec):
    rules = make_rules(ruleset, 2)
    agent = make_agent(spec, rules)
    assert isinstance(agent, Policy)
    assert_acts_legally(agent, rules)


def test_ppo_agent_is_a_policy(tmp_path):
    pytest.importorskip("torch")
    from test_ppo_selfplay import tiny_config

    from rummy_env.training.ppo_selfplay import Trainer, atomic_save

    trainer = Trainer(tiny_config())  # untrained weights are enough: the file format is the point
    path = tmp_path / "policy.pt"
    atomic_save(trainer.policy_content(), str(path))
    rules = make_rules("basic", 2)
    agent = make_agent(f"ppo:{path}", rules)
    assert isinstance(agent, Policy)
    assert_acts_legally(agent, rules)


def test_sb3_agent_is_a_policy(tmp_path):
    pytest.importorskip("torch")
    sb3_contrib = pytest.importorskip("sb3_contrib")
    from rummy_env.envs.sb3 import RummySB3VecEnv

    model = sb3_contrib.MaskablePPO("MlpPolicy", RummySB3VecEnv(num_envs=2, seed=0), n_steps=8, batch_size=16,
                                    policy_kwargs={"net_arch": [8]}, device="cpu")
    model.save(tmp_path / "model.zip")
    rules = make_rules("basic", 2)
    agent = make_agent(f"sb3:{tmp_path / 'model.zip'}", rules)
    assert isinstance(agent, Policy)
    assert_acts_legally(agent, rules)


def test_an_object_without_act_is_not_a_policy():
    assert not isinstance(object(), Policy)
