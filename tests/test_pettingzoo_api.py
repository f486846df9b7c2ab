"""The PettingZoo AEC env (``rummy_env.env`` / ``raw_env``): PettingZoo's own API and seed tests for every
player count and episode kind, plus the env's extras: action names, ANSI rendering, the perfect-information
``state()``, ``save_game``/``restore_game``, and illegal actions raising ``ValueError`` with the reason.
"""

from __future__ import annotations

import json
import warnings

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

import rummy_env
from rummy_env import RummyRules

try:  # tests/ is put on sys.path by conftest.py
    import oracle as O
except ImportError:  # pragma: no cover
    from tests import oracle as O

PLAYERS = [2, 3, 4, 5, 6]
SUITS = "♣♦♥♠"

# knob sets the API/seed tests run under; the short ones make hands (and games) end within the cycles,
# so that termination, the final rewards and the agents' lifecycle are exercised too
VARIANTS = {
    "default": {},
    "short_hand": {"max_turns_per_round": 12, "dead_round_scoring": "lowest_hand_wins"},
    "game": {"episode": "game", "max_turns_per_round": 10, "game_end_mode": "hands", "num_hands": 2, "max_hands": 2},
    "game_win_reward": {"episode": "game", "reward": "win", "max_turns_per_round": 8, "target_score": 20, "max_hands": 3},
}


def symbol(card: int) -> str:
    rank = {1: "A", 11: "J", 12: "Q", 13: "K"}.get(card % 13 + 1, str(card % 13 + 1))
    return rank + SUITS[card // 13]


def play_random(env, rng: np.random.Generator, steps: int) -> list[int]:
    """Play up to ``steps`` uniformly random legal actions; returns them."""
    actions = []
    for _ in range(steps):
        agent = env.agent_selection
        if env.terminations[agent] or env.truncations[agent]:
            break
        mask = env.observe(agent)["action_mask"]
        action = int(rng.choice(np.flatnonzero(mask)))
        env.step(action)
        actions.append(action)
    return actions


# ============================================================================================ PettingZoo tests
@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("variant", sorted(VARIANTS))
@pytest.mark.parametrize("players", PLAYERS)
def test_api_test(players, variant):
    api_test(rummy_env.env(num_players=players, **VARIANTS[variant]), num_cycles=500)


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("players", PLAYERS)
def test_api_test_raw_env(players):
    api_test(rummy_env.raw_env(num_players=players, max_turns_per_round=12), num_cycles=500)


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("variant", sorted(VARIANTS))
@pytest.mark.parametrize("players", PLAYERS)
def test_seed_test(players, variant):
    seed_test(lambda: rummy_env.env(num_players=players, **VARIANTS[variant]), num_cycles=500)


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("players", PLAYERS)
def test_seed_test_raw_env(players):
    seed_test(lambda: rummy_env.raw_env(num_players=players, max_turns_per_round=12), num_cycles=500)


# rami51 (2-5 players) and the Lebanese "14": small cycle counts (each step may run the no-dead-end search);
# a short round cap makes rounds end within the cycles, so termination and final rewards are exercised too
RAMI_VARIANTS = [("rami51", n, {}) for n in (2, 3, 4, 5)] + [
    ("rami51", 3, {"max_turns_per_round": 10, "dead_round_scoring": "hand_penalties"}),
    ("rami51", 2, {"episode": "game", "game_end_mode": "rounds", "num_rounds": 2, "max_turns_per_round": 8}),
    ("rami51", 2, {"card_announcement": "manual", "final_discard": "optional", "opening_threshold": 10}),
    ("lebanese14", 2, {}),
    ("lebanese14", 4, {"max_turns_per_round": 12}),
]
RAMI_IDS = [f"{rules}-{n}p" + ("-" + "-".join(f"{k}={v}" for k, v in knobs.items()) if knobs else "")
            for rules, n, knobs in RAMI_VARIANTS]


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("rules,players,knobs", RAMI_VARIANTS, ids=RAMI_IDS)
def test_api_test_rami51(rules, players, knobs):
    api_test(rummy_env.env(rules, num_players=players, **knobs), num_cycles=60)


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("rules,players,knobs", RAMI_VARIANTS, ids=RAMI_IDS)
def test_seed_test_rami51(rules, players, knobs):
    seed_test(lambda: rummy_env.env(rules, num_players=players, **knobs), num_cycles=60)


@pytest.mark.parametrize("players", [2, 5])
def test_reset_with_a_seed_reproduces_the_episode(players):
    """Same seed, same actions: identical observations and infos; another seed deals differently."""
    runs = []
    for _ in range(2):
        env = rummy_env.env(num_players=players, max_turns_per_round=30)
        env.reset(seed=7)
        rng = np.random.default_rng(0)
        trace = []
        for agent in env.agent_iter(max_iter=400):
            obs, reward, term, trunc, info = env.last()
            trace.append((agent, obs["observation"].tobytes(), obs["action_mask"].tobytes(), reward, term,
                          json.dumps(info, default=np.ndarray.tolist)))
            env.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        runs.append(trace)
    assert runs[0] == runs[1]
    other = rummy_env.env(num_players=players)
    other.reset(seed=8)
    first = rummy_env.env(num_players=players)
    first.reset(seed=7)
    assert other.unwrapped.engine.snapshot(0)["hands"] != first.unwrapped.engine.snapshot(0)["hands"]


# ============================================================================================ observe / masks
@pytest.mark.parametrize("players", [2, 4, 6])
def test_observe_masks_spaces(players):
    """Only the agent to act has a non-zero mask, and it is the engine's mask; observations are in their
    space; ``observation_space`` returns the same object on every call."""
    env = rummy_env.env(num_players=players, max_turns_per_round=20)
    env.reset(seed=3)
    raw = env.unwrapped
    rng = np.random.default_rng(3)
    assert env.observation_space("player_0") is env.observation_space("player_0")
    for _ in range(120):
        if all(env.terminations.values()) or all(env.truncations.values()):
            break
        acting = env.agent_selection
        for agent in env.possible_agents:
            obs = env.observe(agent)
            assert env.observation_space(agent).contains(obs)
            if agent == acting:
                assert np.array_equal(obs["action_mask"], raw.engine.legal_action_mask()[0])
                assert obs["action_mask"].any()
            else:
                assert not obs["action_mask"].any(), f"{agent} is not to act but has a non-zero mask"
        env.step(int(rng.choice(np.flatnonzero(env.observe(acting)["action_mask"]))))


def test_agent_to_act_after_reset_can_act_or_is_terminated():
    """E17 edge: 3 x 17 cards and the upcard leave no stock; with ``reshuffle_keep_top = false`` and
    ``max_reshuffles = 0`` the first hand is dead before anybody acts (B11, B17). After ``reset`` the
    selected agent must either be terminated or have a legal action — never a live agent with an empty
    mask (PettingZoo's contract: the agent to act can act)."""
    failures = []
    for episode in ("hand", "game"):
        env = rummy_env.env(num_players=3, hand_size_by_players={3: 17}, reshuffle_keep_top=False, max_reshuffles=0,
                            episode=episode, max_hands=3)
        env.reset(seed=0)
        obs, reward, terminated, truncated, info = env.last()
        if not (terminated or truncated or obs["action_mask"].any()):
            failures.append(f"episode={episode}: {env.agent_selection} is live after reset but has no legal action "
                            f"(info {info})")
    assert not failures, "\n".join(failures)


# ============================================================================================ action names
@pytest.mark.parametrize("knobs", [{}, {"ace_high_or_low": True}, {"ace_high_or_low": True, "round_the_corner": True}])
def test_action_to_str_names_every_action(knobs):
    env = rummy_env.env(num_players=3, **knobs)
    raw = env.unwrapped
    rules = raw.rules
    lay = O.layout(rules)
    count = raw.action_space("player_0").n
    assert count == lay.A
    names = [raw.action_to_str(a) for a in range(count)]
    assert all(isinstance(n, str) and n for n in names)
    assert len(set(names)) == count, "two actions share a name"
    for a, name in enumerate(names):
        kind, *args = O.decode_action(a, rules)
        if kind == "draw_stock":
            assert "stock" in name
        elif kind == "draw_discard":
            assert "discard" in name and "take" in name
        elif kind == "meld":
            assert name.startswith("meld") and all(symbol(c) in name for c in args[1]), (a, name)
        elif kind == "lay_off":
            slot, card = args
            assert name.startswith("lay off") and symbol(card) in name and f"slot {slot}" in name, (a, name)
        else:
            assert name.startswith("discard") and symbol(args[0]) in name, (a, name)
    with pytest.raises(ValueError):
        raw.action_to_str(count)


# ============================================================================================ rendering
@pytest.mark.parametrize("players", [2, 6])
def test_render_ansi_shows_cards_and_hands(players):
    env = rummy_env.env(num_players=players, render_mode="ansi")
    env.reset(seed=5)
    play_random(env, np.random.default_rng(5), 25)
    text = env.render()
    assert isinstance(text, str)
    assert any(s in text for s in SUITS)
    snap = env.unwrapped.engine.snapshot(0)
    lines = text.splitlines()
    for seat, hand in enumerate(snap["hands"]):
        line = next(line for line in lines if f"player_{seat} [" in line)
        for card in hand:
            assert symbol(card) in line.split(" ", 3)[-1] or symbol(card) in line, f"{symbol(card)} missing from {line!r}"
    for meld in snap["table"]:
        assert any(all(symbol(c) in line for c in meld["cards"]) for line in lines)
    if snap["discard"]:
        assert symbol(snap["discard"][-1]) in text


def test_render_human_prints_and_no_mode_warns(capsys):
    env = rummy_env.env(num_players=2, render_mode="human")
    env.reset(seed=1)
    capsys.readouterr()
    assert env.render() is None
    assert "player_0" in capsys.readouterr().out
    quiet = rummy_env.env(num_players=2)
    quiet.reset(seed=1)
    with warnings.catch_warnings(record=True):
        warnings.simplefilter("always")
        assert quiet.render() is None
    with pytest.raises(ValueError):
        rummy_env.raw_env(num_players=2, render_mode="rgb_array")


# ============================================================================================ state()
@pytest.mark.parametrize("players", PLAYERS)
def test_state_contains_every_hand_and_the_stock_order(players):
    """``state()``: every hand by absolute seat, then the stock order (1 = top), then the observation."""
    env = rummy_env.env(num_players=players)
    env.reset(seed=players)
    play_random(env, np.random.default_rng(players), 15)
    raw = env.unwrapped
    state = raw.state()
    snap = raw.engine.snapshot(0)
    assert state.dtype == np.int8
    assert state.shape == (players * 52 + 52 + raw.engine.observation_size,)
    hands = np.zeros((players, 52), dtype=np.int8)
    for seat, hand in enumerate(snap["hands"]):
        hands[seat, hand] = 1
    assert np.array_equal(state[:players * 52].reshape(players, 52), hands), "state() hands block != the hands"
    order = np.zeros(52, dtype=np.int64)
    order[snap["stock"][::-1]] = np.arange(1, len(snap["stock"]) + 1)
    assert np.array_equal(state[players * 52:players * 52 + 52], order), "state() stock order wrong"
    seat = np.array([snap["current"]], dtype=np.int8)
    assert np.array_equal(state[players * 52 + 52:], raw.engine.observe(seat)[0])


# ============================================================================================ save / restore
@pytest.mark.parametrize("players,knobs", [(2, {}), (4, {"ace_high_or_low": True}), (3, {"episode": "game", "max_hands": 2,
                                                                                             "max_turns_per_round": 40})])
def test_save_restore_round_trip_mid_game(players, knobs):
    """``save_game`` mid-game, JSON round trip, ``restore_game`` into a fresh env (reset with another
    seed): continuing with the same actions gives the same observations, rewards, terminations,
    truncations and infos as the original env, to the end of the episode. Restoring into the original env replays too."""
    rng = np.random.default_rng(players)
    original = rummy_env.env(num_players=players, **knobs)
    original.reset(seed=100 + players)
    play_random(original, rng, 40)
    saved = json.loads(json.dumps(original.unwrapped.save_game()))
    copy = rummy_env.env(num_players=players, **knobs)
    copy.reset(seed=999)
    copy.unwrapped.restore_game(saved)
    assert copy.unwrapped.engine.snapshot(0) == original.unwrapped.engine.snapshot(0)
    assert copy.agent_selection == original.agent_selection

    def trace(env, actions=None):
        out, played = [], []
        for k in range(3000):
            agent = env.agent_selection
            views = [env.observe(a) for a in env.possible_agents]
            out.append((agent, [v["observation"].tobytes() + v["action_mask"].tobytes() for v in views],
                        dict(env.rewards), dict(env.terminations), dict(env.truncations),
                        json.dumps(env.infos, sort_keys=True, default=np.ndarray.tolist)))
            if all(env.terminations.values()) or all(env.truncations.values()):
                break
            if actions is None:
                action = int(rng.choice(np.flatnonzero(env.observe(agent)["action_mask"])))
            else:
                action = actions[k]
            env.step(action)
            played.append(action)
        return out, played

    original_trace, actions = trace(original)
    copy_trace, _ = trace(copy, actions)
    assert copy_trace == original_trace
    assert copy.unwrapped.engine.snapshot(0) == original.unwrapped.engine.snapshot(0)
    original.unwrapped.restore_game(saved)
    replay_trace, _ = trace(original, actions)
    assert replay_trace == original_trace


def test_restore_refuses_other_rules():
    env = rummy_env.env(num_players=2)
    env.reset(seed=0)
    saved = env.unwrapped.save_game()
    other = rummy_env.env(num_players=2, ace_high_or_low=True)
    other.reset(seed=0)
    with pytest.raises(ValueError):
        other.unwrapped.restore_game(saved)
    assert RummyRules.from_dict(saved["rules"]) == env.unwrapped.rules


# ============================================================================================ illegal actions
def test_illegal_actions_raise_value_error_with_the_reason():
    env = rummy_env.env(num_players=2)
    env.reset(seed=0)
    raw = env.unwrapped
    lay = O.layout(raw.rules)
    position = {"phase": "draw", "current": 0, "hands": ["5H 5S 9D KC", "2D 3D 4C"], "discard": ["8C", "5C"],
                "table": [{"owner": 1, "cards": "6D 7D 8D"}]}
    raw.restore_game({"rules": raw.rules.to_dict(), "position": position})
    assert env.agent_selection == "player_0"

    def refused(action, *words):
        before = raw.engine.snapshot(0)
        with pytest.raises(ValueError) as info:
            env.step(action)
        message = str(info.value)
        for word in words:
            assert word.lower() in message.lower(), f"{word!r} not in {message!r}"
        assert raw.engine.snapshot(0) == before, "a refused action changed the position"
        assert env.agent_selection == "player_0"
        return message

    refused(lay.discard_id(O.parse_card("9D")), "draw")                         # B6: a turn starts with a draw
    refused(lay.layoff_id(0, O.parse_card("9D")), "draw")
    env.step(O.DRAW_DISCARD)                                                    # takes 5C
    refused(O.DRAW_STOCK, "drawn")                                              # B6: one draw per turn
    refused(lay.discard_id(O.parse_card("AS")), "not in the hand")
    refused(lay.layoff_id(3, O.parse_card("9D")), "slot")                       # no meld in slot 3
    refused(lay.layoff_id(0, O.parse_card("KC")), "does not extend")            # K♣ onto 6♦ 7♦ 8♦
    refused(lay.discard_id(O.parse_card("5C")), "B7")                           # the card just taken
    env.step(lay.meld_id(O.layout(raw.rules).meld_index(O.parse_cards("5C 5H 5S"))))
    env.step(lay.discard_id(O.parse_card("KC")))                                # the turn ends normally
    assert env.agent_selection == "player_1"


def test_last_after_the_episode_and_a_non_integer_player_count_say_what_is_wrong():
    env = rummy_env.env(num_players=2)
    env.reset(seed=3)
    for _agent in env.agent_iter():
        observation, _reward, terminated, truncated, _info = env.last()
        env.step(None if terminated or truncated else int(np.flatnonzero(observation["action_mask"])[0]))
    assert env.agents == []
    with pytest.raises(RuntimeError, match="the episode is over.*reset"):
        env.last()
    env.reset(seed=4)
    assert env.last()[0]["action_mask"].any()
    with pytest.raises(ValueError, match=r"num_players must be an integer, got '2' \(str\)"):
        rummy_env.env(num_players="2")


@pytest.mark.parametrize("preset", ["basic", "rami51", "gin"])
def test_infos_carry_the_action_mask_for_libraries_that_read_it_there(preset):
    """Issue 30, section 3: AgileRL and others read ``info["action_mask"]``. Every agent's info holds the mask of
    its observation (all zeros when it is not to act), refreshed at every step, read-only, with no copy made."""
    env = rummy_env.env(preset, max_turns_per_round=30)
    env.reset(seed=4)
    rng = np.random.default_rng(0)
    steps = 0
    for agent in env.agent_iter(max_iter=2000):
        observation, _, terminated, truncated, info = env.last()
        assert np.array_equal(info["action_mask"], observation["action_mask"])
        for other in env.agents:
            assert np.array_equal(env.infos[other]["action_mask"], env.observe(other)["action_mask"])
        if terminated or truncated:
            env.step(None)
            continue
        with pytest.raises(ValueError, match="read-only"):
            info["action_mask"][0] = 1
        assert info["action_mask"].any() and info["action_mask"].base is not None  # a view, not a copy
        env.step(int(rng.choice(np.flatnonzero(observation["action_mask"]))))
        steps += 1
    assert steps > 20
    bare = rummy_env.env(preset, action_mask_in_infos=False)
    bare.reset(seed=4)
    assert "action_mask" not in bare.last()[4] and bare.last()[0]["action_mask"].any()
    with pytest.raises(ValueError, match="action_mask_in_infos"):
        rummy_env.env(preset, action_mask_in_infos="yes")
