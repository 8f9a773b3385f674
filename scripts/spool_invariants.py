"""spool_invariants — a scratch spool driven through the real binaries, and the promises the spool
keeps whatever crashed when (issue 6), checked after the run. Used by scripts/crash-sweep and
scripts/kill-loop; see their headers for what they drive.

check(run) reports, each as a sentence naming the mission or file:
  - a mission id in two state directories, an unfinished intake or move (.NAME left in a state
    directory), anything left in incoming/new or control/new;
  - a drone started more than once for one attempt, or without that attempt's launch key (each
    appends "start ID PID ATTEMPT" to run.starts), a mission that returned done/failed/timed
    out/cancelled after running whose last attempt's drone did not start exactly once;
  - a mission of run.drops in no state directory (lost from the spool), or ended in a state its
    path does not allow; a count of rejected/ other than run.rejected;
  - an op that ran more than once for one (mission, key) (each handler run appends to run.op_runs);
  - a purged mission (purged/ID.json, its tombstone) still in a state directory or its room, a
    tombstone that does not parse or name its id, anything left in purged/.trash;
  - a launch key in keys/ whose mission is not in running/ or returned/ (or purged with a
    tombstone that lists the key), or whose launch.json and
    return.json (or those of attempts/N/, kept by a retry) do not name that attempt; a returned
    mission with launch.json but no launch key;
  - a .json file of the spool (outside rooms/, the drop zones and the ledger) that does not parse;
  - a return.json of returned/ (or of attempts/N/, kept by a retry) whose ledger_seq does not name
    that mission's mission.returned entry with the file's sha256: a return the ledger does not back
    (record before act; a start finishes a move out of running/ only when the entry is there);
  - a work state dropped not stored exactly once (one version each, its file as the ledger's
    sha256 says).
  - `hangar ledger verify` failing.
  - `hangar replay` not exiting 0 (a decision the replay makes otherwise, a record refused).
"""
import hashlib
import json
import os
import shutil
import signal
import subprocess
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.path.join(ROOT, "bin")
CRASH_STATUS = 86  # kFaultCrashStatus, src/shell/fault_env.h
STATES = ("hold", "queued", "running", "returned", "denied", "rejected")

# The policy: the spool's default with ops of names no text rule holds on (the default's op names
# are verbs the text rules hold, which would hold the missions listing them).
OPS_POLICY = {"allow": ["log.note"], "grant": ["ticket.open"], "deny": ["wire.funds"],
              "unknown": "deny"}


def write_json(path, doc):
    with open(path, "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")


def load(path):
    with open(path, "rb") as f:
        return json.loads(f.read())


def mission(id_, lines, max_minutes=1, done_when=None, **extra):
    """A mission for the fake drone (scripts/fake-drone): its future is the directive lines."""
    d = {"hangar": 1, "id": id_, "requester": "spool-invariants", "drone": "script",
         "future": "\n".join(lines), "now": "a crash-safety run", "max_minutes": max_minutes}
    if done_when is not None:
        d["done_when"] = done_when
    d.update(extra)
    return d


class Run:
    """One scratch spool (a copy of spool/, 2 slots, queue_warm 2, OPS_POLICY with handlers that count their
    runs), the hangard on it, and what the test drops into it. drops: a list of (drop name,
    mission dict or raw bytes, id or None, the ends allowed, ran), an end being "STATE" or
    "returned:OUTCOME", ran saying that its drone must have started once if it returned other
    than lost. rejected: how many drops end in rejected/ (id None, or a duplicate id)."""

    def __init__(self, tmp_root, label):
        self.t = tempfile.mkdtemp(prefix=f"hangar-sweep-{label}.", dir=tmp_root)
        self.s = os.path.join(self.t, "spool")
        self.a = os.path.join(self.t, "anchor")
        self.log = os.path.join(self.t, "hangard.log")
        self.flog = os.path.join(self.t, "fault.log")
        self.starts = os.path.join(self.t, "starts")
        self.op_runs = os.path.join(self.t, "ops.runs")
        self.proc = None
        self.notes = []
        self.quiet_calls = 0  # mutating calls logged when the workload was done (not the stop's)
        shutil.copytree(os.path.join(ROOT, "spool"), self.s, symlinks=True)
        os.mkdir(self.a)
        open(self.starts, "a").close()
        conf_path = os.path.join(self.s, "hangar.conf")
        conf = json.load(open(conf_path))
        conf["slots"] = 2
        conf["kill_grace_s"] = 1
        # The cold queue (hangar.conf(5) queue_warm) at its smallest useful depth: beyond the
        # first two of the queue, missions are held cold and read again near the head, so every
        # point also crosses a cold intake, a cold recovery and the reads again.
        conf["queue_warm"] = 2
        # Profile "plain": the fake drone without a last-message file in run/, so that a drop taken
        # in and launched in one batch has its launch begun in its intake (hangard(8), LAUNCHES
        # BEGUN AT INTAKE; a plan with that file in run/ is begun after the records).
        plain = dict(conf["profiles"]["script"])
        plain.pop("last_message", None)
        plain["env"] = {k: v for k, v in plain["env"].items() if k != "HANGAR_LAST_MESSAGE"}
        conf["profiles"]["plain"] = plain
        pol = json.load(open(os.path.join(self.s, "policy.json")))
        pol["ops"] = OPS_POLICY
        write_json(os.path.join(self.t, "policy.json"), pol)
        conf["policy"] = os.path.join(self.t, "policy.json")
        handler = f'cat >/dev/null; echo "$HANGAR_MISSION $HANGAR_OP_KEY" >>{self.op_runs}'
        conf["ops"] = {op: {"argv": ["/bin/sh", "-c", handler], "timeout_s": 10}
                       for op in ("log.note", "ticket.open", "wire.funds")}
        write_json(conf_path, conf)
        self.drops = []
        self.rejected = 0
        self.memory = 0  # work states dropped for requester spool-invariants (man/hangar-memory.5)

    def hangar(self, *args):
        # --no-wait: hangard is killed at every step here; a request is judged by what the spool
        # shows afterwards, not by waiting for an answer from a hangard that may be gone.
        return subprocess.run([os.path.join(BIN, "hangar"), "--spool", self.s, "--no-wait", *args],
                              stdin=subprocess.DEVNULL, capture_output=True, text=True)

    def drop(self, name, doc):
        """incoming/tmp/NAME, then a rename into incoming/new (as any submitter does)."""
        tmp = os.path.join(self.s, "incoming", "tmp", name)
        with open(tmp, "wb") as f:
            f.write(doc if isinstance(doc, bytes) else json.dumps(doc).encode())
        os.rename(tmp, os.path.join(self.s, "incoming", "new", name))

    def drop_memory(self, name, goal):
        """A work state of requester spool-invariants as a control request, control/tmp/NAME
        then a rename into control/new (as `hangar memory put` drops it)."""
        w = {"hangar_memory": 1, "requester": "spool-invariants", "goal": goal, "decisions": "",
             "evidence": "", "unresolved": "", "restore": "", "not_doing": "", "next": "",
             "constraints": "", "refs": [{"mission": "d1", "state": "returned"}]}
        tmp = os.path.join(self.s, "control", "tmp", name)
        with open(tmp, "w") as f:
            json.dump({"hangar": 1, "request": "memory", "memory": w}, f)
        os.rename(tmp, os.path.join(self.s, "control", "new", name))
        self.memory += 1

    def start(self, fault=None, counted=True):
        """hangard on the spool: with the fault plan given, its calls logged when counted (the
        restart after a crash is not: its numbers would start again from 1)."""
        env = {k: v for k, v in os.environ.items() if not k.startswith("HANGAR_FAULT")}
        if fault:
            env["HANGAR_FAULT"] = fault
        if counted:
            env["HANGAR_FAULT_LOG"] = self.flog
        with open(self.log, "ab") as log:
            self.proc = subprocess.Popen(
                [os.path.join(BIN, "hangard"), "--spool", self.s, "--anchor", self.a],
                stdin=subprocess.DEVNULL, stdout=log, stderr=log, env=env,
                start_new_session=True)

    def calls(self):
        """The fault log's call lines: {N: "CALL ARG..."}."""
        out = {}
        try:
            for line in open(self.flog, errors="replace"):
                head, _, rest = line.rstrip("\n").partition(" ")
                if head.isdigit():
                    out[int(head)] = rest
        except FileNotFoundError:
            pass
        return out

    def ids_in(self, state):
        try:
            return [n for n in os.listdir(os.path.join(self.s, state)) if not n.startswith(".")]
        except FileNotFoundError:
            return []

    def quiet(self):
        """Every mission of drops ended, nothing waiting anywhere."""
        ended = set(self.ids_in("returned")) | set(self.ids_in("denied")) | set(
            n[:-5] for n in self.ids_in("purged") if n.endswith(".json"))
        want = {d[2] for d in self.drops if d[2] and not any(e == "rejected" for e in d[3])}
        if not want <= ended or len(self.ids_in("rejected")) < self.rejected:
            return False
        for d in ("incoming/new", "control/new", "hold", "queued", "running"):
            if self.ids_in(d):
                return False
        return True

    def kill_everything(self):
        """SIGKILL to every process of the run, until none is left: each that names the scratch
        directory (its working directory, command line or environment), holds a file beneath it
        open (a supervisor: hangard starts the shims with no environment of its own, and they
        work from /), or is in hangard's session (the shim zygote)."""
        me = os.getpid()
        session = self.proc.pid if self.proc else None
        for _ in range(50):
            found = []
            for pid in os.listdir("/proc"):
                if not pid.isdigit() or int(pid) == me:
                    continue
                try:
                    cwd = os.readlink(f"/proc/{pid}/cwd")
                except OSError:
                    cwd = ""
                try:
                    cmd = open(f"/proc/{pid}/cmdline", "rb").read()
                    env = open(f"/proc/{pid}/environ", "rb").read()
                    stat = open(f"/proc/{pid}/stat").read()
                except OSError:
                    continue
                files = []
                try:
                    for fd in os.listdir(f"/proc/{pid}/fd"):
                        try:
                            files.append(os.readlink(f"/proc/{pid}/fd/{fd}"))
                        except OSError:
                            pass  # closed meanwhile
                except OSError:
                    pass
                sid = int(stat.rsplit(")", 1)[1].split()[3])
                # Beneath the directory, never a prefix of its name (another run's directory).
                t = (self.t + "/").encode()
                if (cwd == self.t or cwd.startswith(self.t + "/") or t in cmd or t in env
                        or any(f.startswith(self.t + "/") for f in files) or sid == session):
                    found.append(int(pid))
            if not found:
                return
            for pid in found:
                try:
                    os.kill(pid, signal.SIGKILL)
                except OSError:
                    pass
            time.sleep(0.05)

    def take_back_unsynced(self):
        """What a power loss may take back: what was written without a sync. The shims'
        shim.json, and what hangard made visible without an fsync, from the fault log
        (unsynced_by_calls): a directory whose parent no later call fsynced goes with everything
        beneath it, and so does the name of a file written with its data synced but not its
        directory; a file written unsynced goes, or is left empty where a later call fsynced its
        directory."""
        for id_ in self.ids_in("running"):
            p = os.path.join(self.s, "running", id_, "run", "shim.json")
            if os.path.exists(p):
                os.unlink(p)
        upto = None
        try:
            for line in open(self.flog, errors="replace"):
                f = line.split()
                if f[:1] == ["fault"] and len(f) >= 3 and f[1].isdigit():
                    upto = int(f[1]) + (1 if f[2] == "crash-after" else 0)
        except FileNotFoundError:
            pass
        take_back(unsynced_by_calls(self.calls(), upto))

    def stop(self):
        """SIGTERM to hangard (SIGKILL after 10 s), then every process of the run killed."""
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.kill_everything()

    def remove(self):
        subprocess.run(["chmod", "-R", "u+rwX", self.t], capture_output=True)
        shutil.rmtree(self.t, ignore_errors=True)



def synced_dirs(kind, args):
    """The directories a mutating call of hangard fsyncs once performed, by RealEnv's rules
    (src/env/real_env.cc, hangar-spool(5) THE RULES): a file write its directory, a rename both
    parents, a mkdir or a removal the parent, a maildir delivery DIR/new. An append fsyncs its
    directory only when it created the file, which the log does not say: not counted; the
    ...-visible calls and rename-later fsync nothing, write-files-dir-later its files but not their
    directory; sync-dirs fsyncs each directory it names, sync-paths each file or directory."""
    if kind in ("write", "write-files", "create", "create-atomic", "maildir", "mkdir", "remove",
                "remove-tree") and args:
        return {os.path.dirname(args[0])}
    if kind in ("rename", "rename-noreplace") and len(args) >= 2:
        return {os.path.dirname(args[0]), os.path.dirname(args[1])}
    if kind in ("sync-dirs", "sync-paths"):
        return set(args)
    return set()


def unsynced_by_calls(calls, upto=None):
    """What of hangard's calls (the fault log, {N: "CALL ARG..."}) a power loss may take back
    after the calls numbered below UPTO (all when None): [(kind, path, entry_synced)], kind "dir"
    for a mkdir-visible whose parent no later call fsynced, "name" for a file of a
    write-files-dir-later whose directory no later call fsynced (its data is durable, its name
    not), "file" for every write-visible (its data was never fsynced; entry_synced when a later
    call fsynced its directory; a later sync-paths of the file itself makes it a "name"), and
    "moved" for a rename-later whose directories no later call
    both fsynced, its path the new name and its fourth field the old one (taken back by moving it
    back, the latest first). Paths follow the renames made after them (a directory moved from
    queued/ to running/ with what it holds). A rename-later stays "moved" until both its
    directories are fsynced: once only its new one is (a launch's first wait fsyncs returned/, its
    closing sync running/), a power loss keeps it or takes it back (a filesystem without a journal
    may keep both names, and its fsck one of them); the sweep takes it back. A rename-later whose
    old directory a call fsynced before its new one may lose what it moved, a state this
    simulation cannot make: a ValueError says so."""
    pending = []  # [kind, path, entry_synced] or ["moved", path, dst_synced, old, src_synced]
    for n in sorted(calls):
        if upto is not None and n >= upto:
            break
        parts = calls[n].split(" ")
        kind, args = parts[0], parts[1:]
        if kind == "mkdir-visible" and args:
            pending.append(["dir", args[0], False])
        elif kind == "write-visible" and args:
            pending.append(["file", args[0], False])
        elif kind == "write-files-dir-later" and len(args) >= 2:
            d = os.path.dirname(args[0])
            pending += [["name", os.path.join(d, f), False] for f in args[1].split(",")]
        elif kind in ("rename", "rename-noreplace", "rename-later") and len(args) >= 2:
            src, dst = args[0], args[1]
            for p in pending:
                if p[1] == src or p[1].startswith(src + "/"):
                    p[1] = dst + p[1][len(src):]
            if kind == "rename-later":
                pending.append(["moved", dst, False, src, False])
        if kind == "sync-paths":
            # A file written visible and fsynced itself since: its data is durable, its name
            # once its directory is (a "name" from here on).
            for p in pending:
                if p[0] == "file" and p[1] in args:
                    p[0] = "name"
        synced = synced_dirs(kind, args)
        for p in pending:
            if os.path.dirname(p[1]) in synced:
                p[2] = True
            if p[0] == "moved" and os.path.dirname(p[3]) in synced:
                p[4] = True
        for p in pending:
            if p[0] == "moved" and p[4] and not p[2]:
                raise ValueError(f"call {n} ({calls[n]}) fsynced the old directory of the rename "
                                 f"of {p[3]} to {p[1]} before its new one")
        pending = [p for p in pending if not ((p[0] in ("dir", "name") and p[2])
                                              or (p[0] == "moved" and p[2] and p[4]))]
    return [tuple(p) for p in pending]


def take_back(lost):
    """Takes back on the disk what unsynced_by_calls says a power loss may take, the latest first:
    a "moved" entry moved back (and what its new name held, back under the old one), a "dir"
    removed with everything beneath it, a "name" removed, a "file" removed or, where its directory
    was fsynced later, left empty."""
    lost = list(lost)
    for i in range(len(lost) - 1, -1, -1):
        kind, path, entry_synced = lost[i][:3]
        if kind == "moved":
            old = lost[i][3]
            if os.path.lexists(path) and not os.path.lexists(old):
                os.rename(path, old)
                lost[:i] = [(p[0], old + p[1][len(path):]) + tuple(p[2:])
                            if p[1] == path or p[1].startswith(path + "/") else p
                            for p in lost[:i]]
            continue
        if kind == "dir" and os.path.isdir(path) and not os.path.islink(path):
            subprocess.run(["chmod", "-R", "u+rwX", path], capture_output=True)
            shutil.rmtree(path, ignore_errors=True)
        elif kind in ("file", "name") and os.path.lexists(path):
            if entry_synced:
                os.truncate(path, 0)
            else:
                os.unlink(path)


def stderr_tail(path, n=400):
    """The last N bytes of a run's stderr (the sandbox's own complaint, when the drone never ran)."""
    try:
        with open(path, "rb") as f:
            f.seek(0, os.SEEK_END)
            f.seek(max(0, f.tell() - n))
            return f.read().decode("utf-8", "replace")
    except OSError as e:
        return f"unreadable: {e.strerror}"

def check(run):
    """The spool's promises after quiescence: (violations, {id: end} of the drops)."""
    v = []
    where = {}
    for st in STATES:
        d = os.path.join(run.s, st)
        for n in os.listdir(d):
            if n == ".keep":  # the spool template's placeholder
                continue
            if n.startswith("."):
                v.append(f"{st}/{n} left behind (an unfinished intake or move)")
                continue
            if n in where:
                v.append(f"mission {n} is in both {where[n]}/ and {st}/")
            where[n] = st
    for d in ("incoming/new", "control/new"):
        left = [n for n in os.listdir(os.path.join(run.s, d)) if n != ".keep"]
        if left:
            v.append(f"{d} not empty: {' '.join(sorted(left))}")
    tombstones = {}  # id -> its tombstone
    for n in run.ids_in("purged"):
        if not n.endswith(".json"):
            continue
        id_ = n[:-5]
        try:
            t = load(os.path.join(run.s, "purged", n))
            if t.get("id") != id_:
                raise ValueError(f"names id {t.get('id')!r}")
        except (OSError, ValueError, AttributeError) as e:
            v.append(f"purged/{n}: {e}")
            continue
        tombstones[id_] = t
        if id_ in where:
            v.append(f"mission {id_} is purged (purged/{n}) and in {where[id_]}/")
        if os.path.lexists(os.path.join(run.s, "rooms", id_)):
            v.append(f"mission {id_} is purged but rooms/{id_} is there")
        where.setdefault(id_, "purged")
    left = [n for n in run.ids_in("purged/.trash")]
    if left:
        v.append(f"purged/.trash not empty: {' '.join(sorted(left))}")

    keys = set(os.listdir(os.path.join(run.s, "keys")))
    starts = {}  # (id, attempt) -> how many times its drone started
    for line in open(run.starts):
        parts = line.split()
        if len(parts) >= 4 and parts[0] == "start":
            starts[(parts[1], parts[3])] = starts.get((parts[1], parts[3]), 0) + 1
    for (id_, attempt), n in sorted(starts.items()):
        if n > 1:
            v.append(f"drone of {id_} attempt {attempt} started {n} times")
        if f"launch.{id_}.{attempt}" not in keys:
            v.append(f"drone of {id_} attempt {attempt} started without its key launch.{id_}."
                     f"{attempt}")

    outcomes = {}
    for name, _, id_, allowed, ran in run.drops:
        if id_ is None:
            continue
        st = where.get(id_)
        if st is None:
            v.append(f"{id_} ({name}) is in no state directory: lost from the spool")
            continue
        end, attempt = st, None
        if st == "purged":
            end = "purged:" + str(tombstones[id_].get("state"))
        if st == "returned":
            try:
                ret = load(os.path.join(run.s, st, id_, "return.json"))
                end, attempt = "returned:" + str(ret["outcome"]), str(ret.get("attempt"))
            except (OSError, ValueError, KeyError) as e:
                v.append(f"returned/{id_}/return.json unreadable: {e}")
                continue
        outcomes[id_] = end
        if end not in allowed:
            v.append(f"{id_} ended {end}, expected one of {', '.join(allowed)}")
        n = starts.get((id_, attempt), 0)
        if ran and end.startswith("returned:") and end != "returned:lost" and n != 1:
            # The return's own words, so a violation seen once names its cause.
            v.append(f"{id_} returned {end[9:]} (attempt {attempt}) but its drone started {n} "
                     f"times (reason: {ret.get('reason')!r}, exit: {json.dumps(ret.get('exit'))}, "
                     f"run/stderr: {stderr_tail(os.path.join(run.s, st, id_, 'run', 'stderr'))!r})")
    n_rejected = len(run.ids_in("rejected"))
    if n_rejected != run.rejected:
        v.append(f"{n_rejected} missions in rejected/, expected {run.rejected}")

    if os.path.exists(run.op_runs):
        seen = {}
        for line in open(run.op_runs):
            seen[line.strip()] = seen.get(line.strip(), 0) + 1
        v += [f"op {k} ran {n} times" for k, n in seen.items() if n > 1]

    for k in sorted(keys):
        if not k.startswith("launch."):
            continue
        id_, _, attempt = k[len("launch."):].rpartition(".")
        st = where.get(id_)
        if st == "purged":
            if k not in tombstones[id_].get("keys", []):
                v.append(f"key {k} of purged {id_}, but its tombstone does not list it")
            continue
        if st not in ("running", "returned"):
            v.append(f"key {k} but {id_} is in {st or 'no state'}/")
            continue
        named = False
        for f in ("launch.json", "return.json", f"attempts/{attempt}/launch.json",
                  f"attempts/{attempt}/return.json"):
            p = os.path.join(run.s, st, id_, f)
            try:
                named = named or str(load(p).get("attempt")) == attempt
            except (OSError, ValueError, AttributeError):
                pass
        if not named:
            v.append(f"key {k}: no launch.json or return.json of {st}/{id_} (or of its "
                     f"attempts/{attempt}/) names attempt {attempt}")
    for id_, end in outcomes.items():
        if end.startswith("returned:") and os.path.exists(
                os.path.join(run.s, "returned", id_, "launch.json")):
            if not any(k.startswith(f"launch.{id_}.") and k[len(f"launch.{id_}."):].isdigit()
                       for k in keys):
                v.append(f"returned/{id_} has launch.json but no launch key in keys/")

    # Each return is backed by its entry: the seq its return.json names holds that mission's
    # mission.returned with the file's sha256 (man/hangard.8, Record before act).
    returned_at = {}
    ledger_dir = os.path.join(run.s, "ledger", "live")
    for seg in sorted(os.listdir(ledger_dir)) if os.path.isdir(ledger_dir) else []:
        if not seg.endswith(".jsonl"):
            continue
        for line in open(os.path.join(ledger_dir, seg), "rb"):
            try:
                e = json.loads(line)
            except ValueError:
                continue  # ledger verify says what is wrong with it
            if e.get("kind") == "mission.returned":
                returned_at[e.get("seq")] = e.get("body") or {}
    for id_ in run.ids_in("returned"):
        base = os.path.join(run.s, "returned", id_)
        rets = [os.path.join(base, "return.json")]
        if os.path.isdir(os.path.join(base, "attempts")):
            rets += [os.path.join(base, "attempts", n, "return.json")
                     for n in sorted(os.listdir(os.path.join(base, "attempts")))]
        for p in rets:
            try:
                raw = open(p, "rb").read()
                seq = json.loads(raw).get("ledger_seq")
            except (OSError, ValueError, AttributeError):
                continue  # a torn or missing file is reported above or below
            body = returned_at.get(seq)
            if (body is None or body.get("id") != id_ or
                    body.get("sha256") != hashlib.sha256(raw).hexdigest()):
                v.append(f"{os.path.relpath(p, run.s)} names ledger seq {seq}, which is not "
                         f"{id_}'s mission.returned with its sha256: a return the ledger does not "
                         "back")

    skip = {os.path.join(run.s, d) for d in ("rooms", "incoming", "ledger")}
    for dirpath, dirnames, filenames in os.walk(run.s):
        if dirpath in skip:
            dirnames[:] = []
            continue
        for f in filenames:
            if f.endswith(".json"):
                p = os.path.join(dirpath, f)
                try:
                    load(p)
                except (OSError, ValueError) as e:
                    v.append(f"{os.path.relpath(p, run.s)} does not parse: {e}")

    # Each work state dropped is stored once, whatever the crash: one version each, its file
    # there with the sha256 the ledger names (a request decided again after a crash is written
    # again under its version, never stored as another).
    if run.memory:
        r = run.hangar("--json", "memory", "log", "--requester", "spool-invariants")
        try:
            versions = json.loads(r.stdout)["versions"]
        except (ValueError, KeyError):
            versions = None
        if versions is None:
            v.append(f"hangar memory log exited {r.returncode}: {(r.stderr or r.stdout).strip()}")
        elif [x["version"] for x in versions] != list(range(1, run.memory + 1)):
            v.append(f"{run.memory} work states dropped, versions stored: "
                     f"{[x['version'] for x in versions]}")
        else:
            for x in versions:
                if x["file"] != "ok":
                    v.append(f"work state v{x['version']}: {x['problem']}")

    r = run.hangar("ledger", "verify", "--anchor", run.a)
    if r.returncode != 0:
        v.append(f"hangar ledger verify exited {r.returncode}: {(r.stderr or r.stdout).strip()}")
    # The signal record replays as the live kernel behaved, the crash included: a line whose
    # entries a crash kept off the ledger is followed by the restart's start line (hangar(1)).
    into = tempfile.mkdtemp(prefix="replay-", dir=run.t)
    r = run.hangar("replay", "--into", into)
    shutil.rmtree(into, ignore_errors=True)
    if r.returncode != 0:
        out = (r.stdout + r.stderr).strip().splitlines()
        v.append(f"hangar replay exited {r.returncode}: " + " | ".join(out[-8:]))
    return v, outcomes
