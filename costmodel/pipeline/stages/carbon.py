"""Stage 7b, carbon: emissions of the facility energy at the grid's emission factor.

``CO₂e per year = facility kWh per year × grid factor`` (the ledger's ``co2_kg``); per run
``= per year / runs per year`` (∞ with no run); over the horizon ``= per year × H``. Only the
electricity of operation is counted (scope 2, location-based); the embodied emissions of the
hardware are not.

References
----------
.. [1] GHG Protocol, Scope 2 Guidance, 2015 (location-based method: energy × grid average factor).
"""

from __future__ import annotations

import numpy as np

KG_PER_TONNE = 1000.0


def carbon(co2_kg_per_year: np.ndarray, runs_per_year: np.ndarray, horizon_years: int) -> dict[str, np.ndarray]:
    """Emissions per year, per run and over the horizon [kg CO₂e], arrays ``(S, F)``.

    >>> c = carbon(np.array([[1000.0, 500.0]]), np.array([[4.0, 0.0]]), 5)
    >>> c["co2_kg_per_run"].tolist(), c["co2_kg_horizon"].tolist()
    ([[250.0, inf]], [[5000.0, 2500.0]])
    """
    with np.errstate(divide="ignore", invalid="ignore"):
        per_run = np.where(runs_per_year > 0, co2_kg_per_year / runs_per_year, np.inf)
    return {"co2_kg_per_year": co2_kg_per_year, "co2_kg_per_run": per_run,
            "co2_kg_horizon": co2_kg_per_year * float(horizon_years)}
