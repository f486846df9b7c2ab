"""Ray RLlib path (``training/train_rllib.py``): the MultiAgentEnv adapter, the action-masking module
and a PPO self-play smoke run on a local Ray instance.

Skipped when Ray RLlib is not installed (``pip install -e ".[rllib]"``). The adapter and module tests
take a few seconds; the training run is marked ``slow`` (about half a minute on two cores):
``python -m pytest tests/test_rllib_smoke.py -m slow``.
"""

from __future__ import annotations

import importlib.util
import math
import os
import sys

import numpy as np
import pytest

pytest.importorskip("ray")
pytest.importorskip("ray.rllib")
torch = pytest.importorskip("torch")

import rummy_env

TRAIN_RLLIB = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "training", "train_rllib.py")


def _load_script():
    if "train_rllib" in sys.modules:
        return sys.modules["train_rllib"]
    spec = importlib.util.spec_from_file_location("train_rllib", TRAIN_RLLIB)
    module = importlib.util.module_from_spec(spec)
    sys.modules["train_rllib"] = module   # required for pickling its classes by value
    spec.loader.exec_module(module)
    return module


tr = _load_script()


def _random_legal(rng, mask) -> int:
    return int(rng.choice(np.flatnonzero(mask)))


# ------------------------------------------------------------------------------ the adapter
@pytest.mark.parametrize("num_players", [2, 3])
def test_adapter_matches_the_aec_env(num_players):
    """Same seed and actions through the adapter and the bare AEC env: only the acting seat observes,
    its mask is the AEC mask, every seat's rewards add up to its AEC total, the last step reaches
    every seat with the AEC env's termination or truncation."""
    rng = np.random.default_rng(num_players)
    env = tr.make_env({"num_players": num_players})
    aec = rummy_env.raw_env("basic", num_players)
    saw_nonzero_reward = False
    for seed in range(4):
        obs, infos = env.reset(seed=seed)
        aec.reset(seed=seed)
        totals = dict.fromkeys(env.possible_agents, 0.0)
        aec_totals = dict.fromkeys(env.possible_agents, 0.0)
        for _ in range(20000):
            assert list(obs) == [aec.agent_selection] and list(infos) == list(obs)
            (agent, o), = obs.items()
            assert env.observation_spaces[agent].contains(o)
            assert o["observations"].dtype == np.float32 and o["action_mask"].dtype == np.float32
            assert np.array_equal(o["action_mask"], aec.observe(agent)["action_mask"]) and o["action_mask"].any()
            action = _random_legal(rng, o["action_mask"])
            obs, rewards, terminateds, truncateds, infos = env.step({agent: action})
            aec.step(action)
            for name, reward in aec.rewards.items():
                aec_totals[name] += reward
            for name, reward in rewards.items():
                assert name in obs, "a reward must come with that seat's observation"
                totals[name] += reward
            if terminateds["__all__"] or truncateds["__all__"]:
                break
        else:
            pytest.fail("hand did not end")
        # Going out terminates the hand; the turn cap (B17) truncates it, as in the AEC env.
        assert terminateds["__all__"] != truncateds["__all__"]
        assert terminateds["__all__"] == all(aec.terminations.values())
        assert truncateds["__all__"] == all(aec.truncations.values())
        assert set(obs) == set(env.possible_agents)
        assert all(terminateds[a] or truncateds[a] for a in env.possible_agents)
        assert all(not o["action_mask"].any() for o in obs.values())
        assert infos["player_0"]["end_reason"] == aec.infos["player_0"]["end_reason"]
        for name in env.possible_agents:
            assert totals[name] == pytest.approx(aec_totals[name], abs=1e-6)
        assert sum(totals.values()) == pytest.approx(0.0, abs=1e-5)
        saw_nonzero_reward |= any(abs(v) > 0 for v in totals.values())
    assert saw_nonzero_reward, "no scored hand in the sample: the reward path was not exercised"


def test_adapter_rejects_an_illegal_action():
    env = tr.make_env({"num_players": 2})
    obs, _ = env.reset(seed=0)
    (agent, o), = obs.items()
    with pytest.raises(ValueError):
        env.step({agent: int(np.flatnonzero(o["action_mask"] == 0)[0])})


# ------------------------------------------------------------------------------ the module
def _module(env):
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    agent = env.possible_agents[0]
    return RLModuleSpec(module_class=tr.MaskedPPOModule, observation_space=env.observation_spaces[agent],
                        action_space=env.action_spaces[agent], model_config={"hidden": [64]}).build()


def _observations(env, rng, count):
    """Observations of the seat to act along a random game (several hands)."""
    out = []
    obs, _ = env.reset(seed=1)
    while len(out) < count:
        (agent, o), = obs.items()
        out.append(o)
        obs, _, terminateds, truncateds, _ = env.step({agent: _random_legal(rng, o["action_mask"])})
        if terminateds["__all__"] or truncateds["__all__"]:
            obs, _ = env.reset()
    return {key: torch.as_tensor(np.stack([o[key] for o in out])) for key in ("observations", "action_mask")}


def test_masked_module_gives_illegal_actions_zero_probability():
    from ray.rllib.core.columns import Columns
    env = tr.make_env({"num_players": 2})
    module = _module(env)
    obs = _observations(env, np.random.default_rng(0), 300)
    mask = obs["action_mask"] > 0.5
    for forward in (module.forward_inference, module.forward_exploration, module.forward_train):
        logits = forward({Columns.OBS: obs})[Columns.ACTION_DIST_INPUTS]
        assert torch.isfinite(logits).all()
        probs = torch.softmax(logits, dim=-1)
        assert (probs[~mask] == 0).all()
        assert torch.allclose((probs * mask).sum(-1), torch.ones(len(probs)), atol=1e-5)
    dist = module.get_exploration_action_dist_cls().from_logits(
        module.forward_exploration({Columns.OBS: obs})[Columns.ACTION_DIST_INPUTS])
    for _ in range(5):
        sample = dist.sample()
        assert mask[torch.arange(len(sample)), sample].all()
    values = module.compute_values({Columns.OBS: obs})
    assert values.shape == (300,) and torch.isfinite(values).all()


# ------------------------------------------------------------------------------ training
def _play_hands(module, seed, hands, greedy):
    """Play whole hands with the module for every seat; the env raises on any illegal action."""
    from ray.rllib.core.columns import Columns
    env = tr.make_env({"num_players": 2, "max_turns_per_round": 30})
    rng = torch.Generator().manual_seed(seed)
    steps = 0
    for hand in range(hands):
        obs, _ = env.reset(seed=seed + hand)
        while True:
            (agent, o), = obs.items()
            batch = {Columns.OBS: {k: torch.as_tensor(v)[None] for k, v in o.items()}}
            logits = module.forward_inference(batch)[Columns.ACTION_DIST_INPUTS][0]
            if greedy:
                action = int(logits.argmax())
            else:
                action = int(torch.multinomial(torch.softmax(logits, -1), 1, generator=rng))
            obs, _, terminateds, truncateds, _ = env.step({agent: action})
            steps += 1
            if terminateds["__all__"] or truncateds["__all__"]:
                break
    return steps


@pytest.mark.slow
def test_ppo_self_play_on_local_ray(tmp_path):
    """Two small PPO iterations through the script's own entry point, with one remote env runner
    (the path a cluster takes), then the saved policy plays whole hands legally."""
    import ray
    from ray.rllib.core.rl_module.rl_module import RLModule

    if ray.is_initialized():
        ray.shutdown()
    checkpoint = tmp_path / "ckpt"
    summaries = tr.main([
        "--num-players", "2", "--max-turns-per-round", "30", "--iterations", "2",
        "--num-env-runners", "1", "--num-cpus", "2", "--train-batch-size", "512", "--minibatch-size", "128",
        "--num-epochs", "2", "--hidden", "64", "64", "--seed", "0", "--checkpoint-dir", str(checkpoint),
    ])
    assert not ray.is_initialized(), "the script must shut down the Ray instance it started"
    assert len(summaries) == 2
    for s in summaries:
        # An env-runner error (e.g. an illegal action: the env raises) would have stopped main() with it;
        # a full batch of env steps proves sampling ran to the end.
        assert s["env_steps"] >= 512
        for key in ("total_loss", "policy_loss", "vf_loss", "entropy", "mean_kl_loss"):
            assert math.isfinite(s[key]), (key, s)
        assert s["entropy"] > 0
    assert sum(s["episodes"] for s in summaries) > 0
    last = summaries[-1]
    assert 0 < last["episode_len_mean"] < 200
    assert last["episode_return_mean"] == pytest.approx(0.0, abs=1e-4)   # zero-sum over the seats
    assert 0.0 <= last["hand_out_rate"] <= 1.0                            # the callback's metric arrived

    module = RLModule.from_checkpoint(str(checkpoint / "learner_group" / "learner" / "rl_module" / tr.POLICY_ID))
    assert isinstance(module, tr.MaskedPPOModule)
    assert _play_hands(module, seed=100, hands=2, greedy=True) > 0
    assert _play_hands(module, seed=200, hands=2, greedy=False) > 0
