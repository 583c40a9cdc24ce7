#!/usr/bin/env python3
"""touchbridge(1) from the command-line definitions.

Reads the JSON that swift-argument-parser prints for `touchbridge --experimental-dump-help`
(ToolInfoV0: commands, their abstracts and discussions, every option with its value name and
default) and writes one roff man page with a section per subcommand. Used by `make
generated`, so the page in the package and in `make install` always matches the binary.
Usage: scripts/manpage.py help.json > touchbridge.1
"""

from __future__ import annotations

import json
import sys


def esc(text: str) -> str:
    """roff-safe text: backslashes, a leading dot or quote, hyphens in option names."""
    text = text.replace("\\", "\\e")
    lines = []
    for line in text.split("\n"):
        if line.startswith((".", "'")):
            line = "\\&" + line
        lines.append(line)
    return "\n".join(lines)


def opt_name(n: dict) -> str:
    dash = "--" if n["kind"] == "long" else "-"
    return dash + n["name"]


def synopsis_arg(a: dict) -> str:
    if a["kind"] == "positional":
        s = f"\\fI{a.get('valueName', 'arg')}\\fR"
    else:
        n = a.get("preferredName") or (a.get("names") or [{"kind": "long", "name": "?"}])[0]
        s = "\\fB" + opt_name(n).replace("-", "\\-") + "\\fR"
        if a["kind"] == "option":
            s += f" \\fI{a.get('valueName', 'value')}\\fR"
    if a.get("isRepeating"):
        s += " ..."
    return f"[{s}]" if a.get("isOptional") else s


def arguments(cmd: dict) -> list[dict]:
    return [a for a in cmd.get("arguments") or [] if a.get("shouldDisplay", True)
            and not any(n["name"] in ("help", "version", "experimental-dump-help") for n in a.get("names") or [])]


def describe_args(cmd: dict) -> list[str]:
    out = []
    for a in arguments(cmd):
        if a["kind"] == "positional":
            head = f"\\fI{a.get('valueName', 'arg')}\\fR"
        else:
            names = ", ".join("\\fB" + opt_name(n).replace("-", "\\-") + "\\fR" for n in a.get("names") or [])
            head = names + (f" \\fI{a.get('valueName', 'value')}\\fR" if a["kind"] == "option" else "")
        text = esc(a.get("abstract") or "")
        if a.get("discussion"):
            text += " " + esc(a["discussion"])
        if a.get("defaultValue") not in (None, ""):
            text += f" (default: {esc(a['defaultValue'])})"
        out += [".TP", head, text]
    return out


def page(info: dict) -> str:
    root = info["command"]
    name = root["commandName"]
    subs = [c for c in root.get("subcommands") or [] if c.get("shouldDisplay", True) and c["commandName"] != "help"]
    out = [f'.TH {name.upper()} 1 "" "{name}" "User Commands"',
           ".SH NAME", f"{name} \\- {esc(root.get('abstract') or '')}",
           ".SH SYNOPSIS"]
    for c in subs:
        out.append(f".B {name} {c['commandName']}")
        args = " ".join(synopsis_arg(a) for a in arguments(c))
        out.append(args if args else "")
        out.append(".br")
    out.append(f".B {name}")
    out.append("[\\fB\\-\\-version\\fR] [\\fB\\-\\-help\\fR]")
    out.append(".SH DESCRIPTION")
    out.append(esc(root.get("abstract") or ""))
    if root.get("discussion"):
        out += [".PP", esc(root["discussion"])]
    out.append(".SH COMMANDS")
    for c in subs:
        out += [".SS " + f"{name} {c['commandName']}", esc(c.get("abstract") or "")]
        if c.get("discussion"):
            out += [".PP", esc(c["discussion"])]
        out += describe_args(c)
    out += [".SH FILES",
            ".TP", "\\fI/etc/touchbridge/touchbridge.toml\\fR",
            "The kiosk's configuration (every key is documented in the example beside the package's docs).",
            ".TP", "\\fI/usr/share/touchbridge/world.bin\\fR", "The built-in world map.",
            ".SH EXIT STATUS",
            "0 on success, 1 for a display, device or file error, 2 for a configuration error "
            "(which the systemd unit does not restart).",
            ".SH SEE ALSO",
            "\\fBsystemctl\\fR(1), \\fBjournalctl\\fR(1), \\fBudev\\fR(7), \\fBsysusers.d\\fR(5)"]
    return "\n".join(out) + "\n"


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 64
    with open(argv[1]) as f:
        info = json.load(f)
    sys.stdout.write(page(info))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
