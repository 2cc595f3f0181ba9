#!/usr/bin/env python3
"""A Loop Library server that misbehaves, for the hostile-input tests (HostileServerTests).

Prints its port, then serves until killed. The first part of the path names the misbehaviour;
the rest is the Loop Library API path the client asks for (`/escape/api/loops/ID/bundle`):

  escape     404 with an error message full of terminal escapes
  drip       200, then one byte every 0.9 s, for ever
  declared   200 with a Content-Length of 5 GB, then a trickle
  endless    200, a JSON array that never ends, sent as fast as it goes
  gzipbomb   200, about 64 KiB of gzip that expands to 64 MiB
  redirect   302 to http://localhost:PORT/admin (another host name for this very server)
  catalog    200, a catalog page whose language, short id and author carry escapes and U+202E
  html       200, an HTML page where a bundle or JSON should be
  empty      200, nothing

Every request for /admin is counted in the file named by the first argument (a redirect that
should not have been followed).
"""
import gzip, json, socketserver, sys, time
from http.server import BaseHTTPRequestHandler, HTTPServer

ADMIN_LOG = sys.argv[1]
ESC = "\u001b]0;PWNED\u0007\u001b[2J"


def bomb():
    """About 64 KiB of gzip that expands to 64 MiB of JSON."""
    return gzip.compress(b"[" + b"0," * (32 << 20) + b"0]", compresslevel=6)


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def send(self, status, body, headers=()):
        self.send_response(status)
        for name, value in headers:
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        mode = self.path.strip("/").split("/")[0]
        try:
            if mode == "admin":
                with open(ADMIN_LOG, "a") as log:
                    log.write(self.path + "\n")
                self.send(200, b"admin")
            elif mode == "escape":
                self.send(404, json.dumps({"error": ESC + " no such loop"}).encode(), [("Content-Type", "application/json")])
            elif mode == "drip":
                self.send_response(200)
                self.send_header("Content-Length", "1000000")
                self.end_headers()
                while True:
                    self.wfile.write(b"x")
                    self.wfile.flush()
                    time.sleep(0.9)
            elif mode == "declared":
                self.send_response(200)
                self.send_header("Content-Length", str(5_000_000_000))
                self.end_headers()
                for _ in range(100):
                    self.wfile.write(b"x" * 1024)
                    time.sleep(0.1)
            elif mode == "endless":
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Transfer-Encoding", "chunked")
                self.end_headers()
                chunk = b"0," * 32768
                self.wfile.write(b"1\r\n[\r\n")
                while True:
                    self.wfile.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
            elif mode == "gzipbomb":
                self.send(200, bomb(), [("Content-Type", "application/json"), ("Content-Encoding", "gzip")])
            elif mode == "redirect":
                self.send(302, b"", [("Location", "http://localhost:%d/admin%s" % (self.server.server_port, self.path))])
            elif mode == "catalog":
                loop = {"id": "0" * 32, "shortID": "abc" + ESC, "title": "Title \u202egnp.exe", "language": ESC,
                        "translationLanguage": "en\u202e", "tags": [], "revision": 1, "author": "A" + ESC,
                        "authorFingerprint": "f" * 64, "groupCount": 1, "phraseCount": 1, "seconds": 1.0,
                        "published": "2026-01-01T00:00:00Z", "updated": "2026-01-01T00:00:00Z",
                        "recentDownloads": 0, "featured": False}
                self.send(200, json.dumps({"loops": [loop], "total": 1, "offset": 0, "limit": 20}).encode(),
                          [("Content-Type", "application/json")])
            elif mode == "html":
                self.send(200, b"<!DOCTYPE html><html><body>Welcome to nginx!</body></html>", [("Content-Type", "text/html")])
            elif mode == "empty":
                self.send(200, b"")
            else:
                self.send(404, b'{"error": "no such misbehaviour"}')
        except (BrokenPipeError, ConnectionResetError):
            pass


class Server(socketserver.ThreadingMixIn, HTTPServer):
    daemon_threads = True

    def handle_error(self, request, client_address):
        pass  # a client that hangs up on a misbehaviour is the point, not an error


server = Server(("127.0.0.1", 0), Handler)
print(server.server_port, flush=True)
server.serve_forever()
