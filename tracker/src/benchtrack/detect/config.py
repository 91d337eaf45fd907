"""The detector's knobs, apart from the detector so the CLI can show defaults without importing
scipy and ruptures (seconds on a busy runner)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Config:
    min_effect: float = 0.03  # smallest relative change reported (|after/before - 1|)
    alpha: float = 0.001  # largest p-value reported
    min_segment: int = 4  # points on each side of a step (so a step needs this many after it)
    penalty: float = 3.0  # PELT's cost per step, times log(n), in units of the noise variance

    @property
    def min_points(self) -> int:
        return 2 * self.min_segment
