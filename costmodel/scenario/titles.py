"""A scenario's title: a name of its own, a preset's title while it is that preset, else a name made
from what it is ("64 × H100 · 50 B parameters · training"), in English or Chinese.

A name counts as the user's own unless the app wrote it: the schema's default ("Untitled scenario",
what a cleared name field leaves), a preset's name or title, or a made name (a saved scenario keeps
the made name of the day it was saved; changed later, it is titled afresh). Texts in
``data/titles.yaml``. Pure: no Streamlit, no webui.
"""

from __future__ import annotations

import functools
import re

import yaml

from costmodel.catalog.loader import DATA_DIR, Catalog, load_catalog
from costmodel.scenario import locale_defaults
from costmodel.scenario.presets import get_preset, list_presets, load_preset
from costmodel.scenario.schema import Scenario

LANGUAGES = ("en", "zh")
# the size units of a model, in billions of parameters: (at least, per unit, text key)
_SIZE_UNITS = {
    "en": ((1000.0, 1000.0, "params_large"), (1.0, 1.0, "params_mid"), (0.0, 0.001, "params_small")),
    "zh": ((1000.0, 1000.0, "params_large"), (0.1, 0.1, "params_mid"), (0.0, 1e-5, "params_small")),
}


@functools.cache
def texts(lang: str) -> dict[str, str]:
    """The title texts of ``lang`` (``en`` or ``zh``)."""
    if lang not in LANGUAGES:
        raise ValueError(f"lang must be one of {', '.join(LANGUAGES)} (got {lang!r})")
    return yaml.load((DATA_DIR / "titles.yaml").read_text(encoding="utf-8"), Loader=yaml.CSafeLoader)[lang]


def _plain(value: float) -> str:
    """``value`` to 4 significant digits, plain notation, no trailing zeros: 500, 1.5, 1750, 0.35."""
    return f"{float(f'{value:.4g}'):f}".rstrip("0").rstrip(".")


def model_size(params_b: float, lang: str) -> str:
    """A model size in words: ``50 B parameters`` / ``500 亿参数`` (``params_b`` in billions)."""
    for least, unit, key in _SIZE_UNITS[lang]:
        if params_b >= least:
            return texts(lang)[key].format(n=_plain(params_b / unit))
    raise AssertionError("unreachable")


@functools.cache
def gpu_short_names() -> dict[str, str]:
    """Each catalog GPU's short name: its model ("H100"), with its memory where two GPUs share a model."""
    words = {gid: g.name.removeprefix("NVIDIA ").split() for gid, g in load_catalog().gpus.items()}
    models = [w[0] for w in words.values()]
    return {gid: " ".join(w[:3]) if models.count(w[0]) > 1 else w[0] for gid, w in words.items()}


def gpus_per_node(scenario: Scenario, catalog: Catalog | None = None) -> int:
    """GPUs per node as the model uses them: the scenario's, else the GPU's default [count]."""
    cat = catalog or load_catalog()
    return int(scenario.cluster.gpus_per_node or cat.gpus[scenario.cluster.gpu].default_gpus_per_node.typical)


def made_name(scenario: Scenario, lang: str) -> str:
    """The name made from what ``scenario`` is: nodes × GPU · model size · training."""
    tx = texts(lang)
    gpu = gpu_short_names().get(scenario.cluster.gpu, scenario.cluster.gpu)
    return tx["made"].format(nodes=f"{scenario.cluster.nodes:,}", gpu=gpu,
                             model=model_size(scenario.workload.model_params_b, lang), work=tx["work"])


def setup_line(scenario: Scenario, lang: str) -> str:
    """The cluster and the model in one line: nodes × GPUs per node, the GPU's full name, GPUs in all, model size."""
    cat = load_catalog()
    g = gpus_per_node(scenario, cat)
    n = scenario.cluster.nodes
    return texts(lang)["setup"].format(nodes=f"{n:,}", gpus=g, gpu_name=cat.gpus[scenario.cluster.gpu].name,
                                       total=f"{n * g:,}", model=model_size(scenario.workload.model_params_b, lang))


@functools.cache
def _made_form() -> re.Pattern:
    works = "|".join(re.escape(texts(lang)["work"]) for lang in LANGUAGES)
    return re.compile(rf"[\d,]+ × .+ · .+ · (?:{works})")


@functools.cache
def _app_names() -> frozenset[str]:
    names = {Scenario.model_fields["name"].default}
    for pid in list_presets():
        p = get_preset(pid)
        names |= {p.title, p.title_zh, p.scenario.name}
    return frozenset(names)


def automatic(name: str) -> bool:
    """Whether ``name`` was written by the app (default, a preset's, a made name), not typed by a user."""
    return name in _app_names() or _made_form().fullmatch(name) is not None


def is_preset(scenario: Scenario, preset_id: str | None) -> bool:
    """Whether ``scenario`` is preset ``preset_id`` exactly, its name included, as any language starts
    it (its English defaults, or China's in Chinese: :mod:`costmodel.scenario.locale_defaults`)."""
    if preset_id not in list_presets():
        return False
    return any(scenario == start for start in locale_defaults.variants(load_preset(preset_id)))


def title(scenario: Scenario, lang: str, preset_id: str | None = None) -> str:
    """The scenario's title in ``lang``: its own name; the preset's title while it is that preset
    unchanged; else its made name (a cleared name never brings the preset's back)."""
    if not automatic(scenario.name):
        return scenario.name
    if is_preset(scenario, preset_id):
        preset = get_preset(preset_id)
        return preset.title_zh if lang == "zh" and preset.title_zh else preset.title
    return made_name(scenario, lang)
