"""Training scripts: PPO self-play, MaskablePPO, RLlib, the arena (installed as ``rummy_env.training``)."""
