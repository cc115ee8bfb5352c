"""The scenario's title as people see it: on page headers, the PDF cover and download file names.

A preset's own name is shown in the page's language; a scenario changed since it was loaded
from a preset says so ("… (modified)"), so a title never names numbers the page no longer shows.
"""

from __future__ import annotations

import re

import costmodel
from costmodel import locale_defaults

from . import share
from .i18n import Translator


def changed(scenario: costmodel.Scenario, preset_id: str) -> bool:
    """Whether ``scenario``'s inputs differ from the preset's as any language starts it (its English
    defaults, or China's in Chinese: :mod:`costmodel.locale_defaults`); its name alone does not count."""
    base = share.preset_scenario(preset_id)
    named = scenario.model_copy(update={"name": base.name})
    return all(named != start for start in locale_defaults.variants(base))


def scenario_title(scenario: costmodel.Scenario, preset_id: str, t: Translator) -> str:
    """The display title of ``scenario`` loaded from ``preset_id`` (``share.BLANK`` for none)."""
    if preset_id != share.BLANK:
        name = display_name(scenario, preset_id, t)
        return t("title.modified", name=name) if changed(scenario, preset_id) else name
    if scenario.name == costmodel.Scenario().name:
        name = t("title.untitled")
        return t("title.modified", name=name) if changed(scenario, preset_id) else name
    return scenario.name


def display_name(scenario: costmodel.Scenario, preset_id: str, t: Translator) -> str:
    """The scenario's own name as a name field shows it: a preset's name in the page's language
    while the scenario still carries the preset's (English) name, else the name as given."""
    if preset_id != share.BLANK and scenario.name == share.preset_scenario(preset_id).name:
        return t(f"preset.{preset_id}")
    if scenario.name == costmodel.Scenario().name:
        return t("title.untitled")
    return scenario.name


def file_stem(title: str, limit: int = 60) -> str:
    """A download file name stem from a title: letters (any script), digits, ``-`` and ``_`` only."""
    stem = re.sub(r"[^\w-]+", "-", title, flags=re.UNICODE).strip("-_")[:limit].strip("-_")
    return stem or "scenario"
