"""Bad input gets a clear error and nothing is lost (issue 12, part 7): rules objects and files keep their
values through every entry point, knob values may be numpy integers, actions are integer ids only, call
order is checked, ``restore_game`` / ``engine.load`` check a position before writing it, and agents refuse
games they were not built for.
"""

from __future__ import annotations

import copy

import gymnasium
import numpy as np
import pytest

import rummy_env
from rummy_env import RummyEngine, RummyGymEnv, RummyGymVectorEnv, RummyRules, RummyVectorEnv
from rummy_env.agents.greedy_agent import GreedyAgent
from rummy_env.agents.heuristic_agent import HeuristicAgent
from rummy_env.agents.rami_heuristic_agent import RamiHeuristicAgent
from rummy_env.rules import make_rules
from rummy_env.sampling import uniform_legal_actions

GAME_TO_150 = "configs/rules/basic_game_to_150.toml"


# ============================================================================================ rules objects and files
def entry_points():
    """Every way to build an env from rules: name -> function(rules, **arguments) -> the env's RummyRules."""
    from rummy_env.envs.sb3 import RummySB3VecEnv

    return {
        "env": lambda rules, **kw: rummy_env.env(rules, **kw).unwrapped.rules,
        "raw_env": lambda rules, **kw: rummy_env.raw_env(rules, **kw).rules,
        "RummyVectorEnv": lambda rules, **kw: RummyVectorEnv(2, rules, **kw).rules,
        "RummyGymEnv": lambda rules, **kw: RummyGymEnv(rules, **kw).rules,
        "RummyGymVectorEnv": lambda rules, **kw: RummyGymVectorEnv(2, rules, **kw).rules,
        "gymnasium.make": lambda rules, **kw: gymnasium.make(rummy_env.GYM_ID, rules=rules, **kw).unwrapped.rules,
        "gymnasium.make_vec": lambda rules, **kw: gymnasium.make_vec(rummy_env.GYM_ID, num_envs=2, rules=rules,
                                                                     vectorization_mode="vector_entry_point",
                                                                     **kw).unwrapped.rules,
        "RummySB3VecEnv": lambda rules, **kw: RummySB3VecEnv(2, rules, **kw).vector_env.rules,
    }


@pytest.mark.parametrize("entry", sorted(entry_points()))
@pytest.mark.parametrize("given", ["object", "path"])
def test_a_rules_object_or_file_keeps_its_player_count_and_episode(entry, given):
    rules = RummyRules.from_toml(GAME_TO_150)
    assert (rules.num_players, rules.episode) == (4, "game")
    built = entry_points()[entry](rules if given == "object" else GAME_TO_150)
    assert built == rules


@pytest.mark.parametrize("entry", sorted(entry_points()))
def test_a_conflicting_argument_is_refused(entry):
    rules = RummyRules.from_toml(GAME_TO_150)
    with pytest.raises(ValueError, match=r"num_players=2 contradicts the given rules, which set num_players=4"):
        entry_points()[entry](rules, num_players=2)
    with pytest.raises(ValueError, match=r"episode='hand' contradicts .* rules.replace\(episode='hand'\)"):
        entry_points()[entry](rules, episode="hand")
    assert entry_points()[entry](rules, num_players=4) == rules      # the same value is no conflict


def test_the_game_to_150_plays_four_players_and_whole_games():
    """A hand that ends does not end the episode: the next hand is dealt (RummyVectorEnv and the AEC env)."""
    rules = RummyRules.from_toml(GAME_TO_150).replace(max_turns_per_round=12)  # short (dead) hands
    venv = RummyVectorEnv(4, rules, seed=0)
    observation, _ = venv.reset()
    assert venv.engine.state["hand"].shape[1] >= 4 and venv.num_players == 4
    rng = np.random.default_rng(0)
    hands_seen = 0
    for _ in range(400):
        observation, rewards, terminations, truncations, infos = venv.step(
            uniform_legal_actions(observation["action_mask"], rng))
        assert rewards.shape == (4, 4)
        hands_seen = max(hands_seen, int(venv.engine.state["hands_played"].max()))
        if hands_seen >= 2:
            break
    assert hands_seen >= 2, "no game went past its first hand"
    aec = rummy_env.env(GAME_TO_150, max_turns_per_round=12)
    aec.reset(seed=1)
    assert aec.possible_agents == [f"player_{seat}" for seat in range(4)]
    while aec.unwrapped.engine.state["hands_played"][0] < 1:
        assert not any(aec.terminations.values()) and not any(aec.truncations.values())
        aec.step(int(rng.choice(np.flatnonzero(aec.observe(aec.agent_selection)["action_mask"]))))
    assert not any(aec.terminations.values()) and not any(aec.truncations.values())


def test_a_file_path_takes_overrides_and_a_preset_defaults_to_two_players():
    assert make_rules(GAME_TO_150, num_players=3).num_players == 3
    assert make_rules("basic").num_players == 2
    with pytest.raises(TypeError, match="rules must be a preset name"):
        make_rules(4)


def test_numpy_integers_are_accepted_as_knob_values():
    rules = RummyRules.preset("basic", num_players=np.int64(3), target_score=np.int32(100),
                              ace_high_or_low=np.bool_(True), reward_scale=np.float32(50))
    assert (rules.num_players, rules.target_score, rules.ace_high_or_low, rules.reward_scale) == (3, 100, True, 50.0)
    assert type(rules.num_players) is int and type(rules.ace_high_or_low) is bool
    assert rummy_env.env(num_players=np.int64(4)).unwrapped.rules.num_players == 4
    assert RummyVectorEnv(np.int64(3), num_players=np.int8(5)).num_players == 5
    assert RummyGymEnv(num_players=3, learner_seat=np.int64(2)).core.learner_seat == 2
    with pytest.raises(ValueError, match="learner_seat must be a seat 0..2"):
        RummyGymEnv(num_players=3, learner_seat=True)
    assert rules == RummyRules.from_dict(rules.to_dict())


# ============================================================================================ actions and call order
BAD_ACTIONS = [0.7, "0", True, np.bool_(True), float("nan"), 1.0, None, [0]]


@pytest.mark.parametrize("bad", BAD_ACTIONS, ids=repr)
def test_single_envs_refuse_actions_that_are_not_integer_ids(bad):
    aec = rummy_env.raw_env()
    aec.reset(seed=0)
    before = aec.engine.snapshot(0)
    with pytest.raises(ValueError, match="action"):
        aec.step(bad)
    assert aec.engine.snapshot(0) == before
    gym_env = RummyGymEnv()
    gym_env.reset(seed=0)
    if bad is not None:
        with pytest.raises(ValueError, match="integer action id"):
            gym_env.step(bad)


@pytest.mark.parametrize("bad", [np.array([0.0, 0.0]), np.array([True, False]), ["0", "0"], [0.7, 0]], ids=repr)
def test_batched_envs_and_the_engine_refuse_non_integer_action_arrays(bad):
    venv = RummyVectorEnv(2, seed=0)
    venv.reset()
    with pytest.raises(ValueError, match="integer action ids"):
        venv.step(bad)
    gym_venv = RummyGymVectorEnv(2)
    gym_venv.reset(seed=0)
    with pytest.raises(ValueError, match="integer action ids"):
        gym_venv.step(bad)
    with pytest.raises(ValueError, match="integer action ids"):
        venv.engine.step(bad)


def test_numpy_integer_actions_are_accepted():
    aec = rummy_env.raw_env()
    aec.reset(seed=0)
    action = np.flatnonzero(aec.observe(aec.agent_selection)["action_mask"])[0]
    aec.step(np.int64(action))
    gym_env = RummyGymEnv()
    gym_env.reset(seed=0)
    gym_env.step(np.int32(np.flatnonzero(gym_env.action_masks())[0]))
    venv = RummyVectorEnv(2, seed=0)
    observation, _ = venv.reset()
    venv.step(observation["action_mask"].argmax(axis=1).astype(np.int32))
    venv.step([int(a) for a in venv.engine.legal_action_mask().argmax(axis=1)])


def test_stepping_before_reset_says_call_reset_first():
    steps = {
        "raw_env": lambda: rummy_env.raw_env().step(0),
        "RummyGymEnv": lambda: RummyGymEnv().step(0),
        "RummyGymVectorEnv": lambda: RummyGymVectorEnv(2).step(np.zeros(2, np.int64)),
        "RummyVectorEnv": lambda: RummyVectorEnv(2).step(np.zeros(2, np.int64)),
        "RummyEngine": lambda: RummyEngine(RummyRules.preset("basic"), 2).step(np.zeros(2, np.int64)),
    }
    for name, step in steps.items():
        with pytest.raises(RuntimeError, match=r"call reset\(\) first"):
            step()


def test_raw_env_step_after_the_end_gives_dead_steps_then_a_clear_error():
    aec = rummy_env.raw_env(max_turns_per_round=3)
    aec.reset(seed=0)
    rng = np.random.default_rng(0)
    while not (all(aec.terminations.values()) or all(aec.truncations.values())):
        aec.step(int(rng.choice(np.flatnonzero(aec.observe(aec.agent_selection)["action_mask"]))))
    while aec.agents:
        aec.step(None)                                   # PettingZoo's dead steps
    for action in (None, 0):
        with pytest.raises(RuntimeError, match=r"episode is over.*call reset\(\)"):
            aec.step(action)
    aec.reset(seed=1)                                    # and the env is usable again
    assert aec.agents == aec.possible_agents


# ============================================================================================ restore_game / engine.load
def started_game():
    env = rummy_env.env(num_players=2)
    env.reset(seed=7)
    rng = np.random.default_rng(7)
    for _ in range(9):
        env.step(int(rng.choice(np.flatnonzero(env.observe(env.agent_selection)["action_mask"]))))
    return env


def duplicated_card(saved):
    saved["position"]["hands"][0][0] = saved["position"]["hands"][1][0]


def move_to_table(saved, owner, **extra):
    """Three cards of player_0's hand that make no meld, put on the table as one (every card still once)."""
    hand = saved["position"]["hands"][0]
    cards = [hand.pop(0), hand.pop(-1), hand.pop(len(hand) // 2)]
    saved["position"]["table"] = [{"owner": owner, "cards": cards, **extra}]


BAD_RECORDS = {
    "duplicated card": (duplicated_card, "exactly once"),
    "current 7 of 2 players": (lambda saved: saved["position"].update(current=7), "'current'.*seat 0..1"),
    "unknown position key": (lambda saved: saved["position"].update(colour="red"), r"unknown position keys \['colour'\]"),
    "unknown record key": (lambda saved: saved.update(comment="x"), "keys"),
    "no position": (lambda saved: saved.pop("position"), "keys"),
    "bad phase": (lambda saved: saved["position"].update(phase="dancing"), "'phase'"),
    "bad dealer": (lambda saved: saved["position"].update(dealer=-1), "'dealer'"),
    "short totals": (lambda saved: saved["position"].update(totals=[3]), "'totals'"),
    "bad winner": (lambda saved: saved["position"].update(winner=5), "'winner'"),
    "bad card": (lambda saved: saved["position"]["discard"].append(99), "'discard'"),
    "bad meld": (lambda saved: move_to_table(saved, owner=0), r"'table'.*not a (meld|set or a run)"),
    "bad owner": (lambda saved: move_to_table(saved, owner=4), r"'table'.*4 is not a seat 0..1"),
    "unknown meld key": (lambda saved: move_to_table(saved, owner=0, x=1), r"'table'.*unknown keys \['x'\]"),
    "bad rules": (lambda saved: saved["rules"].update(num_players=9), "rules"),
}


@pytest.mark.parametrize("case", sorted(BAD_RECORDS))
def test_a_bad_saved_game_is_refused_and_the_game_in_progress_is_intact(case):
    change, message = BAD_RECORDS[case]
    env = started_game()
    raw = env.unwrapped
    saved = copy.deepcopy(raw.save_game())
    change(saved)
    before = (raw.engine.snapshot(0), env.agent_selection, copy.deepcopy(env.infos))
    with pytest.raises(ValueError, match=message):
        raw.restore_game(saved)
    assert raw.engine.snapshot(0) == before[0] and env.agent_selection == before[1]
    rng = np.random.default_rng(0)
    for _ in range(30):                                  # the game goes on
        if all(env.terminations.values()) or all(env.truncations.values()):
            break
        env.step(int(rng.choice(np.flatnonzero(env.observe(env.agent_selection)["action_mask"]))))


def test_engine_load_names_the_bad_key_and_writes_nothing():
    engine = RummyEngine(RummyRules.preset("basic", num_players=3), batch_size=2)
    engine.reset(seed=0)
    state = engine.state.copy()
    good = {"hands": ["5H 5S 9D", "2D 3D 4C", "KC KD"], "discard": ["8C"], "current": 1}
    for key, value in {"current": 3, "dealer": "one", "has_played": [True], "turn": -1, "hands": [[0]],
                       "known": [[], []], "game_winners": [7], "rummy": "no", "illegal_by": 3}.items():
        with pytest.raises(ValueError, match=f"'{key}'"):
            engine.load(1, {**good, key: value})
        np.testing.assert_array_equal(engine.state, state)
    engine.load(1, good)
    assert engine.snapshot(1)["current"] == 1


# ============================================================================================ agents built for a game
def test_a_rami51_heuristic_in_a_basic_env_and_vice_versa_is_refused_at_construction():
    rami = RummyRules.preset("rami51", num_players=2)
    basic = RummyRules.preset("basic", num_players=2)
    for env_rules, agent in ((basic, RamiHeuristicAgent(rami)), (rami, HeuristicAgent(basic)),
                             (RummyRules.preset("basic", num_players=4), GreedyAgent(basic))):
        with pytest.raises(ValueError, match=r"built for ruleset .* but this game is"):
            RummyGymEnv(env_rules, opponent=agent)
        with pytest.raises(ValueError, match=r"built for ruleset"):
            RummyGymVectorEnv(2, env_rules, opponent=agent)
    with pytest.raises(ValueError, match="RamiHeuristicAgent plays ruleset 'rami51'"):
        RamiHeuristicAgent(basic)
    engine = RummyEngine(basic, 1)
    engine.reset(seed=0)
    with pytest.raises(ValueError, match="observations of width"):
        RamiHeuristicAgent(rami).act(engine.observe(), engine.legal_action_mask(), np.random.default_rng(0))


def test_a_two_player_ppo_checkpoint_refuses_four_player_observations():
    pytest.importorskip("torch")
    from rummy_env.agents.ppo_agent import PPOAgent

    agent = PPOAgent.load("checkpoints/basic_2p.pt")
    engine = RummyEngine(RummyRules.preset("basic", num_players=4), 1)
    engine.reset(seed=0)
    with pytest.raises(ValueError, match=r"built for ruleset 'basic', 2 players .* observations of width \d+"):
        agent.act(engine.observe(), engine.legal_action_mask(), np.random.default_rng(0))
    with pytest.raises(ValueError, match="num_players"):
        PPOAgent.load("checkpoints/basic_2p.pt", rules=RummyRules.preset("basic", num_players=4))


@pytest.mark.parametrize("opponent", ["heuristic", "greedy", "random"])
def test_gymnasium_make_with_an_opponent_spec_plays_whole_episodes(opponent):
    env = gymnasium.make(rummy_env.GYM_ID, opponent=opponent, max_turns_per_round=30)
    rng = np.random.default_rng(0)
    for episode in range(3):
        env.reset(seed=episode)
        done = False
        while not done:
            _, _, terminated, truncated, info = env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))
            done = terminated or truncated


def test_an_opponent_that_is_not_an_agent_is_refused_at_construction():
    with pytest.raises(TypeError, match="opponent must be"):
        RummyGymEnv(opponent=12)
    with pytest.raises(ValueError, match="unknown agent spec 'heuristik'"):
        gymnasium.make(rummy_env.GYM_ID, opponent="heuristik")


def test_engine_observations_take_one_seat_or_one_per_row_and_refuse_others():
    engine = RummyEngine(RummyRules.preset("basic"), 3, parallel=False)
    engine.reset(seed=0)
    np.testing.assert_array_equal(engine.observe(1).copy(), engine.observe(np.ones(3, dtype=np.int64)))
    np.testing.assert_array_equal(engine.public_history(np.int8(0)), engine.public_history([0, 0, 0]))
    for seats, message in ((2, "seats must be 0..1"), ([0, -1, 0], "seats must be 0..1"),
                           ([0, 1], "one integer seat or 3"), (0.5, "one integer seat"), ([[0]], "one integer seat")):
        with pytest.raises(ValueError, match=message):
            engine.observe(seats)
    with pytest.raises(ValueError, match="seats must be 0..1"):
        engine.observe_records(engine.state[:2].copy(), [0, 4])
