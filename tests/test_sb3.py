"""``RummySB3VecEnv`` with stable-baselines3 / sb3-contrib: the VecEnv contract (shapes, dtypes, SB3's
auto-reset with ``terminal_observation`` exactly for done rows, ``env_method("action_masks")``), SB3's own
env checker on ``RummyGymEnv``, and a short ``MaskablePPO`` run (the env raises on any illegal action, so
finishing the run means every sampled action was legal)."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("stable_baselines3")
sb3_contrib = pytest.importorskip("sb3_contrib")

from stable_baselines3.common.callbacks import BaseCallback
from stable_baselines3.common.env_checker import check_env as sb3_check_env
from stable_baselines3.common.vec_env import VecEnv

from rummy_env import RummyGymEnv
from rummy_env.envs.sb3 import RummySB3VecEnv
from rummy_env.sampling import uniform_legal_actions

NUM_ENVS = 64


def masked_random_actions(venv: RummySB3VecEnv, rng: np.random.Generator) -> np.ndarray:
    return uniform_legal_actions(venv.action_masks().astype(np.int8), rng)


def test_sb3_env_checker_accepts_the_single_env():
    sb3_check_env(RummyGymEnv(num_players=2, illegal_action="penalty"), warn=True)


def test_vec_env_reset_step_shapes_and_autoreset_infos():
    venv = RummySB3VecEnv(num_envs=NUM_ENVS, num_players=2, seed=0, max_turns_per_round=25)
    assert isinstance(venv, VecEnv) and venv.num_envs == NUM_ENVS
    size, actions = venv.observation_space.shape[0], venv.action_space.n
    observation = venv.reset()
    assert observation.shape == (NUM_ENVS, size)
    assert np.all(observation == np.round(observation)) and observation.min() >= 0 and observation.max() <= 127
    rng = np.random.default_rng(0)
    done_rows = truncated_rows = 0
    for _ in range(80):
        masks = venv.action_masks()
        assert masks.shape == (NUM_ENVS, actions) and masks.dtype == np.bool_ and masks.any(axis=1).all()
        listed = venv.env_method("action_masks")
        assert isinstance(listed, list) and len(listed) == NUM_ENVS
        np.testing.assert_array_equal(np.stack(listed), masks)
        some = venv.env_method("action_masks", indices=[3, 17])
        assert len(some) == 2
        np.testing.assert_array_equal(some[0], masks[3])
        np.testing.assert_array_equal(some[1], masks[17])
        final_obs_before = venv.vector_env._final_obs  # a live buffer: filled during the step below
        observation, rewards, dones, infos = venv.step(masked_random_actions(venv, rng))
        assert observation.shape == (NUM_ENVS, size)
        assert rewards.shape == (NUM_ENVS,) and rewards.dtype == np.float32 and np.isfinite(rewards).all()
        assert dones.shape == (NUM_ENVS,) and dones.dtype == np.bool_
        assert isinstance(infos, list) and len(infos) == NUM_ENVS
        for row, info in enumerate(infos):
            assert ("terminal_observation" in info) == bool(dones[row]), f"row {row}"
            if not dones[row]:
                continue
            done_rows += 1
            terminal = info["terminal_observation"]
            assert terminal.shape == (size,)
            np.testing.assert_array_equal(terminal, final_obs_before[row])
            assert not np.array_equal(terminal, observation[row]), "the terminal observation is not the reset one"
            truncated = info["TimeLimit.truncated"]
            assert isinstance(truncated, bool)
            truncated_rows += truncated
            assert isinstance(info["hand_score"], int)
        # the returned observation is the learner's view of the (possibly new) episode in every row
        engine = venv.vector_env.core.engine
        np.testing.assert_array_equal(observation, engine.observe(venv.vector_env.core.seats))
    assert done_rows > 0 and truncated_rows > 0


def test_vec_env_observations_have_the_declared_space_dtype():
    """SB3's env checker (``_check_obs``) requires ``np.can_cast(obs.dtype, observation_space.dtype)``; the
    VecEnv's observation space is ``Box(0, 127, (O,), int8)``."""
    venv = RummySB3VecEnv(num_envs=4, num_players=2, seed=1, max_turns_per_round=6)
    space = venv.observation_space
    observation = venv.reset()
    assert np.can_cast(observation.dtype, space.dtype), (
        f"reset() returns {observation.dtype} observations for an observation space of dtype {space.dtype}")
    rng = np.random.default_rng(1)
    for _ in range(30):
        observation, _, dones, infos = venv.step(masked_random_actions(venv, rng))
        assert np.can_cast(observation.dtype, space.dtype), (
            f"step() returns {observation.dtype} observations for an observation space of dtype {space.dtype}")
        for row in np.flatnonzero(dones):
            terminal = infos[row]["terminal_observation"]
            assert np.can_cast(terminal.dtype, space.dtype)


def test_vec_env_seed_reproduces_the_rollout():
    def rollout(seed):
        venv = RummySB3VecEnv(num_envs=8, num_players=3, max_turns_per_round=10)
        venv.seed(seed)
        observations = [venv.reset().copy()]
        outcomes = []
        rng = np.random.default_rng(0)
        for _ in range(25):
            observation, rewards, dones, _ = venv.step(masked_random_actions(venv, rng))
            observations.append(observation.copy())
            outcomes.append(np.stack([rewards, dones]))
        return np.concatenate([np.stack(observations).ravel(), np.stack(outcomes).ravel()])

    np.testing.assert_array_equal(rollout(4), rollout(4))
    assert not np.array_equal(rollout(4), rollout(5))


class RolloutChecker(BaseCallback):
    """Checks SB3's auto-reset convention on every rollout step and records the actions taken."""

    def __init__(self):
        super().__init__()
        self.problems: list[str] = []
        self.steps = 0
        self.done_rows = 0

    def _on_step(self) -> bool:
        dones, infos = self.locals["dones"], self.locals["infos"]
        self.steps += 1
        for row, info in enumerate(infos):
            if ("terminal_observation" in info) != bool(dones[row]):
                self.problems.append(f"step {self.steps} row {row}: terminal_observation vs done={dones[row]}")
        self.done_rows += int(np.sum(dones))
        return True


def test_maskable_ppo_smoke():
    torch = pytest.importorskip("torch")
    torch.set_num_threads(1)
    from sb3_contrib import MaskablePPO
    from sb3_contrib.common.maskable.utils import get_action_masks

    venv = RummySB3VecEnv(num_envs=NUM_ENVS, num_players=2, seed=0, max_turns_per_round=40)
    masks = get_action_masks(venv)  # what MaskablePPO calls
    assert masks.shape == (NUM_ENVS, venv.action_space.n)
    model = MaskablePPO("MlpPolicy", venv, n_steps=64, batch_size=1024, n_epochs=2, learning_rate=3e-4,
                        policy_kwargs={"net_arch": [32]}, seed=0, device="cpu", verbose=0)
    checker = RolloutChecker()
    model.learn(total_timesteps=4096, callback=checker)  # an illegal action would raise IllegalActionError
    assert model.num_timesteps >= 4096
    assert checker.problems == [], checker.problems[:5]
    assert checker.steps == 64 and checker.done_rows > 0
    logged = model.logger.name_to_value
    for key in ("train/entropy_loss", "train/policy_gradient_loss", "train/value_loss", "train/loss",
                "train/approx_kl", "train/clip_fraction"):
        assert key in logged, f"{key} not logged; logged: {sorted(logged)}"
        assert np.isfinite(logged[key]), f"{key} = {logged[key]}"
    assert logged["train/entropy_loss"] < 0, "entropy of a masked policy over several legal actions is positive"

    # the trained policy, masked, only picks legal actions
    observation = venv.reset()
    for _ in range(10):
        masks = np.stack(venv.env_method("action_masks"))
        np.testing.assert_array_equal(masks, venv.action_masks())
        actions, _ = model.predict(observation, action_masks=masks, deterministic=False)
        assert masks[np.arange(NUM_ENVS), actions].all()
        observation, rewards, _, _ = venv.step(actions)
        assert np.isfinite(rewards).all()
