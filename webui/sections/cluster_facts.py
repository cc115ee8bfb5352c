"""The 2026 cluster fields in words, for the PDF report and the deck alike: the scale-up domain, the
cooling, the PUE used, the site's rack power limit and the racks the cluster needs, as (label, value)
rows of the input table; the summary's one sentence on the scale-out share of a rack-scale cluster; the
deck's one line. Plain text: the PDF's HTML and the deck each escape or place it."""

from __future__ import annotations

from collections.abc import Mapping

from costmodel.catalog.formatting import format_number, format_share
from costmodel.pipeline.facility_checks import ClusterFacts
from costmodel.pipeline.results import Result
from webui.i18n.translator import Translator


def _kw(x: float) -> str:
    """A power in kW with at most one decimal: 45, 142, 132.5."""
    return f"{x:,.1f}".removesuffix(".0")


def domain_text(t: Translator, facts: ClusterFacts) -> str:
    """GPUs per scale-up domain [count] and what it is: "72 (18 servers × 4, rack-scale)", "8 (one server)"."""
    if facts.rack_scale:
        return t("cluster26.domain_racks", domain=format_number(facts.domain_gpus, 0),
                 servers=format_number(facts.domain_gpus // facts.gpus_per_node, 0),
                 g=format_number(facts.gpus_per_node, 0))
    return t("cluster26.domain_server", domain=format_number(facts.domain_gpus, 0))


def cooling_text(t: Translator, facts: ClusterFacts) -> str:
    """The cooling kind and whether it is built for the cluster (costed) or the site's own."""
    kind = t(f"opt.facility.cooling.{facts.cooling}")
    return t("cluster26.cooling_built" if facts.built else "cluster26.cooling_existing", kind=kind)


def pue_text(t: Translator, facts: ClusterFacts) -> str:
    """The PUE the model uses [ratio] and whether it follows the cooling or is set."""
    return t("cluster26.pue_follows" if facts.pue_follows_cooling else "cluster26.pue_set", pue=f"{facts.pue:.2f}")


def racks_text(t: Translator, facts: ClusterFacts) -> str:
    """Compute racks [count] with servers per rack."""
    return t("cluster26.racks_value", racks=format_number(facts.racks, 0),
             servers=format_number(facts.servers_per_rack, 0))


def rows(t: Translator, facts: ClusterFacts) -> list[tuple[str, str]]:
    """(label, value) of the input table: domain, cooling, PUE, rack power limit [kW], compute racks."""
    return [(t("field.cluster.scaleup_domain_gpus"), domain_text(t, facts)),
            (t("field.facility.cooling"), cooling_text(t, facts)),
            (t("field.facility.pue"), pue_text(t, facts)),
            (t("cluster26.rack_limit"), t("cluster26.kw", kw=_kw(facts.rack_power_limit_kw))),
            (t("cluster26.racks"), racks_text(t, facts))]


def scaleout_sentence(t: Translator, res: Result, facts: ClusterFacts, names: Mapping[str, str]) -> str:
    """One sentence for a rack-scale cluster: the scale-out share of a step on the fabric that loses the
    most and on the one that loses the least; empty when the domain is one server."""
    if not facts.rack_scale or not res.fabrics:
        return ""
    by_share = sorted(res.fabrics, key=lambda f: f.metrics["scaleout_share"])
    low, high = by_share[0], by_share[-1]
    domain = format_number(facts.domain_gpus, 0)
    if high.id == low.id:
        return t("cluster26.summary_one", domain=domain, share=format_share(high.metrics["scaleout_share"], 1),
                 fabric=names.get(high.id, high.id))
    return t("cluster26.summary", domain=domain, high=format_share(high.metrics["scaleout_share"], 1),
             high_fabric=names.get(high.id, high.id), low=format_share(low.metrics["scaleout_share"], 1),
             low_fabric=names.get(low.id, low.id))


def deck_line(t: Translator, facts: ClusterFacts) -> str:
    """The deck's line on the cluster: domain, cooling, PUE, rack limit and racks."""
    return t("cluster26.deck_line", domain=domain_text(t, facts), cooling=cooling_text(t, facts),
             pue=pue_text(t, facts), kw=_kw(facts.rack_power_limit_kw), racks=racks_text(t, facts))


__all__ = ["cooling_text", "deck_line", "domain_text", "pue_text", "racks_text", "rows", "scaleout_sentence"]
