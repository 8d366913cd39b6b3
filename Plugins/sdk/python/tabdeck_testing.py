"""A tiny Tabdeck host for tests: spawn a plugin and talk protocol v1 to it (stdlib only).

Used by the tests of the SDK, the processes plugin and the broken fixture; usable for testing
any plugin, in any language::

    with PluginProcess([sys.executable, "my_plugin.py"]) as p:
        p.initialize()
        table = p.call("open", {"args": {}})
        page = p.call("rows", {"table": table["table"], "offset": 0, "limit": 50,
                               "sort": [], "filter": None, "generation": 1})
        assert p.shutdown() == 0
"""

from __future__ import annotations

import json
import os
import subprocess
import threading
import time
from typing import Any, Callable, Sequence

DEFAULT_TIMEOUT = 5.0


class ResponseError(Exception):
    """An error response; ``code``, ``message`` and ``data`` come from its ``error``."""

    def __init__(self, error: dict[str, Any]) -> None:
        super().__init__(f"{error.get('code')}: {error.get('message')}")
        self.code = error.get("code")
        self.message = error.get("message")
        self.data = error.get("data")


class PluginProcess:
    """A plugin subprocess with reader threads for its stdout (protocol) and stderr (log)."""

    def __init__(self, argv: Sequence[str], env: dict[str, str] | None = None,
                 cwd: str | None = None, **popen: Any) -> None:
        """``popen``: more arguments for :class:`subprocess.Popen` (``pass_fds``, ``preexec_fn``)."""
        full_env = dict(os.environ)
        full_env.update(env or {})
        full_env["TABDECK_PROTOCOL"] = "1"
        self.proc = subprocess.Popen(list(argv), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, env=full_env, cwd=cwd, **popen)
        self._cond = threading.Condition()
        self._write_lock = threading.Lock()
        self.raw_lines: list[bytes] = []
        """Every stdout line, as received (without ``\\n``)."""
        self.messages: list[dict[str, Any]] = []
        """Every stdout line that parsed as a JSON object, in order."""
        self.garbage: list[bytes] = []
        """Stdout lines that were not JSON objects."""
        self.responses: dict[Any, dict[str, Any]] = {}
        self.notifications: list[dict[str, Any]] = []
        self.stderr_lines: list[bytes] = []
        self.eof = False
        self._next_id = 1
        self._threads = [threading.Thread(target=self._read_stdout, daemon=True),
                         threading.Thread(target=self._read_stderr, daemon=True)]
        for t in self._threads:
            t.start()

    # ------------------------------------------------------------ readers

    def _read_stdout(self) -> None:
        assert self.proc.stdout is not None
        for line in iter(self.proc.stdout.readline, b""):
            line = line[:-1] if line.endswith(b"\n") else line
            try:
                msg = json.loads(line)
            except ValueError:
                msg = None
            with self._cond:
                self.raw_lines.append(line)
                if isinstance(msg, dict):
                    self.messages.append(msg)
                    if "method" in msg and "id" not in msg:
                        self.notifications.append(msg)
                    elif "id" in msg and "method" not in msg:
                        self.responses.setdefault(msg["id"], msg)
                else:
                    self.garbage.append(line)
                self._cond.notify_all()
        with self._cond:
            self.eof = True
            self._cond.notify_all()

    def _read_stderr(self) -> None:
        assert self.proc.stderr is not None
        for line in iter(self.proc.stderr.readline, b""):
            with self._cond:
                self.stderr_lines.append(line)
                self._cond.notify_all()  # wait_for() may be waiting for stderr text

    @property
    def stderr_text(self) -> str:
        """Everything the plugin wrote to stderr so far."""
        with self._cond:
            return b"".join(self.stderr_lines).decode("utf-8", "replace")

    # ------------------------------------------------------------ sending

    def send_raw(self, data: bytes) -> None:
        """Write bytes to the plugin's stdin as they are."""
        assert self.proc.stdin is not None
        with self._write_lock:
            self.proc.stdin.write(data)
            self.proc.stdin.flush()

    def send(self, msg: dict[str, Any]) -> None:
        """Write one message as a compact JSON line."""
        self.send_raw(json.dumps(msg, separators=(",", ":")).encode() + b"\n")

    def start(self, method: str, params: Any = None, id: Any = None) -> Any:
        """Send a request without waiting; return its id."""
        if id is None:
            id = self._next_id
            self._next_id += 1
        msg: dict[str, Any] = {"jsonrpc": "2.0", "id": id, "method": method}
        if params is not None:
            msg["params"] = params
        self.send(msg)
        return id

    def notify(self, method: str, params: Any = None) -> None:
        """Send a notification."""
        msg: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            msg["params"] = params
        self.send(msg)

    def close_stdin(self) -> None:
        """Close the plugin's stdin (what the host does after ``shutdown``)."""
        assert self.proc.stdin is not None
        with self._write_lock:
            try:
                self.proc.stdin.close()
            except OSError:
                pass

    # ------------------------------------------------------------ waiting

    def wait_for(self, predicate: Callable[[], Any], timeout: float = DEFAULT_TIMEOUT) -> Any:
        """Wait until ``predicate()`` (called under the lock) is truthy; return its value.

        Raises ``TimeoutError``.
        """
        deadline = time.monotonic() + timeout
        with self._cond:
            while True:
                value = predicate()
                if value:
                    return value
                left = deadline - time.monotonic()
                if left <= 0:
                    raise TimeoutError(f"timed out after {timeout}s; stderr:\n"
                                       f"{self.stderr_text[-2000:]}")
                self._cond.wait(left)

    def response(self, id: Any, timeout: float = DEFAULT_TIMEOUT) -> dict[str, Any]:
        """The response to request ``id`` (result or error)."""
        def got() -> Any:
            if id in self.responses:
                return self.responses[id]
            if self.eof:
                raise EOFError(f"plugin closed stdout before answering {id!r}; stderr:\n"
                               f"{self.stderr_text[-2000:]}")
            return None
        return self.wait_for(got, timeout)

    def request(self, method: str, params: Any = None,
                timeout: float = DEFAULT_TIMEOUT) -> dict[str, Any]:
        """Send a request and return the whole response message."""
        return self.response(self.start(method, params), timeout)

    def call(self, method: str, params: Any = None, timeout: float = DEFAULT_TIMEOUT) -> Any:
        """Send a request and return its result; raise :class:`ResponseError` on an error."""
        msg = self.request(method, params, timeout)
        if "error" in msg:
            raise ResponseError(msg["error"])
        return msg.get("result")

    def notification(self, method: str, predicate: Callable[[dict[str, Any]], bool] | None = None,
                     timeout: float = DEFAULT_TIMEOUT, after: int = 0) -> dict[str, Any]:
        """The first notification ``method`` (index >= ``after``) that matches ``predicate``."""
        def got() -> Any:
            for n in self.notifications[after:]:
                if n.get("method") == method and (predicate is None or predicate(n)):
                    return n
            return None
        return self.wait_for(got, timeout)

    def quiet(self, seconds: float) -> int:
        """Sleep, then return how many stdout lines arrived meanwhile."""
        with self._cond:
            before = len(self.raw_lines)
        time.sleep(seconds)
        with self._cond:
            return len(self.raw_lines) - before

    # ------------------------------------------------------------ lifecycle

    def initialize(self, timeout: float = DEFAULT_TIMEOUT) -> dict[str, Any]:
        """Do the handshake the way the host does; return the result."""
        return self.call("initialize", {
            "protocolVersion": 1, "host": {"name": "tabdeck", "version": "0.1.0"},
            "capabilities": {"progress": True, "cancel": True}}, timeout)

    def shutdown(self, timeout: float = DEFAULT_TIMEOUT) -> int | None:
        """``shutdown``, close stdin, wait for the exit; return the exit code."""
        self.call("shutdown", None, timeout)
        self.close_stdin()
        return self.wait_exit(timeout)

    def wait_exit(self, timeout: float = DEFAULT_TIMEOUT) -> int | None:
        """Wait for the process to exit; return its code, or None if it is still running."""
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            return None

    def kill(self) -> None:
        """SIGKILL the plugin (if it still runs) and reap it."""
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()

    def close(self) -> None:
        """Make sure the process is gone and the pipes are closed."""
        self.close_stdin()
        if self.wait_exit(2) is None:
            self.kill()
        for t in self._threads:
            t.join(2)
        for f in (self.proc.stdout, self.proc.stderr):
            if f is not None:
                f.close()

    def __enter__(self) -> "PluginProcess":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()
