"""`benchtrack gate-selftest`: the gate run on a real PR with known slowdowns.

A branch of HEAD gets real code changes (the repository's own, in the file benchtrack.toml's
`[gate.selftest] patches` names; `patches` reads it) that make chosen benchmarks of every suite
do 5%, 10% or 20% less per declared element, or wait longer; the real gate compares it with HEAD,
and `check` asks whether every loss of 10% or more was flagged and nothing else was.
"""
