"""Run by .ci/test_wheel in a fresh venv holding only the built wheel (and by .ci/test_agilerl in AgileRL's venv),
from outside the repository.

    python wheel_check.py base    # the wheel without extras: the envs, the assets, a clear message for ppo:
    python wheel_check.py train   # with the train extra: the shipped checkpoints load and play
    python wheel_check.py libraries GUIDE   # with the interop and openspiel extras: the TorchRL env, the OpenSpiel
                                            # games and the libraries guide's blocks (``guide``)
    python wheel_check.py guide GUIDE [MODULE ...]  # the libraries guide's blocks whose libraries this venv has
                                                    # (those of each MODULE among them)
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
    check(assets.checkpoint_names() == ["basic_2p", "basic_4p", "gin_2p", "rami51_2p", "rami51_4p"],
          f"shipped checkpoints {assets.checkpoint_names()}")
    check(assets.checkpoint("basic_2p").stat().st_size > 100_000, "checkpoints/basic_2p.pt is the real file")
    check(set(assets.names("rules")) >= {"basic", "basic_game_to_150", "rami51", "lebanese14"}, "rules configs")
    check(set(assets.names("ppo")) == {"basic_2p", "basic_2p_finetune", "basic_4p", "gin_2p", "gin_2p_finetune",
                                          "rami51_2p", "rami51_2p_finetune", "rami51_4p", "rami51_4p_finetune"},
          "PPO configs")
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
    for name, preset, players in (("basic_2p", "basic", 2), ("basic_4p", "basic", 4), ("rami51_2p", "rami51", 2),
                                  ("rami51_4p", "rami51", 4), ("gin_2p", "gin_openspiel", 2)):
        agent = make_agent(f"ppo:{name}", make_rules(preset, players))
        check(type(agent).__name__ == "PPOAgent", f"ppo:{name} loads")
    from rummy_env.training.ppo_selfplay import load_config

    check(load_config("basic_2p").num_envs == 1024, "ppo_selfplay finds its default config without the repository")
    from rummy_env.training import bench

    check(bench.suite_hash("v1") == bench.FROZEN["v1"], "suite v1's frozen networks ship in the wheel")


def libraries(path: str) -> None:
    """The native TorchRL env, the OpenSpiel games and the OpenSpiel ISMCTS agent, then the libraries guide
    (``guide``), all run here."""
    import pyspiel
    from torchrl.envs import ActionMask, TransformedEnv
    from torchrl.envs.utils import check_env_specs

    import rummy_env.openspiel  # noqa: F401
    from rummy_env.envs.torchrl_env import RummyTorchRLEnv

    check_env_specs(TransformedEnv(RummyTorchRLEnv(8, "rami51", num_players=3, seed=0), ActionMask()))
    check(True, "RummyTorchRLEnv passes TorchRL's check_env_specs")
    for name in ("rummy_basic", "rummy_rami51", "rummy_lebanese14", "rummy_gin"):
        pyspiel.random_sim_test(pyspiel.load_game(name, {"max_turns_per_round": 40}), num_sims=1, serialize=True,
                                verbose=False)
    check(True, "the OpenSpiel games pass pyspiel.random_sim_test")
    check(type(make_agent("openspiel_ismcts:simulations=10", make_rules("basic"))).__name__ == "OpenSpielISMCTSAgent",
          "agent openspiel_ismcts")
    guide(path)


def guide(path: str, *required: str) -> None:
    """Every python block of ``docs/guides/libraries.md`` whose library is installed here (a block that starts
    ``# needs: MODULE`` is skipped where MODULE is not), run here: from the wheel, outside the repository. Each
    module of ``required`` must have had a block of its own run."""
    import re
    import subprocess

    text = Path(path).read_text(encoding="utf-8")
    ran = []
    for number, code in enumerate(re.findall(r"^```python\n(.*?)^```", text, flags=re.S | re.M)):
        needs = re.match(r"# needs: ([\w.]+)", code)
        if needs and importlib.util.find_spec(needs.group(1).split(".")[0]) is None:
            print(f"skipped: libraries guide block {number} (needs {needs.group(1)})")
            continue
        run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600)
        check(run.returncode == 0, f"libraries guide block {number} runs from the wheel" +
              ("" if run.returncode == 0 else f":\n{run.stderr[-2000:]}"))
        ran.append(needs.group(1) if needs else None)
    for module in required:
        check(module in ran, f"the libraries guide's {module} block ran")


if __name__ == "__main__":
    {"base": base, "train": train, "libraries": libraries, "guide": guide}[sys.argv[1]](*sys.argv[2:])
