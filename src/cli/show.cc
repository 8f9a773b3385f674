// hangar show: the state of one mission and what its files say. The mission is shown as its
// requester wrote it; verdicts and the return are summarised (--json gives them whole).
#include "base/plural.h"
#include "cli/commands.h"
#include "cli/exit_code.h"
#include "cli/live_facts.h"
#include "cli/output.h"
#include "cli/spool_view.h"

namespace hangar::cli {

namespace {

// The kernel's files of a mission directory, by the key --json gives them.
constexpr std::pair<const char*, const char*> kFiles[] = {
    {"intake", "intake.json"},   {"why", "why.json"},       {"gate1", "gate1.json"},
    {"gate2", "gate2.json"},     {"launch", "launch.json"}, {"return", "return.json"},
    {"approve", "approve.json"}, {"retry", "retry.json"}};

std::string Text(const json::Value* v) {
  if (!v || v->is_null()) return "-";
  if (v->is_string()) return v->as_string();
  return json::Write(*v);
}

// A field's value as lines: a list gives one line per element.
std::string Lines(const json::Value& v) {
  if (!v.is_array()) return Text(&v);
  std::string out;
  for (const json::Value& e : v.as_array()) out += (out.empty() ? "" : "\n") + Text(&e);
  return out.empty() ? "-" : out;
}

// v[a][b], or nullptr when either level is missing or not an object (see hangar-return(5)).
const json::Value* Member(const json::Value& v, const char* a, const char* b) {
  const json::Value* x = v.is_object() ? v.find(a) : nullptr;
  return x && x->is_object() ? x->find(b) : nullptr;
}

// " (ledger seq N)" when a mission file names the ledger entry that records it, else "".
std::string SeqNote(const json::Value& file) {
  const json::Value* s = file.is_object() ? file.find("ledger_seq") : nullptr;
  return s && s->is_int() ? " (ledger seq " + std::to_string(s->as_int()) + ")" : std::string();
}

// A drone's file name on one line of its own: a newline in it is shown as \n, never as a line
// (the rows are split at newlines before they are made printable).
std::string OneLine(std::string s) {
  for (size_t at = 0; (at = s.find('\n', at)) != std::string::npos; at += 2)
    s.replace(at, 1, "\\n");
  return s;
}

// A workspace mission's change: "3 files changed (+12 -4), 1 commit, 2 uncommitted; base ABC",
// then a line per file ("M src/parse.c +3 -1"), the first 20 of them.
void AddChange(const json::Value& ret, std::vector<Row>* rows) {
  const json::Value* c = ret.find("change");
  if (!c || !c->is_object()) return;
  if (const std::string error = StringField(*c, "error"); !error.empty()) {
    rows->push_back({"change", "not computed: " + error});
    return;
  }
  const json::Value* files = c->find("files");
  if (!files || !files->is_array()) return;
  auto count = [&](const char* list, const char* omitted) {
    const json::Value* l = c->find(list);
    const json::Value* o = c->find(omitted);
    return int64_t(l && l->is_array() ? l->as_array().size() : 0) +
           (o && o->is_int() ? o->as_int() : 0);
  };
  int64_t added = 0, deleted = 0;
  std::string lines;
  size_t shown = 0;
  for (const json::Value& f : files->as_array()) {
    const json::Value* a = f.find("added");
    const json::Value* d = f.find("deleted");
    added += a && a->is_int() ? a->as_int() : 0;
    deleted += d && d->is_int() ? d->as_int() : 0;
    if (++shown > 20) continue;
    const std::string from = OneLine(StringField(f, "from"));
    lines += "\n" + StringField(f, "status") + " " + (from.empty() ? "" : from + " -> ") +
             OneLine(StringField(f, "path")) +
             (a && a->is_int() ? " +" + Text(a) + " -" + Text(d) : std::string(" (binary)"));
  }
  const int64_t total = count("files", "files_omitted");
  if (total > 20)
    lines += "\n... " + std::to_string(total - 20) + " more (hangar patch " +
             StringField(ret, "id") + ")";
  rows->push_back({"change", Plural(total, "file") + " changed (+" + std::to_string(added) + " -" +
                                 std::to_string(deleted) + "), " +
                                 Plural(count("commits", "commits_omitted"), "commit") + ", " +
                                 std::to_string(count("uncommitted", "uncommitted_omitted")) +
                                 " uncommitted; base " + StringField(*c, "base") + lines});
}

void AddReturn(const json::Value& ret, std::vector<Row>* rows) {
  if (!ret.is_object()) return;
  rows->push_back({"outcome", Text(ret.find("outcome")) + SeqNote(ret)});
  rows->push_back({"reason", Text(ret.find("reason"))});
  for (const char* k : {"rc", "signal", "timed_out", "cancelled"})
    rows->push_back({k, Text(Member(ret, "exit", k))});
  for (const char* k : {"started", "ended", "returned"})
    rows->push_back({k, Text(Member(ret, "times", k))});
  if (const json::Value* n = Member(ret, "room", "entries"))
    rows->push_back(
        {"room", (n->is_int() ? Plural(n->as_int(), "entry", "entries") : Text(n) + " entries") +
                     (Member(ret, "room", "omitted_entries") &&
                              Text(Member(ret, "room", "omitted_entries")) != "0"
                          ? " (" + Text(Member(ret, "room", "omitted_entries")) + " not listed)"
                          : "")});
  if (const json::Value* checks = Member(ret, "done_checks", "results");
      checks && checks->is_array()) {
    size_t passed = 0;
    for (const json::Value& c : checks->as_array()) {
      const json::Value* p = c.is_object() ? c.find("passed") : nullptr;
      if (p && p->is_bool() && p->as_bool()) ++passed;
    }
    rows->push_back({"checks", std::to_string(passed) + " of " +
                                   std::to_string(checks->as_array().size()) + " passed"});
  }
  AddChange(ret, rows);
  if (const json::Value* d = Member(ret, "declaration", "present"); d && d->is_bool())
    rows->push_back({"declaration", !d->as_bool() ? "absent"
                                    : Text(Member(ret, "declaration", "valid")) == "true"
                                        ? "valid"
                                        : "invalid"});
  // The window's answers, a line each: "a1 post.message executed", "a3 deploy refused [rule]".
  if (const json::Value* answered = Member(ret, "ops", "answered");
      answered && answered->is_array() && !answered->as_array().empty()) {
    std::string lines;
    for (const json::Value& a : answered->as_array()) {
      const std::string rule = StringField(a, "rule");
      lines += (lines.empty() ? "" : "\n") + StringField(a, "request") + " " + Text(a.find("op")) +
               " " + StringField(a, "status") + (rule.empty() ? "" : " [" + rule + "]");
    }
    rows->push_back({"window", lines});
  }
  if (const json::Value* v = Member(ret, "verdict", "text"); v && v->is_string())
    rows->push_back({"verdict", v->as_string()});
}

std::vector<Row> HumanRows(const MissionRef& ref, const json::Object& files,
                           const json::Value& mission, const json::Value& live) {
  std::vector<Row> rows = {{"id", ref.id}, {"state", ref.state}, {"dir", ref.path}};
  if (mission.is_object())
    for (const auto& [k, v] : mission.as_object())
      if (k != "hangar" && k != "id") rows.push_back({k, Lines(v)});
  if (const json::Value& in = files.at("intake"); in.is_object()) {
    // Who dropped it as the OS said (the file's owner), not the mission's "requester" claim.
    const json::Value* uid = in.find("uid");
    const std::string by = uid && uid->is_int() ? ", dropped by " + Text(in.find("user")) +
                                                      " (uid " + std::to_string(uid->as_int()) + ")"
                                                : "";
    rows.push_back({"intake", Text(in.find("time")) + by + SeqNote(in)});
  }
  for (const char* g : {"gate1", "gate2"})
    if (const json::Value& v = files.at(g); v.is_object()) {
      std::string rules;
      if (const json::Value* r = v.find("rules"); r && r->is_array())
        for (const json::Value& x : r->as_array())
          if (x.is_string()) rules += (rules.empty() ? "" : ", ") + x.as_string();
      const std::string reason = StringField(v, "reason");
      rows.push_back({g, Text(v.find("verdict")) + SeqNote(v) +
                             (rules.empty() ? "" : " [" + rules + "]") +
                             (reason.empty() ? "" : "\n" + reason)});
    }
  if (const json::Value& a = files.at("approve"); a.is_object())
    rows.push_back(
        {"approved", "by " + Text(a.find("by")) + " at " + Text(a.find("time")) + SeqNote(a)});
  if (const json::Value& r = files.at("retry"); r.is_object())
    rows.push_back({"retry", "attempt " + Text(r.find("attempt")) + " after attempt " +
                                 Text(r.find("previous")) + " ended " +
                                 Text(r.find("previous_outcome")) + ", asked by " +
                                 Text(r.find("by")) + " at " + Text(r.find("time")) + SeqNote(r) +
                                 " (attempts/" + Text(r.find("previous")) + "/ keeps it)"});
  if (const json::Value& l = files.at("launch"); l.is_object())
    rows.push_back(
        {"launch", "attempt " + Text(l.find("attempt")) + " at " + Text(l.find("time"))});
  if (const json::Value& w = files.at("why"); w.is_object()) {
    const std::string field = StringField(w, "field");
    rows.push_back({"why", (field.empty() ? "" : field + ": ") + Text(w.find("reason"))});
  }
  for (Row& r : LiveRows(live)) rows.push_back(std::move(r));
  AddReturn(files.at("return"), &rows);
  // Values with several lines continue under their first line.
  std::vector<Row> out;
  for (const Row& r : rows) {
    size_t start = 0;
    for (bool first = true;; first = false) {
      size_t nl = r[1].find('\n', start);
      out.push_back(
          {first ? r[0] : "", r[1].substr(start, nl == std::string::npos ? nl : nl - start)});
      if (nl == std::string::npos) break;
      start = nl + 1;
    }
  }
  return out;
}

}  // namespace

int RunShow(const Context& ctx, const std::string& id) {
  SpoolView view(ctx.env, ctx.layout);
  Result<MissionRef> ref = view.Find(id);
  if (!ref.ok()) return FailTo(ctx.err, kExitNoInput, "show " + id, ref.status().message());

  std::string mission_file = ref->path;
  if (ref->phase)
    mission_file += *ref->phase == Phase::kRejected ? "/mission.raw" : "/mission.json";
  auto mission_or = view.ReadJson(mission_file);
  const json::Value mission = mission_or.ok() ? *mission_or : json::Value();
  json::Object files;
  for (const auto& [key, name] : kFiles) {
    json::Value v;
    if (ref->phase) {
      auto r = view.ReadJson(ref->path + "/" + name, SpoolView::kMaxReturnFile);
      if (r.ok())
        v = *r;
      else if (r.status().code() != Code::kNotFound)
        ctx.err << "hangar: " << Printable(r.status().message()) << "\n";
    }
    files[key] = v;
  }

  const json::Value live = LiveFacts(view, *ref, ctx.env->Now());
  if (ctx.json) {
    json::Object o = files;
    o["live"] = live;
    o["id"] = ref->id;
    o["state"] = ref->state;
    o["dir"] = ref->path;
    o["mission"] = mission;
    PrintJson(ctx.out, o);
  } else {
    ctx.out << FormatTable(HumanRows(*ref, files, mission, live));
  }
  return kExitOk;
}

}  // namespace hangar::cli
