"""Behaviour cloning and expert iteration: a teacher's decisions distilled into the PPO network (``ActorCritic``)::

    python -m rummy_env.training.distill --config basic_2p --teacher heuristic --states 400000 --out runs/bc_basic_2p
    python -m rummy_env.training.distill --config basic_2p --teacher pimc:worlds=32,belief=model \\
        --init runs/bc_basic_2p/policy.pt --rounds 2 --states 60000 --out runs/exit_basic_2p

Each **round** plays games on a batched engine and records, at every decision, the observation, the mask and
the teacher's action (any agent spec of ``rummy_env.agents.registry``; search agents get the game records).
In round 0 the teacher plays every seat (behaviour cloning); in later rounds the current network plays, with
probability ``--student-share`` per game, and the teacher only labels the states the network reaches (DAgger:
the network learns to recover from its own mistakes; with a search teacher this is expert iteration, the
search improving on the network's play and the network distilling the search). After each round the network
trains on everything collected so far for ``--epochs`` passes: cross-entropy on the teacher's action over the
legal actions, and the value head on the episode's outcome for the acting seat (``reward = "win"``: +1 win,
-1 loss), so that a PPO run started from it (``ppo_selfplay --config ... init_policy``) has a critic too.

The architecture comes from the PPO config (``--config``: ``hidden_size``, ``num_layers``, ``card_features``;
``--hidden-size`` and ``--num-layers`` override the first two);
the run writes ``policy.pt`` (the format of ``ppo_selfplay``'s policy files, so ``PPOAgent.load`` and the agent
spec ``ppo:PATH`` read it) and ``distill.csv`` (per round: states, accuracy on a held-out tenth, seconds).
"""

from __future__ import annotations

import os
import sys

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import argparse  # noqa: E402
import csv  # noqa: E402
import dataclasses  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Sequence  # noqa: E402

import numpy as np  # noqa: E402

from rummy_env.extras import needs_extra  # noqa: E402
from rummy_env.inputs import seed_type  # noqa: E402

COMMAND = "python -m rummy_env.training.distill"  # its name in error messages

with needs_extra("train", "rummy_env.training.distill", COMMAND if __name__ == "__main__" else None):
    import torch

from rummy_env import RummyEngine  # noqa: E402
from rummy_env.agents.base import act_on  # noqa: E402
from rummy_env.agents.ppo_agent import (POLICY_FORMAT, ActorCritic, LegalActions, PPOAgent,  # noqa: E402
                                        rules_as_dict)
from rummy_env.agents.registry import make_agent  # noqa: E402
from rummy_env.training.ppo_config import PPOConfig, load_config  # noqa: E402
from rummy_env.training.ppo_selfplay import atomic_save, make_env_rules  # noqa: E402
from rummy_env.training.runs import check_out_dir  # noqa: E402


@dataclasses.dataclass
class Dataset:
    observations: list[np.ndarray] = dataclasses.field(default_factory=list)
    masks: list[np.ndarray] = dataclasses.field(default_factory=list)
    actions: list[np.ndarray] = dataclasses.field(default_factory=list)
    outcomes: list[np.ndarray] = dataclasses.field(default_factory=list)

    def __len__(self) -> int:
        return sum(len(a) for a in self.actions)

    def arrays(self) -> tuple[np.ndarray, ...]:
        return tuple(np.concatenate(part) for part in (self.observations, self.masks, self.actions, self.outcomes))


def collect(config: PPOConfig, teacher, student, states: int, student_share: float, rows: int,
            rng: np.random.Generator) -> Dataset:
    """``states`` decisions labelled by ``teacher``, in games played by the student (a share of the games)
    or the teacher; the outcome of each decision's episode for its seat is filled in when the episode ends."""
    rules = make_env_rules(config)
    engine = RummyEngine(rules, rows, parallel=False)
    engine.reset(seed=int(rng.integers(2**63)))
    students = rng.random(rows) < student_share if student is not None else np.zeros(rows, dtype=bool)
    pending: list[list[tuple[np.ndarray, np.ndarray, int, int]]] = [[] for _ in range(rows)]
    data = Dataset()
    while len(data) < states:
        mask, observation = engine.legal_action_mask().copy(), engine.observe().copy()
        seats = engine.current_player.copy()
        live = np.flatnonzero(~engine.done)
        labels = np.asarray(act_on(teacher, observation[live], mask[live], rng, engine.state[live],
                                   engine.undo_copies[live]), dtype=np.int64)
        actions = np.zeros(rows, dtype=np.int64)
        actions[live] = labels
        mine = live[students[live]]
        if mine.size:
            actions[mine] = student.act(observation[mine], mask[mine], rng)
        for row, label in zip(live, labels):
            pending[row].append((observation[row], mask[row], int(label), int(seats[row])))
        engine.step(actions, rows=~engine.done)
        ended = np.flatnonzero(engine.done)
        if ended.size == 0:
            continue
        winners = engine.episode_winners(engine.state[ended])
        for row, won in zip(ended, winners):
            if pending[row]:
                data.observations.append(np.stack([item[0] for item in pending[row]]))
                data.masks.append(np.stack([item[1] for item in pending[row]]))
                data.actions.append(np.array([item[2] for item in pending[row]], dtype=np.int64))
                data.outcomes.append(np.array([2.0 * won[item[3]] - 1.0 for item in pending[row]], dtype=np.float32))
            pending[row] = []
        engine.reset(rows=engine.done.copy())
        students[ended] = rng.random(ended.size) < student_share if student is not None else False
    return data


def train(network: ActorCritic, data: Dataset, epochs: int, learning_rate: float, batch: int,
          rng: np.random.Generator) -> float:
    """Cross-entropy on the teacher's actions plus the value loss; returns the held-out accuracy."""
    observations, masks, actions, outcomes = data.arrays()
    order = rng.permutation(len(actions))
    held_out, train_rows = order[: len(order) // 10], order[len(order) // 10:]
    optimizer = torch.optim.Adam(network.parameters(), lr=learning_rate)
    network.train()
    for _ in range(epochs):
        rng.shuffle(train_rows)
        for start in range(0, len(train_rows) - batch + 1, batch):
            index = train_rows[start:start + batch]
            legal = LegalActions.from_mask(masks[index])
            log_probs, values = network(torch.from_numpy(observations[index]), legal)
            target = legal.slot_of(torch.from_numpy(actions[index]))
            loss = -log_probs.gather(1, target[:, None]).mean() + 0.5 * (values - torch.from_numpy(outcomes[index])).pow(2).mean()
            optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(network.parameters(), 1.0)
            optimizer.step()
    network.eval()
    with torch.no_grad():
        correct = 0
        for start in range(0, len(held_out), 4096):
            index = held_out[start:start + 4096]
            legal = LegalActions.from_mask(masks[index])
            log_probs, _ = network(torch.from_numpy(observations[index]), legal)
            correct += int((legal.greedy(log_probs).numpy() == actions[index]).sum())
    return correct / max(len(held_out), 1)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--config", default="basic_2p", help="PPO config (rules and network architecture)")
    parser.add_argument("--hidden-size", type=int, help="the network's width (default: the config's)")
    parser.add_argument("--num-layers", type=int, help="the network's hidden layers (default: the config's)")
    parser.add_argument("--teacher", default="heuristic", help="agent spec whose decisions are cloned")
    parser.add_argument("--init", help="a policy file to start from (else a fresh network)")
    parser.add_argument("--states", type=int, default=400_000, help="decisions collected per round")
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--student-share", type=float, default=0.5, help="games played by the network from round 1")
    parser.add_argument("--epochs", type=int, default=4)
    parser.add_argument("--learning-rate", type=float, default=1e-3)
    parser.add_argument("--batch", type=int, default=512)
    parser.add_argument("--rows", type=int, default=256, help="games played at once")
    parser.add_argument("--seed", type=seed_type(2**63 - 1), default=0)
    parser.add_argument("--torch-threads", type=int, default=1)
    parser.add_argument("--out", required=True)
    args = parser.parse_args(argv)
    if args.states < 1 or args.rounds < 1 or args.epochs < 1 or not 0 <= args.student_share <= 1:
        parser.error("--states, --rounds and --epochs must be at least 1 and --student-share in [0, 1]")
    try:
        check_out_dir(args.out, None)
        config = load_config(args.config, seed=args.seed, hidden_size=args.hidden_size, num_layers=args.num_layers)
    except (ValueError, FileExistsError, FileNotFoundError) as error:
        parser.error(str(error))
    torch.set_num_threads(args.torch_threads)
    torch.manual_seed(args.seed)
    rng = np.random.default_rng(args.seed)
    rules = make_env_rules(config)
    teacher = make_agent(args.teacher, rules)
    network = ActorCritic(rules, config.hidden_size, config.num_layers, config.card_features)
    if args.init:
        try:
            network.load_state_dict(PPOAgent.load(args.init, rules).network.state_dict())
        except RuntimeError as error:
            parser.error(f"--init {args.init} is not a network of this architecture (hidden_size "
                         f"{config.hidden_size}, num_layers {config.num_layers}, card_features "
                         f"{config.card_features}): {str(error).splitlines()[0]}")
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    data, log = Dataset(), []
    started = time.perf_counter()
    for round_ in range(args.rounds):
        student = PPOAgent(network, rules, greedy=False) if round_ > 0 or args.init else None
        fresh = collect(config, teacher, student, args.states, args.student_share, args.rows, rng)
        for name in ("observations", "masks", "actions", "outcomes"):
            getattr(data, name).extend(getattr(fresh, name))
        accuracy = train(network, data, args.epochs, args.learning_rate, args.batch, rng)
        log.append({"round": round_, "states": len(data), "accuracy": accuracy,
                    "seconds": time.perf_counter() - started})
        print(f"round {round_}: {len(data):,} states, held-out accuracy {accuracy:.3f}, "
              f"{log[-1]['seconds']:.0f} s", flush=True)
        content = {"format": POLICY_FORMAT, "model": network.state_dict(), "config": dataclasses.asdict(config),
                   "rules": rules_as_dict(rules), "global_step": 0, "update": 0,
                   "distill": {"teacher": args.teacher, "round": round_, "states": len(data)}}
        atomic_save(content, str(out / "policy.pt"))
    with open(out / "distill.csv", "w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(log[0]))
        writer.writeheader()
        writer.writerows(log)


if __name__ == "__main__":
    from rummy_env.cli import guarded

    sys.exit(guarded(COMMAND, main))
