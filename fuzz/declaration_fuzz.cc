// ReadDeclaration (shell/declaration.h): DECLARATION.json, written by the drone in its room. Its
// reader opens the file itself (under the room's fd, never following a link), so there is no pure
// function to call: each input is written to DECLARATION.json in a scratch room (under /dev/shm
// when there is one, so no disk is touched) and read back. Promises checked: the record says
// present, the size and sha256 of the bytes, and "valid" only for an object of exactly will,
// will_not, ops and external_acts, each a list of strings, with that object as "content".
#include <fcntl.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

#include "base/sha256.h"
#include "fuzz.h"
#include "shell/declaration.h"

using namespace hangar;

namespace {

std::string room;

void RemoveRoom() {
  unlink((room + "/DECLARATION.json").c_str());
  rmdir(room.c_str());
}

bool ListOfStrings(const json::Value* v) {
  if (!v || !v->is_array()) return false;
  for (const json::Value& x : v->as_array())
    if (!x.is_string()) return false;
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  const char* tmp = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : getenv("TMPDIR");
  std::string pattern = std::string(tmp && *tmp ? tmp : "/tmp") + "/hangar-fuzz-room.XXXXXX";
  if (!mkdtemp(pattern.data())) {
    perror("declaration_fuzz: cannot make a scratch room");
    abort();
  }
  room = pattern;
  atexit(RemoveRoom);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view bytes = fuzz::Bytes(data, size);
  const std::string file = room + "/DECLARATION.json";
  int fd = open(file.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  FUZZ_CHECK(fd >= 0);
  FUZZ_CHECK(write(fd, data, size) == ssize_t(size));
  close(fd);

  json::Value r = ReadDeclaration(room);
  FUZZ_CHECK(r.is_object());
  const json::Value* present = r.find("present");
  FUZZ_CHECK(present && present->is_bool() && present->as_bool());
  const json::Value* valid = r.find("valid");
  FUZZ_CHECK(valid && valid->is_bool());
  if (size > kMaxDeclarationBytes) {
    FUZZ_CHECK(!valid->as_bool());
    return 0;
  }
  const json::Value* n = r.find("size");
  FUZZ_CHECK(n && n->is_int() && n->as_int() == int64_t(size));
  const json::Value* sha = r.find("sha256");
  FUZZ_CHECK(sha && sha->is_string() && sha->as_string() == Sha256Hex(bytes));
  if (!valid->as_bool()) {
    const json::Value* error = r.find("error");
    FUZZ_CHECK(error && error->is_string() && !error->as_string().empty());
    FUZZ_CHECK(!r.find("content"));
    return 0;
  }
  const json::Value* content = r.find("content");
  FUZZ_CHECK(content && content->is_object() && content->as_object().size() == 4);
  for (const char* key : {"will", "will_not", "ops", "external_acts"})
    FUZZ_CHECK(ListOfStrings(content->find(key)));
  return 0;
}
