"""The PR gate (tracker/GATE.md): base and head measured in interleaved rounds on one machine.

config    benchtrack.toml: suites, threshold, alpha, rounds
worktree  git checkouts of base and head outside the user's tree
rounds    the interleaved runner (A B, B A, …) that keeps one value per benchmark per round
verdict   paired log-ratios -> change, simultaneous interval, verdict
render    terminal table, Markdown, JSON
aa        recorded A/A rounds; evaluate: error rates of the gate and of the usual rules
ghrule    github-action-benchmark's and pytest-benchmark's comparison rules
"""
