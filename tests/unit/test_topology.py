import numpy as np
import pytest

from costmodel.physics import topology


@pytest.mark.parametrize(
    ("endpoints", "radix", "tiers", "switches"),
    [
        (1, 64, 1, 1),
        (64, 64, 1, 1),
        (65, 64, 2, 3 + 2),  # ceil(65/32)=3 leaves, ceil(65/64)=2 spines
        (2048, 64, 2, 64 + 32),  # k^2/2: the largest two-tier fat tree
        (2049, 64, 3, 2 * 65 + 33),
        (65536, 64, 3, 2 * 2048 + 1024),  # k^3/4: the full three-tier k-ary fat tree
        (65537, 64, 4, 3 * 2049 + 1025),
    ],
)
def test_tiers_and_switches(endpoints, radix, tiers, switches):
    bom = topology.bill_of_materials(np.array(float(endpoints)), np.array(float(radix)))
    assert bom["tiers"] == tiers
    assert bom["switches"] == switches
    assert bom["node_links"] == endpoints
    assert bom["switch_links"] == (tiers - 1) * endpoints
    assert bom["transceivers"] == 2 * bom["switch_links"]


def test_full_fat_tree_matches_al_fares():
    """A k-ary fat tree (k=48) has 5k^2/4 switches for k^3/4 hosts (Al-Fares et al. 2008)."""
    k = 48.0
    bom = topology.bill_of_materials(np.array(k**3 / 4), np.array(k))
    assert bom["tiers"] == 3
    assert bom["switches"] == 5 * k**2 / 4


def test_broadcasts_over_rows_and_fabrics():
    e = np.array([[10.0], [100.0], [5000.0]])
    k = np.array([[32.0, 64.0, 144.0]])
    bom = topology.bill_of_materials(e, k)
    assert bom["switches"].shape == (3, 3)
    assert np.all(np.diff(bom["switches"], axis=0) >= 0)  # more endpoints, never fewer switches
    assert np.all(np.diff(bom["switches"], axis=1) <= 0)  # bigger radix, never more switches
