"""What other libraries expect of the envs (issue 12, part 6): infos of numbers and arrays only (TorchRL turns
them into tensors), Gymnasium's vector conventions on ``RummyVectorEnv``, Gymnasium's and SB3's ``check_env`` on
``gymnasium.make``, and ``action_masks()`` on what ``gymnasium.make`` returns."""

from __future__ import annotations

import numbers

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import rummy_env
from rummy_env import END_NAMES, PHASE_NAMES, RummyVectorEnv
from rummy_env.sampling import uniform_legal_actions


def numeric(value) -> bool:
    if isinstance(value, np.ndarray):
        return value.dtype.kind in "biuf"
    return isinstance(value, (numbers.Number, np.number)) and not isinstance(value, str)


@pytest.mark.parametrize("players, knobs", [(2, {"max_turns_per_round": 30}), (3, {"episode": "game", "max_hands": 2,
                                                                                  "max_turns_per_round": 20}),
                                            (2, {"rules": "rami51", "max_turns_per_round": 30})])
def test_aec_infos_hold_only_numbers_and_arrays_with_public_code_tables(players, knobs):
    env = rummy_env.env(num_players=players, **knobs)
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    seen_phases, seen_ends = set(), set()
    for agent in env.agent_iter(max_iter=3000):
        observation, _, terminated, truncated, info = env.last()
        for name, value in info.items():
            assert numeric(value), f"info[{name!r}] = {value!r}"
        assert set(info) == {"phase", "hand_scores", "totals", "end_reason", "winner", "action_mask"}
        assert info["hand_scores"].shape == info["totals"].shape == (players,)
        assert -1 <= info["winner"] < players
        seen_phases.add(PHASE_NAMES[info["phase"]])
        seen_ends.add(END_NAMES[info["end_reason"]])
        env.step(None if terminated or truncated else int(rng.choice(np.flatnonzero(observation["action_mask"]))))
    assert {"draw", "play"} <= seen_phases and "none" in seen_ends and len(seen_ends) > 1


def test_torchrl_pettingzoo_wrapper_constructs_and_steps():
    pytest.importorskip("torchrl")
    import torch
    from torchrl.envs.libs.pettingzoo import PettingZooWrapper

    # the mask only in the observation: TorchRL's wrapper fails when it is in the infos too (the native env,
    # tests/test_torchrl_env.py, is the fast path)
    env = PettingZooWrapper(env=rummy_env.env(num_players=2, max_turns_per_round=10, action_mask_in_infos=False),
                            use_mask=True, categorical_actions=True, done_on_any=False)
    td = env.reset(seed=0)
    assert set(td["player_0", "info"].keys()) == {"phase", "hand_scores", "totals", "end_reason", "winner"}
    rng = np.random.default_rng(0)
    for _ in range(200):
        for group in env.group_map:
            mask = td[group, "action_mask"]
            actions = torch.zeros(mask.shape[:-1], dtype=torch.int64)
            for row in range(mask.shape[0]):
                legal = torch.nonzero(mask[row]).flatten()
                if len(legal):
                    actions[row] = legal[int(rng.integers(len(legal)))]
            td[group, "action"] = actions
        td = env.step(td)["next"]
        if td["done"].all():
            break
    assert td["done"].all(), "the turn-capped hand did not end"


def test_vector_env_has_gymnasium_vector_spaces():
    venv = RummyVectorEnv(6, num_players=3, seed=0)
    single_obs, single_action = venv.single_observation_space, venv.single_action_space
    assert venv.observation_space == gymnasium.vector.utils.batch_space(single_obs, 6)
    assert venv.action_space == gymnasium.spaces.MultiDiscrete([single_action.n] * 6)
    assert venv.observation_space["observation"].shape == (6, venv.engine.observation_size)
    assert venv.metadata["autoreset_mode"] == gymnasium.vector.AutoresetMode.SAME_STEP
    observation, infos = venv.reset(seed=1, options=None)
    assert venv.observation_space.contains(observation)
    rng = np.random.default_rng(0)
    for _ in range(50):
        actions = uniform_legal_actions(observation["action_mask"], rng)
        assert venv.action_space.contains(actions)
        observation, rewards, terminations, truncations, infos = venv.step(actions)
        assert venv.observation_space.contains(observation)
    with pytest.raises(ValueError, match="no options"):
        venv.reset(options={"deck": 1})
    venv.close()
    assert venv.closed


def test_gymnasium_and_sb3_check_env_pass_on_gymnasium_make_with_the_penalty_policy():
    env = gymnasium.make(rummy_env.GYM_ID, illegal_action="penalty")
    check_env(env, skip_render_check=True)
    pytest.importorskip("stable_baselines3")
    from stable_baselines3.common.env_checker import check_env as sb3_check_env

    sb3_check_env(gymnasium.make(rummy_env.GYM_ID, illegal_action="penalty"), warn=True)


def test_check_env_needs_the_penalty_policy_because_it_samples_unmasked_actions():
    """What the README says: the checkers step with ``action_space.sample()``, which ignores the mask; under the
    default ``illegal_action="raise"`` such an action raises (by design)."""
    with pytest.raises(rummy_env.IllegalActionError):
        check_env(gymnasium.make(rummy_env.GYM_ID), skip_render_check=True)


def test_action_masks_work_on_what_gymnasium_make_returns():
    env = gymnasium.make(rummy_env.GYM_ID, num_players=3)
    _, info = env.reset(seed=0)
    masks = env.action_masks()
    assert masks.dtype == np.bool_ and masks.shape == (env.action_space.n,)
    np.testing.assert_array_equal(masks, info["action_mask"].astype(bool))
    assert env.get_wrapper_attr("action_masks")().shape == masks.shape
    _, _, _, _, info = env.step(int(np.flatnonzero(masks)[0]))
    np.testing.assert_array_equal(env.action_masks(), info["action_mask"].astype(bool))
    with pytest.raises(RuntimeError, match=r"call reset\(\) first"):
        gymnasium.make(rummy_env.GYM_ID).step(0)
