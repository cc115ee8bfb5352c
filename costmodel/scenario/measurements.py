"""A fabric's measurements a scenario keeps: the fit of a pasted nccl-tests log, never the log."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, Field, model_validator

from costmodel.scenario.fields import STRICT, bounds, plain_text


class Measurement(BaseModel):
    """A fabric's nccl-tests measurement: the fit of a pasted log (``costmodel.physics.nccl_tests.Fit``), never
    the log itself. The model reads ``alpha_us`` and ``busbw_GBps`` (see :mod:`costmodel.physics.calibration`);
    the rest says what was measured, for the "measured" label."""

    model_config = STRICT
    collective: Literal["all_reduce", "all_gather", "reduce_scatter"] = Field(
        description="the ring collective the log measured (an alltoall log: alltoall_measurements)"
    )
    ranks: int | None = Field(None, **bounds("measurement.ranks"),
                              description="ranks of the run [count]; empty = unknown")
    hosts: int | None = Field(None, **bounds("measurement.hosts"),
                              description="hosts of the run [count]; empty = unknown")
    gpu: str | None = Field(None, min_length=1, max_length=120, description="GPU name the log reports")
    nccl_version: str | None = Field(None, pattern=r"^\d{1,3}\.\d{1,3}\.\d{1,3}$", description="NCCL version")
    alpha_us: float = Field(**bounds("measurement.alpha_us"), description="fitted latency of one collective [µs]")
    busbw_GBps: float = Field(**bounds("measurement.busbw_GBps"), description="fitted asymptotic bus bandwidth [GB/s]")
    rows_used: int = Field(**bounds("measurement.rows_used"), description="table rows the fit used [count]")
    summary: str = Field(min_length=1, max_length=200, description="the log's header in one line (the label)")
    warnings: list[Annotated[str, Field(pattern=r"^nccl_note_[a-z0-9_]{1,40}$")]] = Field(
        default_factory=list, max_length=32, description="codes of the importer's notes (nccl_note_…)"
    )

    @model_validator(mode="after")
    def _check(self) -> Measurement:
        plain_text(self.summary, "summary")
        if self.gpu is not None:
            plain_text(self.gpu, "gpu")
        return self


class AlltoallMeasurement(Measurement):
    """A fabric's alltoall_perf measurement (``scenario.alltoall_measurements``): the fit of the log.
    The model reads ``busbw_GBps``, ``ranks`` and ``hosts`` for the fabric's all-to-all efficiency
    (:func:`costmodel.physics.calibration.alltoall_efficiency`), so the run's hosts must be known."""

    collective: Literal["alltoall"] = Field(description="the collective the log measured: alltoall")
    ranks: int = Field(**bounds("measurement.ranks"), description="ranks of the run [count]")
    hosts: int = Field(**bounds("measurement.alltoall_hosts"), description="hosts of the run [count]; 2 to ranks")
