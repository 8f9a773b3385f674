// hangar's own git: every git command hangar runs (a workspace's intake, checkout and change) goes
// through RunGit, hardened against the repository it reads. Neither the machine's nor a user's
// configuration is read (GIT_CONFIG_NOSYSTEM, GIT_CONFIG_GLOBAL=/dev/null); the repository is
// named by GIT_DIR, never discovered; no hook, fsmonitor, pager, prompt, replace object or
// transport runs; safe.directory names exactly the repositories of the call. Keys given with -c
// outrank a repository's own config, so a config a requester or drone wrote cannot turn these
// back on. Diffs are asked for with --no-ext-diff --no-textconv by the callers.
#pragma once

#include <chrono>
#include <map>
#include <string>
#include <vector>

namespace hangar {

struct GitCall {
  std::vector<std::string> args;  // after git and hangar's own -c options
  std::string git_dir;            // GIT_DIR; empty only for git init, which names its own
  std::string work_tree;          // GIT_WORK_TREE; empty: none
  std::string cwd = "/";
  std::map<std::string, std::string> env = {};  // more variables (GIT_INDEX_FILE, ...)
  int64_t uid = -1, gid = -1;  // run as (-1: as hangard); a drone's or a requester's user
  int out_fd = -1;             // stdout into this fd (above 2) instead of captured
  std::chrono::milliseconds timeout = std::chrono::seconds(120);
};

struct GitRun {
  bool ok = false;       // ran and exited 0
  std::string out, err;  // captured (up to 16 MiB of stdout, 64 KiB of stderr)
  bool out_cut = false;  // stdout was longer than what out holds
  std::string error;     // why not ok, one line: "git rev-parse: exit 128: fatal: ..."
};

// /usr/bin/git or /bin/git; "" when git is not installed.
const std::string& GitProgram();

GitRun RunGit(const GitCall& call);

// TEXT without its trailing newlines: git's one-line answers (an object id), a ref file's content.
std::string WithoutNewline(std::string text);

// True when TEXT is a full object id (40 or 64 lowercase hex digits).
bool ObjectId(const std::string& text);

}  // namespace hangar
