"""The batched training interfaces: ``RummyVectorEnv`` (native multi-agent self-play), ``RummyGymEnv`` and
``RummyGymVectorEnv`` (the learner in one seat, opponents inside), and the Gymnasium registration.

What is checked, and how:

* Gymnasium's ``check_env`` on ``RummyGymEnv``; observations inside the space (int8) at every step of
  random masked rollouts; ``action_masks()`` == ``info["action_mask"]``, nonempty until the episode ends.
* ``gymnasium.make_vec(GYM_ID, vectorization_mode="vector_entry_point")`` gives the native batched env.
* SAME_STEP auto-reset: no step crosses an episode boundary. Every row's episode is *replayed* on a
  one-row engine (``RummyEngine(rules, 1)``) from where it started (the first episode from its
  ``row_seeds`` seed, later ones from ``engine.snapshot(row)`` taken right after the auto-reset) with the
  same actions: every step's rewards must match, the replayed hand must end exactly at the step the row
  reported its end (not before), and ``final_observation`` / ``final_obs`` / ``final_hand_score(s)`` must
  equal what the replay engine shows for the finished position before any reset.
* Equivalence with the AEC env (alignment documented in ``test_vector_env_rows_match_the_aec_env``).
* The learner's reward is its own seat's reward over its action and the opponents' following moves,
  cross-checked against a replay with the same (deterministic, recorded) opponent.
* Opponents see only their own seat's view: nothing of the learner's hidden cards.

Throughput is deliberately not asserted anywhere.
"""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import rummy_env
from rummy_env import RummyEngine, RummyGymEnv, RummyGymVectorEnv, RummyVectorEnv
from rummy_env.actions import DRAW_DISCARD, DRAW_STOCK
from rummy_env.engine.state import END_DEAD_TURN_CAP, END_OUT, PHASE_DRAW, PHASE_PLAY
from rummy_env.sampling import uniform_legal_actions


# ============================================================================================ helpers
class RecordingOpponent:
    """A deterministic batched opponent: in each row it plays the ``k``-th legal action, ``k`` a hash of that
    row's observation. A function of the row's own (observation, mask) only, so a one-row replay of the same
    position reproduces its moves. Every call is recorded."""

    def __init__(self, observation_size: int):
        self.weights = np.random.default_rng(20240611).integers(1, 1 << 16, size=observation_size, dtype=np.int64)
        self.calls: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []

    def pick(self, observation: np.ndarray, action_mask: np.ndarray) -> np.ndarray:
        observation = np.atleast_2d(observation).astype(np.int64)
        mask = np.atleast_2d(action_mask).astype(bool)
        keys = observation @ self.weights
        actions = np.zeros(observation.shape[0], dtype=np.int64)
        for row in range(observation.shape[0]):
            legal = np.flatnonzero(mask[row])
            if legal.size:
                actions[row] = legal[keys[row] % legal.size]
        return actions

    def __call__(self, observation: np.ndarray, action_mask: np.ndarray) -> np.ndarray:
        actions = self.pick(observation, action_mask)
        self.calls.append((np.array(observation, copy=True), np.array(action_mask, copy=True), actions.copy()))
        return actions


def observation_size(players: int, rules: str = "basic", **knobs) -> int:
    return RummyEngine(rummy_env.RummyRules.preset(rules, num_players=players, **knobs)).observation_size


def one_row_engine(rules, start) -> RummyEngine:
    """A one-row engine holding the start of an episode: ``("seed", s)`` or ``("snapshot", position)``."""
    engine = RummyEngine(rules, batch_size=1, parallel=False)
    kind, value = start
    if kind == "seed":
        engine.reset(row_seeds=[value])
    else:
        engine.reset(seed=0)
        engine.load(0, value)
    return engine


def split(engine: RummyEngine, observation: np.ndarray) -> dict[str, np.ndarray]:
    return engine.observation_layout.split(observation)


def assert_fresh_hand(engine: RummyEngine, row: int) -> None:
    """``row`` holds a freshly dealt hand of a new game (episode = one hand)."""
    rules = engine.rules
    position = engine.snapshot(row)
    assert position["turn"] == 0, position["turn"]
    assert position["hands_played"] == 0
    assert position["table"] == []
    assert position["totals"] == [0] * rules.num_players
    assert len(position["stock"]) == rules.deck_size - rules.num_players * rules.hand_size - 1
    dealer = position["dealer"]
    if rules.ruleset == "rami51":  # no upcard: the dealer holds one card more and plays first (R4, R5)
        assert position["phase"] == "play" and position["first_turn"] and position["current"] == dealer
        assert [len(hand) for hand in position["hands"]] == [rules.hand_size + (seat == dealer) for seat in range(rules.num_players)]
        assert position["discard"] == []
        return
    assert position["phase"] == "draw"
    assert [len(hand) for hand in position["hands"]] == [rules.hand_size] * rules.num_players
    assert len(position["discard"]) == 1
    assert position["current"] == (dealer + 1) % rules.num_players


def centred_rewards(hand_scores: np.ndarray, rules) -> np.ndarray:
    """RULES reward="score": seat q gets (P * s_q - sum s) / ((P - 1) * reward_scale), negated for rami51,
    whose hand scores are penalties."""
    players = rules.num_players
    scores = np.asarray(hand_scores, dtype=np.float64)
    sign = -1.0 if rules.is_penalty_scoring else 1.0
    return sign * (players * scores - scores.sum()) / ((players - 1) * rules.reward_scale)


# ============================================================================================ 1. RummyGymEnv
@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("players", [2, 4])
def test_gym_env_passes_gymnasium_check_env(players):
    # check_env samples actions from the action space without the mask: the "penalty" policy turns an illegal
    # one into the end of the game instead of an exception
    env = RummyGymEnv(num_players=players, illegal_action="penalty")
    check_env(env, skip_render_check=True)
    assert env.observation_space.dtype == np.int8
    assert isinstance(env.action_space, gymnasium.spaces.Discrete)
    assert env.action_space.n == env.core.engine.num_actions


def test_gym_env_illegal_action_raises_by_default_and_is_penalised_with_penalty():
    env = RummyGymEnv()
    env.reset(seed=3)
    mask = env.action_masks()
    illegal = int(np.flatnonzero(~mask)[0])
    before = env.core.engine.snapshot(0)
    with pytest.raises(ValueError, match="^player_0 cannot"):
        env.step(illegal)
    assert env.core.engine.snapshot(0) == before, "a rejected action must not change the position"
    for out_of_range in (env.action_space.n, -1):
        with pytest.raises(ValueError):
            env.step(out_of_range)
    # the env is still usable after the rejected action
    observation, reward, terminated, truncated, _info = env.step(int(np.flatnonzero(mask)[0]))
    assert env.observation_space.contains(observation)

    penalised = RummyGymEnv(illegal_action="penalty", illegal_action_penalty=-2.5)
    penalised.reset(seed=3)
    illegal = int(np.flatnonzero(~penalised.action_masks())[0])
    _, reward, terminated, truncated, _ = penalised.step(illegal)
    assert terminated and not truncated
    assert reward == pytest.approx(-2.5)
    assert not penalised.action_masks().any()


@pytest.mark.parametrize("players,knobs", [(2, {}), (3, {"max_turns_per_round": 30}),
                                           (4, {"max_turns_per_round": 20, "learner_seat": "random"})])
def test_gym_env_random_rollouts_stay_in_space_with_consistent_masks(players, knobs):
    knobs = dict(knobs)
    seat = knobs.pop("learner_seat", 1)
    env = RummyGymEnv(num_players=players, learner_seat=seat, **knobs)
    rng = np.random.default_rng(players)
    episodes, steps, seed = 0, 0, 100 * players
    observation, info = env.reset(seed=seed)
    while episodes < 3:
        assert observation.dtype == np.int8 and observation.shape == env.observation_space.shape
        assert env.observation_space.contains(observation)
        mask = env.action_masks()
        assert mask.dtype == np.bool_ and mask.shape == (env.action_space.n,)
        np.testing.assert_array_equal(mask, info["action_mask"].astype(bool))
        assert mask.any(), "the learner is to act: some action must be legal"
        # the observation is the learner's own view, and the learner is to act
        blocks = split(env.core.engine, observation)
        assert blocks["current_player"][0] == 1
        assert info["learner_seat"] == int(env.core.engine.current_player[0])
        action = int(rng.choice(np.flatnonzero(mask)))
        observation, reward, terminated, truncated, info = env.step(action)
        steps += 1
        assert isinstance(reward, float) and np.isfinite(reward)
        assert not (terminated and truncated)
        if terminated or truncated:
            assert env.observation_space.contains(observation) and observation.dtype == np.int8
            np.testing.assert_array_equal(env.action_masks(), info["action_mask"].astype(bool))
            assert not env.action_masks().any(), "no legal action once the episode is over"
            assert split(env.core.engine, observation)["phase"].tolist() == [0, 0, 1]
            end = int(env.core.engine.state["end_reason"][0])
            assert truncated == (end == END_DEAD_TURN_CAP)
            episodes += 1
            observation, info = env.reset()
        else:
            assert reward == 0.0, "reward='score' pays only when a hand ends"
    assert steps > 0


def test_gym_env_reward_and_final_score_match_a_replay_with_the_same_opponent():
    """RummyGymEnv: the learner's reward per step is its own seat's reward over its action and the opponent
    moves that followed; replayed on a bare one-row engine with the same (deterministic) opponent."""
    rules = rummy_env.RummyRules.preset("basic", num_players=3, max_turns_per_round=200)
    opponent = RecordingOpponent(observation_size(3))
    env = RummyGymEnv(rules, num_players=3, opponent=opponent, learner_seat=2)
    rng = np.random.default_rng(7)
    seen_end = {"out": 0, "other": 0}
    for episode in range(4):
        observation, info = env.reset(seed=episode)
        start = ("snapshot", env.core.engine.snapshot(0))
        actions, rewards = [], []
        while True:
            action = int(rng.choice(np.flatnonzero(env.action_masks())))
            observation, reward, terminated, truncated, info = env.step(action)
            actions.append(action)
            rewards.append(reward)
            if terminated or truncated:
                break
        replay, replay_rewards = replay_learner_episode(rules, start, 2, actions, opponent)
        np.testing.assert_allclose(rewards, replay_rewards, atol=1e-6)
        np.testing.assert_array_equal(observation, replay.observe(np.array([2]))[0])
        assert info["hand_score"] == int(replay.state["hand_scores"][0, 2])
        scores = replay.state["hand_scores"][0, :3]
        assert sum(rewards) == pytest.approx(centred_rewards(scores, rules)[2], abs=1e-6)
        seen_end["out" if replay.state["end_reason"][0] == END_OUT else "other"] += 1
    assert seen_end["out"] > 0, seen_end


def replay_learner_episode(rules, start, seat: int, learner_actions: list[int], opponent: RecordingOpponent):
    """Replay one learner episode on a bare one-row engine: the learner's action, then the opponent's moves
    until the learner is to act again; returns the engine (stopped at the end, not reset) and the learner's
    reward per learner step (accumulated in float32, as the envs do)."""
    engine = one_row_engine(rules, start)
    rewards = []
    for index, action in enumerate(learner_actions):
        assert not engine.done[0], f"the replayed hand ended before learner step {index}"
        assert int(engine.current_player[0]) == seat, "the learner must be to act at each of its steps"
        reward = np.float32(engine.step(np.array([action], dtype=np.int64)).rewards[0, seat])
        while not engine.done[0] and int(engine.current_player[0]) != seat:
            opponent_action = opponent.pick(engine.observe().copy(), engine.legal_action_mask().copy())
            reward += np.float32(engine.step(opponent_action).rewards[0, seat])
        rewards.append(float(reward))
    assert engine.done[0], "the replayed hand must end at the step the env reported its end"
    return engine, rewards


# ============================================================================================ 2. make_vec
def test_make_vec_with_vector_entry_point_gives_the_native_batched_env():
    num_envs = 5
    venv = gymnasium.make_vec(rummy_env.GYM_ID, num_envs=num_envs, vectorization_mode="vector_entry_point",
                              num_players=3, max_turns_per_round=15)
    try:
        assert isinstance(venv.unwrapped, RummyGymVectorEnv)
        assert not isinstance(venv.unwrapped, (gymnasium.vector.SyncVectorEnv, gymnasium.vector.AsyncVectorEnv))
        assert venv.num_envs == num_envs
        assert venv.unwrapped.rules.num_players == 3 and venv.unwrapped.rules.max_turns_per_round == 15
        single = RummyGymEnv(num_players=3)
        assert venv.single_observation_space == single.observation_space
        assert venv.single_action_space == single.action_space
        assert venv.observation_space == gymnasium.vector.utils.batch_space(single.observation_space, num_envs)
        assert venv.action_space == gymnasium.vector.utils.batch_space(single.action_space, num_envs)
        assert venv.observation_space.shape == (num_envs, single.observation_space.shape[0])
        assert venv.observation_space.dtype == np.int8
        assert venv.metadata["autoreset_mode"] == gymnasium.vector.AutoresetMode.SAME_STEP

        observation, _infos = venv.reset(seed=0)
        assert venv.observation_space.contains(observation)
        rng = np.random.default_rng(0)
        for _ in range(40):
            masks = venv.unwrapped.action_masks()
            assert masks.shape == (num_envs, single.action_space.n) and masks.any(axis=1).all()
            observation, rewards, terminations, truncations, _ = venv.step(uniform_legal_actions(masks, rng))
            assert venv.observation_space.contains(observation)
            assert rewards.shape == (num_envs,) and terminations.shape == truncations.shape == (num_envs,)
            assert terminations.dtype == truncations.dtype == np.bool_
    finally:
        venv.close()


def test_make_single_env_from_the_registry():
    env = gymnasium.make(rummy_env.GYM_ID, num_players=2, disable_env_checker=True)
    assert isinstance(env.unwrapped, RummyGymEnv)
    observation, _info = env.reset(seed=1)
    assert env.observation_space.contains(observation)


# ============================================================================================ 3. auto-reset, RummyVectorEnv
VECTOR_CASES = {
    "2p_default": (2, {}),
    "3p_cap40": (3, {"max_turns_per_round": 40}),
    "2p_cap25_lowest_wins": (2, {"max_turns_per_round": 25, "dead_round_scoring": "lowest_hand_wins"}),
    "4p_cap60": (4, {"max_turns_per_round": 60}),
    "rami51_2p_cap60": (2, {"rules": "rami51", "max_turns_per_round": 60}),
    "rami51_3p_lebanese_cap40": (3, {"rules": "lebanese14", "max_turns_per_round": 40}),
}


@pytest.mark.parametrize("case", sorted(VECTOR_CASES))
def test_vector_env_same_step_autoreset_and_final_infos_match_a_replay(case):
    players, knobs = VECTOR_CASES[case]
    num_envs, steps = 8, 1500
    venv = RummyVectorEnv(num_envs, num_players=players, **knobs)
    rules, engine = venv.rules, venv.engine
    assert venv.metadata["autoreset_mode"] == gymnasium.vector.AutoresetMode.SAME_STEP
    observation, infos = venv.reset(seed=1)
    assert observation["observation"].shape == (num_envs, engine.observation_size)
    assert observation["action_mask"].shape == (num_envs, engine.num_actions)
    # align every row with a known 64-bit seed (the engine's documented per-row seeding) so that the first
    # episode of each row can be replayed from its seed alone
    seeds = [977 + 13 * row for row in range(num_envs)]
    engine.reset(row_seeds=seeds)
    masks = engine.legal_action_mask().copy()
    starts = [("seed", seed) for seed in seeds]
    history: list[list[tuple[int, np.ndarray]]] = [[] for _ in range(num_envs)]
    rng = np.random.default_rng(players)
    ended = {"terminated": 0, "truncated": 0, "replayed": 0}

    for _ in range(steps):
        before = engine.state.copy()
        actors = before["current"].astype(np.int64)
        actions = uniform_legal_actions(masks, rng)
        observation, rewards, terminations, truncations, infos = venv.step(actions)
        observation = {key: value.copy() for key, value in observation.items()}
        rewards, terminations, truncations = rewards.copy(), terminations.copy(), truncations.copy()
        done = terminations | truncations
        masks = observation["action_mask"]

        assert rewards.shape == (num_envs, players) and rewards.dtype == np.float32
        assert not (terminations & truncations).any()
        np.testing.assert_array_equal(infos["_final"], done)
        np.testing.assert_allclose(rewards.sum(axis=1), 0.0, atol=1e-5, err_msg="rewards are zero-sum per row")
        np.testing.assert_array_equal(infos["current_player"], engine.state["current"])
        # what is returned is the position of the player to act now, after any auto-reset
        np.testing.assert_array_equal(observation["observation"], engine.observe())
        np.testing.assert_array_equal(observation["action_mask"], engine.legal_action_mask())
        assert observation["action_mask"].any(axis=1).all(), "every row (reset or not) has a player to act"

        for row in range(num_envs):
            history[row].append((int(actions[row]), rewards[row]))
            after = engine.state[row]
            if not done[row]:
                # the same hand goes on: same deal, turn counter non-decreasing, totals unchanged, table kept
                assert after["dealer"] == before[row]["dealer"]
                assert after["hands_played"] == before[row]["hands_played"] == 0
                assert after["turns"] >= before[row]["turns"]
                np.testing.assert_array_equal(after["totals"], before[row]["totals"])
                if rules.ruleset == "basic":  # rami51 cards leave the table by TAKE and UNDO
                    assert (after["table_by_seat"] >= before[row]["table_by_seat"]).all()
                assert not rewards[row].any(), "reward='score' with one-hand episodes pays only at the end"
                continue

            ended["truncated" if truncations[row] else "terminated"] += 1
            # SAME_STEP: the row now holds the first position of a new hand
            assert_fresh_hand(engine, row)
            blocks = split(engine, observation["observation"][row])
            assert blocks["turns"].tolist() == [0, 0]
            if rules.ruleset == "rami51":  # the dealer (to act) holds one card more and starts without a draw
                assert blocks["hand_sizes"].tolist() == [rules.hand_size + 1] + [rules.hand_size] * (players - 1)
                assert blocks["phase"].tolist() == [0, 1, 0]
            else:
                assert blocks["hand_sizes"].tolist() == [rules.hand_size] * players
                assert blocks["phase"].tolist() == [1, 0, 0]
                assert np.flatnonzero(observation["action_mask"][row]).tolist() == [DRAW_STOCK, DRAW_DISCARD]

            # the finished episode, replayed on a one-row engine and stopped before any reset
            replay = one_row_engine(rules, starts[row])
            for index, (action, reward) in enumerate(history[row]):
                assert not replay.done[0], f"row {row}: the replayed hand ended {len(history[row]) - index} steps early"
                replay_rewards = replay.step(np.array([action], dtype=np.int64)).rewards[0]
                np.testing.assert_allclose(reward, replay_rewards, atol=1e-6)
            assert replay.done[0], f"row {row} reported an end its replay did not reach"
            record = replay.state[0]
            np.testing.assert_array_equal(infos["final_observation"][row],
                                          replay.observe(np.array([actors[row]]))[0])
            np.testing.assert_array_equal(infos["final_hand_scores"][row], record["hand_scores"][:players])
            np.testing.assert_array_equal(infos["final_totals"][row], record["totals"][:players])
            winners = (np.arange(players) == record["winner"]) if rules.ruleset == "rami51" else record["hand_scores"][:players] > 0
            np.testing.assert_array_equal(infos["final_winners"][row], winners)
            assert bool(truncations[row]) == (int(record["end_reason"]) == END_DEAD_TURN_CAP)
            # the final observation is the last actor's view of the finished hand
            final_blocks = split(engine, infos["final_observation"][row])
            assert final_blocks["phase"].tolist() == [0, 0, 1]

            # rewards go to the right seat
            scores = infos["final_hand_scores"][row]
            np.testing.assert_allclose(rewards[row], centred_rewards(scores, rules), atol=1e-6)
            if int(record["end_reason"]) == END_OUT:
                assert terminations[row]
                assert int(record["winner"]) == actors[row], "the seat that went out is the one that acted last"
                if rules.ruleset == "rami51":  # penalties: the one who went out scores 0, the others pay
                    assert scores[actors[row]] == 0 and rewards[row, actors[row]] > 0
                else:
                    assert scores[actors[row]] > 0 and rewards[row, actors[row]] > 0
                if rules.ruleset == "rami51":  # centred penalties: a small loser may still gain
                    assert rewards[row].argmax() == actors[row]
                else:
                    assert (rewards[row, np.arange(players) != actors[row]] < 0).all()
                assert infos["final_winners"][row].tolist() == [int(s == actors[row]) for s in range(players)]
            elif scores.any():  # a dead hand scored for the lowest hand (B17)
                scorer = int(np.argmax(scores))
                assert rewards[row, scorer] > 0 and rewards[row].argmax() == scorer
            else:
                assert not rewards[row].any()
            ended["replayed"] += 1
            starts[row] = ("snapshot", engine.snapshot(row))
            history[row] = []

    assert ended["terminated"] + ended["truncated"] > 0, ended
    if "max_turns_per_round" in knobs:
        assert ended["truncated"] > 0, ended
    else:
        assert ended["terminated"] > 0, ended


def test_vector_env_game_episodes_continue_across_hands():
    """episode="game": a hand that ends inside a game is no episode boundary; the game's end is."""
    players, num_envs = 2, 8
    venv = RummyVectorEnv(num_envs, num_players=players, seed=5, episode="game", max_turns_per_round=12,
                          game_end_mode="hands", num_hands=3, max_hands=3, dead_round_scoring="lowest_hand_wins")
    engine = venv.engine
    observation, _ = venv.reset()
    rng = np.random.default_rng(5)
    episode_rewards = np.zeros((num_envs, players))
    games = 0
    for _ in range(600):
        before = engine.state.copy()
        observation, rewards, terminations, truncations, infos = venv.step(
            uniform_legal_actions(observation["action_mask"], rng))
        done = terminations | truncations
        episode_rewards += rewards
        np.testing.assert_allclose(rewards.sum(axis=1), 0.0, atol=1e-5)
        for row in range(num_envs):
            if done[row]:
                games += 1
                assert_fresh_hand(engine, row)
                final_totals = infos["final_totals"][row]
                # over a whole game, the rewards add up to the centred final totals
                np.testing.assert_allclose(episode_rewards[row], centred_rewards(final_totals, venv.rules), atol=1e-4)
                episode_rewards[row] = 0.0
            else:
                assert engine.state["hands_played"][row] >= before["hands_played"][row]
                assert (engine.state["totals"][row] >= before["totals"][row]).all()
    assert games > 0


# ============================================================================================ 3/5. RummyGymVectorEnv
GYM_VECTOR_CASES = {
    "2p_seat0": (2, 0, {}),
    "3p_random_seat_cap60": (3, "random", {"max_turns_per_round": 60}),
    "2p_seat1_cap30_lowest_wins": (2, 1, {"max_turns_per_round": 30, "dead_round_scoring": "lowest_hand_wins"}),
    "rami51_prevent_2p_seat0_cap50": (2, 0, {"rules": "rami51", "max_turns_per_round": 50, "dead_ends": "prevent"}),
    # random players rarely go out under "take_back" (R25): dead rounds scored, so that the learner loses some
    "rami51_take_back_cap30": (2, 0, {"rules": "rami51", "max_turns_per_round": 30, "dead_round_scoring": "hand_penalties"}),
}


@pytest.mark.parametrize("case", sorted(GYM_VECTOR_CASES))
def test_gym_vector_env_autoreset_rewards_and_final_infos_match_a_replay(case):
    players, seat_knob, knobs = GYM_VECTOR_CASES[case]
    num_envs, steps = 8, 700
    opponent = RecordingOpponent(observation_size(players, **knobs))
    venv = RummyGymVectorEnv(num_envs, num_players=players, opponent=opponent, learner_seat=seat_knob, **knobs)
    rules, engine = venv.rules, venv.core.engine
    observation, infos = venv.reset(seed=21)
    observation = observation.copy()
    seats = infos["learner_seat"].astype(np.int64).copy()
    starts = [("snapshot", engine.snapshot(row)) for row in range(num_envs)]
    history: list[list[tuple[int, float]]] = [[] for _ in range(num_envs)]
    rng = np.random.default_rng(players + 100)
    ended = {"terminated": 0, "truncated": 0, "learner_won": 0, "learner_lost": 0}

    for _ in range(steps):
        masks = venv.action_masks()
        np.testing.assert_array_equal(masks, infos["action_mask"].astype(bool))
        assert masks.any(axis=1).all(), "every row waits for its learner"
        np.testing.assert_array_equal(engine.current_player, seats)
        np.testing.assert_array_equal(observation, engine.observe(seats.astype(np.int8)))
        assert venv.observation_space.contains(observation)
        before = engine.state.copy()
        actions = uniform_legal_actions(masks, rng)
        observation, rewards, terminations, truncations, infos = venv.step(actions)
        observation, rewards = observation.copy(), rewards.copy()
        terminations, truncations = terminations.copy(), truncations.copy()
        done = terminations | truncations
        assert rewards.shape == (num_envs,) and observation.dtype == np.int8
        assert not (terminations & truncations).any()
        np.testing.assert_array_equal(infos["_final_obs"], done)
        np.testing.assert_array_equal(infos["_final_hand_score"], done)

        for row in range(num_envs):
            history[row].append((int(actions[row]), float(rewards[row])))
            after = engine.state[row]
            if not done[row]:
                assert int(infos["learner_seat"][row]) == seats[row], "the seat is kept within an episode"
                assert after["dealer"] == before[row]["dealer"] and after["hands_played"] == 0
                assert after["turns"] >= before[row]["turns"]
                np.testing.assert_array_equal(after["totals"], before[row]["totals"])
                if rules.ruleset == "basic":  # rami51 cards leave the table by TAKE and UNDO
                    assert (after["table_by_seat"] >= before[row]["table_by_seat"]).all()
                continue

            ended["truncated" if truncations[row] else "terminated"] += 1
            seat = int(seats[row])
            replay, replay_rewards = replay_learner_episode(rules, starts[row], seat, [a for a, _ in history[row]],
                                                            opponent)
            np.testing.assert_allclose([r for _, r in history[row]], replay_rewards, atol=1e-6,
                                       err_msg=f"row {row}: learner rewards differ from the replay")
            np.testing.assert_array_equal(infos["final_obs"][row], replay.observe(np.array([seat]))[0])
            hand_scores = replay.state["hand_scores"][0, :players]
            assert int(infos["final_hand_score"][row]) == int(hand_scores[seat])
            assert bool(truncations[row]) == (int(replay.state["end_reason"][0]) == END_DEAD_TURN_CAP)
            assert sum(r for _, r in history[row]) == pytest.approx(centred_rewards(hand_scores, rules)[seat], abs=1e-5)
            centred = centred_rewards(hand_scores, rules)[seat]  # rami51's penalties are negated: above 0 is better
            if centred > 0:
                ended["learner_won"] += 1
                assert rewards[row] > 0
            elif centred < 0:
                ended["learner_lost"] += 1
                assert rewards[row] < 0

            # SAME_STEP: a new episode, advanced to the learner's first decision
            new_seat = int(infos["learner_seat"][row])
            assert after["hands_played"] == 0 and not after["totals"].any()
            assert after["phase"] == (PHASE_PLAY if after["first_turn"] else PHASE_DRAW) and int(after["current"]) == new_seat
            first = 0 if rules.ruleset == "rami51" else 1  # rami51: the dealer plays first, holding one card more
            assert int(after["hand_n"][new_seat]) == rules.hand_size + (first == 0 and new_seat == int(after["dealer"]))
            assert int(after["turns"]) < players
            assert int(after["turns"]) == (new_seat - int(after["dealer"]) - first) % players
            seats[row] = new_seat
            starts[row] = ("snapshot", engine.snapshot(row))
            history[row] = []

    assert ended["terminated"] + ended["truncated"] > 0, ended
    assert ended["learner_won"] + ended["learner_lost"] > 0, ended


def test_learner_seat_random_gives_every_seat():
    players, num_envs = 4, 16
    venv = RummyGymVectorEnv(num_envs, num_players=players, learner_seat="random", max_turns_per_round=6)
    observation, infos = venv.reset(seed=3)
    seen = set(infos["learner_seat"].tolist())
    rng = np.random.default_rng(3)
    for _ in range(60):
        engine = venv.core.engine
        np.testing.assert_array_equal(engine.current_player, infos["learner_seat"])
        assert (split(engine, observation)["current_player"][:, 0] == 1).all(), "the learner is to act"
        observation, _, terminations, truncations, infos = venv.step(uniform_legal_actions(venv.action_masks(), rng))
        done = terminations | truncations
        seen.update(infos["learner_seat"][done].tolist())
    assert seen == set(range(players)), seen

    env = RummyGymEnv(num_players=3, learner_seat="random", max_turns_per_round=4)
    seats = set()
    for episode in range(30):
        _, info = env.reset(seed=episode if episode == 0 else None)
        seats.add(info["learner_seat"])
        assert int(env.core.engine.current_player[0]) == info["learner_seat"]
    assert seats == {0, 1, 2}

    for bad in (players, -1, "first"):
        with pytest.raises(ValueError):
            RummyGymVectorEnv(2, num_players=players, learner_seat=bad)


# ============================================================================================ 5. opponents' view
class ViewCheckingOpponent(RecordingOpponent):
    """Records, for every observation row it is handed, whether it is the opponent seat's own view and
    whether it shows any of the learner's hidden cards (its hand minus the cards publicly known to be in it)."""

    def __init__(self, observation_size: int, redeal_every: int = 3):
        super().__init__(observation_size)
        self.core = None
        self.redeal_every = redeal_every
        self.scratch: RummyEngine | None = None
        self.rng = np.random.default_rng(99)
        self.rows_checked = 0
        self.redeals_checked = 0
        self.leaks: list[tuple] = []
        self.not_own_view: list[tuple] = []
        self.redeal_changed: list[tuple] = []

    def __call__(self, observation: np.ndarray, action_mask: np.ndarray) -> np.ndarray:
        observation = np.array(observation, copy=True)  # the engine's buffer: observe() below overwrites it
        action_mask = np.array(action_mask, copy=True)
        engine, seats = self.core.engine, self.core.seats.astype(np.int64)
        if self.scratch is None:
            self.scratch = RummyEngine(engine.rules, batch_size=1, parallel=False)
            self.scratch.reset(seed=0)
        done = engine.done.copy()
        current = engine.current_player.astype(np.int64)
        waiting = np.flatnonzero(~done & (current != seats))
        # the engine row of each given row: the whole batch, or just the rows whose opponent is to act
        if observation.shape[0] == engine.batch_size:
            engine_rows = np.arange(engine.batch_size)
        else:
            assert observation.shape[0] == waiting.size, (
                f"the opponent got {observation.shape[0]} rows; {engine.batch_size} rows, {waiting.size} waiting")
            engine_rows = waiting
        hands = split(engine, observation)["hand"]
        own_views = engine.observe(current.astype(np.int8)).copy()
        call = len(self.calls)
        for given, row in enumerate(engine_rows):
            learner = seats[row]
            hidden = np.maximum(engine.state["hand"][row, learner] - engine.state["known"][row, learner], 0)
            if (np.minimum(hands[given], hidden) > 0).any():
                self.leaks.append((call, int(row), "done" if done[row] else "live", int(current[row]), int(learner)))
            if done[row] or current[row] == learner:
                continue
            self.rows_checked += 1
            if not np.array_equal(observation[given], own_views[row]):
                self.not_own_view.append((call, int(row)))
            if self.rows_checked % self.redeal_every == 0:
                self.check_redeal(engine, int(row), int(learner), int(current[row]), observation[given], call)
        return super().__call__(observation, action_mask)

    def check_redeal(self, engine, row, learner, opponent_seat, seen, call) -> None:
        """Swap the learner's hidden cards with stock cards: the opponent's view must not change."""
        position = engine.snapshot(row)
        hand = list(position["hands"][learner])
        known = list(position["known"][learner])
        hidden = [card for card in hand if card not in known]
        stock = list(position["stock"])
        count = min(len(hidden), len(stock))
        if count == 0:
            return
        out_cards = self.rng.choice(hidden, size=count, replace=False).tolist()
        stock_slots = self.rng.choice(len(stock), size=count, replace=False).tolist()
        in_cards = [stock[slot] for slot in stock_slots]
        for slot, card in zip(stock_slots, out_cards):
            stock[slot] = card
        position["hands"][learner] = [card for card in hand if card not in out_cards] + in_cards
        position["stock"] = stock
        self.scratch.load(0, position)
        self.redeals_checked += 1
        if not np.array_equal(self.scratch.observe(np.array([opponent_seat], dtype=np.int8))[0], seen):
            self.redeal_changed.append((call, row))


def run_with_view_checking_opponent(num_envs: int, players: int = 3) -> ViewCheckingOpponent:
    knobs = {"max_turns_per_round": 40}
    opponent = ViewCheckingOpponent(observation_size(players, **knobs))
    rng = np.random.default_rng(num_envs)
    if num_envs == 1:
        env = RummyGymEnv(num_players=players, opponent=opponent, learner_seat="random", **knobs)
        opponent.core = env.core
        for episode in range(6):
            env.reset(seed=episode)
            while True:
                _, _, terminated, truncated, _ = env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))
                if terminated or truncated:
                    break
    else:
        venv = RummyGymVectorEnv(num_envs, num_players=players, opponent=opponent, learner_seat="random", **knobs)
        opponent.core = venv.core
        venv.reset(seed=4)
        for _ in range(120):
            venv.step(uniform_legal_actions(venv.action_masks(), rng))
    assert opponent.calls and opponent.rows_checked > 50 and opponent.redeals_checked > 10
    return opponent


@pytest.mark.parametrize("num_envs", [1, 8])
def test_opponent_acts_on_its_own_seats_view_and_redealing_the_learner_changes_nothing(num_envs):
    opponent = run_with_view_checking_opponent(num_envs)
    assert opponent.not_own_view == [], f"rows given to the opponent that are not its own view: {opponent.not_own_view[:5]}"
    assert opponent.redeal_changed == [], f"views that depend on the learner's hidden cards: {opponent.redeal_changed[:5]}"


@pytest.mark.parametrize("num_envs", [1, 8])
def test_opponent_is_never_handed_the_learners_hidden_cards(num_envs):
    """Every observation row an opponent policy is handed, whether or not its action is used, must be free of
    the learner's hidden cards (single_agent.py: "each opponent seeing only its own observation")."""
    opponent = run_with_view_checking_opponent(num_envs)
    total_rows = sum(call[0].shape[0] for call in opponent.calls)
    assert opponent.leaks == [], (
        f"{len(opponent.leaks)} of {total_rows} observation rows handed to the opponent show the learner's hidden "
        f"cards (call, row, live/done, seat to act, learner seat): {opponent.leaks[:5]}")


# ============================================================================================ 4. AEC equivalence
@pytest.mark.parametrize("players", [2, 3])
def test_vector_env_rows_match_the_aec_env(players):
    """Rows of ``RummyVectorEnv`` and ``rummy_env.raw_env`` games under the same seeds and actions.

    Alignment: both use ``first_dealer=0`` (so the AEC env's ``agent_selection``, set in ``reset()``, is the
    same seat whatever the deal). The vector env is reset, then its engine re-seeded with
    ``engine.reset(row_seeds=seeds)``; each AEC env is reset, then its own engine re-seeded with
    ``engine.reset(row_seeds=[seeds[row]])``: the engine documents that a row seeded ``s`` plays exactly like a
    one-row engine seeded ``s``. After a row's episode ends (and the vector env auto-resets it with a seed drawn
    from its seed stream), the AEC env is re-aligned with ``restore_game`` from ``engine.snapshot(row)`` (which
    carries the row's generator state, so stock rebuilds stay aligned too)."""
    num_envs, steps = 4, 900
    knobs = {"first_dealer": 0, "max_turns_per_round": 60}
    venv = RummyVectorEnv(num_envs, num_players=players, **knobs)
    venv.reset(seed=8)
    seeds = [31337 + row for row in range(num_envs)]
    venv.engine.reset(row_seeds=seeds)
    observation = {"observation": venv.engine.observe().copy(), "action_mask": venv.engine.legal_action_mask().copy()}
    aecs = []
    for seed in seeds:
        aec = rummy_env.raw_env(num_players=players, **knobs)
        aec.reset(seed=0)
        aec.engine.reset(row_seeds=[seed])
        aecs.append(aec)
    agents = aecs[0].possible_agents
    rng = np.random.default_rng(players)
    episodes = 0

    for _ in range(steps):
        current = venv.engine.state["current"].astype(np.int64)
        all_views = [venv.engine.observe(np.full(num_envs, seat, dtype=np.int8)).copy() for seat in range(players)]
        for row, aec in enumerate(aecs):
            assert aec.agent_selection == agents[current[row]]
            for seat, agent in enumerate(agents):
                seen = aec.observe(agent)
                np.testing.assert_array_equal(seen["observation"], all_views[seat][row])
                if seat == current[row]:
                    np.testing.assert_array_equal(seen["observation"], observation["observation"][row])
                    np.testing.assert_array_equal(seen["action_mask"], observation["action_mask"][row])
                else:
                    assert not seen["action_mask"].any()
        actions = uniform_legal_actions(observation["action_mask"], rng)
        observation, rewards, terminations, truncations, infos = venv.step(actions)
        observation = {key: value.copy() for key, value in observation.items()}
        done = terminations | truncations
        for row, aec in enumerate(aecs):
            actor = agents[current[row]]
            aec.step(int(actions[row]))
            assert aec.rewards == pytest.approx(dict(zip(agents, rewards[row].tolist())), abs=1e-6)
            aec_done = all(aec.terminations[a] or aec.truncations[a] for a in agents)
            assert aec_done == bool(done[row])
            if done[row]:
                episodes += 1
                np.testing.assert_array_equal(aec.observe(actor)["observation"], infos["final_observation"][row])
                info = aec.infos[actor]
                np.testing.assert_array_equal(info["hand_scores"], infos["final_hand_scores"][row])
                np.testing.assert_array_equal(info["totals"], infos["final_totals"][row])
                assert (rummy_env.END_NAMES[info["end_reason"]] == "dead_turn_cap") == bool(truncations[row])
                aec.restore_game({"rules": aec.rules.to_dict(), "position": venv.engine.snapshot(row)})
    assert episodes > 0


def test_engine_rows_with_row_seeds_match_one_row_engines():
    rules = rummy_env.RummyRules.preset("basic", num_players=3, max_turns_per_round=80)
    seeds = [5, 2**40 + 3, 2**63 - 1, 0]
    batched = RummyEngine(rules, batch_size=len(seeds), parallel=False)
    batched.reset(row_seeds=seeds)
    singles = []
    for seed in seeds:
        single = RummyEngine(rules, batch_size=1, parallel=False)
        single.reset(row_seeds=[seed])
        singles.append(single)
    rng = np.random.default_rng(0)
    for _ in range(400):
        masks = batched.legal_action_mask().copy()
        observations = batched.observe().copy()
        actions = uniform_legal_actions(masks, rng)
        for row, single in enumerate(singles):
            np.testing.assert_array_equal(single.legal_action_mask()[0], masks[row])
            np.testing.assert_array_equal(single.observe()[0], observations[row])
        done_before = batched.done.copy()
        rewards = batched.step(actions, rows=~done_before).rewards.copy()
        for row, single in enumerate(singles):
            if done_before[row]:
                continue
            np.testing.assert_array_equal(single.step(actions[row:row + 1]).rewards[0], rewards[row])
            assert single.done[0] == batched.done[row]
        if batched.done.all():
            break
    # different seeds give different deals
    assert len({tuple(np.flatnonzero(single.state["hand"][0, 0])) for single in singles}) > 1
