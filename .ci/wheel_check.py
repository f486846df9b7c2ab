"""Run by .ci/test_wheel in a fresh venv holding only the built wheel, from outside the repository.

    python wheel_check.py base    # the wheel without extras: the envs, the assets, a clear message for ppo:
    python wheel_check.py train   # with the train extra: the shipped checkpoints load and play
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import sys
from pathlib import Path

import rummy_env
from rummy_env import assets
from rummy_env.agents.registry import make_agent
from rummy_env.rules import make_rules


def check(condition: bool, what: str) -> None:
    if not condition:
        sys.exit(f"wheel check failed: {what}")
    print(f"ok: {what}")


def base() -> None:
    package = Path(rummy_env.__file__).parent
    check("site-packages" in str(package) and not (Path.cwd() / "rummy_env").exists(), f"rummy_env from the wheel ({package})")
    check(all(importlib.util.find_spec(name) is None for name in ("agents", "training", "configs", "checkpoints")),
          "no generic top-level import names")
    for module in ("rummy_env.engine", "rummy_env.envs.aec", "rummy_env.envs.vector", "rummy_env.envs.single_agent",
                   "rummy_env.agents.registry", "rummy_env.agents.heuristic_agent", "rummy_env.training"):
        check(importlib.util.find_spec(module) is not None, f"module {module}")
    check((package / "py.typed").is_file(), "py.typed")
    files = [str(f) for f in importlib.metadata.files("rummy_env")]
    check(any(f.endswith("licenses/LICENSE") for f in files), "LICENSE in the dist-info")
    check(importlib.metadata.metadata("rummy_env")["License-Expression"] == "MIT", "License-Expression: MIT")
    check(assets.checkpoint_names() == ["basic_2p", "basic_4p", "rami51_2p"], f"shipped checkpoints {assets.checkpoint_names()}")
    check(assets.checkpoint("basic_2p").stat().st_size > 100_000, "checkpoints/basic_2p.pt is the real file")
    check(set(assets.names("rules")) >= {"basic", "basic_game_to_150", "rami51", "lebanese14"}, "rules configs")
    check(set(assets.names("ppo")) == {"basic_2p", "basic_2p_finetune", "basic_4p", "rami51_2p"}, "PPO configs")
    rules = make_rules(assets.rules_config("basic_game_to_150"))
    env = rummy_env.env(rules)
    env.reset(seed=0)
    check(len(env.agents) == 4 and env.unwrapped.rules.episode == "game", "a shipped rules file plays as written")
    if importlib.util.find_spec("torch") is None:
        try:
            make_agent("ppo:basic_2p", make_rules("basic"))
        except ModuleNotFoundError as error:
            check('pip install "rummy_env[train]"' in str(error), f"without torch, ppo: says: {error}")
        else:
            check(False, "ppo: without torch should have said which extra to install")


def train() -> None:
    for name, preset, players in (("basic_2p", "basic", 2), ("basic_4p", "basic", 4), ("rami51_2p", "rami51", 2)):
        agent = make_agent(f"ppo:{name}", make_rules(preset, players))
        check(type(agent).__name__ == "PPOAgent", f"ppo:{name} loads")
    from rummy_env.training.ppo_selfplay import load_config

    check(load_config("basic_2p").num_envs == 1024, "ppo_selfplay finds its default config without the repository")


if __name__ == "__main__":
    {"base": base, "train": train}[sys.argv[1]]()
