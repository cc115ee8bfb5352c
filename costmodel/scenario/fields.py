"""What every part of a scenario shares: strict validation, catalog ids, plain text, and defaults and
bounds that come from the catalog and the registry of quantities, never from literals."""

from __future__ import annotations

import unicodedata
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, create_model
from pydantic.fields import FieldInfo

from costmodel import quantities
from costmodel.catalog.loader import load_catalog
from costmodel.errors import FieldError

# strict: no silent coercion of "64", true or 1.0 into numbers, booleans or integers.
STRICT = ConfigDict(extra="forbid", allow_inf_nan=False, validate_default=True, frozen=True, strict=True)
CatalogId = Annotated[str, Field(min_length=1, max_length=64, pattern=r"^[a-z0-9][a-z0-9_-]*$")]


def catalog_default(group: str, name: str, kind: type = float):
    """Default factory: the packaged catalog's typical ``group.name`` as ``kind`` (read on first use)."""
    return lambda: kind(load_catalog().default(group, name))


def blank_default(key: str):
    """Default factory: ``key`` of the packaged catalog's blank scenario (read on first use)."""
    return lambda: load_catalog().blank_scenario[key]


def bounds(path: str) -> dict[str, float]:
    """The bounds of a scenario field, from the registry (data/quantities.yaml)."""
    return quantities.field(path)


def plain_text(value: str, where: str) -> str:
    """``value`` when it is plain, non-blank text; else :class:`~costmodel.errors.FieldError` naming ``where``."""
    if any(unicodedata.category(ch) in ("Cc", "Cf", "Cs", "Zl", "Zp") for ch in value):
        raise FieldError(where, "contains control, line-break or invisible formatting characters; use plain text",
                         "control_characters")
    if not value.strip():
        raise FieldError(where, "must not be blank", "blank")
    return value


def _numbers(section: str) -> dict[str, tuple[object, FieldInfo]]:
    """The numeric fields of a scenario section as the registry declares them: ``int`` for an integer
    quantity, else ``float``; ``None`` allowed (and the default) when it may be empty, else the
    packaged catalog's typical value; its bounds and description."""
    out: dict[str, tuple[object, FieldInfo]] = {}
    for spec in quantities.section(section):
        kind = int if spec.integer else float
        limits = {**spec.field_kwargs(), "description": spec.description}
        out[spec.name] = ((kind | None, Field(None, **limits)) if spec.empty
                          else (kind, Field(default_factory=catalog_default(section, spec.name, kind), **limits)))
    return out


def section_model(choices: type[BaseModel], section: str, doc: str, module: str) -> type[BaseModel]:
    """A scenario section (class of ``module``): its non-numeric fields (``choices``) and its numbers
    from the registry."""
    return create_model(section.capitalize(), __base__=choices, __module__=module, __doc__=doc,
                        **_numbers(section))
