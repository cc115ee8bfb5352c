"""The Latin-script words a Chinese page may show (an allow-list with reasons), shared by the
browser walk (tests/e2e/test_chinese.py) and the AppTest checks (tests/app/test_chinese.py)."""

from __future__ import annotations

import re

#: Latin-script words a Chinese page may show, each group with its reason. Single letters are not
#: checked at all: they are the equations' variables (T, N, P …) and unit symbols (W, B, s, G).
ALLOWED = frozenset({
    # units and unit prefixes as Chinese technical writing keeps them
    "GB", "Gb", "GbE", "Gbps", "KiB", "MB", "kW", "kWh", "TFLOP", "MTU",
    # currency codes (the currency picker, the exchange rate)
    "CNY", "USD", "EUR",
    # products, protocols and standards, written the same in Chinese
    "TCP", "IP", "RoCE", "RoCEv2", "iWARP", "InfiniBand", "HDR", "NDR", "XDR", "RDMA", "NCCL", "NVIDIA", "DGX",
    "SXM", "HGX", "PCIe", "NVLink", "BF16", "TDP", "GPU", "CPU", "MFU", "PUE", "TCO", "NPV", "FSDP", "ZeRO", "UTF",
    "A10", "A30", "A100", "H100", "H200", "B200", "JSON", "PDF", "CSV", "Excel", "LibreOffice", "Llama", "token",
    # cited authors (a method's name: "Daly 2006", "Cai 等 2021")
    "Daly", "Cai",
    # Monte Carlo percentiles as statisticians write them
    "P10", "P50", "P90",
    # the language switch names English in English
    "English",
    # operators inside the equations
    "min", "max", "log", "log2",
    # paper size of the PDF report
    "A4",
})
LATIN_WORD = re.compile(r"[A-Za-z][A-Za-z0-9]*")
DOC_PATH = re.compile(r"\bdocs/[\w/.-]+\.md\b")  # a documentation file's name is a name
#: An amount with a Latin unit letter (¥52.78 M, −$850 k, 20M on an axis): Chinese counts in 万 / 亿.
LATIN_AMOUNT = re.compile(r"[¥$€]?\d[\d,.]*\s?[kMB](?![A-Za-z0-9/])")  # not G: "100G 以太网" is a product


def latin_words(text: str, also: frozenset[str] | set[str] = frozenset()) -> set[str]:
    """Latin-script words of ``text`` that a Chinese page may not show (HTML tags stripped).

    Single letters pass (variables, unit symbols), except as the unit of an amount (``¥52.78 M``).

    >>> sorted(latin_words("每节点 100 Gb/s，InfiniBand NDR · Monte Carlo · 2.499e+04 · ¥5,278 万 · docs/model.md"))
    ['Carlo', 'Monte']
    >>> sorted(latin_words("¥52.78 M · −$850 k · 20M · 50 B 参数 · 100 GB/s · 8 B/s"))
    ['$850 k', '20M', '50 B', '¥52.78 M']
    """
    text = DOC_PATH.sub(" ", re.sub(r"<[^>]+>", " ", str(text)))
    words = {w for w in LATIN_WORD.findall(text) if len(w) > 1 and w not in ALLOWED and w not in also}
    return words | set(LATIN_AMOUNT.findall(text))
