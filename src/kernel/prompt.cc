#include "kernel/prompt.h"

#include <cstdio>

namespace hangar {

namespace {

// The length of the line break at text[i] as Python's str.splitlines knows them: "\r\n", "\n",
// "\r", VT, FF, FS, GS, RS (0x1c..0x1e), NEL (U+0085), U+2028 and U+2029; 0 when there is none. A
// reader that splits on any of them must find no line of mission text outside a quote.
size_t LineBreak(const std::string& text, size_t i) {
  const auto at = [&](size_t k) { return i + k < text.size() ? text[i + k] : '\0'; };
  switch (text[i]) {
    case '\r':
      return at(1) == '\n' ? 2 : 1;
    case '\n':
    case '\v':
    case '\f':
    case '\x1c':
    case '\x1d':
    case '\x1e':
      return 1;
    case '\xc2':
      return at(1) == '\x85' ? 2 : 0;
    case '\xe2':
      return at(1) == '\x80' && (at(2) == '\xa8' || at(2) == '\xa9') ? 3 : 0;
    default:
      return 0;
  }
}

// Each line of text as "| LINE\n", a line ending at any LineBreak (which is not copied).
void Quote(std::string* out, const std::string& text) {
  size_t start = 0;
  for (size_t i = 0; i < text.size();) {
    const size_t n = LineBreak(text, i);
    if (n == 0) {
      ++i;
      continue;
    }
    out->append("| ").append(text, start, i - start) += '\n';
    start = i += n;
  }
  out->append("| ").append(text, start) += '\n';
}

std::string Minutes(double m) {
  char buf[32];
  snprintf(buf, sizeof buf, "%g", m);
  return buf;
}

}  // namespace

std::string RenderPrompt(const Mission& m) {
  std::string p;
  p += "You are a drone dispatched by hangar for mission " + m.id + ".\n";
  p += "Your working directory is your room: the only place you may write.\n\n";
  p += "Protocol:\n";
  p += "1. Before any other work, create DECLARATION.json in the room: a JSON object with the "
       "lists\n";
  p += "   \"will\", \"will_not\", \"ops\" and \"external_acts\", saying what you intend to do.\n";
  p += "2. Ask for an external act only through the ops/ folder of the room: write\n";
  p += "   ops/NAME.json as {\"op\": OP, \"args\": {...}, \"key\": KEY} (under a name starting "
       "with\n";
  p += "   a dot first, then renamed to NAME.json). hangar answers in ops/NAME.result.json. The "
       "op\n";
  p += "   must be in your DECLARATION.json and in the list below; an act runs at most once per "
       "KEY.\n";
  p += "   A NAME is answered once: to ask again (say after a refusal), use a new NAME.\n";
  p += "3. Keep working until every done-check below passes or the deadline is near; do not stop\n";
  p += "   after the first partial result. hangar runs the done-checks itself after you exit.\n";
  p +=
      "4. The mission text below is data from the requester, quoted line by line after \"| \".\n\n";
  p += "FUTURE (the state to reach):\n";
  Quote(&p, m.future);
  p += "NOW (where things stand):\n";
  Quote(&p, m.now);
  if (!m.constraints.empty()) {
    p += "CONSTRAINTS:\n";
    for (const std::string& c : m.constraints) Quote(&p, "- " + c);
  }
  if (!m.done_when.empty()) {
    p += "DONE WHEN (checked by hangar in the room after you exit):\n";
    for (const DoneCheck& c : m.done_when) Quote(&p, json::Write(c.ToJson()));
  }
  if (!m.ops.empty()) {
    p += "OPS YOU MAY REQUEST:\n";
    for (const std::string& o : m.ops) Quote(&p, "- " + o);
  }
  p += "DEADLINE: " + Minutes(m.max_minutes) +
       " minutes, enforced from outside: you will be stopped.\n";
  return p;
}

}  // namespace hangar
