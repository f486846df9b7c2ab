"""``PPOAgent``: a policy trained by ``training/ppo_selfplay.py``, behind the batched Policy protocol.

    agent = PPOAgent.load("checkpoints/basic_2p.pt", rules=rules)          # greedy (argmax) by default
    actions = agent.act(observation, action_mask, rng)                     # (B, O) int8, (B, A) -> (B,)

The network (``ActorCritic``) and the masked action distribution live here, so the trainer and the
agent share one definition: the observation's int8 counts enter as ``log(1 + x)``, a small MLP trunk
feeds a policy head (one logit per action) and a value head; the softmax runs over each row's legal
actions only (``LegalActions``), padding entries getting ``ILLEGAL_LOGIT`` (finite, as in sb3-contrib,
so that nothing becomes NaN).

Files: ``training/ppo_selfplay.py`` writes full training checkpoints (``checkpoint_*.pt``) and, at
the end of a run, a small policy file (``policy.pt``: weights, config, rules). ``load_policy_file``
reads either and refuses, with a ``ValueError`` saying what is wrong, a file that is not a readable
checkpoint, one that lacks a key, or one whose rules differ from the caller's.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numba as nb
import numpy as np
import torch
from torch import nn

from rummy_env.rules import _ENV_KNOBS as ENV_KNOBS  # episode, reward, illegal-action knobs
from rummy_env.rules import RummyRules

ILLEGAL_LOGIT = -1e8
POLICY_FORMAT = "rummy-ppo-policy/1"
CHECKPOINT_FORMAT = "rummy-ppo-checkpoint/1"
POLICY_KEYS = ("format", "model", "config", "rules", "global_step", "update")


class ActorCritic(nn.Module):
    """Shared MLP trunk, a policy head over all actions and a scalar value head."""

    def __init__(self, observation_size: int, num_actions: int, hidden_size: int, num_layers: int):
        super().__init__()
        layers: list[nn.Module] = []
        width = observation_size
        for _ in range(num_layers):
            layers += [_orthogonal(nn.Linear(width, hidden_size), np.sqrt(2)), nn.ReLU()]
            width = hidden_size
        self.trunk = nn.Sequential(*layers)
        self.policy_head = _orthogonal(nn.Linear(width, num_actions), 0.01)
        self.value_head = _orthogonal(nn.Linear(width, 1), 1.0)

    def forward(self, observation: torch.Tensor, legal: LegalActions) -> tuple[torch.Tensor, torch.Tensor]:
        """Log-probabilities over each row's legal actions ``(B, K)`` and values ``(B,)``."""
        features = self.trunk(torch.log1p(observation.float()))
        logits = self.policy_head(features).gather(1, legal.index).masked_fill(~legal.valid, ILLEGAL_LOGIT)
        return torch.log_softmax(logits, dim=-1), self.value_head(features).squeeze(-1)

    def value(self, observation: torch.Tensor) -> torch.Tensor:
        """Values ``(B,)`` alone (bootstrapping needs no policy)."""
        return self.value_head(self.trunk(torch.log1p(observation.float()))).squeeze(-1)


def _orthogonal(layer: nn.Linear, gain: float) -> nn.Linear:
    nn.init.orthogonal_(layer.weight, gain)
    nn.init.zeros_(layer.bias)
    return layer


@nb.njit(cache=True, nogil=True)
def _legal_lists(mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    counts = np.zeros(mask.shape[0], dtype=np.int64)
    for i in range(mask.shape[0]):
        for a in range(mask.shape[1]):
            counts[i] += mask[i, a] != 0
    index = np.zeros((mask.shape[0], max(counts.max(), 1)), dtype=np.int64)
    for i in range(mask.shape[0]):
        k = 0
        for a in range(mask.shape[1]):
            if mask[i, a] != 0:
                index[i, k] = a
                k += 1
    return index, counts


@dataclasses.dataclass
class LegalActions:
    """Each row's legal action ids, left-aligned and padded: ``index`` ``(B, K)``, ``valid`` ``(B, K)``.

    The policy's softmax, sampling and entropy run over these ``K`` (a few dozen at most) instead of
    all ``A`` actions, where the masked entries would cost most of the time and add nothing."""

    index: torch.Tensor
    valid: torch.Tensor

    @classmethod
    def from_mask(cls, mask: np.ndarray) -> LegalActions:
        index, counts = _legal_lists(np.ascontiguousarray(mask))
        return cls(torch.from_numpy(index), torch.from_numpy(np.arange(index.shape[1]) < counts[:, None]))

    def slot_of(self, actions: torch.Tensor) -> torch.Tensor:
        """Position of each row's action in its legal list."""
        return (self.index == actions[:, None]).int().argmax(dim=1)

    def sample(self, log_probs: torch.Tensor, uniforms: torch.Tensor) -> torch.Tensor:
        """Actions drawn from ``log_probs`` ``(B, K)`` by the inverse CDF at ``uniforms`` ``(B,)``."""
        cumulative = log_probs.exp().cumsum(dim=1)
        slots = (cumulative < uniforms[:, None] * cumulative[:, -1:]).sum(dim=1)
        slots = torch.minimum(slots, self.valid.sum(dim=1) - 1)  # rounding never picks a padded entry
        return self.index.gather(1, slots[:, None]).squeeze(1)

    def greedy(self, log_probs: torch.Tensor) -> torch.Tensor:
        return self.index.gather(1, log_probs.argmax(dim=1, keepdim=True)).squeeze(1)


def entropy(log_probs: torch.Tensor) -> torch.Tensor:
    """Entropy per row (padded entries have probability 0 and add nothing)."""
    return -(log_probs.exp() * log_probs).sum(dim=-1)


def rules_as_dict(rules: RummyRules) -> dict[str, Any]:
    return dataclasses.asdict(rules)


def check_rules(saved: dict[str, Any], rules: RummyRules, path: str, ignore: tuple[str, ...] = ()) -> None:
    """Refuse a file trained under other rules, naming the knobs that differ (except ``ignore``)."""
    expected = rules_as_dict(rules)
    differing = sorted(k for k in expected.keys() | saved.keys() if k not in ignore and saved.get(k) != expected.get(k))
    if differing:
        detail = ", ".join(f"{k}: file {saved.get(k)!r} vs wanted {expected.get(k)!r}" for k in differing)
        raise ValueError(f"{path} was trained under other rules ({detail})")


def read_checkpoint(path: str, required: tuple[str, ...]) -> dict[str, Any]:
    """Load a torch file safely (``weights_only``) and check it is a dict with the ``required`` keys."""
    try:
        content = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as error:  # torch raises many types for a damaged file: one message for all
        raise ValueError(f"{path} is not a readable checkpoint ({type(error).__name__}: {error})") from error
    if not isinstance(content, dict) or content.get("format") not in (POLICY_FORMAT, CHECKPOINT_FORMAT):
        raise ValueError(f"{path} is not a rummy PPO checkpoint (no known 'format' entry)")
    missing = [key for key in required if key not in content]
    if missing:
        raise ValueError(f"{path} lacks the key(s) {missing}; a checkpoint needs {list(required)}")
    return content


def build_network(content: dict[str, Any], rules: RummyRules, path: str) -> ActorCritic:
    """The ``ActorCritic`` described by a file's config, with its weights; a shape mismatch is refused."""
    from rummy_env.actions import ActionLayout
    from rummy_env.engine.observation import ObservationLayout

    config = content["config"]
    network = ActorCritic(ObservationLayout(rules).size, ActionLayout.for_rules(rules).num_actions,
                          config["hidden_size"], config["num_layers"])
    expected = network.state_dict()
    saved = content["model"]
    problems = [f"{name}: file {tuple(saved[name].shape) if name in saved else 'missing'} vs network "
                f"{tuple(tensor.shape)}" for name, tensor in expected.items()
                if name not in saved or saved[name].shape != tensor.shape]
    problems += [f"{name}: not in the network" for name in saved.keys() - expected.keys()]
    if problems:
        raise ValueError(f"{path} does not fit the network of its config ({'; '.join(problems)})")
    network.load_state_dict(saved)
    return network


class PPOAgent:
    """A trained ``ActorCritic`` acting on batches: greedy (argmax) or sampling from its policy."""

    def __init__(self, network: ActorCritic, rules: RummyRules, greedy: bool = True):
        self.network = network.eval()
        self.rules = rules
        self.greedy = greedy

    @classmethod
    def load(cls, path: str, rules: RummyRules | None = None, greedy: bool = True) -> PPOAgent:
        """Read a policy or training checkpoint; with ``rules``, refuse a file trained under other
        rules of play (the env knobs, how episodes are cut and rewarded, may differ: same game)."""
        content = read_checkpoint(path, POLICY_KEYS)
        if rules is not None:
            check_rules(content["rules"], rules, path, ignore=ENV_KNOBS)
        saved_rules = RummyRules(**content["rules"])
        return cls(build_network(content, saved_rules, path), rules or saved_rules, greedy)

    @torch.no_grad()
    def act(self, observation: np.ndarray, action_mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """One legal action per row; sampling draws its uniforms from ``rng`` (reproducible per seed)."""
        legal = LegalActions.from_mask(np.atleast_2d(action_mask))
        log_probs, _ = self.network(torch.from_numpy(np.atleast_2d(observation)), legal)
        if self.greedy:
            return legal.greedy(log_probs).numpy()
        return legal.sample(log_probs, torch.from_numpy(rng.random(log_probs.shape[0]))).numpy()
