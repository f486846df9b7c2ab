"""``ppo_selfplay`` refuses what would fail or lose a run (issue 12, part 7): NaN weights, optimizer state or
losses, configs that cannot train, an ``--out`` folder that holds another run; ``--resume`` uses the config
stored in the checkpoint."""

from __future__ import annotations

import shutil

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from tensorboard.backend.event_processing.event_accumulator import EventAccumulator  # noqa: E402

from rummy_env.agents.ppo_agent import PPOAgent  # noqa: E402
from rummy_env.training import ppo_selfplay  # noqa: E402
from rummy_env.training.ppo_selfplay import Trainer, load_config, train  # noqa: E402
from test_ppo_selfplay import TINY, tampered, tiny_config  # noqa: E402


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    """Two updates of a tiny run (a config other than the default file's), checkpoints after each."""
    out = tmp_path_factory.mktemp("run") / "run"
    train(tiny_config(total_steps=16 * 8 * 2, checkpoint_every=1), str(out), progress=False)
    return out


# ----------------------------------------------------------------------------------------------- NaN
def test_a_policy_with_a_nan_weight_is_refused(run, tmp_path):
    def poison(content):
        content["model"]["policy_head.weight"][0, 0] = float("nan")
    with pytest.raises(ValueError, match=r"non-finite values \(NaN or inf\) in the weights \(policy_head.weight\)"):
        PPOAgent.load(tampered(run / "policy.pt", tmp_path, poison))
    with pytest.raises(ValueError, match="non-finite"):
        Trainer(tiny_config(total_steps=16 * 8 * 2, checkpoint_every=1)).restore(
            tampered(run / "checkpoint_000001.pt", tmp_path, poison))


def test_a_checkpoint_with_a_nan_in_the_optimizer_state_is_refused_on_resume(run, tmp_path):
    def poison(content):
        state = next(iter(content["optimizer"]["state"].values()))
        state["exp_avg"].view(-1)[0] = float("nan")
    path = tampered(run / "checkpoint_000001.pt", tmp_path, poison)
    with pytest.raises(ValueError, match="non-finite values .* in the optimizer state"):
        Trainer(tiny_config(total_steps=16 * 8 * 2, checkpoint_every=1)).restore(path)
    with pytest.raises(ValueError, match="optimizer state"):
        train(tiny_config(total_steps=16 * 8 * 3, checkpoint_every=1), str(tmp_path / "resumed"), resume=path,
              progress=False)


def test_a_non_finite_loss_stops_training_before_the_weights_change(tmp_path):
    trainer = Trainer(tiny_config())
    trainer.rollout = lambda: poisoned_batch(Trainer.rollout(trainer))
    before = {name: tensor.clone() for name, tensor in trainer.network.state_dict().items()}
    with pytest.raises(FloatingPointError, match="training stopped at update 1: non-finite loss"):
        trainer.train_one_update()
    for name, tensor in trainer.network.state_dict().items():
        assert torch.equal(tensor, before[name]), name


def poisoned_batch(batch):
    batch["returns"][0] = float("nan")
    return batch


# ----------------------------------------------------------------------------------------------- configs
@pytest.mark.parametrize("change, message", [
    ({"learning_rate": 1e6}, r"learning_rate = 1000000.0 must be > 0 and <= 1"),
    ({"learning_rate": 0.0}, "learning_rate = 0.0 must be > 0"),
    ({"num_minibatches": 0}, "num_minibatches = 0 must be >= 1"),
    ({"num_minibatches": 16 * 8 + 1}, "num_minibatches = 129 is more than the transitions of an update"),
    ({"checkpoint_every": 0}, "checkpoint_every = 0 must be >= 1"),
    ({"num_steps": 0}, "num_steps = 0 must be >= 1"),
    ({"total_steps": -5}, "total_steps = -5 must be >= 1"),
    ({"total_steps": 100}, "total_steps = 100 is less than one update"),
    ({"learning_rate": "0.001"}, "learning_rate = '0.001' must be a number"),
    ({"num_envs": "16"}, "num_envs = '16' must be an integer"),
    ({"num_envs": True}, "num_envs = True must be an integer"),
    ({"update_epochs": 2.5}, "update_epochs = 2.5 must be an integer"),
    ({"gamma": float("nan")}, "gamma = nan must be a number"),
    ({"anneal_lr": "yes"}, "anneal_lr = 'yes' must be true or false"),
    ({"rules": "poker"}, "rules = 'poker' must be a preset"),
    ({"num_players": 9}, r"rules .* are invalid: num_players=9"),
    ({"rule_knobs": {"reward": "money"}}, "reward='money' is impossible"),
])
def test_configs_that_cannot_train_are_refused_up_front(change, message):
    with pytest.raises(ValueError, match=message):
        tiny_config(**change)


def test_the_command_line_refuses_bad_values_with_a_message(capsys, tmp_path):
    with pytest.raises(SystemExit) as exit_info:
        ppo_selfplay.main(["--total-steps", "-5", "--out", str(tmp_path / "x")])
    assert exit_info.value.code == 2
    assert "total_steps = -5 must be >= 1" in capsys.readouterr().err
    assert not (tmp_path / "x").exists()


# ----------------------------------------------------------------------------------------------- runs and folders
def test_a_new_run_into_a_folder_holding_a_run_is_refused_and_nothing_is_touched(run, capsys):
    files = {path: path.stat().st_mtime_ns for path in run.rglob("*")}
    with pytest.raises(FileExistsError, match=r"already holds a run .*--resume .*checkpoint_000002.pt"):
        train(tiny_config(), str(run), progress=False)
    with pytest.raises(SystemExit):
        ppo_selfplay.main(["--out", str(run)])
    assert "already holds a run" in capsys.readouterr().err
    assert {path: path.stat().st_mtime_ns for path in run.rglob("*")} == files


def test_resume_uses_the_config_stored_in_the_checkpoint(run, tmp_path, capsys):
    """The README's command (no --config) continues a run of any config, in the run's own folder."""
    folder = tmp_path / "continued"
    shutil.copytree(run, folder)
    (folder / "checkpoint_000002.pt").unlink()              # as if the run had stopped after update 1
    ppo_selfplay.main(["--resume", str(folder / "checkpoint_000001.pt"), "--out", str(folder)])
    saved = torch.load(folder / "checkpoint_000002.pt", weights_only=True)
    assert saved["config"]["num_envs"] == TINY["num_envs"] and saved["update"] == 2
    resumed, straight = (torch.load(path, weights_only=True)["model"]
                         for path in (folder / "checkpoint_000002.pt", run / "checkpoint_000002.pt"))
    for name, tensor in straight.items():
        assert torch.equal(tensor, resumed[name]), name
    steps = [event.step for event in EventAccumulator(str(folder / "logs")).Reload().Scalars("train/entropy")]
    assert steps == [128, 256], "the log continues from the checkpoint: the old update 2 dropped, no duplicate"
    with pytest.raises(SystemExit):   # --config naming another run's config is refused
        ppo_selfplay.main(["--resume", str(folder / "checkpoint_000002.pt"), "--out", str(folder),
                           "--config", "configs/ppo/basic_2p.toml"])
    file_envs = load_config("configs/ppo/basic_2p.toml").num_envs
    assert f"num_envs: checkpoint {TINY['num_envs']!r} vs config {file_envs!r}" in capsys.readouterr().err  # not swapped
    with pytest.raises(FileExistsError, match="later checkpoints than the one resumed"):
        train(tiny_config(total_steps=16 * 8 * 2, checkpoint_every=1), str(folder),
              resume=str(folder / "checkpoint_000001.pt"), progress=False)


def test_fresh_out_dir_picks_a_new_folder_next_to_a_run(run):
    assert ppo_selfplay.fresh_out_dir(str(run)) == f"{run}-2"
    assert np.isfinite(load_config("configs/ppo/basic_2p.toml").learning_rate)
