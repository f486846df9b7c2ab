"""``RummyState``: one hand of a rummy_env game as an OpenSpiel state, the deal (B4, R4, G2) and the draws
(B11, R17, R25) as chance nodes.

A state goes through these nodes:

* the first dealer, when the rules draw him (``first_dealer="random"``, the game's parameter -1): a chance node
  over the seats;
* the deal: one chance node per card, in the engine's dealing order (one card at a time clockwise from the
  dealer's left, then the upcard or the dealer's extra card), each card type with probability copies left /
  cards left; the engine then deals exactly those cards;
* the players' decisions: the engine's legal actions, ids as in ``rummy_env.actions``;
* the draws: after a decision that draws from the stock, one chance node per card drawn (``stock``).

The information state of a seat is everything it has seen, in order: the dealer, its own dealt cards, the
upcard, every decision of every seat (all are public), each card it drew and, after a draw, its hand. The
observation is the project's observation of that seat (``rummy_env.observations``), which also gives both
tensors.
"""

from __future__ import annotations

import numpy as np
import pyspiel

from rummy_env import cards
from rummy_env.beliefs import deck_counts, sample_worlds
from rummy_env.openspiel import stock
from rummy_env.openspiel.game import copy_record

DEALER, DEAL, PLAY, DRAW, REDRAW, OVER = range(6)
PUBLIC = -1


class RummyState(pyspiel.State):
    """See the module docstring."""

    def __init__(self, game):
        super().__init__(game)
        rules = game.rules
        self._position = np.zeros((2, game.dtype.itemsize), dtype=np.uint8)  # the record and its UNDO copy, as bytes
        self._returns = np.zeros(rules.num_players)
        self._events: list[tuple[int, str]] = []
        self._dealt: list[int] = []
        self._pending: dict = {}
        self._legal: list[int] | None = None
        if rules.first_dealer == "random":
            self._dealer, self._node = -1, DEALER
        else:
            self._dealer, self._node = int(rules.first_dealer), DEAL
            self._events.append((PUBLIC, f"dealer {self._dealer}"))

    @property
    def _game(self):
        """The game (not an attribute: OpenSpiel clones a state by copying its attributes)."""
        return self.get_game()

    @property
    def _record(self) -> np.ndarray:
        return np.ndarray((1,), self._game.dtype, self._position, 0)

    @property
    def _undo(self) -> np.ndarray:
        return np.ndarray((1,), self._game.dtype, self._position, self._position.shape[1])

    def _hold(self, record: np.ndarray, undo: np.ndarray) -> None:
        """Keep a position (one-record arrays) as bytes: OpenSpiel clones states often, and numpy copies bytes 7x
        faster than records."""
        self._position[0] = record.view(np.uint8)
        self._position[1] = undo.view(np.uint8)

    @property
    def record(self) -> np.ndarray:
        """The engine's record of the position (a one-record array; all zeros during the deal)."""
        return self._record

    @property
    def undo(self) -> np.ndarray:
        """The engine's UNDO copy of the position (R24, R25)."""
        return self._undo

    # ------------------------------------------------------------------ OpenSpiel's questions
    def current_player(self) -> int:
        if self._node == OVER:
            return pyspiel.PlayerId.TERMINAL
        if self._node in (DEALER, DEAL, DRAW, REDRAW):
            return pyspiel.PlayerId.CHANCE
        return int(self._record["current"][0])

    def is_terminal(self) -> bool:
        return self._node == OVER

    def returns(self) -> list[float]:
        return self._returns.tolist()

    def _legal_actions(self, player: int) -> list[int]:
        if self._legal is None:
            self._legal = self._game.legal_actions_of(self._record, self._undo)
        return self._legal

    def chance_outcomes(self) -> list[tuple[int, float]]:
        players = self._game.rules.num_players
        if self._node == DEALER:
            return [(seat, 1.0 / players) for seat in range(players)]
        if self._node == DEAL:
            return stock.outcomes(deck_counts(self._game.rules) - stock.counts(self._dealt, self._game.types))
        return stock.outcomes(self._pending["pool"] - stock.counts(self._pending["chosen"], self._game.types))

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return f"dealer {action}" if self._node == DEALER else cards.symbol(action)
        return self._game.engine.action_to_str(action)

    # ------------------------------------------------------------------ moves
    def _apply_action(self, action: int) -> None:
        node = self._node
        if node == DEALER:
            self._dealer = int(action)
            self._events.append((PUBLIC, f"dealer {action}"))
            self._node = DEAL
        elif node == DEAL:
            self._deal(int(action))
        elif node == PLAY:
            self._decide(int(action))
        else:
            self._draw(int(action))

    def _deal(self, card: int) -> None:
        game, players = self._game, self._game.rules.num_players
        dealt, extra_to = game.deal
        k = len(self._dealt)
        if k < dealt - 1:
            seat = (self._dealer + 1 + k % players) % players
        else:
            seat = PUBLIC if extra_to is None else (self._dealer + extra_to) % players
        self._events.append((seat, ("upcard " if seat == PUBLIC else "dealt ") + cards.symbol(card)))
        self._dealt.append(card)
        if len(self._dealt) == dealt:
            rest = deck_counts(game.rules) - stock.counts(self._dealt, game.types)
            deck = self._dealt + stock.unordered(rest, self._dealt).tolist()
            self._hold(*game.deal_position(deck, self._dealer))
            self._settle(np.zeros(players))

    def _decide(self, action: int) -> None:
        """A seat's decision: applied at once unless it draws from the stock with a choice of cards."""
        game, record, undo = self._game, self._record, self._undo
        seat = int(record["current"][0])
        self._events.append((PUBLIC, f"{seat}: {game.engine.action_to_str(action)}"))
        after, after_undo, rewards = game.step(record, undo, action)
        stock_before = int(record["stock_n"][0])
        if after["reshuffles"][0] == record["reshuffles"][0]:
            drawn = stock_before - int(after["stock_n"][0])
            if 0 < drawn < stock_before:  # some cards of the stock: chance chooses them
                self._pending = {"action": action, "seat": seat, "count": drawn, "chosen": [],
                                 "pool": stock.stock_counts(record, game.types)}
                self._node = DRAW
                return
            self._settle(rewards, after, after_undo, seat if drawn else None)
            return
        self._events.append((PUBLIC, "the stock is rebuilt"))
        pool = self._rebuilt_from(action)
        left = stock.stock_counts(after, game.types)
        redrawn = int(pool.sum() - left.sum())
        if (pool < left).any() or redrawn < 0:
            raise RuntimeError("the OpenSpiel adapter lost track of a stock rebuild: please report this position "
                               f"({game.engine.action_to_str(action)})")
        if 0 < redrawn < pool.sum():
            self._pending = {"action": action, "seat": seat, "count": redrawn, "chosen": [], "pool": pool,
                             "drawn": pool - left, "after": (after, after_undo, rewards)}
            self._node = REDRAW
            return
        self._settle(rewards, after, after_undo, seat)

    def _rebuilt_from(self, action: int) -> np.ndarray:
        """The cards a rebuild during ``action`` took: the discard pile of the same action applied with spare
        cards under the stock (``stock``)."""
        game = self._game
        record, undo = stock.with_spare_cards(self._record, self._undo, game.turn_copy)
        after, _, _ = game.step(record, undo, action)
        if after["reshuffles"][0] != record["reshuffles"][0]:
            raise RuntimeError("the OpenSpiel adapter could not see which cards a stock rebuild took")
        return stock.pile_counts(after, game.types, bool(game.rules.reshuffle_keep_top))

    def _draw(self, card: int) -> None:
        pending, game = self._pending, self._game
        pending["chosen"].append(card)
        self._events.append((pending["seat"], "drew " + cards.symbol(card)))
        if len(pending["chosen"]) < pending["count"]:
            return
        if self._node == DRAW:
            record, undo = copy_record(self._record), copy_record(self._undo)
            stock.put_on_top(record, undo, pending["chosen"])
            after, after_undo, rewards = game.step(record, undo, pending["action"])
        else:
            after, after_undo, rewards = pending["after"]
            stock.replace_drawn(after, pending["seat"], pending["drawn"],
                                stock.counts(pending["chosen"], game.types), pending["pool"], self.history())
        self._pending = {}
        self._settle(rewards, after, after_undo, pending["seat"])

    def _settle(self, rewards: np.ndarray, record: np.ndarray | None = None, undo: np.ndarray | None = None,
                drew: int | None = None) -> None:
        """Take the position after a move: its rewards, the hand of a seat that drew (in its information
        state), and whether the hand is over."""
        if record is not None:
            self._hold(record, undo)
        self._returns += rewards
        self._legal = None
        if drew is not None:
            self._note_hand(drew)
        self._node = OVER if self._game.engine_done(self._record) else PLAY

    # ------------------------------------------------------------------ information
    def information_state_string(self, player: int | None = None) -> str:
        seat = self._seat(player)
        return "\n".join(text for who, text in self._events if who == PUBLIC or who == seat)

    def observation_string(self, player: int | None = None) -> str:
        return self._game.observation_text(self, self._seat(player))

    def _seat(self, player: int | None) -> int:
        """``player``, or the player to act; a seat is needed at chance and terminal nodes."""
        seat = self.current_player() if player is None else player
        if not 0 <= seat < self._game.rules.num_players:
            raise ValueError(f"give a seat 0..{self._game.rules.num_players - 1}: at a chance or terminal node there "
                             f"is no player to act (got {seat})")
        return seat

    def observation_vector(self, seat: int) -> np.ndarray:
        """The project's observation of ``seat`` (zeros until the deal is over)."""
        if self._node in (DEALER, DEAL):
            return np.zeros(self._game.observation_layout.size, dtype=np.float32)
        return self._game.engine.observe_records(self._record, np.array([seat])).astype(np.float32)[0]

    def resample_from_infostate(self, player: int, probability_sampler) -> "RummyState":
        """A state whose information state, observation and legal actions for ``player`` are this one's: the other
        hands' cards that ``player`` has not seen publicly and the stock re-dealt by ``rummy_env.beliefs``'
        uniform sampler (which does not use what a rebuild of the stock made public: after a rebuild, a world may
        put a card in the stock that never was in the discard pile). The copy is a position (``start_from``):
        its history is empty, so it shows nothing of the real deal, and it cannot be serialized or pickled. The
        other seats' own draws are not re-created: their private events become one marker, so that search over
        worlds must allow their action sets to vary (``allow_inconsistent_action_sets`` of OpenSpiel's ISMCTS)."""
        if self._node != PLAY:
            raise ValueError("resample_from_infostate needs a decision node (after the deal, before the hand's end, "
                             "not between a draw and its chance nodes)")
        seed = int(probability_sampler() * 2**62)
        worlds = sample_worlds(self._game.rules, self._record, player, 1, seed, undo=self._undo)
        copy = self._game.new_initial_state()
        copy.start_from(worlds.records[:1], worlds.undo[:1])
        copy._returns = self._returns.copy()
        copy._events = [(who, text) for who, text in self._events if who in (PUBLIC, player)]
        copy._events += [(seat, "hand re-dealt") for seat in range(self._game.rules.num_players) if seat != player]
        return copy

    def start_from(self, record: np.ndarray, undo: np.ndarray) -> None:
        """Make this new state the position of a game record (one-record arrays, ``engine.state[row:row + 1]``
        and ``engine.undo_copies[row:row + 1]``), as the arena's searchers receive it: a decision node whose
        information states begin there (each seat's hand, then the moves from that point). Its history holds only
        the moves made from there: it cannot be pickled (``pyspiel.serialize_game_and_state`` would replay those
        moves from a new deal: do not serialize it)."""
        if self.history():
            raise ValueError("start_from takes a new state (game.new_initial_state()), not one already played")
        game = self._game
        if record.dtype != game.dtype or record.shape != (1,) or undo.dtype != game.dtype or undo.shape != (1,):
            raise ValueError("record and undo must be one-record arrays of this game's rules (engine.state[row:row + 1])")
        self._hold(record, undo)
        self._dealer = int(record["dealer"][0])
        self._events = [(PUBLIC, "from a position")]
        for seat in range(game.rules.num_players):
            self._note_hand(seat)
        self._legal = None
        self._from_position = True
        self._node = OVER if game.engine_done(self._record) else PLAY

    def __getstate__(self):
        if getattr(self, "_from_position", False):
            raise ValueError("this state was made from a position (start_from, resample_from_infostate): its history "
                             "does not hold the deal, so it cannot be pickled")
        return super().__getstate__()

    def _note_hand(self, seat: int) -> None:
        hand = self._record["hand"][0, seat]
        self._events.append((seat, "hand " + " ".join(cards.symbol(card) for card in np.repeat(np.arange(len(hand)), hand))))

    def __str__(self) -> str:
        return self._game.state_text(self)
