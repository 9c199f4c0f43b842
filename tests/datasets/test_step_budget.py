"""The teach step's deadline: the training budgets give back what the untimed parts take
beyond the step's allowance, and never more than the plan asked for."""

from __future__ import annotations

import pytest

from shanghai.datasets.step_budget import (
    MIN_LOCATOR_SECONDS,
    MIN_READER_SECONDS,
    POST_PER_SCENE_SECOND,
    REST_PER_SCENE_SECOND,
    StepBudget,
)

DEFAULT = StepBudget(locator_minutes=6.5, reader_minutes=4.0, overhead_minutes=3.5)


def test_the_deadline_is_both_budgets_and_the_allowance() -> None:
    assert DEFAULT.deadline == pytest.approx(14 * 60)


def test_a_step_on_time_trains_as_planned() -> None:
    # scenes that leave the expected rest inside the allowance
    scenes = 0.5 * DEFAULT.overhead_minutes * 60 / (1 + REST_PER_SCENE_SECOND)
    assert DEFAULT.locator_seconds(scenes, scenes) == pytest.approx(6.5 * 60)
    elapsed = scenes + 6.5 * 60 + 20
    assert DEFAULT.reader_seconds(elapsed, scenes) == pytest.approx(4 * 60)


def test_slow_scenes_shrink_both_budgets_in_proportion_to_meet_the_deadline() -> None:
    scenes = 2 * DEFAULT.overhead_minutes * 60 / (1 + REST_PER_SCENE_SECOND)
    locator = DEFAULT.locator_seconds(scenes, scenes)
    assert locator < 6.5 * 60
    # what the locator keeps, with the reader's share and the expected rest, ends the
    # step on its deadline
    reader_share = locator * 4.0 / 6.5
    rest = REST_PER_SCENE_SECOND * scenes
    assert scenes + locator + reader_share + rest == pytest.approx(DEFAULT.deadline)


def test_the_reader_gets_the_time_the_locator_left() -> None:
    scenes = 60.0
    post = POST_PER_SCENE_SECOND * scenes
    # the locator ran 90 s past its budget (setup, final validation, a slow day)
    elapsed = scenes + 6.5 * 60 + 90
    reader = DEFAULT.reader_seconds(elapsed, scenes)
    expected = min(4 * 60, DEFAULT.deadline - elapsed - post)
    assert reader == pytest.approx(max(MIN_READER_SECONDS, expected))
    assert reader <= 4 * 60


def test_a_late_step_keeps_the_least_training_and_never_more_than_planned() -> None:
    late = DEFAULT.deadline
    assert DEFAULT.locator_seconds(late, late / 4) == pytest.approx(MIN_LOCATOR_SECONDS)
    assert DEFAULT.reader_seconds(late, late / 4) == pytest.approx(MIN_READER_SECONDS)
    toy = StepBudget(locator_minutes=0.1, reader_minutes=0.1, overhead_minutes=0.0)
    assert toy.locator_seconds(100.0, 100.0) == pytest.approx(6.0)
    assert toy.reader_seconds(100.0, 100.0) == pytest.approx(6.0)


def test_no_reader_in_the_plan_is_no_reader_budget() -> None:
    plan = StepBudget(locator_minutes=6.5, reader_minutes=0.0, overhead_minutes=3.5)
    assert plan.reader_seconds(10.0, 10.0) == 0.0
    assert plan.locator_seconds(10.0, 10.0) == pytest.approx(6.5 * 60)
