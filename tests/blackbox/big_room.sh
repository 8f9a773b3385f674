#!/usr/bin/env bash
# A room with 1,000 files in nested directories, a symlink to /etc/passwd and a file whose name
# holds a newline: the return's manifest lists every entry; the symlink is recorded (type symlink,
# target /etc/passwd, no sha256), never followed: no entry carries /etc/passwd's hash.
. "$(dirname "$0")/lib.sh"
setup
start_hangard
mission big script 2 '[{"file":"a/b/f0001"}]' \
  'files 250 a/b' 'files 250 a/c/d' 'files 250 e/f/g/h' 'files 250 top' \
  'symlink /etc/passwd etc-link' 'write-newline-name nl' 'write REPORT.md big' | drop big.json
wait_returned big 60
r=$S/returned/big/return.json
[[ "$(outcome big)" == done ]] || fail "outcome $(outcome big), expected done"
manifest "$r" >"$T/manifest"
[[ -s "$T/manifest" ]] || fail "no room manifest (a list of entries with a path) in return.json: $(head -c 600 "$r")"
(cd "$S/rooms/big" && find . -mindepth 1 -printf '%P\0') >"$T/room-entries"
python3 - "$T/manifest" "$T/room-entries" "$(sha256sum /etc/passwd | cut -d' ' -f1)" "$r" <<'PY' >"$T/problems" || true
import json, sys
entries = [json.loads(l) for l in open(sys.argv[1])]
room = [p for p in open(sys.argv[2], "rb").read().decode("utf-8", "surrogateescape").split("\0") if p]
passwd_hash = sys.argv[3]
ret = json.load(open(sys.argv[4]))
by_path = {e["path"].removeprefix("./"): e for e in entries}
missing = [p for p in room if p not in by_path]
if missing:
    print("manifest lacks %d of %d room entries, e.g. %r" % (len(missing), len(room), missing[:3]))
files = [e for e in entries if e.get("type") in ("file", "regular")]
dirs = [e for e in entries if e.get("type") in ("dir", "directory")]
if len(files) < 1002:
    print("manifest lists %d files, expected >= 1002" % len(files))
if len(dirs) < 8:
    print("manifest lists %d directories, expected >= 8" % len(dirs))
link = by_path.get("etc-link")
if not link:
    print("manifest lacks etc-link")
elif link.get("type") != "symlink" or link.get("target") != "/etc/passwd" or link.get("sha256") is not None:
    print("etc-link recorded as %s, expected type symlink, target /etc/passwd, no sha256" % json.dumps(link))
if "nl\nname" not in by_path:
    print("manifest lacks the file named 'nl\\nname'")
for e in entries:
    if e.get("sha256") == passwd_hash:
        print("an entry carries /etc/passwd's hash: %s" % json.dumps(e))
room_obj = ret.get("room") or {}
for k in ("omitted_entries", "unhashed_files"):
    if room_obj.get(k) not in (0, None):
        print("room.%s = %s, expected 0" % (k, room_obj.get(k)))
if room_obj.get("errors"):
    print("room.errors: %s" % json.dumps(room_obj["errors"])[:200])
if room_obj.get("entries") != len(entries) or room_obj.get("listed") != len(entries):
    print("room.entries %s, room.listed %s, manifest %d" % (room_obj.get("entries"), room_obj.get("listed"), len(entries)))
unhashed = [e["path"] for e in files if not e.get("sha256")]
if unhashed:
    print("regular files without sha256: %r" % unhashed[:3])
PY
[[ ! -s "$T/problems" ]] || fail "$(head -n 5 "$T/problems" | tr '\n' ';')"
pass
