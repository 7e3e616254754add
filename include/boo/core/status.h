// Errors as values: Status and Expected<T>. Nothing in boo throws across a layer boundary, the C
// ABI or Python; every failure carries a one-line message that names the offending flag or value.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <variant>

namespace boo::core {

enum class StatusCode {
  kOk = 0,
  kInvalidArgument,  // the user's input is wrong (flag, value, file content)
  kUnsupported,      // valid input that this build or algorithm does not handle
  kNotFound,         // a file, kernel or tuning row that does not exist
  kUnavailable,      // a missing GPU, driver, compiler or library
  kResourceLimit,    // too large for the chosen backend (e.g. the CPU reference)
  kInternal,         // a bug in boo
};

std::string_view status_code_name(StatusCode code);

class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(StatusCode code, std::string message) : code_(code), message_(std::move(message)) {}

  static Status ok() { return {}; }
  bool is_ok() const { return code_ == StatusCode::kOk; }
  explicit operator bool() const { return is_ok(); }
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_; }
  // "invalid argument: -n: expected a positive integer, got '0'".
  std::string to_string() const;
  // Prefixes context ("line 3: ") to the message, keeping the code.
  Status with_context(std::string_view context) const;

 private:
  StatusCode code_ = StatusCode::kOk;
  std::string message_;
};

Status invalid_argument(std::string message);
Status unsupported(std::string message);
Status not_found(std::string message);
Status unavailable(std::string message);
Status resource_limit(std::string message);
Status internal_error(std::string message);

// A value or the Status that explains why there is none.
template <typename T>
class [[nodiscard]] Expected {
 public:
  Expected(T value) : data_(std::move(value)) {}        // NOLINT(google-explicit-constructor)
  Expected(Status status) : data_(std::move(status)) {  // NOLINT(google-explicit-constructor)
    if (std::get<Status>(data_).is_ok()) {
      data_ = Status(StatusCode::kInternal, "Expected built from an ok Status");
    }
  }

  bool has_value() const { return std::holds_alternative<T>(data_); }
  explicit operator bool() const { return has_value(); }
  T& value() & { return std::get<T>(data_); }
  const T& value() const& { return std::get<T>(data_); }
  T&& value() && { return std::get<T>(std::move(data_)); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  // The error; an ok Status when there is a value.
  Status status() const { return has_value() ? Status::ok() : std::get<Status>(data_); }

 private:
  std::variant<T, Status> data_;
};

}  // namespace boo::core

#define BOO_CONCAT_INNER(a, b) a##b
#define BOO_CONCAT(a, b) BOO_CONCAT_INNER(a, b)

// Returns the Status from the enclosing function when `expr` (a Status) is not ok.
#define BOO_RETURN_IF_ERROR(expr)                 \
  do {                                            \
    ::boo::core::Status boo_status_ = (expr);     \
    if (!boo_status_.is_ok()) return boo_status_; \
  } while (false)

// `BOO_ASSIGN_OR_RETURN(auto x, f());` unwraps an Expected or returns its Status.
#define BOO_ASSIGN_OR_RETURN(lhs, expr) \
  BOO_ASSIGN_OR_RETURN_IMPL(BOO_CONCAT(boo_expected_, __LINE__), lhs, expr)
#define BOO_ASSIGN_OR_RETURN_IMPL(tmp, lhs, expr) \
  auto tmp = (expr);                              \
  if (!tmp.has_value()) return tmp.status();      \
  lhs = std::move(tmp).value()
