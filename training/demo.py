"""``make demo``: a short PPO self-play run on basic 2-player rummy, then the arena against the baselines.

1. Trains the default config (``configs/ppo/basic_2p.toml``) for ``--steps`` env steps (a few
   minutes on a laptop CPU) into ``--out`` (checkpoints, ``policy.pt``, TensorBoard logs), or, when
   that folder holds an earlier run, into the first free ``--out-2``, ``--out-3``, … (it says which).
2. Plays a league of ``--games`` seeded games per pairing between the agent just trained, the
   shipped checkpoint ``checkpoints/basic_2p.pt`` (distilled from the heuristic and a search, when present), the
   HeuristicAgent and the RandomAgent, and prints the table: win rates with 95% Wilson intervals,
   score differences and openskill ratings (``training/evaluate.py``).

    python -m rummy_env.training.demo [--steps 1500000] [--games 400] [--out runs/demo] [--seed 0]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from rummy_env import assets
from rummy_env.inputs import seed_type
from rummy_env.training.evaluate import run_league
from rummy_env.training.ppo_selfplay import fresh_out_dir, load_config, make_env_rules, train

DEFAULT_CONFIG = "basic_2p"          # configs/ppo/basic_2p.toml, found by rummy_env.assets
SHIPPED_CHECKPOINT = "basic_2p"      # checkpoints/basic_2p.pt
EXPECTED = """What to expect: a few minutes of PPO from scratch (1.5M steps) learn to beat random play, but win only
about one hand in ten against the heuristic (9.8% in the README's run of this demo). Ten times longer (rummy train
--config basic_2p, 15M steps, about 40 minutes at the demo's speed) reached 28.8%; the shipped ppo:basic_2p, cloned
from the heuristic and then from a search (recipes in checkpoints/README.md), is level with the heuristic."""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--steps", type=int, default=1_500_000, help="env steps of the demo training run")
    parser.add_argument("--games", type=int, default=400, help="arena games per pairing")
    parser.add_argument("--out", type=Path, default=Path("runs/demo"))
    parser.add_argument("--seed", type=seed_type(2**63 - 1), default=0)
    args = parser.parse_args()

    config = load_config(DEFAULT_CONFIG, total_steps=args.steps, seed=args.seed)
    out = Path(fresh_out_dir(str(args.out)))
    if out != args.out:
        print(f"{args.out} holds an earlier run (kept): this one goes to {out}")
    args.out = out
    print(f"1. PPO self-play, {DEFAULT_CONFIG}, {args.steps:,} env steps -> {args.out}")
    train(config, str(args.out), progress=sys.stderr.isatty())  # a progress bar on a terminal, lines in a file
    print()

    specs = [f"ppo:{args.out / 'policy.pt'}"]
    if SHIPPED_CHECKPOINT in assets.checkpoint_names():
        specs.append(f"ppo:{SHIPPED_CHECKPOINT}")
    specs += ["heuristic", "random"]
    print(f"2. Arena: {', '.join(specs)}; {args.games} games per pairing, seed {args.seed}")
    print("   (ppo:policy is the agent just trained, ppo:basic_2p the shipped one)\n")
    report = run_league(make_env_rules(config), specs, args.games, args.seed, args.out / "arena",
                        "basic rummy, 2 players", progress=True)
    print(report)
    print(f"(tables also in {args.out / 'arena'}; TensorBoard: tensorboard --logdir {args.out})\n")
    print(EXPECTED)


if __name__ == "__main__":
    from rummy_env.cli import guarded

    sys.exit(guarded("python -m rummy_env.training.demo", main))
