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

def progress(id, count, every, chunks=False):
    for i in range(count):
        time.sleep(every / 1000)
        if chunks:
            send({"jsonrpc": "2.0", "method": "rows/chunk", "params": {"id": id, "rows": []}})
        else:
            send({"jsonrpc": "2.0", "method": "progress", "params": {"done": i + 1, "total": count}})
    reply(id, "done")

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
    elif method == "slow":
        threading.Timer(params / 1000, reply, (id, "late")).start()
    elif method == "progress":
        threading.Thread(target=progress, args=(id, params["count"], params["every"]), daemon=True).start()
    elif method == "chunks":
        threading.Thread(target=progress, args=(id, params["count"], params["every"], True), daemon=True).start()
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
