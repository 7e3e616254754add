// Helpers of the CLI tests: run the built `boo` (BOO_CLI_PATH) through the shell and read back
// its stdout, stderr and exit status.
#pragma once

#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace boo::cli {

struct RunResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

inline std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream buf;
  buf << in.rdbuf();
  return buf.str();
}

inline void write_file(const std::filesystem::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
}

inline std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// Single-quotes a word for /bin/sh ('$', '#', '!' and spaces stay literal).
inline std::string shell_quote(const std::string& word) {
  std::string out = "'";
  for (char ch : word) out += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
  return out + "'";
}

// Runs `env... boo args...` (each arg one word; env: NAME=value words, or `-u NAME` pairs as
// env(1) takes them) with stdin from /dev/null; stdout and stderr go through files in `scratch`.
inline RunResult run_boo(const std::vector<std::string>& args, const std::filesystem::path& scratch,
                         const std::vector<std::string>& env = {}) {
  static int counter = 0;
  const std::string id = std::to_string(getpid()) + "_" + std::to_string(counter++);
  const std::filesystem::path out = scratch / ("stdout" + id);
  const std::filesystem::path err = scratch / ("stderr" + id);
  std::string cmd = "env";
  for (const std::string& e : env) cmd += " " + shell_quote(e);
  cmd += " " + shell_quote(BOO_CLI_PATH);
  for (const std::string& a : args) cmd += " " + shell_quote(a);
  cmd += " >" + shell_quote(out.string()) + " 2>" + shell_quote(err.string()) + " </dev/null";
  const int status = std::system(cmd.c_str());
  RunResult r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = read_file(out);
  r.err = read_file(err);
  return r;
}

}  // namespace boo::cli
