"""The China-market reference price book (CNY), built from ``data/cn_market.yaml`` on the public book.

An item with a published China street price takes it (its own source and date); every other
price is an estimate, derived transparently as *public USD price × reference rate (CNY per USD)
× the import/channel factor of its category*, low and high from the factor's low and high, and
its note says so. Building it when the catalog loads keeps it pricing every item of the public
book (a fabric added there is priced here too). Works on the raw YAML mappings (no validation:
the catalog validates the result as it does every book).

>>> base = {"id": "public", "currency": "USD", "gpus": {}, "fabrics": {"tcp-100": {
...     "nic_price": {"typical": 800, "low": 500, "high": 1200, "source": "market-2025", "as_of": "2025-06"}}}}
>>> market = {"id": "cn", "name": "CN", "currency": "CNY", "as_of": "2026-12", "factors": {"ethernet": {
...     "nic_price": {"typical": 1.05, "low": 0.9, "high": 1.2, "source": "est", "as_of": "2026-12"}}},
...     "fabric_groups": {"default": "ethernet"}}
>>> q = build(base, market, 7.1, {"tcp-100": {"family": "tcp"}})["fabrics"]["tcp-100"]["nic_price"]
>>> q["typical"], q["low"], q["high"], q["source"]
(5960.0, 3200.0, 10200.0, 'est')
"""

from __future__ import annotations

import math

SIGNIFICANT = 3  # a derived estimate keeps three significant digits (5,964 → 5,960)
GPU_GROUP = "gpus"


def round_sig(x: float, digits: int = SIGNIFICANT) -> float:
    """``x`` rounded to ``digits`` significant digits (0 stays 0).

    >>> round_sig(5964.0), round_sig(0.6035), round_sig(0.0)
    (5960.0, 0.604, 0.0)
    """
    if x == 0 or not math.isfinite(x):
        return x
    return float(round(x, digits - 1 - math.floor(math.log10(abs(x)))))


def derive(q: dict, factor: dict, fx: float, base_currency: str) -> dict:
    """One estimated price: the base quantity ``q`` × ``fx`` × ``factor`` (typical, low, high), noted."""
    def scaled(value: float | None, f: float) -> float | None:
        return None if value is None else round_sig(value * fx * f)

    out = {"typical": scaled(q["typical"], factor["typical"]),
           "low": scaled(q.get("low", q["typical"]), factor.get("low", factor["typical"])),
           "high": scaled(q.get("high", q["typical"]), factor.get("high", factor["typical"])),
           "source": factor["source"], "as_of": factor["as_of"],
           "note": (f"estimate: public {q['typical']:g} {base_currency} x {fx:g} x {factor['typical']:g} "
                    f"import/channel factor (range {factor.get('low', factor['typical']):g}-"
                    f"{factor.get('high', factor['typical']):g}); no published China price found")}
    return out


def fabric_group(fabric_id: str, spec: dict, groups: dict) -> str:
    """The factor set of one fabric: the first group whose families or id prefixes match, else the default."""
    for name, rule in groups.items():
        if name == "default":
            continue
        if spec.get("family") in rule.get("families", ()) or fabric_id.startswith(tuple(rule.get("prefixes", ()))):
            return name
    return groups.get("default", "default")


def gpu_group(gpu_id: str, market: dict) -> str:
    """The factor set of one GPU: a named group of ``gpu_groups`` that lists it (domestic parts), else ``gpus``."""
    return next((name for name, ids in market.get("gpu_groups", {}).items() if gpu_id in ids), GPU_GROUP)


def _item(prices: dict, factors: dict, explicit: dict, fx: float, market: dict, currency: str) -> dict:
    """All prices of one GPU or fabric: explicit China prices, unitless fields copied, the rest derived."""
    unitless = set(market.get("unitless", ()))
    out = {}
    for field, q in prices.items():
        if field in explicit:
            out[field] = dict(explicit[field])
        elif field in unitless:
            out[field] = dict(q)
        else:
            out[field] = derive(q, factors[field], fx, currency)
    return out


def build(base: dict, market: dict, fx: float, fabric_specs: dict) -> dict:
    """The CNY book (a raw price-book mapping) from the raw ``base`` book, the raw ``market`` file,
    ``fx`` [CNY per base currency unit] and the catalog's raw fabric entries (for their family)."""
    factors = market["factors"]
    explicit = market.get("prices", {})
    groups = market.get("fabric_groups", {})
    cur = base["currency"]
    gpus = {gid: _item(p, factors[gpu_group(gid, market)], explicit.get("gpus", {}).get(gid, {}), fx, market, cur)
            for gid, p in base["gpus"].items()}
    fabrics = {}
    for fid, p in base["fabrics"].items():
        group = fabric_group(fid, fabric_specs.get(fid, {}), groups)
        fabrics[fid] = _item(p, factors[group], explicit.get("fabrics", {}).get(fid, {}), fx, market, cur)
    return {"id": market["id"], "name": market["name"], "name_zh": market.get("name_zh", ""),
            "currency": market["currency"], "as_of": market["as_of"], "gpus": gpus, "fabrics": fabrics}
