"""The cooling kinds of a data hall (``data/cooling.yaml``): PUE and cooling capex per kW of IT power.

A kind's ``capex_per_kw`` is kept per currency; a price book in a currency not listed converts the
USD figure at the reference rate (``pipeline.facility_inputs.typical_capex_per_kw``).
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict

from costmodel.catalog.quantity import Quantity
from costmodel.errors import CatalogError

#: The cooling kinds a scenario chooses from (``facility.cooling``) and a GPU may require.
CoolingKind = Literal["air", "liquid"]
KINDS: tuple[str, ...] = ("air", "liquid")
BASE_CURRENCY = "USD"


class CoolingSpec(BaseModel):
    """One cooling kind: the hall's PUE [ratio] and its capex per kW of peak IT power [currency/kW]."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    pue: Quantity
    capex_per_kw: dict[str, Quantity]  # by currency code; USD required


def check(cooling: dict[str, CoolingSpec]) -> None:
    """Every kind of :data:`KINDS` is listed, each with a USD capex; raises ``CatalogError``."""
    if set(cooling) != set(KINDS):
        raise CatalogError(f"cooling.yaml: kinds {sorted(cooling)}, expected {sorted(KINDS)}")
    for kind, spec in cooling.items():
        if BASE_CURRENCY not in spec.capex_per_kw:
            raise CatalogError(f"cooling.yaml: {kind}.capex_per_kw needs a {BASE_CURRENCY} figure")
