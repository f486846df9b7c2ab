"""``training/ppo_selfplay.py`` and ``agents.PPOAgent``: credit assignment, a training smoke run that
resumes to the identical next update, and the refusal of damaged or mismatched checkpoints and configs."""

from __future__ import annotations

import os
import sys

import numpy as np
import pytest
import torch

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from rummy_env.agents.ppo_agent import PPOAgent  # noqa: E402
from rummy_env import RummyEngine, RummyRules  # noqa: E402
from rummy_env.observations import ObservationLayout  # noqa: E402
from rummy_env.training.ppo_selfplay import (PPOConfig, Trainer, load_config, per_seat_advantages,  # noqa: E402
                                   train)

TINY = dict(num_envs=16, num_steps=8, hidden_size=16, num_layers=1, total_steps=16 * 8 * 4, checkpoint_every=2,
            snapshot_every=1, pool_size=2, num_minibatches=2,
            opponents={"self": 0.4, "past": 0.2, "heuristic": 0.2, "random": 0.2})


def tiny_config(**changes) -> PPOConfig:
    return load_config("configs/ppo/basic_2p.toml", **(TINY | changes))


@pytest.fixture(scope="module")
def straight_run(tmp_path_factory):
    """Four updates straight through, checkpoints after updates 2 and 4."""
    out = tmp_path_factory.mktemp("straight")
    trainer = train(tiny_config(), str(out), progress=False)
    return out, trainer


# ----------------------------------------------------------------------------------------------- credit assignment
def test_end_of_episode_reward_reaches_each_seats_last_transition():
    """Seats 0 and 1 alternate; seat 1 ends the hand at t=3 (+1 to it, -1 to seat 0); a new hand
    starts at t=4. With gamma = lambda = 1 and zero values, advantages are the seats' own returns."""
    seats = np.array([0, 1, 0, 1, 0, 1])[:, None]
    rewards = np.zeros((6, 1, 2))
    rewards[3, 0] = [-1.0, 1.0]
    ends = np.zeros((6, 1), dtype=bool)
    ends[3] = True
    advantages = per_seat_advantages(rewards, ends, seats, np.zeros((6, 1)), bootstrap=np.array([[0.5, -0.25]]),
                                     gamma=1.0, gae_lambda=1.0)
    np.testing.assert_allclose(advantages[:, 0], [-1.0, 1.0, -1.0, 1.0, 0.5, -0.25])


def test_discount_counts_own_decisions_and_rewards_between_them():
    """Seat 0 acts three times running (draw, meld, discard), then seat 1 twice; a mid-hand reward to
    seat 0 at seat 1's step lands on seat 0's transition before it; values bootstrap along each chain."""
    seats = np.array([0, 0, 0, 1, 1, 0])[:, None]
    rewards = np.zeros((6, 1, 2))
    rewards[3, 0] = [0.5, -0.5]
    values = np.array([0.1, 0.2, 0.3, 0.4, 0.6, 0.7])[:, None]
    gamma = 0.9
    advantages = per_seat_advantages(rewards, np.zeros((6, 1), dtype=bool), seats, values,
                                     bootstrap=np.array([[1.0, 2.0]]), gamma=gamma, gae_lambda=0.0)
    expected = [gamma * 0.2 - 0.1, gamma * 0.3 - 0.2, 0.5 + gamma * 0.7 - 0.3,   # seat 0's chain
                -0.5 + gamma * 0.6 - 0.4, gamma * 2.0 - 0.6,                       # seat 1's chain
                gamma * 1.0 - 0.7]
    np.testing.assert_allclose(advantages[:, 0], expected)


def test_rows_and_episodes_do_not_leak_into_each_other():
    """Row 1 ends at t=0: its reward stays on its step; row 0's seats never see it."""
    seats = np.array([[0, 1], [1, 0]])
    rewards = np.zeros((2, 2, 2))
    rewards[0, 1] = [-1.0, 1.0]
    ends = np.array([[False, True], [False, False]])
    advantages = per_seat_advantages(rewards, ends, seats, np.zeros((2, 2)), bootstrap=np.zeros((2, 2)),
                                     gamma=1.0, gae_lambda=1.0)
    np.testing.assert_allclose(advantages, [[0.0, 1.0], [0.0, 0.0]])


# ----------------------------------------------------------------------------------------------- training and resume
def test_one_update_has_finite_losses_and_entropy():
    summary = Trainer(tiny_config()).train_one_update()
    for name in ("policy_loss", "value_loss", "entropy", "approx_kl"):
        assert np.isfinite(summary[name]), f"{name} = {summary[name]}"
    assert summary["entropy"] > 0


def test_resume_continues_with_the_identical_next_updates(straight_run, tmp_path):
    out, straight = straight_run
    resumed = train(tiny_config(), str(tmp_path), resume=str(out / "checkpoint_000002.pt"), progress=False)
    assert resumed.update == straight.update == 4 and resumed.global_step == straight.global_step
    for (name, a), b in zip(straight.network.state_dict().items(), resumed.network.state_dict().values()):
        assert torch.equal(a, b), f"parameter {name} differs after resume"
    np.testing.assert_array_equal(straight.engine.state, resumed.engine.state)


def test_policy_file_plays_legal_actions_greedy_or_sampled(straight_run):
    """Trained with reward="win", the policy plays under the default env knobs (the same game)."""
    out, _ = straight_run
    rules = RummyRules.preset("basic", num_players=2)
    engine = RummyEngine(rules, batch_size=32)
    engine.reset(seed=3)
    rng = np.random.default_rng(0)
    for greedy in (True, False):
        agent = PPOAgent.load(str(out / "policy.pt"), rules=rules, greedy=greedy)
        for _ in range(40):
            mask = engine.legal_action_mask().copy()
            actions = agent.act(engine.observe(), mask, rng)
            assert mask[np.arange(32), actions].all()
            engine.step(actions)
            engine.reset(rows=engine.done.copy())
        assert agent.act(engine.observe()[:0], engine.legal_action_mask()[:0], rng).shape == (0,)


# ----------------------------------------------------------------------------------------------- refusals
def tampered(path, tmp_path, change) -> str:
    content = torch.load(path, weights_only=True)
    change(content)
    target = str(tmp_path / "tampered.pt")
    torch.save(content, target)
    return target


def test_corrupt_checkpoint_is_refused(straight_run, tmp_path):
    out, _ = straight_run
    data = (out / "checkpoint_000002.pt").read_bytes()
    truncated = tmp_path / "truncated.pt"
    truncated.write_bytes(data[: len(data) // 2])
    garbage = tmp_path / "garbage.pt"
    garbage.write_bytes(b"not a checkpoint at all")
    for path in (truncated, garbage):
        with pytest.raises(ValueError, match="not a readable checkpoint"):
            Trainer(tiny_config()).restore(str(path))
        with pytest.raises(ValueError, match="not a readable checkpoint"):
            PPOAgent.load(str(path))


def test_checkpoint_missing_a_key_is_refused(straight_run, tmp_path):
    out, _ = straight_run
    path = tampered(out / "checkpoint_000002.pt", tmp_path, lambda content: content.pop("optimizer"))
    with pytest.raises(ValueError, match=r"lacks the key\(s\) \['optimizer'\]"):
        Trainer(tiny_config()).restore(path)


def test_mismatched_rules_config_or_architecture_is_refused(straight_run, tmp_path):
    out, _ = straight_run
    checkpoint = out / "checkpoint_000002.pt"
    with pytest.raises(ValueError, match="other rules.*ace_high_or_low"):
        PPOAgent.load(str(out / "policy.pt"), rules=RummyRules.preset("basic", num_players=2, reward="win",
                                                                       ace_high_or_low=True))
    other_rules = tampered(checkpoint, tmp_path, lambda content: content["rules"].update(ace_high_or_low=True))
    with pytest.raises(ValueError, match="other rules.*ace_high_or_low"):
        Trainer(tiny_config()).restore(other_rules)
    with pytest.raises(ValueError, match="another config.*learning_rate"):
        Trainer(tiny_config(learning_rate=1e-3)).restore(str(checkpoint))

    def shrink_layer(content):
        content["model"]["policy_head.weight"] = content["model"]["policy_head.weight"][:, :8]
    with pytest.raises(ValueError, match="does not fit the network.*policy_head.weight"):
        Trainer(tiny_config()).restore(tampered(checkpoint, tmp_path, shrink_layer))


def test_unknown_config_key_is_refused(tmp_path):
    path = tmp_path / "typo.toml"
    path.write_text('rules = "basic"\nlearning_rte = 0.001\n')
    with pytest.raises(ValueError, match="unknown config key 'learning_rte'; allowed keys: rules, num_players"):
        load_config(str(path))
    with pytest.raises(ValueError, match="unknown opponent kind"):
        tiny_config(opponents={"self": 1.0, "greedy": 1.0})


def test_shipped_configs_load():
    for name, rules in (("basic_2p", "basic"), ("rami51_2p", "rami51"), ("rami51_4p", "rami51"), ("gin_2p", "gin_openspiel")):
        config = load_config(f"configs/ppo/{name}.toml")
        assert config.rules == rules


@pytest.mark.parametrize("rules", ["gin_openspiel", "rami51"])
def test_both_networks_train_on_gin_and_rami51(rules):
    """Gin's action layout has PASS and KNOCK after the draws, rami51's COMMIT, UNDO, TAKE_BACK there and
    TAKE and SWAP before the discards, and jokers: the plain MLP and the card-feature network both train."""
    for card_features in (0, 8):
        summary = Trainer(tiny_config(rules=rules, card_features=card_features)).train_one_update()
        assert all(np.isfinite(summary[name]) for name in ("policy_loss", "value_loss", "entropy", "approx_kl"))


@pytest.mark.parametrize("preset, knobs", [("gin_openspiel", {}), ("rami51", {}),
                                           ("rami51", {"card_announcement": "manual"})])
def test_card_read_outs_land_on_the_actions_about_each_natural_card(preset, knobs):
    """A read-out bias for one kind of action moves exactly those actions' logits: each natural card's discard,
    its lay-offs (onto every slot), the new melds (by their natural cards: gin's three or four, rami51's two or
    three beside a joker), the discard top; the stock, the specials, rami51's TAKE and SWAP, and every joker
    (discarded, laid off at either end of a run) none; rami51's silent discards (manual announcement) read their
    card's discard read-out too."""
    from rummy_env.actions import ActionLayout
    from rummy_env.agents.ppo_agent import READOUTS, ActorCritic, LegalActions

    rules = RummyRules.preset(preset, **knobs)
    layout = ActionLayout.for_rules(rules)
    net = ActorCritic(rules, 16, 1, 4)
    engine = RummyEngine(rules, 1)
    engine.reset(seed=0)
    top_at = ObservationLayout(rules).offsets["discard_top"]
    while not engine.observe()[0, top_at:top_at + 52].any():  # rami51 deals no discard top: the dealer discards
        legal = np.flatnonzero(engine.legal_action_mask()[0])
        engine.step(legal[-1:])  # the last legal action: a discard
    raw = engine.observe()
    top = raw[0, top_at:top_at + 52]
    assert top.sum() == 1
    observation = torch.from_numpy(raw.astype(np.float32))
    every = LegalActions.from_mask(np.ones((1, layout.num_actions), dtype=bool))
    natural = np.ones(layout.num_actions, dtype=bool)
    discards = np.arange(layout.discard_offset, layout.num_actions)
    natural[discards[(discards - layout.discard_offset) % rules.num_card_types >= 52]] = False
    layoffs = np.arange(layout.layoff_offset, layout.take_offset)
    natural[layoffs[(layoffs - layout.layoff_offset) % layout.layoff_codes >= 52]] = False
    with torch.no_grad():
        before = net(observation, every)[0]
        for kind, moved in (("discard", discards), ("layoff", layoffs),
                            ("meld", range(layout.meld_offset, layout.layoff_offset)), ("take", range(1, 2))):
            net.readout.bias.zero_()
            net.readout.bias[READOUTS.index(kind)] = 1.0
            shift = net(observation, every)[0] - before
            shift -= shift[0, 0].clone()  # log-softmax moves every action by the same normaliser
            expected = np.zeros(layout.num_actions)
            expected[list(moved)] = natural[list(moved)]
            if kind == "meld":
                expected[list(moved)] = [sum(0 <= card < 52 for card in layout.catalogue.members(e))
                                         for e in range(len(layout.catalogue))]
            if kind == "take":  # the read-out of the top card, times its plane (the network reads log1p(1))
                expected[1] = np.log(2.0) * top.sum()
            np.testing.assert_allclose(shift[0].numpy(), expected, atol=1e-5, err_msg=kind)
