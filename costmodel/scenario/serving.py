"""The scenario's serving section: an inference service on the cluster's part and fabrics.

Its numbers (demand [requests/s], mean prompt and output [tokens], TTFT and TPOT targets [s]) are
declared in the registry (``data/quantities.yaml``, ``serving.*``) with their defaults in
``data/defaults.yaml``; the model is an id of ``data/serving.yaml`` ``models``. The serving model
(:mod:`costmodel.serving`) reads the section; the training model does not.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from costmodel.catalog.loader import Catalog
from costmodel.catalog.serving_data import load as load_serving
from costmodel.errors import FieldError
from costmodel.scenario.fields import STRICT, blank_default, section_model


class _ServingChoices(BaseModel):
    """The inference service: the fields that are not numbers."""

    model_config = STRICT
    model: str = Field(default_factory=blank_default("serving_model"), min_length=1, max_length=64,
                       pattern=r"^[a-z0-9][a-z0-9._-]*$", description="the served model: an id of serving.yaml models")
    precision: Literal["bf16", "fp8", "fp4"] = Field(
        "bf16", description="precision of the served weights and KV cache; FP8 and FP4 only on GPUs that have them"
    )
    disaggregated: bool = Field(
        False, description="prefill and decode on separate instances, the KV cache sent over the fabric; "
        "off: both on every instance (chunked prefill)"
    )


Serving = section_model(_ServingChoices, "serving", "The inference service on the cluster.", __name__)


def check_serving(serving: BaseModel, gpu: str, cat: Catalog) -> None:
    """Refuse an unknown model, a precision the part lacks and an average demand above the peak,
    each with a :class:`~costmodel.errors.FieldError` naming the ``serving.*`` field."""
    models = load_serving().models
    if serving.model not in models:
        raise FieldError("serving.model", f"unknown model {serving.model!r}; allowed: {', '.join(models)}",
                         "unknown_id", got=repr(serving.model), choices=", ".join(models))
    part = cat.gpus[gpu]
    if part.peak_tflops(serving.precision) is None:
        raise FieldError("serving.precision", f"the {part.name} has no {serving.precision.upper()} tensor "
                         "cores; choose BF16 or a GPU that has them", "precision_unsupported",
                         gpu=part.name, precision=serving.precision.upper())
    if serving.avg_rps > serving.peak_rps:
        raise FieldError("serving.avg_rps", f"must not exceed peak_rps ({serving.peak_rps:g}); allowed: ≥ 0 and "
                         f"≤ {serving.peak_rps:g}", "avg_above_peak", hi=f"{serving.peak_rps:g}")


__all__ = ["Serving", "check_serving"]
