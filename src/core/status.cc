#include "boo/core/status.h"

namespace boo::core {

std::string_view status_code_name(StatusCode code) {
  switch (code) {
    case StatusCode::kOk:
      return "ok";
    case StatusCode::kInvalidArgument:
      return "invalid argument";
    case StatusCode::kUnsupported:
      return "unsupported";
    case StatusCode::kNotFound:
      return "not found";
    case StatusCode::kUnavailable:
      return "unavailable";
    case StatusCode::kResourceLimit:
      return "too large";
    case StatusCode::kInternal:
      return "internal error";
  }
  return "unknown";
}

std::string Status::to_string() const {
  if (is_ok()) return "ok";
  return std::string(status_code_name(code_)) + ": " + message_;
}

Status Status::with_context(std::string_view context) const {
  if (is_ok()) return *this;
  return Status(code_, std::string(context) + message_);
}

Status invalid_argument(std::string message) {
  return {StatusCode::kInvalidArgument, std::move(message)};
}
Status unsupported(std::string message) { return {StatusCode::kUnsupported, std::move(message)}; }
Status not_found(std::string message) { return {StatusCode::kNotFound, std::move(message)}; }
Status unavailable(std::string message) { return {StatusCode::kUnavailable, std::move(message)}; }
Status resource_limit(std::string message) {
  return {StatusCode::kResourceLimit, std::move(message)};
}
Status internal_error(std::string message) { return {StatusCode::kInternal, std::move(message)}; }

}  // namespace boo::core
