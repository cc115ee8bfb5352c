"""The facility's arrays: PUE and cooling capex per kW from the cooling kind unless the scenario sets them."""

from __future__ import annotations

import numpy as np

from costmodel.catalog.cooling import BASE_CURRENCY
from costmodel.catalog.currency import convert
from costmodel.catalog.loader import Catalog
from costmodel.scenario.schema import Scenario


def typical_capex_per_kw(scenario: Scenario, cat: Catalog, currency: str) -> float:
    """The typical capex per kW of the scenario's cooling kind in ``currency`` [currency/kW]: its own
    figure in that currency where cooling.yaml has one, else the USD figure at the reference rate."""
    own = cat.cooling[scenario.facility.cooling].capex_per_kw
    if currency in own:
        return own[currency].typical
    return convert(own[BASE_CURRENCY].typical, BASE_CURRENCY, currency, cat)


def facility_arrays(scenario: Scenario, cat: Catalog, currency: str) -> dict[str, np.ndarray]:
    """``pue`` [ratio], ``cooling_capex_per_kw`` [currency/kW] and ``build_cooling`` (1 = costed, else 0),
    each ``(1, 1)``: the scenario's value, else the typical one of its cooling kind (``data/cooling.yaml``),
    the capex in the price book's ``currency``."""
    fa = scenario.facility
    kind = cat.cooling[fa.cooling]
    pue = kind.pue.typical if fa.pue is None else fa.pue
    per_kw = typical_capex_per_kw(scenario, cat, currency) if fa.cooling_capex_per_kw is None \
        else fa.cooling_capex_per_kw
    return {name: np.full((1, 1), float(v)) for name, v in
            (("pue", pue), ("cooling_capex_per_kw", per_kw), ("build_cooling", 1.0 if fa.build_cooling else 0.0))}
