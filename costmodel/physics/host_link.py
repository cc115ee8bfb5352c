"""The host link of a NIC: the PCIe slot between the NIC and the GPU's memory.

A NIC moves data between the wire and the GPU over its host link (GPUDirect RDMA through the
server's PCIe switch); its useful rate is the lesser of its port and that link. Units: bytes per
second [B/s], one direction; ports in [bit/s]. Arrays broadcast.

* raw rate of a PCIe link: ``8 GT/s · 2^(gen−3)`` per lane (Gen3 8, Gen4 16, Gen5 32, Gen6 64 GT/s,
  one bit per transfer per lane) times the lanes, over 8 bits per byte [1];
* achieved rate: the raw rate times the share the protocol leaves for payload (line encoding,
  TLP headers, DLLP acknowledgements and flow-control updates, SKP sets): ≈ 0.81 for 64 kB DMA
  writes at a 256 B maximum payload on Gen4/Gen5 x16 [2];
* GB200: the NICs sit behind the Grace CPU (GPU → NVLink-C2C → Grace → PCIe Gen5 x16 → NIC); the
  C2C link (450 GB/s a direction) is far wider than the slot, so the narrowest PCIe hop on the
  NIC's path is the host link a catalog entry gives.

References
----------
.. [1] PCI-SIG, PCI Express Base Specification, rev. 4.0, 5.0, 6.0 (16, 32, 64 GT/s per lane).
.. [2] R. Neugebauer et al., "Understanding PCIe performance for end host networking", SIGCOMM
   2018, and its model (github.com/pcie-bench/pcie-model, ``mem_bw.write``).
"""

from __future__ import annotations

import numpy as np

BITS_PER_BYTE = 8.0
GEN3_GTS = 8e9  # transfers per second per lane of a Gen3 link (PCI-SIG); each later generation doubles it


def pcie_raw_bytes_s(gen, lanes) -> np.ndarray:
    """Raw rate of a PCIe link of generation ``gen`` (3-7) and ``lanes`` lanes, one direction [B/s].

    >>> float(pcie_raw_bytes_s(5, 16)) / 1e9
    64.0
    >>> (pcie_raw_bytes_s(np.array([4.0, 6.0]), 16) / 1e9).tolist()
    [32.0, 128.0]
    """
    gen = np.asarray(gen, dtype=float)
    return GEN3_GTS * 2.0 ** (gen - 3.0) * np.asarray(lanes, dtype=float) / BITS_PER_BYTE


def slot_bytes_s(gen, lanes, share) -> np.ndarray:
    """Achieved rate of the host slot [B/s]: raw rate × the payload ``share`` [0-1] the protocol leaves.

    >>> round(float(slot_bytes_s(5, 16, 0.81)) / 1e9, 2)
    51.84
    """
    return pcie_raw_bytes_s(gen, lanes) * np.asarray(share, dtype=float)


def nic_bytes_s(port_bps, slot) -> np.ndarray:
    """Useful rate of one NIC before the fabric's efficiency [B/s]: ``min(port/8, slot)``.

    >>> float(nic_bytes_s(800e9, 51.84e9)) / 1e9   # an XDR port in a Gen5 x16 slot: the slot binds
    51.84
    >>> float(nic_bytes_s(400e9, 51.84e9)) / 1e9   # an NDR port: the port binds
    50.0
    """
    return np.minimum(np.asarray(port_bps, dtype=float) / BITS_PER_BYTE, slot)


def slot_limited(port_bps, slot) -> np.ndarray:
    """1.0 where the host slot, not the port, limits the NIC, else 0.0.

    >>> slot_limited(np.array([400e9, 800e9]), 51.84e9).tolist()
    [0.0, 1.0]
    """
    return (np.asarray(port_bps, dtype=float) / BITS_PER_BYTE > slot).astype(float)
