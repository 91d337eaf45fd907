"""The counted suites' rounds, run beside the wall-time rounds on the CPUs those leave free."""

from __future__ import annotations

import threading
from collections.abc import Callable

from benchtrack.suites import Suite


class CountsBeside(threading.Thread):
    """Instruction counts do not move with the machine's load, so they need not share a round's
    moment with the wall time; and in lockstep both sides' workers take turns on one CPU, which
    on a 2-vCPU runner leaves the other idle. Counting there, one side after the other (both at
    once given two spare CPUs), overlaps the two instead of adding them (tracker/GATE.md, "The
    quieter series"). A lockstep pair sees the same neighbour on both sides, as it does any
    co-tenant.

    A neighbour changes that: with the counts on the spare CPU it too is busy, so the
    neighbour lands on the lockstep CPU and preempts steps that wait on wake-ups (the co-tenant
    recordings in tracker/LAB.md, "The counts-first design"). So before each count round
    `crowded()` is asked; once it says so the thread hands the rest back (`handed_back`) and they
    run inside the rounds, as on one CPU.
    """

    def __init__(
        self, suites: list[Suite], rounds: int, cpus: str, run_round, crowded: Callable[[], bool]
    ) -> None:
        super().__init__(name="benchtrack-counts", daemon=True)
        self.suites, self.rounds, self.cpus, self.run_round = suites, rounds, cpus, run_round
        self.crowded = crowded
        self.done = 0  # rounds finished
        self.handed_back = False
        self.cond = threading.Condition()
        self.stop = threading.Event()
        self.error: BaseException | None = None

    def run(self) -> None:
        try:
            for rnd in range(self.rounds):
                if self.stop.is_set():
                    break
                if self.crowded():
                    self.handed_back = True
                    break
                self.run_round(rnd, self.suites, self.cpus, self.stop, beside=True)
                with self.cond:
                    self.done = rnd + 1
                    self.cond.notify_all()
        except BaseException as e:  # re-raised in the rounds' thread by wait()
            self.error = e
        finally:
            with self.cond:
                if self.error is None and not self.handed_back:
                    self.done = self.rounds  # stopped: nothing more will come
                self.cond.notify_all()

    def wait(self, rounds: int) -> None:
        """Block until the first `rounds` count rounds are in (or all of them are), or the
        thread has handed the rest back to the rounds."""
        with self.cond:
            self.cond.wait_for(
                lambda: (
                    self.done >= min(rounds, self.rounds) or self.handed_back or not self.is_alive()
                )
            )
        if self.error is not None:
            raise self.error
