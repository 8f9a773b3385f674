#include "launch/egress_proxy.h"

#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <boost/beast/http/empty_body.hpp>
#include <boost/beast/http/parser.hpp>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "base/json.h"
#include "base/timefmt.h"

namespace hangar {

namespace http = boost::beast::http;

namespace {

constexpr size_t kMaxHead = 16 * 1024;

TimeMs WallMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

bool WriteAll(int fd, std::string_view data) {
  while (!data.empty()) {
    ssize_t n = send(fd, data.data(), data.size(), MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    data.remove_prefix(size_t(n));
  }
  return true;
}

// One connection's record, as the log's line says it.
struct Trace {
  std::string asked, method, address, rule, reason, error;
  int port = 0;
  bool allowed = false;
  int64_t up = 0, down = 0;
  TimeMs start = 0;

  std::string Line() const {
    auto str = [](const std::string& s) {
      return s.empty() ? json::Value(nullptr) : json::Value(json::ValidUtf8(s) ? s : "(not UTF-8)");
    };
    json::Object o{{"asked", str(asked)},
                   {"method", str(method)},
                   {"address", str(address)},
                   {"port", port},
                   {"verdict", allowed ? "allowed" : "refused"},
                   {"rule", str(rule)},
                   {"reason", str(reason)},
                   {"bytes_up", up},
                   {"bytes_down", down},
                   {"start", FormatTime(start)},
                   {"end", FormatTime(WallMs())},
                   {"error", str(error)}};
    return json::Write(json::Value(std::move(o))) + "\n";
  }
};

class Log {
 public:
  explicit Log(int fd) : fd_(fd) {}
  void Append(const Trace& t) {
    const std::string line = t.Line();
    std::lock_guard<std::mutex> lock(mu_);
    (void)!write(fd_, line.data(), line.size());  // O_APPEND: one line, one write
  }

 private:
  int fd_;
  std::mutex mu_;
};

void Answer(int fd, int code, const char* status, const std::string& rule,
            const std::string& reason) {
  const std::string body = reason + "\n";
  std::string head = "HTTP/1.1 " + std::to_string(code) + " " + status +
                     "\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n";
  if (!rule.empty()) head += "X-Hangar-Rule: " + rule + "\r\n";
  head += "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n";
  WriteAll(fd, head + body);
}

// The numeric addresses host:port resolves to, in the resolver's order, or the error.
Result<std::vector<std::pair<std::string, sockaddr_storage>>> Resolve(const Destination& d) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* res = nullptr;
  const std::string port = std::to_string(d.port);
  if (int rc = getaddrinfo(d.host.c_str(), port.c_str(), &hints, &res); rc != 0)
    return Status::Unavailable("cannot resolve " + d.host + ": " + gai_strerror(rc));
  std::vector<std::pair<std::string, sockaddr_storage>> out;
  for (addrinfo* a = res; a; a = a->ai_next) {
    char host[NI_MAXHOST] = "";
    if (getnameinfo(a->ai_addr, a->ai_addrlen, host, sizeof host, nullptr, 0, NI_NUMERICHOST))
      continue;
    sockaddr_storage ss{};
    std::memcpy(&ss, a->ai_addr, a->ai_addrlen);
    out.emplace_back(host, ss);
  }
  freeaddrinfo(res);
  return out;
}

// A connected socket to the first address that answers within the timeout, or -1 (*error says).
int ConnectAny(const std::vector<std::pair<std::string, sockaddr_storage>>& addresses,
               int timeout_ms, std::string* used, std::string* error) {
  for (const auto& [text, ss] : addresses) {
    int fd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0) continue;
    const socklen_t len = ss.ss_family == AF_INET ? sizeof(sockaddr_in) : sizeof(sockaddr_in6);
    int rc = connect(fd, reinterpret_cast<const sockaddr*>(&ss), len);
    if (rc != 0 && errno == EINPROGRESS) {
      pollfd p{fd, POLLOUT, 0};
      int err = 0;
      socklen_t el = sizeof err;
      rc = poll(&p, 1, timeout_ms) == 1 && getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &el) == 0 &&
                   err == 0
               ? 0
               : -1;
      if (rc != 0) errno = err ? err : ETIMEDOUT;
    }
    if (rc == 0) {
      fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
      *used = text;
      return fd;
    }
    *error = "connect " + text + ": " + std::strerror(errno);
    close(fd);
  }
  return -1;
}

// Bytes both ways until both sides are done (a side's end is passed on as a half-close) or
// nothing moves for idle_ms.
void Relay(int drone, int server, int idle_ms, Trace* t) {
  bool drone_open = true, server_open = true;
  char buf[64 * 1024];
  while (drone_open || server_open) {
    pollfd p[2] = {{drone, short(drone_open ? POLLIN : 0), 0},
                   {server, short(server_open ? POLLIN : 0), 0}};
    int n = poll(p, 2, idle_ms);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      t->error = n == 0 ? "idle for " + std::to_string(idle_ms / 1000) + " s: closed" : "poll";
      return;
    }
    for (int i = 0; i < 2; i++) {
      if (!(p[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      const int from = i == 0 ? drone : server, to = i == 0 ? server : drone;
      ssize_t r = recv(from, buf, sizeof buf, 0);
      if (r < 0 && errno == EINTR) continue;
      if (r <= 0 || !WriteAll(to, std::string_view(buf, size_t(r)))) {
        shutdown(to, SHUT_WR);
        (i == 0 ? drone_open : server_open) = false;
        continue;
      }
      (i == 0 ? t->up : t->down) += r;
    }
  }
}

// The request head (through the blank line) and the bytes read after it; nullopt when the drone
// sent none within the limit.
std::optional<std::pair<std::string, std::string>> ReadHead(int fd) {
  std::string data;
  char buf[4096];
  while (data.size() < kMaxHead) {
    ssize_t n = recv(fd, buf, sizeof buf, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return std::nullopt;
    data.append(buf, size_t(n));
    if (size_t end = data.find("\r\n\r\n"); end != std::string::npos)
      return std::make_pair(data.substr(0, end + 4), data.substr(end + 4));
  }
  return std::nullopt;
}

void Serve(int fd, const EgressProxyOptions& o, Log* log) {
  Trace t;
  t.start = WallMs();
  timeval tv{10, 0};  // the head must come within 10 s
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  auto refuse = [&](int code, const char* status, std::string rule, std::string reason) {
    t.rule = std::move(rule);
    t.reason = std::move(reason);
    Answer(fd, code, status, t.rule, t.reason);
    log->Append(t);
    close(fd);
  };
  std::optional<std::pair<std::string, std::string>> head = ReadHead(fd);
  if (!head) return refuse(400, "Bad Request", "egress.request", "no request head within 16 KiB");
  http::request_parser<http::empty_body> parser;
  parser.eager(false);
  parser.header_limit(kMaxHead);
  boost::beast::error_code ec;
  parser.put(boost::asio::buffer(head->first), ec);
  if (ec || !parser.is_header_done())
    return refuse(400, "Bad Request", "egress.request", "not an HTTP request: " + ec.message());
  const auto& req = parser.get();
  t.method = std::string(req.method_string());
  const std::string target(req.target());
  const bool tunnel = req.method() == http::verb::connect;
  std::string authority = target, path;
  if (!tunnel) {
    if (target.rfind("http://", 0) != 0)
      return refuse(400, "Bad Request", "egress.request",
                    "a proxy request names an absolute http:// URL (https goes by CONNECT)");
    authority = target.substr(
        7, target.find('/', 7) == std::string::npos ? std::string::npos : target.find('/', 7) - 7);
    path = target.substr(7 + authority.size());
    if (path.empty()) path = "/";
    if (authority.find(':', authority.rfind(']') == std::string::npos ? 0 : authority.rfind(']')) ==
        std::string::npos)
      authority += ":80";
  }
  t.asked = authority;
  Result<Destination> dest = ParseDestination(authority);
  if (!dest.ok()) return refuse(400, "Bad Request", "egress.request", dest.status().message());
  t.asked = dest->Text();
  t.port = dest->port;
  EgressDecision d = tunnel ? EgressDecision{true, "", ""} : JudgeMethod(o.rules, t.method);
  if (d.allowed) d = JudgeAsked(o.rules, *dest);
  if (!d.allowed) return refuse(403, "Forbidden", d.rule, d.reason);
  auto addresses = Resolve(*dest);
  if (!addresses.ok())
    return refuse(502, "Bad Gateway", "egress.unresolved", addresses.status().message());
  std::vector<std::string> texts;
  for (const auto& a : *addresses) texts.push_back(a.first);
  d = JudgeResolved(o.rules, *dest, texts);
  if (!d.allowed) return refuse(403, "Forbidden", d.rule, d.reason);
  std::string error;
  int server = ConnectAny(*addresses, o.connect_timeout_ms, &t.address, &error);
  if (server < 0) return refuse(502, "Bad Gateway", "egress.connect", error);
  t.allowed = true;
  timeval none{0, 0};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &none, sizeof none);
  bool sent;
  if (tunnel) {
    sent = WriteAll(fd, "HTTP/1.1 200 Connection established\r\n\r\n") &&
           WriteAll(server, head->second);
  } else {
    std::string forward = t.method + " " + path + " HTTP/" + std::to_string(req.version() / 10) +
                          "." + std::to_string(req.version() % 10) + "\r\n";
    for (const auto& field : req) {
      const std::string name(field.name_string());
      if (strcasecmp(name.c_str(), "Proxy-Connection") == 0 ||
          strcasecmp(name.c_str(), "Proxy-Authorization") == 0)
        continue;
      forward += name + ": " + std::string(field.value()) + "\r\n";
    }
    forward += "\r\n";
    sent = WriteAll(server, forward + head->second);
    t.up += int64_t(forward.size());
  }
  t.up += int64_t(head->second.size());
  if (sent) Relay(fd, server, o.idle_timeout_ms, &t);
  close(server);
  close(fd);
  log->Append(t);
}

}  // namespace

Result<EgressRules> ParseEgressRules(std::string_view text) {
  Result<json::Value> v = json::Parse(text);
  if (!v.ok()) return v.status();
  if (!v->is_object()) return Status::Invalid("egress rules: expected a JSON object");
  EgressRules r;
  for (const auto& [key, value] : v->as_object()) {
    if (key != "allow" && key != "methods")
      return Status::Invalid("egress rules: " + key + ": unknown field (allow, methods)");
    if (!value.is_array()) return Status::Invalid("egress rules: " + key + ": expected a list");
    for (const json::Value& e : value.as_array()) {
      if (!e.is_string())
        return Status::Invalid("egress rules: " + key + ": expected a list of strings");
      if (key == "methods") {
        r.methods.push_back(e.as_string());
        continue;
      }
      Result<Destination> d = ParseDestination(e.as_string());
      if (!d.ok()) return Status::Invalid("egress rules: allow: " + d.status().message());
      r.allow.push_back(*d);
    }
  }
  return r;
}

Status ServeEgress(const EgressProxyOptions& o, const std::atomic<bool>* stop) {
  int log_fd = open(o.log_path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (log_fd < 0) return Status::Errno("open " + o.log_path, errno);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  if (o.socket_path.size() >= sizeof addr.sun_path)
    return Status::Invalid("socket path " + o.socket_path + " is too long for a unix socket");
  std::strcpy(addr.sun_path, o.socket_path.c_str());
  int ls = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (ls < 0) return Status::Errno("socket", errno);
  unlink(o.socket_path.c_str());
  if (bind(ls, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 || listen(ls, 64) != 0)
    return Status::Errno("listen on " + o.socket_path, errno);
  chmod(o.socket_path.c_str(), 0666);
  // Shared with the connections' threads, which may outlive this call (the process ends them).
  auto log = std::make_shared<Log>(log_fd);
  auto options = std::make_shared<const EgressProxyOptions>(o);
  auto open = std::make_shared<std::atomic<int>>(0);
  while (!stop->load()) {
    pollfd p{ls, POLLIN, 0};
    if (poll(&p, 1, 200) <= 0) continue;
    int fd = accept4(ls, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) continue;
    ++*open;
    std::thread([fd, options, log, open] {
      Serve(fd, *options, log.get());
      --*open;
    }).detach();
  }
  close(ls);
  unlink(o.socket_path.c_str());
  // The connections still open (their drone has ended: they end too) get 2 s to be logged.
  for (int waited = 0; waited < 2000 && open->load() > 0; waited += 10)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  return Status::Ok();
}

}  // namespace hangar
