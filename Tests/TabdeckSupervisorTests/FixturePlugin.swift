/// A test plugin in Python: one method per behaviour the tests need.
let fixturePluginSource = #"""
import json, os, signal, sys, threading, time

mode = sys.argv[1] if len(sys.argv) > 1 else "normal"
if mode == "stubborn":
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
lock = threading.Lock()

def write(text):
    with lock:
        sys.stdout.write(text)
        sys.stdout.flush()

def send(obj):
    write(json.dumps(obj) + "\n")

def reply(id, result):
    send({"jsonrpc": "2.0", "id": id, "result": result})

def family():
    # A child that ignores SIGTERM and has let go of the plugin's pipes (stdio on /dev/null),
    # and a grandchild like it. Returns their pids once both exist.
    r, w = os.pipe()
    child = os.fork()
    if child == 0:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        os.close(r)
        null = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):
            os.dup2(null, fd)
        os.close(null)
        grandchild = os.fork()
        if grandchild == 0:
            os.close(w)
            while True:
                time.sleep(1)
        os.write(w, str(grandchild).encode())
        os.close(w)
        while True:
            time.sleep(1)
    os.close(w)
    data = b""
    while True:
        more = os.read(r, 64)
        if not more:
            break
        data += more
    os.close(r)
    return {"child": child, "grandchild": int(data)}

if os.environ.get("FIXTURE_READY") == "1":
    send({"jsonrpc": "2.0", "method": "ready", "params": {}})

held = []
for raw in sys.stdin:
    msg = json.loads(raw)
    method, id, params = msg.get("method"), msg.get("id"), msg.get("params")
    if method == "echo":
        reply(id, params)
    elif method == "later":
        held.append((id, params))
    elif method == "flush":
        for hid, hparams in reversed(held):
            reply(hid, hparams)
        reply(id, len(held))
        held = []
    elif method == "tick":
        # a notification: report progress (of the held requests) without answering anything
        send({"jsonrpc": "2.0", "method": "progress", "params": {"done": params, "total": None}})
    elif method == "chunk":
        # a notification: a rows/chunk of the held request params["id"]
        send({"jsonrpc": "2.0", "method": "rows/chunk", "params": {"id": params["id"], "rows": []}})
    elif method == "family":
        reply(id, family())
    elif method == "flood":
        # params["mib"] MiB without a newline (then one if params["newline"]), as fast as the
        # pipe takes it
        chunk = b"x" * (1 << 20)
        with lock:
            for _ in range(params["mib"]):
                sys.stdout.buffer.write(chunk)
            if params["newline"]:
                sys.stdout.buffer.write(b"\n")
            sys.stdout.buffer.flush()
        reply(id, "after flood")
    elif method == "notify":
        send({"jsonrpc": "2.0", "method": "badge", "params": {"value": params}})
        reply(id, True)
    elif method == "crash":
        os._exit(params)
    elif method == "stderr":
        for line in params:
            sys.stderr.write(line + "\n")
        sys.stderr.flush()
        reply(id, True)
    elif method == "garbage":
        write("this is not json\n")
        reply(id, "after garbage")
    elif method == "huge":
        write("x" * params + "\n")
        reply(id, "after huge")
    elif method == "shutdown" and mode != "stubborn":
        reply(id, None)
        os._exit(0)

if mode == "stubborn":
    while True:
        time.sleep(1)
os._exit(0)
"""#
