#!/usr/bin/python3
# A stand-in for systemd's manager on a private D-Bus, so the real systemctl prints what it would
# for each unit below (see README). It answers org.freedesktop.DBus.Properties.GetAll on unit
# objects with the properties the manager would hold in each case, in the manager's order (the
# Service interface's properties before the Unit interface's); a unit not listed is what the
# manager loads for a name it has no file for (LoadState=not-found). Needs python3-dbus, python3-gi.
import sys

import dbus
import dbus.mainloop.glib
import dbus.service
from gi.repository import GLib

START = 1796040000123456  # Mon 2026-11-30 12:00:00.123456 UTC, in microseconds


def unit(name, active, sub, result, code, status, start, exit, load="loaded"):
    return [("Result", dbus.String(result)),
            ("ExecMainStartTimestamp", dbus.UInt64(start)),
            ("ExecMainExitTimestamp", dbus.UInt64(exit)),
            ("ExecMainCode", dbus.Int32(code)),  # 0 never ran, 1 CLD_EXITED, 2 CLD_KILLED, 3 CLD_DUMPED
            ("ExecMainStatus", dbus.Int32(status)),
            ("Id", dbus.String(name)), ("LoadState", dbus.String(load)),
            ("ActiveState", dbus.String(active)), ("SubState", dbus.String(sub))]


UNITS = {u[5][1]: u for u in [
    unit("hangar-run-1.service", "active", "running", "success", 0, 0, START, 0),
    unit("hangar-W-1-1.service", "active", "running", "success", 0, 0, START, 0),
    unit("hangar-exit0-1.service", "inactive", "dead", "success", 1, 0, START, START + 90531000),
    unit("hangar-exit3-1.service", "failed", "failed", "exit-code", 1, 3, START, START + 90531000),
    unit("hangar-kill-1.service", "failed", "failed", "signal", 2, 9, START, START + 12000000),
    # RuntimeMaxSec=60: the manager stops the unit with KillSignal=SIGTERM
    unit("hangar-timeout-1.service", "failed", "failed", "timeout", 2, 15, START, START + 60002345),
    # systemctl stop: SIGTERM is a clean end for a service, Result stays success
    unit("hangar-stop-1.service", "inactive", "dead", "success", 2, 15, START, START + 30000999),
    # Type=exec between fork and execve
    unit("hangar-start-1.service", "activating", "start", "success", 0, 0, START, 0),
]}


def name_of(path):  # .../unit/hangar_2dW_2d1_2d1_2eservice -> hangar-W-1-1.service
    s, out, i = path.rsplit("/", 1)[1], "", 0
    while i < len(s):
        if s[i] == "_":
            out, i = out + chr(int(s[i + 1:i + 3], 16)), i + 3
        else:
            out, i = out + s[i], i + 1
    return out


class Units(dbus.service.FallbackObject):
    @dbus.service.method("org.freedesktop.DBus.Properties", in_signature="s",
                         out_signature="a{sv}", rel_path_keyword="rel")
    def GetAll(self, interface, rel=None):
        name = name_of(rel)
        props = UNITS.get(name) or unit(name, "inactive", "dead", "success", 0, 0, 0, 0, "not-found")
        return dbus.Dictionary(props, signature="sv")


dbus.mainloop.glib.DBusGMainLoop(set_as_default=True)
bus = dbus.bus.BusConnection(sys.argv[1])
owner = dbus.service.BusName("org.freedesktop.systemd1", bus)
Units(bus, "/org/freedesktop/systemd1/unit")
GLib.MainLoop().run()
