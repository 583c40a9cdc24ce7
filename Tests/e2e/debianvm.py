"""A real Debian 12 system with systemd under QEMU, for testing the .deb as a kiosk gets it.

kioskvm.py boots Debian's kernel into a busybox shell that chroots into the host; that is
enough for evdev and DRM, but not for a package: there is no systemd, no udev daemon, no
journal, no dpkg database of its own. This module builds (once, cached like the kernel) a
debootstrapped Debian 12 root file system with systemd, udev and the kiosk's runtime
libraries, as an ext4 image; each run boots the cached kernel on a copy-on-write overlay of
it (the image itself never changes), with the same bochs display, monitor screenshots and
9p work folder as kioskvm. A oneshot unit in the image runs the test's script as root once
the system is up, then powers off.

Cached under $TB_VM_CACHE/debian/:
- rootfs-bookworm-HASH/ (206 MB): `debootstrap --variant=minbase` with systemd, udev,
  evemu-tools and the libraries below, plus the test driver unit. Made once; HASH covers the
  package list and the setup below.
- bookworm-HASH.img: that tree plus the .deb's own dependencies (from its Depends field,
  usually already there) as a 2 GiB sparse ext4 image made by `mke2fs -d` (no loop mount).
- initrd-debian-VERSION-HASH.cpio: busybox, the modules the root file system and the tests
  need (virtio block and 9p, ext4 with crc32c, uinput, evdev, bochs), and an /init that mounts /dev/vda and
  switch_roots into systemd.
"""

from __future__ import annotations

import dataclasses
import fcntl
import hashlib
import os
import re
import shlex
import shutil
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Sequence

import kioskvm
from kioskvm import CACHE, VMError, VMResult

SUITE = "bookworm"
# What the image has besides minbase: the init system and udev (the point of the test), the
# kiosk's runtime libraries (so installing the .deb needs no network), evemu for uinput
# touchscreens, procps for pgrep/ps.
INCLUDE = ["systemd", "systemd-sysv", "udev", "dbus", "kmod", "procps", "evemu-tools",
           "libevdev2", "libdrm2", "libudev1", "libcairo2", "libpango-1.0-0", "libpangocairo-1.0-0",
           "libsqlite3-0", "fonts-dejavu-core", "fonts-noto-core", "fonts-noto-cjk"]
HOST_TOOLS = {"debootstrap": "debootstrap", "mke2fs": "e2fsprogs", "qemu-img": "qemu-utils"}
MODULES = ("virtio_pci", "virtio_blk", "crc32c_intel", "ext4", "9pnet_virtio", "9p", "uinput", "evdev", "bochs")
IMAGE_SIZE = "2G"
DEBOOTSTRAP_TIMEOUT_S = 1800.0

# The driver: runs /tmp/tbvm/run.sh (the work folder over 9p) once the system is up, then
# powers off. Ordered after the kiosk could have started (multi-user's other units), not
# after multi-user.target itself (that would be an ordering cycle with WantedBy).
DRIVER_UNIT = """[Unit]
Description=TouchBridge VM test driver
After=basic.target systemd-user-sessions.service systemd-udev-trigger.service
[Service]
Type=oneshot
ExecStart=/usr/local/sbin/tbvm-run
StandardOutput=journal+console
StandardError=journal+console
[Install]
WantedBy=multi-user.target
"""
DRIVER = r"""#!/bin/sh
mkdir -p /tmp/tbvm
mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144 work /tmp/tbvm || { echo "TBVM: no work folder"; poweroff -f; }
echo "TBVM: up at $(cut -d' ' -f1 /proc/uptime) s"
( . /tmp/tbvm/tbvm.env; cd /tmp/tbvm; /bin/sh /tmp/tbvm/run.sh > /tmp/tbvm/stdout.txt 2> /tmp/tbvm/stderr.txt
  echo $? > /tmp/tbvm/.exit_code.tmp; mv /tmp/tbvm/.exit_code.tmp /tmp/tbvm/exit_code )
echo "TBVM: script done at $(cut -d' ' -f1 /proc/uptime) s, exit $(cat /tmp/tbvm/exit_code)"
journalctl -b --no-pager -o short-monotonic > /tmp/tbvm/journal.txt 2>&1
sync
umount /tmp/tbvm
poweroff -f
"""
SETUP = r"""set -e
echo tbvm > /etc/hostname
printf '/dev/vda / ext4 rw,relatime 0 1\n' > /etc/fstab
passwd -d root
cat > /etc/systemd/system/tbvm.service <<'UNIT'
""" + DRIVER_UNIT + r"""UNIT
cat > /usr/local/sbin/tbvm-run <<'DRV'
""" + DRIVER + r"""DRV
chmod 755 /usr/local/sbin/tbvm-run
systemctl enable tbvm.service
# Nothing on the network and no timers during a test.
systemctl mask apt-daily.timer apt-daily-upgrade.timer e2scrub_all.timer fstrim.timer systemd-tmpfiles-clean.timer 2>/dev/null || true
# The journal keeps everything of a run (it is read back at the end).
mkdir -p /etc/systemd/journald.conf.d
printf '[Journal]\nStorage=volatile\nRateLimitBurst=0\n' > /etc/systemd/journald.conf.d/tbvm.conf
apt-get clean
rm -rf /var/lib/apt/lists/*
"""

INIT = r"""#!/bin/busybox sh
/bin/busybox mkdir -p /proc /sys /dev /bin /newroot
/bin/busybox --install -s /bin
export PATH=/bin:/sbin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
fail() { echo "TBVM-INIT: $*"; sync; poweroff -f; }
while read -r m; do insmod "/modules/$m" || echo "TBVM-INIT: insmod $m failed"; done < /modules/order
i=0; while [ ! -b /dev/vda ]; do sleep 0.05; i=$((i+1)); [ $i -gt 200 ] && fail "no /dev/vda"; done
mount -t ext4 -o rw /dev/vda /newroot || fail "cannot mount /dev/vda"
mount --move /dev /newroot/dev
umount /proc /sys
echo "TBVM-INIT: switching to systemd"
exec switch_root /newroot /sbin/init
"""


def guest_text(r, name: str) -> str:
    """A file the guest script wrote, as text; a clear failure with the guest's output when missing."""
    assert name in r.files, f"{name} missing; guest output:\n{r.stdout[-4000:]}"
    return r.text(name)


def ensure_host_tools() -> None:
    kioskvm.ensure_host_tools()
    missing = [pkg for cmd, pkg in HOST_TOOLS.items() if shutil.which(cmd) is None
               and not Path("/usr/sbin", cmd).exists() and not Path("/sbin", cmd).exists()]
    kioskvm._apt_install(missing)


def _mirror() -> str:
    """The Debian mirror the host's apt uses (deb822 or one-line sources)."""
    texts = []
    for p in [Path("/etc/apt/sources.list"), *sorted(Path("/etc/apt/sources.list.d").glob("*"))]:
        if p.is_file() and p.suffix in ("", ".list", ".sources"):
            texts.append(p.read_text(errors="replace"))
    for t in texts:
        for m in re.finditer(r"(?:URIs:\s*|^deb\s+(?:\[[^]]*\]\s+)?)(\S+/debian)/?\s", t, re.M):
            return m.group(1)
    return "http://deb.debian.org/debian"


def _hash(*parts: str) -> str:
    h = hashlib.sha256()
    for p in parts:
        h.update(p.encode() + b"\0")
    return h.hexdigest()[:12]


def _chroot(root: Path, script: str, timeout: float = 900) -> None:
    r = subprocess.run(["chroot", str(root), "/bin/sh", "-c", script], text=True, capture_output=True,
                       timeout=timeout, env={"PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "DEBIAN_FRONTEND": "noninteractive",
                                             "LC_ALL": "C"})
    if r.returncode != 0:
        raise VMError(f"in the image root {root}: {script[:200]}... failed ({r.returncode}):\n{r.stdout[-2000:]}\n{r.stderr[-3000:]}")


def ensure_rootfs() -> Path:
    """The debootstrapped tree, made once (5.5 min here, on a loaded 2-core machine)."""
    base = CACHE / "debian"
    base.mkdir(parents=True, exist_ok=True)
    folder = base / f"rootfs-{SUITE}-{_hash(SUITE, ' '.join(INCLUDE), SETUP)}"
    with open(base / ".rootfs.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if (folder / ".ready").exists():
            return folder
        if folder.exists():
            shutil.rmtree(folder)
        tmp = Path(tempfile.mkdtemp(prefix=".rootfs-", dir=base))
        try:
            r = subprocess.run(["debootstrap", "--variant=minbase", f"--include={','.join(INCLUDE)}",
                                SUITE, str(tmp), _mirror()], text=True, capture_output=True, timeout=DEBOOTSTRAP_TIMEOUT_S)
            if r.returncode != 0:
                raise VMError(f"debootstrap failed ({r.returncode}):\n{r.stdout[-3000:]}\n{r.stderr[-3000:]}"
                              + _tail(tmp / "debootstrap" / "debootstrap.log"))
            _chroot(tmp, SETUP)
            (tmp / ".ready").write_text(time.strftime("%Y-%m-%d %H:%M:%S\n"))
            tmp.rename(folder)
        finally:
            if tmp.exists():
                shutil.rmtree(tmp, ignore_errors=True)
    return folder


def _tail(p: Path) -> str:
    return "\n--- " + str(p) + " ---\n" + p.read_text(errors="replace")[-3000:] if p.exists() else ""


def deb_dependencies(deb: Path) -> list[str]:
    """The package names in a .deb's Depends (first of each alternative, no versions)."""
    field = subprocess.run(["dpkg-deb", "-f", str(deb), "Depends"], check=True, text=True, capture_output=True).stdout
    names = []
    for alt in field.split(","):
        first = alt.split("|")[0].strip()
        name = re.split(r"[\s(:]", first)[0]
        if name:
            names.append(name)
    return sorted(set(names))


def ensure_image(deb: Path) -> Path:
    """The root file system plus what `deb` depends on, as an ext4 image (cached by that list)."""
    rootfs = ensure_rootfs()
    deps = deb_dependencies(deb)
    image = CACHE / "debian" / f"{SUITE}-{_hash(rootfs.name, ' '.join(deps))}.img"
    with open(CACHE / "debian" / ".image.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if image.exists():
            return image
        missing = [d for d in deps if subprocess.run(
            ["chroot", str(rootfs), "dpkg-query", "-W", "-f=${Status}", d], text=True, capture_output=True
        ).stdout.strip() != "install ok installed"]
        if missing:  # a new dependency: add it to the cached tree (needs the network once)
            shutil.copy("/etc/resolv.conf", rootfs / "etc" / "resolv.conf")
            _chroot(rootfs, "apt-get update -qq && apt-get install -y -qq --no-install-recommends "
                    + " ".join(shlex.quote(m) for m in missing) + " && apt-get clean && rm -rf /var/lib/apt/lists/*")
        os.chmod(rootfs, 0o755)  # the tree was made in a mkdtemp folder (0700); it is the guest's /
        tmp = image.with_name(f".{image.name}.{os.getpid()}.tmp")
        r = subprocess.run(["mke2fs", "-q", "-F", "-t", "ext4", "-L", "tbroot", "-d", str(rootfs), str(tmp), IMAGE_SIZE],
                           text=True, capture_output=True)
        if r.returncode != 0:
            tmp.unlink(missing_ok=True)
            raise VMError(f"mke2fs -d {rootfs} failed:\n{r.stderr}")
        os.replace(tmp, image)
        for old in (CACHE / "debian").glob(f"{SUITE}-*.img"):  # one image at a time: 2 GiB each
            if old != image:
                old.unlink(missing_ok=True)
    return image


def ensure_initrd(kernel: kioskvm.Kernel) -> Path:
    order = kioskvm._module_load_order(kernel, MODULES)
    busybox = Path(kioskvm.BUSYBOX_STATIC).read_bytes()
    target = CACHE / "debian" / (f"initrd-debian-{kernel.version}-"
                                 f"{_hash(kernel.version, INIT, hashlib.sha256(busybox).hexdigest(), *map(str, order))}.cpio")
    if target.exists():
        return target
    e = kioskvm._newc_entry
    entries = [e("dev", 0o040755), e("dev/console", 0o020600, rdev=(5, 1)), e("dev/null", 0o020666, rdev=(1, 3)),
               e("bin", 0o040755), e("bin/busybox", 0o100755, busybox), e("bin/sh", 0o120777, b"busybox"),
               e("init", 0o100755, INIT.encode()), e("modules", 0o040755)]
    names = []
    for p in order:
        n = kioskvm._modname(p.name) + ".ko"
        names.append(n)
        entries.append(e("modules/" + n, 0o100644, kioskvm._module_bytes(p)))
    entries.append(e("modules/order", 0o100644, ("\n".join(names) + "\n").encode()))
    entries = [x[:6] + b"%08x" % (i + 1) + x[14:] for i, x in enumerate(entries)]
    entries.append(e("TRAILER!!!", 0))
    target.parent.mkdir(parents=True, exist_ok=True)  # a fresh machine: the initramfs comes before the image
    tmp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    tmp.write_bytes(b"".join(entries))
    os.replace(tmp, target)
    return target


@dataclasses.dataclass
class DebianVM:
    kernel: kioskvm.Kernel
    initrd: Path
    image: Path


def prepare(deb: Path) -> DebianVM:
    """Tools, kernel, image and initramfs: everything cached after the first call."""
    ensure_host_tools()
    kernel = kioskvm.ensure_kernel()
    return DebianVM(kernel, ensure_initrd(kernel), ensure_image(deb))


def run(vm: DebianVM, script: str, *, work_dir: Path, files: dict[str, bytes | str] | None = None,
        devices: Sequence = (), screen: tuple[int, int] = (1280, 800), timeout: float = 300,
        memory_mib: int = 1024) -> VMResult:
    """Boot the image (on a throw-away overlay), run `script` as root with /bin/sh in $TB_WORK
    once systemd has brought the system up, power off. Same helpers in the script as kioskvm
    (tb_screenshot, tb_evemu_device, tb_play); $TB_DEV_<KEY> for `devices`. The guest's
    journal comes back as journal.txt. Raises VMError on a hang or a failed boot; the
    script's exit code is in the result (not checked here)."""
    kioskvm.prepare_work_dir(work_dir, script, devices=devices, files=files, screen=screen)
    run_dir = kioskvm.new_run_dir("d")
    overlay = run_dir / "overlay.qcow2"
    subprocess.run(["qemu-img", "create", "-q", "-f", "qcow2", "-F", "raw", "-b", str(vm.image), str(overlay)],
                   check=True, capture_output=True)
    cmd = kioskvm.qemu_command(vm.kernel, vm.initrd, screen=screen, memory_mib=memory_mib, run_dir=run_dir,
                               append="console=ttyS0 loglevel=3 panic=-1 systemd.show_status=0 rw",
                               drives=[f"file={overlay},if=virtio,format=qcow2"], work_dir=work_dir)
    return kioskvm.boot(cmd, work_dir=work_dir, run_dir=run_dir, timeout=timeout,
                        hang_message="the Debian VM did not power off within {timeout:.0f} s")


if __name__ == "__main__":  # warm the cache: python3 Tests/e2e/debianvm.py
    # What every VM test needs before its first boot and no .deb decides: the kernel, both
    # initramfs images and the debootstrapped tree (scripts/test-all.sh runs this beside the
    # compiles, so that no VM test worker waits for it).
    import sys
    t = time.monotonic()
    ensure_host_tools()
    kernel = kioskvm.ensure_kernel()
    kioskvm.ensure_initrd(kernel)
    ensure_initrd(kernel)
    print(kernel.version, ensure_rootfs(), f"{time.monotonic() - t:.0f} s", file=sys.stderr)
