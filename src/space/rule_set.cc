#include "boo/space/rule_set.h"

#include "boo/core/strings.h"

namespace boo::space {

std::string_view rule_set_name(RuleSet r) {
  switch (r) {
    case RuleSet::kTiny:
      return "tiny";
    case RuleSet::kDefault:
      return "default";
    case RuleSet::kFull:
      return "full";
  }
  return "?";
}

core::Expected<RuleSet> parse_rule_set(std::string_view name) {
  for (RuleSet r : kAllRuleSets) {
    if (rule_set_name(r) == name) return r;
  }
  return core::invalid_argument("--rule-set: expected tiny, default or full, got " +
                                core::quote(name));
}

}  // namespace boo::space
