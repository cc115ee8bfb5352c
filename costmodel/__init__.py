"""Fabric TCO Planner's cost model: 5-year TCO of a GPU training cluster per network fabric.

Pure and vectorised (numpy); never imports streamlit or plotly. Public API::

    evaluate(scenario, catalog=None) -> Result   one scenario, all its fabrics
    sweep(scenario, nodes=array, catalog=None) -> DataFrame   one row per node count × fabric
    monte_carlo(scenario, draws, seed) -> MonteCarloResult
    tornado(scenario, fabric=None) -> DataFrame
    reliability.daly_interval(save_s, mtbf_s) -> seconds
    load_scenario(path, catalog=None) -> Scenario

``catalog``: a :class:`~costmodel.catalog.loader.Catalog` to compute with (``load_catalog(directory)``);
default the packaged one, read once on first use (importing the package reads no file).
"""

from costmodel.analysis.uncertainty import monte_carlo, tornado
from costmodel.api import evaluate, load_scenario, scenario_from_dict, sweep
from costmodel.errors import CatalogError, CostModelError, ScenarioError
from costmodel.money import finance
from costmodel.physics import performance, reliability, topology
from costmodel.scenario.presets import list_presets, load_preset
from costmodel.scenario.schema import Scenario

__all__ = [
    "CatalogError", "CostModelError", "Scenario", "ScenarioError", "evaluate", "finance",
    "list_presets", "load_preset", "load_scenario", "monte_carlo", "performance",
    "reliability", "scenario_from_dict", "sweep", "topology", "tornado",
]
