"""Optional dependencies: a missing one is reported with the extra that installs it.

``pip install rummy_env`` gives the envs and the baseline agents (numpy, numba, gymnasium, pettingzoo).
The learned agents and the trainers need an extra: ``train`` (torch, stable-baselines3, sb3-contrib,
tensorboard, tqdm, openskill, matplotlib) or ``rllib`` (Ray RLlib); OpenSpiel's gin bot (``openspiel_bot``) and the
differential test against OpenSpiel need ``openspiel`` (open_spiel 2.0.2); the native TorchRL env
(``rummy_env.envs.torchrl_env``) needs ``interop`` (TorchRL).

>>> with needs_extra("train", "the ppo: agent"):
...     import a_module_that_is_not_installed
Traceback (most recent call last):
...
ModuleNotFoundError: No module named 'a_module_that_is_not_installed'
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator

# extra -> the top-level modules it installs
EXTRAS = {
    "train": ("torch", "stable_baselines3", "sb3_contrib", "tensorboard", "tqdm", "openskill", "matplotlib"),
    "rllib": ("ray", "torch"),
    "openspiel": ("pyspiel", "open_spiel"),
    "interop": ("torchrl", "tensordict", "torch"),
}


@contextlib.contextmanager
def needs_extra(extra: str, purpose: str, command: str | None = None) -> Iterator[None]:
    """Run an import; if it fails for a module of ``extra``, say which extra to install (other failures pass).
    With ``command`` (a module run as a command line, whose imports come before ``cli.guarded`` can answer), say
    it as the command's one-line error on stderr and exit with status 2."""
    try:
        yield
    except ModuleNotFoundError as error:
        top = (error.name or "").split(".")[0]
        if top not in EXTRAS[extra]:
            raise
        message = f'{purpose} needs {top}, which the {extra!r} extra installs: pip install "rummy_env[{extra}]"'
        if command is not None:
            print(f"{command}: error: {message}", file=sys.stderr)
            raise SystemExit(2) from None
        raise ModuleNotFoundError(message, name=error.name) from error
