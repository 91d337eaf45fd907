"""The machine that measures, as bench-local and the gate both use it.

cpuset        CPU sets: a Linux CPU list parsed and formatted, this process's affinity, taskset
processes     a suite's commands in process groups of their own, logged, stopped as a whole
runner        who measured what: the commit (git) and this machine as a runner size
vcpus         how fast each CPU runs a fixed loop now: the VM's vCPU speeds, read each round
runner_sizes  the runner sizes CI benchmarks on (.github/bench-runners.toml)
"""
