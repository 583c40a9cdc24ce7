"""Kiosk VM: boot a real Debian kernel under QEMU (TCG) with uinput, evdev, bochs DRM and 9p,
run a guest shell script against the host's build of touchbridge, bring back its output and
any screenshots of the scanout.

The recipe is the one in docs/notes (kiosk-vm.md): Debian's kernel package unpacked with
`dpkg -x`, a busybox initramfs that loads the modules, mounts the host's root read-only over
9p plus a writable 9p export of a per-run work folder, chroots into the host root and runs
the script. Standard library only.

Main entry point: `run_vm(script, devices=..., screen=(1280, 800), timeout=...) -> VMResult`.
"""

from __future__ import annotations

import dataclasses
import fcntl
import hashlib
import lzma
import os
import re
import shlex
import shutil
import socket
import struct
import subprocess
import tempfile
import time
import zlib
from pathlib import Path
from typing import Iterable, Sequence

from evemu import Touchscreen

REPO = Path(__file__).resolve().parents[2]
def _default_cache() -> Path:
    system = Path("/var/cache/touchbridge-vm")
    if os.geteuid() == 0 or os.access(system if system.exists() else system.parent, os.W_OK):
        return system
    return Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "touchbridge-vm"


# Kernel, initramfs and per-run folders (monitor socket, serial log) live here, outside the repo.
CACHE = Path(os.environ["TB_VM_CACHE"]) if os.environ.get("TB_VM_CACHE") else _default_cache()

# Debian packages the harness runs (command -> package).
HOST_TOOLS = {
    "qemu-system-x86_64": "qemu-system-x86",
    "depmod": "kmod",
    "cpio": "cpio",
    "evemu-device": "evemu-tools",
}
BUSYBOX_STATIC = "/bin/busybox"  # from busybox-static

# Modules that are not built into Debian's kernel, loaded in this order (dependencies first,
# resolved from modules.dep). hid_* and uhid let a scenario use the kernel's own
# hid-multitouch driver through /dev/uhid.
DEFAULT_MODULES = ("virtio_pci", "uinput", "evdev", "bochs", "9pnet_virtio", "9p",
                   "uhid", "hid_generic", "hid_multitouch")

BOOT_TIMEOUT_S = 120.0  # from QEMU start to the end of the guest script, default per run
# Multiplies every run's timeout: TCG is slow on a loaded machine (TB_VM_TIMEOUT_FACTOR=3).
TIMEOUT_FACTOR = float(os.environ.get("TB_VM_TIMEOUT_FACTOR", "1"))
SCREENSHOT_TIMEOUT_S = 60.0
DOWNLOAD_TIMEOUT_S = 900.0  # the kernel package is about 70 MB  # the guest waits this long for a screenshot reply
VGAMEM_BYTES = 32 * 1024 * 1024  # two 1080p XRGB8888 dumb buffers need more than 16 MiB


# What the harness itself keeps in the work folder (left out of VMResult.files).
HARNESS_FILES = {"run.sh", "tbvm.env", "keep-paths", "exit_code", "stdout.txt", "stderr.txt"}


class VMError(RuntimeError):
    """The VM did not boot, hung, or the guest script failed. The message carries the logs."""


@dataclasses.dataclass
class Screenshot:
    """One screendump of the scanout: the PNG written for people, pixels kept for asserts."""
    name: str
    png: Path
    width: int
    height: int
    rgb: bytes = dataclasses.field(repr=False)  # width * height * 3, rows top to bottom

    def pixel(self, x: int, y: int) -> tuple[int, int, int]:
        i = (y * self.width + x) * 3
        return self.rgb[i], self.rgb[i + 1], self.rgb[i + 2]


@dataclasses.dataclass
class VMResult:
    stdout: str
    stderr: str
    exit_code: int
    files: dict[str, Path]  # everything the guest wrote into $TB_WORK, by relative path
    screenshots: dict[str, Screenshot]
    serial_log: str
    work_dir: Path
    seconds: float  # wall time from QEMU start to power-off

    def text(self, name: str) -> str:
        return self.files[name].read_text()


# ---------------------------------------------------------------------------------------------
# Host tools and the kernel (cached once)


def _run(cmd: Sequence[str], **kw) -> subprocess.CompletedProcess:
    return subprocess.run(cmd, check=True, text=True, capture_output=True, **kw)


def _apt_install(packages: Iterable[str]) -> None:
    packages = sorted(set(packages))
    if not packages:
        return
    sudo = [] if os.geteuid() == 0 else ["sudo"]
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    subprocess.run(sudo + ["apt-get", "update", "-qq"], check=True, env=env)
    subprocess.run(sudo + ["apt-get", "install", "-y", "-qq", "--no-install-recommends", *packages],
                   check=True, env=env)


def ensure_host_tools() -> None:
    """Install qemu-system-x86, busybox-static, kmod, cpio and evemu-tools when missing."""
    missing = [pkg for cmd, pkg in HOST_TOOLS.items()
               if shutil.which(cmd) is None and not Path("/usr/sbin", cmd).exists()]
    if not _busybox_is_static():
        missing.append("busybox-static")
    _apt_install(missing)
    if not _busybox_is_static():
        raise VMError(f"{BUSYBOX_STATIC} is not the static busybox; install busybox-static")


def _busybox_is_static() -> bool:
    try:
        head = Path(BUSYBOX_STATIC).read_bytes()
    except OSError:
        return False
    # A static ELF has no PT_INTERP: the loader path never appears in it.
    return head[:4] == b"\x7fELF" and b"/lib64/ld-linux" not in head[:4096]


@dataclasses.dataclass(frozen=True)
class Kernel:
    vmlinuz: Path
    root: Path  # the unpacked package: root/lib/modules/<version>
    version: str

    @property
    def moddir(self) -> Path:
        return self.root / "lib" / "modules" / self.version


def _kernel_package_name() -> str:
    def depends() -> str:
        r = subprocess.run(["apt-cache", "depends", "linux-image-amd64"], text=True, capture_output=True)
        m = re.search(r"Depends:\s*(linux-image-[0-9][^\s]*-amd64)", r.stdout)
        return m.group(1) if m else ""
    name = depends()
    if not name:
        sudo = [] if os.geteuid() == 0 else ["sudo"]
        subprocess.run(sudo + ["apt-get", "update", "-qq"], check=False)
        name = depends()
    if not name:
        raise VMError("apt-cache depends linux-image-amd64 names no kernel image package; "
                      "check /etc/apt/sources.list for a Debian 12 (bookworm) main entry")
    return name


def _cached_kernels() -> list[Path]:
    return sorted(p.parent for p in (CACHE / "kernels").glob("*/.ready"))


def _load_kernel(folder: Path) -> Kernel:
    vmlinuz = sorted((folder / "boot").glob("vmlinuz-*"))
    if not vmlinuz:
        raise VMError(f"no boot/vmlinuz-* in {folder}; delete that folder to download again")
    version = vmlinuz[0].name[len("vmlinuz-"):]
    return Kernel(vmlinuz[0], folder, version)


def ensure_kernel() -> Kernel:
    """Download Debian's current amd64 kernel package once, unpack it (no install) and run
    depmod. Cached under $TB_VM_CACHE/kernels/<package>/."""
    (CACHE / "kernels").mkdir(parents=True, exist_ok=True)
    with open(CACHE / ".kernel.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            name = _kernel_package_name()
        except VMError:
            cached = _cached_kernels()
            if cached:  # offline: use what we have
                return _load_kernel(cached[-1])
            raise
        folder = CACHE / "kernels" / name
        if (folder / ".ready").exists():
            return _load_kernel(folder)
        with tempfile.TemporaryDirectory(dir=CACHE / "kernels") as tmp:
            r = subprocess.run(["apt-get", "download", name], cwd=tmp, text=True, capture_output=True,
                               timeout=DOWNLOAD_TIMEOUT_S)
            if r.returncode != 0:
                raise VMError(f"apt-get download {name} failed:\n{r.stderr}")
            deb = next(Path(tmp).glob("*.deb"))
            unpacked = Path(tmp) / "root"
            _run(["dpkg", "-x", str(deb), str(unpacked)])
            kernel = _load_kernel(unpacked)
            _run([_depmod(), "-b", str(unpacked), kernel.version])
            (unpacked / ".ready").write_text(deb.name + "\n")
            if folder.exists():
                shutil.rmtree(folder)
            os.replace(unpacked, folder)
        return _load_kernel(folder)


def _depmod() -> str:
    return shutil.which("depmod") or "/usr/sbin/depmod"


# ---------------------------------------------------------------------------------------------
# The initramfs (content-addressed, so parallel runs share it safely)


def _module_load_order(kernel: Kernel, wanted: Sequence[str]) -> list[Path]:
    """The .ko files to insmod, dependencies first. Built-in modules are skipped."""
    deps: dict[str, tuple[str, list[str]]] = {}
    for line in (kernel.moddir / "modules.dep").read_text().splitlines():
        target, _, rest = line.partition(":")
        deps[_modname(target)] = (target, rest.split())
    builtin = {_modname(l) for l in (kernel.moddir / "modules.builtin").read_text().split()}
    order: list[Path] = []
    seen: set[str] = set()

    def visit(name: str) -> None:
        name = name.replace("-", "_")
        if name in seen:
            return
        seen.add(name)
        if name not in deps:
            if name in builtin:
                return
            raise VMError(f"module {name} is neither in modules.dep nor built into {kernel.version}")
        path, needs = deps[name]
        for d in needs:
            visit(_modname(d))
        order.append(kernel.moddir / path)

    for w in wanted:
        visit(w)
    return order


def _modname(path: str) -> str:
    base = os.path.basename(path.strip())
    for ext in (".ko.xz", ".ko.zst", ".ko.gz", ".ko"):
        if base.endswith(ext):
            base = base[: -len(ext)]
    return base.replace("-", "_")


def _module_bytes(path: Path) -> bytes:
    data = path.read_bytes()
    if path.suffix == ".xz":
        return lzma.decompress(data)
    if path.suffix == ".gz":
        import gzip
        return gzip.decompress(data)
    if path.suffix == ".zst":
        return _run_bytes(["zstd", "-dc", str(path)])
    return data


def _run_bytes(cmd: Sequence[str]) -> bytes:
    return subprocess.run(cmd, check=True, capture_output=True).stdout


INIT_SCRIPT = r"""#!/bin/busybox sh
/bin/busybox mkdir -p /proc /sys /dev /bin /sbin /mnt/host
/bin/busybox --install -s /bin
export PATH=/bin:/sbin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
fail() { echo "TBVM-INIT: $*"; sync; poweroff -f; }
while read -r m; do insmod "/modules/$m" || echo "TBVM-INIT: insmod $m failed"; done < /modules/order
O=ro,trans=virtio,version=9p2000.L,cache=loose,msize=262144
mount -t 9p -o "$O" hostroot /mnt/host || fail "cannot mount the host root over 9p"
H=/mnt/host
mkdir -p /work /oldtmp
mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144 work /work || fail "cannot mount the work folder"
# A fresh writable /tmp, but host paths under /tmp that the run needs (a repo cloned there)
# stay visible through bind mounts.
mount --bind "$H/tmp" /oldtmp
mount -t tmpfs tmp "$H/tmp" || fail "no tmpfs on $H/tmp"
while read -r p; do
  case "$p" in /tmp/?*) mkdir -p "$H$p"; mount --bind "/oldtmp/${p#/tmp/}" "$H$p" || fail "cannot bind $p";; esac
done < /work/keep-paths
mkdir -p "$H/tmp/tbvm"
mount --bind /work "$H/tmp/tbvm"
mount --rbind /dev "$H/dev"; mount -t proc proc "$H/proc"; mount -t sysfs sys "$H/sys"
mount -t tmpfs run "$H/run" 2>/dev/null
mount -t devpts devpts "$H/dev/pts" 2>/dev/null
echo "TBVM-INIT: up at $(cut -d' ' -f1 /proc/uptime) s"
chroot "$H" /bin/sh -c '. /tmp/tbvm/tbvm.env; cd /tmp/tbvm; /bin/sh /tmp/tbvm/run.sh > /tmp/tbvm/stdout.txt 2> /tmp/tbvm/stderr.txt; echo $? > /tmp/tbvm/.exit_code.tmp; mv /tmp/tbvm/.exit_code.tmp /tmp/tbvm/exit_code'
echo "TBVM-INIT: script done at $(cut -d' ' -f1 /proc/uptime) s, exit $(cat $H/tmp/tbvm/exit_code)"
sync
umount "$H/tmp/tbvm" 2>/dev/null; umount /work 2>/dev/null
poweroff -f
"""


def _newc_entry(name: str, mode: int, data: bytes = b"", rdev: tuple[int, int] = (0, 0), ino: int = 0) -> bytes:
    name_b = name.encode() + b"\0"
    fields = [ino, mode, 0, 0, 1, 0, len(data), 0, 0, rdev[0], rdev[1], len(name_b), 0]
    hdr = b"070701" + b"".join(b"%08x" % f for f in fields)
    out = hdr + name_b
    out += b"\0" * (-len(out) % 4)
    out += data
    out += b"\0" * (-len(out) % 4)
    return out


def ensure_initrd(kernel: Kernel, modules: Sequence[str] = DEFAULT_MODULES) -> Path:
    """A newc cpio (uncompressed: nothing to inflate under TCG) with the static busybox, the
    modules and /init. Named by a hash of its inputs; written with tmp + rename."""
    order = _module_load_order(kernel, modules)
    busybox = Path(BUSYBOX_STATIC).read_bytes()
    h = hashlib.sha256()
    for part in (kernel.version.encode(), INIT_SCRIPT.encode(), hashlib.sha256(busybox).digest(),
                 "\n".join(str(p) for p in order).encode()):
        h.update(part)
    target = CACHE / "initrd" / f"initrd-{kernel.version}-{h.hexdigest()[:16]}.cpio"
    if target.exists():
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    entries = [
        _newc_entry("dev", 0o040755), _newc_entry("dev/console", 0o020600, rdev=(5, 1)),
        _newc_entry("dev/null", 0o020666, rdev=(1, 3)),
        _newc_entry("bin", 0o040755), _newc_entry("bin/busybox", 0o100755, busybox),
        _newc_entry("bin/sh", 0o120777, b"busybox"),
        _newc_entry("init", 0o100755, INIT_SCRIPT.encode()),
        _newc_entry("modules", 0o040755),
    ]
    names = []
    for p in order:
        n = _modname(p.name) + ".ko"
        names.append(n)
        entries.append(_newc_entry("modules/" + n, 0o100644, _module_bytes(p)))
    entries.append(_newc_entry("modules/order", 0o100644, ("\n".join(names) + "\n").encode()))
    entries = [e[:6] + b"%08x" % (i + 1) + e[14:] for i, e in enumerate(entries)]  # unique inodes
    entries.append(_newc_entry("TRAILER!!!", 0))
    tmp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    tmp.write_bytes(b"".join(entries))
    os.replace(tmp, target)
    return target


# ---------------------------------------------------------------------------------------------
# Screenshots: PPM from QEMU's monitor -> PNG (zlib, no Pillow)


def read_ppm(path: Path) -> tuple[int, int, bytes]:
    data = path.read_bytes()
    tokens: list[bytes] = []
    i = 0
    while len(tokens) < 4:
        while data[i:i + 1].isspace():
            i += 1
        if data[i:i + 1] == b"#":
            i = data.index(b"\n", i) + 1
            continue
        j = i
        while not data[j:j + 1].isspace():
            j += 1
        tokens.append(data[i:j])
        i = j
    if tokens[0] != b"P6" or int(tokens[3]) != 255:
        raise VMError(f"{path}: not an 8-bit P6 PPM")
    w, h = int(tokens[1]), int(tokens[2])
    pixels = data[i + 1:i + 1 + w * h * 3]
    if len(pixels) != w * h * 3:
        raise VMError(f"{path}: truncated PPM ({len(pixels)} of {w * h * 3} pixel bytes)")
    return w, h, pixels


def write_png(path: Path, width: int, height: int, rgb: bytes) -> None:
    def chunk(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))
    stride = width * 3
    raw = b"".join(b"\0" + rgb[y * stride:(y + 1) * stride] for y in range(height))
    png = (b"\x89PNG\r\n\x1a\n"
           + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
           + chunk(b"IDAT", zlib.compress(raw, 6))
           + chunk(b"IEND", b""))
    tmp = path.with_name("." + path.name + ".tmp")
    tmp.write_bytes(png)
    os.replace(tmp, path)


class Monitor:
    """QEMU's human monitor over a unix socket."""

    def __init__(self, path: Path, deadline: float, qemu: subprocess.Popen):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        while True:
            try:
                self.sock.connect(str(path))
                break
            except (FileNotFoundError, ConnectionRefusedError):
                if qemu.poll() is not None:
                    raise VMError(f"QEMU exited ({qemu.returncode}) before its monitor {path} accepted a connection")
                if time.monotonic() > deadline:
                    raise VMError(f"QEMU monitor socket {path} never accepted a connection")
                time.sleep(0.05)
        self.sock.settimeout(30)
        self._read_prompt()

    def _read_prompt(self) -> str:
        buf = b""
        while not buf.endswith(b"(qemu) "):
            part = self.sock.recv(4096)
            if not part:
                raise VMError("QEMU monitor closed the connection")
            buf += part
        return buf.decode(errors="replace")

    def command(self, line: str) -> str:
        self.sock.sendall(line.encode() + b"\n")
        return self._read_prompt()

    def close(self) -> None:
        self.sock.close()


# ---------------------------------------------------------------------------------------------
# The guest side: helpers every script gets, and device creation


GUEST_PRELUDE = r"""# --- kioskvm prelude ---
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root
# tb_screenshot NAME: ask the host for a screendump of the scanout; returns when it is saved.
tb_screenshot() {
  mkdir -p "$TB_WORK/.req"
  echo "$1" > "$TB_WORK/.req/.$1.tmp" && mv "$TB_WORK/.req/.$1.tmp" "$TB_WORK/.req/$1.req"
  _tb_i=0
  while [ ! -e "$TB_WORK/.req/$1.done" ]; do
    sleep 0.1; _tb_i=$((_tb_i + 1))
    if [ $_tb_i -gt $TB_SCREENSHOT_WAIT_TENTHS ]; then echo "tb_screenshot: no reply for $1" >&2; return 1; fi
  done
  cat "$TB_WORK/.req/$1.done"
}
# tb_evemu_device NAME: create the uinput device described by devices/NAME.desc (evemu-device
# keeps running to hold it) and print its /dev/input/eventN, found by name in sysfs.
tb_evemu_device() {
  _tb_name=$(sed -n 's/^N: //p' "$TB_WORK/devices/$1.desc")
  evemu-device "$TB_WORK/devices/$1.desc" > /tmp/evemu-$1.log 2>&1 &
  _tb_i=0
  while :; do
    for _tb_e in /sys/class/input/event*; do
      if [ "$(cat "$_tb_e/device/name" 2>/dev/null)" = "$_tb_name" ]; then
        echo "/dev/input/${_tb_e##*/}"; return 0
      fi
    done
    sleep 0.05; _tb_i=$((_tb_i + 1))
    if [ $_tb_i -gt 400 ]; then echo "tb_evemu_device: $1 never appeared" >&2; cat /tmp/evemu-$1.log >&2; return 1; fi
  done
}
# tb_play DEVNODE FILE: replay an evemu events file with its recorded timing.
tb_play() { evemu-play "$1" < "$2"; }
# tb_wait_started [EXIT]: wait (up to 60 s) until the kiosk started with --events events.jsonl
# and 2> run.err in the current folder has shown its first frame; else print run.err and exit.
tb_wait_started() {
  _tb_i=0
  until grep -q '"type":"start"' events.jsonl 2>/dev/null && grep -q 'first frame on the display' run.err; do
    sleep 0.2; _tb_i=$((_tb_i + 1))
    [ $_tb_i -gt 300 ] && { echo "kiosk did not start" >&2; cat run.err >&2; exit "${1:-91}"; }
  done
}
# tb_settle [SECONDS]: wait until events.jsonl has been still for 2 s (animations and momentum
# over; at most 30 s), then SECONDS more (default 1.5) for the last frame to be drawn: software
# CPU emulation is slow.
tb_settle() {
  _tb_last=-1; _tb_still=0; _tb_k=0
  while [ $_tb_still -lt 4 ] && [ $_tb_k -lt 60 ]; do
    _tb_now=$(wc -l < events.jsonl)
    if [ "$_tb_now" = "$_tb_last" ]; then _tb_still=$((_tb_still + 1)); else _tb_still=0; _tb_last=$_tb_now; fi
    sleep 0.5; _tb_k=$((_tb_k + 1))
  done
  sleep "${1:-1.5}"
  return 0
}
"""


def _device_lines(devices: Sequence[Touchscreen]) -> str:
    out = []
    for d in devices:
        var = "TB_DEV_" + re.sub(r"\W", "_", d.key).upper()
        out.append(f'{var}=$(tb_evemu_device {shlex.quote(d.key)}) || exit 90; export {var}')
    return "\n".join(out) + "\n" if out else ""


# ---------------------------------------------------------------------------------------------
# Running


def release_binary() -> Path:
    return Path(os.environ.get("TB_BINARY", REPO / ".build" / "release" / "touchbridge"))


def run_vm(script: str, *, devices: Sequence[Touchscreen] = (), screen: tuple[int, int] = (1280, 800),
           timeout: float = BOOT_TIMEOUT_S, work_dir: Path | None = None, check: bool = True,
           modules: Sequence[str] = DEFAULT_MODULES, memory_mib: int = 2048,
           files: dict[str, bytes | str] | None = None) -> VMResult:
    """Boot the kiosk VM, run `script` (POSIX sh, in the host root chrooted, cwd $TB_WORK) and
    power off. In the script: $TB_BIN is the host's release touchbridge, $TB_REPO the repo,
    $TB_WORK the writable work folder (what is written there comes back in `files`),
    $TB_DEV_<KEY> the event node of each device in `devices` (created with evemu before the
    script starts; their .desc files are in $TB_WORK/devices), `tb_screenshot NAME` saves a
    screenshot, `tb_play NODE FILE` replays evemu events. `files` are put into the work
    folder before boot. Raises VMError with the logs on a timeout, a boot failure or (with
    check) a non-zero exit of the script."""
    ensure_host_tools()
    kernel = ensure_kernel()
    initrd = ensure_initrd(kernel, modules)
    binary = release_binary()

    if work_dir is None:
        work_dir = Path(tempfile.mkdtemp(prefix="tbvm-work-"))
    env = {"TB_BIN": str(binary), "TB_REPO": str(REPO)}
    prepare_work_dir(work_dir, script, devices=devices, files=files, screen=screen, env=env)
    keep = sorted({str(REPO), str(binary.parent)})
    (work_dir / "keep-paths").write_text("".join(p + "\n" for p in keep))

    run_dir = new_run_dir("r")
    cmd = qemu_command(kernel, initrd, screen=screen, memory_mib=memory_mib, run_dir=run_dir,
                       append="console=ttyS0 loglevel=3 panic=-1",
                       shares=["local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap"],
                       work_dir=work_dir)
    result = boot(cmd, work_dir=work_dir, run_dir=run_dir, timeout=timeout,
                  hang_message="the VM did not power off within {timeout:.0f} s (hung guest?)")
    if check and result.exit_code != 0:
        raise VMError(f"the guest script exited with {result.exit_code}\n--- stdout ---\n{result.stdout}"
                      f"\n--- stderr ---\n{result.stderr}\n--- serial log ---\n{result.serial_log[-4000:]}"
                      f"\n(work folder: {work_dir})")
    return result


# Shared by run_vm and debianvm.run: the work folder, the QEMU command line, and one boot that
# answers the guest's screenshot requests until it powers off.

def prepare_work_dir(work_dir: Path, script: str, *, devices: Sequence[Touchscreen] = (),
                     files: dict[str, bytes | str] | None = None, screen: tuple[int, int] = (1280, 800),
                     env: dict[str, str] | None = None) -> None:
    """The folder the guest sees as $TB_WORK: devices/KEY.desc, `files`, tbvm.env (`env` plus
    TB_WORK, TB_SCREEN and the screenshot wait) and run.sh (the prelude, the devices, `script`)."""
    work_dir.mkdir(parents=True, exist_ok=True)
    for sub in ("devices", ".req", "screenshots"):
        (work_dir / sub).mkdir(exist_ok=True)
    for d in devices:
        (work_dir / "devices" / f"{d.key}.desc").write_text(d.desc())
    for name, content in (files or {}).items():
        p = work_dir / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(content.encode() if isinstance(content, str) else content)
    env = dict(env or {}, TB_WORK="/tmp/tbvm", TB_SCREEN=f"{screen[0]}x{screen[1]}",
               TB_SCREENSHOT_WAIT_TENTHS=str(int(SCREENSHOT_TIMEOUT_S * 10)))
    (work_dir / "tbvm.env").write_text("".join(f"export {k}={shlex.quote(v)}\n" for k, v in env.items()))
    (work_dir / "run.sh").write_text(GUEST_PRELUDE + _device_lines(devices) + "# --- scenario ---\n" + script)


def new_run_dir(prefix: str) -> Path:
    """A fresh folder under the cache for one boot's serial log, QEMU log and monitor socket
    (a short path: unix socket paths are < 108 bytes)."""
    (CACHE / "runs").mkdir(parents=True, exist_ok=True)
    return Path(tempfile.mkdtemp(prefix=prefix, dir=CACHE / "runs"))


def qemu_command(kernel: Kernel, initrd: Path, *, screen: tuple[int, int], memory_mib: int, run_dir: Path,
                 append: str, work_dir: Path, drives: Sequence[str] = (), shares: Sequence[str] = ()) -> list[str]:
    """TCG, 2 vCPUs, the bochs display at `screen`, the serial log and monitor in `run_dir`, no
    network; `drives` (-drive values), then `shares` (-virtfs values), then the work folder."""
    cmd = [
        "qemu-system-x86_64", "-accel", "tcg", "-cpu", "max", "-m", str(memory_mib), "-smp", "2",
        "-no-reboot", "-display", "none", "-vga", "none",
        "-device", f"bochs-display,xres={screen[0]},yres={screen[1]},vgamem={VGAMEM_BYTES}",
        "-kernel", str(kernel.vmlinuz), "-initrd", str(initrd),
        "-append", append,
    ]
    for d in drives:
        cmd += ["-drive", d]
    cmd += ["-serial", f"file:{run_dir / 'serial.log'}", "-monitor", f"unix:{run_dir / 'mon.sock'},server,nowait",
            "-net", "none"]
    for s in shares:
        cmd += ["-virtfs", s]
    cmd += ["-virtfs", f"local,path={work_dir},mount_tag=work,security_model=none,multidevs=remap"]
    return cmd


def boot(cmd: Sequence[str], *, work_dir: Path, run_dir: Path, timeout: float, hang_message: str) -> VMResult:
    """Runs QEMU until the guest powers off, answering `tb_screenshot` requests; the run folder
    is removed afterwards. Raises VMError (`hang_message`, formatted with `timeout`) when it
    does not power off in time, or when it ends before the guest script has finished."""
    serial, qlog, mon = run_dir / "serial.log", run_dir / "qemu.log", run_dir / "mon.sock"
    timeout *= TIMEOUT_FACTOR
    start = time.monotonic()
    deadline = start + timeout
    screenshots: dict[str, Screenshot] = {}
    monitor = None
    with open(qlog, "w") as qerr:
        proc = subprocess.Popen(list(cmd), stdin=subprocess.DEVNULL, stdout=qerr, stderr=subprocess.STDOUT)
    try:
        while proc.poll() is None:
            if time.monotonic() > deadline:
                raise VMError(_failure(hang_message.format(timeout=timeout), work_dir, serial, qlog))
            for req in sorted((work_dir / ".req").glob("*.req")):
                if monitor is None:
                    monitor = Monitor(mon, deadline, proc)
                name = req.name[:-4]
                shot = _screendump(monitor, work_dir, name)
                screenshots[name] = shot
                done = work_dir / ".req" / f".{name}.done.tmp"
                done.write_text(f"{shot.png.relative_to(work_dir)} {shot.width}x{shot.height}\n")
                os.replace(done, work_dir / ".req" / f"{name}.done")
                req.unlink()
            time.sleep(0.1)
    except BaseException:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        raise
    finally:
        if monitor is not None:
            monitor.close()
    seconds = time.monotonic() - start
    code_file = work_dir / "exit_code"
    if not code_file.exists():
        raise VMError(_failure(f"QEMU exited with {proc.returncode} before the guest script finished",
                               work_dir, serial, qlog))
    result = VMResult(
        stdout=_read(work_dir / "stdout.txt"), stderr=_read(work_dir / "stderr.txt"),
        exit_code=int(code_file.read_text().strip() or "255"),
        files={str(p.relative_to(work_dir)): p for p in sorted(work_dir.rglob("*"))
               if p.is_file() and not p.relative_to(work_dir).parts[0].startswith(".")
               and str(p.relative_to(work_dir)) not in HARNESS_FILES},
        screenshots=screenshots, serial_log=_read(serial), work_dir=work_dir, seconds=seconds)
    shutil.rmtree(run_dir, ignore_errors=True)
    return result


def _screendump(monitor: Monitor, work_dir: Path, name: str) -> Screenshot:
    if not re.fullmatch(r"[A-Za-z0-9_.-]+", name):
        raise VMError(f"screenshot name {name!r}: use letters, digits, _ . -")
    ppm = work_dir / "screenshots" / f"{name}.ppm"
    reply = monitor.command(f"screendump {ppm}")
    for _ in range(100):  # the file is complete when the prompt returns; allow for slow disks
        try:
            w, h, rgb = read_ppm(ppm)
            break
        except (OSError, VMError, ValueError, IndexError):
            time.sleep(0.05)
    else:
        raise VMError(f"screendump {name} produced no readable PPM; monitor said: {reply}")
    png = work_dir / "screenshots" / f"{name}.png"
    write_png(png, w, h, rgb)
    ppm.unlink()
    return Screenshot(name, png, w, h, rgb)


def _read(p: Path) -> str:
    return p.read_text(errors="replace") if p.exists() else ""


def _failure(what: str, work_dir: Path, serial: Path, qlog: Path) -> str:
    return (f"{what}\n--- guest stdout ---\n{_read(work_dir / 'stdout.txt')[-3000:]}"
            f"\n--- guest stderr ---\n{_read(work_dir / 'stderr.txt')[-3000:]}"
            f"\n--- serial log ---\n{_read(serial)[-6000:]}\n--- qemu ---\n{_read(qlog)[-2000:]}"
            f"\n(work folder: {work_dir})")


def main(argv: Sequence[str] | None = None) -> int:
    """Ad-hoc runs: python3 Tests/e2e/kioskvm.py 'SCRIPT' [--device KEY:KIND] [--screen WxH]."""
    import argparse
    ap = argparse.ArgumentParser(description="Run a shell script in the kiosk VM against the host's build.")
    ap.add_argument("script", help="the guest script (POSIX sh), or @FILE")
    ap.add_argument("--device", action="append", default=[], metavar="KEY:KIND",
                    help="a uinput touchscreen, e.g. panel:protocolB (repeatable); node in $TB_DEV_KEY")
    ap.add_argument("--screen", default="1280x800", help="display size, WxH")
    ap.add_argument("--timeout", type=float, default=BOOT_TIMEOUT_S, help="seconds")
    ap.add_argument("--work", type=Path, help="work folder (default: a new one under /tmp)")
    args = ap.parse_args(argv)
    script = Path(args.script[1:]).read_text() if args.script.startswith("@") else args.script
    devices = [Touchscreen(*d.split(":", 1)) for d in args.device]
    w, h = (int(v) for v in args.screen.lower().split("x"))
    r = run_vm(script, devices=devices, screen=(w, h), timeout=args.timeout, work_dir=args.work, check=False)
    print(r.stdout, end="")
    print(r.stderr, end="", file=__import__("sys").stderr)
    print(f"[kioskvm] exit {r.exit_code} after {r.seconds:.1f} s; work folder {r.work_dir}; "
          f"screenshots: {', '.join(str(s.png) for s in r.screenshots.values()) or 'none'}",
          file=__import__("sys").stderr)
    return r.exit_code


if __name__ == "__main__":
    raise SystemExit(main())
