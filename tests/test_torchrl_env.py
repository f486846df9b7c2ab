"""The native TorchRL env (``rummy_env.envs.torchrl_env``, issue 30): TorchRL's own spec check in both ways of
playing, the same games as ``RummyVectorEnv`` and ``RummyGymVectorEnv`` step for step, rollouts that keep every
step (no buffer reused under them), and bad input refused. The masked PPO loop of TorchRL's own runs as the
guide's snippet (docs/guides/libraries.md, tests/test_docs.py)."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("torchrl")

from torchrl.envs import ActionMask, TransformedEnv  # noqa: E402
from torchrl.envs.utils import check_env_specs  # noqa: E402

import rummy_env  # noqa: E402
from rummy_env.envs.single_agent import RummyGymVectorEnv  # noqa: E402
from rummy_env.envs.torchrl_env import RummyTorchRLEnv  # noqa: E402
from rummy_env.sampling import pick_legal_actions  # noqa: E402


@pytest.mark.parametrize("preset,players,opponent", [("basic", 3, None), ("rami51", 2, None), ("gin", 2, None),
                                                     ("basic", 2, "random"), ("rami51", 2, "heuristic")])
def test_check_env_specs_and_a_long_rollout(preset, players, opponent):
    env = TransformedEnv(RummyTorchRLEnv(6, preset, num_players=players, opponent=opponent, max_turns_per_round=20),
                         ActionMask())
    check_env_specs(env, seed=3)
    rollout = env.rollout(400, break_when_any_done=False)
    assert rollout.shape == (6, 400) and rollout["next", "done"].sum() > 6  # rows ended and were dealt again
    reward = rollout["next", "reward"]
    assert reward.shape[-1] == (players if opponent is None else 1)
    if opponent is None:
        assert torch.allclose(reward.sum(-1), torch.zeros(()), atol=1e-5)  # zero-sum in self-play
    taken = rollout["action"]
    legal = rollout["action_mask"].gather(-1, taken.unsqueeze(-1))
    assert legal.all()


def _pick(mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    actions = np.zeros(mask.shape[0], dtype=np.int64)
    pick_legal_actions(np.ascontiguousarray(mask.astype(np.int8)), rng.random(mask.shape[0]), actions)
    return actions


@pytest.mark.parametrize("preset", ["basic", "rami51"])
def test_self_play_is_the_vector_env_step_for_step(preset):
    """Same seed, same actions: the same observations, masks, rewards and ends as ``RummyVectorEnv`` (whose rows
    reset inside ``step``; TorchRL resets them through ``_reset``), and a rollout kept whole."""
    rows, rng = 8, np.random.default_rng(0)
    vector = rummy_env.RummyVectorEnv(rows, preset, seed=11, max_turns_per_round=15)
    env = RummyTorchRLEnv(rows, preset, seed=11, max_turns_per_round=15)
    observation, _ = vector.reset()
    td = env.reset()
    kept, ended = [], 0
    for _ in range(300):
        assert np.array_equal(td["observation"].numpy(), observation["observation"])
        assert np.array_equal(td["action_mask"].numpy(), observation["action_mask"].astype(bool))
        assert np.array_equal(td["current_player"].numpy(), vector.engine.state["current"])
        kept.append(td["observation"])
        actions = _pick(observation["action_mask"], rng)
        td["action"] = torch.from_numpy(actions)
        result, td = env.step_and_maybe_reset(td)
        observation, rewards, terminated, truncated, infos = vector.step(actions)
        assert np.allclose(result["next", "reward"].numpy(), rewards)
        ended_rows = np.flatnonzero(infos["_final"])
        assert np.array_equal(result["next", "observation"].numpy()[ended_rows], infos["final_observation"][ended_rows])
        assert np.array_equal(result["next", "terminated"].numpy()[:, 0], terminated)
        assert np.array_equal(result["next", "truncated"].numpy()[:, 0], truncated)
        ended += int((terminated | truncated).sum())
    assert ended > rows
    assert len({bytes(o.numpy()) for o in kept}) == len(kept)  # every step's tensors are its own


@pytest.mark.parametrize("opponent", [None, "random"])
def test_the_fast_step_and_reset_is_torchrls_own(opponent):
    """``RummyTorchRLEnv.step_and_maybe_reset`` (one pass over the engine) gives what TorchRL's generic
    ``EnvBase.step_and_maybe_reset`` (step, then ``_reset`` of the ended rows merged by ``torch.where``) gives."""
    from torchrl.envs import EnvBase

    rows, rng = 8, np.random.default_rng(3)
    fast, generic = (RummyTorchRLEnv(rows, "basic", opponent=opponent, seed=2, max_turns_per_round=10) for _ in range(2))
    td_fast, td_generic = fast.reset(), generic.reset()
    ended = 0
    for _ in range(150):
        actions = torch.from_numpy(_pick(td_fast["action_mask"].numpy(), rng))
        td_fast["action"], td_generic["action"] = actions, actions.clone()
        step_fast, td_fast = fast.step_and_maybe_reset(td_fast)
        step_generic, td_generic = EnvBase.step_and_maybe_reset(generic, td_generic)
        for key in ("observation", "action_mask", "current_player", "reward", "done", "terminated", "truncated"):
            assert torch.equal(step_fast["next", key], step_generic["next", key]), key
        assert set(td_fast.keys(True, True)) == set(td_generic.keys(True, True))  # the action kept, as step_mdp does
        for key in td_generic.keys(True, True):  # the action left in the root is the next policy call's to
            if key != "action":                  # overwrite (TorchRL's generic path does not keep it as taken)
                assert torch.equal(td_fast[key], td_generic[key]), key
        ended += int(step_fast["next", "done"].sum())
    assert ended > rows


def test_against_an_opponent_is_the_gym_vector_env_step_for_step():
    rows, rng = 8, np.random.default_rng(1)
    gym = RummyGymVectorEnv(rows, "basic", opponent="random", learner_seat="random", max_turns_per_round=12)
    env = RummyTorchRLEnv(rows, "basic", opponent="random", learner_seat="random", seed=5, max_turns_per_round=12)
    observation, _ = gym.reset(seed=5)
    td = env.reset()
    ended = 0
    for _ in range(200):
        assert np.array_equal(td["observation"].numpy(), observation)
        assert np.array_equal(td["current_player"].numpy(), gym.core.seats)
        actions = _pick(gym.action_masks(), rng)
        td["action"] = torch.from_numpy(actions)
        result, td = env.step_and_maybe_reset(td)
        observation, rewards, terminated, truncated, _ = gym.step(actions)
        assert np.allclose(result["next", "reward"].numpy()[:, 0], rewards)
        assert np.array_equal(result["next", "done"].numpy()[:, 0], terminated | truncated)
        ended += int((terminated | truncated).sum())
    assert ended > rows


def test_bad_input_is_refused():
    with pytest.raises(ValueError, match="num_envs"):
        RummyTorchRLEnv(0, "basic")
    with pytest.raises(ValueError, match="learner_seat"):
        RummyTorchRLEnv(2, "basic", opponent="random", learner_seat=5)
    env = RummyTorchRLEnv(2, "basic", seed=0)
    td = env.reset()
    illegal = (~td["action_mask"]).int().argmax(-1)
    td["action"] = illegal
    with pytest.raises(ValueError) as refused:
        env.step(td)
    assert type(refused.value).__name__ == "IllegalActionError" and str(refused.value)


def test_a_seed_set_midway_waits_for_a_full_reset():
    """``set_seed`` between steps must not re-deal rows that TorchRL does not reset (their tensors would go
    stale): partial resets deal only the ``"_reset"`` rows; the next full reset deals from the seed."""
    rows, rng = 6, np.random.default_rng(4)
    env = TransformedEnv(RummyTorchRLEnv(rows, "basic", seed=1, max_turns_per_round=6), ActionMask())
    td = env.reset()
    env.set_seed(9)
    for _ in range(60):
        td["action"] = torch.from_numpy(_pick(td["action_mask"].numpy(), rng))
        _, td = env.step_and_maybe_reset(td)  # an illegal action from a stale mask would raise
        engine_mask = env.base_env.engine.legal_action_mask().astype(bool)
        assert np.array_equal(td["action_mask"].numpy(), engine_mask)
    env.set_seed(9)
    first = env.reset()["observation"].clone()
    env.set_seed(9)
    assert torch.equal(env.reset()["observation"], first)
