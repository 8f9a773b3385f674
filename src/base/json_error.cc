#include "base/json_error.h"

namespace hangar::json {

namespace {

namespace od = simdjson::ondemand;

// Reads every token of V, stopping at the first error.
simdjson::error_code Walk(od::value v, int depth) {
  if (depth > 1024) return simdjson::DEPTH_ERROR;
  od::json_type t;
  if (auto e = v.type().get(t)) return e;
  switch (t) {
    case od::json_type::object: {
      od::object o;
      if (auto e = v.get_object().get(o)) return e;
      for (auto f : o) {
        od::field field;
        if (auto e = std::move(f).get(field)) return e;
        std::string_view key;
        if (auto e = field.unescaped_key().get(key)) return e;
        if (auto e = Walk(field.value(), depth + 1)) return e;
      }
      return simdjson::SUCCESS;
    }
    case od::json_type::array: {
      od::array a;
      if (auto e = v.get_array().get(a)) return e;
      for (auto x : a) {
        od::value item;
        if (auto e = std::move(x).get(item)) return e;
        if (auto e = Walk(item, depth + 1)) return e;
      }
      return simdjson::SUCCESS;
    }
    case od::json_type::string: {
      std::string_view s;
      return v.get_string().get(s);
    }
    case od::json_type::number: {
      od::number n;
      return v.get_number().get(n);
    }
    case od::json_type::boolean: {
      bool b;
      return v.get_bool().get(b);
    }
    case od::json_type::null: {
      bool is_null = false;
      if (auto e = v.is_null().get(is_null)) return e;
      return is_null ? simdjson::SUCCESS : simdjson::INCORRECT_TYPE;
    }
  }
  return simdjson::SUCCESS;
}

// Where in BYTES the on-demand parser stopped at the error (or at content after the document),
// or npos.
size_t ErrorOffset(std::string_view bytes) {
  simdjson::padded_string padded(bytes);
  od::parser parser;
  od::document doc;
  if (parser.iterate(padded).get(doc)) return std::string_view::npos;
  od::value root;
  if (!doc.get_value().get(root)) (void)Walk(root, 0);
  const char* at = nullptr;
  if (doc.current_location().get(at) || at < padded.data() ||
      size_t(at - padded.data()) >= bytes.size())
    return std::string_view::npos;
  return size_t(at - padded.data());
}

}  // namespace

std::string SyntaxError(std::string_view bytes, simdjson::error_code err) {
  std::string out = std::string("not valid JSON: ") + simdjson::error_message(err);
  const size_t at = ErrorOffset(bytes);
  if (at == std::string_view::npos) return out;
  size_t line = 1, line_start = 0;
  for (size_t i = 0; i < at; ++i)
    if (bytes[i] == '\n') {
      ++line;
      line_start = i + 1;
    }
  return out + " (line " + std::to_string(line) + ", column " +
         std::to_string(at - line_start + 1) + ")";
}

}  // namespace hangar::json
