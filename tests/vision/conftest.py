"""Fixtures of the card-logic tests: the hand-placed table of `mini_table`."""

from __future__ import annotations

import pytest
from mini_table import MiniTable


@pytest.fixture
def mini_table() -> type[MiniTable]:
    return MiniTable
