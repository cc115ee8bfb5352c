"""The brand of the customer-facing files: ``assets/brand.yaml`` (company name in English and Chinese,
contact, colours, legal footer, logo files) read safely and checked, a mistake named by its field.

The folder is the repository's ``assets/`` unless the environment variable ``FABRIC_TCO_ASSETS``
names another (a deployment mounts its own brand there). No Streamlit here.
"""

from __future__ import annotations

import functools
import os
from pathlib import Path

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

ENV = "FABRIC_TCO_ASSETS"
DEFAULT_DIR = Path(__file__).resolve().parents[2] / "assets"
HEX = r"^#[0-9A-Fa-f]{6}$"


class BrandError(ValueError):
    """A brand folder that cannot be used; the message names the file and the field."""


class Contact(BaseModel):
    model_config = ConfigDict(extra="forbid")
    email: str = Field(min_length=3, max_length=200, pattern=r"^[^@\s]+@[^@\s]+$")
    phone: str = Field(min_length=1, max_length=60)
    web: str = Field(min_length=1, max_length=200)


class Colors(BaseModel):
    """Hex colours ``#RRGGBB``: titles and bars (primary), the second series and rules (secondary),
    highlights such as the recommended fabric (accent)."""

    model_config = ConfigDict(extra="forbid")
    primary: str = Field(pattern=HEX)
    secondary: str = Field(pattern=HEX)
    accent: str = Field(pattern=HEX)


class Fonts(BaseModel):
    """The typefaces of the PDF: ``cjk`` (embedded for Chinese, from Debian's ``fonts-noto-cjk``, whose file
    ``cjk_file`` names; nothing is downloaded) and ``latin``; CSS family names."""

    model_config = ConfigDict(extra="forbid")
    cjk: str = Field(default="Noto Sans CJK SC", min_length=1, max_length=80, pattern=r"^[A-Za-z0-9 ._-]+$")
    cjk_file: str = Field(default="/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc", max_length=300)
    latin: str = Field(default="Noto Sans", min_length=1, max_length=80, pattern=r"^[A-Za-z0-9 ._-]+$")

    def css(self) -> str:
        """The CSS ``font-family`` list: the brand's fonts first, then Debian's fallbacks."""
        return ", ".join(f'"{f}"' for f in dict.fromkeys((self.cjk, self.latin, "Noto Sans CJK SC", "DejaVu Sans"))) \
            + ", sans-serif"


class Brand(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str = Field(min_length=1, max_length=120)
    name_zh: str = Field(min_length=1, max_length=120)
    contact: Contact
    colors: Colors
    footer: str = Field(min_length=1, max_length=400)
    footer_zh: str = Field(min_length=1, max_length=400)
    logo_svg: str
    logo_png: str
    fonts: Fonts = Fonts()  # optional in brand.yaml: a brand folder written before it still loads
    folder: Path = Path(".")  # where the files are (set by the loader, not written in brand.yaml)

    @field_validator("logo_svg", "logo_png")
    @classmethod
    def _plain_name(cls, v: str) -> str:
        if not v or Path(v).name != v:
            raise ValueError("a file name inside the brand folder, without a path")
        return v

    def company(self, lang: str) -> str:
        """The company's name in ``lang``."""
        return self.name_zh if lang == "zh" else self.name

    def legal(self, lang: str) -> str:
        """The legal footer in ``lang``."""
        return self.footer_zh if lang == "zh" else self.footer

    @property
    def logo_png_path(self) -> Path:
        return self.folder / self.logo_png

    @property
    def logo_svg_path(self) -> Path:
        return self.folder / self.logo_svg


def assets_dir() -> Path:
    """The brand folder: ``$FABRIC_TCO_ASSETS`` when set and not empty, else the repository's ``assets/``."""
    env = os.environ.get(ENV, "").strip()
    return Path(env) if env else DEFAULT_DIR


def load_brand(folder: Path | None = None) -> Brand:
    """The brand of ``folder`` (default :func:`assets_dir`), checked: every field present and well
    formed, the logo files there. Raises :class:`BrandError` naming the file and the field."""
    folder = Path(folder) if folder is not None else assets_dir()
    path = folder / "brand.yaml"
    try:
        doc = yaml.load(path.read_text(encoding="utf-8"), Loader=yaml.CSafeLoader)
    except OSError as exc:
        raise BrandError(f"{path}: cannot read ({exc.strerror or exc})") from exc
    except yaml.YAMLError as exc:
        raise BrandError(f"{path}: not YAML ({exc})") from exc
    if not isinstance(doc, dict):
        raise BrandError(f"{path}: a mapping of fields expected")
    try:
        brand = Brand.model_validate({**doc, "folder": folder})
    except ValidationError as exc:
        err = exc.errors()[0]
        field = ".".join(str(p) for p in err["loc"]) or "?"
        raise BrandError(f"{path}: field {field!r}: {err['msg']}") from exc
    for key in ("logo_svg", "logo_png"):
        if not (folder / getattr(brand, key)).is_file():
            raise BrandError(f"{path}: field {key!r}: no file {getattr(brand, key)!r} in {folder}")
    return brand


@functools.lru_cache(maxsize=4)
def _cached(folder: str) -> Brand:
    return load_brand(Path(folder))


def brand() -> Brand:
    """The brand in force (cached per folder, so a changed ``$FABRIC_TCO_ASSETS`` takes effect)."""
    return _cached(str(assets_dir()))


def brand_or_default() -> Brand:
    """The brand in force, or the shipped one when the mounted folder is broken (the app still runs; the
    server's start-up check, ``--theme-flags``, has already named the mistake)."""
    try:
        return brand()
    except BrandError:
        return _cached(str(DEFAULT_DIR))


#: Streamlit's theme options (``.streamlit/config.toml`` ``[theme]``) and the brand colour each takes
THEME = {"theme.primaryColor": "primary", "theme.linkColor": "primary"}


def theme_flags(the_brand: Brand) -> list[str]:
    """``streamlit run`` flags giving the app the brand's colours (hex values: no spaces, no quoting)."""
    return [f"--{option}={getattr(the_brand.colors, colour)}" for option, colour in THEME.items()]


def main(argv: list[str] | None = None) -> int:
    """``python -m webui.reports.brand --theme-flags``: the theme flags of the brand in force, for the
    start script; a broken brand folder exits 2 with the field named (the server does not start)."""
    import sys

    args = sys.argv[1:] if argv is None else argv
    if args != ["--theme-flags"]:
        print("usage: python -m webui.reports.brand --theme-flags", file=sys.stderr)
        return 2
    try:
        print(" ".join(theme_flags(brand())))
    except BrandError as exc:
        print(f"brand: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
