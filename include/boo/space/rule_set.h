// Rule sets: how much of a configuration space to enumerate. `tiny` is a handful of safe configs
// (tests, CI compile checks), `default` what the heuristic ranks, `full` what the tuner searches.
#pragma once

#include <string_view>

#include "boo/core/status.h"

namespace boo::space {

enum class RuleSet { kTiny, kDefault, kFull };

inline constexpr RuleSet kAllRuleSets[] = {RuleSet::kTiny, RuleSet::kDefault, RuleSet::kFull};

std::string_view rule_set_name(RuleSet r);  // "tiny", "default", "full"
core::Expected<RuleSet> parse_rule_set(std::string_view name);

}  // namespace boo::space
