"""The mixture-of-experts inputs on the Cluster page: node-limited routing reaches the model."""

from __future__ import annotations

from apptest_helpers import go, open_page

import costmodel
from webui.i18n.money import Money, default_rate

STEPS = (("w.workload.experts", 64), ("w.workload.expert_parallel", 64), ("w.workload.a2a_overlap", 1.0))


def _scenario(max_nodes):
    data = costmodel.load_preset("seed-intro-32xA100").model_dump()
    data["workload"].update(experts=64, expert_parallel=64, a2a_overlap=1.0, moe_node_dedup=True,
                            moe_max_nodes=max_nodes)
    return costmodel.Scenario.model_validate(data)


def _tco(scenario) -> list[str]:
    res = costmodel.evaluate(scenario)
    money = Money(res.currency, "USD", default_rate(res.currency, "USD"))
    return [money.short(f.tco_total) for f in res.fabrics]


def test_the_node_limit_is_typed_on_the_cluster_page_and_moves_the_model():
    at = open_page("cluster", cur="USD")
    assert not [n for n in at.number_input if n.key and "moe_max_nodes" in n.key]  # dense: not shown
    for key, value in STEPS:
        at.number_input(key=key).set_value(value).run()
        assert not at.exception, [e.message for e in at.exception]
    at.toggle(key="w.workload.moe_node_dedup").set_value(True).run()
    box = at.number_input(key="w.workload.moe_max_nodes")
    assert box.value is None  # empty: no limit
    box.set_value(1).run()
    assert not at.exception, [e.message for e in at.exception]
    go(at, "compare")
    shown = [m.value for m in at.metric if m.label.startswith("TCO")]
    assert shown == _tco(_scenario(1))
    assert _tco(_scenario(1)) != _tco(_scenario(None))  # the limit moves the numbers
