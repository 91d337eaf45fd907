#!/usr/bin/env bash
# Lets this user hold idle CPUs polling while the gate measures (tracker/src/benchtrack/idle.py,
# tracker/GATE.md "Idle CPUs"): write access to /dev/cpu_dma_latency, given with passwordless sudo
# where the runner has it (GitHub's hosted runners do). Never fails the job: without access the
# gate measures with the machine's own idle states and says so in its output.
dev=/dev/cpu_dma_latency
if [ -e "$dev" ] && [ ! -w "$dev" ]; then
  if command -v sudo > /dev/null && sudo -n true 2> /dev/null; then
    sudo -n chown "$(id -u)" "$dev" || echo "idle-access: could not give $(id -un) write access to $dev" >&2
  else
    echo "idle-access: $dev is not writable and there is no passwordless sudo: idle CPUs stay as they are" >&2
  fi
fi
exit 0
