#!/usr/bin/env python3
"""A real HTTP server for gpuenv's repodata fetch tests.

Usage: test_http_server.py ROOT [--tls CERT KEY] [--client-ca CA]

--tls serves HTTPS with the server certificate CERT and its key KEY (PEM);
--client-ca then requires a client certificate signed by CA.

A request for an absolute URL ("GET http://other.host/x HTTP/1.1", as a
client sends to an HTTP proxy) is answered from ROOT like a request for /x,
and logged with that URL as "proxied_url": the server doubles as a proxy
for tests of proxy settings.

Serves the files under ROOT on 127.0.0.1 at a port the OS picks, with an ETag
(md5 of the content), Last-Modified (the file's mtime) and Cache-Control,
and answers conditional requests (If-None-Match, If-Modified-Since) with 304.

Control channel: stdin/stdout, one JSON object per line. The first line
written to stdout is {"port": N}. Each command line gets one JSON reply line.
When stdin closes (the test process ended, even by a crash) the server exits.

Commands:
  {"op": "fault", "path": P, "kind": K, "times": N, ...}
      queue a misbehaviour for the next N requests of path P ("*": any path;
      N = -1: every request). Faults of one path are used in queue order.
      kinds:
        status    answer `status` (e.g. 500) with a short HTML body, or with
                  `body` as plain text when given
        delay     sleep `seconds` before answering, then answer normally
        truncate  announce the full Content-Length, send half, close
        drop      close the connection without answering
        body      answer 200 with `body` (a string) instead of the file
        redirect  answer `status` (default 302) with `Location: location`
  {"op": "latency", "seconds": S}   sleep S before every answer
  {"op": "cache_control", "value": V}   the Cache-Control header to send
  {"op": "require_auth", "token": T}   serve only paths under /t/T/ (the
                                 prefix is dropped before serving), 403 otherwise
  {"op": "require_auth", "basic": "user:password"}   serve only requests
                                 with that Basic Authorization, 401 otherwise
                                 (token and basic may both be required)
  {"op": "gzip", "enabled": B}   gzip-encode files for clients that accept it
                                 (as most channels serve repodata.json)
  {"op": "requests"}   -> {"requests": [{"path", "proxied_url", "if_none_match",
                          "if_modified_since", "authorization", "status",
                          "start", "end"}]}
                          (start: request read; end: answer about to be
                          sent, null while still pending; both
                          time.monotonic() of this process; status 0 while
                          pending or for a dropped connection, -1 when the
                          client hung up first)
  {"op": "clear"}      forget faults, the request log and require_auth
"""

import base64
import email.utils
import gzip
import hashlib
import http.server
import json
import os
import socket
import ssl
import sys
import urllib.parse
import threading
import time


class State:
    def __init__(self, root):
        self.root = os.path.realpath(root)
        self.lock = threading.Lock()
        self.faults = []  # dicts with "path", "kind", "times", ...
        self.log = []
        self.latency = 0.0
        self.cache_control = "public, max-age=60"
        self.gzip = False
        self.token = None  # require_auth
        self.basic = None

    def take_fault(self, path):
        with self.lock:
            for fault in self.faults:
                if fault["times"] != 0 and fault["path"] in (path, "*"):
                    if fault["times"] > 0:
                        fault["times"] -= 1
                    return dict(fault)
        return None

    def record(self, entry):
        with self.lock:
            self.log.append(entry)


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "gpuenv-test-server"
    state = None  # set before serving

    def log_message(self, *args):
        pass  # the request log is available through the control channel

    def do_GET(self):
        # The entry is logged at once and completed just before the answer's
        # bytes go out, so a client that has its answer always finds it in
        # the log.
        proxied_url = None
        if self.path.startswith(("http://", "https://")):
            proxied_url = self.path
            parts = urllib.parse.urlsplit(self.path)
            self.path = parts.path + ("?" + parts.query if parts.query else "")
        self.entry = {
            "path": self.path,
            "proxied_url": proxied_url,
            "if_none_match": self.headers.get("If-None-Match"),
            "if_modified_since": self.headers.get("If-Modified-Since"),
            "authorization": self.headers.get("Authorization"),
            "status": 0,
            "start": time.monotonic(),
            "end": None,
        }
        self.state.record(self.entry)
        try:
            self.answer()
        except (BrokenPipeError, ConnectionResetError):
            with self.state.lock:
                self.entry["status"] = -1  # the client gave up (e.g. its timeout)
            self.close_connection = True

    def about_to_answer(self, status):
        with self.state.lock:
            self.entry["status"] = status
            self.entry["end"] = time.monotonic()

    def answer(self):
        state = self.state
        if state.latency > 0:
            time.sleep(state.latency)
        served_path = self.path
        if state.token is not None:
            prefix = "/t/" + state.token + "/"
            if not served_path.startswith(prefix):
                return self.send_bytes(403, b"a token is required", "text/plain")
            served_path = served_path[len(prefix) - 1:]
        if state.basic is not None:
            expected = "Basic " + base64.b64encode(state.basic.encode()).decode()
            if self.headers.get("Authorization") != expected:
                return self.send_bytes(401, b"credentials are required", "text/plain",
                                       {"WWW-Authenticate": 'Basic realm="test"'})
        fault = state.take_fault(served_path)
        kind = fault["kind"] if fault else None
        if kind == "delay":
            time.sleep(float(fault["seconds"]))
        elif kind == "status":
            if "body" in fault:
                return self.send_bytes(int(fault["status"]), fault["body"].encode("latin-1"),
                                       "text/plain")
            body = b"<html><body>injected error</body></html>"
            return self.send_bytes(int(fault["status"]), body, "text/html")
        elif kind == "drop":
            self.about_to_answer(0)
            self.close_connection = True
            self.connection.shutdown(socket.SHUT_RDWR)
            return 0
        elif kind == "body":
            return self.send_bytes(200, fault["body"].encode("latin-1"), "application/json")
        elif kind == "redirect":
            return self.send_bytes(int(fault.get("status", 302)), b"moved", "text/plain",
                                   {"Location": fault["location"]})

        path = os.path.realpath(os.path.join(state.root, served_path.lstrip("/").split("?")[0]))
        if not path.startswith(state.root + os.sep) or not os.path.isfile(path):
            return self.send_bytes(404, b"<html><body>not found</body></html>", "text/html")
        with open(path, "rb") as f:
            content = f.read()
        mtime = int(os.stat(path).st_mtime)
        etag = '"%s"' % hashlib.md5(content).hexdigest()
        last_modified = email.utils.formatdate(mtime, usegmt=True)
        validators = {"ETag": etag, "Last-Modified": last_modified,
                      "Cache-Control": state.cache_control}

        if self.not_modified(etag, mtime):
            self.about_to_answer(304)
            self.send_response(304)
            for name, value in validators.items():
                self.send_header(name, value)
            self.end_headers()
            return 304

        if kind == "truncate":
            self.about_to_answer(200)
            self.send_response(200)
            self.send_header("Content-Type", "application/octet-stream")
            self.send_header("Content-Length", str(len(content)))
            for name, value in validators.items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(content[: len(content) // 2])
            self.wfile.flush()
            self.close_connection = True
            self.connection.shutdown(socket.SHUT_RDWR)
            return 200
        if state.gzip and "gzip" in (self.headers.get("Accept-Encoding") or ""):
            validators["Content-Encoding"] = "gzip"
            content = gzip.compress(content)
        return self.send_bytes(200, content, "application/octet-stream", validators)

    def not_modified(self, etag, mtime):
        if_none_match = self.headers.get("If-None-Match")
        if if_none_match is not None:
            tags = [t.strip() for t in if_none_match.split(",")]
            return "*" in tags or etag in tags or ("W/" + etag) in tags
        if_modified_since = self.headers.get("If-Modified-Since")
        if if_modified_since is not None:
            try:
                since = email.utils.parsedate_to_datetime(if_modified_since).timestamp()
            except (TypeError, ValueError):
                return False
            return mtime <= since
        return False

    def send_bytes(self, status, body, content_type, extra_headers=None):
        self.about_to_answer(status)
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        for name, value in (extra_headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(body)
        return status


class Server(http.server.ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 128  # many parallel transfers connect at once

    def handle_error(self, request, client_address):
        pass  # clients that time out and hang up are part of the tests


def reply(obj):
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def control_loop(state):
    for line in sys.stdin:
        line = line.strip()
        if not line:
            continue
        try:
            command = json.loads(line)
            op = command["op"]
            with state.lock:
                if op == "fault":
                    fault = dict(command)
                    fault.setdefault("times", 1)
                    state.faults.append(fault)
                    reply({"ok": True})
                elif op == "latency":
                    state.latency = float(command["seconds"])
                    reply({"ok": True})
                elif op == "gzip":
                    state.gzip = bool(command["enabled"])
                    reply({"ok": True})
                elif op == "require_auth":
                    state.token = command.get("token", state.token)
                    state.basic = command.get("basic", state.basic)
                    reply({"ok": True})
                elif op == "cache_control":
                    state.cache_control = command["value"]
                    reply({"ok": True})
                elif op == "requests":
                    reply({"ok": True, "requests": [dict(e) for e in state.log]})
                elif op == "clear":
                    state.faults.clear()
                    state.log.clear()
                    state.token = None
                    state.basic = None
                    reply({"ok": True})
                else:
                    reply({"ok": False, "error": "unknown op " + op})
        except Exception as error:  # report, keep serving
            reply({"ok": False, "error": repr(error)})


def tls_context(args):
    if "--tls" not in args:
        return None
    at = args.index("--tls")
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(args[at + 1], args[at + 2])
    if "--client-ca" in args:
        context.verify_mode = ssl.CERT_REQUIRED
        context.load_verify_locations(args[args.index("--client-ca") + 1])
    return context


class TlsServer(Server):
    """Does the TLS handshake in the handler's thread, not the accepting one:
    a client that fails it (an untrusted certificate) must not stall the
    others."""

    context = None

    def finish_request(self, request, client_address):
        try:
            request = self.context.wrap_socket(request, server_side=True)
        except (ssl.SSLError, OSError):
            return  # the client refused us, or we refused its certificate
        try:
            super().finish_request(request, client_address)
        finally:
            request.close()


def main():
    args = sys.argv[1:]
    if len(args) < 1 or args[0].startswith("--"):
        sys.exit("usage: test_http_server.py ROOT [--tls CERT KEY] [--client-ca CA]")
    state = State(args[0])
    Handler.state = state
    context = tls_context(args)
    if context is None:
        server = Server(("127.0.0.1", 0), Handler)
    else:
        TlsServer.context = context
        server = TlsServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05},
                     daemon=True).start()
    reply({"port": server.server_address[1]})
    control_loop(state)  # returns when stdin closes
    os._exit(0)  # do not wait for handler threads still sleeping


if __name__ == "__main__":
    main()
