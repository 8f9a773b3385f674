// Signed approvals (man/hangar.conf.5 allowed_signers): hangard's check of an approve's SSH
// signature with OpenSSH's own tool, `ssh-keygen -Y verify -f ALLOWED_SIGNERS -I PRINCIPAL -n
// hangar -s SIG`, over ApprovalMessage (kernel/control.h) built from the mission as this function
// finds it in hold/ID. No signature code of our own: the kernel gets the verdict and what it bound.
#pragma once

#include <string>

#include "env/env.h"
#include "kernel/control.h"
#include "kernel/kernel.h"
#include "kernel/layout.h"

namespace hangar {

// R is a signed approve. Reads hold/ID/mission.json and, when present, hold/ID/gate2.json's
// plan_sha256, builds the message and asks ssh-keygen. verified only when ssh-keygen exits 0;
// error says why not (the mission is not held, the tool failed or refused, with its first line).
SignatureCheck VerifyApproval(Env* env, const Layout& l, const std::string& allowed_signers,
                              const ControlRequest& r);

}  // namespace hangar
