#!/usr/bin/env python3
"""tests/report/trickle.py HOST:PORT N SECONDS -- N connections that each
send one header line every second and never finish their request (the
slow-headers attack on `ukcov serve`).  Prints "open N" once all are
connected, then keeps trickling until SECONDS pass or every connection
was closed by the server; prints "closed K" (how many the server
closed).  Every loop is bounded."""
import socket
import sys
import time

host, port = sys.argv[1].split(":")
n, secs = int(sys.argv[2]), float(sys.argv[3])
socks = []
for i in range(n):
    s = socket.create_connection((host, int(port)), timeout=5)
    s.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1:%s\r\n" % port.encode())
    socks.append(s)
print("open", len(socks), flush=True)
closed = set()
end = time.monotonic() + secs
while time.monotonic() < end and len(closed) < n:
    for i, s in enumerate(socks):
        if i in closed:
            continue
        try:
            s.sendall(b"X-Slow: 1\r\n")
        except OSError:
            closed.add(i)
    time.sleep(1)
print("closed", len(closed), flush=True)
