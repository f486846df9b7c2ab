"""``PPOAgent``: a policy trained by ``training/ppo_selfplay.py``, behind the batched Policy protocol.

    agent = PPOAgent.load("checkpoints/basic_2p.pt", rules=rules)          # greedy (argmax) by default
    actions = agent.act(observation, action_mask, rng)                     # (B, O) int8, (B, A) -> (B,)

The network (``ActorCritic``) and the masked action distribution live here, so the trainer and the
agent share one definition: the observation's int8 counts enter as ``log(1 + x)``; card convolutions
and a small MLP trunk feed a policy head (one logit per action) and a value head; the softmax runs
over each row's legal actions only (``LegalActions``), padding entries getting ``ILLEGAL_LOGIT``
(finite, as in sb3-contrib, so that nothing becomes NaN).

Files: ``training/ppo_selfplay.py`` writes full training checkpoints (``checkpoint_*.pt``) and, at
the end of a run, a small policy file (``policy.pt``: weights, config, rules). ``PPOAgent.load``
reads either (``read_checkpoint``, ``torch.load`` with ``weights_only``) and refuses, with a
``ValueError`` saying what is wrong, a file that is not a readable checkpoint, one that lacks a key,
one whose weights do not fit its config's network or hold a NaN or an infinity, or one trained under
other rules of play. ``act`` refuses observations of another width than the policy was trained on
(another ruleset or player count).
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numba as nb
import numpy as np
import torch
from torch import nn

from rummy_env import cards
from rummy_env.actions import FIRST_SPECIAL, ActionLayout
from rummy_env.agents.base import InputCheck
from rummy_env.observations import ObservationLayout
from rummy_env.rules import ENV_KNOBS  # episode, reward, illegal-action knobs
from rummy_env.rules import RummyRules

ILLEGAL_LOGIT = -1e8
POLICY_FORMAT = "rummy-ppo-policy/1"
CHECKPOINT_FORMAT = "rummy-ppo-checkpoint/1"
POLICY_KEYS = ("format", "model", "config", "rules", "global_step", "update")
READOUTS = ("discard", "layoff", "take", "meld")  # per-card read-outs of the card features


class ActorCritic(nn.Module):
    """Trunk, a policy head over all actions and a scalar value head, built for a rules config.

    With ``card_features = F > 0`` the card planes of the observation (hand, discard top and pile order, cards
    known in other hands, table by seat, card taken: every one-entry-per-card block but the per-slot table,
    natural cards only; the joker's entries go to the MLP with the other blocks) are read as a grid of
    (planes, 4 suits, 13 ranks) by two convolution layers, each the sum of a kernel along the ranks of a suit
    (run neighbours, up to two apart) and one across the suits of a rank (set partners): every card gets ``F``
    features from its possible meld partners, the same weights for all cards. These, with the non-card blocks,
    feed the MLP. Per-card read-outs of them are added to the policy head's logits of the actions about that
    card: discarding it, laying it off (onto any slot), taking it as the discard top, and (summed over its
    cards) laying a new meld of it. A joker in any of these (a meld's joker, rami51's joker lay-off ends and
    joker discard), gin's shorter melds' padding, and the actions about no card or about a card the action id
    does not name (rami51's COMMIT, UNDO, TAKE_BACK, TAKE and SWAP; gin's PASS and KNOCK) read a zero. (Game
    knowledge used: card ids are suit-major, melds are sets and runs, and which cards each action moves; no
    rule of play is coded.) With ``card_features = 0`` the MLP reads the whole observation.
    """

    def __init__(self, rules: RummyRules, hidden_size: int, num_layers: int, card_features: int):
        super().__init__()
        observation_layout, action_layout = ObservationLayout(rules), ActionLayout.for_rules(rules)
        self.card_features = card_features
        width = observation_layout.size
        if card_features:
            card_index, rest_index, planes_names = card_planes(observation_layout, rules.num_card_types)
            self.register_buffer("card_index", card_index)
            self.register_buffer("rest_index", rest_index)
            planes = card_index.shape[0]
            self.run_convs = nn.ModuleList([nn.Conv2d(planes, card_features, (1, 5), padding=(0, 2)),
                                            nn.Conv2d(card_features, card_features, (1, 5), padding=(0, 2))])
            self.set_convs = nn.ModuleList([nn.Conv2d(planes, card_features, (cards.NUM_SUITS, 1)),
                                            nn.Conv2d(card_features, card_features, (cards.NUM_SUITS, 1))])
            self.readout = nn.Conv2d(card_features, len(READOUTS), 1)
            nn.init.zeros_(self.readout.weight)  # the first policy stays uniform over the legal actions
            nn.init.zeros_(self.readout.bias)
            self.discard_top_plane = planes_names.index("discard_top")
            # the action blocks in ActionLayout's order, each sized from its offsets (so they add up to num_actions
            # by construction): stock and discard top, the specials (rami51's COMMIT, UNDO, TAKE_BACK; gin's PASS,
            # KNOCK), new melds, lay-offs, TAKE and SWAP (rami51), discards (and rami51's silent ones)
            self.specials = action_layout.meld_offset - FIRST_SPECIAL
            # meld_cards and layoff_cards are saved in the policy files since the first card-feature network;
            # discard_cards came later and is rebuilt on load (the files before it lack the key)
            self.register_buffer("meld_cards", read_out_column(action_layout.catalogue.cards))
            layoffs = action_layout.take_offset - action_layout.layoff_offset
            self.register_buffer("layoff_cards", read_out_column(np.arange(layoffs) % action_layout.layoff_codes))
            self.takes_and_swaps = action_layout.discard_offset - action_layout.take_offset
            discards = action_layout.num_actions - action_layout.discard_offset
            self.register_buffer("discard_cards", read_out_column(np.arange(discards) % rules.num_card_types),
                                 persistent=False)
            width = card_features * cards.NUM_NATURAL_TYPES + rest_index.numel()
        layers: list[nn.Module] = []
        for _ in range(num_layers):
            layers += [_orthogonal(nn.Linear(width, hidden_size), np.sqrt(2)), nn.ReLU()]
            width = hidden_size
        self.trunk = nn.Sequential(*layers)
        self.policy_head = _orthogonal(nn.Linear(width, action_layout.num_actions), 0.01)
        self.value_head = _orthogonal(nn.Linear(width, 1), 1.0)

    def _features(self, observation: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor | None]:
        """The trunk's output and, with card features, the card read-outs' logits of every action."""
        x = torch.log1p(observation.float())
        if not self.card_features:
            return self.trunk(x), None
        planes = x[:, self.card_index]
        grid = planes.view(x.shape[0], self.card_index.shape[0], cards.NUM_SUITS, cards.NUM_RANKS)
        for run_conv, set_conv in zip(self.run_convs, self.set_convs):
            grid = torch.relu(run_conv(grid) + set_conv(grid))  # the set kernel's (B, F, 1, 13) broadcasts
        hidden = self.trunk(torch.cat([grid.flatten(1), x[:, self.rest_index]], dim=1))
        per_card = self.readout(grid).flatten(2)  # (B, READOUTS, 52)
        zero = per_card.new_zeros(x.shape[0], 1)
        read = dict(zip(READOUTS, torch.cat([per_card, zero[:, None].expand(-1, len(READOUTS), -1)], dim=2).unbind(1)))
        top = (planes[:, self.discard_top_plane] * per_card[:, READOUTS.index("take")]).sum(dim=1, keepdim=True)
        card_logits = torch.cat([zero, top, zero.expand(-1, self.specials),  # stock, discard top, the specials
                                 read["meld"][:, self.meld_cards].sum(dim=2), read["layoff"][:, self.layoff_cards],
                                 zero.expand(-1, self.takes_and_swaps), read["discard"][:, self.discard_cards]], dim=1)
        return hidden, card_logits

    def forward(self, observation: torch.Tensor, legal: LegalActions) -> tuple[torch.Tensor, torch.Tensor]:
        """Log-probabilities over each row's legal actions ``(B, K)`` and values ``(B,)``."""
        hidden, card_logits = self._features(observation)
        logits = self.policy_head(hidden)
        if card_logits is not None:
            logits = logits + card_logits
        logits = logits.gather(1, legal.index).masked_fill(~legal.valid, ILLEGAL_LOGIT)
        return torch.log_softmax(logits, dim=-1), self.value_head(hidden).squeeze(-1)

    def value(self, observation: torch.Tensor) -> torch.Tensor:
        """Values ``(B,)`` alone (bootstrapping needs no policy)."""
        return self.value_head(self._features(observation)[0]).squeeze(-1)


def read_out_column(card_ids: np.ndarray) -> torch.Tensor:
    """The column of the per-card read-outs each card id reads: the card's own for a natural card, column 52
    (a zero) for a joker (id 52, or rami51's second joker lay-off end, 53) and for padding (-1)."""
    card_ids = np.asarray(card_ids, dtype=np.int64)
    natural = (card_ids >= 0) & (card_ids < cards.NUM_NATURAL_TYPES)
    return torch.from_numpy(np.where(natural, card_ids, cards.NUM_NATURAL_TYPES))


def card_planes(layout: ObservationLayout, num_card_types: int) -> tuple[torch.Tensor, torch.Tensor, list[str]]:
    """Observation positions of the natural cards of every card plane ``(planes, 52)`` (the per-slot
    table left out: too big, and ``table_by_seat`` sums it up), of everything else (jokers included)
    but that table, and the block name of each plane."""
    planes, names, taken = [], [], np.zeros(layout.size, dtype=bool)
    for name in layout.blocks:
        shape, start = layout.shapes[name], layout.offsets[name]
        if shape[-1] != num_card_types:
            continue
        positions = start + np.arange(int(np.prod(shape))).reshape(-1, num_card_types)
        taken[positions.ravel() if name == "slot_cards" else positions[:, :cards.NUM_NATURAL_TYPES].ravel()] = True
        if name != "slot_cards":
            planes.append(positions[:, :cards.NUM_NATURAL_TYPES])
            names += [name] * positions.shape[0]
    return torch.from_numpy(np.concatenate(planes)), torch.from_numpy(np.flatnonzero(~taken)), names


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
    widest = 1  # (an empty batch has no rows to take a maximum over)
    for count in counts:
        widest = max(widest, count)
    index = np.zeros((mask.shape[0], widest), dtype=np.int64)
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
    """Refuse a file trained under other rules, naming the knobs that differ (except ``ignore``). A knob the
    file does not name is newer than the file, which was trained under that knob's default."""
    expected = rules_as_dict(rules)
    defaults = {field.name: field.default for field in dataclasses.fields(RummyRules)}
    saved = {**{k: defaults[k] for k in expected.keys() - saved.keys() if k in defaults}, **saved}
    differing = sorted(k for k in expected.keys() | saved.keys() if k not in ignore and saved.get(k) != expected.get(k))
    if differing:
        detail = ", ".join(f"{k}: file {saved.get(k)!r} vs wanted {expected.get(k)!r}" for k in differing)
        raise ValueError(f"{path} was trained under other rules ({detail})")


def read_checkpoint(path: str, required: tuple[str, ...]) -> dict[str, Any]:
    """Load a torch file safely (``weights_only``) and check it is a dict with the ``required`` keys."""
    try:
        content = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as error:  # torch raises many types for a damaged file, with advice that does not apply here
        raise ValueError(f"{path} is not a readable checkpoint: torch.load failed with {type(error).__name__} (a "
                         "checkpoint is a .pt file written by rummy train: policy.pt or checkpoint_*.pt)") from error
    if not isinstance(content, dict) or content.get("format") not in (POLICY_FORMAT, CHECKPOINT_FORMAT):
        raise ValueError(f"{path} is not a rummy PPO checkpoint (no known 'format' entry)")
    missing = [key for key in required if key not in content]
    if missing:
        raise ValueError(f"{path} lacks the key(s) {missing}; a checkpoint needs {list(required)}")
    return content


def build_network(content: dict[str, Any], rules: RummyRules, path: str) -> ActorCritic:
    """The ``ActorCritic`` described by a file's config, with its weights; a shape mismatch is refused."""
    config = content["config"]
    network = ActorCritic(rules, config["hidden_size"], config["num_layers"], config["card_features"])
    expected = network.state_dict()
    saved = content["model"]
    problems = [f"{name}: file {tuple(saved[name].shape) if name in saved else 'missing'} vs network "
                f"{tuple(tensor.shape)}" for name, tensor in expected.items()
                if name not in saved or saved[name].shape != tensor.shape]
    problems += [f"{name}: not in the network" for name in saved.keys() - expected.keys()]
    if problems:
        raise ValueError(f"{path} does not fit the network of its config ({'; '.join(problems)})")
    check_finite(saved, path, "weights")
    network.load_state_dict(saved)
    return network


def check_finite(tensors: Any, path: str, what: str) -> None:
    """Refuse a file whose ``what`` (a nested dict/list of tensors: weights, optimizer state) holds a NaN
    or an infinity: the run that wrote it diverged, and such a network still picks actions (the first
    legal one), so the damage would stay invisible."""
    bad = [name for name, tensor in _tensors(tensors, "") if tensor.is_floating_point() and not torch.isfinite(tensor).all()]
    if bad:
        raise ValueError(f"{path}: non-finite values (NaN or inf) in the {what} ({', '.join(bad[:5])}"
                         f"{', …' if len(bad) > 5 else ''}); the run diverged before writing it: use an earlier checkpoint")


def _tensors(value: Any, name: str):
    if isinstance(value, torch.Tensor):
        yield name, value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from _tensors(item, f"{name}.{key}" if name else str(key))
    elif isinstance(value, (list, tuple)):
        for index, item in enumerate(value):
            yield from _tensors(item, f"{name}[{index}]")


class PPOAgent:
    """A trained ``ActorCritic`` acting on batches: greedy (argmax) or sampling from its policy."""

    def __init__(self, network: ActorCritic, rules: RummyRules, greedy: bool = True):
        self.network = network.eval()
        self.rules = rules
        self.check_inputs = InputCheck(rules)
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
        observations, masks = self.check_inputs(observation, action_mask)
        legal = LegalActions.from_mask(masks)
        log_probs, _ = self.network(torch.from_numpy(observations), legal)
        if self.greedy:
            return legal.greedy(log_probs).numpy()
        return legal.sample(log_probs, torch.from_numpy(rng.random(log_probs.shape[0]))).numpy()
