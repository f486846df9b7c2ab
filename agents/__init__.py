from agents.base import Policy  # noqa: F401  (the batched agent protocol)


def __getattr__(name: str):
    if name == "PPOAgent":  # loaded on first use: torch is an optional dependency (the train extra)
        from agents.ppo_agent import PPOAgent
        return PPOAgent
    raise AttributeError(f"module 'agents' has no attribute {name!r}")
