#!/usr/bin/env python3
"""A local HTTP server with a link model, for cold-start benchmarks that mean
what they would on a real network: every request waits DELAY before its
answer (a round trip to a CDN), and all response bodies together share one
bandwidth cap (a token bucket over every connection).

    link_server.py ROOT [--delay-ms 30] [--mbps 50] [--no-shards] [--stats FILE]

Serves ROOT over HTTP/1.1 with keep-alive, answers ETag / If-None-Match with
304, announces the port on stdout, and on SIGTERM (or when stdin closes)
writes {"requests": N, "bytes": N, "by_kind": {...}} to --stats.
--no-shards answers 404 for repodata_shards.msgpack.zst, which turns a
sharded channel into a plain one for the non-sharded comparison.
Python 3 standard library only.
"""
import argparse
import http.server
import json
import os
import signal
import sys
import threading
import time


class Link:
    def __init__(self, delay, bytes_per_second):
        self.delay = delay
        self.rate = bytes_per_second
        self.lock = threading.Lock()
        self.free_at = 0.0
        self.requests = 0
        self.bytes = 0
        self.by_kind = {}

    def count(self, kind, size):
        with self.lock:
            self.requests += 1
            self.bytes += size
            entry = self.by_kind.setdefault(kind, {"requests": 0, "bytes": 0})
            entry["requests"] += 1
            entry["bytes"] += size

    def reserve(self, size):
        """Seconds to wait before `size` more bytes may leave."""
        with self.lock:
            now = time.monotonic()
            start = max(now, self.free_at)
            self.free_at = start + size / self.rate
            return self.free_at - now


def kind_of(path):
    name = path.rsplit("/", 1)[-1]
    if name == "repodata_shards.msgpack.zst":
        return "shard index"
    if name.endswith(".msgpack.zst"):
        return "shards"
    if name.startswith("repodata.json"):
        return "repodata.json"
    return "other"


def make_handler(root, link, no_shards):
    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        # Headers and body leave in separate writes: with Nagle's algorithm
        # the body waits for the client's delayed ACK (~40 ms), a cost per
        # request that is not part of the link being modelled.
        disable_nagle_algorithm = True

        def log_message(self, *args):
            pass

        def do_GET(self):
            time.sleep(link.delay)
            path = self.path.split("?", 1)[0]
            parts = [p for p in path.split("/") if p]
            if path.startswith("/t/") and len(parts) > 2:
                parts = parts[2:]  # a token in the path: any token is accepted
            full = os.path.realpath(os.path.join(root, *parts))
            kind = kind_of(path)
            if (no_shards and kind in ("shard index", "shards")) or not full.startswith(root + os.sep) \
                    or not os.path.isfile(full):
                return self.send(404, b"not found", kind)
            info = os.stat(full)
            etag = '"%x-%x"' % (info.st_size, info.st_mtime_ns)
            if etag in [t.strip() for t in (self.headers.get("If-None-Match") or "").split(",")]:
                return self.send(304, b"", kind, etag)
            with open(full, "rb") as f:
                body = f.read()
            return self.send(200, body, kind, etag)

        def send(self, status, body, kind, etag=None):
            link.count(kind, len(body))
            self.send_response(status)
            if etag:
                self.send_header("ETag", etag)
            if status != 304:
                self.send_header("Content-Length", str(len(body)))
                self.send_header("Content-Type", "application/octet-stream")
            self.end_headers()
            chunk = 64 * 1024
            for start in range(0, len(body), chunk):
                piece = body[start:start + chunk]
                wait = link.reserve(len(piece))
                if wait > 0:
                    time.sleep(wait)
                self.wfile.write(piece)

    return Handler


class LinkServer(http.server.ThreadingHTTPServer):
    # socketserver's listen backlog is 5: a client opening tens of
    # connections at once (as parallel shard downloads do) would see its
    # SYNs dropped and retried up to a second later, which no CDN does.
    request_queue_size = 256
    daemon_threads = True


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("root")
    parser.add_argument("--delay-ms", type=float, default=30)
    parser.add_argument("--mbps", type=float, default=50, help="megabytes per second")
    parser.add_argument("--no-shards", action="store_true")
    parser.add_argument("--stats")
    parser.add_argument("--port", type=int, default=0, help="0: one the OS picks")
    args = parser.parse_args()
    link = Link(args.delay_ms / 1000, args.mbps * 1e6)
    handler = make_handler(os.path.realpath(args.root), link, args.no_shards)
    server = LinkServer(("127.0.0.1", args.port), handler)

    def write_stats(*_):
        if args.stats:
            with open(args.stats, "w") as f:
                json.dump({"requests": link.requests, "bytes": link.bytes, "by_kind": link.by_kind}, f)
        os._exit(0)

    signal.signal(signal.SIGTERM, write_stats)
    threading.Thread(target=lambda: (sys.stdin.read(), write_stats()), daemon=True).start()
    print(server.server_address[1], flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
