"""The model's pipeline: a scenario and its priced catalog become one set of input arrays
(:mod:`~costmodel.pipeline.inputs`), the stages turn them into outputs (:mod:`~costmodel.pipeline.tco`),
and the outputs become a result with its recommendation and equal-work sizing."""
