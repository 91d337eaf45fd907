"""The HTTP server of experiment 4: an aiohttp app whose handler sleeps, on loopback only.

Run as a separate process (as in the seed) with ``python -m asyncio_patterns.server``: it binds
``127.0.0.1`` on an ephemeral port, prints ``LISTENING <url>`` on stdout, and serves until SIGTERM,
SIGINT or the end of its stdin (so it dies with a parent that forgot it). ``ServerProcess`` starts
and stops one from Python; the test fixtures use it once per session.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import select
import signal
import socket
import subprocess
import sys
from types import TracebackType
from typing import Any

from aiohttp import web

from asyncio_patterns.loopback import open_url, require_loopback
from asyncio_patterns.probe import InFlight

READY_PREFIX = "LISTENING "
PROBE_KEY = web.AppKey("probe", InFlight)


def create_app() -> web.Application:
    """``GET /sleep?period=S`` sleeps S seconds then answers ``S``; ``/stats`` reports overlap."""

    async def handle_sleep(request: web.Request) -> web.Response:
        try:
            period = float(request.rel_url.query["period"])
        except (KeyError, ValueError):
            raise web.HTTPBadRequest(text="expected ?period=<seconds>") from None
        if not 0 <= period <= 60:
            raise web.HTTPBadRequest(text="period must be within 0..60 s")
        with request.app[PROBE_KEY].track():
            await asyncio.sleep(period)
        return web.Response(text=repr(period))

    async def handle_stats(request: web.Request) -> web.Response:
        probe = request.app[PROBE_KEY]
        return web.json_response({"peak": probe.peak, "total": probe.total})

    async def handle_reset(request: web.Request) -> web.Response:
        request.app[PROBE_KEY].reset()
        return web.Response(text="ok")

    app = web.Application()
    app[PROBE_KEY] = InFlight()
    app.add_routes(
        [
            web.get("/sleep", handle_sleep),
            web.get("/stats", handle_stats),
            web.post("/stats/reset", handle_reset),
        ]
    )
    return app


async def serve(host: str = "127.0.0.1", port: int = 0) -> None:
    """Serve ``create_app()`` until SIGTERM/SIGINT or stdin closes; announce the URL first."""
    require_loopback(host)
    loop = asyncio.get_running_loop()
    stop = asyncio.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)

    def on_stdin() -> None:
        try:
            chunk = os.read(stdin_fd, 4096)
        except OSError:
            chunk = b""
        if not chunk:
            loop.remove_reader(stdin_fd)
            stop.set()

    stdin_fd = sys.stdin.fileno()
    # If stdin is a regular file or /dev/null, it cannot be watched: only signals stop us.
    with contextlib.suppress(OSError, ValueError):
        loop.add_reader(stdin_fd, on_stdin)

    runner = web.AppRunner(create_app(), access_log=None, handle_signals=False)
    await runner.setup()
    try:
        site = web.TCPSite(runner, host, port, reuse_address=True)
        await site.start()
        bound_host, bound_port = runner.addresses[0][:2]
        print(f"{READY_PREFIX}http://{bound_host}:{bound_port}", flush=True)
        await stop.wait()
    finally:
        await runner.cleanup()


class ServerProcess:
    """The server in a child process: ``with ServerProcess() as srv: urlopen(srv.url + ...)``."""

    def __init__(self, startup_timeout: float = 30.0, stop_timeout: float = 10.0) -> None:
        self.startup_timeout = startup_timeout
        self.stop_timeout = stop_timeout
        self.proc: subprocess.Popen[bytes] | None = None
        self.url = ""
        self.port = 0

    @property
    def pid(self) -> int:
        if self.proc is None:
            raise RuntimeError("server not started")
        return self.proc.pid

    def start(self) -> str:
        if self.proc is not None:
            raise RuntimeError("server already started")
        env = dict(os.environ, PYTHONUNBUFFERED="1")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "asyncio_patterns.server", "--host", "127.0.0.1", "--port", "0"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            env=env,
        )
        try:
            line = self._read_ready_line()
        except BaseException:
            self.stop()
            raise
        self.url = line[len(READY_PREFIX) :].strip()
        self.port = int(self.url.rsplit(":", 1)[1])
        return self.url

    def _read_ready_line(self) -> str:
        assert self.proc is not None and self.proc.stdout is not None
        ready, _, _ = select.select([self.proc.stdout], [], [], self.startup_timeout)
        if not ready:
            raise RuntimeError(f"server did not start within {self.startup_timeout} s")
        line = self.proc.stdout.readline().decode(errors="replace")
        if not line.startswith(READY_PREFIX):
            code = self.proc.poll()
            raise RuntimeError(f"server failed to start (exit {code}), said: {line!r}")
        return line

    def stop(self) -> int:
        """Terminate the server, wait for it (kill if it lingers); returns its exit code."""
        proc = self.proc
        if proc is None:
            raise RuntimeError("server not started")
        if proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(self.stop_timeout)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        for pipe in (proc.stdin, proc.stdout):
            if pipe is not None:
                pipe.close()
        return proc.returncode

    def __enter__(self) -> ServerProcess:
        self.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()


def port_is_closed(port: int) -> bool:
    """True if nothing accepts connections on 127.0.0.1:port."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.settimeout(2.0)
        try:
            sock.connect(("127.0.0.1", port))
        except ConnectionRefusedError:
            return True
        return False


def process_is_gone(pid: int) -> bool:
    """True if no process (not even a zombie) has this pid."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            state = f.read().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return True
    return state == "X"  # a zombie ("Z") is still something left behind


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--host", default="127.0.0.1", help="a loopback address")
    parser.add_argument("--port", type=int, default=0, help="0 (default): an ephemeral port")
    args = parser.parse_args(argv)
    try:
        require_loopback(args.host)
    except ValueError as err:
        parser.error(str(err))
    asyncio.run(serve(args.host, args.port))
    return 0


def stats(url: str) -> dict[str, Any]:
    """The server's overlap counters (``/stats``), fetched without any proxy."""
    with open_url(f"{url}/stats") as response:
        return json.loads(response.read())


def reset_stats(url: str) -> None:
    with open_url(f"{url}/stats/reset", data=b""):
        pass


if __name__ == "__main__":
    sys.exit(main())
