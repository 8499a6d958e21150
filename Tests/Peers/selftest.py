#!/usr/bin/env python3
"""Self-test of the reference peers in peer.py.

Starts each server role (plainly and with --split) and talks to it over raw sockets
(urllib and http.client for the http role), checking every answer and every
misbehaviour switch. The client roles run against small servers written here. The
frames are built and taken apart with struct in this file, not with peer.py's codecs;
only the protobuf classes come from peer.py (protoc-generated).

    python3 Tests/Peers/selftest.py [NAME-SUBSTRING...]

The last line is `N passed, M failed`; the exit status is 1 if any test failed.
"""

import asyncio
import http.client
import random
import select
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time
import traceback
import urllib.error
import urllib.request
from pathlib import Path

HERE = Path(__file__).resolve().parent
PEER = HERE / "peer.py"
sys.path.insert(0, str(HERE))
import peer  # noqa: E402  (only for load_protos)

pb = peer.load_protos()
game, erlang, common, user, error, base = pb.game, pb.erlang, pb.common, pb.user, pb.error, pb.base

# ---------------------------------------------------------------------------------------
# Frames, built with struct (big-endian)

def game_frame(cmd, body=b""):
    return struct.pack(">III", 0xFF, len(body) + 4, cmd) + body


def erlang_frame(protocol, body=b""):
    return struct.pack(">IH", len(body) + 2, protocol) + body


def im_frame(seq, frame_type, body=b""):
    return struct.pack(">BIBH", 0x81, seq, frame_type, len(body)) + body


def game_http_request(player_id, session_id, cmd, body=b""):
    return struct.pack(">IQQII", 0xFF, player_id, session_id, len(body) + 4, cmd) + body


def test_req(param1, param2):
    return game_frame(game.CMD_TEST, game.Test_Req(param1=param1, param2=param2).SerializeToString())


def im_request(seq, method, cmd, inner):
    """An im type-2 frame: Common{method, User_msg{cmd, inner}}."""
    message = user.User_msg(cmd=cmd, body=inner.SerializeToString()).SerializeToString()
    return im_frame(seq, 2, common.Common(method=method, body=message).SerializeToString())


def login(seq, nick, pwd):
    return im_request(seq, common.common_method_user, user.User_cmd_login,
                      user.login_request(nick_name=nick, pwd=pwd))


def user_info(seq, uid):
    return im_request(seq, common.common_method_user, user.User_cmd_user_info,
                      user.User_info_request(uid=uid))


class Closed(Exception):
    """The other side closed the connection."""


class Conn:
    """A blocking socket with exact reads and the three frame readers."""

    def __init__(self, port=None, sock=None):
        self.sock = sock or socket.create_connection(("127.0.0.1", port), timeout=5)
        self.buffer = b""
        self.reads = 0      # recv calls that returned data

    def send(self, data, split=False):
        """Sends at once, or with split=True in pieces of 1..5 bytes with tiny pauses."""
        if not split:
            self.sock.sendall(data)
            return
        rng = random.Random(len(data))
        start = 0
        while start < len(data):
            end = start + rng.randint(1, 5)
            self.sock.sendall(data[start:end])
            start = end
            time.sleep(0.0003)

    def recv_exact(self, count, timeout=5):
        deadline = time.monotonic() + timeout
        while len(self.buffer) < count:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"waited {timeout} s for {count} bytes, have {len(self.buffer)}")
            self.sock.settimeout(left)
            try:
                chunk = self.sock.recv(65536)
            except socket.timeout:
                continue
            except ConnectionResetError:
                chunk = b""
            if not chunk:
                raise Closed(f"closed with {len(self.buffer)} of {count} bytes read")
            self.reads += 1
            self.buffer += chunk
        data, self.buffer = self.buffer[:count], self.buffer[count:]
        return data

    def game(self, timeout=5):
        """(cmd, body) of the next game frame."""
        magic, size, cmd = struct.unpack(">III", self.recv_exact(12, timeout))
        assert magic == 0xFF, f"bad magic {magic:#x}"
        return cmd, self.recv_exact(size - 4, timeout)

    def erlang(self, timeout=5):
        length, protocol = struct.unpack(">IH", self.recv_exact(6, timeout))
        return protocol, self.recv_exact(length - 2, timeout)

    def im(self, timeout=5):
        """(seq, type, body) of the next im frame."""
        magic, seq, frame_type, length = struct.unpack(">BIBH", self.recv_exact(8, timeout))
        assert magic == 0x81, f"bad magic {magic:#x}"
        return seq, frame_type, self.recv_exact(length, timeout)

    def closes(self, timeout=3):
        """True if the other side closes within `timeout` (data before that is dropped)."""
        deadline = time.monotonic() + timeout
        self.buffer = b""
        while time.monotonic() < deadline:
            self.sock.settimeout(max(0.01, deadline - time.monotonic()))
            try:
                if not self.sock.recv(65536):
                    return True
            except socket.timeout:
                pass
            except ConnectionResetError:
                return True
        return False

    def silent(self, seconds=0.3):
        """True if nothing arrives (and no close) for `seconds`."""
        if self.buffer:
            return False
        ready, _, _ = select.select([self.sock], [], [], seconds)
        return not ready

    def close(self):
        self.sock.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


# ---------------------------------------------------------------------------------------
# Peer processes

class Server:
    """A running server role; stopped with SIGTERM on exit, which must end it with 0."""

    def __init__(self, role, *args, port=0, stdin=subprocess.PIPE, stderr=None, lifetime=50):
        self.role = role
        self.errors = tempfile.TemporaryFile()
        command = [sys.executable, str(PEER), role, "--port", str(port), "--lifetime",
                   str(lifetime), *map(str, args)]
        self.process = subprocess.Popen(command, stdin=stdin, stdout=subprocess.PIPE,
                                        stderr=stderr or self.errors)
        ready, _, _ = select.select([self.process.stdout], [], [], 15)
        line = self.process.stdout.readline().decode() if ready else ""
        if not line.startswith("listening "):
            self.process.kill()
            raise AssertionError(f"{role} did not start: {line!r}\n{self.stderr()}")
        self.port = int(line.split()[1])

    def stderr(self):
        self.errors.seek(0)
        return self.errors.read().decode(errors="replace")

    def connect(self):
        return Conn(self.port)

    def stop(self):
        """Stops the server; returns its exit status and what else it printed on stdout."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(5)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        return self.process.returncode, self.process.stdout.read()

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc, tb):
        status, rest = self.stop()
        if exc_type is None:
            assert status == 0, f"{self.role} exited with {status}\n{self.stderr()}"
            assert rest == b"", f"{self.role} printed more than its listening line: {rest!r}"
            log = self.stderr()
            for sign in ("Traceback", "never retrieved", "raised exception"):
                assert sign not in log, f"{self.role} logged {sign!r}:\n{log[-3000:]}"
        elif exc_type is not None and not isinstance(exc, KeyboardInterrupt):
            print(f"--- {self.role} stderr ---\n{self.stderr()[-3000:]}")


def run_client(role, *args, timeout=20):
    result = subprocess.run([sys.executable, str(PEER), role, *map(str, args)],
                            capture_output=True, text=True, timeout=timeout,
                            stdin=subprocess.DEVNULL)
    return result.returncode, result.stdout


class MiniServer:
    """A one-connection server written here, for the client roles: `serve(conn)` runs in
    a thread with the accepted connection."""

    def __init__(self, serve):
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.failure = None
        self.thread = threading.Thread(target=self._run, args=(serve,), daemon=True)
        self.thread.start()

    def _run(self, serve):
        try:
            sock, _ = self.listener.accept()
            with Conn(sock=sock) as conn:
                serve(conn)
        except (Closed, OSError):
            pass
        except Exception as failure:      # reported by the test
            self.failure = failure

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.thread.join(10)
        self.listener.close()
        if self.failure:
            raise self.failure


# ---------------------------------------------------------------------------------------
# Tests

TESTS = []


def test(*variants):
    """Registers a test, once per variant (passed as the argument `split`)."""
    def register(function):
        for split in variants or (None,):
            name = function.__name__ + {None: "", False: " (plain)", True: " (split)"}[split]
            TESTS.append((name, function, () if split is None else (split,)))
        return function
    return register


def split_args(split):
    return ["--split"] if split else []


def expect_rsp(frame, result1, result2):
    cmd, body = frame
    assert cmd == game.CMD_TEST, f"cmd {cmd}, expected CMD_TEST"
    rsp = game.Test_Rsp.FromString(body)
    assert (rsp.result1, rsp.result2) == (result1, result2), f"got {rsp}"


def expect_error(frame, code, message):
    cmd, body = frame
    assert cmd == game.CMD_ERROR, f"cmd {cmd}, expected CMD_ERROR"
    rsp = game.Error_Rsp.FromString(body)
    assert (rsp.code, rsp.message) == (code, message), f"got {rsp}"


# --- game

@test(False, True)
def game_answers(split):
    with Server("game", *split_args(split)) as server, server.connect() as conn:
        long_param = "x" * 200
        conn.send(test_req(long_param, 21) + game_frame(game.CMD_HEART_BEAT)
                  + game_frame(game.CMD_SYSTEM_LOGOUT) + game_frame(77, b"\x08\x01"), split)
        expect_rsp(conn.game(), "echo:" + long_param, 42)
        assert conn.game() == (game.CMD_HEART_BEAT, b"")
        expect_error(conn.game(), 401, "logged out")
        expect_error(conn.game(), 404, "unknown command 77")
        if split:
            assert conn.reads >= 8, f"split replies came in only {conn.reads} reads"
        # A client cutting its frames anywhere, and one gluing them together.
        conn.send(b"".join(test_req(f"p{i}", i) for i in range(20)), split=not split)
        for i in range(20):
            expect_rsp(conn.game(), f"echo:p{i}", 2 * i)
        assert conn.silent(0.1)


@test(False, True)
def game_notices(split):
    with Server("game", "--notices", 3, *split_args(split)) as server, server.connect() as conn:
        conn.send(test_req("a", 1) + test_req("b", 2))
        expect_rsp(conn.game(), "echo:a", 2)
        for i in range(1, 4):
            cmd, body = conn.game()
            assert cmd == game.CMD_NOTICE, cmd
            notice = game.Notice_Ntf.FromString(body)
            assert (notice.text, notice.serial) == (f"notice {i}", i), notice
        expect_rsp(conn.game(), "echo:b", 4)      # notices only after the first Test_Req
        assert conn.silent(0.1)


@test()
def game_bad_headers():
    with Server("game") as server:
        with server.connect() as conn:          # bad magic after a good frame
            conn.send(test_req("ok", 1) + struct.pack(">III", 0xFE, 4, 1))
            expect_rsp(conn.game(), "echo:ok", 2)
            assert conn.closes()
        with server.connect() as conn:          # a body over 1 MiB
            conn.send(struct.pack(">III", 0xFF, (1 << 20) + 5, 1))
            assert conn.closes()
        with server.connect() as conn:          # size below 4
            conn.send(struct.pack(">III", 0xFF, 3, 1))
            assert conn.closes()


@test()
def game_no_heartbeat():
    with Server("game", "--no-heartbeat") as server, server.connect() as conn:
        conn.send(game_frame(game.CMD_HEART_BEAT) + test_req("after", 5))
        expect_rsp(conn.game(), "echo:after", 10)
        assert conn.silent(0.2)


@test(False, True)
def game_drop_after(split):
    with Server("game", "--drop-after", 2, *split_args(split)) as server, server.connect() as conn:
        conn.send(test_req("one", 1) + test_req("two", 2) + test_req("three", 3))
        expect_rsp(conn.game(), "echo:one", 2)
        assert conn.closes()


@test()
def game_drop_first():
    with Server("game", "--drop-first", 2) as server:
        for _ in range(2):
            with server.connect() as conn:
                conn.send(test_req("dropped", 1))
                assert conn.closes()
        with server.connect() as conn:
            conn.send(test_req("third", 3) + test_req("again", 4))
            expect_rsp(conn.game(), "echo:third", 6)
            expect_rsp(conn.game(), "echo:again", 8)


@test(False, True)
def game_garbage_after(split):
    with Server("game", "--garbage-after", 1, *split_args(split)) as server, server.connect() as conn:
        conn.send(test_req("g", 1))
        junk = conn.recv_exact(64)
        assert junk[0] not in (0x00, 0x81), junk[:4]
        assert conn.silent(0.1)
        conn.send(test_req("still open", 2))
        expect_rsp(conn.game(), "echo:still open", 4)


@test(False, True)
def game_absurd_length_after(split):
    with Server("game", "--absurd-length-after", 2, *split_args(split)) as server, server.connect() as conn:
        conn.send(test_req("first", 1))
        expect_rsp(conn.game(), "echo:first", 2)
        conn.send(test_req("second", 2))
        assert struct.unpack(">III", conn.recv_exact(12)) == (0xFF, 0x7FFFFFF0, game.CMD_TEST)
        conn.send(test_req("third", 3))
        assert conn.silent(0.3), "the server spoke after the absurd header"


@test(False, True)
def game_half_frame_after(split):
    expected = game_frame(game.CMD_TEST, game.Test_Rsp(result1="echo:half", result2=8).SerializeToString())
    half = expected[:len(expected) // 2]
    with Server("game", "--half-frame-after", 1, *split_args(split)) as server, server.connect() as conn:
        conn.send(test_req("half", 4))
        assert conn.recv_exact(len(half)) == half
        assert conn.closes()
    with Server("game", "--half-frame-after", 1, "--half-frame-silent") as server, server.connect() as conn:
        conn.send(test_req("half", 4))
        assert conn.recv_exact(len(half)) == half
        assert conn.silent(0.3)


@test(False, True)
def game_out_of_order(split):
    with Server("game", "--out-of-order", 4, *split_args(split)) as server, server.connect() as conn:
        conn.send(b"".join(test_req(f"r{i}", i) for i in range(8)))
        order = []
        for _ in range(8):
            cmd, body = conn.game()
            order.append(game.Test_Rsp.FromString(body).result2 // 2)
        assert sorted(order) == list(range(8)), order
        assert order != list(range(8)), "replies came in order"


@test()
def game_delay():
    with Server("game", "--delay-ms", 300) as server, server.connect() as conn:
        start = time.monotonic()
        conn.send(test_req("slow", 1))
        expect_rsp(conn.game(), "echo:slow", 2)
        elapsed = time.monotonic() - start
        assert elapsed >= 0.28, f"answered after {elapsed:.3f} s"


# --- erlang

@test(False, True)
def erlang_answers(split):
    with Server("erlang", *split_args(split)) as server, server.connect() as conn:
        request = erlang.Cs_20001(scene_id=7, line=1, message="hi").SerializeToString()
        conn.send(erlang_frame(5, b"ignored") + erlang_frame(20001, request) + erlang_frame(20001), split)
        protocol, body = conn.erlang()
        assert protocol == 20001
        rsp = erlang.Sc_20001.FromString(body)
        assert (rsp.res, rsp.scene_id, rsp.pos, rsp.status, rsp.type, rsp.default_combat, rsp.message) \
            == (1, 7, 70, 2, 3, 0, "entered 7"), rsp
        protocol, body = conn.erlang()        # an empty Cs_20001: scene 0
        assert erlang.Sc_20001.FromString(body).message == "entered 0"
        assert conn.silent(0.1)


@test()
def erlang_bad_headers_and_drop():
    with Server("erlang") as server:
        with server.connect() as conn:
            conn.send(struct.pack(">IH", (1 << 20) + 3, 20001))
            assert conn.closes()
        with server.connect() as conn:
            conn.send(struct.pack(">IH", 1, 20001))
            assert conn.closes()
        with server.connect() as conn:          # a body protobuf cannot decode is ignored
            conn.send(erlang_frame(20001, b"\xff") + erlang_frame(20001, b"\x08\x02"))
            protocol, body = conn.erlang()
            assert erlang.Sc_20001.FromString(body).scene_id == 2
    with Server("erlang", "--drop-after", 1) as server, server.connect() as conn:
        conn.send(erlang_frame(20001, erlang.Cs_20001(scene_id=1).SerializeToString()))
        assert conn.closes()
        assert conn.buffer == b""


@test()
def erlang_absurd_length():
    with Server("erlang", "--absurd-length-after", 1) as server, server.connect() as conn:
        conn.send(erlang_frame(20001, erlang.Cs_20001(scene_id=1).SerializeToString()))
        assert struct.unpack(">IH", conn.recv_exact(6)) == (0x7FFFFFF0, 20001)
        assert conn.silent(0.3)


# --- im

@test(False, True)
def im_answers(split):
    with tempfile.TemporaryDirectory() as tmp:
        logins = Path(tmp) / "logins"
        with Server("im", "--logins-file", logins, *split_args(split)) as server, server.connect() as conn:
            conn.send(im_frame(5, 1) + login(6, "alice", "secret") + login(7, "bob", "nope")
                      + user_info(8, 42), split)
            assert conn.im() == (5, 1, b"")
            seq, frame_type, body = conn.im()
            assert (seq, frame_type) == (6, 2)
            rsp = common.CommonRespon.FromString(body)
            assert rsp.isSuc, rsp
            answer = user.login_response.FromString(rsp.respon)
            assert (answer.uid, answer.token) == (1005, "tok-alice"), answer
            seq, frame_type, body = conn.im()
            rsp = common.CommonRespon.FromString(body)
            assert seq == 7 and not rsp.isSuc
            assert (rsp.error.type, rsp.error.msg) == (error.invalid_params, "wrong password"), rsp
            seq, _, body = conn.im()
            info = user.User_info_response.FromString(common.CommonRespon.FromString(body).respon)
            assert seq == 8 and (info.user_info.uid, info.user_info.nick_name) == (42, "user42"), info

            conn.send(im_request(9, common.common_method_user, user.User_cmd_sign_in,
                                 user.signin_request(nick_name="x", pwd="y"))
                      + im_request(10, common.common_method_user, user.User_cmd_logout,
                                   user.logout_request(uid=1))
                      + im_frame(11, 3, b"chat") + im_frame(12, 4, b"push")
                      + im_request(13, common.common_method_message, user.User_cmd_login,
                                   user.login_request()))
            seq, _, body = conn.im()
            signed = user.sigin_response.FromString(common.CommonRespon.FromString(body).respon)
            assert seq == 9 and (signed.uid, signed.token) == (1, "signed"), signed
            seq, _, body = conn.im()
            assert seq == 10 and common.CommonRespon.FromString(body) == common.CommonRespon(isSuc=True)
            seq, _, body = conn.im()                 # chat and push ignored: the next is 13
            rsp = common.CommonRespon.FromString(body)
            assert seq == 13 and not rsp.isSuc
            assert (rsp.error.type, rsp.error.msg) == (error.comom_err, "unsupported"), rsp
            assert conn.silent(0.1)
        with Server("im", "--logins-file", logins) as server:   # logins add up across servers
            with server.connect() as conn:
                conn.send(login(1, "carol", "secret"))
                conn.im()
        assert logins.read_text() == "login alice\nlogin carol\n", logins.read_text()


@test()
def im_bad_headers():
    with Server("im") as server:
        with server.connect() as conn:
            conn.send(im_frame(1, 1) + im_frame(2, 7))
            assert conn.im() == (1, 1, b"")
            assert conn.closes()
        with server.connect() as conn:
            conn.send(b"\x80" + im_frame(1, 1)[1:])
            assert conn.closes()


@test(False, True)
def im_pushes(split):
    with Server("im", "--pushes", 3, "--push-bytes", 5, *split_args(split)) as server, server.connect() as conn:
        conn.send(login(1, "dan", "secret"))
        assert conn.im()[:2] == (1, 2)
        for _ in range(3):
            assert conn.im() == (0, 4, b"ppppp")
        conn.send(login(2, "dan", "wrong"))        # no pushes after a failed login
        assert conn.im()[:2] == (2, 2)
        assert conn.silent(0.1)


@test()
def im_push_flood():
    with Server("im", "--push-flood", 20000, "--push-bytes", 100) as server, server.connect() as conn:
        conn.send(login(1, "eve", "secret"))
        assert conn.im()[:2] == (1, 2)
        time.sleep(0.3)                           # a slow consumer: let the buffers fill
        for _ in range(20000):
            assert conn.im() == (0, 4, b"p" * 100)
        assert conn.silent(0.1)


@test(False, True)
def im_out_of_order(split):
    with Server("im", "--out-of-order", 5, *split_args(split)) as server, server.connect() as conn:
        conn.send(b"".join(user_info(seq, seq * 3) for seq in range(1, 11)))
        order = []
        for _ in range(10):
            seq, frame_type, body = conn.im()
            info = user.User_info_response.FromString(common.CommonRespon.FromString(body).respon)
            assert info.user_info.uid == seq * 3
            order.append(seq)
        assert sorted(order) == list(range(1, 11)) and order != sorted(order), order


@test()
def im_cut_and_stall():
    # The soak's switches: writes cut without pauses, one reply in 200 stalled, replies shuffled.
    with Server("im", "--cut", "--stall-ms", 40, "--out-of-order", 8) as server, server.connect() as conn:
        start = time.monotonic()
        conn.send(b"".join(user_info(seq, seq + 7) for seq in range(1, 2001)))
        seen = []
        for _ in range(2000):
            seq, frame_type, body = conn.im()
            info = user.User_info_response.FromString(common.CommonRespon.FromString(body).respon)
            assert frame_type == 2 and info.user_info.uid == seq + 7, (seq, frame_type, info)
            seen.append(seq)
        assert sorted(seen) == list(range(1, 2001)), "a reply is missing or doubled"
        assert conn.reads > 1, f"2,000 replies came in {conn.reads} read"
        assert time.monotonic() - start < 20, "cut writes are too slow for a soak"
        assert conn.silent(0.1)
    assert "stalled" in server.stderr(), "no reply was stalled"


@test()
def im_misbehaviour():
    with Server("im", "--absurd-length-after", 1) as server, server.connect() as conn:
        conn.send(im_frame(3, 1))
        assert struct.unpack(">BIBH", conn.recv_exact(8)) == (0x81, 3, 9, 0)
        assert conn.silent(0.3)
    with Server("im", "--no-heartbeat", "--half-frame-after", 3) as server, server.connect() as conn:
        conn.send(im_frame(1, 1) + user_info(2, 9))
        seq, frame_type, _ = conn.im()
        assert (seq, frame_type) == (2, 2)      # the heartbeat was ignored
        conn.send(user_info(3, 9))
        head = conn.recv_exact(4)
        assert head[0] == 0x81
        assert conn.closes()
    with Server("im", "--garbage-after", 1, "--drop-after", 2) as server, server.connect() as conn:
        conn.send(im_frame(1, 1))
        assert conn.recv_exact(64)[0] != 0x81
        conn.send(im_frame(2, 1))
        assert conn.closes()


# --- http

def post(port, data, path="/game"):
    """(status, content type, body) of a POST through urllib."""
    request = urllib.request.Request(f"http://127.0.0.1:{port}{path}", data=data, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=5) as response:
            return response.status, response.headers["Content-Type"], response.read()
    except urllib.error.HTTPError as failure:
        return failure.code, failure.headers["Content-Type"], failure.read()


def split_game_frames(data):
    """The (cmd, body) pairs of back-to-back game frames."""
    frames = []
    while data:
        magic, size, cmd = struct.unpack_from(">III", data)
        assert magic == 0xFF
        frames.append((cmd, data[12:8 + size]))
        assert len(data) >= 8 + size, "truncated frame"
        data = data[8 + size:]
    return frames


def expect_events(frames, count):
    assert len(frames) == count, f"{len(frames)} events, expected {count}"
    for i, (cmd, body) in enumerate(frames, 1):
        notice = game.Notice_Ntf.FromString(body)
        assert cmd == game.CMD_NOTICE and (notice.text, notice.serial) == (f"event {i}", i), notice


@test(False, True)
def http_answers(split):
    body = game.Test_Req(param1="hi", param2=21).SerializeToString()
    with Server("http", *split_args(split)) as server:
        status, content_type, data = post(server.port, game_http_request(7, 9, game.CMD_TEST, body))
        assert (status, content_type) == (200, "application/octet-stream"), (status, content_type)
        frames = split_game_frames(data)
        expect_rsp(frames[0], "hi:7:9", 42)
        expect_events(frames[1:], 2)

        status, _, data = post(server.port, game_http_request(1, 2, 555))
        assert status == 200
        expect_error(split_game_frames(data)[0], 404, "unknown command 555")

        good = game_http_request(1, 2, game.CMD_TEST, body)
        for bad, reason in ((b"\xfe" + good[1:], "bad magic"), (good[:20], "too short"),
                            (good[:-1], "does not match")):
            status, content_type, data = post(server.port, bad)
            assert status == 400 and content_type == "text/plain" and reason.encode() in data, \
                (status, data)

        # Sequential requests on one keep-alive connection.
        connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=5)
        for i in range(3):
            connection.request("POST", f"/x/{i}", game_http_request(i, i + 1, game.CMD_TEST, body))
            response = connection.getresponse()
            expect_rsp(split_game_frames(response.read())[0], f"hi:{i}:{i + 1}", 42)
        connection.close()
    with Server("http", "--events", 4) as server:
        status, _, data = post(server.port, game_http_request(0, 0, game.CMD_TEST, body))
        expect_events(split_game_frames(data)[1:], 4)


@test()
def http_misbehaviour():
    request = game_http_request(1, 1, game.CMD_TEST, game.Test_Req(param1="m").SerializeToString())
    with Server("http", "--drop-after", 1) as server:
        try:
            post(server.port, request)
            raise AssertionError("answered despite --drop-after 1")
        except (http.client.RemoteDisconnected, urllib.error.URLError, ConnectionError):
            pass
    with Server("http", "--garbage-after", 1) as server:
        status, _, data = post(server.port, request)
        assert status == 200 and len(data) == 64 and data[0] != 0x00, data[:4]
    with Server("http", "--absurd-length-after", 1) as server:
        status, _, data = post(server.port, request)
        assert status == 200 and struct.unpack(">III", data) == (0xFF, 0x7FFFFFF0, game.CMD_TEST)
    with Server("http", "--half-frame-after", 2) as server:
        connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=5)
        connection.request("POST", "/", request)
        assert connection.getresponse().read()
        connection.request("POST", "/", request)
        try:
            connection.getresponse().read()
            raise AssertionError("a whole body despite --half-frame-after 2")
        except http.client.IncompleteRead as incomplete:
            assert len(incomplete.partial) > 0
    with Server("http", "--delay-ms", 300, "--split") as server:
        start = time.monotonic()
        assert post(server.port, request)[0] == 200
        assert time.monotonic() - start >= 0.28


# --- life cycle

@test()
def lifecycle():
    process = subprocess.Popen([sys.executable, str(PEER), "game", "--lifetime", "0.5"],
                               stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    assert process.wait(5) == 0, "did not stop after --lifetime"
    assert process.stdout.read().decode().startswith("listening ")

    with Server("game", "--watch-stdin") as watched:
        watched.process.stdin.close()                 # the parent "died"
        assert watched.process.wait(5) == 0, "did not stop at stdin EOF"

    with Server("game", stdin=subprocess.DEVNULL) as unwatched:
        time.sleep(0.4)
        assert unwatched.process.poll() is None, "stopped at stdin EOF without --watch-stdin"
        port = unwatched.port
        with unwatched.connect() as conn:             # leave a connection behind (TIME_WAIT)
            conn.send(test_req("x", 1))
            conn.game()
    with Server("game", port=port) as again, again.connect() as conn:
        assert again.port == port
        conn.send(test_req("again", 1))
        expect_rsp(conn.game(), "echo:again", 2)

    for role, request in (("game", test_req("late", 1)),
                          ("http", b"POST / HTTP/1.1\r\nContent-Length: 0\r\n\r\n")):
        with Server(role, "--delay-ms", 30000) as slow, slow.connect() as conn:
            conn.send(request)
            time.sleep(0.2)
            start = time.monotonic()
            status, _ = slow.stop()            # a reply still waiting must not delay the stop
            assert status == 0 and time.monotonic() - start < 2, (role, status)


@test()
def stderr_never_read():
    """A parent that never reads the server's stderr pipe must not freeze the server."""
    with Server("game", stderr=subprocess.PIPE) as server, server.connect() as conn:
        conn.send(b"".join(test_req("log line filler " * 4, i) for i in range(3000)))
        for i in range(3000):
            expect_rsp(conn.game(), "echo:" + "log line filler " * 4, 2 * i)


@test()
def split_writer():
    """What --split does to the byte stream, seen at the level of single writes."""
    class RecordingWriter:
        def __init__(self):
            self.writes = []        # (time, bytes)

        def write(self, data):
            self.writes.append((time.monotonic(), bytes(data)))

        async def drain(self):
            pass

        def is_closing(self):
            return False

    frames = [bytes([n]) * 40 for n in range(1, 6)]

    async def write_all():
        out = peer.SplitWriter(recorder, random.Random(3), split=True)
        for frame in frames:
            await out.write(frame)
        await asyncio.sleep(0.05)       # longer than the hold-back window

    recorder = RecordingWriter()
    asyncio.run(write_all())
    pieces = [data for _, data in recorder.writes]
    assert b"".join(pieces) == b"".join(frames), "bytes lost, added or reordered"
    glued = [p for p in pieces if len(set(p)) > 1]
    assert len(glued) == len(frames) - 1, f"{len(glued)} writes join two frames"
    assert all(len(p) <= 7 for p in pieces if p not in glued), [len(p) for p in pieces]
    assert all(len(p) <= 10 for p in glued)
    last_frame_tail = recorder.writes[-1]
    assert 1 <= len(last_frame_tail[1]) <= 3 and set(last_frame_tail[1]) == {5}
    assert last_frame_tail[0] - recorder.writes[-2][0] >= 0.004, "tail not held back ~5 ms"


# --- the NAT box (nat.py)

class Nat(Server):
    """nat.py forwarding to `port`, forgetting connections idle over `idle` seconds."""

    def __init__(self, port, idle):
        self.role = "nat"
        self.errors = tempfile.TemporaryFile()
        command = [sys.executable, str(HERE / "nat.py"), "--to", str(port), "--idle", str(idle),
                   "--lifetime", "50"]
        self.process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        stderr=self.errors)
        ready, _, _ = select.select([self.process.stdout], [], [], 15)
        line = self.process.stdout.readline().decode() if ready else ""
        if not line.startswith("listening "):
            self.process.kill()
            raise AssertionError(f"nat did not start: {line!r}\n{self.stderr()}")
        self.port = int(line.split()[1])


@test()
def nat_forgets_idle_connections():
    with Server("game") as server, Nat(server.port, 0.5) as nat:
        with nat.connect() as conn:
            for i in range(3):                         # busy: forwarded both ways
                conn.send(test_req(f"busy{i}", i))
                expect_rsp(conn.game(), f"echo:busy{i}", 2 * i)
                time.sleep(0.3)
            time.sleep(0.8)                            # idle past 0.5 s: forgotten
            conn.send(test_req("late", 1))
            assert conn.silent(1.0), "a forgotten connection answered or closed"
        with nat.connect() as conn:                    # a new connection is a new entry
            conn.send(test_req("new", 2))
            expect_rsp(conn.game(), "echo:new", 4)
            nat.process.send_signal(signal.SIGUSR1)    # forget every entry now
            time.sleep(0.2)
            conn.send(test_req("after", 3))
            assert conn.silent(1.0), "SIGUSR1 did not forget the connection"
    assert "forgotten (idle" in nat.stderr() and "forgotten (SIGUSR1)" in nat.stderr(), nat.stderr()


# --- clients, against servers written here

@test()
def clients_help():
    for role in ("game-client", "im-client"):
        status, output = run_client(role, "--help")
        assert status == 0 and "--requests" in output, output


def read_game_request(conn):
    magic, size, cmd = struct.unpack(">III", conn.recv_exact(12))
    if magic != 0xFF:
        raise Closed("bad magic")
    return cmd, conn.recv_exact(size - 4)


def game_echo_server(wrong=False, mute=False):
    """Answers Test_Req like the reference game server, closes on a bad header."""
    def serve(conn):
        while True:
            cmd, body = read_game_request(conn)
            if mute:
                continue
            if cmd == game.CMD_TEST:
                request = game.Test_Req.FromString(body)
                result2 = request.param2 * 2 + (1 if wrong else 0)
                conn.send(game_frame(cmd, game.Test_Rsp(result1="echo:" + request.param1,
                                                        result2=result2).SerializeToString())
                          + game_frame(game.CMD_NOTICE, game.Notice_Ntf(text="n").SerializeToString()))
            elif cmd == game.CMD_HEART_BEAT:
                conn.send(game_frame(cmd), split=True)
    return MiniServer(serve)


@test()
def game_client():
    with game_echo_server() as server:
        status, output = run_client("game-client", "--port", server.port, "--requests", 4,
                                    "--split", "--garbage")
    expected = [f"Test_Rsp result1=echo:req{i} result2={2 * i}" for i in range(1, 5)]
    lines = [line for line in output.splitlines() if not line.startswith("Notice_Ntf")]
    assert status == 0 and lines == expected + ["heartbeat ok", "done", "closed"], (status, output)
    with game_echo_server(wrong=True) as server:
        status, output = run_client("game-client", "--port", server.port, "--requests", 2)
    assert status == 1 and "expected result1=echo:req1 result2=2" in output, (status, output)
    with game_echo_server(mute=True) as server:
        status, output = run_client("game-client", "--port", server.port, "--timeout", 0.5)
        server.listener.close()
    assert status == 2 and "timeout" in output, (status, output)


def im_user_info_server(wrong=False):
    """Collects all user-info requests, then answers them in reverse order."""
    def serve(conn):
        pending = []
        while len(pending) < 6:
            seq, frame_type, body = conn.im()
            message = user.User_msg.FromString(common.Common.FromString(body).body)
            pending.append((seq, user.User_info_request.FromString(message.body).uid))
        conn.send(im_frame(0, 4, b"push") + im_frame(1, 1))
        for seq, uid in reversed(pending):
            info = base.User_info(uid=uid + (1 if wrong and seq == 3 else 0))
            respon = user.User_info_response(user_info=info).SerializeToString()
            conn.send(im_frame(seq, 2, common.CommonRespon(isSuc=True, respon=respon).SerializeToString()))
        conn.closes(2)
    return MiniServer(serve)


@test()
def im_client():
    with im_user_info_server() as server:
        status, output = run_client("im-client", "--port", server.port, "--requests", 6, "--split")
    assert status == 0 and output == "replies ok 6\n", (status, output)
    with im_user_info_server(wrong=True) as server:
        status, output = run_client("im-client", "--port", server.port, "--requests", 6)
    assert status == 1 and "seq 3" in output, (status, output)


# ---------------------------------------------------------------------------------------

def main(filters):
    started = time.monotonic()
    passed = failed = 0
    for name, function, args in TESTS:
        if filters and not any(f in name for f in filters):
            continue
        test_start = time.monotonic()
        try:
            function(*args)
        except Exception as failure:
            failed += 1
            print(f"FAIL {name}: {failure!r}")
            traceback.print_exc(limit=4, file=sys.stdout)
        else:
            passed += 1
            print(f"ok   {name} ({time.monotonic() - test_start:.2f} s)")
        sys.stdout.flush()
    print(f"total {time.monotonic() - started:.1f} s")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed or not passed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
