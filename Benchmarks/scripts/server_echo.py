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
with DEPTH of them in flight, and reads every echo. Runs rotate through the servers; each row
gives the median rate, the spread and the per-run ratios. The client is the same for both, and
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


def frame(number):
    return struct.pack(">III", 8 + len(BODY), 1, number & 0xFFFFFFFF) + BODY


def rate(binary, kind, depth, count, wrapper=()):
    server = subprocess.Popen([*wrapper, binary, "serve-idle", kind], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        port = int(server.stdout.readline().split()[1])
        client = socket.create_connection(("127.0.0.1", port), timeout=30)
        client.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        batch = b"".join(frame(n) for n in range(depth))
        pending = bytearray()

        def echoes(frames):
            while len(pending) < frames * FRAME:
                data = client.recv(1 << 20)
                if not data:
                    sys.exit(f"{kind}: the server closed the connection")
                pending.extend(data)
            del pending[: frames * FRAME]

        for _ in range(max(1, 2000 // depth)):  # warm-up
            client.sendall(batch)
            echoes(depth)
        start = time.perf_counter()
        for _ in range(count // depth):
            client.sendall(batch)
            echoes(depth)
        seconds = time.perf_counter() - start
        client.close()
        return count // depth * depth / seconds
    finally:
        server.stdin.write("quit\n")
        server.stdin.flush()
        server.wait(30)


def cpu():
    with open("/proc/cpuinfo") as info:
        model = next((line.split(":", 1)[1].strip() for line in info if line.startswith("model name")), "?")
    return f"CPU: {model}, {os.cpu_count()} cores; load {' '.join(open('/proc/loadavg').read().split()[:3])}"


def instructions(binary, kind, count):
    """The instructions callgrind counts in the server process serving `count` requests."""
    out = f"/tmp/server_echo.{os.getpid()}.callgrind"
    try:
        rate(binary, kind, 64, count, ("valgrind", "--tool=callgrind", "--quiet", f"--callgrind-out-file={out}"))
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
    for depth, count in ((1, 20_000), (64, 200_000)):
        rates = {kind: [] for kind, _, _ in kinds}
        for run in range(runs):
            order = [kind for kind, _, _ in kinds]
            for kind in order[run % len(order):] + order[: run % len(order)]:
                rates[kind].append(rate(binary, kind, depth, count))

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
