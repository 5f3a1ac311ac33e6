"""``sushicam serve`` under clients that connect and never finish: others are still answered.

Each test starts the real server (``sushicam serve``) on a free port and talks to it through
real sockets, as phones and a hostile machine on the same Wi-Fi would.
"""

from __future__ import annotations

import contextlib
import http.client
import importlib.util
import os
import shutil
import socket
import ssl
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from web.serve import CONNECTION_LIMIT

REPO = Path(__file__).resolve().parents[2]
SUSHICAM = [sys.executable, "-c", "import sys; from web.cli import main; sys.exit(main(sys.argv[1:]))"]
PROMPT = 5.0  # seconds: an answer later than this is a locked-out player

can_make_certificates = pytest.mark.skipif(
    importlib.util.find_spec("cryptography") is None and shutil.which("openssl") is None,
    reason="neither the cryptography package nor the openssl command is installed",
)


def free_port(family=socket.AF_INET, host="127.0.0.1") -> int:
    with socket.socket(family) as probe:
        probe.bind((host, 0))
        return probe.getsockname()[1]


@contextlib.contextmanager
def serving(tmp_path, *args: str, host="127.0.0.1", family=socket.AF_INET, https=False):
    """``sushicam serve`` running on a free port: yields (port, first lines it printed)."""
    import subprocess

    port = free_port(family, host)
    server = subprocess.Popen(
        [*SUSHICAM, "serve", "--port", str(port), "--data", str(tmp_path / "data"), *args],
        cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )
    try:
        printed = []
        while not printed or "sushicam: open" not in printed[-1]:
            printed.append(server.stdout.readline())
            assert printed[-1], "the server ended: " + "".join(printed)
        deadline = time.monotonic() + 30
        while True:  # the port is bound before the lines are printed; wait for answers anyway
            try:
                fetch(host, port, https=https)
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.2)
        yield port, printed
    finally:
        server.terminate()
        server.wait(timeout=30)


def fetch(host: str, port: int, https=False, timeout: float = PROMPT) -> int:
    """The status of GET / (the games list), within ``timeout`` seconds."""
    if https:
        context = ssl.create_default_context()
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE
        connection: http.client.HTTPConnection = http.client.HTTPSConnection(
            host, port, timeout=timeout, context=context)
    else:
        connection = http.client.HTTPConnection(host, port, timeout=timeout)
    try:
        connection.request("GET", "/")
        response = connection.getresponse()
        response.read()
        return response.status
    finally:
        connection.close()


def timed_fetch(host: str, port: int, https=False) -> float:
    started = time.monotonic()
    assert fetch(host, port, https=https) == 200
    return time.monotonic() - started


def connect(port: int, source: str | None = None, family=socket.AF_INET, host="127.0.0.1") -> socket.socket:
    sock = socket.socket(family)
    if source is not None:
        sock.bind((source, 0))
    sock.settimeout(5)
    sock.connect((host, port))
    return sock


@can_make_certificates
def test_https_answers_while_clients_connect_and_send_nothing(tmp_path):
    """A connection that never sends its TLS ClientHello (a port scanner, a stalled phone)
    stops no one: more of them than the server has threads, and a page still loads at once."""
    with serving(tmp_path, "--https", "--threads", "2", https=True) as (port, _):
        silent = [connect(port) for _ in range(6)]
        try:
            time.sleep(0.3)  # let the server accept them
            assert timed_fetch("127.0.0.1", port, https=True) < PROMPT
            assert timed_fetch("127.0.0.1", port, https=True) < PROMPT  # and again: nothing queued up
        finally:
            for sock in silent:
                sock.close()


def _threads(pid: int) -> int:
    return len(os.listdir(f"/proc/{pid}/task"))


@can_make_certificates
@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="counts threads through /proc (Linux)")
def test_https_serves_many_clients_with_the_threads_it_was_given(tmp_path):
    """Parallel HTTPS clients do not each get a thread (each could hold a large upload's
    memory): the server keeps to its --threads workers, and the others wait their turn."""
    import subprocess

    port = free_port()
    server = subprocess.Popen(
        [*SUSHICAM, "serve", "--port", str(port), "--data", str(tmp_path), "--https", "--threads", "2"],
        cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    context = ssl.create_default_context()
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    clients = []
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                fetch("127.0.0.1", port, https=True)
                break
            except OSError:
                assert time.monotonic() < deadline
                time.sleep(0.2)
        time.sleep(1)  # the recogniser's warm-up thread, if any, has started or ended
        before = _threads(server.pid)

        def upload_that_stalls():
            # the handshake, then headers that never end: as a big upload on a slow link
            tls = context.wrap_socket(connect(port), server_hostname="localhost", do_handshake_on_connect=False)
            clients.append(tls)
            tls.settimeout(30)
            with contextlib.suppress(OSError, ValueError):  # closed when the test ends
                tls.do_handshake()
                tls.sendall(b"POST /api/score HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 1000\r\n")

        for _ in range(12):
            threading.Thread(target=upload_that_stalls, daemon=True).start()
        time.sleep(1.5)
        assert _threads(server.pid) <= before + 1
    finally:
        for tls in clients:
            with contextlib.suppress(OSError):
                tls.close()
        server.terminate()
        server.wait(timeout=30)


def test_unfinished_requests_from_one_address_do_not_lock_others_out(tmp_path):
    """More unfinished requests than the server holds connections, all from one machine
    (127.0.0.2 here), before any join code is asked: a player elsewhere is answered at once."""
    try:
        connect(free_port(), "127.0.0.2").close()
    except ConnectionRefusedError:
        pass
    except OSError:
        pytest.skip("this system cannot send from 127.0.0.2")
    with serving(tmp_path) as (port, _):
        attackers = []
        try:
            for _ in range(CONNECTION_LIMIT + 60):
                sock = connect(port, "127.0.0.2")
                with contextlib.suppress(OSError):  # the server may have closed it already
                    sock.sendall(b"POST /api/score HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 100000\r\n\r\n{")
                attackers.append(sock)
            time.sleep(0.5)
            assert timed_fetch("127.0.0.1", port) < PROMPT
            assert timed_fetch("127.0.0.1", port) < PROMPT
        finally:
            for sock in attackers:
                sock.close()


def _has_ipv6_loopback() -> bool:
    try:
        with socket.socket(socket.AF_INET6) as probe:
            probe.bind(("::1", 0))
        return True
    except OSError:
        return False


@pytest.mark.skipif(not _has_ipv6_loopback(), reason="no IPv6 loopback here")
def test_an_ipv6_address_is_printed_in_brackets_and_answers_by_it(tmp_path):
    with serving(tmp_path, "--host", "::1", host="::1", family=socket.AF_INET6) as (port, printed):
        assert printed[-1].strip() == f"sushicam: open http://[::1]:{port}/"
        with urllib.request.urlopen(f"http://[::1]:{port}/", timeout=PROMPT) as page:
            assert page.status == 200 and b"sushicam" in page.read()
        # another name is still refused
        request = urllib.request.Request(f"http://[::1]:{port}/", headers={"Host": "evil.example"})
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(request, timeout=PROMPT)
        assert refused.value.code == 400
