"""The model's stages, in the order :func:`costmodel.pipeline.tco.compute` runs them.

``batch`` (inputs broadcast once) → ``topology`` → ``step_time`` → ``reliability`` →
``schedule`` → ``cost_rates`` → ``cash_flows`` → ``metrics``. Each stage is a pure function of
the broadcast :class:`~costmodel.pipeline.inputs.Inputs` and earlier stages' results, returning a frozen
dataclass of arrays of shape ``(S, F)`` (rows × fabrics) unless noted. One code path serves one
scenario (``S = 1``), a sweep and a Monte Carlo batch.
"""
