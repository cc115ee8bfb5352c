"""Inputs a person types or picks: scenario widgets from the registry of quantities, number boxes outside
the scenario, finance and carbon inputs, measured fabrics (nccl-tests) and the Risk page's measures. Every
scenario change goes through :mod:`webui.session.state`."""
