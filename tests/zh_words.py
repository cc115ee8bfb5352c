"""The Latin-script words a Chinese page may show (an allow-list with reasons), shared by the
browser walk (tests/e2e/test_chinese_browser.py) and the AppTest checks (tests/app/test_chinese.py)."""

from __future__ import annotations

import re

#: Latin-script words a Chinese page may show, each group with its reason. Single letters are not
#: checked at all: they are the equations' variables (T, N, P …) and unit symbols (W, B, s, G).
ALLOWED = frozenset({
    # units and unit prefixes as Chinese technical writing keeps them
    "GB", "Gb", "GbE", "Gbps", "KiB", "MB", "kW", "kWh", "TFLOP", "MTU", "GT",
    # currency codes (the currency picker, the exchange rate)
    "CNY", "USD", "EUR",
    # products, protocols and standards, written the same in Chinese
    "TCP", "IP", "RoCE", "RoCEv2", "iWARP", "InfiniBand", "HDR", "NDR", "XDR", "RDMA", "NCCL", "NVIDIA", "DGX",
    "SXM", "HGX", "PCIe", "NVLink", "SM", "BF16", "FP8", "FP4", "TDP", "GPU", "CPU", "MFU", "HFU", "PUE", "TCO",
    "NPV", "FSDP", "ZeRO", "UTF",
    "A10", "A30", "A100", "H100", "H200", "B200", "JSON", "PDF", "CSV", "Excel", "LibreOffice", "Llama", "token",
    "PowerPoint", "SuperPOD",  # the deck's format; NVIDIA's reference cluster the bill's note names
    # the 2026 parts of the GPU list, as their makers name them
    "H800", "H20", "B300", "AMD", "Instinct", "MI300X", "MI355X", "OAM", "CDNA",
    "MW", "CDU", "GB200", "GB300", "NVL72",  # the facility: megawatts, coolant distribution units, liquid-only racks
    # training tools and models named as their papers name them (the Method page's bandwidth sensitivity)
    "Calculon", "Megatron", "GPT", "DeepSeek", "DualPipe", "MT", "NLG",  # MT-NLG, the model Smith et al. named
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
    # the rack-scale and China-market parts and the 2026 fabrics, as their makers name them
    "Grace", "Blackwell", "FP6", "NVSwitch", "Huawei", "Ascend", "Atlas", "A2",
    "CloudMatrix", "NPU", "HCCS", "UB", "UEC", "Pollara", "LPO", "CPO", "NIC", "GHz", "MHz", "TbE",
    # the served models of the Serving page, as their makers name them (Llama 3.1 70B, DeepSeek-V3 / R1, Qwen3)
    "70B", "R1", "V3", "Qwen3", "235B", "A22B",
})
#: Names the Chinese source descriptions (``title_zh`` in costmodel/data/references.yaml) quote verbatim,
#: as Chinese citations do: paper, report and journal titles, authors, venues, products, file paths and
#: code identifiers. Each is removed as a whole phrase before the word check, so a title's words pass
#: only inside the exact title ("Scaling Laws for Neural Language Models"), never one by one: a
#: descriptive phrase left in English still fails. Every entry must occur in both the English ``title``
#: and the ``title_zh`` of one reference (tests/unit/test_reference_titles.py), so this list cannot
#: allow anything the bibliography does not cite.
CITED = (
    "DeepSeek-V3 Technical Report", "Mixtral of Experts", "DeepSeek-AI", "DeepSeek-V3", "DeepEP", "Qwen3-235B-A22B",
    "Megatron-Core", "Jiang", "H800", "High-speed Networking for Giga-Scale AI Factories", "Khashab",
    # China-market prices (costmodel/data/cn_market.yaml): China's own products and a cited guide
    "H20", "China Briefing",
    # paper, report, journal and organisation titles
    "The Llama 3 Herd of Models", "Llama 2: Open Foundation and Fine-Tuned Chat Models",
    "A higher order estimate of the optimum checkpoint interval for restart dumps",
    "Future Generation Computer Systems", "A first order approximation to the optimum checkpoint interval",
    "Commun. ACM", "Training Compute-Optimal Large Language Models", "Scaling Laws for Neural Language Models",
    "Reducing Activation Recomputation in Large Transformer Models",
    "ZeRO: Memory Optimizations Toward Training Trillion Parameter Models",
    "Efficient Large-Scale Language Model Training on GPU Clusters Using Megatron-LM",
    "Calculon: a methodology and tool for high-level co-design of systems and large language models",
    "The macroscopic behavior of the TCP congestion avoidance algorithm", "RDMA over Commodity Ethernet at Scale",
    "Pingmesh: A Large-Scale System for Data Center Network Latency Measurement and Analysis",
    "Understanding Host Network Stack Overheads", "Building Meta's GenAI Infrastructure",
    "InfiniBand Trade Association", "InfiniBand Architecture Specification", "Electric Power Monthly",
    "Uptime Institute Global Data Center Survey", "Chelsio T6 Unified Wire", "PyTorch DistributedDataParallel",
    # authors, venues, identifiers of publications
    "Dubey", "Young", "Touvron", "Hoffmann", "Kaplan", "Korthikanti", "Rajbhandari", "Narayanan", "Isaev",
    "Mathis", "Semke", "Mahdavi", "Ott", "Guo", "arXiv", "SC20", "SC21", "SC23", "SIGCOMM", "CCR", "IEEE",
    "doi:10.1016/j.future.2004.11.016", "doi:10.1145/361147.361115",
    # organisations, products, tools and their terms
    "Meta", "AWS", "EIA", "ECB", "PBoC", "Chinchilla", "V100", "IB", "ConnectX", "Quantum", "Spectrum",
    "QM8700", "QM9700", "Q3400", "X800", "SN2700", "SN3700", "SN4700", "Broadcom", "Tomahawk", "Arista",
    "Edgecore", "Intel", "E810", "T62100", "GBASE", "nccl-tests", "linux-rdma", "perftest", "netperf", "Simple",
    "algbw", "busbw", "aRFS", "PFC", "DCQCN", "MSS", "RTT", "sqrt", "FLOPs", "TFLOPS", "MiB", "GenAI", "AI",
    # rail-optimised topology and link media
    "DGX SuperPOD Reference Architecture", "Network Fabrics", "RA-11333-001", "B300",
    "Cable Management Guidelines and FAQ", "DAC", "AOC",
    "Interconnect Structured Cabling Requirements for InfiniBand NDR/XDR and 400/800G ETH Solutions",
    "MPO", "OM4", "LC", "LinkX", "MCP7Y00", "MCA7J70", "MCA7J60", "SR4", "MMA4Z00-NS400", "OSFP", "MMS4X00-NS",
    "Luxoptx", "From 100G to 400G/800G: Network Evolution's Transformative Impact on AI Cluster Economics",
    "QSFP28", "SN5000 Switch Systems User Manual", "Data Interfaces", "SN5600", "Tb", "ByteDance", "MegaScale",
    "NSDI", "mellanox/mlxsw", "wiki", "Release notes", "SN3800", "SN4600C",
    # congestion at scale and in-network reduction
    "RDMA over Ethernet for Distributed AI Training at Meta Scale", "Gangidi", "ECMP", "Spectrum-X", "Hot Chips",
    "Exploring GPU-to-GPU Communication: Insights into Supercomputer Interconnects", "De Sensi", "SC24",
    "Dragonfly+", "NVIDIA SHARP Rev 3.13.0 General Information", "NCCL-RDMA-SHARP Plugins", "HPC-X", "SHARP",
    "SHARPv3", "NCCL_COLLNET_ENABLE", "HCA", "Khashab", "High-speed Networking for Giga-Scale AI Factories",
    # reliability by fabric
    "Singh", "Mukhtar", "Krishna", "Parkhi", "Padhye", "Maltz", "Surviving switch failures in cloud datacenters",
    "ACM", "LuxOptX", "DFB", "DSP", "FIT", "MegaScale: Scaling Large Language Model Training to More Than 10,000 GPUs",
    "FlashRecovery: Fast and Low-Cost Recovery from Failures for Large-Scale Training of LLMs",
    "Wan", "Robust LLM Training Infrastructure at ByteDance", "ByteRobust", "SOSP", "PyTorch",
    "torch.distributed.init_process_group",
    # bill of materials prices
    "800G Optical Module Cost Analysis: TCO Optimization for AI Data Centers", "OSFP-DR8", "QSFP-DD", "MPO-16",
    "tech-talk-cto", "H100 Freakonomics", "HGX", "Thinkmate", "FS.com", "Cisco Smart Net Total Care",
    "visualfoodie.com", "excitingip.com",
    # server prices checked: products and the reseller quoted
    "Xeon", "BlueField", "Broadberry", "OEM", "TB", "Megatron-LM", "DeepSpeed",
    # file paths and code identifiers
    "calculon-ai/calculon", "c02c5e90", "a100_80g", "gpt3-175B",
    "doc/PERFORMANCE.md", "src/graph/tuning.cc", "calculon/llm/llm.py", "shared/seeds/000_2724ac920a2469df.txt",
    "all_reduce_perf", "bucket_cap_mb", "ib_write_lat", "ib_send_lat", "TCP_RR", "n_layer", "d_model",
    # the all-to-all calibration slot
    "alltoall_perf", "src/alltoall.cu",
    # own vs rent: GPU clouds and the collections their rental prices were read from
    "Azure", "RunPod", "data-receipts", "dstack", "Inworld", "Lambda", "api-evangelist", "compute-screener",
    "Akash", "Hyperstack", "OpenRelay", "Nebius", "CoreWeave", "Civo", "Digiteria Labs",
    # economics validation: the published cost figures' authors, titles and publishers
    "Cottier", "Rahman", "Fattorini", "Maslej", "Besiroglu", "Owen", "Epoch AI", "Gemini",
    "The rising costs of training frontier AI models", "Cheah", "H100 Freakonomics", "Latent Space",
    "$2 H100s: How the GPU Rental Bubble Burst", "AIMultiple", "Cloud GPU Rental Price Index",
    "SemiAnalysis", "Tech Reader Daily", "Yobitel", "Quantum-2", "training-cost-trends",
    "CLUSTER_INTERCONNECT_COST_FRACTION",
    # the host PCIe link of a NIC: the specification, the paper and the model of its overheads
    "PCI-SIG", "PCI Express Base Specification", "Neugebauer", "Understanding PCIe performance for end host networking",
    "pcie-bench/pcie-model", "mem_bw.write",
    # training precision and the memory of a layout
    "FP8-LM: Training FP8 Large Language Models", "Peng", "Transformer Engine", "te.Linear", "is_first_microbatch",
    "GPT-175B", "GPT-3 175B", "MT-NLG 530B", "nvidia-smi", "HBM3", "HBM", "GiB",
    # optics counted per module: the modules and the 12.8 T switches cited
    "MMA4Z00-NS", "QSFP112", "MPO-12/APC", "PAM4", "RHS", "IP Infusion", "Trident", "AS9726-32DB", "UfiSpace",
    "S9300-32D", "host360", "runlocalai",
    # the kernel efficiency by matrix shape: kernel benchmarks, their authors and papers
    "Bekman", "Machine Learning Engineering", "compute/accelerator", "compute/accelerator/benchmarks",
    "mamf-finder.py", "Anthony", "arXiv:2401.14489", "MAMF", "MSMF", "A100 PCIe", "H100/H200", "BF16",
    "FlashAttention-2: Faster Attention with Better Parallelism and Work Partitioning", "Dao",
    "FlashAttention-3: Fast and Accurate Attention with Asynchrony and Low-precision", "Shah",
    "Using DeepSpeed and Megatron to Train Megatron-Turing NLG 530B, a Large-Scale Generative Language Model",
    "Smith", "Matrix Multiplication Background User's Guide", "DU-09799-001", "cuBLAS", "SM",
    # the 2026 parts: datasheet terms, benchmarks, the press and the clouds their figures come from
    "Infinity Fabric", "Gen5", "Gen6", "ROCm", "MI325X", "GH100", "Geekbench", "INT8", "TOPS", "FP16", "FP64",
    "Hopper", "Blackwell Ultra", "PFLOPS", "Cliff Center", "Oracle", "TensorWave", "IT", "x16", "MXFP4", "Kedios",
    "Inside NVIDIA Blackwell Ultra", "NVFP4", "HBM3E", "Lockwood",
    # inference serving: the serving engine's settings, the number format and the models' configurations
    "vLLM", "gpu_memory_utilization", "kv_cache_dtype", "fp8", "FP8", "KV", "E2M1", "E4M3",
    "Introducing NVFP4 for Efficient and Accurate Low-Precision Inference", "Hugging Face", "config.json",
    "meta-llama/Llama-3.1-70B", "deepseek-ai/DeepSeek-V3", "Qwen/Qwen3-235B-A22B", "MLA", "kv_lora_rank",
    "DeepSeek-V3/R1 Inference System Overview", "open-infra-index", "EP32", "EP144", "EP72", "RTP-LLM",
    "DeepSeek Replay Tech Report", "SGLang", "LMSYS",
    "MLCommons", "Llama 2 70B: an MLPerf Inference benchmark for large language models",
    "Deploying DeepSeek with PD Disaggregation and Large-scale Expert Parallelism on 96 H100 GPUs",
    # the scale-up domain: rack-scale systems and the paper they are cited from
    "GB200", "NVL72", "Blackwell", "Grace", "CloudMatrix384",
    "CloudMatrix", "UB", "Serving Large Language Models on Huawei CloudMatrix384",
    # the facility's sources (data/cooling.yaml)
    "STL Partners", "The retrofitting roadmap: an evolution of liquid cooling", "Heydari", "Vertiv", "ASME InterPACK",
    "Power Usage Effectiveness Analysis of a High-Density Air-Liquid Hybrid Cooled Data Center",
    # the rack-scale, China-market and 2026 fabric sources: papers, authors, products and pages quoted
    "Serving Large Language Models on Huawei CloudMatrix384", "Zuo", "Huawei AI CloudMatrix 384", "910B",
    "Gitee", "Ascend910B2C.ini", "CANN", "BCM78910", "SerDes", "Spectrum-X Photonics", "Quantum-X Photonics",
    "SN6810", "SN6800", "Q3450", "Pensando", "P4", "MSA", "CloudEngine XH9230", "H3C S9827", "RG-S6990", "ECN",
    "awesomeagents", "kshirol-dev", "Enterprise Reference Architecture", "HBM2e", "HBM3e",
    # the 2025-26 training runs: NVIDIA's benchmark tables and the models and formats they name
    "Megatron Bridge", "NeMo", "MXFP8", "Llama 3 70B", "Llama 3.1 405B",
)
_CITED = re.compile("|".join(rf"(?<![A-Za-z]){re.escape(c)}(?![A-Za-z])" for c in sorted(CITED, key=len, reverse=True)))
LATIN_WORD = re.compile(r"[A-Za-z][A-Za-z0-9]*")
#: An amount with a Latin unit letter (¥52.78 M, −$850 k, 20M on an axis): Chinese counts in 万 / 亿.
LATIN_AMOUNT = re.compile(r"[¥$€]?\d[\d,.]*\s?[kMB](?![A-Za-z0-9/])")  # not G: "100G 以太网" is a product


def latin_words(text: str, also: frozenset[str] | set[str] = frozenset()) -> set[str]:
    """Latin-script words of ``text`` that a Chinese page may not show (HTML tags stripped).

    Single letters pass (variables, unit symbols), except as the unit of an amount (``¥52.78 M``).

    >>> sorted(latin_words("每节点 100 Gb/s，InfiniBand NDR · Monte Carlo · 2.499e+04 · ¥5,278 万"))
    ['Carlo', 'Monte']
    >>> sorted(latin_words("见 docs/model.md"))  # a browser cannot open a file of the source tree
    ['docs', 'md', 'model']
    >>> sorted(latin_words("Kaplan 等，Scaling Laws for Neural Language Models：训练 compute · Scaling Models"))
    ['Models', 'Scaling', 'compute']
    >>> sorted(latin_words("¥52.78 M · −$850 k · 20M · 50 B 参数 · 100 GB/s · 8 B/s"))
    ['$850 k', '20M', '50 B', '¥52.78 M']
    """
    text = re.sub(r"\]\(#[\w-]+\)", "]", re.sub(r"<[^>]+>", " ", str(text)))  # a link to a section: not shown
    text = _CITED.sub(" ", text)
    words = {w for w in LATIN_WORD.findall(text) if len(w) > 1 and w not in ALLOWED and w not in also}
    return words | set(LATIN_AMOUNT.findall(text))
