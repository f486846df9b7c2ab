"""What the package's searches play on, apart from the rules: worlds sampled for a seat from what it has seen
(``worlds``), compiled rollouts (``rollout``) and ISMCTS iterations (``ismcts``). Each family supplies its moves and
compiled policies (``rummy_env.engine.families``); nothing here tests a ruleset."""
