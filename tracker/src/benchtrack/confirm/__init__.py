"""Confirming change points with the gate's lockstep A/B (`benchtrack confirm`, tracker/DETECT.md
"Confirmation").

A change point `detect` finds on main's history is a candidate: history points come from
different runs on different VMs, and a blip can pass its test. The confirmation runs the gate
(`benchtrack gate --base BEFORE --head AFTER --filter BENCHMARK`, the PR check's own lockstep
rounds, not a second runner) for each event not yet checked on this runner size, and records the
outcome in `bench/confirmations.json`, append-only (store.py). status.py says what the checks make
of each event; measure.py runs one check; bisect.py narrows a confirmed step that spans several
merges to its commit.
"""
