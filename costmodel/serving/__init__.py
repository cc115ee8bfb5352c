"""Inference serving on the cluster: prefill and decode under a TTFT/TPOT SLA, servers to meet a
demand, tokens per GPU and cost per million tokens, per fabric (docs/model.md, section 13 "Serving").

Usage::

    from costmodel.serving import serve, serving_inputs, equal_sla, serving_answers
    x = serving_inputs(scenario, "deepseek-v3", precision="fp8", peak_rps=40.0, avg_rps=25.0,
                       prompt=2000.0, output=400.0, ttft_s=2.0, tpot_s=0.05, disaggregated=1.0)
    r = serve(x)                      # every answer, arrays of shape (1, F) (one column per fabric)
    r = serve(x.replace(peak_rps=np.linspace(0, 500, 100_000)[:, None]))   # a sweep: (D, F)
    cmp = equal_sla(r, baseline=0)    # each fabric against the first, at the same demand and SLA
    a = serving_answers(scenario)     # the scenario's own serving section: one row per fabric
    a.row("roce-400").cost_per_mtok_output, a.cheapest()

:func:`~costmodel.serving.from_scenario.serving_inputs` fills the inputs from a scenario (part,
fabric figures, the price of a server-hour); :func:`~costmodel.serving.sizing.serve` answers;
:func:`~costmodel.serving.answers.serving_answers` answers a scenario's ``serving`` section per fabric;
:func:`~costmodel.serving.published.compare` sets the model against published measurements.
"""

from costmodel.serving.answers import FabricServing, ServingAnswers, serving_answers
from costmodel.serving.compare import equal_sla
from costmodel.serving.from_scenario import serving_inputs
from costmodel.serving.inputs import ServingInputs
from costmodel.serving.sizing import serve

__all__ = ["FabricServing", "ServingAnswers", "ServingInputs", "equal_sla", "serve", "serving_answers",
           "serving_inputs"]
