"""Ruleset gin in every environment and tool: PettingZoo ``api_test`` and ``seed_test``, Gymnasium's
``check_env``, the native vector env, the SB3 VecEnv, the heuristic and greedy agents, game records and their
replay, the terminal game (``rummy play``) and the observation blocks."""

from __future__ import annotations

import io

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test, seed_test

import rummy_env
from rummy_env import RummyEngine, RummyGymEnv, RummyRules, RummyVectorEnv
from rummy_env.agents.registry import make_agent
from rummy_env.observations import ObservationLayout
from rummy_env.records import GameRecord
from rummy_env.training.arena import play_match

VARIANTS = [("gin", {}), ("gin_openspiel", {}), ("gin_rlcard", {}), ("gin", {"episode": "game", "target_score": 30}),
            ("gin", {"oklahoma": True, "knock_card": 10, "big_gin_bonus": 0}), ("gin", {"max_turns_per_round": 4})]
IDS = [f"{preset}-" + "-".join(f"{k}={v}" for k, v in knobs.items()) for preset, knobs in VARIANTS]


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("preset,knobs", VARIANTS, ids=IDS)
def test_api_test(preset, knobs):
    api_test(rummy_env.env(preset, **knobs), num_cycles=300)


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("preset,knobs", VARIANTS, ids=IDS)
def test_seed_test(preset, knobs):
    seed_test(lambda: rummy_env.env(preset, **knobs), num_cycles=200)


def test_gym_env_check_env_and_a_heuristic_opponent():
    check_env(RummyGymEnv("gin", illegal_action="penalty"), skip_render_check=True)
    env = RummyGymEnv("gin_openspiel", opponent=make_agent("heuristic", RummyRules.preset("gin_openspiel")))
    obs, info = env.reset(seed=3)
    rng = np.random.default_rng(0)
    for _ in range(300):
        action = int(rng.choice(np.flatnonzero(env.action_masks())))
        obs, reward, terminated, truncated, info = env.step(action)
        assert env.observation_space.contains(obs)
        if terminated or truncated:
            obs, info = env.reset()


def test_vector_env_runs_gin_with_autoreset():
    venv = RummyVectorEnv(8, "gin", seed=1)
    obs, infos = venv.reset()
    rng = np.random.default_rng(2)
    ended = 0
    for _ in range(400):
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in obs["action_mask"]])
        obs, rewards, terminated, truncated, infos = venv.step(actions)
        assert obs["observation"].dtype == np.int8
        assert obs["observation"].shape == (8, ObservationLayout(venv.rules).size)
        assert np.allclose(rewards.sum(axis=1), 0)
        ended += int(terminated.sum() + truncated.sum())
    assert ended > 0


def test_sb3_vec_env_steps_gin():
    pytest.importorskip("stable_baselines3")
    from rummy_env.envs.sb3 import RummySB3VecEnv

    venv = RummySB3VecEnv(4, "gin", seed=0)
    venv.reset()
    rng = np.random.default_rng(0)
    for _ in range(100):
        venv.step_async(np.array([rng.choice(np.flatnonzero(m)) for m in venv.action_masks()]))
        venv.step_wait()


@pytest.mark.parametrize("preset", ["gin", "gin_openspiel", "gin_rlcard"])
def test_gin_agents_play_legally_and_knock(preset):
    """The gin agents play whole seeded hands against random (every action checked by the engine) and win more
    than they lose: a smoke test, strength is measured in the arena (README)."""
    rules = RummyRules.preset(preset)
    for spec in ("heuristic", "greedy", "lookahead"):
        result = play_match(rules, (make_agent(spec, rules), make_agent("random", rules)), (spec, "random"), 40, seed=3)
        assert result.wins > result.losses, (spec, result.summary())


def test_records_replay_a_gin_game(tmp_path):
    rules = RummyRules.preset("gin", episode="game", target_score=40)
    record = GameRecord.new(rules, seed=9)
    engine = record.start()
    agent, rng = make_agent("heuristic", rules), np.random.default_rng(0)
    while not engine.done[0]:
        action = int(agent.act(engine.observe(), engine.legal_action_mask(), rng)[0])
        record.actions.append(action)
        engine.step([action])
    record.save(tmp_path / "gin.json")
    again = GameRecord.load(tmp_path / "gin.json").replay()
    assert again.snapshot(0) == engine.snapshot(0) and again.snapshot(0)["phase"] == "game_over"


def test_terminal_game_plays_gin(tmp_path):
    from rummy_env import terminal_game as tg

    rules = RummyRules.preset("gin", episode="hand")
    bots = tg.make_bots(tg.opponent_specs("heuristic", 2, 0), rules)
    record = GameRecord.new(rules, seed=4, agents=tg.agent_list(0, {s: b.name for s, b in bots.items()}, 2))
    out = io.StringIO()
    game = tg.TerminalGame(record, 0, bots, lambda prompt: "" if prompt.startswith("save") else "1", out,
                           tmp_path / "game.json", seed=1)
    assert game.run() == 0 and game.engine.done[0]
    assert "your moves:" in out.getvalue() and ("knock" in out.getvalue() or "void hand" in out.getvalue())


def test_observation_shows_the_knock_and_every_public_card():
    """The knocker's melds and the defender's lay-offs are in both players' observations; a card the opponent took
    face up stays in ``known`` until it leaves his hand; the knocker's deadwood is shown once he has laid."""
    eng = RummyEngine(RummyRules.preset("gin", first_dealer=1), 1)
    from rummy_env import cards

    def ids(text):
        return sorted(cards.parse_many(text))

    eng.load(0, {"hands": [ids("5S 6S 7S 9C 9D 9H 2H 3D"), ids("8S 4C KC KD KH 2C 3C AH QD 10D")],
                 "table": [], "discard": [cards.parse("JC")], "phase": "knock", "current": 0, "dealer": 1,
                 "gin": {"knocker": 0, "knock_stage": 1}, "known": [ids("9H"), []]})
    layout = eng.layout
    for meld in ("5S 6S 7S", "9C 9D 9H"):
        eng.step([layout.meld(layout.meld_entry(cards.parse_many(meld)))])
    eng.step([layout.special("pass")])
    eng.step([layout.lay_off(0, cards.parse("8S"))])
    views = [eng.observation_layout.split(eng.observe(np.array([seat], np.int8))[0].copy()) for seat in (0, 1)]
    for seat, view in enumerate(views):
        table = set(np.flatnonzero(view["slot_cards"].any(axis=0)).tolist())
        assert table == set(ids("5S 6S 7S 8S 9C 9D 9H")), seat
        assert view["knocker"][seat] == 1 and view["gin_phase"][2] == 1   # relative seat of the knocker, lay-off phase
    assert set(np.flatnonzero(views[1]["known"][0]).tolist()) == set(ids("2H 3D"))  # the knocker's deadwood
    assert views[0]["table_by_seat"][1][cards.parse("8S")] == 1                   # laid off by the defender


def test_the_last_hands_outcome_names_its_knocker_after_the_next_hand_starts():
    """Issue 30, 3: a game deals the next hand at once, so the finished hand's end in words (the terminal's
    "last hand: …" and the HTML page) must not read the new hand's knocker, which is none at first and may be
    either player later. The expected words come from the knocker seen while the hand was played."""
    from rummy_env.render import outcome

    rules = RummyRules.preset("gin", episode="game", target_score=200)
    engine, agent, rng = RummyEngine(rules, batch_size=1), make_agent("heuristic", rules), np.random.default_rng(0)
    engine.reset(seed=5)
    names, checked, expected, knocker = ["A", "B"], {"knock": 0, "void": 0}, None, -1
    while not engine.done[0] and sum(checked.values()) < 200:
        hands = int(engine.state["hands_played"][0])
        action = int(agent.act(engine.observe(), engine.legal_action_mask(), rng)[0])
        knocker = max(knocker, int(engine.state["knocker"][0]))
        engine.step([action])
        if int(engine.state["hands_played"][0]) > hands:
            snap = engine.snapshot(0)
            reason, winner = snap["end_reason"], snap["winner"]
            if reason in ("knock", "gin", "big_gin", "undercut"):
                assert knocker >= 0, "a knocked hand had a knocker"
                expected = (f"{names[winner]} undercut {names[knocker]}" if reason == "undercut" else
                            "tie" if winner is None else f"{names[knocker]} knocked" if winner == knocker else None)
                assert expected is not None, (reason, winner, knocker)
            else:
                assert knocker < 0
                expected = "void hand"
            knocker = -1
        if expected is not None and not engine.done[0]:
            text = outcome(engine.snapshot(0), names)
            assert expected in text.split(";")[0], (text, expected)
            checked["void" if expected == "void hand" else "knock"] += 1
    assert checked["knock"] > 20, checked
