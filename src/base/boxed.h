// Boxed<T>: a value held out of line, for the rarely set parts of a record kept for every one of
// many items (kernel/kernel.h MissionRec: a mission's exit, its window's book, its approval). One
// pointer in its owner while unset; the T is allocated once set. It reads like std::optional (bool,
// *, ->, = value, = std::nullopt) and copies its T, so its owner copies as before.
#pragma once

#include <memory>
#include <optional>
#include <utility>

namespace hangar {

template <typename T>
class Boxed {
 public:
  Boxed() = default;
  Boxed(const Boxed& o) : p_(o.p_ ? std::make_unique<T>(*o.p_) : nullptr) {}
  Boxed& operator=(const Boxed& o) {
    if (this != &o) p_ = o.p_ ? std::make_unique<T>(*o.p_) : nullptr;
    return *this;
  }
  Boxed(Boxed&&) noexcept = default;
  Boxed& operator=(Boxed&&) noexcept = default;
  Boxed& operator=(T v) {
    p_ = std::make_unique<T>(std::move(v));
    return *this;
  }
  Boxed& operator=(std::nullopt_t) {
    p_.reset();
    return *this;
  }

  explicit operator bool() const { return p_ != nullptr; }
  const T& operator*() const { return *p_; }
  const T* operator->() const { return p_.get(); }
  T& operator*() { return *p_; }  // set: as std::optional, only when bool says so
  T* operator->() { return p_.get(); }
  // The value, or a default-made T when none is set (nothing is allocated for reading).
  const T& get() const {
    static const T kNone{};
    return p_ ? *p_ : kNone;
  }
  // The value to change, made default first when none is set.
  T& mut() {
    if (!p_) p_ = std::make_unique<T>();
    return *p_;
  }
  void reset() { p_.reset(); }

 private:
  std::unique_ptr<T> p_;
};

}  // namespace hangar
