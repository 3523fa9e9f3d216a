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

One asyncio event loop serves every connection. The earlier thread-per-
connection http.server spent about a millisecond of CPU per request under
the GIL, so the ~70 shard requests a closure walk sends at once queued
behind each other for up to 70 ms beyond the modelled delay: a cost of
the server, not of the link, that grew with the client's parallelism.
Python 3 standard library only.
"""
import argparse
import asyncio
import json
import os
import signal
import socket
import sys
import threading
import time

REASONS = {200: "OK", 304: "Not Modified", 400: "Bad Request", 404: "Not Found"}
MAX_HEAD = 64 * 1024
CHUNK = 256 * 1024


class Link:
    def __init__(self, delay, bytes_per_second):
        self.delay = delay
        self.rate = bytes_per_second
        self.free_at = 0.0
        self.requests = 0
        self.bytes = 0
        self.by_kind = {}

    def count(self, kind, size):
        self.requests += 1
        self.bytes += size
        entry = self.by_kind.setdefault(kind, {"requests": 0, "bytes": 0})
        entry["requests"] += 1
        entry["bytes"] += size

    def reserve(self, size):
        """Seconds to wait before `size` more bytes may leave (one loop: no lock)."""
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


def answer(root, no_shards, target, if_none_match):
    """(status, body, kind, etag) for one GET."""
    path = target.split("?", 1)[0]
    parts = [p for p in path.split("/") if p]
    if path.startswith("/t/") and len(parts) > 2:
        parts = parts[2:]  # a token in the path: any token is accepted
    full = os.path.realpath(os.path.join(root, *parts))
    kind = kind_of(path)
    if (no_shards and kind in ("shard index", "shards")) or not full.startswith(root + os.sep) \
            or not os.path.isfile(full):
        return 404, b"not found", kind, None
    info = os.stat(full)
    etag = '"%x-%x"' % (info.st_size, info.st_mtime_ns)
    if etag in [t.strip() for t in if_none_match.split(",")]:
        return 304, b"", kind, etag
    with open(full, "rb") as f:
        return 200, f.read(), kind, etag


def make_handler(root, link, no_shards):
    async def handle(reader, writer):
        sock = writer.get_extra_info("socket")
        if sock is not None:
            # Headers and body leave in separate writes: with Nagle's algorithm
            # the body waits for the client's delayed ACK (~40 ms), a cost per
            # request that is not part of the link being modelled.
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                lines = head.decode("latin-1").split("\r\n")
                request = lines[0].split(" ")
                headers = {}
                for line in lines[1:]:
                    name, sep, value = line.partition(":")
                    if sep:
                        headers[name.strip().lower()] = value.strip()
                await asyncio.sleep(link.delay)
                # HEAD: rattler asks whether repodata.json.zst exists that way;
                # its answer has the GET's headers and no body.
                head_only = len(request) == 3 and request[0] == "HEAD"
                if len(request) != 3 or request[0] not in ("GET", "HEAD"):
                    status, body, kind, etag = 400, b"bad request", "other", None
                else:
                    status, body, kind, etag = answer(root, no_shards, request[1], headers.get("if-none-match", ""))
                link.count(kind, len(body))
                out = [f"HTTP/1.1 {status} {REASONS[status]}"]
                if etag:
                    out.append(f"ETag: {etag}")
                if status != 304:
                    out.append(f"Content-Length: {len(body)}")
                    out.append("Content-Type: application/octet-stream")
                writer.write(("\r\n".join(out) + "\r\n\r\n").encode("latin-1"))
                view = memoryview(b"" if head_only else body)
                for start in range(0, len(view), CHUNK):
                    piece = view[start:start + CHUNK]
                    wait = link.reserve(len(piece))
                    if wait > 0:
                        await asyncio.sleep(wait)
                    writer.write(piece)
                    # Waiting for the socket after every piece costs event
                    # loop turns that the bucket then never gives back.
                    if writer.transport.get_write_buffer_size() > 4 * CHUNK:
                        await writer.drain()
                await writer.drain()
                if headers.get("connection", "").lower() == "close" or status == 400:
                    break
        except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, ConnectionError):
            pass
        finally:
            writer.close()

    return handle


async def serve(args, link):
    handler = make_handler(os.path.realpath(args.root), link, args.no_shards)
    # A backlog of 256: a client opening tens of connections at once (as
    # parallel shard downloads do) must not see SYNs dropped and retried up
    # to a second later, which no CDN does.
    server = await asyncio.start_server(handler, "127.0.0.1", args.port, backlog=256, limit=MAX_HEAD)

    def write_stats(*_):
        if args.stats:
            with open(args.stats, "w") as f:
                json.dump({"requests": link.requests, "bytes": link.bytes, "by_kind": link.by_kind}, f)
        os._exit(0)

    asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, write_stats)
    threading.Thread(target=lambda: (sys.stdin.read(), write_stats()), daemon=True).start()
    print(server.sockets[0].getsockname()[1], flush=True)
    async with server:
        await server.serve_forever()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("root")
    parser.add_argument("--delay-ms", type=float, default=30)
    parser.add_argument("--mbps", type=float, default=50, help="megabytes per second")
    parser.add_argument("--no-shards", action="store_true")
    parser.add_argument("--stats")
    parser.add_argument("--port", type=int, default=0, help="0: one the OS picks")
    args = parser.parse_args()
    asyncio.run(serve(args, Link(args.delay_ms / 1000, args.mbps * 1e6)))


if __name__ == "__main__":
    main()
