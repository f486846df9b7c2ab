"""``RLlibAgent``: a policy trained by ``training/train_rllib.py``, behind the batched ``Policy`` interface.

    agent = RLlibAgent.load("runs/rllib", rules)        # a run folder (its last checkpoint), a checkpoint
    actions = agent.act(observation, action_mask, rng)  # folder, or the RLModule folder inside one

It runs the ``MaskedPPOModule`` of the checkpoint on the env's own arrays (``forward_inference``; the
masked logits never pick an illegal action): greedy (argmax) by default, or sampling with the
uniforms drawn from ``rng``. A module whose observation or action sizes do not fit ``rules`` is
refused when loading. Needs the ``rllib`` extra (``pip install "rummy_env[rllib]"``).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from rummy_env.actions import ActionLayout
from rummy_env.agents.base import InputCheck
from rummy_env.extras import needs_extra
from rummy_env.observations import ObservationLayout
from rummy_env.rules import RummyRules

MODULE_PATH = ("learner_group", "learner", "rl_module", "shared")


def module_folder(path: str | Path) -> Path:
    """The RLModule folder of a run folder (its last ``checkpoint_*``), a checkpoint or the module itself."""
    path = Path(path)
    if (path / "module_state.pkl").exists() or (path / "module_state.pt").exists():
        return path
    checkpoints = sorted(path.glob("checkpoint_*"))
    checkpoint = checkpoints[-1] if checkpoints and not (path / "learner_group").is_dir() else path
    module = checkpoint.joinpath(*MODULE_PATH)
    if not module.is_dir():
        raise FileNotFoundError(f"{path} is not a train_rllib.py run folder, checkpoint or RLModule folder "
                                f"(no {'/'.join(MODULE_PATH)} in {checkpoint})")
    return module


class RLlibAgent:
    """A loaded ``MaskedPPOModule`` acting on the rows it is given."""

    def __init__(self, module, rules: RummyRules, greedy: bool = True):
        self.module = module
        self.rules = rules
        self.greedy = greedy
        self.check_inputs = InputCheck(rules)

    @classmethod
    def load(cls, path: str | Path, rules: RummyRules, greedy: bool = True) -> RLlibAgent:
        with needs_extra("rllib", "an rllib: agent"):
            from ray.rllib.core.rl_module.rl_module import RLModule
        folder = module_folder(path)
        module = RLModule.from_checkpoint(str(folder.resolve()))
        found = (int(module.observation_space["observations"].shape[0]), int(module.action_space.n))
        expected = (ObservationLayout(rules).size, ActionLayout.for_rules(rules).num_actions)
        if found != expected:
            raise ValueError(f"{path}: the policy has (observation, action) sizes {found}, but ruleset "
                             f"{rules.ruleset!r} with {rules.num_players} players needs {expected}")
        return cls(module.eval(), rules, greedy)

    def act(self, observation: np.ndarray, action_mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        import torch

        observations, masks = self.check_inputs(observation, action_mask)
        with torch.no_grad():
            logits = self.module.forward_inference({"obs": {"observations": observations.astype(np.float32),
                                                            "action_mask": masks.astype(np.float32)}})
        logits = logits["action_dist_inputs"].numpy().astype(np.float64)
        if self.greedy:
            return logits.argmax(axis=1).astype(np.int64)
        probabilities = np.exp(logits - logits.max(axis=1, keepdims=True))
        cumulative = probabilities.cumsum(axis=1)
        uniforms = rng.random(len(logits))[:, None] * cumulative[:, -1:]
        return np.minimum((cumulative <= uniforms).sum(axis=1), logits.shape[1] - 1).astype(np.int64)
