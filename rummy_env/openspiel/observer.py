"""The observer of the rummy OpenSpiel games: the project's observation of a seat as the tensor of both the
observation and the information state, and their strings (``RummyState``)."""

from __future__ import annotations

import numpy as np


class RummyObserver:
    """``tensor``: the project's observation of the seat (``rummy_env.observations``), float32, zeros until the
    deal is over; ``dict`` names its blocks. ``string_from``: the seat's information state (everything it has
    seen, in order) with ``perfect_recall``, else a description of what it sees now."""

    def __init__(self, game, perfect_recall: bool):
        self.perfect_recall = perfect_recall
        layout = game.observation_layout
        self.tensor = np.zeros(layout.size, dtype=np.float32)
        self.dict = layout.split(self.tensor)

    def set_from(self, state, player: int) -> None:
        self.tensor[:] = state.observation_vector(player)

    def string_from(self, state, player: int) -> str:
        if self.perfect_recall:
            return state.information_state_string(player)
        return state.observation_string(player)
