// Status: an error as a value. A small closed set of codes plus a message that a person reads.
// Errors never cross a module boundary as exceptions; functions that can fail return Status or
// Result<T>. Messages follow the shape "cannot VERB OBJECT: reason"; the program puts its name
// first ("hangar: ").
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <variant>

namespace hangar {

enum class Code {
  kOk = 0,
  kInvalid,      // bad input: a file, field or argument that does not match its format
  kNotFound,     // a named thing does not exist
  kExists,       // a thing that must be new exists already (O_EXCL keys, duplicate ids)
  kIo,           // the operating system refused or failed a call
  kUnavailable,  // a peer (the kernel, a lock holder) is not there
};

class [[nodiscard]] Status {
 public:
  Status() = default;
  static Status Ok() { return Status(); }
  static Status Invalid(std::string m) { return Status(Code::kInvalid, std::move(m)); }
  static Status NotFound(std::string m) { return Status(Code::kNotFound, std::move(m)); }
  static Status Exists(std::string m) { return Status(Code::kExists, std::move(m)); }
  static Status Io(std::string m) { return Status(Code::kIo, std::move(m)); }
  static Status Unavailable(std::string m) { return Status(Code::kUnavailable, std::move(m)); }
  // "cannot VERB OBJECT: strerror(errno_value)"
  static Status Errno(const std::string& what, int errno_value);

  bool ok() const { return code_ == Code::kOk; }
  Code code() const { return code_; }
  const std::string& message() const { return message_; }
  // The errno a Status made by Errno carries (0 for any other): what the shell needs to tell a full
  // disk (ENOSPC, EDQUOT), which passes, from a failed write or fsync, which does not.
  int sys_errno() const { return errno_; }

 private:
  Status(Code c, std::string m, int e = 0) : code_(c), message_(std::move(m)), errno_(e) {}
  Code code_ = Code::kOk;
  std::string message_;
  int errno_ = 0;
};

// Result<T>: a value or the Status that says why there is none.
template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::move(value)) {}  // NOLINT: implicit on purpose
  Result(Status s) : v_(std::move(s)) {}     // NOLINT
  bool ok() const { return std::holds_alternative<T>(v_); }
  const T& value() const& { return std::get<T>(v_); }
  T& value() & { return std::get<T>(v_); }
  T&& value() && { return std::get<T>(std::move(v_)); }
  const T* operator->() const { return &std::get<T>(v_); }
  T* operator->() { return &std::get<T>(v_); }
  const T& operator*() const { return std::get<T>(v_); }
  Status status() const { return ok() ? Status::Ok() : std::get<Status>(v_); }

 private:
  std::variant<T, Status> v_;
};

}  // namespace hangar
