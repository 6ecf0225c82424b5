#!/usr/bin/env python3
"""tests/report/cdp.py -- the least of a Chrome DevTools Protocol client
(Python standard library only): evaluate JavaScript in the page of a
headless Chromium that was started with --remote-debugging-port=0 and
--user-data-dir=DIR, talking only to 127.0.0.1.

  cdp.py eval DIR EXPR             print the value of EXPR (JSON)
  cdp.py wait DIR EXPR OLD SECS    poll EXPR until its value differs from
                                   OLD (JSON); print it and the seconds it
                                   took; exit 1 if SECS pass first
"""
import base64
import json
import os
import socket
import struct
import sys
import time
import urllib.request


def devtools_port(udd, timeout=20.0):
    path = os.path.join(udd, "DevToolsActivePort")
    end = time.time() + timeout
    while time.time() < end:
        try:
            with open(path) as f:
                return int(f.readline())
        except (OSError, ValueError):
            time.sleep(0.1)
    sys.exit("cdp: no DevToolsActivePort in %s" % udd)


def page_ws(port, timeout=20.0):
    end = time.time() + timeout
    while time.time() < end:
        with urllib.request.urlopen("http://127.0.0.1:%d/json/list" % port, timeout=5) as r:
            for t in json.load(r):
                if t.get("type") == "page" and t["url"].startswith("http"):
                    return t["webSocketDebuggerUrl"]
        time.sleep(0.1)
    sys.exit("cdp: no page target")


class WebSocket:
    def __init__(self, url):
        assert url.startswith("ws://127.0.0.1:")
        hostport, path = url[5:].split("/", 1)
        host, port = hostport.split(":")
        self.s = socket.create_connection((host, int(port)), timeout=10)
        key = base64.b64encode(os.urandom(16)).decode()
        self.s.sendall(("GET /%s HTTP/1.1\r\nHost: %s\r\nUpgrade: websocket\r\n"
                        "Connection: Upgrade\r\nSec-WebSocket-Key: %s\r\n"
                        "Sec-WebSocket-Version: 13\r\n\r\n" % (path, hostport, key)).encode())
        head = b""
        while b"\r\n\r\n" not in head:
            chunk = self.s.recv(1)
            if not chunk:
                sys.exit("cdp: websocket handshake failed")
            head += chunk
        if b" 101 " not in head.split(b"\r\n")[0]:
            sys.exit("cdp: websocket handshake refused")

    def _read(self, n):
        b = b""
        while len(b) < n:
            chunk = self.s.recv(n - len(b))
            if not chunk:
                sys.exit("cdp: connection closed")
            b += chunk
        return b

    def send(self, text):
        data = text.encode()
        mask = os.urandom(4)
        n = len(data)
        if n < 126:
            head = struct.pack("!BB", 0x81, 0x80 | n)
        elif n < 65536:
            head = struct.pack("!BBH", 0x81, 0x80 | 126, n)
        else:
            head = struct.pack("!BBQ", 0x81, 0x80 | 127, n)
        self.s.sendall(head + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(data)))

    def recv(self):
        msg = b""
        while True:
            b0, b1 = self._read(2)
            n = b1 & 0x7F
            if n == 126:
                n = struct.unpack("!H", self._read(2))[0]
            elif n == 127:
                n = struct.unpack("!Q", self._read(8))[0]
            payload = self._read(n)
            if b0 & 0x0F in (0x1, 0x0):
                msg += payload
                if b0 & 0x80:
                    return msg.decode()


def evaluate(ws, expr, ident=[0]):
    ident[0] += 1
    ws.send(json.dumps({"id": ident[0], "method": "Runtime.evaluate",
                        "params": {"expression": expr, "returnByValue": True}}))
    while True:
        m = json.loads(ws.recv())
        if m.get("id") == ident[0]:
            r = m.get("result", {}).get("result", {})
            return r.get("value")


def main():
    cmd, udd, expr = sys.argv[1:4]
    ws = WebSocket(page_ws(devtools_port(udd)))
    if cmd == "eval":
        print(json.dumps(evaluate(ws, expr)))
        return
    old, secs = json.loads(sys.argv[4]), float(sys.argv[5])
    start = time.time()
    while time.time() - start < secs:
        try:
            v = evaluate(ws, expr)
        except SystemExit:  # the page reloaded under us: reconnect
            ws = WebSocket(page_ws(devtools_port(udd)))
            continue
        if v is not None and v != old:
            print(json.dumps(v), "%.2f" % (time.time() - start))
            return
        time.sleep(0.1)
    sys.exit("cdp: %s still %s after %s s" % (expr, json.dumps(old), secs))


if __name__ == "__main__":
    main()
