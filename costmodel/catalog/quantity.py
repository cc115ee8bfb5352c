"""One sourced number of the data files: a typical value, an optional range, its source and date."""

from __future__ import annotations

import re

from pydantic import BaseModel, ConfigDict, model_validator

_AS_OF = re.compile(r"^\d{4}-\d{2}$")


class Quantity(BaseModel):
    """One sourced number: typical value with an optional [low, high] range."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    typical: float
    low: float | None = None
    high: float | None = None
    source: str
    as_of: str
    note: str | None = None

    @model_validator(mode="after")
    def _check(self) -> Quantity:
        lo = self.typical if self.low is None else self.low
        hi = self.typical if self.high is None else self.high
        if not lo <= self.typical <= hi:
            raise ValueError(f"need low <= typical <= high, got {lo}, {self.typical}, {hi}")
        if not _AS_OF.match(self.as_of):
            raise ValueError(f"as_of must be YYYY-MM, got {self.as_of!r}")
        return self

    @property
    def lo(self) -> float:
        """Lower end of the range (the typical value when no range is known)."""
        return self.typical if self.low is None else self.low

    @property
    def hi(self) -> float:
        """Upper end of the range (the typical value when no range is known)."""
        return self.typical if self.high is None else self.high
