"""PPO self-play for rummy on the native ``RummyVectorEnv`` (CleanRL style: the algorithm in one file).

    rummy train --config basic_2p --out runs/basic_2p       (a shipped config by name, or a .toml path)
    rummy train --resume runs/basic_2p/checkpoint_000100.pt --out runs/basic_2p
    tensorboard --logdir runs

**One shared policy, many seats.** Every row of the vector env is a game; at each step the policy
acts for whichever seat is to move in that row (masked logits: illegal actions get a large negative
logit). A row's seat ``p`` owns the steps at which ``p`` acted: that sub-sequence is ``p``'s
trajectory, and PPO sees it as an ordinary single-agent trajectory.

**Credit assignment** (``per_seat_advantages``). The env returns a reward for *every* seat after
every step (``rewards[t, row, seat]``), and the end of a hand rewards all seats at the step of
whoever ended it. The reward of ``p``'s transition at step ``t`` is the sum of ``p``'s rewards from
step ``t`` up to (not including) ``p``'s next action in the row, or up to the end of the episode if
it comes first: so the final reward reaches each seat's *last* transition of the episode, whoever
moved last. The transition is terminal when the episode ended before ``p`` acted again; otherwise
it bootstraps from the value of ``p``'s next decision. GAE then runs along each seat's own chain
(``gamma`` and ``lambda`` discount per own decision, not per env step). At the end of a rollout the
last, unfinished transition of each seat bootstraps from the critic's value of that seat's
observation of the final state (``engine.observe(seats=p)``); rewards that reach a seat before its
first decision of an episode (only possible if a hand ends before it has moved) have no transition
to go to and are dropped.

**Opponent pool** (``training/opponent_pool.py``). When a row starts an episode it draws what it
plays against (``opponents`` in the config): ``self`` (the learner in every seat), ``past`` (a random one of the last ``pool_size``
snapshots of the policy, taken every ``snapshot_every`` updates), ``heuristic`` or ``random``
(the fixed baselines of ``agents/``), and, for the non-self rows, which seat is the learner's.
The learner trains on *all* seats of self-play rows (both sides are its own decisions: twice the
data) and only on its own seat in rows against a pool opponent (the opponent's actions are not the
learner's, so their log-probabilities mean nothing to its ratio).

**Checkpoints** (``torch.save``, written to a temporary file then ``os.replace``d, so a crash never
leaves half a file) hold the model, optimizer, config, rules, step and update counts, the pool, the
games in progress (the engine's records) and every random state (torch, the numpy generator; the
engine's seed stream is reseeded from that generator at each update), so ``--resume`` continues with
exactly the update an uninterrupted run would have made. A damaged file, a missing key, other
rules/config/architecture, or a NaN or infinity in the weights, the optimizer state or the pool is
refused with a ``ValueError`` saying what is wrong. ``--resume`` takes the config stored in the
checkpoint (``--total-steps`` may extend the run). A run also writes ``policy.pt`` (weights, config and
rules only) for ``rummy_env.agents.PPOAgent``.

**Nothing is lost.** The config is checked before anything starts (``training/ppo_config.py``); a new
run refuses an ``--out`` folder that holds another run's checkpoints, ``policy.pt`` or logs (a resumed
run continues in its own folder); a non-finite loss or gradient stops training with a
``FloatingPointError`` before the optimizer step, so the weights and every checkpoint stay finite.
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # numpy's small matmuls beside torch's threads

import argparse  # noqa: E402
import sys  # noqa: E402
import dataclasses  # noqa: E402
import time  # noqa: E402
from typing import Any, Sequence  # noqa: E402

import numpy as np  # noqa: E402

from rummy_env.extras import needs_extra  # noqa: E402
from rummy_env.inputs import seed_type  # noqa: E402

COMMAND = "rummy train"  # its name in error messages

with needs_extra("train", "rummy_env.training.ppo_selfplay", COMMAND if __name__ == "__main__" else None):
    import torch
    from torch.utils.tensorboard import SummaryWriter
    from tqdm import tqdm

from rummy_env import assets  # noqa: E402
from rummy_env.agents.ppo_agent import (CHECKPOINT_FORMAT, POLICY_FORMAT, POLICY_KEYS, ActorCritic,  # noqa: E402
                                        LegalActions, build_network, check_finite, check_rules, entropy,
                                        read_checkpoint, rules_as_dict)
from rummy_env.rules import ENV_KNOBS  # noqa: E402
from rummy_env.training.opponent_pool import SELF, OpponentPool  # noqa: E402
from rummy_env.training.runs import (REPORT_EVERY, Report, check_no_later_checkpoints, check_out_dir,  # noqa: E402,F401
                                     fresh_out_dir)
from rummy_env import RummyVectorEnv  # noqa: E402
from rummy_env.rules import RummyRules, make_rules  # noqa: E402
from rummy_env.training.ppo_config import (OPPONENT_KINDS, PPOConfig, check_config_values,  # noqa: E402,F401
                                           config_from_dict, load_config)

DEFAULT_CONFIG = "basic_2p"  # configs/ppo/basic_2p.toml, shipped with the package (rummy_env.assets)
CHECKPOINT_KEYS = ("format", "model", "optimizer", "config", "rules", "global_step", "update", "rng", "pool", "games")


def make_env_rules(config: PPOConfig) -> RummyRules:
    return make_rules(config.rules, config.num_players, **config.rule_knobs)


# ----------------------------------------------------------------------------------------------- credit assignment
def per_seat_advantages(rewards: np.ndarray, episode_ends: np.ndarray, seats: np.ndarray, values: np.ndarray,
                        bootstrap: np.ndarray, gamma: float, gae_lambda: float) -> np.ndarray:
    """GAE along each seat's own decisions (see the module docstring).

    ``rewards`` (T, B, P): every seat's reward after step ``t``; ``episode_ends`` (T, B): the row's
    episode ended at step ``t``; ``seats`` (T, B): who acted at ``t``; ``values`` (T, B): the critic's
    value of that decision; ``bootstrap`` (B, P): each seat's value after the last step.
    Returns the advantages (T, B) of the decisions, one backward pass over time."""
    steps, batch, players = rewards.shape
    rows = np.arange(batch)
    next_value = bootstrap.astype(np.float64).copy()     # value of each seat's next decision
    next_advantage = np.zeros((batch, players))           # and its advantage
    pending_reward = np.zeros((batch, players))           # rewards since that seat's current decision
    advantages = np.zeros((steps, batch))
    for t in reversed(range(steps)):
        ended = episode_ends[t]
        next_value[ended] = 0.0      # what follows an episode's end belongs to the next episode
        next_advantage[ended] = 0.0
        pending_reward[ended] = 0.0
        pending_reward += rewards[t]
        actor = seats[t]
        delta = pending_reward[rows, actor] + gamma * next_value[rows, actor] - values[t]
        advantages[t] = delta + gamma * gae_lambda * next_advantage[rows, actor]
        next_value[rows, actor] = values[t]
        next_advantage[rows, actor] = advantages[t]
        pending_reward[rows, actor] = 0.0
    return advantages


# ----------------------------------------------------------------------------------------------- the trainer
class Trainer:
    """The env, the network, the optimizer, the pool and the random states of one run."""

    def __init__(self, config: PPOConfig):
        check_config_values(config)
        self.config = config
        torch.set_num_threads(config.torch_threads)
        torch.manual_seed(config.seed)
        self.rng = np.random.default_rng(config.seed)
        self.rules = make_env_rules(config)
        self.env = RummyVectorEnv(config.num_envs, rules=self.rules, seed=config.seed, parallel=config.env_parallel)
        self.engine = self.env.engine
        self.network = ActorCritic(self.rules, config.hidden_size, config.num_layers, config.card_features)
        self.anchor: ActorCritic | None = None
        if config.init_policy:  # start from a policy file; with kl_coef, stay near it
            path = str(assets.find("checkpoint", config.init_policy))
            content = read_checkpoint(path, POLICY_KEYS)
            check_rules(content["rules"], self.rules, path, ignore=ENV_KNOBS)
            start = {**content, "config": dataclasses.asdict(config)}  # its weights must fit this run's network
            self.network.load_state_dict(build_network(start, self.rules, path).state_dict())
            if config.kl_coef > 0:
                self.anchor = build_network(start, self.rules, path).eval()
        self.optimizer = torch.optim.Adam(self.network.parameters(), lr=config.learning_rate, eps=1e-5)
        self.pool = OpponentPool(config, self.rules)
        self.global_step = 0
        self.update = 0
        self.env.reset()
        self.pool.draw(np.arange(config.num_envs), self.rng)
        self.episode_results: list[tuple[int, float]] = []  # (opponent kind, learner won) per finished episode

    # ------------------------------------------------------------------ rollout
    @torch.no_grad()
    def rollout(self) -> dict[str, torch.Tensor]:
        """``num_steps`` steps of every row; returns the learner's transitions with advantages."""
        config, engine = self.config, self.engine
        steps, batch = config.num_steps, config.num_envs
        engine.reset(seed=int(self.rng.integers(2**63)), rows=np.zeros(batch, dtype=bool))  # reseed, no reset
        mask = engine.legal_action_mask().astype(bool)  # (also after a restore or the bootstrap's observe)
        observation = engine.observe().copy()
        observations = torch.zeros((steps, batch, engine.observation_size), dtype=torch.int8)
        masks = torch.zeros((steps, batch, engine.num_actions), dtype=torch.bool)
        actions = torch.zeros((steps, batch), dtype=torch.int64)
        log_probs = torch.zeros((steps, batch))
        values = torch.zeros((steps, batch))
        seats = np.zeros((steps, batch), dtype=np.int64)
        trainable = np.zeros((steps, batch), dtype=bool)
        rewards = np.zeros((steps, batch, config.num_players))
        episode_ends = np.zeros((steps, batch), dtype=bool)
        for t in range(steps):
            seats[t] = engine.current_player
            trainable[t] = self.pool.learner_moves(seats[t])
            observations[t], masks[t] = torch.from_numpy(observation), torch.from_numpy(mask)
            chosen = np.zeros(batch, dtype=np.int64)
            self.pool.act(chosen, observation, mask, seats[t], self.rng)
            learner = np.flatnonzero(trainable[t])  # the network runs on the learner's rows only
            legal = LegalActions.from_mask(mask[learner])
            step_log_probs, values[t, learner] = self.network(observations[t, learner], legal)
            chosen[learner] = legal.sample(step_log_probs, torch.rand(learner.size)).numpy()
            actions[t] = torch.from_numpy(chosen)
            log_probs[t, learner] = step_log_probs.gather(1, legal.slot_of(actions[t, learner])[:, None]).squeeze(1)
            next_observation, step_rewards, terminated, truncated, infos = self.env.step(chosen)
            mask = next_observation["action_mask"].astype(bool)
            observation = next_observation["observation"].copy()
            rewards[t] = step_rewards
            episode_ends[t] = terminated | truncated
            self._record_episodes(np.flatnonzero(episode_ends[t]), infos["final_winners"])
        self.global_step += steps * batch
        bootstrap = np.stack([self.network.value(torch.from_numpy(engine.observe(np.full(batch, seat, np.int8))))
                              .numpy() for seat in range(config.num_players)], axis=1)
        advantages = per_seat_advantages(rewards, episode_ends, seats, values.numpy(), bootstrap,
                                         config.gamma, config.gae_lambda)
        keep = torch.from_numpy(trainable.reshape(-1))
        advantages_t = torch.from_numpy(advantages.reshape(-1)).float()
        return {"observations": observations.reshape(steps * batch, -1)[keep],
                "masks": masks.reshape(steps * batch, -1)[keep], "actions": actions.reshape(-1)[keep],
                "log_probs": log_probs.reshape(-1)[keep], "advantages": advantages_t[keep],
                "returns": (advantages_t + values.reshape(-1))[keep], "values": values.reshape(-1)[keep]}

    def _record_episodes(self, rows: np.ndarray, final_winners: np.ndarray) -> None:
        """Note the learner's result in rows against pool opponents, then draw their next opponents."""
        if rows.size == 0:
            return
        kinds = self.pool.kind[rows]
        won = final_winners[rows, self.pool.learner_seat[rows]]
        self.episode_results += [(int(k), float(w)) for k, w in zip(kinds, won) if k != SELF]
        self.pool.draw(rows, self.rng)

    # ------------------------------------------------------------------ update
    def learn(self, batch: dict[str, torch.Tensor]) -> dict[str, float]:
        """``update_epochs`` passes of clipped PPO over shuffled minibatches of the rollout."""
        config = self.config
        if config.anneal_lr:
            progress = min(self.global_step / config.total_steps, 1.0)
            self.optimizer.param_groups[0]["lr"] = config.learning_rate * max(1.0 - progress, 0.05)
        size = batch["actions"].shape[0]
        minibatch = max(size // config.num_minibatches, 1)
        stats: dict[str, list[float]] = {"policy_loss": [], "value_loss": [], "entropy": [], "approx_kl": [],
                                         "clip_fraction": []}
        for _ in range(config.update_epochs):
            order = torch.randperm(size)
            for start in range(0, size - minibatch + 1, minibatch):
                index = order[start:start + minibatch]
                legal = LegalActions.from_mask(batch["masks"][index].numpy())
                log_probs, values = self.network(batch["observations"][index], legal)
                new_log_prob = log_probs.gather(1, legal.slot_of(batch["actions"][index])[:, None]).squeeze(1)
                log_ratio = new_log_prob - batch["log_probs"][index]
                ratio = log_ratio.exp()
                advantages = batch["advantages"][index]
                advantages = (advantages - advantages.mean()) / (advantages.std() + 1e-8)
                policy_loss = torch.max(-advantages * ratio,
                                        -advantages * ratio.clamp(1 - config.clip_coef, 1 + config.clip_coef)).mean()
                value_loss = 0.5 * (values - batch["returns"][index]).pow(2).mean()
                step_entropy = entropy(log_probs).mean()
                loss = policy_loss + config.vf_coef * value_loss - config.ent_coef * step_entropy
                if self.anchor is not None:
                    with torch.no_grad():
                        anchor_log_probs, _ = self.anchor(batch["observations"][index], legal)
                    anchor_kl = (anchor_log_probs.exp() * (anchor_log_probs - log_probs)).sum(dim=-1).mean()
                    loss = loss + config.kl_coef * anchor_kl
                    stats.setdefault("anchor_kl", []).append(anchor_kl.item())
                self.optimizer.zero_grad()
                loss.backward()
                norm = torch.nn.utils.clip_grad_norm_(self.network.parameters(), config.max_grad_norm)
                if not (torch.isfinite(loss) and torch.isfinite(norm)):  # before the step: the weights stay finite
                    raise FloatingPointError(
                        f"training stopped at update {self.update + 1}: non-finite loss {loss.item()} (policy "
                        f"{policy_loss.item()}, value {value_loss.item()}, entropy {step_entropy.item()}) or gradient "
                        f"norm {norm.item()}; the checkpoints written so far are intact. Lower learning_rate "
                        f"({config.learning_rate}) or max_grad_norm, or resume from an earlier checkpoint")
                self.optimizer.step()
                with torch.no_grad():
                    stats["approx_kl"].append(float(((ratio - 1) - log_ratio).mean()))
                    stats["clip_fraction"].append(float(((ratio - 1).abs() > config.clip_coef).float().mean()))
                stats["policy_loss"].append(policy_loss.item())
                stats["value_loss"].append(value_loss.item())
                stats["entropy"].append(step_entropy.item())
        self.update += 1
        summary = {name: float(np.mean(values)) for name, values in stats.items()}
        variance = float(batch["returns"].var())
        summary["explained_variance"] = 1.0 - float((batch["returns"] - batch["values"]).var()) / max(variance, 1e-8)
        summary["learning_rate"] = self.optimizer.param_groups[0]["lr"]
        summary["trained_transitions"] = float(size)
        return summary

    def train_one_update(self) -> dict[str, float]:
        summary = self.learn(self.rollout())
        if self.update % self.config.snapshot_every == 0:
            self.pool.add_snapshot(self.network)
        return summary

    def win_rates(self) -> dict[str, float]:
        """The learner's win rate per opponent kind over the episodes finished since the last call."""
        results = np.array(self.episode_results).reshape(-1, 2)
        self.episode_results = []
        return {f"win_rate/{OPPONENT_KINDS[k]}": float(results[results[:, 0] == k, 1].mean())
                for k in np.unique(results[:, 0]).astype(int)}

    # ------------------------------------------------------------------ checkpoints
    def save(self, path: str) -> None:
        """The full training state, written atomically (a temporary file, then ``os.replace``)."""
        content = self.policy_content(CHECKPOINT_FORMAT) | {
            "optimizer": self.optimizer.state_dict(),
            "rng": {"torch": torch.get_rng_state(), "numpy": self.rng.bit_generator.state},
            "pool": self.pool.state_dict(),
            "games": torch.from_numpy(self.engine.state.view(np.uint8).copy()),
        }
        atomic_save(content, path)

    def policy_content(self, file_format: str = POLICY_FORMAT) -> dict[str, Any]:
        return {"format": file_format, "model": self.network.state_dict(), "config": dataclasses.asdict(self.config),
                "rules": rules_as_dict(self.rules), "global_step": self.global_step, "update": self.update}

    def restore(self, path: str) -> None:
        """Continue from a checkpoint of a run with this config; anything mismatched is refused."""
        content = read_checkpoint(path, CHECKPOINT_KEYS)
        if content["format"] != CHECKPOINT_FORMAT:
            raise ValueError(f"{path} is a policy file, not a training checkpoint (it cannot be resumed)")
        check_config(content["config"], self.config, path)
        check_rules(content["rules"], self.rules, path)
        check_finite(content["optimizer"], path, "optimizer state")
        check_finite(content["pool"], path, "opponent pool's snapshots")
        self.network.load_state_dict(build_network(content, self.rules, path).state_dict())
        self.optimizer.load_state_dict(content["optimizer"])
        self.pool.load_state_dict(content["pool"])
        games = content["games"].numpy()
        if games.size != self.engine.state.nbytes:
            raise ValueError(f"{path} holds {games.size} bytes of games, this run's engine {self.engine.state.nbytes}")
        self.engine.state.view(np.uint8)[:] = games
        torch.set_rng_state(content["rng"]["torch"])
        self.rng.bit_generator.state = content["rng"]["numpy"]
        self.global_step, self.update = int(content["global_step"]), int(content["update"])


def check_config(saved: dict[str, Any], config: PPOConfig, path: str) -> None:
    """Refuse a checkpoint of another config (``total_steps`` may change: a run can be extended)."""
    current = dataclasses.asdict(config)
    differing = sorted(k for k in current.keys() | saved.keys() if k != "total_steps" and saved.get(k) != current.get(k))
    if differing:
        detail = ", ".join(f"{k}: checkpoint {saved.get(k)!r} vs config {current.get(k)!r}" for k in differing)
        raise ValueError(f"{path} was written under another config ({detail})")


def atomic_save(content: dict[str, Any], path: str) -> None:
    directory = os.path.dirname(os.path.abspath(path))
    os.makedirs(directory, exist_ok=True)
    temporary = f"{path}.tmp{os.getpid()}"
    torch.save(content, temporary)
    os.replace(temporary, path)


# ----------------------------------------------------------------------------------------------- main loop
def train(config: PPOConfig, out: str, resume: str | None = None, progress: bool = True) -> Trainer:
    """Run (or continue) training to ``config.total_steps``; checkpoints and logs go under ``out``, which
    must hold no other run (``check_out_dir``). A non-finite loss stops the run with a
    ``FloatingPointError`` before it touches the weights.

    Every ``REPORT_EVERY`` updates one line on stdout gives the step, the win rates of those updates per
    opponent kind, the entropy and the speed (beside the progress bar on a terminal, alone in a file); the last
    line says where the policy, the checkpoints and the logs went."""
    check_out_dir(out, resume)
    trainer = Trainer(config)
    if resume is not None:
        trainer.restore(resume)
        check_no_later_checkpoints(out, trainer.update)
    # a resumed run drops what its logs hold past the checkpoint (written by the run it continues)
    writer = SummaryWriter(os.path.join(out, "logs"), purge_step=trainer.global_step + 1 if resume else None)
    bar = tqdm(total=config.total_steps, initial=trainer.global_step, unit="step", disable=not progress,
               dynamic_ncols=True)
    start, start_step, report = time.perf_counter(), trainer.global_step, Report()
    try:
        while trainer.global_step + config.steps_per_update <= config.total_steps:
            summary = trainer.train_one_update()
            summary |= trainer.win_rates()
            summary["steps_per_second"] = (trainer.global_step - start_step) / (time.perf_counter() - start)
            for name, value in summary.items():
                writer.add_scalar(name if "/" in name else f"train/{name}", value, trainer.global_step)
            bar.update(config.steps_per_update)
            bar.set_postfix({k.split("/")[-1]: f"{v:.3g}" for k, v in summary.items()
                             if k in ("win_rate/heuristic", "entropy", "steps_per_second")})
            report.add(summary)
            checkpoint = trainer.update % config.checkpoint_every == 0
            if checkpoint:
                trainer.save(os.path.join(out, f"checkpoint_{trainer.update:06d}.pt"))
            if checkpoint or trainer.update % REPORT_EVERY == 0:
                bar.write(report.line(trainer.update, trainer.global_step, config.total_steps, checkpoint), file=sys.stdout)
                sys.stdout.flush()
    finally:
        bar.close()
        writer.close()
    last = os.path.join(out, f"checkpoint_{trainer.update:06d}.pt")
    trainer.save(last)
    atomic_save(trainer.policy_content(), os.path.join(out, "policy.pt"))
    seconds = time.perf_counter() - start
    steps = trainer.global_step - start_step
    print(f"trained {steps:,} steps in {seconds:,.0f} s ({steps / max(seconds, 1e-9):,.0f} steps/s); policy {os.path.join(out, 'policy.pt')} "
          f"(play it: rummy play --opponents ppo:{os.path.join(out, 'policy.pt')}), last checkpoint {last}, "
          f"logs {os.path.join(out, 'logs')} (tensorboard --logdir {out})", flush=True)
    return trainer


def resume_config(checkpoint: str, config_path: str | None, **overrides: Any) -> PPOConfig:
    """The config a ``--resume`` continues with: the one stored in the checkpoint (``total_steps`` may be
    raised by an override); with ``--config`` too, that file must describe the same run."""
    saved = read_checkpoint(checkpoint, ("config",))["config"]
    config = config_from_dict({**saved, **{k: v for k, v in overrides.items() if v is not None}}, source=checkpoint)
    if config_path is not None:
        check_config(dataclasses.asdict(config), load_config(config_path, **overrides), checkpoint)
    return config


def main(argv: Sequence[str] | None = None) -> None:
    from rummy_env.cli import short_doc

    parser = argparse.ArgumentParser(prog="rummy train", **short_doc("rummy_env.training.ppo_selfplay"))
    parser.add_argument("--config", help="TOML config (see PPOConfig): a path or the name of a shipped one (basic_2p, "
                                         f"rami51_2p); default {DEFAULT_CONFIG}, or with --resume the checkpoint's own")
    parser.add_argument("--total-steps", type=int, help="override the config's total env steps")
    parser.add_argument("--out", default="runs/ppo", help="directory for checkpoints, policy.pt and logs (a new "
                                                          "run needs a new or empty one)")
    parser.add_argument("--resume", help="a checkpoint_*.pt to continue from (its stored config is used)")
    parser.add_argument("--seed", type=seed_type(2**63 - 1), help="override the config's seed")
    parser.add_argument("--init-policy", help="override the config's init_policy (a policy file to start from)")
    parser.add_argument("--quiet", action="store_true", help="no progress bar (there is none when stderr is not a terminal)")
    args = parser.parse_args(argv)
    try:
        if args.resume:
            config = resume_config(args.resume, args.config, total_steps=args.total_steps, seed=args.seed,
                                   init_policy=args.init_policy)
        else:
            config = load_config(args.config or DEFAULT_CONFIG, total_steps=args.total_steps, seed=args.seed,
                                 init_policy=args.init_policy)
        check_out_dir(args.out, args.resume)
    except (ValueError, FileExistsError, FileNotFoundError) as error:
        parser.error(str(error))
    try:
        train(config, args.out, resume=args.resume, progress=not args.quiet and sys.stderr.isatty())
    except FloatingPointError as error:
        sys.exit(f"error: {error}")


if __name__ == "__main__":
    from rummy_env.cli import guarded

    sys.exit(guarded(COMMAND, main))
