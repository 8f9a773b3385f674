#include "shell/op_handler.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>

#include "shell/child_run.h"
#include "shell/manifest.h"

namespace hangar {

OpFinished RunOpHandler(const RunOp& op, const std::string& mission_ops, TimeMs now) {
  OpFinished f;
  f.id = op.id;
  f.name = op.name;
  f.op = op.op;
  f.key = op.key;
  f.now = now;
  f.output = nullptr;
  const std::string out_name = op.name + ".out";
  UniqueFd dir(open(mission_ops.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  UniqueFd in =
      AboveStdio(open((mission_ops + "/" + op.name + ".args.json").c_str(), O_RDONLY | O_CLOEXEC));
  UniqueFd out = AboveStdio(open((mission_ops + "/" + out_name).c_str(),
                                 O_RDWR | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644));
  if (dir.get() < 0 || in.get() < 0 || out.get() < 0) {
    f.error = Status::Errno("prepare the handler's files in " + mission_ops, errno).message();
    return f;
  }
  ChildEnd e =
      RunChild(op.handler.argv[0], op.handler.argv, op.env, {dir.get(), in.get(), out.get()},
               std::chrono::seconds(op.handler.timeout_s));
  f.started = e.started;
  f.rc = e.rc;
  f.signal = e.signal;
  f.timed_out = e.timed_out;
  f.error = e.error;
  if (!e.started) return f;
  if (fsync(out.get()) != 0 || fsync(dir.get()) != 0)
    f.error = Status::Errno("fsync " + mission_ops + "/" + out_name, errno).message();
  Result<FileHash> h = HashFd(out.get(), INT64_MAX);
  if (h.ok()) {
    f.output = json::Object{{"file", "ops/" + out_name}, {"size", h->size}, {"sha256", h->sha256}};
    f.output_text.resize(size_t(std::min<int64_t>(h->size, kOpOutputShown)));
    ssize_t n = pread(out.get(), f.output_text.data(), f.output_text.size(), 0);
    f.output_text.resize(n > 0 ? size_t(n) : 0);
    f.output_cut = h->size > int64_t(f.output_text.size());
  } else if (f.error.empty()) {
    f.error = "cannot hash " + out_name + ": " + h.status().message();
  }
  return f;
}

}  // namespace hangar
