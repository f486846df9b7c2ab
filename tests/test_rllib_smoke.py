"""Ray RLlib path (``training/train_rllib.py``, ``training/rllib_adapters.py``): the MultiAgentEnv adapter, the
action-masking module, the command line's cluster checks, and a PPO self-play smoke run on a local Ray instance
(checkpoint history, TensorBoard, resume, the policy from numpy arrays and as an ``rllib:`` agent).

Skipped when Ray RLlib is not installed (``make test-all`` installs it). The adapter and module tests take a
few seconds; the training run is marked ``slow`` (about a minute on two cores):
``python -m pytest tests/test_rllib_smoke.py -m slow``. ``tests/test_rllib_cluster.py`` runs a two-node cluster.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("ray")
pytest.importorskip("ray.rllib")
torch = pytest.importorskip("torch")

import rummy_env  # noqa: E402
from rummy_env.training import train_rllib as tr  # noqa: E402

REPO = Path(__file__).resolve().parent.parent


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


def test_the_module_takes_numpy_arrays_as_the_guide_shows():
    from ray.rllib.core.columns import Columns
    env = tr.make_env({"num_players": 2})
    module = _module(env)
    obs = {key: value.numpy() for key, value in _observations(env, np.random.default_rng(1), 20).items()}
    logits = module.forward_inference({Columns.OBS: obs})[Columns.ACTION_DIST_INPUTS]
    assert logits.shape == (20, env.action_spaces["player_0"].n)
    chosen = logits.argmax(-1).numpy()
    assert (obs["action_mask"][np.arange(20), chosen] == 1).all()


# ------------------------------------------------------------------------------ the command line
def test_ray_address_is_honoured_without_address(monkeypatch):
    calls = []
    monkeypatch.setattr(tr.ray, "is_initialized", lambda: False)
    monkeypatch.setattr(tr.ray, "init", lambda **kwargs: calls.append(kwargs))
    monkeypatch.setenv("RAY_ADDRESS", "10.1.2.3:6379")
    assert tr.connect(None, None) is True and calls[-1] == {"address": "10.1.2.3:6379"}
    assert tr.connect("auto", None) and calls[-1] == {"address": "auto"}          # --address wins
    with pytest.raises(SystemExit, match="--num-cpus sizes a local Ray instance"):
        tr.connect(None, 4)
    monkeypatch.delenv("RAY_ADDRESS")
    tr.connect(None, 2)
    assert calls[-1] == {"address": "local", "num_cpus": 2, "include_dashboard": False}


def test_more_env_runners_than_cluster_cpus_fail_fast_with_a_message():
    with pytest.raises(SystemExit, match=r"needs 3 CPUs \(3 env runners, one CPU each\), but the Ray cluster has 2 CPUs"):
        tr.check_resources(3, 0, 0, {"CPU": 2.0})
    with pytest.raises(SystemExit, match="needs 4 CPUs .* and 2 learners"):
        tr.check_resources(2, 2, 0, {"CPU": 3.0})
    with pytest.raises(SystemExit, match="and 1 GPUs, but the Ray cluster has 8 CPUs and 0 GPUs"):
        tr.check_resources(2, 1, 1, {"CPU": 8.0})
    tr.check_resources(2, 0, 0, {"CPU": 2.0})
    tr.check_resources(0, 0, 0, {"CPU": 1.0})


def test_a_new_run_into_a_run_folder_is_refused(tmp_path):
    (tmp_path / "checkpoint_000002").mkdir()
    with pytest.raises(SystemExit, match=r"--out .* already holds a run .*--resume .*checkpoint_000002"):
        tr.main(["--out", str(tmp_path), "--iterations", "1"])


# ------------------------------------------------------------------------------ training
@pytest.mark.slow
def test_ppo_self_play_on_local_ray_checkpoints_history_tensorboard_resume_and_the_policy(tmp_path, capsys):
    """Two small PPO iterations through the script's own entry point, with one remote env runner (the path a
    cluster takes), a checkpoint after each; a resume to three; then the saved policy plays whole hands legally,
    from numpy arrays as the guide shows and as an ``rllib:`` agent."""
    import ray
    from ray.rllib.core.rl_module.rl_module import RLModule

    if ray.is_initialized():
        ray.shutdown()
    out = tmp_path / "run"
    small = ["--num-env-runners", "1", "--num-cpus", "2"]
    summaries = tr.main([
        "--num-players", "2", "--max-turns-per-round", "30", "--iterations", "2", "--train-batch-size", "512",
        "--minibatch-size", "128", "--num-epochs", "2", "--hidden", "64", "64", "--seed", "0", "--out", str(out),
        "--checkpoint-every", "1", *small])
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

    # a history of checkpoints, each with the run's settings, and the TensorBoard log
    assert sorted(path.name for path in out.glob("checkpoint_*")) == ["checkpoint_000001", "checkpoint_000002"]
    assert (out / "checkpoint_000001" / tr.RUN_FILE).is_file()
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator
    events = EventAccumulator(str(out / "logs")).Reload()
    steps = [event.step for event in events.Scalars("rllib/entropy")]
    assert len(steps) == 2 and steps[0] < steps[1]

    # resuming from the last checkpoint continues the run in its folder; from an earlier one is refused
    with pytest.raises(SystemExit, match="later checkpoints than the one resumed"):
        tr.main(["--resume", str(out / "checkpoint_000001"), "--iterations", "3", *small])
    with pytest.raises(SystemExit):
        tr.main(["--resume", str(out / "checkpoint_000002"), "--iterations", "3", "--lr", "0.1", *small])
    assert "--lr 0.1 contradicts the checkpoint's 0.0003" in capsys.readouterr().err
    resumed = tr.main(["--resume", str(out / "checkpoint_000002"), "--iterations", "3", *small])
    assert len(resumed) == 1 and (out / "checkpoint_000003").is_dir()
    assert len(EventAccumulator(str(out / "logs")).Reload().Scalars("rllib/entropy")) == 3

    module = RLModule.from_checkpoint(str(out / "checkpoint_000003" / "learner_group" / "learner" / "rl_module"
                                          / tr.POLICY_ID))
    assert isinstance(module, tr.MaskedPPOModule)
    assert _play_hands(module, seed=100, hands=2, greedy=True) > 0
    assert _play_hands(module, seed=200, hands=2, greedy=False) > 0

    # the guide's snippet, as written there, with this run's checkpoint
    guide = (REPO / "training" / "RLLIB.md").read_text()
    snippet = guide[guide.index("```python\nimport numpy as np"):].split("```")[1].removeprefix("python\n")
    namespace: dict = {}
    exec(snippet.replace("runs/rllib/checkpoint_000020", str(out / "checkpoint_000003")), namespace)
    assert namespace["logits"].shape == (1, module.action_space.n)

    # the arena's rllib: agent plays a few seeded games against the random agent
    from rummy_env.agents.registry import make_agent
    from rummy_env.rules import make_rules
    rules = make_rules("basic", max_turns_per_round=30)
    agent = make_agent(f"rllib:{out}", rules)
    engine = rummy_env.RummyEngine(rules, batch_size=16)
    engine.reset(seed=0)
    rng = np.random.default_rng(0)
    for _ in range(200):
        mask = engine.legal_action_mask().copy()
        actions = agent.act(engine.observe(), mask, rng)
        assert mask[np.arange(16), actions].all()
        engine.step(actions)
        engine.reset(rows=engine.done.copy())
    with pytest.raises(ValueError, match="sizes"):
        make_agent(f"rllib:{out}", make_rules("basic", num_players=3))
