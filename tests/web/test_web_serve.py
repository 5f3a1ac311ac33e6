"""``sushicam serve``: waitress on plain HTTP, a self-signed certificate for --https."""

from __future__ import annotations

import json
import re
import shutil
import socket
import ssl
import stat
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from web.cli import build_parser
from web.serve import certificate

REPO = Path(__file__).resolve().parents[2]
# what the installed ``sushicam`` script runs (``python -m web.cli`` would import web.cli twice)
SUSHICAM = [sys.executable, "-c", "import sys; from web.cli import main; sys.exit(main(sys.argv[1:]))"]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def start(*args: str) -> subprocess.Popen:
    return subprocess.Popen(
        [*SUSHICAM, "serve", *args],
        cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )


def wait_for(url: str, context=None, timeout: float = 30) -> bytes:
    deadline = time.monotonic() + timeout
    while True:
        try:
            with urllib.request.urlopen(url, timeout=2, context=context) as response:
                return response.read()
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.2)


def test_serve_options():
    args = build_parser().parse_args(["serve"])
    assert (args.host, args.port, args.data, args.lan, args.https) == ("127.0.0.1", 5000, None, False, False)
    args = build_parser().parse_args(["serve", "--lan", "--port", "8080", "--data", "games", "--https"])
    assert (args.lan, args.port, args.data, args.https) == (True, 8080, Path("games"), True)
    with pytest.raises(SystemExit):
        build_parser().parse_args(["serve", "--lan", "--host", "0.0.0.0"])


def test_serve_runs_the_app_with_its_data_folder(tmp_path):
    port = free_port()
    server = start("--port", str(port), "--data", str(tmp_path / "games"))
    try:
        page = wait_for(f"http://127.0.0.1:{port}/")
        assert b"sushicam" in page
        record = {"edition": "original", "players": ["A", "B"], "rounds": [{"tableaux": {"A": ["tempura", "tempura"], "B": []}}]}
        request = urllib.request.Request(f"http://127.0.0.1:{port}/api/score", data=json.dumps(record).encode(),
                                         headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=5) as response:
            assert json.load(response)["players"]["A"]["total"] == 5
        assert (tmp_path / "games" / "sushicam.sqlite").exists()
    finally:
        server.terminate()
        server.wait(timeout=10)


@pytest.mark.skipif(shutil.which("openssl") is None, reason="the openssl command is not installed")
def test_https_serves_with_a_self_signed_certificate(tmp_path):
    port = free_port()
    server = start("--port", str(port), "--data", str(tmp_path), "--https")
    try:
        context = ssl.create_default_context()
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE
        assert b"sushicam" in wait_for(f"https://127.0.0.1:{port}/", context)
        # the certificate names this machine, so a browser can be told to trust it
        strict = ssl.create_default_context(cafile=str(tmp_path / "tls" / "cert.pem"))
        assert b"sushicam" in wait_for(f"https://localhost:{port}/", strict, timeout=5)
    finally:
        server.terminate()
        server.wait(timeout=10)


@pytest.mark.skipif(shutil.which("openssl") is None, reason="the openssl command is not installed")
def test_certificate_is_made_once_and_names_the_hosts(tmp_path):
    cert, key = certificate(tmp_path, ["192.168.1.20"])
    text = subprocess.run(["openssl", "x509", "-in", str(cert), "-noout", "-text"],
                          capture_output=True, text=True, check=True).stdout
    assert "IP Address:192.168.1.20" in text and "DNS:localhost" in text
    assert key.stat().st_mode & 0o077 == 0
    before = cert.read_bytes()
    assert certificate(tmp_path, ["10.0.0.1"]) == (cert, key)
    assert cert.read_bytes() == before


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--port", "70000"], "--port must be 1-65535"),
        (["--threads", "0"], "--threads must be at least 1"),
    ],
)
def test_bad_options_exit_2_with_one_line(args, message):
    done = subprocess.run([*SUSHICAM, "serve", *args], cwd=REPO,
                          capture_output=True, text=True, timeout=30)
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"sushicam serve: error: {message}")


def test_a_port_in_use_exits_2_with_one_line(tmp_path):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = subprocess.run([*SUSHICAM, "serve", "--port", str(port), "--data", str(tmp_path)],
                              cwd=REPO, capture_output=True, text=True, timeout=30)
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("sushicam serve: error:")
    # the way out, not only the errno: name the port and the option that picks another
    assert f"port {port} is already in use" in lines[0] and "--port" in lines[0]
    assert "Errno" not in lines[0]


@pytest.mark.parametrize(("make", "message"), [
    (lambda path: path.write_bytes(b"this is not SQLite at all, just some words" * 100),
     "is not a games database or is damaged"),
    (lambda path: path.mkdir(), "is a folder, not a games database"),
])
def test_an_unusable_database_exits_2_with_one_line(tmp_path, make, message):
    make(tmp_path / "sushicam.sqlite")
    done = subprocess.run([*SUSHICAM, "serve", "--port", str(free_port()), "--data", str(tmp_path)],
                          cwd=REPO, capture_output=True, text=True, timeout=30)
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("sushicam serve: error: ") and message in lines[0]


def test_lan_prints_a_join_code_and_other_devices_need_it(tmp_path):
    port = free_port()
    server = start("--lan", "--port", str(port), "--data", str(tmp_path / "d"))
    try:
        wait_for(f"http://127.0.0.1:{port}/")  # this computer: no code
        printed = []
        while not printed or "sushicam: open" not in printed[-1]:  # the code comes before
            printed.append(server.stdout.readline())
            assert printed[-1], "the server ended"
        assert any(re.search(r"join code for other devices: \d{6}$", line.strip()) for line in printed)
        # an unknown Host header (a rebinding site's name) is refused
        request = urllib.request.Request(f"http://127.0.0.1:{port}/", headers={"Host": "evil.example"})
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(request, timeout=5)
        assert refused.value.code == 400
    finally:
        server.terminate()
        server.wait(timeout=30)
    assert stat.S_IMODE((tmp_path / "d" / "sushicam.sqlite").stat().st_mode) == 0o600
