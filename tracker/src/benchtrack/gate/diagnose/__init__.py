"""Why it is slower: one extra measurement of each side of a regressed benchmark, named by kind.

After the verdict, for every regressed benchmark and every smaller loss (and only for those),
the gate runs the benchmark once more on each side, alone, under a wrapper that reads what the
processes did (`procstat`: CPU time user and system, run-queue wait, context switches, page
faults, resident memory; `syscalls`: per-syscall counts from the same start's first steps,
traced by strace until the gate lets it go), and
`classify` splits the wall-time loss a call into kinds: lost parallelism, waiting, syscalls,
more work, memory. The first kind named is the one that explains most of the loss; a kind is
named only when it explains a sizeable share of it and its evidence clears a floor, else
"nothing stands out". A measurement that could not be made says "diagnosis failed: <why>".

Modules: `procstat` (/proc readings of a worker's session), `measure` (the step worker of each
side, the calls timed and read), `syscalls` (strace's trace between the step's markers),
`classify` (pure: evidence in, ranked kinds out), `text` (the line, every name inert),
`run` (the gate's hook: which rows, the time budget, gate.json), `check` (a PR's gate.json
entry read back as untrusted data for the comment); `pyspy` (py-spy's samples of a Python
worker's untraced steps), `native` (eu-stack's of a native worker: Rust), `perlsub` (a Perl
worker's subs, by the tracker's own sampler in perl, perl/Devel/BenchtrackSample.pm) and
`profile_diff` (the wall-time profile diff written beside gate.json and named in the entry's
`profile`).
"""
