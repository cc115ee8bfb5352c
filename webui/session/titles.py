"""The scenario's title as people see it: on page headers, the PDF cover, the files and their names.

A name of the user's own stays; a preset unchanged is titled by the preset's name in the page's
language; anything else by a name made from what it is ("64 × H100 · 500 亿参数 · 训练"), so a title
never names numbers the page no longer shows (:mod:`costmodel.scenario.titles`, shared with both command lines).
"""

from __future__ import annotations

import re

import costmodel
from costmodel.scenario import locale_defaults
from costmodel.scenario import titles as model_titles
from webui.i18n.translator import Translator
from webui.session import share


def changed(scenario: costmodel.Scenario, preset_id: str) -> bool:
    """Whether ``scenario``'s inputs differ from the preset's as any language starts it (its English
    defaults, or China's in Chinese: :mod:`costmodel.scenario.locale_defaults`); its name alone does not count."""
    base = share.preset_scenario(preset_id)
    named = scenario.model_copy(update={"name": base.name})
    return all(named != start for start in locale_defaults.variants(base))


def scenario_title(scenario: costmodel.Scenario, preset_id: str, t: Translator) -> str:
    """The display title of ``scenario`` loaded from ``preset_id`` (``share.BLANK`` for none)."""
    if model_titles.automatic(scenario.name) and model_titles.is_preset(scenario, preset_id):
        return t(f"preset.{preset_id}")
    return model_titles.title(scenario, t.lang)


def display_name(scenario: costmodel.Scenario, preset_id: str, t: Translator) -> str:
    """The name stored in the scenario, as a notice about an opened file or link names it: a preset's
    name in the page's language while the scenario still carries the preset's (English) name, else
    the name as given ("untitled" for the default). Titles use :func:`scenario_title`."""
    if preset_id != share.BLANK and scenario.name == share.preset_scenario(preset_id).name:
        return t(f"preset.{preset_id}")
    if scenario.name == costmodel.Scenario().name:
        return t("title.untitled")
    return scenario.name


def made_name(scenario: costmodel.Scenario, t: Translator) -> str:
    """The name made from what the scenario is, in the page's language (a cleared name field's placeholder)."""
    return model_titles.made_name(scenario, t.lang)


def file_stem(title: str, limit: int = 60) -> str:
    """A download file name stem from a title: letters (any script), digits, ``-`` and ``_`` only."""
    stem = re.sub(r"[^\w-]+", "-", title, flags=re.UNICODE).strip("-_")[:limit].strip("-_")
    return stem or "scenario"
