#include "boo/parse/flags.h"

#include "boo/core/strings.h"

namespace boo::parse {

using core::Expected;
using core::invalid_argument;

const FlagSpec* FlagValues::find(std::string_view long_name) const {
  for (const FlagSpec& s : specs_) {
    if (s.long_name == long_name) return &s;
  }
  return nullptr;
}

std::string_view FlagValues::get(std::string_view long_name) const {
  auto it = given_.find(std::string(long_name));
  if (it != given_.end()) return it->second.value;
  const FlagSpec* spec = find(long_name);
  return spec ? spec->default_value : std::string_view();
}

std::string_view FlagValues::get_default(std::string_view long_name) const {
  const FlagSpec* spec = find(long_name);
  return spec ? spec->default_value : std::string_view();
}

std::string FlagValues::spelled(std::string_view long_name) const {
  auto it = given_.find(std::string(long_name));
  if (it != given_.end()) return it->second.spelled;
  const FlagSpec* spec = find(long_name);
  if (spec && spec->short_name) return std::string("-") + spec->short_name;
  return "--" + std::string(long_name);
}

std::string FlagValues::respelled(std::string_view message) const {
  const size_t end = message.find_first_of(": ");
  if (end == std::string_view::npos || message.size() < 2 || message[0] != '-') {
    return std::string(message);
  }
  const std::string_view flag = message.substr(0, end);
  for (const FlagSpec& spec : specs_) {
    const bool as_short = spec.short_name && flag.size() == 2 && flag[1] == spec.short_name;
    const bool as_long =
        flag.size() > 2 && flag.substr(0, 2) == "--" && flag.substr(2) == spec.long_name;
    if (as_short || as_long) return spelled(spec.long_name) + std::string(message.substr(end));
  }
  return std::string(message);
}

core::Status FlagValues::respelled(const core::Status& status) const {
  if (status.is_ok()) return status;
  return core::Status(status.code(), respelled(status.message()));
}

Expected<int64_t> FlagValues::get_int(std::string_view long_name) const {
  return core::parse_int(spelled(long_name), get(long_name));
}

Expected<double> FlagValues::get_double(std::string_view long_name) const {
  return core::parse_double(spelled(long_name), get(long_name));
}

namespace {

// "-5" and "-0.5" are values; "-n" and "--iter" are flags.
bool looks_like_flag(std::string_view word) {
  if (word.size() < 2 || word[0] != '-') return false;
  const char c = word[1];
  return !(c >= '0' && c <= '9') && c != '.';
}

// MIOpenDriver's switches (-t, -V) take 0 or 1.
Expected<bool> read_switch(const FlagValues& flags, std::string_view name) {
  BOO_ASSIGN_OR_RETURN(int64_t v, flags.get_int(name));
  if (v != 0 && v != 1) {
    return core::invalid_argument(flags.spelled(name) + ": expected 0 or 1, got " +
                                  std::to_string(v));
  }
  return v == 1;
}

}  // namespace

Expected<FlagValues> parse_flags(std::span<const FlagSpec> specs, std::span<const std::string> args,
                                 std::vector<std::string>* notes) {
  FlagValues out;
  out.specs_ = specs;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& word = args[i];
    const FlagSpec* spec = nullptr;
    if (word.size() > 2 && word.rfind("--", 0) == 0) {
      const std::string_view name = std::string_view(word).substr(2);
      for (const FlagSpec& s : specs) {
        if (s.long_name == name) spec = &s;
      }
    } else if (word.size() == 2 && word[0] == '-') {
      for (const FlagSpec& s : specs) {
        if (s.short_name != '\0' && s.short_name == word[1]) spec = &s;
      }
    } else {
      return invalid_argument("unexpected word " + core::quote(word) +
                              ": expected a flag such as -n or --iter");
    }
    if (spec == nullptr) return invalid_argument("unknown flag " + core::quote(word));
    if (i + 1 >= args.size() || looks_like_flag(args[i + 1])) {
      return invalid_argument(word + ": missing value");
    }
    const std::string& value = args[++i];
    const std::string key(spec->long_name);
    auto [it, inserted] = out.given_.emplace(key, FlagValues::Given{value, word});
    if (!inserted && it->second.value != value) {
      return invalid_argument(word + ": given twice with different values (" +
                              core::quote(it->second.value) + " and " + core::quote(value) + ")");
    }
    if (spec->use == FlagUse::kIgnored && inserted && notes != nullptr) {
      notes->push_back(word + " " + value + ": a MIOpen option boo does not use; ignored");
    }
  }
  return out;
}

std::vector<FlagSpec> with_run_flags(std::initializer_list<FlagSpec> specs) {
  std::vector<FlagSpec> out(specs);
  out.push_back({"time", 't', "0"});
  out.push_back({"iter", 'i', "10"});
  out.push_back({"verify", 'V', "0"});
  out.push_back({"wall", 'w', "0", FlagUse::kIgnored});
  return out;
}

Expected<RunOptions> read_run_options(const FlagValues& flags) {
  RunOptions run;
  if (flags.given("time")) {
    BOO_ASSIGN_OR_RETURN(run.time, read_switch(flags, "time"));
  }
  if (flags.given("iter")) {
    BOO_ASSIGN_OR_RETURN(int64_t n, flags.get_int("iter"));
    BOO_RETURN_IF_ERROR(core::require_at_least(flags.spelled("iter"), n, 1));
    run.iter = n;
  }
  if (flags.given("verify")) {
    BOO_ASSIGN_OR_RETURN(run.verify, read_switch(flags, "verify"));
  }
  return run;
}

}  // namespace boo::parse
