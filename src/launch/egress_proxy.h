// EgressProxy: the one way out of a drone in network mode "egress" (issue 20; kernel/egress.h
// decides, this carries out). It listens on a unix socket (bound into the drone's sandbox, whose
// network namespace has only loopback) and serves, per connection:
//
//   CONNECT host:port HTTP/1.1     a tunnel (HTTPS): 200, then bytes both ways
//   METHOD http://host[:port]/...  plain HTTP, forwarded to the server in origin form
//
// Each is judged before anything reaches the destination: the destination as asked
// (JudgeAsked), a plain request's method (JudgeMethod), and every address the name resolves to
// (JudgeResolved); the proxy connects to the addresses it judged, never resolving again. A refusal
// is answered 403 with the rule in an X-Hangar-Rule header (400 for a request it cannot read) and
// never opens a connection to the destination. A kept-alive plain-HTTP connection stays with the
// server it was judged for.
//
// Every connection is a trace: one JSON line appended to the log when it ends (written by hangar,
// never by the drone), in order of ending:
//   {"asked":"host:port","method":M,"address":A|null,"port":P,"verdict":"allowed"|"refused",
//    "rule":R|null,"reason":TEXT|null,"bytes_up":N,"bytes_down":N,"start":T,"end":T,
//    "error":TEXT|null}
// bytes_up: drone to destination; bytes_down: back (the tunnel's payload, or the forwarded HTTP).
//
// Threads: Serve accepts on the calling thread and serves each connection on a thread of its own.
#pragma once

#include <atomic>
#include <string>

#include "base/status.h"
#include "kernel/egress.h"

namespace hangar {

struct EgressProxyOptions {
  std::string socket_path;  // created (a stale one replaced), mode 0666: the drone may be any uid
  std::string log_path;     // appended, created 0644
  EgressRules rules;
  int connect_timeout_ms = 10000;
  int idle_timeout_ms = 300000;  // a tunnel with no byte either way this long is closed
};

// rules.json for hangar-egress --rules: {"allow": ["host:port", ...], "methods": ["GET", ...]}
// ("methods" optional). Invalid naming the field.
Result<EgressRules> ParseEgressRules(std::string_view text);

// Binds the socket and serves until *stop becomes true (checked at least every 200 ms). An error
// when the socket cannot be made or the log opened.
Status ServeEgress(const EgressProxyOptions& options, const std::atomic<bool>* stop);

}  // namespace hangar
