// Running the rocelab command from tests, and the files it leaves.
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace rocelab::test {

inline std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline std::filesystem::path temp_dir(const std::string& name) {
  const std::filesystem::path d = std::filesystem::temp_directory_path() /
                                  ("rocelab_test_" + name + "_" + std::to_string(getpid()));
  std::filesystem::remove_all(d);
  std::filesystem::create_directories(d);
  return d;
}

// The exit status of `rocelab args`; its stdout and stderr in *output.
inline int run_cli(const std::string& args, std::string* output = nullptr,
                   const std::string& prefix = "") {
  // One file per call and process: ctest runs tests of this binary in parallel.
  static int calls = 0;
  const std::filesystem::path out =
      std::filesystem::temp_directory_path() /
      ("rocelab_cli_" + std::to_string(getpid()) + "_" + std::to_string(calls++) + ".txt");
  const std::string cmd =
      prefix + std::string(ROCELAB_CLI) + " " + args + " > " + out.string() + " 2>&1";
  const int status = std::system(cmd.c_str());
  if (output) *output = slurp(out.string());
  std::filesystem::remove(out);
  return WEXITSTATUS(status);
}

}  // namespace rocelab::test
