"""The PR gate (tracker/GATE.md): base and head measured in interleaved rounds on one machine.

Everything `benchtrack gate`, `gate-merge` and `gate-comment` run at PR time lives here; the lab
(benchtrack.lab: evaluate, A/A recordings, replay) imports from here, never the other way round.

config         benchtrack.toml: suites, threshold, alpha, rounds
worktree       git checkouts of base and head outside the user's tree
stages         a PR's screening rounds, then its second stage (what `benchtrack gate` runs)
rounds         the interleaved runner (A B, B A, …) that keeps one value per benchmark per round
suite_run      one run of a suite in a checkout; round_record: a round's runs into Rounds
lockstep_round a lockstep suite's round; beside: the counted suites on the spare CPUs
lockstep_worker one side's step worker process and the protocol spoken with it
lockstep       step-time suites: base and head stepped in turns inside one process pair
placement      which CPUs each side runs on
idle           idle CPUs poll while measuring; machine_load: what else the machine did
callgrind      count mode: a harness under valgrind, one instruction count per run
function_diff  which functions' instructions grew most, base to head
verdict        paired log-ratios -> change, simultaneous interval, verdict
confirm        screen, then confirm the candidates in rounds of their own
outcome        gate.json: the checked result of one runner size
render         terminal table, Markdown, JSON
comment        the sticky PR comment from the sizes' gate.json (pr_comment renders it)
"""
