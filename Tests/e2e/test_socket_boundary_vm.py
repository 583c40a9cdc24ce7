"""The control socket as a security boundary under the packaged unit (issue 31), on the Debian
12 VM with systemd (debianvm.py): the .deb is installed with apt and the kiosk runs as its own
`touchbridge` user from the shipped unit, with `[control] socket` in /run/touchbridge
(RuntimeDirectory=) and `files_dir` in a folder the administrator made.

What docs/control.md promises, checked from outside the kiosk:
- the socket is the kiosk's user's and group's, mode 0660, in a 0750 folder of that group; a
  user outside the group is refused (the kernel says no before the kiosk hears of it), a member
  of the group can connect and gets answers;
- `screenshot` (screenshot_dir: the socket's folder by default) is refused outside the folder,
  through a symlink out of it, over a file the kiosk did not make (root's file, a symlink to the
  kiosk's own configuration, a FIFO, without hanging the kiosk), and written inside it (and
  replaced when the kiosk made the file);
- an icon and a ground-overlay image are refused outside files_dir and through a symlink that
  escapes it, and read inside it. (GeoJSON arrives inline over the socket, never as a path.)

One boot for all of it; each check's reply is kept in a file and asserted on the host."""

from __future__ import annotations

import json
import struct
import zlib
from pathlib import Path

import pytest

import debianvm
from evemu import Touchscreen
from test_debian import find_deb

SOCK = "/run/touchbridge/control.sock"
FILES = "/var/lib/touchbridge/files"

SCRIPT = r"""
set +e
exec 2>&1
CONFIG=/etc/touchbridge/touchbridge.toml
step() { echo "== $* ($(cut -d' ' -f1 /proc/uptime) s)"; }
step install
udevadm settle
apt-get install -y --no-install-recommends ./touchbridge.deb > install.log 2>&1; echo $? > install.rc
# The administrator's side: the socket in the unit's runtime folder, a files folder the
# kiosk's user may read, a member of the kiosk's group and a user outside it.
sed -i 's|^socket = ""|socket = "@SOCK@"\nfiles_dir = "@FILES@"|' "$CONFIG"
grep -E '^(socket|files_dir) =' "$CONFIG" > control-section.txt
md5sum "$CONFIG" > config-before.md5
mkdir -p @FILES@/sub /srv/elsewhere
cp icon.png ground.png @FILES@/
cp icon.png ground.png /srv/elsewhere/
chmod -R a+rX /var/lib/touchbridge /srv/elsewhere
ln -s /srv/elsewhere @FILES@/escape          # a folder link out of files_dir
ln -s /srv/elsewhere/icon.png @FILES@/icon-link.png
ln -s /srv/elsewhere/ground.png @FILES@/ground-link.png
useradd -M -s /usr/sbin/nologin -G touchbridge member
useradd -M -s /usr/sbin/nologin outsider

step start
systemctl start touchbridge
i=0
until [ -S @SOCK@ ]; do sleep 0.2; i=$((i + 1)); [ $i -gt 300 ] && break; done
systemctl is-active touchbridge > active.txt
stat -c '%n %U %G %a %F' @SOCK@ /run/touchbridge > sock-stat.txt
# ctl as a user: its exit status, stdout (the reply) and stderr into NAME.rc, NAME.json, NAME.err
ctl_as() { who=$1; name=$2; shift 2
  timeout 20 runuser -u "$who" -- touchbridge ctl --socket @SOCK@ --timeout 10 "$@" > "$name.json" 2> "$name.err"
  echo $? > "$name.rc"; }
ctl() { ctl_as member "$@"; }

step who-may-connect
ctl_as outsider outsider get_camera
ctl_as member member get_camera
# Even with the folder opened to all, the socket's own mode keeps the outsider out.
chmod 0755 /run/touchbridge
ctl_as outsider outsider-open-folder get_camera
chmod 0750 /run/touchbridge

step screenshot
ctl shot-outside screenshot path=/var/tmp/outside.png
ls /var/tmp/outside.png > shot-outside.ls 2>&1
ln -s /etc /run/touchbridge/etc-link
ctl shot-folder-link screenshot path=/run/touchbridge/etc-link/touchbridge/evil.png
ln -s "$CONFIG" /run/touchbridge/config-link.png
ctl shot-file-link screenshot path=/run/touchbridge/config-link.png
echo "root's file" > /run/touchbridge/roots.png
ctl shot-roots screenshot path=/run/touchbridge/roots.png
mkfifo /run/touchbridge/fifo.png; chmod 0666 /run/touchbridge/fifo.png
ctl shot-fifo screenshot path=/run/touchbridge/fifo.png
ctl shot-inside screenshot path=/run/touchbridge/shot.png
stat -c '%U %G %s' /run/touchbridge/shot.png > shot-inside.stat 2>&1
ctl shot-again screenshot path=/run/touchbridge/shot.png
md5sum "$CONFIG" > config-after.md5
cat /run/touchbridge/roots.png > roots-after.txt
ls -la /run/touchbridge /etc/touchbridge > after-shots.ls
cp /run/touchbridge/shot.png shot.png 2>/dev/null

step files
ctl icon-outside add_marker marker=a latitude=47.1 longitude=9.5 icon=/srv/elsewhere/icon.png
ctl icon-missing-outside add_marker marker=a latitude=47.1 longitude=9.5 icon=/srv/elsewhere/nothing.png
ctl icon-dotdot add_marker marker=a latitude=47.1 longitude=9.5 icon=@FILES@/../../../../srv/elsewhere/icon.png
ctl icon-folder-link add_marker marker=a latitude=47.1 longitude=9.5 icon=@FILES@/escape/icon.png
ctl icon-file-link add_marker marker=a latitude=47.1 longitude=9.5 icon=@FILES@/icon-link.png
ctl icon-inside add_marker marker=a latitude=47.1 longitude=9.5 icon=@FILES@/icon.png
B='bounds=[9.4,47.0,9.6,47.2]'
ctl ground-outside add_overlay overlay=g image=/srv/elsewhere/ground.png "$B"
ctl ground-folder-link add_overlay overlay=g image=@FILES@/escape/ground.png "$B"
ctl ground-file-link add_overlay overlay=g image=@FILES@/ground-link.png "$B"
ctl ground-inside add_overlay overlay=g image=@FILES@/ground.png "$B"
ctl list-markers list_markers
ctl list-overlays list_overlays
systemctl is-active touchbridge > active-after.txt
systemctl show touchbridge -p NRestarts -p MainPID > show-after.txt
journalctl -u touchbridge --no-pager -o cat > journal.txt
systemctl stop touchbridge
step done
"""


def png(width: int, height: int, rgba: tuple[int, int, int, int]) -> bytes:
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    raw = b"".join(b"\x00" + bytes(rgba) * width for _ in range(height))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 6, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))


@pytest.fixture(scope="module")
def vm(tmp_path_factory):
    deb = find_deb()
    prepared = debianvm.prepare(deb)
    panel = Touchscreen("panel", "protocolB", slots=10, x_max=4095, y_max=4095, resolution=12)
    work = tmp_path_factory.mktemp("socket-boundary")
    script = SCRIPT.replace("@SOCK@", SOCK).replace("@FILES@", FILES)
    r = debianvm.run(prepared, script, work_dir=work,
                     files={"touchbridge.deb": deb.read_bytes(), "icon.png": png(16, 24, (200, 30, 30, 255)),
                            "ground.png": png(64, 64, (30, 30, 200, 160))},
                     devices=[panel], screen=(1280, 800), timeout=900)
    print(r.stdout)
    print(f"[socket boundary vm] {r.seconds:.0f} s; work folder {r.work_dir}")
    return r


text = debianvm.guest_text


def reply(r, name: str) -> tuple[int, dict | None, str]:
    """The ctl run's exit status, its JSON reply (None when it printed none) and its stderr."""
    out = text(r, f"{name}.json").strip()
    return int(text(r, f"{name}.rc").strip()), (json.loads(out) if out else None), text(r, f"{name}.err")


def refused(r, name: str, *words: str) -> str:
    rc, js, err = reply(r, name)
    assert rc == 1, (name, rc, js, err)
    assert js is not None and js["ok"] is False, (name, js, err)
    for w in words:
        assert w in js["error"], (name, js["error"])
    return js["error"]


def accepted(r, name: str) -> dict:
    rc, js, err = reply(r, name)
    assert rc == 0 and js is not None and js["ok"] is True, (name, rc, js, err)
    return js


def test_the_kiosk_runs_as_the_packaged_unit_with_its_socket(vm):
    assert vm.exit_code == 0, vm.stdout
    assert text(vm, "install.rc").strip() == "0", text(vm, "install.log")
    section = text(vm, "control-section.txt")
    assert f'socket = "{SOCK}"' in section and f'files_dir = "{FILES}"' in section, section
    assert text(vm, "active.txt").strip() == "active", text(vm, "journal.txt")[-3000:]


def test_the_socket_has_the_owner_group_and_mode_docs_control_md_promises(vm):
    stat = {l.split()[0]: l.split()[1:] for l in text(vm, "sock-stat.txt").splitlines()}
    assert stat[SOCK][:3] == ["touchbridge", "touchbridge", "660"], stat
    assert stat[SOCK][3] == "socket", stat
    # RuntimeDirectory=touchbridge, RuntimeDirectoryMode=0750: the group may reach the socket.
    assert stat["/run/touchbridge"][:3] == ["touchbridge", "touchbridge", "750"], stat


def test_a_user_outside_the_group_is_refused_and_a_member_connects(vm):
    rc, js, err = reply(vm, "outsider")
    assert rc != 0 and js is None, (rc, js, err)
    assert "ermission denied" in err, err
    # The socket's own mode 0660 holds even when its folder is opened to everyone.
    rc, js, err = reply(vm, "outsider-open-folder")
    assert rc != 0 and js is None and "ermission denied" in err, (rc, js, err)
    member = accepted(vm, "member")
    assert set(member["camera"]) >= {"lat", "lon", "zoom", "bearing", "tilt"}, member


def test_screenshot_outside_its_folder_or_through_a_link_or_over_anothers_file_is_refused(vm):
    refused(vm, "shot-outside", "/run/touchbridge")
    assert "No such file" in text(vm, "shot-outside.ls")
    refused(vm, "shot-folder-link", "symbolic link")
    refused(vm, "shot-file-link", "symbolic link")
    refused(vm, "shot-roots", "another user")
    refused(vm, "shot-fifo", "not a regular file")
    # Nothing was written through the links or over root's file: the configuration is intact
    # (the kiosk kept answering after the FIFO, so it did not block on it either).
    assert text(vm, "config-after.md5") == text(vm, "config-before.md5")
    assert text(vm, "roots-after.txt") == "root's file\n"
    listing = text(vm, "after-shots.ls")
    assert "evil.png" not in listing, listing


def test_screenshot_inside_its_folder_is_written_and_replaced(vm):
    first = accepted(vm, "shot-inside")
    assert first["path"] == "/run/touchbridge/shot.png" and first["width"] == 1280, first
    owner, group, size = text(vm, "shot-inside.stat").split()
    assert (owner, group) == ("touchbridge", "touchbridge") and int(size) > 1000
    accepted(vm, "shot-again")  # the kiosk made the file: it may replace it
    assert vm.files["shot.png"].read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_icons_and_ground_images_outside_files_dir_or_through_links_are_refused(vm):
    outside = refused(vm, "icon-outside", FILES)
    # The same words whether the file exists or not: the error tells nothing of the file system.
    assert refused(vm, "icon-missing-outside", FILES).replace("nothing.png", "icon.png") == outside
    refused(vm, "icon-dotdot", FILES)
    refused(vm, "icon-folder-link", "symbolic link")
    refused(vm, "icon-file-link", "symbolic link")
    refused(vm, "ground-outside", FILES)
    refused(vm, "ground-folder-link", "symbolic link")
    refused(vm, "ground-file-link", "symbolic link")


def test_icons_and_ground_images_inside_files_dir_are_read(vm):
    assert accepted(vm, "icon-inside")["marker"]["icon"] == f"{FILES}/icon.png"
    assert accepted(vm, "ground-inside")["overlay"]["kinds"] == ["ground"]
    # The configuration's own marker ("paris" in the default file) and the client's one.
    markers = {m["marker"]: m for m in accepted(vm, "list-markers")["markers"]}
    assert markers["a"]["icon"] == f"{FILES}/icon.png", markers
    assert [o["overlay"] for o in accepted(vm, "list-overlays")["overlays"]] == ["g"]
    # No refusal cost the kiosk its life.
    assert text(vm, "active-after.txt").strip() == "active"
    assert "NRestarts=0" in text(vm, "show-after.txt")
