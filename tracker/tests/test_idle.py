"""idle.py: the wake-up latency request is held for the block and withdrawn after it, on the
real /dev/cpu_dma_latency (root, as CI runs); without write access the gate goes on and says so."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from benchtrack.errors import BadInput
from benchtrack.gate import config, idle

writable = pytest.mark.skipif(
    not os.access(idle.DEVICE, os.W_OK), reason=f"{idle.DEVICE} is not writable here"
)


def _held_here() -> bool:
    """Whether this process has the device open (its request; other processes' may hold too,
    e.g. a gate test running beside this one, so the machine's value alone cannot tell)."""
    fds = Path("/proc/self/fd")
    return any(os.path.realpath(fds / fd) == str(idle.DEVICE) for fd in os.listdir(fds))


@writable
def test_the_request_holds_for_the_block_only() -> None:
    assert not _held_here()
    with idle.polling("poll") as said:
        assert idle.current() == 0  # the least of every holder's, ours 0
        assert _held_here()
        assert "poll" in said and str(idle.DEVICE) in said
    assert not _held_here()  # closed: withdrawn


@writable
def test_an_error_in_the_block_still_withdraws_it() -> None:
    with pytest.raises(RuntimeError), idle.polling("poll"):
        assert _held_here()
        raise RuntimeError("a failed round")
    assert not _held_here()


def test_machine_leaves_the_idle_states() -> None:
    with idle.polling("machine") as said:
        assert not _held_here()
    assert "machine" in said


def test_without_access_the_measurement_goes_on_and_says_why(tmp_path: Path) -> None:
    missing = tmp_path / "no-such-device"
    with idle.polling("poll", missing) as said:
        pass
    assert "own idle states" in said and str(missing) in said and "No such file" in said
    assert not missing.exists()  # nothing created in its place


def test_the_config_takes_poll_or_machine_only() -> None:
    bench = {"x": {"adapter": "perl", "command": "c", "raw": "r"}}
    assert config.parse({"bench": {"suites": bench}}, "t").idle == "poll"
    got = config.parse({"bench": {"suites": bench}, "gate": {"idle": "machine"}}, "t")
    assert got.idle == "machine"
    with pytest.raises(BadInput) as e:
        config.parse({"bench": {"suites": bench}, "gate": {"idle": "halt"}}, "t")
    assert e.value.field == "gate.idle" and "poll" in str(e.value)
