// The device sources codegen builds translation units from (kernels/*.cuh and abi.h), embedded
// in the library at build time so that a kernel's text — and so its cache hash — does not
// depend on where boo is installed.
#pragma once

#include <span>
#include <string>
#include <string_view>

#include "boo/core/status.h"

namespace boo::codegen {

struct EmbeddedFile {
  std::string_view name;  // "gemm_sm90.cuh"
  std::string_view text;
};

std::span<const EmbeddedFile> embedded_files();
core::Expected<std::string_view> embedded_file(std::string_view name);

// Replaces each `#include "name"` of an embedded file by its text (once per file, as
// `#pragma once` would), recursively; other includes stay.
core::Expected<std::string> inline_embedded_includes(std::string_view text);

}  // namespace boo::codegen
