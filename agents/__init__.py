from rummy_env.agents.base import Policy  # noqa: F401  (the batched agent protocol)


def __getattr__(name: str):
    if name == "PPOAgent":  # loaded on first use: torch is an optional dependency (the train extra)
        from rummy_env.extras import needs_extra

        with needs_extra("train", "rummy_env.agents.PPOAgent"):
            from rummy_env.agents.ppo_agent import PPOAgent
        return PPOAgent
    raise AttributeError(f"module 'rummy_env.agents' has no attribute {name!r}")
