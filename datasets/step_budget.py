"""The teach step's deadline: the time a person is told a deck takes to adapt is the
time the whole step takes, on whatever machine it runs.

`deck_locator.teach_locator` has two parts with a time budget (the locator's training,
then the reader's: ultralytics fits its epochs to the time it is given) and parts with
none: the scenes and crops drawn first, each training's setup and final validation,
the exports and int8 calibration, the check of the sure level on photos of the deck.
On one 2-core machine those parts took about 110 s one day and about 300 s another (the
same plan, docs/decks.md), so fixed training minutes ended the step at 12.5 minutes one
day and 15.9 the next. Here the step gets a deadline, the two budgets plus
`overhead_minutes`, and the budgets give back what the other parts take beyond that
allowance: before the locator trains, from what the scenes took and what the rest is
expected to take; before the reader trains, from the time left.

The expected rest scales with what the scenes took: each part is CPU work of the same
kind on the same plan, so a machine (or a day) that draws the scenes slowly runs the
rest slowly too. `REST_PER_SCENE_SECOND` and `POST_PER_SCENE_SECOND` are those ratios,
measured on this machine with the default plan (docs/decks.md, 2026-12-03).
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = [
    "MIN_LOCATOR_SECONDS",
    "MIN_READER_SECONDS",
    "POST_PER_SCENE_SECOND",
    "REST_PER_SCENE_SECOND",
    "StepBudget",
]

REST_PER_SCENE_SECOND = 0.6
"""The untimed parts after the scenes (both trainings' setup and final validation, the
exports and calibration, the sure-level check), per second the scenes took: on the
Rook validation look, 2026-12-03, scenes 99 s, the locator 18 s past its budget, the
reader on it, export 12 s, check 27 s: 57 s, 0.58 of the scenes."""
POST_PER_SCENE_SECOND = 0.4
"""The untimed parts after the locator (the reader's setup and final validation, the
exports and calibration, the check), per second the scenes took: 39 s of 99 on the
same run, 0.39 (the reader's overshoot taken as none; it stopped 12 s early)."""
MIN_LOCATOR_SECONDS = 60.0
"""The least locator training the step keeps, however late it is (or the plan's, when
it asks for less): one epoch of the
default plan's tiles takes about a minute and a half on this machine, and the time
mode of ultralytics stops inside an epoch; less teaches nothing worth the export."""
MIN_READER_SECONDS = 30.0
"""The least reader fine-tune the step keeps when it has one (or the plan's, when it
asks for less): a few hundred batches."""


@dataclass(frozen=True)
class StepBudget:
    """The training budgets of one teach step, shrunk to meet its deadline."""

    locator_minutes: float
    """The locator's planned training time (`LocatorPlan.minutes`)."""
    reader_minutes: float
    """The reader's planned fine-tune (`LocatorPlan.reader_minutes`; 0: none)."""
    overhead_minutes: float
    """What the step allows the parts with no budget (`LocatorPlan.overhead_minutes`)."""

    @property
    def deadline(self) -> float:
        """Seconds from the step's start by which it should be done."""
        return 60 * (self.locator_minutes + self.reader_minutes + self.overhead_minutes)

    def locator_seconds(self, elapsed: float, scenes: float) -> float:
        """The locator's budget when it starts, `elapsed` seconds into the step, the
        scenes having taken `scenes` of them: the planned time, less its share of what
        the rest of the step is expected to overrun the deadline by."""
        planned = 60 * self.locator_minutes
        trained = planned + 60 * self.reader_minutes
        left = self.deadline - elapsed - REST_PER_SCENE_SECOND * scenes
        if left >= trained:
            return planned
        return min(planned, max(MIN_LOCATOR_SECONDS, left * planned / trained))

    def reader_seconds(self, elapsed: float, scenes: float) -> float:
        """The reader's budget when it starts, `elapsed` seconds into the step: the
        planned time, or what is left before the deadline once the rest is done."""
        planned = 60 * self.reader_minutes
        if planned <= 0:
            return 0.0
        left = self.deadline - elapsed - POST_PER_SCENE_SECOND * scenes
        return min(planned, max(MIN_READER_SECONDS, left))
