"""What `benchtrack init` knows (docs/adopting.md).

harnesses  the benchmark harnesses a repository already uses, as suites the gate can step
templates  the files init writes: benchtrack.toml, the .gitignore entries, the workflow
"""
