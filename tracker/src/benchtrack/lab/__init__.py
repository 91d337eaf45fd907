"""The lab: what measures the gate rather than a PR (tracker/LAB.md, tracker/GATE.md).

Nothing here runs at PR time; it imports the gate's own code so its figures are the gate's.

aa            recorded A/A rounds (`benchtrack record`), read back for evaluate
replay        what the gate would decide, and when, replayed on recorded rounds
evaluate      error rates of the gate and of the usual rules (`benchtrack evaluate`)
ghrule        github-action-benchmark's and pytest-benchmark's rules, for that comparison
stages        the two-stage gate (screen, confirm) on every pseudo-PR of an evaluation
figures       what evaluate finds, as data (Evaluation, Combined over recordings)
report        evaluate's Markdown and JSON
shard_replay  the gate split over N shards, replayed (`evaluate --shards`, `--inflate`)
simulate      realistic histories with known steps, noise from the A/A recordings
synthetic     deterministic synthetic histories for the tracker's own benchmark and tests
"""
