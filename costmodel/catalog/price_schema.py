"""The shape of a price book (``data/pricebooks/*.yaml``): a price for every GPU and fabric of the catalog."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from costmodel.catalog.quantity import Quantity


class GpuPrices(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    gpu_price: Quantity
    server_price: Quantity
    rental_per_gpu_hour: Quantity
    frontend_per_node: Quantity  # front-end / storage Ethernet per server: port, cable, switch share [currency]


class FabricPrices(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    nic_price: Quantity
    switch_price: Quantity
    cable_price: Quantity  # passive DAC cable [currency]
    optic_price: Quantity  # one transceiver [currency]
    install_per_node: Quantity
    aec_price: Quantity  # active copper cable (ACC/AEC) [currency]
    aoc_price: Quantity  # active optical cable [currency]
    fibre_price: Quantity  # fibre of one transceiver link: patch cords and trunk share [currency]
    install_per_link: Quantity  # cabling labour per installed link: route, label, test [currency]
    support_frac: Quantity  # switch OS / fabric-manager licences and support per year [share of network hardware]


class PriceBook(BaseModel):
    """A named set of prices in one currency; every GPU and fabric of the catalog is priced."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    id: str = Field(pattern=r"^[a-z0-9][a-z0-9_-]{0,63}$")
    name: str
    name_zh: str = ""
    currency: Literal["USD", "CNY", "EUR"]
    as_of: str
    gpus: dict[str, GpuPrices]
    fabrics: dict[str, FabricPrices]
