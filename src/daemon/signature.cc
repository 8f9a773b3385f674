#include "daemon/signature.h"

#include <fcntl.h>
#include <unistd.h>

#include <cstdlib>

#include "launch/command.h"
#include "shell/scan.h"

namespace hangar {

namespace {

// SIG in a private temporary file (0600, removed when this goes): ssh-keygen reads a signature
// only from a path.
class SignatureFile {
 public:
  explicit SignatureFile(const std::string& sig) {
    const char* dir = std::getenv("TMPDIR");
    path_ = std::string(dir && dir[0] == '/' ? dir : "/tmp") + "/hangar-sig.XXXXXX";
    int fd = mkostemp(path_.data(), O_CLOEXEC);
    if (fd < 0) {
      path_.clear();
      return;
    }
    ok_ = write(fd, sig.data(), sig.size()) == ssize_t(sig.size());
    close(fd);
  }
  ~SignatureFile() {
    if (!path_.empty()) unlink(path_.c_str());
  }
  bool ok() const { return ok_; }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  bool ok_ = false;
};

}  // namespace

SignatureCheck VerifyApproval(Env* env, const Layout& l, const std::string& allowed_signers,
                              const ControlRequest& r) {
  SignatureCheck c;
  Result<std::string> message =
      HeldApprovalMessage(env, l, r.id, &c.mission_sha256, &c.plan_sha256);
  if (!message.ok()) {
    c.error = "mission " + r.id + " is not held (" + message.status().message() + ")";
    return c;
  }
  if (allowed_signers.empty()) {
    c.error = "no allowed_signers in the config";
    return c;
  }
  SignatureFile sig(r.signature);
  if (!sig.ok()) {
    c.error = "cannot write the signature to a temporary file";
    return c;
  }
  CommandResult v = RunCommand({"ssh-keygen", "-Y", "verify", "-f", allowed_signers, "-I",
                                r.principal, "-n", kSignatureNamespace, "-s", sig.path()},
                               std::chrono::seconds(10), {}, *message);
  c.verified = v.ok();
  if (!c.verified) c.error = v.Describe("ssh-keygen -Y verify");
  return c;
}

}  // namespace hangar
