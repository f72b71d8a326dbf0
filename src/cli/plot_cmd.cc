#include "cli/plot_cmd.h"

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <vector>

#include "plot_script.h"  // generated from src/cli/rocelab_plot.py: kPlotScript

extern char** environ;

namespace rocelab {

namespace {

// Debian's interpreter first: python3-matplotlib installs for it, not for another python3
// that may come first on PATH.
std::string python() {
  return std::filesystem::exists("/usr/bin/python3") ? "/usr/bin/python3" : "python3";
}

}  // namespace

int run_plot_script(const std::string& mode, const std::string& dir, const std::string& out) {
  char path[] = "/tmp/rocelab_plot_XXXXXX";
  const int fd = ::mkstemp(path);
  if (fd < 0) throw std::runtime_error("cannot create a temporary file for the plot script");
  ::close(fd);
  {
    std::ofstream script(path);
    script << kPlotScript;
  }
  const std::string py = python();
  std::vector<std::string> args = {py, path, mode, dir, out};
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = 0;
  const int err = ::posix_spawnp(&pid, py.c_str(), nullptr, nullptr, argv.data(), environ);
  int status = 0;
  if (err == 0) ::waitpid(pid, &status, 0);
  std::remove(path);
  if (err != 0)
    throw std::runtime_error("cannot start " + py + ": `rocelab " + mode +
                             "` needs python3 (and python3-matplotlib for figures)");
  return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

}  // namespace rocelab
