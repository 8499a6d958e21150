#!/usr/bin/env python3
"""Request throughput of FrameServer beside a plain SwiftNIO server (make -C Benchmarks server).

The servers are those the idle benchmark measures (`TransportBench serve-idle KIND`, each in a
process of its own): FrameServer decoding each request as a Bench_Flat and encoding it back, with
its `async` handlers on Swift's global pool (the default) and on the event loop
(`handlersRunOnEventLoop`), and answering in the event loop's read (`runOnEventLoop`); beside
them plain SwiftNIO servers doing the same, one in a handler's channelRead and one under NIO's
async API (NIOAsyncChannel, a task per connection). Each mode of FrameServer is compared with
the plain server written the same way, and every server with the channelRead one. One client, written here
with the socket module, sends 64-byte Bench_Flat requests (length, command, request id, body)
with DEPTH of them in flight, and reads every echo. Each run starts every server and connects
to each, then takes turns in BLOCKS blocks (the order turning at each block), so that a slow
moment of the machine falls on every server alike; each row gives the median rate, the spread
and the per-run ratios. The client is the same for both, and
at 64 in flight it may bound the plain server's rate: the ratio is then an upper bound.

    server_echo.py TRANSPORTBENCH [RUNS]
    server_echo.py --instructions TRANSPORTBENCH KIND...

With --instructions (make -C Benchmarks server-profile), each server runs under callgrind
(TRANSPORTBENCH must be a copy valgrind can read, see profile-binary in the Makefile), once
for 20,000 requests and once for 80,000, 64 in flight; the difference of the two counts over
the 60,000 requests between them is the instructions a request costs the server, start-up
and warm-up left out.
"""
import os
import socket
import statistics
import struct
import subprocess
import sys
import time

BODY = bytes([0x22, 62]) + b"x" * 62  # Bench_Flat field 4 (bytes): 64 bytes in all
FRAME = 12 + len(BODY)
BLOCKS = max(1, int(os.environ.get("BLOCKS") or 10))  # BLOCKS=1: each server's run whole


def frame(number):
    return struct.pack(">III", 8 + len(BODY), 1, number & 0xFFFFFFFF) + BODY


class Server:
    """A server process (`TransportBench serve-idle KIND`) and the client's connection to it."""

    def __init__(self, binary, kind, wrapper=()):
        self.kind = kind
        self.process = subprocess.Popen([*wrapper, binary, "serve-idle", kind], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        try:
            port = int(self.process.stdout.readline().split()[1])
            self.client = socket.create_connection(("127.0.0.1", port), timeout=30)
        except BaseException:
            self.process.kill()
            raise
        self.client.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.pending = bytearray()

    def requests(self, depth, count):
        """`count` requests (rounded down to a multiple of `depth`), `depth` in flight; the seconds
        until every echo was read."""
        batch = b"".join(frame(n) for n in range(depth))
        start = time.perf_counter()
        for _ in range(count // depth):
            self.client.sendall(batch)
            while len(self.pending) < depth * FRAME:
                data = self.client.recv(1 << 20)
                if not data:
                    sys.exit(f"{self.kind}: the server closed the connection")
                self.pending.extend(data)
            del self.pending[: depth * FRAME]
        return time.perf_counter() - start

    def stop(self):
        self.client.close()
        self.process.stdin.write("quit\n")
        self.process.stdin.flush()
        self.process.wait(30)


def warm(server, depth):
    server.requests(depth, max(1, 2000 // depth) * depth)


def cpu():
    with open("/proc/cpuinfo") as info:
        model = next((line.split(":", 1)[1].strip() for line in info if line.startswith("model name")), "?")
    return f"CPU: {model}, {os.cpu_count()} cores; load {' '.join(open('/proc/loadavg').read().split()[:3])}"


def instructions(binary, kind, count):
    """The instructions callgrind counts in the server process serving `count` requests."""
    out = f"/tmp/server_echo.{os.getpid()}.callgrind"
    try:
        server = Server(binary, kind, ("valgrind", "--tool=callgrind", "--quiet", f"--callgrind-out-file={out}"))
        try:
            warm(server, 64)
            server.requests(64, count)
        finally:
            server.stop()
        with open(out) as profile:
            totals = next(line for line in profile if line.startswith("totals:") or line.startswith("summary:"))
        return int(totals.split()[1])
    finally:
        if os.path.exists(out):
            os.remove(out)


def main():
    if sys.argv[1] == "--instructions":
        binary = sys.argv[2]
        print(cpu())
        print()
        print("| server | instructions per request |")
        print("| --- | ---: |")
        for kind in sys.argv[3:]:
            per = (instructions(binary, kind, 80_000) - instructions(binary, kind, 20_000)) / 60_000
            print(f"| {kind} | {per:,.0f} |", flush=True)
        return
    binary = sys.argv[1]
    runs = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    print(cpu())
    print()
    # Each of FrameServer's modes beside the plain server written the same way: `async` handlers
    # beside NIO's async API, answering in the read beside a handler answering in channelRead.
    kinds = (("swiftframe", "FrameServer, `async` handlers on the global pool", "nio-async"),
             ("swiftframe-loop", "FrameServer, `async` handlers on the event loop", "nio-async"),
             ("nio-async", "plain SwiftNIO, async API (`NIOAsyncChannel`)", None),
             ("swiftframe-read", "FrameServer, answering in the read (`runOnEventLoop`)", "nio"),
             ("nio", "plain SwiftNIO, answering in `channelRead`", None))
    print("| requests in flight | server | rate (median) | spread (min–max) | ratio to its plain peer (medians) | per-run ratios | ratio to plain `channelRead` |")
    print("| ---: | --- | ---: | ---: | ---: | ---: | ---: |")
    order = [kind for kind, _, _ in kinds]
    for depth, count in ((1, 20_000), (64, 200_000)):
        rates = {kind: [] for kind in order}
        share = count // BLOCKS // depth * depth
        for run in range(runs):
            servers = []
            try:
                for kind in order:
                    servers.append(Server(binary, kind))
                seconds = dict.fromkeys(order, 0.0)
                for server in servers:
                    warm(server, depth)
                for block in range(BLOCKS):
                    turn = (run + block) % len(servers)
                    for server in servers[turn:] + servers[:turn]:
                        seconds[server.kind] += server.requests(depth, share)
            finally:
                for server in servers:
                    server.stop()
            for kind in order:
                rates[kind].append(share * BLOCKS / seconds[kind])

        def ratio(kind, peer):
            ours, theirs = rates[kind], rates[peer]
            ratios = [a / b for a, b in zip(ours, theirs)]
            return f"{statistics.median(ours) / statistics.median(theirs):.2f}×", f"{min(ratios):.2f}–{max(ratios):.2f}×"

        for kind, name, peer in kinds:
            ours = rates[kind]
            against_peer = ratio(kind, peer) if peer else ("", "")
            against_read = ratio(kind, "nio")[0] if kind != "nio" else ""
            print(f"| {depth} | {name} | {statistics.median(ours):,.0f}/s | {min(ours):,.0f}–{max(ours):,.0f} | {against_peer[0]} | {against_peer[1]} | {against_read} |", flush=True)
    print()
    print(f"At the end: load {' '.join(open('/proc/loadavg').read().split()[:3])}.")


if __name__ == "__main__":
    main()
