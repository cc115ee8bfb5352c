"""The catalog: GPUs, fabrics, prices, regions and currencies read from ``costmodel/data`` (loader), and how
its things are written (fabric names, money). The lowest layer above the registry of quantities: it imports
nothing of the model."""
