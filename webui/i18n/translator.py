"""Translations (zh-CN / English) from YAML catalogs, and locale-aware number formats.

Catalogs live in ``webui/i18n/locales/{en,zh}.yaml`` as nested mappings, plus one file per area in
``webui/i18n/locales/{en,zh}/*.yaml`` (merged; a key defined twice is an error); keys are dotted paths
(``compare.title``). A key missing in Chinese falls back to English; a key missing in English
shows itself, so a gap is visible (and a test lists every key used by the pages).
"""

from __future__ import annotations

import functools
from pathlib import Path

import yaml

from costmodel.catalog.formatting import format_number

LOCALES_DIR = Path(__file__).parent / "locales"
LANGUAGES = ("en", "zh")
DEFAULT_LANGUAGE = "en"


def _flatten(tree: dict, prefix: str = "") -> dict[str, str]:
    out: dict[str, str] = {}
    for key, value in tree.items():
        path = f"{prefix}{key}"
        if isinstance(value, dict):
            out.update(_flatten(value, path + "."))
        else:
            out[path] = str(value)
    return out


@functools.cache
def catalog(lang: str) -> dict[str, str]:
    """All texts of one language, flattened to dotted keys (the main file and its area files)."""
    files = [LOCALES_DIR / f"{lang}.yaml", *sorted((LOCALES_DIR / lang).glob("*.yaml"))]
    out: dict[str, str] = {}
    for path in files:
        if not path.exists():
            continue
        with path.open(encoding="utf-8") as fh:
            texts = _flatten(yaml.load(fh, Loader=yaml.CSafeLoader) or {})
        twice = sorted(out.keys() & texts.keys())
        if twice:
            raise ValueError(f"{path.name}: keys already defined in another {lang} locale file: {twice[:5]}")
        out.update(texts)
    return out


def language_from_locale(locale: str | None) -> str:
    """Pick zh for any Chinese browser locale (zh, zh-CN, zh-TW …), else English."""
    return "zh" if (locale or "").lower().startswith("zh") else DEFAULT_LANGUAGE


class Translator:
    """``t(key, **values)``: the text of ``key`` in one language, with ``{placeholders}`` filled."""

    def __init__(self, lang: str):
        self.lang = lang if lang in LANGUAGES else DEFAULT_LANGUAGE
        self._texts = catalog(self.lang)
        self._fallback = catalog(DEFAULT_LANGUAGE)

    def __call__(self, key: str, **values) -> str:
        text = self._texts.get(key) or self._fallback.get(key) or key
        return text.format(**values) if values else text

    def has(self, key: str) -> bool:
        return key in self._texts or key in self._fallback

    def get(self, key: str, default: str | None = None) -> str:
        """Like ``__call__`` but returns ``default`` (or the key) when the key is unknown."""
        return self(key) if self.has(key) else (key if default is None else default)


def fmt_number(value: float | None, digits: int = 0) -> str:
    """``1,234.5`` style, or an em dash for missing values (the model's own formatter)."""
    return format_number(value, digits)
