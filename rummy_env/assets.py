"""The files shipped with the package: rules configs, PPO configs and the trained PPO checkpoints.

They are package data of the wheel (``rummy_env/configs/``, ``rummy_env/checkpoints/``) and the
folders ``configs/`` and ``checkpoints/`` of a source checkout; these functions find them in either,
so code and command lines need no repository path:

>>> from rummy_env import assets
>>> assets.checkpoint_names()
['basic_2p', 'basic_4p', 'rami51_2p']
>>> assets.checkpoint("basic_2p").name
'basic_2p.pt'
>>> assets.rules_config("basic_game_to_150").name         # make_rules(path) / RummyRules.from_toml(path)
'basic_game_to_150.toml'
>>> assets.ppo_config("rami51_2p").name                   # ppo_selfplay --config
'rami51_2p.toml'

``find(kind, value)`` is what the agent spec ``ppo:NAME`` and ``ppo_selfplay --config NAME`` use: an
existing file path is taken as it is, otherwise ``value`` must name a shipped file (with or without
its extension), else a ``FileNotFoundError`` lists the shipped ones.
"""

from __future__ import annotations

from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent
# a wheel holds the files inside the package; a source checkout (editable install) at the repository root
ROOT = _PACKAGE if (_PACKAGE / "checkpoints").is_dir() else _PACKAGE.parent

# kind -> (folder under ROOT, file extension)
KINDS = {"checkpoint": ("checkpoints", ".pt"), "rules": ("configs/rules", ".toml"), "ppo": ("configs/ppo", ".toml")}


def names(kind: str) -> list[str]:
    """The shipped files of ``kind`` (``"checkpoint"``, ``"rules"`` or ``"ppo"``), by name without extension."""
    folder, extension = _kind(kind)
    return sorted(path.stem for path in (ROOT / folder).glob(f"*{extension}"))


def folder(kind: str) -> Path:
    """Where the shipped files of ``kind`` lie (in the wheel, or the checkout's folder)."""
    return ROOT / _kind(kind)[0]


def path(kind: str, name: str) -> Path:
    """The shipped file ``name`` (extension optional) of ``kind``."""
    folder, extension = _kind(kind)
    stem = name[: -len(extension)] if name.endswith(extension) else name
    if stem not in names(kind):
        raise FileNotFoundError(f"no shipped {kind} file {name!r}; shipped: {', '.join(names(kind)) or 'none'} "
                                f"(in {ROOT / folder})")
    return ROOT / folder / f"{stem}{extension}"


def find(kind: str, value: str | Path) -> Path:
    """``value`` if it is an existing file, else the shipped file of ``kind`` it names."""
    if Path(value).is_file():
        return Path(value)
    if Path(value).name == str(value):
        return path(kind, str(value))
    raise FileNotFoundError(f"no file at {value}; name a shipped {kind} file instead: {', '.join(names(kind))}")


def checkpoint(name: str) -> Path:
    """A shipped PPO checkpoint: ``PPOAgent.load(assets.checkpoint("basic_2p"))`` or the spec ``ppo:basic_2p``."""
    return path("checkpoint", name)


def checkpoint_names() -> list[str]:
    return names("checkpoint")


def rules_config(name: str) -> Path:
    """A shipped rules file (``configs/rules/NAME.toml``)."""
    return path("rules", name)


def ppo_config(name: str) -> Path:
    """A shipped PPO config (``configs/ppo/NAME.toml``)."""
    return path("ppo", name)


def _kind(kind: str) -> tuple[str, str]:
    if kind not in KINDS:
        raise ValueError(f"unknown kind of shipped file {kind!r}; kinds: {', '.join(KINDS)}")
    return KINDS[kind]
