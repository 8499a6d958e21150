#!/usr/bin/env python3
"""A NAT box for swiftframe's heartbeat tests: a TCP forwarder that forgets idle connections.

    python3 Tests/Peers/nat.py --to PORT --idle SECONDS [--port 0] [--watch-stdin]

It listens on 127.0.0.1 (printing `listening PORT` on stdout, as peer.py's servers do) and
forwards each connection it accepts to 127.0.0.1:PORT (a peer.py server), both ways. Like
the NAT boxes and carrier gateways in front of phones, it forgets a connection that has been
idle (no byte either way) for longer than --idle seconds: from then on it forwards nothing,
in neither direction, and sends nothing either, no FIN and no RST. Bytes sent into a
forgotten connection are read and thrown away, so each end sees a connection that is open
and silent, and only a heartbeat that goes unanswered can tell it is dead.

A connection is forgotten when the first bytes after a gap longer than --idle arrive (they
and all later ones are dropped), which is what a NAT box that expires its entries on a
timer looks like from either end. SIGUSR1 forgets every connection open at once, as moving
to another network does. When the client end closes, both ends are closed; when the server
end closes a connection that is still forwarded, the close is passed on.

It stops at --lifetime, stdin EOF with --watch-stdin, SIGTERM or SIGINT, with status 0.
"""

import argparse
import asyncio
import itertools
import signal
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import peer  # noqa: E402  (its logging and stdin watch)

log = peer.log


class Mapping:
    """One forwarded connection: the client's end, the server's end, and when a byte last
    went through."""

    def __init__(self, number, idle):
        self.number = number
        self.idle = idle
        self.last = time.monotonic()
        self.forgotten = False
        self.writers = []

    def forget(self, why):
        if not self.forgotten:
            self.forgotten = True
            log(f"conn {self.number}: forgotten ({why}); dropping its bytes both ways")

    def passes(self):
        """True if bytes arriving now go through; false once the connection is forgotten."""
        now = time.monotonic()
        if not self.forgotten and self.idle > 0 and now - self.last > self.idle:
            self.forget(f"idle {now - self.last:.3f} s, over {self.idle} s")
        if self.forgotten:
            return False
        self.last = now
        return True

    def close(self):
        for writer in self.writers:
            writer.close()

    async def pump(self, reader, writer):
        """Copies reader to writer until EOF; returns when that side has closed."""
        while True:
            try:
                data = await reader.read(65536)
            except (ConnectionError, OSError):
                data = b""
            if not data:
                return
            if self.passes():
                writer.write(data)
                try:
                    await writer.drain()
                except (ConnectionError, OSError):
                    return

    async def run(self, client_reader, client_writer, port):
        try:
            server_reader, server_writer = await asyncio.open_connection("127.0.0.1", port)
        except OSError as error:
            log(f"conn {self.number}: cannot reach 127.0.0.1:{port}: {error}")
            client_writer.close()
            return
        self.writers = [client_writer, server_writer]
        to_server = asyncio.ensure_future(self.pump(client_reader, server_writer))
        to_client = asyncio.ensure_future(self.pump(server_reader, client_writer))
        try:
            done, _ = await asyncio.wait([to_server, to_client], return_when=asyncio.FIRST_COMPLETED)
            if to_client in done and self.forgotten:
                # The server closed a forgotten connection: the client must not hear of it.
                await to_server
            log(f"conn {self.number}: closed")
        finally:
            to_server.cancel()
            to_client.cancel()
            self.close()


async def serve(opts):
    loop = asyncio.get_running_loop()
    stop = asyncio.Event()
    numbers = itertools.count(1)
    mappings = set()
    tasks = set()

    async def on_connect(reader, writer):
        mapping = Mapping(next(numbers), opts.idle)
        mappings.add(mapping)
        tasks.add(asyncio.current_task())
        try:
            await mapping.run(reader, writer, opts.to)
        except asyncio.CancelledError:
            pass
        finally:
            mappings.discard(mapping)
            tasks.discard(asyncio.current_task())

    def forget_all():
        log(f"SIGUSR1: forgetting {len(mappings)} connections")
        for mapping in mappings:
            mapping.forget("SIGUSR1")

    server = await asyncio.start_server(on_connect, "127.0.0.1", opts.port, reuse_address=True)
    port = server.sockets[0].getsockname()[1]
    print(f"listening {port}", flush=True)
    forgetting = f"forgetting connections idle over {opts.idle} s" if opts.idle > 0 else "never forgetting"
    log(f"listening on 127.0.0.1:{port}, forwarding to 127.0.0.1:{opts.to}, {forgetting}")

    loop.call_later(opts.lifetime, stop.set)
    for signal_number in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signal_number, stop.set)
    loop.add_signal_handler(signal.SIGUSR1, forget_all)
    # A parent may have started us with signals blocked (the mask is inherited).
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGUSR1, signal.SIGTERM, signal.SIGINT})
    if opts.watch_stdin:
        peer.watch_stdin(loop, stop)
    await stop.wait()

    log("stopping")
    server.close()
    for mapping in list(mappings):
        mapping.close()
    for task in list(tasks):
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    return 0


def parse_args(argv):
    parser = argparse.ArgumentParser(
        prog="nat.py", description="a TCP forwarder that silently forgets idle connections",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    parser.add_argument("--to", type=int, required=True, metavar="PORT",
                        help="the port on 127.0.0.1 to forward to")
    parser.add_argument("--idle", type=float, default=0, metavar="SECONDS",
                        help="forget a connection idle longer than this (0: never)")
    parser.add_argument("--port", type=int, default=0, help="port to listen on (0: a free one)")
    parser.add_argument("--lifetime", type=float, default=120, help="stop after this many seconds")
    parser.add_argument("--watch-stdin", action="store_true", help="stop when stdin reaches EOF")
    return parser.parse_args(argv)


def main(argv=None):
    opts = parse_args(argv)
    peer.LOG_PREFIX = "nat"
    peer.quiet_stderr_when_full()
    return asyncio.run(serve(opts))


if __name__ == "__main__":
    sys.exit(main())
