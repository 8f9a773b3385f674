#include "daemon/signature.h"

#include <fcntl.h>
#include <unistd.h>

#include <cstdlib>

#include "base/json.h"
#include "base/sha256.h"
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
  const std::string dir = l.MissionDir(Phase::kHold, r.id);
  Result<std::string> mission = env->ReadFile(dir + "/mission.json", kMaxMissionBytes);
  if (!mission.ok()) {
    c.error = "mission " + r.id + " is not held (" + mission.status().message() + ")";
    return c;
  }
  c.mission_sha256 = Sha256Hex(*mission);
  if (Result<std::string> g2 = env->ReadFile(dir + "/gate2.json", kMaxMissionBytes); g2.ok())
    if (Result<json::Value> v = json::Parse(*g2); v.ok() && v->is_object())
      if (const json::Value* p = v->find("plan_sha256"); p && p->is_string())
        c.plan_sha256 = p->as_string();
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
                               std::chrono::seconds(10), {},
                               ApprovalMessage(r.id, c.mission_sha256, c.plan_sha256));
  c.verified = v.ok();
  if (!c.verified) c.error = v.Describe("ssh-keygen -Y verify");
  return c;
}

}  // namespace hangar
