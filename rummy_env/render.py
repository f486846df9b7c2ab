"""Text pictures of a game for people: hands, table melds with owners, piles and scores, with card symbols.

Two views of one position:

- the **spectator's view** (``observer=None``, what ``env.render()`` shows by default): every hand
  face up, as a spectator, a replay or a bug report wants;
- a **player's view** (``observer=seat``): that player's own hand, and of every other hand only its
  size and the cards publicly known to be in it (taken from the discard pile), i.e. what the player
  can see at the table, the same information as the observation vector. Hands are shown face up once
  the hand is over (they are counted for the scores). The terminal game (``rummy play``) uses it.

Everything here is a function of a position as plain data (``RummyEngine.snapshot``), so the text
replay and the HTML replay (``rummy_env.replay_html``) draw the same things.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Sequence

from rummy_env import cards
from rummy_env.inputs import is_integer
from rummy_env.melds import rank_at
from rummy_env.rulesets import TRAITS

if TYPE_CHECKING:
    from rummy_env.engine import RummyEngine

PILE_SHOWN = 10  # discard-pile cards shown, the top last


def card_key(card: int) -> tuple[int, int]:
    """Sort key: by suit (♣ ♦ ♥ ♠), then rank; jokers last."""
    return (cards.NUM_SUITS, 0) if card == cards.JOKER else (cards.suit_of(card), cards.rank_of(card))


def symbols(card_list: Sequence[int]) -> str:
    """The cards sorted by suit and rank, as symbols (``"—"`` for none)."""
    return " ".join(cards.symbol(card) for card in sorted(card_list, key=card_key)) or "—"


def hand_groups(hand: Sequence[int]) -> list[list[int]]:
    """A hand sorted and grouped by suit (then the jokers), empty groups left out."""
    groups: dict[int, list[int]] = {}
    for card in sorted(hand, key=card_key):
        groups.setdefault(card_key(card)[0], []).append(card)
    return list(groups.values())


def grouped_symbols(hand: Sequence[int]) -> str:
    """``"3♣ 4♣ 5♣ · K♦ · 2♠ 7♠"``: the hand sorted and grouped by suit."""
    return "  ·  ".join(" ".join(cards.symbol(card) for card in group) for group in hand_groups(hand)) or "—"


def meld_in_order(meld: dict[str, Any]) -> list[int]:
    """A table meld's cards as laid out: a run in position order (a high ace last, a joker at the
    position it stands for), a set by suit with its joker last."""
    members = list(meld["cards"])
    if meld["kind"] != "run":
        return sorted(members, key=card_key)
    naturals = [card for card in members if card != cards.JOKER]
    ordered = []
    for position in range(meld["lo"], meld["hi"] + 1):
        if position == meld.get("joker_at") and cards.JOKER in members:
            ordered.append(cards.JOKER)
            continue
        rank = rank_at(position)
        match = next((card for card in naturals if cards.rank_of(card) == rank), None)
        if match is not None:
            naturals.remove(match)
            ordered.append(match)
    leftovers = naturals + [cards.JOKER] * (members.count(cards.JOKER) - ordered.count(cards.JOKER))
    return ordered + leftovers  # empty unless the record's ends disagree with its cards


def is_live(phase: str) -> bool:
    """Whether a position's phase (its name) is inside a hand rather than after one."""
    return phase not in ("hand_over", "game_over")


def count(number: int, noun: str) -> str:
    """``"1 card"``, ``"3 cards"``."""
    return f"{number} {noun}{'' if number == 1 else 's'}"


def seat_names(players: int, names: Sequence[str] | None = None) -> list[str]:
    """``player_0 …`` or the given names, one per seat."""
    return list(names) if names is not None else [f"player_{seat}" for seat in range(players)]


def describe(snap: dict[str, Any], observer: int | None = None, names: Sequence[str] | None = None,
             show_hidden: bool = True) -> str:
    """A multi-line picture of a position (``RummyEngine.snapshot``): the spectator's view with
    ``observer=None`` (``show_hidden=False`` shows only hand sizes), else ``observer``'s view (a seat number; an
    env's agent name such as ``"player_1"`` is refused: the env's ``render_observer`` takes those)."""
    players = len(snap["hands"])
    if observer is not None and not (is_integer(observer) and 0 <= observer < players):
        raise ValueError(f"observer must be None (every hand) or a seat 0..{players - 1}, got {observer!r}")
    who = seat_names(players, names)
    live = is_live(snap["phase"])
    hand_word = TRAITS[snap["ruleset"]].round_word
    lines = [f"{hand_word} {snap['hands_played'] + live} · turn {snap['turn']} · phase {snap['phase']} · "
             f"dealer {who[snap['dealer']]} · to act {who[snap['current']]}"]
    discard = snap["discard"]
    shown = " ".join(cards.symbol(card) for card in discard[-PILE_SHOWN:])
    lines.append(f"stock {count(len(snap['stock']), 'card')} · discard pile {count(len(discard), 'card')}"
                 + (f": {'… ' if len(discard) > PILE_SHOWN else ''}{shown} (top {cards.symbol(discard[-1])})"
                    if discard else ""))
    for seat, hand in enumerate(snap["hands"]):
        marker = "▶" if seat == snap["current"] and live else " "
        opened = (" opened" if snap["opened"][seat] else " not opened") if "opened" in snap else ""
        face_up = (observer is None and show_hidden) or seat == observer or (observer is not None and not live)
        if face_up:
            cards_text = grouped_symbols(hand) if seat == observer else symbols(hand)
        else:
            known = snap["known"][seat]
            cards_text = count(len(hand), "card") + (f" (known: {symbols(known)})" if known and observer is not None else "")
        lines.append(f"{marker} {who[seat]} [{snap['totals'][seat]:>4} pts{opened}] {cards_text}")
    if snap["table"]:
        lines.append("table:")
        for meld in snap["table"]:
            tentative = " tentative" if meld.get("tentative") else ""
            lines.append(f"  slot {meld['slot']:>2} ({meld['kind']} of {who[meld['owner']]}{tentative}): "
                         + " ".join(cards.symbol(card) for card in meld_in_order(meld)))
    if snap["taken"] is not None and live:
        lines.append(f"taken from the discard pile this turn: {cards.symbol(snap['taken'])}")
    pending = snap.get("turn_state", {}).get("pending", [])
    if pending and live:
        lines.append(f"taken from melds this turn, to lay in a new meld: {symbols(pending)}")
    if not live:
        lines.append(outcome(snap, who))
    return "\n".join(line for line in lines if line)


def outcome(snap: dict[str, Any], names: Sequence[str]) -> str:
    """How the last finished hand ended and the totals (empty before the first one ends)."""
    if snap["hands_played"] == 0 and snap["end_reason"] == "none":
        return ""
    hand_word = TRAITS[snap["ruleset"]].round_word
    text = hand_end(snap, names)
    scores = ", ".join(f"{names[seat]} {score}" for seat, score in enumerate(snap["hand_scores"]))
    totals = ", ".join(f"{names[seat]} {total}" for seat, total in enumerate(snap["totals"]))
    lines = [f"last {hand_word}: {text}; {hand_word} scores {scores}; totals {totals}"]
    if snap["phase"] == "game_over" and snap["game_winners"]:
        lines.append("game over: winner(s) " + ", ".join(names[seat] for seat in snap["game_winners"]))
    return "\n".join(lines)


def hand_end(snap: dict[str, Any], names: Sequence[str]) -> str:
    """How the last finished hand ended, in words (``outcome``'s first part; the replay's score table)."""
    if snap["end_reason"] == "illegal_action":
        return f"{names[snap['illegal_by']]} made an illegal action; the game is over"
    if "gin" in snap:
        return _gin_outcome(snap, names)
    if snap["winner"] is not None:
        return f"{names[snap['winner']]} went out{' (rummy!)' if snap['rummy'] else ''}"
    return f"dead {TRAITS[snap['ruleset']].round_word} ({snap['end_reason']})"


def opening_count(snap: dict[str, Any], rules) -> dict[str, Any] | None:
    """rami51, while the player to act has not opened and is playing: the points laid this turn toward the
    opening, the points it needs, and whether a pure run is among the plays (None when the rules ask for
    none; R11.1, R11.2). The terminal game and the replay page both show it."""
    if "opened" not in snap or snap["phase"] != "play" or snap["opened"][snap["current"]]:
        return None
    tentative = [meld for meld in snap["table"] if meld.get("tentative")]
    pure = any(meld.get("pure") for meld in tentative) if rules.opening_requires_pure_run else None
    return {"points": snap["turn_state"]["turn_points"], "needed": rules.opening_points_needed(snap["taken"] is not None),
            "pure": pure, "tentative": bool(tentative)}


def _gin_outcome(snap: dict[str, Any], names: Sequence[str]) -> str:
    """The last finished gin hand's end in words (G9, G10, G13). Once the next hand has started, the knocker
    field is that hand's, so the finished hand's knocker is read off its end: the winner of a knock or gin,
    the other player of an undercut; only a tied knock leaves no trace of who knocked."""
    winner, reason = snap["winner"], snap["end_reason"]
    finished = snap["phase"] in ("hand_over", "game_over")  # the knocker field still belongs to this hand
    if reason == "undercut":
        return f"{names[winner]} undercut {names[1 - winner]}"
    if reason in ("gin", "big_gin"):
        return f"{names[winner]} knocked with {reason.replace('_', ' ')}"
    if reason != "knock":
        return f"void hand ({reason.replace('_', ' ')})"
    if winner is not None:
        return f"{names[winner]} knocked and won"
    knocker = snap["gin"]["knocker"] if finished else None
    return f"{names[knocker]} knocked; a tie, no score" if knocker is not None else "a knock tied; no score"


def render_text(engine: "RummyEngine", row: int = 0, show_hidden: bool = True, observer: int | None = None,
                names: Sequence[str] | None = None) -> str:
    """``describe`` of ``row`` of ``engine``: the spectator's view (every hand; ``show_hidden=False``
    shows only their sizes), or with ``observer`` a seat, what that player can see."""
    return describe(engine.snapshot(row), observer, names, show_hidden)


# ------------------------------------------------------------------------------------------ actions in words
def _meld_text(meld: dict[str, Any], names: Sequence[str]) -> str:
    return f"slot {meld['slot']} ({' '.join(cards.symbol(card) for card in meld_in_order(meld))}, {names[meld['owner']]})"


def represented_card(meld: dict[str, Any]) -> int | None:
    """The natural card a table meld's joker stands for (a run's position, a 4-card set's missing
    suit), or None (no joker, or a 3-card set's, whose suit is open: R9)."""
    naturals = [card for card in meld["cards"] if card != cards.JOKER]
    if meld.get("joker_at") is None or not naturals:
        return None
    if meld["kind"] == "run":
        return cards.card_type(rank_at(meld["joker_at"]), cards.suit_of(naturals[0]))
    return cards.card_type(cards.rank_of(naturals[0]), meld["joker_at"])


def describe_action(snap: dict[str, Any], layout, action: int, names: Sequence[str] | None = None) -> str:
    """``action`` in words in the position ``snap`` (``rummy_env.actions.ActionLayout``): which cards
    it moves, onto which meld, a joker's end or the card it stands for."""
    who = seat_names(len(snap["hands"]), names)
    kind, a, b = layout.decode(action)
    table = {meld["slot"]: meld for meld in snap["table"]}
    if kind == "draw_discard" and snap["discard"]:
        return f"take the discard top {cards.symbol(snap['discard'][-1])}"
    if kind == "commit":
        points = snap.get("turn_state", {}).get("turn_points")
        return "COMMIT the opening" + (f" ({points} points laid)" if points is not None else "")
    if kind == "undo":
        return "UNDO: take back the tentative plays of this turn"
    if kind == "take_back":
        taken = snap.get("taken")
        returned = f", put {cards.symbol(taken)} back on the discard pile and draw one in its place" \
            if taken is not None else ""
        return (f"TAKE BACK the turn: every play of it goes back{returned}, then draw the penalty cards and "
                f"discard (R25)")
    if kind == "lay_off" and layout.layoff_targets == 1:
        return f"lay off {cards.symbol(b)} on the knocker's melds"
    if kind == "meld":
        members = layout.catalogue.members(a)
        joker_at = int(layout.catalogue.joker_at[a])
        what = "set" if layout.catalogue.kind[a] == 1 else "run"
        if what == "run":
            members = meld_in_order({"kind": "run", "cards": members, "lo": int(layout.catalogue.lo[a]),
                                     "hi": int(layout.catalogue.hi[a]), "joker_at": joker_at if joker_at >= 0 else None})
        text = f"meld {what} {' '.join(cards.symbol(card) for card in members)}"
        if joker_at >= 0:
            suit = cards.suit_of(next(card for card in members if card != cards.JOKER))
            text += f" ({cards.symbol(cards.JOKER)} = {cards.symbol(cards.card_type(rank_at(joker_at), suit))})"
        return text
    if kind in ("lay_off", "take", "swap") and a in table:
        meld = table[a]
        if kind == "lay_off":
            if b < cards.JOKER:
                return f"lay off {cards.symbol(b)} on {_meld_text(meld, who)}"
            end = "into the set" if meld["kind"] == "set" else ("at the low end" if b == cards.JOKER else "at the high end")
            return f"lay off {cards.symbol(cards.JOKER)} {end} of {_meld_text(meld, who)}"
        if kind == "take":
            if meld["kind"] == "run":
                card = meld_in_order(meld)[0 if b == 0 else -1]
            else:
                rank = cards.rank_of(next(card for card in meld["cards"] if card != cards.JOKER))
                card = cards.JOKER if b == 4 else cards.card_type(rank, b)
            return f"TAKE {cards.symbol(card)} from {_meld_text(meld, who)}"
        natural = represented_card(meld)
        return (f"SWAP {cards.symbol(natural) if natural is not None else 'the natural card'} for the "
                f"{cards.symbol(cards.JOKER)} of {_meld_text(meld, who)}")
    return layout.to_str(action)
