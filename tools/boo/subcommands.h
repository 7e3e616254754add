// The `boo` subcommands, one source file each. Each adds itself to the app and returns the
// exit status to use once CLI11 has parsed the arguments.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>

namespace boo::cli {

using Run = std::function<int()>;

Run add_parse_command(CLI::App& app);
Run add_driver_command(CLI::App& app);
Run add_preload_command(CLI::App& app);
Run add_space_check_command(CLI::App& app);
Run add_numerics_command(CLI::App& app);
Run add_codegen_command(CLI::App& app);
Run add_cache_command(CLI::App& app);
Run add_ceilings_command(CLI::App& app);

}  // namespace boo::cli
