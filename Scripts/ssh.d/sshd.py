"""A throw-away OpenSSH server on loopback, for the remote-tab tests and the benchmark.

    with LoopbackSSHD(delay=0.05) as sshd:
        sshd.config      # an ssh_config file: Host aliases below, our key, our known_hosts
        sshd.port
        # Host tabdeck-remote        straight to the server
        # Host tabdeck-remote-slow   through delay_relay.py: every chunk held `delay` seconds
        #                            each way (so `delay` 0.05 adds 100 ms to a round trip)
        # Host tabdeck-nowhere       a loopback port nothing listens on

Installs openssh-server and openssh-client from Debian's packages when missing (as root).
The server runs in the foreground of a child process (`sshd -D -e`), in a temporary folder
with its own host key, authorized_keys and pid file, listening on 127.0.0.1 only, and is
stopped on exit; the folder is removed. Nothing outside the folder is touched but
/run/sshd (the privilege-separation folder sshd insists on, when run as root).
"""
import os, pwd, shutil, socket, subprocess, sys, tempfile, time

HERE = os.path.dirname(os.path.abspath(__file__))
SSHD = "/usr/sbin/sshd"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def ensure_installed():
    if os.access(SSHD, os.X_OK) and shutil.which("ssh") and shutil.which("ssh-keygen"):
        return
    if os.getuid() != 0:
        raise SystemExit("sshd.py: openssh-server is missing and this is not root: apt-get install openssh-server openssh-client")
    print("sshd.py: installing openssh-server", file=sys.stderr)
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    subprocess.run(["apt-get", "update", "-qq"], check=True, env=env)
    subprocess.run(["apt-get", "install", "-y", "-qq", "openssh-server", "openssh-client"], check=True, env=env,
                   stdout=subprocess.DEVNULL)
    if not os.access(SSHD, os.X_OK):
        raise SystemExit(f"sshd.py: {SSHD} is still missing after apt-get install openssh-server")


class LoopbackSSHD:
    def __init__(self, delay=0.05):
        self.delay = delay
        self.process = None
        self.folder = None

    def __enter__(self):
        ensure_installed()
        self.folder = tempfile.mkdtemp(prefix="tabdeck-ssh.")
        os.chmod(self.folder, 0o700)
        f = self.folder
        for key in ("host", "client"):
            subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", f"tabdeck-test-{key}",
                            "-f", os.path.join(f, key)], check=True)
        shutil.copy(os.path.join(f, "client.pub"), os.path.join(f, "authorized_keys"))
        self.port = free_port()
        user = pwd.getpwuid(os.getuid()).pw_name
        with open(os.path.join(f, "sshd_config"), "w") as c:
            c.write(f"""Port {self.port}
ListenAddress 127.0.0.1
HostKey {f}/host
PidFile {f}/sshd.pid
AuthorizedKeysFile {f}/authorized_keys
PubkeyAuthentication yes
PasswordAuthentication no
KbdInteractiveAuthentication no
PermitRootLogin prohibit-password
StrictModes no
UsePAM no
MaxSessions 64
MaxStartups 64:30:128
LogLevel VERBOSE
""")
        with open(os.path.join(f, "host.pub")) as k:
            host_key = " ".join(k.read().split()[:2])
        with open(os.path.join(f, "known_hosts"), "w") as k:
            k.write(f"[127.0.0.1]:{self.port} {host_key}\n")
        common = f"""  HostName 127.0.0.1
  Port {self.port}
  User {user}
  IdentityFile {f}/client
  IdentitiesOnly yes
  UserKnownHostsFile {f}/known_hosts
  GlobalKnownHostsFile /dev/null
  StrictHostKeyChecking yes
  LogLevel ERROR
"""
        relay = os.path.join(HERE, "delay_relay.py")
        self.config = os.path.join(f, "ssh_config")
        with open(self.config, "w") as c:
            c.write(f"Host tabdeck-remote\n{common}\n")
            c.write(f"Host tabdeck-remote-slow\n{common}  ProxyCommand {sys.executable} {relay} --delay {self.delay} %h %p\n\n")
            c.write(f"Host tabdeck-nowhere\n{common.replace(f'Port {self.port}', f'Port {free_port()}')}\n")
        if os.getuid() == 0:
            os.makedirs("/run/sshd", mode=0o755, exist_ok=True)
        self.log = os.path.join(f, "sshd.log")
        self.process = subprocess.Popen([SSHD, "-D", "-e", "-f", os.path.join(f, "sshd_config"), "-E", self.log],
                                        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self._wait_until_listening()
        return self

    def _wait_until_listening(self):
        # The server is ready once it accepts a connection; it may take a moment to start.
        for _ in range(600):
            if self.process.poll() is not None:
                raise SystemExit(f"sshd.py: sshd exited with {self.process.returncode}:\n{self.server_log()}")
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=1):
                    return
            except OSError:
                time.sleep(0.05)
        raise SystemExit(f"sshd.py: sshd never listened on 127.0.0.1:{self.port}:\n{self.server_log()}")

    def server_log(self):
        try:
            with open(self.log) as f:
                return f.read()[-4000:]
        except OSError:
            return "(no log)"

    def ssh(self, host, *command):
        """argv of the system ssh client with this server's config."""
        return ["ssh", "-F", self.config, host, *command]

    def __exit__(self, *exc):
        if self.process and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        if self.folder:
            shutil.rmtree(self.folder, ignore_errors=True)
        return False
