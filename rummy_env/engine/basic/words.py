"""Why a basic action is illegal, in words (B6-B11, B18): the family's wording of the reason codes
(``rummy_env.engine.explain`` formats them) and of a play that would leave the turn unfinishable."""

from __future__ import annotations

from rummy_env import cards
from rummy_env.engine import reasons as why
from rummy_env.engine.explain import SHARED_WORDS, table_context as word_context

WORDS = {
    **SHARED_WORDS,
    why.MUST_DRAW: "a turn starts with a draw from the stock or the discard pile (B6)",
    why.ALREADY_DREW: "{player} has already drawn this turn (B6)",
    why.STOCK_EMPTY: "the stock is empty (B11)",
    why.DISCARD_TAKEN: "{card} was taken from the discard pile this turn (B7)",
    why.MELD_FIRST: "must_meld_before_layoff requires a meld of one's own first (B9)",
    why.DOES_NOT_FIT: "{card} does not extend the meld {members} (B8, B9, B15)",
}


def dead_end_words(rules, r, kind: str) -> str:
    """B10, B18: the play would leave a turn that cannot be finished."""
    if rules.must_discard_to_go_out:
        return ("it would leave no card to discard, and must_discard_to_go_out requires going out by a discard "
                "(B10, B18)")
    taken = cards.symbol(int(r["taken"]))
    return (f"it would leave only {taken}, taken from the discard pile this turn, which can be neither discarded (B7) "
            f"nor laid off: the turn could not be finished (B18)")


__all__ = ["WORDS", "dead_end_words", "word_context"]
