"""The wheel carries everything (issue 12, part 4): its contents, the ``rummy_env.assets`` API that finds the
shipped files, and the message a ``ppo:`` agent gives without the ``train`` extra. ``make test-wheel``
(``.ci/test_wheel``) installs the wheel into a fresh venv and uses it from outside the repository."""

from __future__ import annotations

import hashlib
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from rummy_env import assets
from rummy_env.agents.registry import make_agent
from rummy_env.rules import make_rules

REPO = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> zipfile.ZipFile:
    # built from a copy of the files git knows (tracked and not ignored): setuptools' build/ folder in a checkout
    # keeps modules from earlier builds, which would hide a package left out of pyproject.toml
    source, out = tmp_path_factory.mktemp("source"), tmp_path_factory.mktemp("dist")
    files = subprocess.run(["git", "ls-files", "-co", "--exclude-standard", "-z"], cwd=REPO, check=True,
                           capture_output=True).stdout.decode().split("\0")
    for name in filter(None, files):
        if (REPO / name).is_file():
            (source / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(REPO / name, source / name)
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--wheel-dir", str(out), str(source)],
                   check=True, capture_output=True)
    return zipfile.ZipFile(next(out.glob("rummy_env-*.whl")))


def test_the_wheel_holds_the_package_its_data_and_no_generic_top_level_name(wheel):
    names = set(wheel.namelist())
    tops = {name.split("/")[0] for name in names}
    assert tops == {"rummy_env", next(t for t in tops if t.endswith(".dist-info"))}
    for module in ("engine/core.py", "envs/aec.py", "envs/vector.py", "envs/sb3.py", "agents/registry.py",
                   "agents/ppo_agent.py", "training/evaluate.py", "training/ppo_selfplay.py", "training/train_rllib.py",
                   "assets.py", "py.typed"):
        assert f"rummy_env/{module}" in names, module
    sources = {f"rummy_env/{path.relative_to(REPO / folder)}" if folder == "rummy_env"
               else f"rummy_env/{folder}/{path.relative_to(REPO / folder)}": path
               for folder in ("rummy_env", "agents", "training") for path in (REPO / folder).rglob("*.py")}
    missing = sorted(set(sources) - names)
    assert not missing, f"modules left out of the wheel (list their packages in pyproject.toml): {missing}"
    shipped = {f"rummy_env/{path.relative_to(REPO)}": path for folder in ("configs", "checkpoints")
               for path in (REPO / folder).rglob("*") if path.is_file()}
    for name, path in shipped.items():
        assert hashlib.sha256(wheel.read(name)).digest() == hashlib.sha256(path.read_bytes()).digest(), name
    dist_info = next(t for t in {n.split("/")[0] for n in names} if t.endswith(".dist-info"))
    assert f"{dist_info}/licenses/LICENSE" in names
    metadata = wheel.read(f"{dist_info}/METADATA").decode()
    assert "License-Expression: MIT" in metadata and "Provides-Extra: train" in metadata


def test_assets_find_shipped_files_by_name():
    assert assets.checkpoint_names() == ["basic_2p", "basic_4p", "gin_2p", "rami51_2p", "rami51_4p"]
    assert assets.checkpoint("basic_2p") == assets.checkpoint("basic_2p.pt") == assets.find("checkpoint", "basic_2p")
    assert assets.checkpoint("basic_2p").read_bytes() == (REPO / "checkpoints/basic_2p.pt").read_bytes()
    rules = make_rules(assets.rules_config("basic_game_to_150"))
    assert (rules.num_players, rules.episode) == (4, "game")
    assert assets.find("ppo", str(REPO / "configs/ppo/rami51_2p.toml")) == REPO / "configs/ppo/rami51_2p.toml"
    with pytest.raises(FileNotFoundError,
                       match="no shipped checkpoint file 'basic_9p'; shipped: basic_2p, basic_4p, gin_2p, rami51_2p, "
                             "rami51_4p"):
        assets.checkpoint("basic_9p")
    with pytest.raises(FileNotFoundError, match="no file at runs/x.pt; name a shipped"):
        assets.find("checkpoint", "runs/x.pt")
    with pytest.raises(ValueError, match="unknown kind"):
        assets.names("notebook")


def test_a_ppo_spec_names_a_shipped_checkpoint_and_a_missing_one_lists_them():
    pytest.importorskip("torch")
    agent = make_agent("ppo:rami51_2p", make_rules("rami51"))
    assert agent.rules.ruleset == "rami51"
    shipped = r"shipped: ppo:basic_2p, ppo:basic_4p, ppo:gin_2p, ppo:rami51_2p, ppo:rami51_4p"
    with pytest.raises(FileNotFoundError, match=r"no checkpoint at basic_3p.*" + shipped):
        make_agent("ppo:basic_3p", make_rules("basic"))


def test_without_the_train_extra_a_ppo_agent_says_which_extra_to_install(monkeypatch):
    for name in [name for name in sys.modules if name == "torch" or name.startswith(("torch.", "rummy_env.agents.ppo"))]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "torch", None)           # import torch fails as if it were not installed
    with pytest.raises(ModuleNotFoundError, match=r'needs torch, which the \'train\' extra installs: '
                                                  r'pip install "rummy_env\[train\]"'):
        make_agent("ppo:basic_2p", make_rules("basic"))
    import rummy_env.agents

    with pytest.raises(ModuleNotFoundError, match=r'pip install "rummy_env\[train\]"'):
        rummy_env.agents.PPOAgent
