"""``sushicam serve``: the web app for the table, on this computer or the local network.

Plain HTTP is served by waitress. ``--https`` is for phones that stream their camera: browsers
allow getUserMedia only on localhost or HTTPS, and waitress does not speak TLS, so with
``--https`` the app runs in cheroot (CherryPy's WSGI server, a bounded pool of ``--threads``
workers) with its ``ssl`` adapter instead, on a self-signed certificate kept in the data folder
(made once, by the ``cryptography`` package when installed, else by the ``openssl`` command).
Phones warn once about the certificate; accept it. Uploading a photo (the file input opens the
camera) works on plain HTTP too.

Neither server lets slow or silent clients lock others out (see ``WAITRESS_OPTIONS`` and
``https_server``).
"""

from __future__ import annotations

import argparse
import contextlib
import errno
import ipaddress
import os
import shutil
import socket
import subprocess
from collections.abc import Iterator
from pathlib import Path

from web.cli import CommandError

CERT_DAYS = 825  # the longest validity Apple devices accept for a certificate


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "serve",
        help="serve the web app: capture, correct and score games in a browser",
        description="Serve the sushicam web app (waitress; cheroot with TLS for --https).",
    )
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    where.add_argument(
        "--lan", action="store_true",
        help="listen on every interface, so phones on the same network can connect",
    )
    parser.add_argument("--port", type=int, default=5000, help="port (default 5000)")
    parser.add_argument(
        "--data", type=Path, default=None,
        help="folder for the games database, photos and training labels (default: instance/)",
    )
    parser.add_argument(
        "--https", action="store_true",
        help="serve HTTPS with a self-signed certificate (phones allow the live camera only then)",
    )
    parser.add_argument("--threads", type=int, default=4, help="worker threads (default 4)")
    parser.add_argument(
        "--allow-host", action="append", default=[], metavar="NAME",
        help="another name browsers reach this computer by (e.g. mybox.local); others are refused",
    )
    parser.set_defaults(handler=serve)


def lan_address() -> str | None:
    """This machine's address on the local network, if it has one (no packet is sent)."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("10.254.254.254", 1))
            address = probe.getsockname()[0]
        except OSError:
            return None
    return None if address.startswith("127.") else address


def certificate(folder: Path, hosts: list[str]) -> tuple[Path, Path]:
    """A self-signed certificate and key in ``folder``, made on first use."""
    cert, key = folder / "cert.pem", folder / "key.pem"
    if cert.exists() and key.exists():
        return cert, key
    folder.mkdir(parents=True, exist_ok=True)
    try:
        _certificate_with_cryptography(cert, key, hosts)
    except ImportError:
        _certificate_with_openssl(cert, key, hosts)
    key.chmod(0o600)
    return cert, key


def _subject_alt_names(hosts: list[str]) -> list[str]:
    names = []
    for host in dict.fromkeys(["localhost", "127.0.0.1", *hosts]):
        try:
            ipaddress.ip_address(host)
            names.append(f"IP:{host}")
        except ValueError:
            names.append(f"DNS:{host}")
    return names


def _certificate_with_openssl(cert: Path, key: Path, hosts: list[str]) -> None:
    openssl = shutil.which("openssl")
    if openssl is None:
        raise CommandError("--https needs the 'cryptography' package or the 'openssl' command")
    command = [
        openssl, "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-sha256",
        "-days", str(CERT_DAYS), "-subj", "/CN=sushicam",
        "-addext", "subjectAltName=" + ",".join(_subject_alt_names(hosts)),
        "-keyout", str(key), "-out", str(cert),
    ]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        reason = (done.stderr.strip().splitlines() or ["unknown error"])[-1]
        raise CommandError(f"openssl could not make a certificate: {reason}")


def _certificate_with_cryptography(cert: Path, key: Path, hosts: list[str]) -> None:
    import datetime

    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import rsa
    from cryptography.x509.oid import NameOID

    private = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "sushicam")])
    alt: list[x509.GeneralName] = []
    for entry in _subject_alt_names(hosts):
        kind, value = entry.split(":", 1)
        alt.append(x509.IPAddress(ipaddress.ip_address(value)) if kind == "IP" else x509.DNSName(value))
    now = datetime.datetime.now(datetime.UTC)
    certificate_ = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(private.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(days=1))
        .not_valid_after(now + datetime.timedelta(days=CERT_DAYS))
        .add_extension(x509.SubjectAlternativeName(alt), critical=False)
        .sign(private, hashes.SHA256())
    )
    key.write_bytes(
        private.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.TraditionalOpenSSL,
            serialization.NoEncryption(),
        )
    )
    cert.write_bytes(certificate_.public_bytes(serialization.Encoding.PEM))


# Waitress reads whole requests (bodies too, spilling big ones to a temporary file) in its one
# I/O thread before a worker thread sees them, so a slow or unfinished client holds a
# connection, never a worker. What locks others out is running out of connections: so the
# limit is far above what a table of phones opens (a browser opens at most 6 per server), one
# address may hold only CONNECTIONS_PER_ADDRESS of them, and one that sends nothing for
# CHANNEL_TIMEOUT seconds is dropped (checked every CLEANUP_INTERVAL).
CONNECTION_LIMIT = 500
CONNECTIONS_PER_ADDRESS = 24
CHANNEL_TIMEOUT = 10
WAITRESS_OPTIONS = {
    "ident": "sushicam",
    "connection_limit": CONNECTION_LIMIT,
    "channel_timeout": CHANNEL_TIMEOUT,
    "cleanup_interval": 2,
    "asyncore_use_poll": True,  # select() cannot watch descriptors past 1023
}


def waitress_server(app, host: str, port: int, threads: int):
    """Waitress on ``host:port`` with ``WAITRESS_OPTIONS`` and the cap per client address."""
    import waitress.server
    from waitress.channel import HTTPChannel

    def capped_channel(server, sock, addr, adj, map=None):
        # one client (a script opening connections and never finishing them) cannot take the
        # connections everyone else needs: past its share, its new ones are closed at once
        address = addr[0] if isinstance(addr, tuple) else addr
        held = sum(1 for channel in list(server.active_channels.values())
                   if isinstance(channel.addr, tuple) and channel.addr[0] == address)
        if held >= CONNECTIONS_PER_ADDRESS:
            sock.close()
            return None
        return HTTPChannel(server, sock, addr, adj, map=map)

    _allow_open_files(CONNECTION_LIMIT + 100)  # the connections, the database, models, logs
    server = waitress.server.create_server(app, host=host, port=port, threads=threads, **WAITRESS_OPTIONS)
    # one listener (a TcpWSGIServer) per address host resolves to, all sharing one socket map
    for listener in [server, *getattr(server, "map", {}).values()]:
        if isinstance(listener, waitress.server.BaseWSGIServer):
            listener.channel_class = capped_channel
    return server


def _allow_open_files(needed: int) -> None:
    """Raise this process's limit of open files to ``needed`` where the system allows it
    (macOS starts programs at 256, many Linux desktops at 1024)."""
    try:
        import resource
    except ImportError:  # Windows: no such limit on sockets
        return
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY or soft >= needed:
        return
    target = needed if hard == resource.RLIM_INFINITY else min(needed, hard)
    with contextlib.suppress(OSError, ValueError):  # not allowed: waitress logs what it cannot accept
        resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))


# With --https, cheroot: a bounded pool of worker threads that read requests, and one thread
# that accepts connections and watches idle ones. Cheroot's own ssl adapter makes the TLS
# handshake in that accepting thread, so one client that connects and sends nothing stops
# every other for its timeout, and a few such clients in turn stop it for good. Here a new
# connection waits, without a thread, until its first bytes (the ClientHello) arrive, and the
# handshake runs then in a worker, under the same timeout as every read.
TLS_TIMEOUT = 10  # seconds a TLS handshake or a read may stall before the connection is dropped


def https_server(app, host: str, port: int, threads: int, cert: Path, key: Path):
    """Cheroot serving ``app`` over TLS on ``host:port`` with ``threads`` workers (bound now)."""
    import ssl

    from cheroot import server as cheroot_server
    from cheroot import wsgi
    from cheroot.ssl.builtin import BuiltinSSLAdapter

    class DeferredHandshake(BuiltinSSLAdapter):
        def wrap(self, sock):
            # no I/O here: TLSConnection.communicate makes the handshake in a worker thread
            tls = self.context.wrap_socket(sock, server_side=True, do_handshake_on_connect=False)
            return tls, {"wsgi.url_scheme": "https", "HTTPS": "on"}

    class TLSConnection(cheroot_server.HTTPConnection):
        waited = False  # it has been through the selector once: its first bytes are there
        handshaken = False

        def communicate(self):
            if not self.handshaken:
                try:
                    self.socket.do_handshake()
                except OSError:  # a timeout, a client that is not TLS, a dropped connection
                    return False
                self.handshaken = True
            return super().communicate()

    class Server(wsgi.Server):
        ConnectionClass = TLSConnection

        def process_conn(self, conn):
            if isinstance(conn, TLSConnection) and not conn.waited:
                conn.waited = True
                self.put_conn(conn)  # watched by the selector, dropped after `timeout` idle
                return
            super().process_conn(conn)

    server = Server((host, port), app, numthreads=threads, max=threads, timeout=TLS_TIMEOUT,
                    request_queue_size=128, server_name="sushicam")
    server.ssl_adapter = DeferredHandshake(str(cert), str(key))
    server.ssl_adapter.context.minimum_version = ssl.TLSVersion.TLSv1_2
    server.prepare()  # binds the port (OSError when it is taken) and starts the workers
    return server


def url_host(host: str) -> str:
    """``host`` as it is written in a URL: an IPv6 literal in brackets.

    >>> url_host("::1"), url_host("192.168.1.20"), url_host("mybox.local")
    ('[::1]', '192.168.1.20', 'mybox.local')
    """
    try:
        return f"[{host}]" if ipaddress.ip_address(host).version == 6 else host
    except ValueError:
        return host


def _is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def server_config(hosts: list[str | None], https: bool, exposed: bool) -> dict:
    """The app settings that depend on how it is served (see web.security).

    ``hosts``: the addresses and names it is reached by; ``exposed``: it listens beyond this
    computer, so other devices need the join code.
    """
    from web.security import new_join_code, trusted_hosts

    return {
        # a page on another site that resolves its own name to this address (DNS rebinding)
        # sends that name as Host, and is refused
        "TRUSTED_HOSTS": trusted_hosts(*hosts),
        "SESSION_COOKIE_SECURE": https,
        "JOIN_CODE": new_join_code() if exposed else None,
    }


def configure(app, host: str, https: bool, allow_hosts: list[str] | tuple[str, ...] = ()) -> str | None:
    """Give ``app`` the protections of a server listening on ``host`` (see server_config):
    ``sushicam serve`` and ``sushicam live --serve`` both. Returns this computer's address on the
    local network when ``host`` is every interface, else None."""
    lan = lan_address() if host in ("0.0.0.0", "::") else None
    app.config.update(server_config([host, lan, *allow_hosts], https, exposed=not _is_loopback(host)))
    return lan


@contextlib.contextmanager
def _port_free(port: int) -> Iterator[None]:
    """A port another program holds (AirPlay takes 5000 on macOS) is one line naming --port."""
    try:
        yield
    except OSError as exc:
        # cheroot reports a failed bind as a plain OSError naming the cause, without its errno
        if exc.errno != errno.EADDRINUSE and "already in use" not in str(exc):
            raise
        raise CommandError(f"port {port} is already in use by another program: "
                           f"start with another, e.g. --port {port + 1 if port < 65535 else 8000}") from None


def serve(args: argparse.Namespace) -> int:
    if not 0 < args.port < 65536:
        raise CommandError(f"--port must be 1-65535, not {args.port}")
    if args.threads < 1:
        raise CommandError("--threads must be at least 1")
    from web.app import create_app
    from web.recognition import warm_up
    os.umask(0o077)  # every file the server writes (games, photos, labels, keys) is ours alone
    app = create_app(None if args.data is None else {"DATA_DIR": str(args.data.resolve())})
    host = "0.0.0.0" if args.lan else args.host
    lan = configure(app, host, args.https, args.allow_host)
    scheme = "https" if args.https else "http"
    # bind the port before the recogniser loads in the background: a port in use then ends
    # the command before any model thread exists (one still loading at exit aborts the process)
    if args.https:
        hosts = [h for h in (args.host, lan) if h and h not in ("0.0.0.0", "::")]
        cert, key = certificate(Path(app.config["DATA_DIR"]) / "tls", hosts)
        with _port_free(args.port):
            tls = https_server(app, host, args.port, args.threads, cert, key)
        run, close = tls.serve, tls.stop
    else:
        import logging

        logging.basicConfig()  # waitress's warnings (queue depth, bad requests), as waitress.serve does
        with _port_free(args.port):
            plain = waitress_server(app, host, args.port, args.threads)
        run, close = plain.run, plain.close
    warm_up(app)
    print(f"sushicam: data in {app.config['DATA_DIR']}", flush=True)
    if app.config["JOIN_CODE"]:
        print(f"sushicam: join code for other devices: {app.config['JOIN_CODE']}", flush=True)
    shown = "localhost" if lan or host in ("0.0.0.0", "::") else url_host(host)
    print(f"sushicam: open {scheme}://{shown}:{args.port}/", flush=True)
    if lan:
        print(f"sushicam: on a phone on the same network: {scheme}://{url_host(lan)}:{args.port}/", flush=True)
    if args.https:
        print(f"sushicam: self-signed certificate {cert} (accept the browser's warning once)", flush=True)
    try:
        run()
    finally:
        close()
    return 0

