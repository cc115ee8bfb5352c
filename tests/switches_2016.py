"""The 32-port 100G switches of 2016, as an override: with them TCP and iWARP 100G cannot deliver the
introduction preset's plan at any cluster size the equal-work search tries (the catalog's 2026 100G fabric,
12.8 T switches in 4 × 100G breakout, can), which tests of the "cannot deliver" paths need."""

OLD_100G = {"fabrics": {f: {"switch_radix": 32} for f in ("tcp-100", "iwarp-100", "roce-100")}}
