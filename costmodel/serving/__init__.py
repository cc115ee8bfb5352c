"""Inference serving on the cluster: prefill and decode under a TTFT/TPOT SLA, servers to meet a
demand, tokens per GPU and cost per million tokens, per fabric (docs/model.md, section "Serving").

Entry points: :func:`costmodel.serving.from_scenario.serving_inputs` (the inputs of a scenario and a
model) and :func:`costmodel.serving.sizing.serve` (every answer, vectorised);
:func:`costmodel.serving.compare.equal_sla` compares the fabrics at the same demand and SLA.
"""
