"""The endless-head attacker of test_request_head.py, run as its own process (its threads would
otherwise take the interpreter lock from the server under test, which runs in the test's).

``python endless_heads.py PORT N``: N connections, each streaming one endless header, first in
4 KiB pieces watching for an answer (the 431 must come within 64 KiB: at 64 KiB the
client waits for it), then in 1 MB pieces as
the attack that stalled the server; a refused connection is opened again at once. Prints
``started``, then a JSON line ``[bytes sent, answer, closed, seconds held]`` for each head the
moment it is refused, runs until its stdin closes, then prints a JSON summary."""

from __future__ import annotations

import contextlib
import json
import select
import socket
import sys
import threading
import time

REFUSED_WITHIN = 64 * 1024
HEAD_START = b"GET /api/lobbies HTTP/1.1\r\nhost: x\r\nx-endless: "


def _answer_and_close(sock: socket.socket, timeout: float) -> tuple[bytes, bool]:
    """What the server sends, and whether it closed the connection within ``timeout``."""
    sock.settimeout(timeout)
    data = b""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        try:
            chunk = sock.recv(65536)
        except ConnectionResetError:
            return data, True
        except TimeoutError:
            return data, False
        if not chunk:
            return data, True
        data += chunk
    return data, False


class Attack:
    def __init__(self, port: int, n: int) -> None:
        self.port = port
        self.stop = threading.Event()
        self.unanswered = 0
        self.printing = threading.Lock()
        self.threads = [threading.Thread(target=self._run, daemon=True) for _ in range(n)]

    def _run(self) -> None:
        while not self.stop.is_set():
            with (
                contextlib.suppress(OSError),
                socket.create_connection(("127.0.0.1", self.port), timeout=5) as sock,
            ):
                self._one(sock)

    def _one(self, sock: socket.socket) -> None:
        opened = time.monotonic()
        sock.sendall(HEAD_START)
        sent = len(HEAD_START)
        small, big = b"a" * 4096, b"a" * (1 << 20)
        while not self.stop.is_set():
            # up to 64 KiB, each piece gives the server a moment to answer; at 64 KiB the
            # client waits for the answer (1 s) before it goes on in 1 MB pieces
            wait = 0.0 if sent > REFUSED_WITHIN else 0.01
            if REFUSED_WITHIN - len(small) < sent <= REFUSED_WITHIN:
                wait = 1.0
            waiting = select.poll()  # poll, not select: no limit on descriptor numbers
            waiting.register(sock, select.POLLIN)
            if waiting.poll(wait * 1000):
                answer, closed = _answer_and_close(sock, 3.0)
                refusal = (sent, answer[:200].decode("latin-1"), closed, time.monotonic() - opened)
                with self.printing:
                    print(json.dumps(refusal), flush=True)
                return
            if wait == 1.0:
                self.unanswered += 1
            piece = small if sent <= REFUSED_WITHIN else big
            sock.sendall(piece)
            sent += len(piece)


def main() -> None:
    attack = Attack(int(sys.argv[1]), int(sys.argv[2]))
    print("started", flush=True)
    for t in attack.threads:
        t.start()
    sys.stdin.read()  # until the test closes it
    attack.stop.set()
    for t in attack.threads:
        t.join(timeout=15)
    with attack.printing:
        print(json.dumps({"unanswered": attack.unanswered}), flush=True)


if __name__ == "__main__":
    main()
