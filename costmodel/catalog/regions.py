"""Tax regions and grid regions (``data/finance_carbon.yaml``): the presets a scenario's
``finance.tax_region`` and ``facility.grid_region`` pick, each number sourced and dated.

* tax region ``none`` / ``cn`` / ``us``: income-tax rate [0-1] and straight-line depreciation
  lives of servers and network equipment [years];
* grid region ``cn`` / ``us`` / ``eu``: average grid emission factor [kg CO₂e/kWh].

>>> tax_preset("cn")["tax_rate"].typical, grid_factor("cn").typical
(0.25, 0.5306)
"""

from __future__ import annotations

import functools
from types import MappingProxyType

import yaml
from pydantic import ValidationError

from costmodel.catalog.loader import DATA_DIR, Quantity, load_catalog
from costmodel.errors import CatalogError

DATA_FILE = DATA_DIR / "finance_carbon.yaml"
TAX_REGIONS = ("none", "cn", "us")
GRID_REGIONS = ("cn", "us", "eu")
TAX_KEYS = ("tax_rate", "depreciation_years_servers", "depreciation_years_network")


@functools.cache
def _data() -> MappingProxyType:
    """The file, checked: every region present, every number a sourced :class:`Quantity`."""
    with DATA_FILE.open(encoding="utf-8") as fh:
        raw = yaml.load(fh, Loader=yaml.CSafeLoader)
    refs = load_catalog().references
    try:
        tax = {r: {k: Quantity(**raw["tax_regions"][r][k]) for k in TAX_KEYS} for r in TAX_REGIONS}
        grid = {r: Quantity(**raw["grid_regions"][r]) for r in GRID_REGIONS}
    except (KeyError, TypeError, ValidationError) as exc:
        raise CatalogError(f"{DATA_FILE.name}: {exc}") from exc
    for where, q in [*((f"tax_regions.{r}.{k}", q) for r, d in tax.items() for k, q in d.items()),
                     *((f"grid_regions.{r}", q) for r, q in grid.items())]:
        if q.source not in refs:
            raise CatalogError(f"{DATA_FILE.name}: {where}: unknown source key {q.source!r}")
    return MappingProxyType({"tax": tax, "grid": grid})


def tax_preset(region: str) -> dict[str, Quantity]:
    """Tax rate and depreciation lives of ``region`` (``none``, ``cn`` or ``us``)."""
    return dict(_data()["tax"][region])


def grid_factor(region: str) -> Quantity:
    """Average grid emission factor of ``region`` (``cn``, ``us`` or ``eu``) [kg CO₂e/kWh]."""
    return _data()["grid"][region]
