"""Game records: one small JSON file per game that replays exactly to any move.

A record holds what is needed to play a game again, action by action, through the engine:

=======================  ====================================================================
key                      value
=======================  ====================================================================
``format``               ``"rummy-record"``; ``format_version``: 1 (``FORMAT_VERSION``)
``rummy_env_version``    the package version that wrote it (``rummy_env.__version__``)
``rules``                the rules as a dict (``RummyRules.to_dict()``)
``seed``                 the game's 64-bit seed (``RummyEngine.reset(row_seeds=[seed])``): it
                         shuffles the deal (unless ``deck`` is given) and every later shuffle
``deck``                 optional: the deck in dealing order, card names such as ``"7H"``
                         (``RummyEngine.reset(decks=...)``); ``dealer``: optional first dealer
``actions``              the action ids played, in order (``rummy_env.actions``)
``agents``               optional: a display name per seat (``"you"``, ``"ppo:basic_2p"``, …)
``meta``                 optional: free JSON data (the arena's pairing and game number, …)
=======================  ====================================================================

>>> from rummy_env.records import GameRecord
>>> record = GameRecord.new("basic", num_players=2, seed=7)
>>> engine = record.start()                       # a one-row engine at move 0
>>> record.play(engine, int(engine.legal_action_mask()[0].argmax()))   # checked, then appended
>>> record.replay(to=1).snapshot(0)["phase"]      # the position after move 1
'play'

``GameRecord.load(path)`` refuses, with a ``RecordError`` (a ``ValueError``) saying what differs, a
file of another format or a newer format version, a record written by another release series of
rummy_env (its games may replay differently: the series is ``major.minor``), rules this version
does not know, and, in ``replay(rules=...)``, a record played under other rules than those asked
for. A move that is illegal when replayed is reported with its number and the engine's reason.
The command line does the same: ``rummy replay FILE [--to MOVE] [--html OUT.html]``.
"""

from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path
from typing import Any, Iterator, Sequence

import numpy as np

from rummy_env import cards
from rummy_env.actions import ActionLayout
from rummy_env.inputs import as_action, is_integer
from rummy_env.engine import IllegalActionError, RummyEngine
from rummy_env.rules import RummyRules, make_rules, rules_differences

FORMAT = "rummy-record"
FORMAT_VERSION = 1
_KEYS = ("format", "format_version", "rummy_env_version", "rules", "seed", "deck", "dealer", "actions", "agents",
         "meta")


class RecordError(ValueError):
    """A record that cannot be read or replayed here; the message says what is wrong."""


def package_version() -> str:
    from rummy_env import __version__

    return __version__


def release_series(version: str) -> str:
    """``"0.1"`` of ``"0.1.3"``: records replay across patch releases of one series."""
    return ".".join(version.split(".")[:2])


@dataclasses.dataclass
class GameRecord:
    """One game as plain data; see the module docstring."""

    rules: dict[str, Any]
    seed: int
    actions: list[int] = dataclasses.field(default_factory=list)
    deck: list[str] | None = None
    dealer: int | None = None
    agents: list[str] | None = None
    meta: dict[str, Any] = dataclasses.field(default_factory=dict)
    rummy_env_version: str = dataclasses.field(default_factory=package_version)
    format_version: int = FORMAT_VERSION

    # ------------------------------------------------------------------ construction
    @classmethod
    def new(cls, rules: str | RummyRules = "basic", num_players: int | None = None, seed: int | None = None, *,
            deck: Sequence[int | str] | None = None, dealer: int | None = None,
            agents: Sequence[str] | None = None, **overrides: Any) -> GameRecord:
        """A record of a game not yet played: ``rules`` a preset name (with ``num_players`` and knob
        ``overrides``) or a ``RummyRules``; ``seed`` None draws a fresh one."""
        if isinstance(rules, RummyRules):
            rules_object = make_rules(rules, num_players or rules.num_players, **overrides)
        else:
            rules_object = make_rules(rules, num_players or 2, **overrides)
        if seed is None:
            seed = int(np.random.default_rng().integers(0, 2**63))
        names = None if deck is None else [cards.name(card) for card in _card_types(deck)]
        if not is_integer(seed):  # int() would turn 1.5 into 1 and "7" into 7
            raise RecordError(f"a record's seed is an integer 0..2**64-1, got {seed!r}")
        record = cls(rules_object.to_dict(), int(seed), deck=names, dealer=dealer,
                     agents=None if agents is None else [str(name) for name in agents])
        record._check_fields()
        return record

    def rules_object(self) -> RummyRules:
        """The record's rules, validated by this version of rummy_env."""
        try:
            return RummyRules.from_dict(self.rules)
        except (TypeError, ValueError) as error:
            raise RecordError(f"the record's rules are not valid in rummy_env {package_version()}: {error}") from None

    # ------------------------------------------------------------------ playing and replaying
    def start(self) -> RummyEngine:
        """A one-row engine at the record's first position (move 0)."""
        rules = self.rules_object()
        engine = RummyEngine(rules, batch_size=1, parallel=False)
        decks = None if self.deck is None else [_card_types(self.deck)]
        try:
            engine.reset(row_seeds=[self.seed], decks=decks, dealers=None if self.dealer is None else [self.dealer])
        except ValueError as error:
            raise RecordError(f"the record's deal cannot be set up (deck: an ordering of the {rules.deck_size} cards; "
                              f"dealer: a seat 0..{rules.num_players - 1}): {error}") from None
        return engine

    def play(self, engine: RummyEngine, action: int) -> None:
        """Step ``engine`` (a one-row engine at this record's last move, from ``start`` or ``replay``) by ``action``
        and append it; an illegal action raises ``IllegalActionError``, an engine under other rules or whose game
        is over a ``RecordError``, and both are left unchanged."""
        if engine.batch_size != 1:
            raise RecordError(f"a record plays on a one-row engine (start() or replay()), got {engine.batch_size} rows")
        differ = rules_differences(self.rules_object(), engine.rules, ("record", "engine"))
        if differ:
            raise RecordError("the engine plays other rules than the record: " + "; ".join(differ))
        if engine.done[0]:
            raise RecordError(f"the game is over after move {len(self.actions)}: a record takes no move after its end")
        engine.step(np.array([as_action(action)], dtype=np.int64))
        self.actions.append(int(action))

    def replay(self, to: int | None = None, rules: RummyRules | str | None = None) -> RummyEngine:
        """A one-row engine after the first ``to`` moves (default: all). With ``rules``, a record
        played under other rules is refused, naming the knobs that differ."""
        if rules is not None:
            self.check_rules(rules)
        engine = self.start()
        for move in range(self.last_move(to)):
            self.replay_move(engine, move)
        return engine

    def last_move(self, to: int | None) -> int:
        """``to`` checked against the record's moves (``None``: all of them)."""
        end = len(self.actions) if to is None else to
        if not 0 <= end <= len(self.actions):
            raise RecordError(f"move {to} is outside this record: it has moves 0..{len(self.actions)}")
        return end

    def positions(self) -> Iterator[RummyEngine]:
        """The same one-row engine at move 0, 1, …, ``len(actions)`` in turn (snapshot what you keep)."""
        engine = self.start()
        yield engine
        for move in range(len(self.actions)):
            self.replay_move(engine, move)
            yield engine

    def replay_move(self, engine: RummyEngine, move: int) -> None:
        """Step ``engine`` (at move ``move``) by the record's next action, checked."""
        action = self.actions[move]
        if engine.done[0]:
            raise RecordError(f"the game ended after move {move}, but the record has {len(self.actions)} moves")
        try:
            engine.step(np.array([action], dtype=np.int64))
        except (IllegalActionError, ValueError) as error:
            raise RecordError(f"move {move + 1} of the record (action {action}) cannot be replayed: {error}; the record "
                              f"does not match this game (written by rummy_env {self.rummy_env_version})") from None

    def check_rules(self, rules: RummyRules) -> None:
        """Raise ``RecordError`` naming every knob in which the record's rules differ from ``rules`` (a
        ``RummyRules``, a preset name or a rules file, as ``make_rules`` takes them)."""
        differ = rules_differences(self.rules_object(), make_rules(rules), ("record", "asked"))
        if differ:
            raise RecordError("the record was played under other rules: " + "; ".join(differ))

    # ------------------------------------------------------------------ files
    def to_dict(self) -> dict[str, Any]:
        values = {"format": FORMAT, **dataclasses.asdict(self)}
        return {key: values[key] for key in _KEYS if values[key] is not None and values[key] != {}}

    def to_json(self) -> str:
        """The record as JSON: one line per key, the actions on one line."""
        lines = [f"  {json.dumps(key)}: {json.dumps(value, ensure_ascii=False)}" for key, value in self.to_dict().items()]
        return "{\n" + ",\n".join(lines) + "\n}\n"

    def save(self, path: str | Path) -> Path:
        """Write the record to ``path`` (folders created); returns the path."""
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(self.to_json(), encoding="utf-8")
        return path

    @classmethod
    def from_dict(cls, values: dict[str, Any], check_version: bool = True) -> GameRecord:
        """A record from its dict, checked (see the module docstring); ``check_version=False``
        accepts another release series (its replay may then fail at the first move that differs)."""
        if not isinstance(values, dict) or values.get("format") != FORMAT:
            found = values.get("format") if isinstance(values, dict) else type(values).__name__
            raise RecordError(f"not a game record: expected format {FORMAT!r}, found {found!r}")
        unknown = sorted(set(values) - set(_KEYS))
        if unknown:
            raise RecordError(f"unknown record keys {unknown}; a record of format version {FORMAT_VERSION} has {list(_KEYS)}")
        missing = [key for key in ("format_version", "rummy_env_version", "rules", "seed", "actions") if key not in values]
        if missing:
            raise RecordError(f"the record lacks {missing}")
        version = values["format_version"]
        if version != FORMAT_VERSION:
            raise RecordError(f"the record has format version {version!r}; rummy_env {package_version()} reads format "
                              f"version {FORMAT_VERSION} (written by rummy_env {values['rummy_env_version']})")
        written, here = str(values["rummy_env_version"]), package_version()
        if not re.fullmatch(r"\d+\.\d+(\.\d+)?\S*", written):
            raise RecordError(f"the record's rummy_env_version {written!r} is not a version such as '0.1.0'")
        if check_version and release_series(written) != release_series(here):
            raise RecordError(f"the record was written by rummy_env {written} and this is rummy_env {here}: games can "
                              f"replay differently across release series ({release_series(written)} vs "
                              f"{release_series(here)}); replay it with rummy_env {release_series(written)}.x, or load it with "
                              f"check_version=False to try anyway")
        record = cls(**{key: value for key, value in values.items() if key != "format"})
        record._check_fields()
        actions = ActionLayout.for_rules(record.rules_object()).num_actions  # a RecordError if the rules are not valid
        for move, action in enumerate(record.actions):
            if action >= actions:
                raise RecordError(f"move {move + 1} of the record (action {action}) is outside these rules' action "
                                  f"space 0..{actions - 1}")
        return record

    @classmethod
    def load(cls, path: str | Path, check_version: bool = True) -> GameRecord:
        """Read and check a record file (see ``from_dict``)."""
        try:
            text = Path(path).read_text(encoding="utf-8")
        except OSError as error:
            raise RecordError(f"cannot read the record {path}: {error.strerror or error}") from None
        except UnicodeDecodeError as error:
            raise RecordError(f"{path} is not a game record: it is not UTF-8 text (byte {error.start} is "
                              f"0x{error.object[error.start]:02x})") from None
        try:
            values = json.loads(text)
        except json.JSONDecodeError as error:
            raise RecordError(f"{path} is not valid JSON: {error}") from None
        try:
            return cls.from_dict(values, check_version)
        except RecordError as error:
            raise RecordError(f"{path}: {error}") from None

    def _check_fields(self) -> None:
        if not isinstance(self.rules, dict):
            raise RecordError(f"the record's rules must be a dict of knobs, got {type(self.rules).__name__}")
        if not is_integer(self.seed) or not 0 <= self.seed < 2**64:
            raise RecordError(f"the record's seed must be an integer in 0..2**64-1, got {self.seed!r}")
        if not isinstance(self.actions, list) or not all(is_integer(action) and action >= 0 for action in self.actions):
            raise RecordError("the record's actions must be a list of action ids (integers >= 0)")
        if self.dealer is not None and not is_integer(self.dealer):
            raise RecordError(f"the record's dealer must be a seat number, got {self.dealer!r}")
        if self.deck is not None:
            try:
                self.deck = [cards.name(card) for card in _card_types(self.deck)]
            except (TypeError, ValueError) as error:
                raise RecordError(f"the record's deck is not a list of cards: {error}") from None
        if self.agents is not None and not (isinstance(self.agents, list) and all(isinstance(a, str) for a in self.agents)
                                            and len(self.agents) == self.rules.get("num_players")):
            raise RecordError(f"the record's agents must be a list of names, one per seat ({self.rules.get('num_players')}),"
                              f" got {self.agents!r}")
        if not isinstance(self.meta, dict):
            raise RecordError("the record's meta must be a dict")


def _card_types(deck: Sequence[int | str]) -> list[int]:
    """Card names or card-type numbers as numbers; a float or a bool is refused (``int()`` would turn 7.9 into 7)."""
    types = []
    for card in deck:
        if not isinstance(card, str) and not is_integer(card):
            raise ValueError(f"a card is a name such as '7H' or a card-type number, got {card!r}")
        types.append(cards.parse(card) if isinstance(card, str) else int(card))
    return types
