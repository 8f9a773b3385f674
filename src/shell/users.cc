#include "shell/users.h"

#include <grp.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <map>
#include <mutex>
#include <set>
#include <vector>

namespace hangar {

namespace {

// A buffer as large as the databases want for one entry (sysconf's hint, grown on ERANGE).
template <typename Entry, typename Lookup>
bool Find(Lookup lookup, Entry* e, std::vector<char>* buf) {
  long hint = sysconf(_SC_GETPW_R_SIZE_MAX);
  buf->resize(hint > 0 ? size_t(hint) : 16384);
  for (;;) {
    Entry* found = nullptr;
    int err = lookup(e, buf->data(), buf->size(), &found);
    if (err == ERANGE && buf->size() < (size_t(1) << 24)) {
      buf->resize(buf->size() * 2);
      continue;
    }
    return err == 0 && found;
  }
}

}  // namespace

std::string LoginName(int64_t uid) {
  static std::mutex mu;
  static std::map<int64_t, std::string> known;
  if (uid < 0) return "";
  {
    std::lock_guard<std::mutex> l(mu);
    if (auto it = known.find(uid); it != known.end()) return it->second;
  }
  passwd pw{};
  std::vector<char> buf;
  const bool found = Find([&](passwd* e, char* b, size_t n,
                              passwd** out) { return getpwuid_r(uid_t(uid), e, b, n, out); },
                          &pw, &buf);
  std::string name = found && pw.pw_name ? pw.pw_name : std::to_string(uid);
  std::lock_guard<std::mutex> l(mu);
  return known.emplace(uid, std::move(name)).first->second;
}

Result<std::set<int64_t>> ResolveApprovers(const std::vector<std::string>& approvers,
                                           int64_t self) {
  std::set<int64_t> uids{0, self};
  std::vector<char> buf;
  for (const std::string& a : approvers) {
    if (!a.starts_with("@")) {
      passwd pw{};
      if (!Find([&](passwd* e, char* b, size_t n,
                    passwd** out) { return getpwnam_r(a.c_str(), e, b, n, out); },
                &pw, &buf))
        return Status::Invalid("approvers: no user named " + a);
      uids.insert(int64_t(pw.pw_uid));
      continue;
    }
    const std::string name = a.substr(1);
    group gr{};
    if (!Find([&](group* e, char* b, size_t n,
                  group** out) { return getgrnam_r(name.c_str(), e, b, n, out); },
              &gr, &buf))
      return Status::Invalid("approvers: no group named " + name);
    const gid_t gid = gr.gr_gid;
    std::vector<std::string> members;
    for (char** m = gr.gr_mem; m && *m; ++m) members.emplace_back(*m);
    for (const std::string& m : members) {
      passwd pw{};
      if (Find([&](passwd* e, char* b, size_t n,
                   passwd** out) { return getpwnam_r(m.c_str(), e, b, n, out); },
               &pw, &buf))
        uids.insert(int64_t(pw.pw_uid));
    }
    // Primary members: the passwd entries whose group is this one (not listed in gr_mem).
    setpwent();
    while (passwd* pw = getpwent())
      if (pw->pw_gid == gid) uids.insert(int64_t(pw->pw_uid));
    endpwent();
  }
  return uids;
}

std::vector<std::string> HomeDirectories() {
  std::set<std::string> homes;
  setpwent();
  while (const passwd* pw = getpwent()) {
    const std::string dir = pw->pw_dir ? pw->pw_dir : "";
    struct stat st {};
    if (dir.size() > 1 && dir[0] == '/' && stat(dir.c_str(), &st) == 0 && S_ISDIR(st.st_mode))
      homes.insert(dir);
  }
  endpwent();
  return {homes.begin(), homes.end()};
}

}  // namespace hangar
