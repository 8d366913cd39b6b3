#!/usr/bin/env python3
"""An ssh ProxyCommand that adds latency: it connects to HOST PORT and copies stdin to the
socket and the socket to stdout, each chunk delivered --delay seconds after it was read (in
both directions, so a round trip gains twice the delay). Order and bytes are kept; nothing is
throttled. Used by the remote-tab tests and `Scripts/bench --only remote`.

usage: delay_relay.py [--delay SECONDS] HOST PORT
"""
import argparse, collections, os, selectors, socket, sys, time


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--delay", type=float, default=0.05)
    ap.add_argument("host")
    ap.add_argument("port", type=int)
    args = ap.parse_args()
    sock = socket.create_connection((args.host, args.port))
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    stdin, stdout = sys.stdin.fileno(), sys.stdout.fileno()
    # Each direction: a queue of (due time, bytes), written in order once due.
    to_server, to_client = collections.deque(), collections.deque()
    sel = selectors.DefaultSelector()
    sel.register(stdin, selectors.EVENT_READ, "in")
    sel.register(sock, selectors.EVENT_READ, "sock")
    open_in, open_sock = True, True
    while open_in or open_sock or to_server or to_client:
        now = time.monotonic()
        for queue, side in ((to_server, "server"), (to_client, "client")):
            while queue and queue[0][0] <= now:
                data = queue.popleft()[1]
                if side == "server":
                    if data is None:  # the end of that direction
                        sock.shutdown(socket.SHUT_WR)
                    else:
                        sock.sendall(data)
                elif data is None:
                    os.close(stdout)
                else:
                    view = memoryview(data)
                    while view:
                        view = view[os.write(stdout, view):]
        if not (open_in or open_sock) and not to_server and not to_client:
            break
        due = [q[0][0] for q in (to_server, to_client) if q]
        timeout = max(0.0, min(due) - time.monotonic()) if due else None
        if not (open_in or open_sock):
            time.sleep(timeout or 0)
            continue
        for key, _ in sel.select(timeout):
            if key.data == "in":
                data = os.read(stdin, 65536)
                to_server.append((time.monotonic() + args.delay, data or None))
                if not data:
                    sel.unregister(stdin)
                    open_in = False
            else:
                try:
                    data = sock.recv(65536)
                except ConnectionResetError:
                    data = b""
                to_client.append((time.monotonic() + args.delay, data or None))
                if not data:
                    sel.unregister(sock)
                    open_sock = False


if __name__ == "__main__":
    try:
        main()
    except (BrokenPipeError, KeyboardInterrupt):
        pass
