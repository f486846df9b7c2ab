"""PPO self-play on Rummy with Ray RLlib (new API stack), on this machine or on a Ray cluster.

One shared, masked policy plays every seat (``training/rllib_adapters.py``: the env adapter, the
module, the metrics). ``training/RLLIB.md`` is the guide: install, local runs, clusters, Ray Jobs.

    python -m rummy_env.training.train_rllib --iterations 20 --num-env-runners 2 --out runs/rllib
    python -m rummy_env.training.train_rllib --resume runs/rllib/checkpoint_000020 --iterations 40
    tensorboard --logdir runs

**Where it runs.** ``--address`` (``auto``, ``<head-ip>:6379``, ``ray://<head-ip>:10001``), else the
``RAY_ADDRESS`` environment variable (set by ``ray job submit`` for the job's driver), else a new local
Ray instance (``--num-cpus``) that stops when the script ends. Before building anything the script
checks that the cluster has the CPUs (one per env runner, one per CPU learner) and GPUs asked for, and
stops with a message instead of waiting forever for them.

**Run folder** (``--out``, one run per folder: a folder holding another run is refused,
``training/runs.py``): ``checkpoint_<iteration>/`` every ``--checkpoint-every`` iterations and at the
end (a history, never overwritten; each holds ``rummy_run.json``, the run's training settings), and
``logs/`` (TensorBoard: the numbers printed each iteration, under ``rllib/``, by env steps).

**Resume.** ``--resume CHECKPOINT`` rebuilds the algorithm with the training settings stored in the
checkpoint (rules, network, PPO hyper-parameters, seed; a contradicting option is refused) and the
scale given now (env runners, learners, address), restores its state and trains on to
``--iterations`` in total, in the checkpoint's run folder.

**Policy.** ``RLModule.from_checkpoint(<checkpoint>/learner_group/learner/rl_module/shared)``, or the
agent spec ``rllib:<checkpoint or run folder>`` in the arena (``rummy_env.agents.rllib_agent``).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
from pathlib import Path
from typing import Any

from rummy_env.extras import needs_extra
from rummy_env.inputs import seed_type
from rummy_env.training.runs import check_no_later_checkpoints, check_out_dir

COMMAND = "python -m rummy_env.training.train_rllib"  # its name in error messages

with needs_extra("rllib", "rummy_env.training.train_rllib", COMMAND if __name__ == "__main__" else None):
    import ray
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from torch.utils.tensorboard import SummaryWriter

    from rummy_env.training.rllib_adapters import (MASKED_LOGIT, POLICY_ID, MaskedPPOModule, RummyMetrics,  # noqa: F401
                                                   RummyMultiAgentEnv, make_env)

RUN_FILE = "rummy_run.json"
# the options that define what is trained (kept on resume); the others only say how big and where it runs
TRAINING_OPTIONS = ("rules", "num_players", "max_turns_per_round", "train_batch_size", "minibatch_size", "num_epochs",
                    "lr", "hidden", "seed")


def build_config(
    *,
    num_players: int | None = None,
    rules: str = "basic",
    rules_overrides: dict | None = None,
    num_env_runners: int = 2,
    envs_per_env_runner: int = 1,
    train_batch_size: int = 4000,
    minibatch_size: int = 500,
    num_epochs: int = 4,
    lr: float = 3e-4,
    gamma: float = 0.995,
    entropy_coeff: float = 0.01,
    hidden: tuple[int, ...] = (256, 256),
    num_learners: int = 0,
    num_gpus_per_learner: float = 0,
    seed: int | None = None,
    restart_failed_env_runners: bool = False,
) -> PPOConfig:
    """The PPO config: one shared, masked policy for every seat (self-play).

    ``rules`` is a preset name or a ``.toml`` rules file (``num_players`` None: the preset's 2 or the
    file's). ``restart_failed_env_runners=False`` (unlike RLlib's default) makes an error inside an env
    runner, such as an illegal action, stop training with that error instead of restarting the runner
    and carrying on without its samples; set it on clusters whose nodes may go away."""
    env_config = {"rules": rules, "num_players": num_players, **(rules_overrides or {})}
    config = (
        PPOConfig()
        # RLlib's env pre-check steps the env with unmasked random actions, which this env rejects.
        # The env class itself (not a registered name), so that a checkpoint restores in a fresh process.
        .environment(RummyMultiAgentEnv, env_config=env_config, disable_env_checking=True)
        .framework("torch")
        .env_runners(num_env_runners=num_env_runners, num_envs_per_env_runner=envs_per_env_runner,
                     num_cpus_per_env_runner=1)
        .learners(num_learners=num_learners, num_gpus_per_learner=num_gpus_per_learner)
        .multi_agent(policies={POLICY_ID}, policy_mapping_fn=lambda agent_id, episode, **kw: POLICY_ID)
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs={
            POLICY_ID: RLModuleSpec(module_class=MaskedPPOModule, model_config={"hidden": list(hidden)}),
        }))
        .training(train_batch_size_per_learner=train_batch_size, minibatch_size=minibatch_size,
                  num_epochs=num_epochs, lr=lr, gamma=gamma, lambda_=0.95, entropy_coeff=entropy_coeff,
                  vf_loss_coeff=0.5, clip_param=0.2)
        .callbacks(RummyMetrics)
        .fault_tolerance(restart_failed_env_runners=restart_failed_env_runners)
    )
    if seed is not None:
        config = config.debugging(seed=seed)
    return config


# ------------------------------------------------------------------------------------ the cluster
def connect(address: str | None, num_cpus: int | None) -> bool:
    """Join ``address``, else ``RAY_ADDRESS``, else start a local instance; True when this call started Ray."""
    if ray.is_initialized():
        return False
    address = address or os.environ.get("RAY_ADDRESS")
    if address:
        if num_cpus is not None:
            raise SystemExit(f"--num-cpus sizes a local Ray instance; the cluster at {address} has its own CPUs")
        ray.init(address=address)
    else:
        ray.init(address="local", num_cpus=num_cpus, include_dashboard=False)  # always a new instance
    return True


def check_resources(num_env_runners: int, num_learners: int, num_gpus_per_learner: float,
                    available: dict[str, float]) -> None:
    """Stop with a message when the cluster lacks the CPUs or GPUs asked for (Ray would wait for them
    forever): one CPU per env runner, one per learner without a GPU, ``num_gpus_per_learner`` each."""
    cpus = num_env_runners + (num_learners if not num_gpus_per_learner else 0)
    gpus = num_learners * num_gpus_per_learner
    have_cpus, have_gpus = available.get("CPU", 0.0), available.get("GPU", 0.0)
    if cpus > have_cpus or gpus > have_gpus:
        raise SystemExit(
            f"this run needs {cpus} CPUs ({num_env_runners} env runners, one CPU each"
            f"{f', and {num_learners} learners' if num_learners and not num_gpus_per_learner else ''})"
            f"{f' and {gpus:g} GPUs' if gpus else ''}, but the Ray cluster has {have_cpus:g} CPUs and {have_gpus:g} "
            f"GPUs; lower --num-env-runners (at most {int(have_cpus)}) or --num-learners, or add nodes "
            "(Ray would otherwise wait for them without end)")


# ------------------------------------------------------------------------------------ reporting
def _get(result: dict, *keys: str, default: float = math.nan) -> Any:
    for key in keys:
        if not isinstance(result, dict) or key not in result:
            return default
        result = result[key]
    return result


def summarize(result: dict, agents: list[str]) -> dict[str, float]:
    """The numbers printed (and logged) per iteration, from one ``algo.train()`` result."""
    runners, learner = result.get("env_runners", {}), _get(result, "learners", POLICY_ID, default={})
    summary = {
        "episodes": _get(runners, "num_episodes", default=0),
        "env_steps": _get(runners, "num_env_steps_sampled", default=0),
        "env_steps_lifetime": _get(runners, "num_env_steps_sampled_lifetime", default=0),
        "episode_len_mean": _get(runners, "episode_len_mean"),
        "episode_return_mean": _get(runners, "episode_return_mean"),
        "hand_out_rate": _get(runners, "hand_out_rate"),
        "hand_score_abs": _get(runners, "hand_score_abs"),
    }
    for agent in agents:
        summary[f"return_{agent}"] = _get(runners, "agent_episode_returns_mean", agent)
    for key in ("total_loss", "policy_loss", "vf_loss", "entropy", "mean_kl_loss"):
        summary[key] = _get(learner, key)
    return {k: float(v) for k, v in summary.items()}


def format_summary(iteration: int, summary: dict[str, float], seconds: float) -> str:
    seats = " ".join(f"{k[len('return_'):]}={v:+.3f}" for k, v in summary.items() if k.startswith("return_"))
    return (f"iter {iteration:4d} {seconds:6.1f}s  steps={summary['env_steps']:.0f} "
            f"({summary['env_steps'] / seconds:.0f}/s) episodes={summary['episodes']:.0f} "
            f"len={summary['episode_len_mean']:.1f} return={summary['episode_return_mean']:+.3f} [{seats}] "
            f"out_rate={summary['hand_out_rate']:.2f}  loss={summary['total_loss']:.4f} "
            f"pi={summary['policy_loss']:.4f} vf={summary['vf_loss']:.4f} entropy={summary['entropy']:.3f} "
            f"kl={summary['mean_kl_loss']:.4f}")


# ------------------------------------------------------------------------------------ the command line
def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    p.add_argument("--rules", default="basic", help="rules preset or .toml rules file")
    p.add_argument("--num-players", type=int, default=None, help="seats (default: the preset's 2, or the file's)")
    p.add_argument("--max-turns-per-round", type=int, default=None,
                   help="rules knob: end a hand dead after this many turns (shorter hands for quick runs)")
    p.add_argument("--iterations", type=int, default=10, help="training iterations of the run (a resumed run: in total)")
    p.add_argument("--num-env-runners", type=int, default=2, help="remote sampling workers (0: sample in this process)")
    p.add_argument("--envs-per-env-runner", type=int, default=1)
    p.add_argument("--train-batch-size", type=int, default=4000, help="env steps per iteration (per learner)")
    p.add_argument("--minibatch-size", type=int, default=500)
    p.add_argument("--num-epochs", type=int, default=4)
    p.add_argument("--lr", type=float, default=3e-4)
    p.add_argument("--hidden", type=int, nargs="+", default=[256, 256])
    p.add_argument("--num-learners", type=int, default=0, help="remote learner workers (0: learn in this process)")
    p.add_argument("--num-gpus-per-learner", type=float, default=0)
    p.add_argument("--seed", type=seed_type(2**31 - 1), default=None)  # RLlib seeds numpy's legacy generator with worker offsets added
    p.add_argument("--restart-failed-env-runners", action="store_true",
                   help="restart an env runner that fails (lost node) instead of stopping with its error")
    p.add_argument("--address", default=None, help="Ray cluster to join ('auto', '<ip>:6379' or 'ray://<ip>:10001'); "
                                                   "default: $RAY_ADDRESS if set, else a new local instance")
    p.add_argument("--num-cpus", type=int, default=None, help="CPUs of the local Ray instance (without an address)")
    p.add_argument("--out", "--checkpoint-dir", dest="out", default=None,
                   help="run folder: checkpoints and TensorBoard logs (default runs/rllib; with --resume, the "
                        "checkpoint's folder)")
    p.add_argument("--checkpoint-every", type=int, default=0, help="also save every N iterations (0: only at the end)")
    p.add_argument("--resume", default=None, help="a checkpoint_<iteration> folder of a run to continue")
    args = p.parse_args(argv)
    given = {action.dest for action in p._actions if any(option in (argv if argv is not None else sys.argv[1:])
                                                          for option in action.option_strings)}
    if args.resume:
        _take_stored_settings(args, given, p)
    if args.out is None:
        args.out = str(Path(args.resume).parent) if args.resume else "runs/rllib"
    return args


def _take_stored_settings(args: argparse.Namespace, given: set[str], parser: argparse.ArgumentParser) -> None:
    """A resumed run keeps the training settings stored in its checkpoint; an option contradicting one is refused."""
    stored_file = Path(args.resume) / RUN_FILE
    if not stored_file.is_file():
        parser.error(f"--resume {args.resume}: not a checkpoint of train_rllib.py (no {RUN_FILE} in it)")
    stored = json.loads(stored_file.read_text())
    for name in TRAINING_OPTIONS:
        if name in given and getattr(args, name) != stored[name]:
            parser.error(f"--resume keeps the run's training settings: --{name.replace('_', '-')} "
                         f"{getattr(args, name)} contradicts the checkpoint's {stored[name]}")
        setattr(args, name, stored[name])
    args.resumed_iteration = stored["iteration"]


def save(algo, out: Path, args: argparse.Namespace) -> Path:
    """The algorithm's state into ``out/checkpoint_<iteration>`` with the run's training settings."""
    path = algo.save_to_path(str((out / f"checkpoint_{algo.iteration:06d}").resolve()))
    stored = {name: getattr(args, name) for name in TRAINING_OPTIONS} | {"iteration": algo.iteration}
    (Path(path) / RUN_FILE).write_text(json.dumps(stored, indent=1))
    print("checkpoint:", path, flush=True)
    return Path(path)


def main(argv: list[str] | None = None) -> list[dict[str, float]]:
    args = parse_args(argv)
    out = Path(args.out).expanduser()
    try:
        check_out_dir(str(out), args.resume, option="--out")
        if args.resume:
            check_no_later_checkpoints(str(out), args.resumed_iteration, option="--out")
    except FileExistsError as error:
        raise SystemExit(str(error)) from None
    overrides = {} if args.max_turns_per_round is None else {"max_turns_per_round": args.max_turns_per_round}
    config = build_config(
        num_players=args.num_players, rules=args.rules, rules_overrides=overrides,
        num_env_runners=args.num_env_runners, envs_per_env_runner=args.envs_per_env_runner,
        train_batch_size=args.train_batch_size, minibatch_size=args.minibatch_size, num_epochs=args.num_epochs,
        lr=args.lr, hidden=tuple(args.hidden), num_learners=args.num_learners,
        num_gpus_per_learner=args.num_gpus_per_learner, seed=args.seed,
        restart_failed_env_runners=args.restart_failed_env_runners,
    )
    agents = make_env(dict(config.env_config)).possible_agents     # the rules are checked here, before Ray starts
    # The env and module classes ship to the workers by value, so that a cluster needs rummy_env installed but
    # not this exact version of the training modules.
    ray.cloudpickle.register_pickle_by_value(sys.modules[RummyMultiAgentEnv.__module__])
    started_here = connect(args.address, args.num_cpus)
    summaries = []
    try:
        check_resources(args.num_env_runners, args.num_learners, args.num_gpus_per_learner, ray.cluster_resources())
        algo = config.build_algo()
        if args.resume:
            algo.restore_from_path(str(Path(args.resume).resolve()))
            print(f"resumed {args.resume} at iteration {algo.iteration}", flush=True)
        # a resumed run drops what its log holds past the checkpoint (written by the run it continues)
        writer = SummaryWriter(str(out / "logs"), purge_step=_lifetime_steps(algo) + 1 if args.resume else None)
        try:
            while algo.iteration < args.iterations:
                start = time.perf_counter()
                summary = summarize(algo.train(), agents)
                summaries.append(summary)
                print(format_summary(algo.iteration, summary, time.perf_counter() - start), flush=True)
                for name, value in summary.items():
                    if math.isfinite(value):
                        writer.add_scalar(f"rllib/{name}", value, int(summary["env_steps_lifetime"]))
                if args.checkpoint_every and algo.iteration % args.checkpoint_every == 0:
                    save(algo, out, args)
            if not (out / f"checkpoint_{algo.iteration:06d}").exists():
                save(algo, out, args)
        finally:
            writer.close()
            algo.stop()
    finally:
        if started_here:
            ray.shutdown()
    return summaries


def _lifetime_steps(algo) -> int:
    """Env steps sampled before this (resumed) run, where its TensorBoard curve continues."""
    return int(algo.metrics.peek(("env_runners", "num_env_steps_sampled_lifetime"), default=0))


if __name__ == "__main__":
    from rummy_env.cli import guarded

    sys.exit(guarded(COMMAND, main))
