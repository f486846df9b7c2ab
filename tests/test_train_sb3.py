"""``training/train_sb3.py`` smoke run (CleanRL-style tiny budget): it writes the best, final and
periodic models, and a saved model is an arena agent (``sb3:PATH``) that plays only legal moves."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("sb3_contrib")

from rummy_env.agents.registry import make_agent
from rummy_env.envs.vector import RummyVectorEnv
from rummy_env.rules import RummyRules
from rummy_env.training import train_sb3


@pytest.fixture
def keep_torch_threads():
    """The run sets torch's thread count; give the other tests of this process theirs back."""
    threads = torch.get_num_threads()
    yield
    torch.set_num_threads(threads)


def test_a_tiny_run_saves_models_that_the_registry_loads_and_plays(tmp_path, keep_torch_threads):
    args = train_sb3.parse_args(["--timesteps", "256", "--num-envs", "8", "--n-steps", "16", "--eval-freq", "128",
                                 "--eval-episodes", "4", "--eval-envs", "4", "--torch-threads", "1",
                                 "--out", str(tmp_path), "--seed", "0"])
    model = train_sb3.train(args)
    assert model.num_timesteps == 256
    assert {"best_model.zip", "final_model.zip", "progress.csv", "evaluations.npz"} <= {p.name for p in tmp_path.iterdir()}
    assert sorted(p.name for p in (tmp_path / "checkpoints").iterdir()) == ["sb3_128_steps.zip", "sb3_256_steps.zip"]

    rules = RummyRules.preset("basic", num_players=2)
    agent = make_agent(f"sb3:{tmp_path / 'best_model.zip'}", rules)
    env = RummyVectorEnv(16, rules=rules, seed=1)   # the engine raises on any illegal action
    observation, _ = env.reset()
    rng = np.random.default_rng(0)
    for _ in range(60):
        actions = agent.act(observation["observation"], observation["action_mask"], rng)
        assert observation["action_mask"][np.arange(16), actions].all()
        observation, *_ = env.step(actions)

    with pytest.raises(ValueError, match="sizes"):
        make_agent(f"sb3:{tmp_path / 'final_model.zip'}", RummyRules.preset("basic", num_players=4))
