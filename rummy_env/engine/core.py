"""``RummyEngine``: B games stepped together by compiled per-row kernels.

>>> from rummy_env import RummyRules
>>> engine = RummyEngine(RummyRules.preset("basic", num_players=2), batch_size=4)
>>> engine.reset(seed=0)
>>> mask = engine.legal_action_mask()          # (4, A) int8, 1 = legal
>>> obs = engine.observe()                     # (4, O) int8, for each row's player to act
>>> result = engine.step(mask.argmax(axis=1))  # rewards (4, P), hand_ended (4,)

Each row is one game with its own phase and player to act. ``step`` takes one action per row, for that
row's current player. Rows whose episode is over (``engine.done``) are left as they are and get zero
rewards; reset them with ``reset(rows=...)``.

Illegal actions (``rules.illegal_action``): ``"raise"`` (default) checks every row first and raises
``IllegalActionError`` (a ``ValueError``) naming the row, the action and why it is illegal, before any row
changes; ``"penalty"`` ends the offending row's game, the offender receiving ``rules.illegal_action_penalty``
and the others sharing its negation. Nothing is replaced silently.

The rules family (``rummy_env.engine.basic``, ``rummy_env.engine.rami51``, ``rummy_env.engine.gin``) is
chosen once, here; after that
the engine only calls its drivers. Buffers returned by ``legal_action_mask``, ``observe`` and ``step`` are
reused by the next call of the same method; copy them to keep them.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Sequence

import numba
import numpy as np

from rummy_env import cards
from rummy_env.actions import ActionLayout
from rummy_env.engine import observation
from rummy_env.engine.config import kernel_config
from rummy_env.engine.drivers import check_actions_by_mask, done_rows, episode_winners_rows
from rummy_env.engine.families import family
from rummy_env.engine.history import history_rows
from rummy_env.engine.state import state_dtype
from rummy_env.engine.threads import checked_chunk_size, checked_parallel
from rummy_env.inputs import as_action, as_actions, count, integers, is_integer
from rummy_env.observations import ObservationLayout
from rummy_env.rules import RummyRules, make_rules



class IllegalActionError(ValueError):
    """An action that the rules do not allow in that position."""


class RowIndexError(ValueError, IndexError):
    """A row number outside ``0 .. batch_size - 1`` (both a ``ValueError`` and an ``IndexError``, like numpy's
    ``AxisError``)."""


@dataclasses.dataclass
class StepResult:
    """What one batched step produced: ``rewards[i, seat]`` and whether row ``i``'s hand ended."""

    rewards: np.ndarray
    hand_ended: np.ndarray


class RummyEngine:
    """The batched game for one rules config. See the module docstring."""

    def __init__(self, rules: RummyRules | str, batch_size: int = 1, parallel: bool | None = None,
                 chunk_size: int | None = None):
        batch_size = count(batch_size, "batch_size")
        self.rules = rules = make_rules(rules)  # a RummyRules as it is; a preset name or a rules file made into one
        self.batch_size = batch_size
        self.layout = ActionLayout.for_rules(rules)
        self.observation_layout = ObservationLayout(rules)
        self.cfgs, self.tables = kernel_config(rules, self.layout)
        self._parallel = checked_parallel(parallel)  # one thread unless asked (engine/threads.py)
        self.chunk_size = checked_chunk_size(chunk_size)  # rows per hand-out in the parallel kernels (threads.py)
        self.state = np.zeros(batch_size, dtype=state_dtype(rules))
        self.undo_copies = np.zeros(batch_size, dtype=self.state.dtype)  # where an UNDO returns (R24)
        self._family = family(rules.ruleset)
        self.drivers = self._family.drivers(rules)
        self._work_threads = 0
        self._scratch()  # the kernels' scratch (self._work): one share per thread that can run
        self._mask_is_current = False  # set by legal_action_mask, cleared by anything that moves a game
        self._mask = np.zeros((batch_size, self.layout.num_actions), dtype=np.int8)
        self._checked_mask = np.zeros_like(self._mask)
        self._obs = np.zeros((batch_size, self.observation_layout.size), dtype=np.int8)
        self._rewards = np.zeros((batch_size, rules.num_players), dtype=np.float32)
        self._hand_ended = np.zeros(batch_size, dtype=np.bool_)
        self._legal = np.zeros(batch_size, dtype=np.int8)
        self._done = np.zeros(batch_size, dtype=np.bool_)
        self._all_rows = np.ones(batch_size, dtype=np.bool_)
        self._no_decks = np.zeros((batch_size, rules.deck_size), dtype=np.int8)
        self._seed_rng = np.random.default_rng()
        self._has_reset = False  # step() before the first reset() (or load) is refused

    # ------------------------------------------------------------------ sizes
    @property
    def num_actions(self) -> int:
        return self.layout.num_actions

    @property
    def observation_size(self) -> int:
        return self.observation_layout.size

    # ------------------------------------------------------------------ views of the state
    @property
    def current_player(self) -> np.ndarray:
        """Seat to act in each row, ``(B,)`` int8."""
        return self.state["current"]

    @property
    def phase(self) -> np.ndarray:
        return self.state["phase"]

    @property
    def done(self) -> np.ndarray:
        """Rows whose episode is over: the hand ended ("hand" episodes) or the game ended."""
        done_rows(self.state, self.cfgs, self._done)
        return self._done

    # ------------------------------------------------------------------ lifecycle
    def reset(self, seed: int | None = None, rows: np.ndarray | None = None,
              decks: np.ndarray | Sequence[Sequence[int]] | None = None, dealers: Sequence[int] | None = None,
              row_seeds: Sequence[int] | None = None) -> None:
        """Start new games in ``rows`` (default: all).

        ``seed`` reseeds the engine's seed stream (each game draws its own 64-bit seed from it).
        ``decks`` (``(B, N)`` card types, rows in ``rows`` used) fixes the deal: cards leave the deck in that
        order, one at a time clockwise from the dealer's left, then the upcard (basic), and the rest becomes
        the stock in that order. ``dealers`` fixes the dealer per row (else ``rules.first_dealer``).
        ``row_seeds`` gives each row's 64-bit seed directly: a row seeded ``s`` plays exactly like a one-row
        engine seeded ``row_seeds=[s]`` under the same actions."""
        selected = self._row_mask(rows)
        if row_seeds is not None:
            seeds = integers(row_seeds, "row_seeds", self.batch_size, 0, 2**64 - 1).astype(np.uint64)
        dealer_array = np.full(self.batch_size, -1, dtype=np.int64)
        if dealers is not None:
            dealer_array[:] = integers(dealers, "dealers", self.batch_size, 0, self.rules.num_players - 1)
        if decks is None:
            deck_array, use_decks = self._no_decks, False
        else:
            deck_array, use_decks = self._check_decks(decks), True
        if seed is not None:  # everything is checked: the seed stream may move
            self._seed_rng = np.random.default_rng(seed)
        if row_seeds is None:  # one draw from the seed stream per restarted row
            seeds = np.zeros(self.batch_size, dtype=np.uint64)
            seeds[selected] = self._seed_rng.integers(0, 2**63, size=int(selected.sum()), dtype=np.uint64)
        self._mask_is_current = False
        self._has_reset = True
        self.drivers.new_game_rows(self.state, selected, seeds, deck_array, use_decks, dealer_array, self._work,
                                   self.tables, self.cfgs)

    def _check_decks(self, decks) -> np.ndarray:
        deck_array = np.asarray(decks)
        if deck_array.dtype.kind not in "iu":
            raise ValueError(f"decks must hold card types (integers), got an array of {deck_array.dtype}")
        if deck_array.ndim == 1:
            deck_array = np.broadcast_to(deck_array, (self.batch_size, deck_array.shape[0]))
        expected = np.sort(np.r_[np.tile(np.arange(cards.NUM_NATURAL_TYPES), self.rules.deck_copies),
                                 [cards.JOKER] * self.rules.num_jokers])
        if deck_array.shape != (self.batch_size, self.rules.deck_size) or not all(
                np.array_equal(np.sort(deck), expected) for deck in deck_array):
            raise ValueError(f"decks must be orderings of the {self.rules.deck_size} cards of the deck (card types), "
                             "one per row")
        return np.ascontiguousarray(deck_array, dtype=np.int8)

    def next_hand(self, rows: np.ndarray | None = None) -> None:
        """Deal the next hand of the game in rows whose hand is over (the deal passes on, B5, R4)."""
        selected = self._row_mask(rows)
        self._mask_is_current = False
        self.drivers.next_hand_rows(self.state, selected, self._work, self.tables, self.cfgs)

    # ------------------------------------------------------------------ the three hot calls
    @property
    def parallel(self) -> bool:
        """Whether the batch kernels run on numba's threads (``rummy_env/engine/threads.py``); may be switched."""
        return self._parallel

    @parallel.setter
    def parallel(self, value: bool) -> None:
        self._parallel = checked_parallel(value)
        self._scratch()

    def _scratch(self) -> None:
        """Make the family's scratch buffers (``_work``) for the threads the engine may run: one share when serial,
        one per numba thread when ``parallel`` (search counters start again when they grow)."""
        threads = numba.config.NUMBA_NUM_THREADS if self._parallel else 1
        if threads > self._work_threads:
            self._work_threads = threads
            self._work = self._family.work_buffers(threads, self.state.dtype)

    def _run(self, serial, parallel, *args) -> None:
        """A batch kernel under the engine's thread setting (``rummy_env/engine/threads.py``)."""
        if self._parallel:
            with numba.parallel_chunksize(self.chunk_size):
                parallel(*args)
        else:
            serial(*args)

    def legal_action_mask(self) -> np.ndarray:
        """``(B, A)`` int8: 1 for every legal action of each row's player to act (all 0 when over)."""
        self._run(self.drivers.mask_rows, self.drivers.mask_rows_parallel, self.state, self._mask, self._work,
                  self.tables, self.cfgs)
        np.copyto(self._checked_mask, self._mask)  # the next step reads legality off it (no search repeated)
        self._mask_is_current = True
        return self._mask

    def observe(self, seats: np.ndarray | None = None) -> np.ndarray:
        """``(B, O)`` int8 observation of each row, for ``seats`` (one seat per row, or one seat for every row;
        default: the player to act)."""
        seat_array = self.state["current"] if seats is None else self._seats(seats, self.batch_size)
        args = (self.state, seat_array, self._obs, self.observation_layout.kernel_offsets, self.rules.num_players,
                self.rules.num_card_types)
        self._run(observation.observe_rows, observation.observe_rows_parallel, *args)
        return self._obs

    def public_history(self, seats: np.ndarray | None = None) -> np.ndarray:
        """``(B, P, K, T)`` int8: the hand's public history of each row (what each seat took from the pile,
        passed, discarded, laid, took back; ``rummy_env.observations.HISTORY_KINDS``), seats relative to
        ``seats`` (default: the player to act), as the observation orders them; a new array."""
        seat_array = self.state["current"] if seats is None else self._seats(seats, self.batch_size)
        return history_rows(self.state, seat_array, self.rules.num_players)

    def observe_records(self, records: np.ndarray, seats: np.ndarray) -> np.ndarray:
        """Observations ``(len(records), O)`` of game records taken out of ``state`` (e.g. a copy of the rows
        that just ended), for ``seats``; a new array."""
        out = np.zeros((records.shape[0], self.observation_layout.size), dtype=np.int8)
        observation.observe_rows(records, self._seats(seats, records.shape[0]), out, self.observation_layout.kernel_offsets,
                                 self.rules.num_players, self.rules.num_card_types)
        return out

    def _row(self, row) -> int:
        """``row`` as an ``int`` in ``0 .. batch_size - 1``, else a ``RowIndexError`` naming it."""
        if not is_integer(row):
            raise RowIndexError(f"a row is an integer 0..{self.batch_size - 1}, got {row!r} ({type(row).__name__})")
        if not 0 <= row < self.batch_size:
            raise RowIndexError(f"row {row} is outside 0..{self.batch_size - 1} (batch_size {self.batch_size})")
        return int(row)

    def _row_mask(self, rows) -> np.ndarray:
        """``rows`` (``None``: every row) as a bool array ``(B,)``; row numbers or a wrong length are refused
        (numbers would be read as True/False)."""
        if rows is None:
            return np.ones(self.batch_size, dtype=np.bool_)
        array = np.asarray(rows)
        if array.dtype != np.bool_ or array.shape != (self.batch_size,):
            shown = repr(rows) if array.size <= 8 else f"an array of {array.dtype} {array.shape}"
            raise ValueError(f"rows must be a bool array of shape ({self.batch_size},), True for each row meant, "
                             f"got {shown}")
        return array

    def _seats(self, seats, rows: int) -> np.ndarray:
        """``seats`` as ``(rows,)`` int8, a single seat standing for every row; a seat outside 0..P-1, a
        non-integer or a wrong length is a ``ValueError``. An int8 array of that shape is checked where it is
        (the AEC env's case at every step: a compiled loop, not numpy's reductions and copies)."""
        players = self.rules.num_players
        if isinstance(seats, np.ndarray) and seats.dtype == np.int8 and seats.shape == (rows,) \
                and seats.flags.c_contiguous and not observation.seats_outside(seats, players):
            return seats
        array = np.asarray(seats)
        if array.dtype.kind not in "iu" or array.ndim > 1 or array.ndim == 1 and array.shape[0] != rows:
            raise ValueError(f"seats must be one integer seat or {rows} of them, got {seats!r}")
        if array.size and (array.min() < 0 or array.max() >= players):
            raise ValueError(f"seats must be 0..{players - 1}, got {seats!r}")
        return np.ascontiguousarray(np.broadcast_to(array.astype(np.int8), (rows,)))

    def episode_winners(self, records: np.ndarray) -> np.ndarray:
        """``(len(records), P)`` int8: 1 for each seat that won the finished episode of each record (the game's
        winners in "game" episodes, the seat credited with points or gone out in "hand" ones)."""
        out = np.zeros((records.shape[0], self.rules.num_players), dtype=np.int8)
        episode_winners_rows(records, self.cfgs, out)
        return out

    def step(self, actions: np.ndarray | Sequence[int], rows: np.ndarray | None = None) -> StepResult:
        """Apply one action per row (see the module docstring for illegal actions). With ``rows`` (bool
        ``(B,)``), only those rows move; the others ignore their action and get no reward."""
        if not self._has_reset:
            raise RuntimeError("the games have not started: call reset() first")
        action_array = actions if isinstance(actions, np.ndarray) and actions.dtype == np.int64 else as_actions(actions)
        if action_array.shape != (self.batch_size,):
            raise ValueError(f"expected {self.batch_size} actions, got an array of shape {action_array.shape}")
        active = self._all_rows if rows is None else self._row_mask(rows)
        if self._mask_is_current:
            row = check_actions_by_mask(self.state, action_array, active, self._checked_mask, self._legal, self.cfgs)
        else:
            row = self.drivers.check_actions(self.state, action_array, active, self._work, self.tables, self.cfgs,
                                             self._legal)
        if row >= 0 and self.rules.illegal_action == "raise":
            where = f"row {row}: " if self.batch_size > 1 else ""
            raise IllegalActionError(where + self.explain_illegal(row, int(action_array[row])))
        self._mask_is_current = False
        args = (self.state, self.undo_copies, action_array, active, self._legal, self._work, self.tables, self.cfgs,
                self._rewards, self._hand_ended)
        self._run(self.drivers.step_rows, self.drivers.step_rows_parallel, *args)
        return StepResult(self._rewards, self._hand_ended)

    # ------------------------------------------------------------------ for people and tests
    def action_to_str(self, action: int) -> str:
        return self.layout.to_str(action)

    def legal_reason(self, row: int, action: int) -> int:
        """0 if ``action`` is legal in ``row``, else the code of the first rule it breaks
        (``rummy_env.engine.reasons``)."""
        row = self._row(row)
        return int(self.drivers.legal_reason(self.state, row, as_action(action), self._work, self.tables, self.cfgs))

    def is_legal(self, row: int, action: int) -> bool:
        return self.legal_reason(row, action) == 0

    def explain_illegal(self, row: int, action: int) -> str:
        """Why ``action`` is illegal in ``row`` (or that it is legal)."""
        from rummy_env.engine.explain import explain

        reason = self.legal_reason(row, action)  # checks the row and the action
        return explain(self.rules, self.layout, self.state[row], int(action), reason)

    def state_tensor(self, seats: np.ndarray | None = None) -> np.ndarray:
        """Perfect-information tensor ``(B, P*T + T + O)`` int8: every hand by absolute seat, the stock order
        (1 = top), then the observation of ``seats`` (default: the player to act)."""
        players, types = self.rules.num_players, self.rules.num_card_types
        hidden = np.zeros((self.batch_size, players * types + types), dtype=np.int8)
        hidden[:, :players * types] = self.state["hand"][:, :players].reshape(self.batch_size, -1)
        for row in range(self.batch_size):
            stock_n = int(self.state["stock_n"][row])
            order = self.state["stock"][row, :stock_n][::-1].astype(np.int64)
            hidden[row, players * types + order] = np.arange(1, stock_n + 1)
        return np.concatenate([hidden, self.observe(seats).copy()], axis=1)

    def snapshot(self, row: int = 0) -> dict[str, Any]:
        """The whole position of ``row`` as plain data (card types as ints; JSON-able)."""
        from rummy_env.engine.positions import snapshot

        row = self._row(row)
        return snapshot(self.rules, self.state[row], self.undo_copies[row])

    def put(self, row: int, record: np.ndarray, undo: np.ndarray) -> None:
        """Put a game record and its UNDO copy, as they are, into ``row``: one-record arrays of this engine's
        record type (``engine.state[r:r + 1]`` and ``engine.undo_copies[r:r + 1]``, of this or another engine
        of the same rules), copied byte for byte. Nothing is checked but their type: ``load`` checks a position
        written by hand."""
        row = self._row(row)
        for name, source in (("record", record), ("undo", undo)):
            if not isinstance(source, np.ndarray) or source.dtype != self.state.dtype or source.shape != (1,):
                raise ValueError(f"{name} must be a one-record array of these rules' records (engine.state[r:r + 1]), "
                                 f"got {type(source).__name__} {getattr(source, 'shape', '')}")
        self.state[row:row + 1].view(np.uint8)[:] = record.view(np.uint8)
        self.undo_copies[row:row + 1].view(np.uint8)[:] = undo.view(np.uint8)
        self._mask_is_current = False
        self._has_reset = True

    def load(self, row: int, position: dict[str, Any]) -> None:
        """Put a position (a ``snapshot`` or a partial one written by hand) into ``row``; a position that is
        not valid raises ``ValueError`` and leaves the row as it was."""
        from rummy_env.engine.loading import load

        row = self._row(row)
        self._mask_is_current = False
        load(self.rules, self.state[row:row + 1], self.undo_copies[row:row + 1], position)
        self._has_reset = True

    def search_stats(self) -> dict[str, int]:
        """Counters of the rules family's searches since the engine was built (rami51: searches, plays tried,
        give-ups); empty for a family without search."""
        return self._family.search_stats(self._work)
